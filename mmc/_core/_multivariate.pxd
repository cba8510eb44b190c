"""The loss of a contingency table, inline: shared by the losses of
mmc._core._multivariate and the search of mmc._core._table_search (see the
module docstring of mmc._core._multivariate for the notation)."""

from libc.math cimport log


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
