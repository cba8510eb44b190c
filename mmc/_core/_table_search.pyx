"""The most violated labelling of MMC with a multivariate loss.

Over every contingency table (a, b, c, d) of a candidate labelling y'
against the current labelling s (see mmc._core._multivariate for the
notation and the losses), the labelling that relabels the c samples of
s = +1 and the b samples of s = -1 nearest the hyperplane, of largest
violation: by bisection of each row c for the error and Rand losses, by a
branch and bound over rectangles of (c, b) for NMI and F-beta.
"""

from cython.parallel cimport prange
from libc.math cimport fmax, fmin

import numpy as np

from mmc._core._common cimport INTERRUPT_CHECK_WORK, check_interrupts
from mmc._core._multivariate cimport _pairs, _table_loss

from mmc._core._multivariate import LOSS_ERROR, LOSS_FBETA, LOSS_NMI, LOSS_RAND


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


cdef inline double _lowest_nmi_numerator(
        const _Row *row, Py_ssize_t c0, Py_ssize_t c1, Py_ssize_t b0, Py_ssize_t b1,
        const double *xlogx,
) noexcept nogil:
    """Lower bound of ``n MI`` over the tables c0 <= c <= c1, b0 <= b <= b1.

    ``n MI`` is convex in (c, b) (the mutual information is convex in the
    channel P(y' | s), linear in both) and zero on the independence line
    ``b n_pos = (n_pos - c) n_neg``. If the line crosses the rectangle the
    bound is 0. Otherwise, in every row c the line's b lies outside
    [b0, b1], so the row is smallest at b0 or b1: the rectangle's smallest
    value is on those two edges, each convex in c and smallest at the
    clamped integer neighbours of the c where it meets the line.
    """
    cdef:
        Py_ssize_t n_pos = row.n_pos, n_neg = row.n_neg, b, c, c2, j, k, a
        double smallest = 1e300, value
    if (n_pos - c1) * n_neg <= b1 * n_pos and (n_pos - c0) * n_neg >= b0 * n_pos:
        return 0.0
    for k in range(2):
        b = b0 if k == 0 else b1
        # c on the line: n_pos - b n_pos / n_neg, between c and c2.
        c = n_pos - (b * n_pos + n_neg - 1) // n_neg
        c2 = n_pos - (b * n_pos) // n_neg
        for j in range(2):
            c = _clamp(c if j == 0 else c2, c0, c1)
            a = n_pos - c
            value = (xlogx[a] + xlogx[c] + xlogx[row.n] - xlogx[n_pos]
                     - xlogx[n_neg] + row.side_terms[b] - row.row_terms[a + b])
            smallest = fmin(smallest, value)
    return smallest


cdef inline double _rectangle_bound(
        const _Row *row, Py_ssize_t c0, Py_ssize_t c1, Py_ssize_t b0, Py_ssize_t b1,
        const double *pos_prefix, const double *xlogx,
) noexcept nogil:
    """Upper bound on the violations of the tables c0 <= c <= c1, b0 <= b <= b1.

    The loss is one minus a ratio whose numerator is convex (n MI for NMI,
    see :func:`_lowest_nmi_numerator`; for F-beta the same-cluster pairs,
    ``pairs(a) + pairs(c) + side_terms[b]``, convex in c and in b apart,
    smallest at c = n_pos / 2 and b = n_neg / 2) and whose denominator
    depends on r = a + b only, through a function that is largest at
    r = n / 2 (entropy) or at an end of the range of r (pairs); the lowest
    numerator and largest denominator cost a few look-ups. The penalty
    term grows with c and with b (prefix sums of |f| >= 0), so it is
    smallest at (c0, b0). Each term is rounded monotonically, as in
    _cell_value, so only the loss term can be off by rounding, which the
    caller's margin covers. ``row`` holds the parts common to every row.
    """
    cdef:
        Py_ssize_t n = row.n, n_pos = row.n_pos, n_neg = row.n_neg
        Py_ssize_t r_lo = n_pos - c1 + b0, r_hi = n_pos - c0 + b1, c, c2, b, b2
        double ratio, numerator, denominator
    if row.loss == 1:
        ratio = fmax(_lowest_nmi_numerator(row, c0, c1, b0, b1, xlogx), 0.0) * fmin(
            row.normalisation[_clamp(n // 2, r_lo, r_hi)],
            row.normalisation[_clamp((n + 1) // 2, r_lo, r_hi)])
        ratio = fmin(ratio, 1.0)
    else:
        c = _clamp(n_pos // 2, c0, c1)
        c2 = _clamp((n_pos + 1) // 2, c0, c1)
        b = _clamp(n_neg // 2, b0, b1)
        b2 = _clamp((n_neg + 1) // 2, b0, b1)
        numerator = fmin(_pairs(n_pos - c) + _pairs(c),
                         _pairs(n_pos - c2) + _pairs(c2)) \
            + fmin(row.side_terms[b], row.side_terms[b2])
        denominator = row.beta2 * row.true_pairs \
            + fmax(row.row_terms[r_lo], row.row_terms[r_hi])
        ratio = (1.0 + row.beta2) * numerator / denominator
    return 1.0 - ratio - row.scale * (pos_prefix[c0] + row.neg_prefix[b0])


cdef enum:
    # Rectangles of at most this many tables are scanned rather than split.
    _LEAF = 64
    # Depth-first bisection keeps at most one pending rectangle per level.
    _STACK = 256


cdef int _search_tables(
        Py_ssize_t n_pos, Py_ssize_t n_neg, int loss, double beta2,
        const double *pos_prefix, const double *neg_prefix, const double *xlogx,
        const double *side_terms, const double *row_terms,
        const double *normalisation, double margin,
        double *best_value, Py_ssize_t *best_c, Py_ssize_t *best_b,
) except -1 nogil:
    """First maximum of the NMI or F-beta violation over every table, by
    branch and bound over rectangles of (c, b).

    Rectangles are split in two along their longer side and visited depth
    first, the half of larger bound first. A rectangle is skipped when its
    bound (:func:`_rectangle_bound`) plus ``margin`` is at most the best
    violation found: every table in it is then strictly worse, so it holds
    no maximiser. The scanned tables keep the smallest (c, b), c first,
    among equal values: the full scan's maximiser, ties included, whatever
    the order of the visits. Rows far from the maximum are skipped by the
    rectangles that hold them, so the work grows far slower than the
    n_pos + 1 rows (measured: ``bench/studies/multivariate_search.md``).
    """
    cdef:
        Py_ssize_t c0s[_STACK]
        Py_ssize_t c1s[_STACK]
        Py_ssize_t b0s[_STACK]
        Py_ssize_t b1s[_STACK]
        Py_ssize_t top = 0, c0, c1, b0, b1, c, b, mid, work = 0
        double best = -1e300, value, first_bound, second_bound
        _Row row, cell_row
        bint by_rows
    # The parts common to every row (those of row 0, whose c-dependent
    # terms are not read by the bound).
    _row_init(&row, 0, n_pos, n_neg, loss, beta2, pos_prefix, neg_prefix,
              xlogx, side_terms, row_terms, normalisation)
    best_c[0] = 0
    best_b[0] = 0
    c0s[0] = 0
    c1s[0] = n_pos
    b0s[0] = 0
    b1s[0] = n_neg
    while top >= 0:
        c0 = c0s[top]
        c1 = c1s[top]
        b0 = b0s[top]
        b1 = b1s[top]
        top -= 1
        work += 16
        if _rectangle_bound(&row, c0, c1, b0, b1, pos_prefix, xlogx) + margin <= best:
            continue
        if (c1 - c0 + 1) * (b1 - b0 + 1) <= _LEAF:
            for c in range(c0, c1 + 1):
                _row_init(&cell_row, c, n_pos, n_neg, loss, beta2, pos_prefix,
                          neg_prefix, xlogx, side_terms, row_terms, normalisation)
                for b in range(b0, b1 + 1):
                    value = _cell_value(&cell_row, b)
                    if value > best or (value == best and (
                            c < best_c[0] or (c == best_c[0] and b < best_b[0]))):
                        best = value
                        best_c[0] = c
                        best_b[0] = b
            work += (c1 - c0 + 1) * (b1 - b0 + 1)
        else:
            by_rows = c1 - c0 >= b1 - b0
            mid = (c0 + c1) // 2 if by_rows else (b0 + b1) // 2
            # The two halves, the first (lower c or b) in slot top + 1.
            c0s[top + 1] = c0
            c1s[top + 1] = mid if by_rows else c1
            b0s[top + 1] = b0
            b1s[top + 1] = b1 if by_rows else mid
            c0s[top + 2] = mid + 1 if by_rows else c0
            c1s[top + 2] = c1
            b0s[top + 2] = b0 if by_rows else mid + 1
            b1s[top + 2] = b1
            first_bound = _rectangle_bound(
                &row, c0s[top + 1], c1s[top + 1], b0s[top + 1], b1s[top + 1],
                pos_prefix, xlogx)
            second_bound = _rectangle_bound(
                &row, c0s[top + 2], c1s[top + 2], b0s[top + 2], b1s[top + 2],
                pos_prefix, xlogx)
            if first_bound > second_bound:
                # Pop the first half first: swap the slots.
                c0s[top + 1], c0s[top + 2] = c0s[top + 2], c0s[top + 1]
                c1s[top + 1], c1s[top + 2] = c1s[top + 2], c1s[top + 1]
                b0s[top + 1], b0s[top + 2] = b0s[top + 2], b0s[top + 1]
                b1s[top + 1], b1s[top + 2] = b1s[top + 2], b1s[top + 1]
            top += 2
        if work >= INTERRUPT_CHECK_WORK:
            work = 0
            check_interrupts()
    best_value[0] = best
    return 0


cdef inline void _scan_row(
        Py_ssize_t c, Py_ssize_t n_pos, Py_ssize_t n_neg, int loss, double beta2,
        const double *pos_prefix, const double *neg_prefix, const double *xlogx,
        const double *side_terms, const double *row_terms,
        const double *normalisation, double *best_value, Py_ssize_t *best_b,
) noexcept nogil:
    """Best b for one row c of the full scan (first maximum): by bisection
    for the error and Rand losses, over every b for the others (for NMI and
    F-beta the reference that :func:`_search_tables` must reproduce)."""
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
    For NMI and F-beta the tables are searched by branch and bound over
    rectangles of (c, b) (see ``_search_tables``), which skips whole blocks
    of rows far from the maximum. The result is the full scan's, maximiser
    and ties included (the full scan is O(n_pos n_neg); ``exhaustive=True``
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
        Threads scanning the rows c (the error and Rand losses, and
        ``exhaustive``; the search of NMI and F-beta runs on one); the result
        does not depend on it.

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
        Py_ssize_t c, b, best_c = 0, first, last, rows_per_chunk
        double best, margin

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
    # The bounds are exact in real arithmetic; only the losses they compare
    # with round. NMI: n MI is a sum of up to 8 look-ups of at most xlogx[n],
    # each rounded to a few ulp, and the normalisation's entropies H_true +
    # H_pred are within a few ulp of log n (at least H_true): both errors
    # are below 20 ulp of (n + xlogx[n] + 1) times the largest normalisation
    # (about 3 / (n H_true)), some 1e-13 on even sides. F-beta: pair counts
    # (exact below 2**26 samples, else within an ulp) in a ratio at most
    # 1 + beta^2: a few ulp of it. 1024 ulp of these covers them with room;
    # a margin of absolute size (it was 1024 ulp of n + xlogx[n], 3e-6 at
    # n = 1e6) keeps every table near the maximum unpruned, a region that
    # grows faster than n.
    if loss == LOSS_NMI:
        margin = 1024 * np.finfo(np.float64).eps * (n + 1 + xlogx[n]) * float(
            normalisation.max(initial=0.0))
    else:
        margin = 1024 * np.finfo(np.float64).eps * (1.0 + beta * beta)
    cdef:
        const double[::1] side_terms = np.ascontiguousarray(side)
        const double[::1] row_terms = np.ascontiguousarray(row)
        const double[::1] row_normalisation = normalisation
        double[::1] row_value = np.empty(n_pos + 1)
        Py_ssize_t[::1] row_b = np.empty(n_pos + 1, dtype=np.intp)
        # The search needs the tables the row scan computes by _cell_value.
        bint search = not exhaustive and (
            (loss == LOSS_NMI and n_pos > 0 and n_neg > 0)
            or (loss == LOSS_FBETA and n > 3))

    if search:
        with nogil:
            _search_tables(n_pos, n_neg, loss, beta * beta, &pos_prefix[0],
                           &neg_prefix[0], &xlogx[0], &side_terms[0], &row_terms[0],
                           &row_normalisation[0], margin, &best, &best_c, &b)
        return best_c, b, best

    # Each row keeps its first maximum and the rows are reduced in order
    # afterwards, so ties are broken the same way whatever n_threads is, and
    # however the rows are cut into chunks: between chunks, a check for
    # interrupts (a full NMI scan at n=100,000 runs for seconds). A row costs
    # at most about n_neg operations, or a bisection's few dozen.
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
                      &row_normalisation[0], &row_value[c], &row_b[c])
        check_interrupts()
        first = last
    best = row_value[0]
    for c in range(1, n_pos + 1):
        if row_value[c] > best:
            best = row_value[c]
            best_c = c
    return best_c, row_b[best_c], best
