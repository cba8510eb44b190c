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


cdef inline void _scan_row(
        Py_ssize_t c, Py_ssize_t n_pos, Py_ssize_t n_neg, int loss, double beta2,
        const double *pos_prefix, const double *neg_prefix, const double *xlogx,
        const double *side_terms, const double *row_terms,
        const double *normalisation, double *best_value, Py_ssize_t *best_b,
) noexcept nogil:
    """Best b for one row c of the scan (first maximum).

    ``side_terms[b]`` and ``row_terms[r]`` hold the parts of the loss that
    depend on b alone and on the row total r = a + b alone (see
    :func:`most_violated_table`), so the inner loop is a few loads and flops.
    """
    cdef:
        Py_ssize_t b, lo, hi, mid, a = n_pos - c
        double n = n_pos + n_neg
        double scale = 2.0 / n
        double base = scale * pos_prefix[c]
        double value, best = -1e300, nmi, constant, both, true_pairs
        Py_ssize_t arg = 0

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
    elif loss == 1 and n_pos > 0 and n_neg > 0:
        constant = (xlogx[a] + xlogx[c] + xlogx[<Py_ssize_t> n]
                    - xlogx[n_pos] - xlogx[n_neg])
        for b in range(n_neg + 1):
            # n MI = constant + xlogx[b] + xlogx[d] - (xlogx[r] + xlogx[n - r]);
            # normalisation[r] = 1 / (n (H_true + H_pred) / 2). A negative MI
            # is clipped to NMI = 0, as in mmc.metrics.
            nmi = (constant + side_terms[b] - row_terms[a + b]) * normalisation[a + b]
            nmi = fmin(fmax(nmi, 0.0), 1.0)
            value = 1.0 - nmi - base - scale * neg_prefix[b]
            if value > best:
                best = value
                arg = b
    elif loss == 3 and n_pos + n_neg > 3:
        true_pairs = _pairs(n_pos) + _pairs(n_neg)
        constant = _pairs(a) + _pairs(c)
        for b in range(n_neg + 1):
            both = constant + side_terms[b]
            # F_beta = (1 + beta^2) P R / (beta^2 P + R) with P = both /
            # pred_pairs, R = both / true_pairs simplifies to this, which
            # also gives the limit cases of mmc.metrics when n > 3.
            value = 1.0 - (1.0 + beta2) * both / (
                beta2 * true_pairs + row_terms[a + b])
            value = value - base - scale * neg_prefix[b]
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
):
    """Exact most violated labelling (eq. 18), by scanning every table.

    Flipping c samples of the s = +1 side and b samples of the s = -1 side
    is best done on the samples closest to the hyperplane, so the violation
    of the best labelling with table (a, b, c, d) is

        loss(a, b, c, d) - (2/n) (pos_prefix[c] + neg_prefix[b])

    where ``pos_prefix[c]`` is the sum of the c smallest |f| on the positive
    side (likewise ``neg_prefix``). Every (c, b) is evaluated with O(1) work,
    except for the error and Rand losses: there each row is a concave
    function of b, searched by bisection, O(n log n) in all.

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
        Py_ssize_t c, best_c = 0, first, last, rows_per_chunk
        double best

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
    cdef:
        const double[::1] side_terms = np.ascontiguousarray(side)
        const double[::1] row_terms = np.ascontiguousarray(row)
        const double[::1] row_normalisation = normalisation
        double[::1] row_value = np.empty(n_pos + 1)
        Py_ssize_t[::1] row_b = np.empty(n_pos + 1, dtype=np.intp)

    # Each row keeps its first maximum and the rows are reduced in order
    # afterwards, so ties are broken the same way whatever n_threads is, and
    # however the rows are cut into chunks: between chunks, a check for
    # interrupts (an NMI scan at n=100,000 runs for seconds). A row costs
    # about n_neg operations, or a bisection's few dozen.
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
