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
        Py_ssize_t i, j
        double acc

    with nogil:
        for i in range(n_samples):
            acc = 0.0
            for j in range(n_features):
                acc += X[i, j] * coef[j]
            out[i] = acc + intercept


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
