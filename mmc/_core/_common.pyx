"""Helpers shared by the mmc._core kernels.

The kernels follow scikit-learn's k-means kernels: ``def`` entry points take
typed memoryviews (``const`` for inputs, preallocated buffers for outputs),
accumulate in double precision whatever the input dtype, release the GIL,
never validate their arguments and never raise. Validation happens in Python.
"""

from cython cimport floating
from libc.math cimport fabs


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



cdef double _max_affine(
        const double[::1] offsets,
        const double[::1] slopes,
        double b,
        double *right_slope,
) noexcept nogil:
    """Value of ``max_k offsets[k] - slopes[k] * b`` and its right derivative."""
    cdef:
        Py_ssize_t k, n_lines = offsets.shape[0]
        double value, best = offsets[0] - slopes[0] * b
        double tie

    for k in range(1, n_lines):
        value = offsets[k] - slopes[k] * b
        if value > best:
            best = value
    # The right derivative of a maximum of lines is the largest slope among the
    # lines that attain it; a relative tolerance absorbs rounding at kinks.
    tie = 1e-13 * (1.0 + fabs(best))
    right_slope[0] = -slopes[0] if offsets[0] - slopes[0] * b >= best - tie else -1e300
    for k in range(1, n_lines):
        if offsets[k] - slopes[k] * b >= best - tie and -slopes[k] > right_slope[0]:
            right_slope[0] = -slopes[k]
    return best


def minimize_max_affine(
        const double[::1] offsets,  # IN
        const double[::1] slopes,   # IN
        double lower,               # IN
        double upper,               # IN
):
    """Minimise ``g(b) = max(0, max_k offsets[k] - slopes[k] * b)`` on an interval.

    ``g`` is convex and piecewise linear. The minimum is located by bisection
    on the sign of the right derivative (to machine precision), and the point
    returned is the midpoint of the set of minimisers, so that a flat minimum
    (for instance ``g = 0`` on a whole interval) gives a central, reproducible
    answer.

    Parameters
    ----------
    offsets : ndarray of shape (n_lines,), dtype=float64
        Offsets of the lines.

    slopes : ndarray of shape (n_lines,), dtype=float64
        The lines are ``offsets[k] - slopes[k] * b``.

    lower, upper : float
        Bounds of the interval, ``lower <= upper``.

    Returns
    -------
    b : float
        A minimiser of ``g`` on ``[lower, upper]``.

    value : float
        ``g(b)``.
    """
    cdef:
        Py_ssize_t k, it, n_lines = offsets.shape[0]
        double lo = lower, hi = upper, mid, slope, best_b, best_value, tol
        double left = lower, right = upper, bound

    if n_lines == 0:
        return 0.5 * (lower + upper), 0.0

    with nogil:
        for it in range(200):
            if hi - lo <= 4e-16 * (fabs(lo) + fabs(hi)) or hi - lo <= 1e-300:
                break
            mid = 0.5 * (lo + hi)
            _max_affine(offsets, slopes, mid, &slope)
            if slope < 0:
                lo = mid
            else:
                hi = mid
        best_b = 0.5 * (lo + hi)
        best_value = _max_affine(offsets, slopes, best_b, &slope)
        if best_value < 0.0:
            best_value = 0.0
        # Every line must stay below the minimum value on the set of minimisers.
        tol = 1e-12 * (1.0 + fabs(best_value))
        for k in range(n_lines):
            if slopes[k] > 0:
                bound = (offsets[k] - best_value - tol) / slopes[k]
                if bound > left:
                    left = bound
            elif slopes[k] < 0:
                bound = (offsets[k] - best_value - tol) / slopes[k]
                if bound < right:
                    right = bound
        if left <= right:
            best_b = 0.5 * (left + right)
        best_value = _max_affine(offsets, slopes, best_b, &slope)
        if best_value < 0.0:
            best_value = 0.0
    return best_b, best_value
