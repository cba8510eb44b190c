"""Decision values of a linear model, f = X w + b, for dense and CSR X.

Every estimator that learns a hyperplane (or one per cluster) in the input
space uses this kernel, for fitting and for ``decision_function``.
"""

from cython cimport floating

from mmc._core._common cimport _indices, _n_rows, _row_dot, _row_span, _values


def decision_values(
        const floating[::1] X_data,  # IN
        const int[::1] X_indices,    # IN
        const int[::1] X_indptr,     # IN
        Py_ssize_t n_features,       # IN
        const double[::1] coef,      # IN
        double intercept,            # IN
        double[::1] out,             # OUT
):
    """Compute ``out = X @ coef + intercept``.

    Parameters
    ----------
    X_data, X_indices, X_indptr, n_features
        The rows of X, of shape (n_samples, n_features): its CSR arrays, or
        its values flattened with empty indices (see ``_common.pxd``).

    coef : ndarray of shape (n_features,), dtype=float64
        Normal vector of the hyperplane.

    intercept : float
        Offset of the hyperplane.

    out : ndarray of shape (n_samples,), dtype=float64
        Buffer for the decision values (accumulated in float64).
    """
    cdef:
        const floating *data = _values(X_data)
        const int *indices = _indices(X_indices)
        const int *indptr = _indices(X_indptr)
        Py_ssize_t n_samples = _n_rows(X_data.shape[0], X_indptr.shape[0], n_features)
        Py_ssize_t n_blocked = n_features - n_features % 4
        Py_ssize_t i, j, start, end
        const floating *row
        double acc0, acc1, acc2, acc3

    with nogil:
        for i in range(n_samples):
            _row_span(indptr, n_features, i, &start, &end)
            if indptr != NULL:
                out[i] = _row_dot(data, indices, start, end, &coef[0]) + intercept
                continue
            # A dense row is the hot case of this kernel: four partial sums
            # break the dependency chain of one running sum, which would
            # otherwise bound the loop by the latency of an add.
            row = data + start
            acc0 = acc1 = acc2 = acc3 = 0.0
            for j in range(0, n_blocked, 4):
                acc0 += row[j] * coef[j]
                acc1 += row[j + 1] * coef[j + 1]
                acc2 += row[j + 2] * coef[j + 2]
                acc3 += row[j + 3] * coef[j + 3]
            for j in range(n_blocked, n_features):
                acc0 += row[j] * coef[j]
            out[i] = (acc0 + acc1) + (acc2 + acc3) + intercept
