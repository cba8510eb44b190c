"""Kernels of MMC with a multivariate loss (MultivariateMMC).

A candidate labelling y' is compared with the current labelling s (the signs
of the decision values) through its 2 x 2 contingency table, in the notation
of the paper (rows y', columns s)::

                s = +1   s = -1
    y' = +1       a        b
    y' = -1       c        d

so that ``a + c = n_pos`` and ``b + d = n_neg`` are fixed by s. The losses are
one minus the scores of :mod:`mmc.metrics` with s as the reference labelling
(``labels_true``) and y' as the prediction, with the same limit cases:

* ``LOSS_ERROR``: ``2 (b + c) / n``, twice the disagreement (not matched; with
  it MultivariateMMC reduces to CPMMC, Theorem 2 of the paper);
* ``LOSS_NMI``: ``1 - NMI`` with the arithmetic normalisation;
* ``LOSS_RAND``: ``1 - Rand index``;
* ``LOSS_FBETA``: ``1 - F_beta`` of pair precision and recall.

Entropies use a table ``xlogx[k] = k log k`` for k = 0..n, so that a loss
costs a few look-ups.
"""

from cython.parallel cimport prange
from libc.math cimport fmax, fmin, log

import numpy as np

from mmc._core._common cimport INTERRUPT_CHECK_WORK, check_interrupts

LOSS_ERROR = 0
LOSS_NMI = 1
LOSS_RAND = 2
LOSS_FBETA = 3


cdef inline double _pairs(double k) noexcept nogil:
    return 0.5 * k * (k - 1.0)


cdef inline double _table_loss(
        double a, double b, double c, double d,
        int loss, double beta2, const double *xlogx,
) noexcept nogil:
    """Loss of the table (a, b, c, d); see the module docstring."""
    cdef:
        double n = a + b + c + d
        double n_pos = a + c, n_neg = b + d, row_pos = a + b, row_neg = c + d
        double h_true, h_pred, mi, both, true_pairs, pred_pairs, all_pairs
        double precision, recall, denominator
        long ia, ib, ic, id_, inn

    if loss == 0:
        return 2.0 * (b + c) / n
    if loss == 1:
        ia = <long> a
        ib = <long> b
        ic = <long> c
        id_ = <long> d
        inn = <long> n
        h_true = log(n) - (xlogx[<long> n_pos] + xlogx[<long> n_neg]) / n
        h_pred = log(n) - (xlogx[<long> row_pos] + xlogx[<long> row_neg]) / n
        # Both entropies vanish (up to rounding) only when both labellings
        # have one group: NMI is 1 then, as in mmc.metrics.
        if h_true <= 1e-12 and h_pred <= 1e-12:
            return 0.0
        mi = (xlogx[ia] + xlogx[ib] + xlogx[ic] + xlogx[id_] + xlogx[inn]
              - xlogx[<long> n_pos] - xlogx[<long> n_neg]
              - xlogx[<long> row_pos] - xlogx[<long> row_neg]) / n
        if mi <= 0.0:
            return 1.0
        mi = mi / (0.5 * (h_true + h_pred))
        return 1.0 - (mi if mi < 1.0 else 1.0)
    both = _pairs(a) + _pairs(b) + _pairs(c) + _pairs(d)
    true_pairs = _pairs(n_pos) + _pairs(n_neg)
    pred_pairs = _pairs(row_pos) + _pairs(row_neg)
    if loss == 2:
        all_pairs = _pairs(n)
        if all_pairs == 0.0:
            return 0.0
        return 1.0 - (all_pairs - true_pairs - pred_pairs + 2.0 * both) / all_pairs
    precision = both / pred_pairs if pred_pairs > 0.0 else 1.0
    recall = both / true_pairs if true_pairs > 0.0 else 1.0
    denominator = beta2 * precision + recall
    if denominator == 0.0:
        return 1.0
    return 1.0 - (1.0 + beta2) * precision * recall / denominator


def xlogx_table(Py_ssize_t n_samples):
    """``k log k`` for k = 0..n_samples (0 for k = 0), as float64."""
    k = np.arange(n_samples + 1, dtype=np.float64)
    table = np.zeros(n_samples + 1)
    table[1:] = k[1:] * np.log(k[1:])
    return table


def table_loss(long a, long b, long c, long d, int loss, double beta=1.0):
    """Loss of one contingency table (for tests and diagnostics).

    Parameters
    ----------
    a, b, c, d : int
        The table, rows y' and columns s (see the module docstring).

    loss : int
        One of LOSS_ERROR, LOSS_NMI, LOSS_RAND, LOSS_FBETA.

    beta : float, default=1.0
        Weight of recall in F_beta.

    Returns
    -------
    loss : float
    """
    table = xlogx_table(a + b + c + d)
    cdef const double[::1] xlogx = table
    return _table_loss(a, b, c, d, loss, beta * beta, &xlogx[0])


def table_losses(
        const long[:, ::1] tables,   # IN, (n_tables, 4) rows (a, b, c, d)
        int loss,                    # IN
        double beta,                 # IN
        const double[::1] xlogx,     # IN, (n + 1,)
        double[::1] out,             # OUT, (n_tables,)
):
    """Loss of each of several tables over the same n samples.

    Parameters
    ----------
    tables : ndarray of shape (n_tables, 4), dtype=int64
        Tables (a, b, c, d), each summing to n.

    loss : int
        One of LOSS_ERROR, LOSS_NMI, LOSS_RAND, LOSS_FBETA.

    beta : float
        Weight of recall in F_beta.

    xlogx : ndarray of shape (n + 1,), dtype=float64
        From :func:`xlogx_table`.

    out : ndarray of shape (n_tables,), dtype=float64
        Receives the losses.
    """
    cdef Py_ssize_t t
    with nogil:
        for t in range(tables.shape[0]):
            out[t] = _table_loss(tables[t, 0], tables[t, 1], tables[t, 2],
                                 tables[t, 3], loss, beta * beta, &xlogx[0])


cdef inline double _concave_value(
        Py_ssize_t b, Py_ssize_t a, Py_ssize_t c, Py_ssize_t n_pos,
        Py_ssize_t n_neg, int loss, double scale, double base,
        const double *neg_prefix, const double *side_terms, const double *row_terms,
) noexcept nogil:
    """Violation of table (a, b, c, d) for the error (0) or Rand (2) loss."""
    cdef double n = n_pos + n_neg
    if loss == 0:
        return scale * (b + c - neg_prefix[b]) - base
    # 1 - Rand = (true_pairs + pred_pairs - 2 both) / all pairs
    return (_pairs(n_pos) + _pairs(n_neg) + row_terms[a + b]
            - 2.0 * (_pairs(a) + _pairs(c) + side_terms[b])) / _pairs(n) \
        - base - scale * neg_prefix[b]


# A row c of the NMI or F-beta scan: what the violation of (c, b) and the
# bounds over intervals of b need. ``side_terms[b]`` and ``row_terms[r]`` hold
# the parts of the loss that depend on b alone and on the row total r = a + b
# alone (see most_violated_table).
cdef struct _Row:
    int loss
    Py_ssize_t a, c, n_pos, n_neg, n
    double beta2, scale, base, constant, true_pairs
    const double *neg_prefix
    const double *side_terms
    const double *row_terms
    const double *normalisation


cdef inline void _row_init(
        _Row *row, Py_ssize_t c, Py_ssize_t n_pos, Py_ssize_t n_neg, int loss,
        double beta2, const double *pos_prefix, const double *neg_prefix,
        const double *xlogx, const double *side_terms, const double *row_terms,
        const double *normalisation,
) noexcept nogil:
    cdef Py_ssize_t a = n_pos - c, n = n_pos + n_neg
    row.loss = loss
    row.a = a
    row.c = c
    row.n_pos = n_pos
    row.n_neg = n_neg
    row.n = n
    row.beta2 = beta2
    row.scale = 2.0 / (<double> n)
    row.base = row.scale * pos_prefix[c]
    row.neg_prefix = neg_prefix
    row.side_terms = side_terms
    row.row_terms = row_terms
    row.normalisation = normalisation
    if loss == 1:
        row.constant = (xlogx[a] + xlogx[c] + xlogx[n]
                        - xlogx[n_pos] - xlogx[n_neg])
    else:
        row.constant = _pairs(a) + _pairs(c)
    row.true_pairs = _pairs(n_pos) + _pairs(n_neg)


cdef inline double _cell_value(const _Row *row, Py_ssize_t b) noexcept nogil:
    """Violation of (c, b) for the NMI (1) or F-beta (3) loss."""
    cdef double nmi, value
    if row.loss == 1:
        # n MI = constant + xlogx[b] + xlogx[d] - (xlogx[r] + xlogx[n - r]);
        # normalisation[r] = 1 / (n (H_true + H_pred) / 2). A negative MI
        # is clipped to NMI = 0, as in mmc.metrics.
        nmi = (row.constant + row.side_terms[b] - row.row_terms[row.a + b]) \
            * row.normalisation[row.a + b]
        nmi = fmin(fmax(nmi, 0.0), 1.0)
        return 1.0 - nmi - row.base - row.scale * row.neg_prefix[b]
    # F_beta = (1 + beta^2) P R / (beta^2 P + R) with P = both / pred_pairs,
    # R = both / true_pairs simplifies to this, which also gives the limit
    # cases of mmc.metrics when n > 3.
    value = 1.0 - (1.0 + row.beta2) * (row.constant + row.side_terms[b]) / (
        row.beta2 * row.true_pairs + row.row_terms[row.a + b])
    return value - row.base - row.scale * row.neg_prefix[b]


cdef inline Py_ssize_t _clamp(
        Py_ssize_t k, Py_ssize_t lo, Py_ssize_t hi) noexcept nogil:
    return lo if k < lo else (hi if k > hi else k)


cdef inline double _interval_bound(
        const _Row *row, Py_ssize_t lo, Py_ssize_t hi,
) noexcept nogil:
    """Upper bound on the violations of (c, b) over lo <= b <= hi.

    The loss is one minus a ratio whose numerator is a convex function of b
    (n MI for NMI: the mutual information is convex in the channel
    P(y' | s), which is linear in b; the same-cluster pairs for F-beta) and
    whose denominator depends on r = a + b only, through a function that is
    largest at r = n / 2 (entropy) or at an end of the interval (pairs). A
    convex sequence is smallest over an interval at the clamped integer
    neighbours of its real minimiser, so the smallest numerator and largest
    denominator cost a few look-ups. The penalty term grows with b (prefix
    sums of |f| >= 0), so it is smallest at lo. Each term is rounded
    monotonically, as in _cell_value, so only the loss term can be off by
    rounding, which the caller's margin covers.
    """
    cdef:
        Py_ssize_t a = row.a, n = row.n, n_neg = row.n_neg, b, b2, r, r2
        double smallest, ratio, numerator, denominator
    if row.loss == 1:
        # n MI = 0 at independence, b / n_neg = a / n_pos.
        b = (a * n_neg) // row.n_pos
        b2 = b + (1 if (a * n_neg) % row.n_pos else 0)
        b = _clamp(b, lo, hi)
        b2 = _clamp(b2, lo, hi)
        smallest = fmin(
            row.constant + row.side_terms[b] - row.row_terms[a + b],
            row.constant + row.side_terms[b2] - row.row_terms[a + b2])
        r = _clamp(n // 2, a + lo, a + hi)
        r2 = _clamp((n + 1) // 2, a + lo, a + hi)
        ratio = fmax(smallest, 0.0) \
            * fmin(row.normalisation[r], row.normalisation[r2])
        ratio = fmin(ratio, 1.0)
    else:
        b = _clamp(n_neg // 2, lo, hi)
        b2 = _clamp((n_neg + 1) // 2, lo, hi)
        numerator = row.constant + fmin(row.side_terms[b], row.side_terms[b2])
        denominator = row.beta2 * row.true_pairs \
            + fmax(row.row_terms[a + lo], row.row_terms[a + hi])
        ratio = (1.0 + row.beta2) * numerator / denominator
    return 1.0 - ratio - row.base - row.scale * row.neg_prefix[lo]


cdef enum:
    # Intervals of b at most this long are scanned rather than split.
    _LEAF = 16
    # Depth-first bisection keeps at most one pending interval per level.
    _STACK = 128


cdef inline void _search_row(
        const _Row *row, double threshold, double margin,
        double *best_value, Py_ssize_t *best_b,
) noexcept nogil:
    """First maximum over b of row c, by branch and bound (NMI and F-beta).

    Intervals of b are visited depth first, left half first, so the leaves
    that are scanned come in increasing b, as in the full scan. An interval
    is skipped when its bound plus ``margin`` is at most the larger of
    ``threshold`` (a violation attained elsewhere) and the best value of the
    row so far: every table in it is then strictly worse than a table
    already found, so it holds no maximiser. The row's result is therefore
    the full scan's whenever the row maximum is at least ``threshold``;
    otherwise it is some value below ``threshold`` (-1e300 if every interval
    was skipped).
    """
    cdef:
        Py_ssize_t lo_stack[_STACK]
        Py_ssize_t hi_stack[_STACK]
        Py_ssize_t top = 0, lo, hi, mid, b, arg = 0
        double best = -1e300, value
    lo_stack[0] = 0
    hi_stack[0] = row.n_neg
    while top >= 0:
        lo = lo_stack[top]
        hi = hi_stack[top]
        top -= 1
        if _interval_bound(row, lo, hi) + margin <= fmax(threshold, best):
            continue
        if hi - lo < _LEAF:
            for b in range(lo, hi + 1):
                value = _cell_value(row, b)
                if value > best:
                    best = value
                    arg = b
            continue
        mid = (lo + hi) // 2
        top += 1
        lo_stack[top] = mid + 1
        hi_stack[top] = hi
        top += 1
        lo_stack[top] = lo
        hi_stack[top] = mid
    best_value[0] = best
    best_b[0] = arg


cdef inline void _scan_row(
        Py_ssize_t c, Py_ssize_t n_pos, Py_ssize_t n_neg, int loss, double beta2,
        const double *pos_prefix, const double *neg_prefix, const double *xlogx,
        const double *side_terms, const double *row_terms,
        const double *normalisation, double threshold, double margin,
        bint exhaustive, double *best_value, Py_ssize_t *best_b,
) noexcept nogil:
    """Best b for one row c of the scan (first maximum).

    For NMI and F-beta the row is searched by :func:`_search_row`, or
    scanned in full if ``exhaustive`` (the reference the search must
    reproduce).
    """
    cdef:
        Py_ssize_t b, lo, hi, mid, a = n_pos - c
        double n = n_pos + n_neg
        double scale = 2.0 / n
        double base = scale * pos_prefix[c]
        double value, best = -1e300
        Py_ssize_t arg = 0
        _Row row

    if loss == 0 or (loss == 2 and n_pos + n_neg > 3):
        # The error and Rand losses are concave quadratics in b and the
        # prefix term is concave too (|f| sorted ascending), so the row is
        # unimodal: binary search for the first b after which it decreases.
        lo = 0
        hi = n_neg
        while lo < hi:
            mid = (lo + hi) // 2
            if _concave_value(mid + 1, a, c, n_pos, n_neg, loss, scale, base,
                              neg_prefix, side_terms, row_terms) \
                    > _concave_value(mid, a, c, n_pos, n_neg, loss, scale, base,
                                     neg_prefix, side_terms, row_terms):
                lo = mid + 1
            else:
                hi = mid
        best = _concave_value(lo, a, c, n_pos, n_neg, loss, scale, base,
                              neg_prefix, side_terms, row_terms)
        arg = lo
    elif (loss == 1 and n_pos > 0 and n_neg > 0) or (loss == 3 and n_pos + n_neg > 3):
        _row_init(&row, c, n_pos, n_neg, loss, beta2, pos_prefix, neg_prefix,
                  xlogx, side_terms, row_terms, normalisation)
        if not exhaustive:
            _search_row(&row, threshold, margin, best_value, best_b)
            return
        for b in range(n_neg + 1):
            value = _cell_value(&row, b)
            if value > best:
                best = value
                arg = b
    else:
        for b in range(n_neg + 1):
            value = _table_loss(a, b, c, n_neg - b, loss, beta2, xlogx) - base \
                - scale * neg_prefix[b]
            if value > best:
                best = value
                arg = b
    best_value[0] = best
    best_b[0] = arg


def most_violated_table(
        const double[::1] pos_prefix,   # IN, (n_pos + 1,)
        const double[::1] neg_prefix,   # IN, (n_neg + 1,)
        int loss,                       # IN
        double beta,                    # IN
        const double[::1] xlogx,        # IN, (n + 1,)
        int n_threads,                  # IN
        bint exhaustive=False,          # IN
):
    """Exact most violated labelling (eq. 18) over every contingency table.

    Flipping c samples of the s = +1 side and b samples of the s = -1 side
    is best done on the samples closest to the hyperplane, so the violation
    of the best labelling with table (a, b, c, d) is

        loss(a, b, c, d) - (2/n) (pos_prefix[c] + neg_prefix[b])

    where ``pos_prefix[c]`` is the sum of the c smallest |f| on the positive
    side (likewise ``neg_prefix``). For the error and Rand losses each row c
    is a concave function of b, searched by bisection, O(n log n) in all.
    For NMI and F-beta each row is searched by branch and bound over
    intervals of b (see ``_interval_bound``): a first pass over 64 evenly
    spaced rows finds a violation that is attained, and every row then skips
    the intervals whose bound is below it. The result is the full scan's,
    maximiser and ties included, in about O(n log n) on the decision values
    of actual fits (the full scan is O(n_pos n_neg); ``exhaustive=True``
    runs it).

    Parameters
    ----------
    pos_prefix : ndarray of shape (n_pos + 1,), dtype=float64
        Prefix sums of the sorted |f| of the samples with s = +1, from 0.

    neg_prefix : ndarray of shape (n_neg + 1,), dtype=float64
        Same for s = -1.

    loss : int
        One of LOSS_ERROR, LOSS_NMI, LOSS_RAND, LOSS_FBETA.

    beta : float
        Weight of recall in F_beta.

    xlogx : ndarray of shape (n + 1,), dtype=float64
        From :func:`xlogx_table`.

    n_threads : int
        Threads scanning the rows c; the result does not depend on it.

    exhaustive : bool, default=False
        Evaluate every table of the NMI and F-beta losses (the reference
        for tests and benchmarks; same result, O(n_pos n_neg)).

    Returns
    -------
    c, b : int
        Number of positive samples labelled -1 and of negative samples
        labelled +1 in the most violated labelling (the smallest c, then b,
        among ties).

    violation : float
        Its violation, ``max over y' of loss(y', s) - (1/n) sum_i (|f_i| -
        y'_i f_i)``.

    Raises
    ------
    KeyboardInterrupt, mmc._threads.RestartsStopped
        From the checks for interrupts between chunks of rows (see
        ``_common.pxd``).
    """
    cdef:
        Py_ssize_t n_pos = pos_prefix.shape[0] - 1
        Py_ssize_t n_neg = neg_prefix.shape[0] - 1
        Py_ssize_t n = n_pos + n_neg
        Py_ssize_t c, k, best_c = 0, previous = -1, first, last, rows_per_chunk
        double best, threshold = -1e300, margin

    # Parts of the loss that depend on b alone (side) and on the row total
    # r = a + b alone (row): entropies for NMI, pair counts for Rand / F.
    b_range = np.arange(n_neg + 1, dtype=np.float64)
    r_range = np.arange(n + 1, dtype=np.float64)
    normalisation = np.zeros(n + 1)
    if loss == LOSS_NMI:
        xl = np.asarray(xlogx)
        side = xl[: n_neg + 1] + xl[n_neg::-1]
        row = xl + xl[::-1]
        if n_pos > 0 and n_neg > 0:
            h_true = np.log(n) - (xl[n_pos] + xl[n_neg]) / n
            h_pred = np.log(n) - row / n
            normalisation = 1.0 / (0.5 * n * (h_true + h_pred))
    else:
        side = 0.5 * b_range * (b_range - 1) + 0.5 * b_range[::-1] * (b_range[::-1] - 1)
        row = 0.5 * r_range * (r_range - 1) + 0.5 * r_range[::-1] * (r_range[::-1] - 1)
    # The bounds are exact in real arithmetic; the loss terms they compare
    # with are sums of up to 8 look-ups of at most xlogx[n] (or pair counts,
    # exact below 2**26 samples) times a normalisation below 2, each rounded
    # to a few ulp, and the normalisation is off by at most a few n ulp
    # relatively (its entropies cancel to ~1/n when a side has one sample).
    # 1024 ulp of (n + xlogx[n] + 1) exceeds both by an order of magnitude
    # and is still ~1e-6 at n = 1e6: it costs nothing in pruning.
    margin = 1024 * np.finfo(np.float64).eps * (n + 1 + xlogx[n])
    cdef:
        const double[::1] side_terms = np.ascontiguousarray(side)
        const double[::1] row_terms = np.ascontiguousarray(row)
        const double[::1] row_normalisation = normalisation
        double[::1] row_value = np.empty(n_pos + 1)
        Py_ssize_t[::1] row_b = np.empty(n_pos + 1, dtype=np.intp)
        bint search = not exhaustive and (loss == LOSS_NMI or loss == LOSS_FBETA)

    if search:
        # A violation that is attained: the best of 64 evenly spaced rows,
        # each searched against the best so far. Near the maximum the
        # violation varies slowly with c, so this is close to the maximum
        # and lets the rows below skip almost every interval.
        with nogil:
            for k in range(64):
                c = (k * n_pos) // 63
                if c == previous:
                    continue
                previous = c
                _scan_row(c, n_pos, n_neg, loss, beta * beta, &pos_prefix[0],
                          &neg_prefix[0], &xlogx[0], &side_terms[0], &row_terms[0],
                          &row_normalisation[0], threshold, margin, False,
                          &row_value[c], &row_b[c])
                threshold = fmax(threshold, row_value[c])

    # Each row keeps its first maximum and the rows are reduced in order
    # afterwards, so ties are broken the same way whatever n_threads is, and
    # however the rows are cut into chunks: between chunks, a check for
    # interrupts (a full NMI scan at n=100,000 runs for seconds). A row costs
    # at most about n_neg operations, or a bisection's few dozen. A row
    # searched against the threshold returns its first maximum whenever that
    # reaches the threshold, which the overall maximum does.
    rows_per_chunk = INTERRUPT_CHECK_WORK // (
        64 if loss == LOSS_ERROR or loss == LOSS_RAND else n_neg + 1)
    rows_per_chunk = max(rows_per_chunk, n_threads, 1)
    first = 0
    while first <= n_pos:
        last = min(first + rows_per_chunk, n_pos + 1)
        for c in prange(first, last, nogil=True, schedule="static",
                        num_threads=n_threads):
            _scan_row(c, n_pos, n_neg, loss, beta * beta, &pos_prefix[0],
                      &neg_prefix[0], &xlogx[0], &side_terms[0], &row_terms[0],
                      &row_normalisation[0], threshold, margin, not search,
                      &row_value[c], &row_b[c])
        check_interrupts()
        first = last
    best = row_value[0]
    for c in range(1, n_pos + 1):
        if row_value[c] > best:
            best = row_value[c]
            best_c = c
    return best_c, row_b[best_c], best
