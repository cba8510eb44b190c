"""Helpers shared by the mmc._core kernels.

The kernels follow scikit-learn's k-means kernels: ``def`` entry points take
typed memoryviews (``const`` for inputs, preallocated buffers for outputs),
accumulate in double precision whatever the input dtype, release the GIL,
never validate their arguments and never raise. Validation happens in Python.
"""

from cython cimport floating


def column_sums_dense(
        const floating[:, ::1] X,  # IN
        double[::1] out,           # INOUT
):
    """Add the column sums of a dense matrix to `out`.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features), dtype=floating
        Input data, C-contiguous.

    out : ndarray of shape (n_features,), dtype=float64
        Buffer to which ``X.sum(axis=0)`` is added in place. Zero it first to
        get the column sums themselves.
    """
    cdef:
        Py_ssize_t n_samples = X.shape[0]
        Py_ssize_t n_features = X.shape[1]
        Py_ssize_t i, j

    if n_samples == 0:
        return

    with nogil:
        for i in range(n_samples):
            for j in range(n_features):
                out[j] += X[i, j]


def column_sums_sparse(
        const floating[::1] X_data,  # IN
        const int[::1] X_indices,    # IN
        const int[::1] X_indptr,     # IN
        double[::1] out,             # INOUT
):
    """Add the column sums of a CSR matrix to `out`.

    Parameters
    ----------
    X_data : ndarray of shape (nnz,), dtype=floating
        ``data`` array of the CSR matrix X of shape (n_samples, n_features).

    X_indices : ndarray of shape (nnz,), dtype=int32
        ``indices`` array of X (column index of each stored value).

    X_indptr : ndarray of shape (n_samples + 1,), dtype=int32
        ``indptr`` array of X.

    out : ndarray of shape (n_features,), dtype=float64
        Buffer to which ``X.sum(axis=0)`` is added in place. Zero it first to
        get the column sums themselves.
    """
    cdef:
        Py_ssize_t n_samples = X_indptr.shape[0] - 1
        Py_ssize_t i
        int k

    if n_samples <= 0:
        return

    with nogil:
        for i in range(n_samples):
            for k in range(X_indptr[i], X_indptr[i + 1]):
                out[X_indices[k]] += X_data[k]
