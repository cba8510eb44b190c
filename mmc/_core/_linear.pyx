"""Decision values of a linear model, f = X w + b, for dense and CSR X.

Every estimator that learns a hyperplane (or one per cluster) in the input
space uses these kernels, for fitting and for ``decision_function``.
"""

from cython cimport floating


def decision_values_dense(
        const floating[:, ::1] X,  # IN
        const double[::1] coef,    # IN
        double intercept,          # IN
        double[::1] out,           # OUT
):
    """Compute ``out = X @ coef + intercept`` for a dense X.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features), dtype=floating
        Input data, C-contiguous.

    coef : ndarray of shape (n_features,), dtype=float64
        Normal vector of the hyperplane.

    intercept : float
        Offset of the hyperplane.

    out : ndarray of shape (n_samples,), dtype=float64
        Buffer for the decision values (accumulated in float64).
    """
    cdef:
        Py_ssize_t n_samples = X.shape[0]
        Py_ssize_t n_features = X.shape[1]
        Py_ssize_t n_blocked = n_features - n_features % 4
        Py_ssize_t i, j
        double acc0, acc1, acc2, acc3

    with nogil:
        for i in range(n_samples):
            # Four partial sums break the dependency chain of one running sum,
            # which would otherwise bound the loop by the latency of an add.
            acc0 = acc1 = acc2 = acc3 = 0.0
            for j in range(0, n_blocked, 4):
                acc0 += X[i, j] * coef[j]
                acc1 += X[i, j + 1] * coef[j + 1]
                acc2 += X[i, j + 2] * coef[j + 2]
                acc3 += X[i, j + 3] * coef[j + 3]
            for j in range(n_blocked, n_features):
                acc0 += X[i, j] * coef[j]
            out[i] = (acc0 + acc1) + (acc2 + acc3) + intercept


def decision_values_sparse(
        const floating[::1] X_data,  # IN
        const int[::1] X_indices,    # IN
        const int[::1] X_indptr,     # IN
        const double[::1] coef,      # IN
        double intercept,            # IN
        double[::1] out,             # OUT
):
    """Compute ``out = X @ coef + intercept`` for a CSR matrix X.

    Parameters
    ----------
    X_data, X_indices, X_indptr : ndarrays
        The ``data`` (dtype=floating), ``indices`` and ``indptr`` (dtype=int32)
        arrays of X, of shape (n_samples, n_features).

    coef : ndarray of shape (n_features,), dtype=float64
        Normal vector of the hyperplane.

    intercept : float
        Offset of the hyperplane.

    out : ndarray of shape (n_samples,), dtype=float64
        Buffer for the decision values (accumulated in float64).
    """
    cdef:
        Py_ssize_t n_samples = X_indptr.shape[0] - 1
        Py_ssize_t i
        int k
        double acc

    with nogil:
        for i in range(n_samples):
            acc = 0.0
            for k in range(X_indptr[i], X_indptr[i + 1]):
                acc += X_data[k] * coef[X_indices[k]]
            out[i] = acc + intercept
