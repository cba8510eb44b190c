"""Row kernels shared by several estimators, and the conventions of all kernels.

Here are the passes over X that more than one algorithm makes (column sums,
squared row norms, signed and weighted row sums, the mean hinge loss) and
the small problems they share (the best labelling under a class balance,
the minimum of a maximum of lines). ``_common.pxd`` declares how every
kernel reads the rows of X, dense or CSR (so that each kernel is written
once for both), and the random numbers of the kernels.

The kernels follow scikit-learn's k-means kernels: ``def`` entry points
take typed memoryviews (``const`` for inputs, preallocated buffers for
outputs), accumulate in double precision whatever the input dtype, release
the GIL, never validate their arguments and never raise, except between the
chunks of their long loops, where :func:`check_interrupts` raises for
Ctrl-C or a stopped restart. Validation happens in Python.
"""

from cpython.exc cimport PyErr_CheckSignals
from cython cimport floating
from libc.math cimport fabs
from libc.stdlib cimport free, malloc, qsort

from mmc._threads import raise_if_stopped


cdef int check_interrupts() except -1 nogil:
    """Raise for a pending signal or a stopped restart (see _common.pxd).

    Signals are handled in the main thread only (PyErr_CheckSignals is a
    no-op elsewhere): a restart on another thread learns of Ctrl-C from
    its stop flag, which its runner sets.
    """
    with gil:
        PyErr_CheckSignals()
        raise_if_stopped()
    return 0


def column_sums(
        const floating[::1] X_data,  # IN
        const int[::1] X_indices,    # IN
        const int[::1] X_indptr,     # IN
        Py_ssize_t n_features,       # IN
        double[::1] out,             # INOUT
):
    """Add the column sums of X to ``out``.

    Parameters
    ----------
    X_data, X_indices, X_indptr, n_features
        The rows of X, of shape (n_samples, n_features): its CSR arrays, or
        its values flattened with empty indices (see ``_common.pxd``).

    out : ndarray of shape (n_features,), dtype=float64
        Buffer to which ``X.sum(axis=0)`` is added in place. Zero it first to
        get the column sums themselves.
    """
    cdef:
        const floating *data = _values(X_data)
        const int *indices = _indices(X_indices)
        const int *indptr = _indices(X_indptr)
        Py_ssize_t n_samples = _n_rows(X_data.shape[0], X_indptr.shape[0], n_features)
        Py_ssize_t i, start, end

    with nogil:
        for i in range(n_samples):
            _row_span(indptr, n_features, i, &start, &end)
            _row_axpy(1.0, data, indices, start, end, &out[0])


def weighted_row_sums(
        const floating[::1] X_data,       # IN
        const int[::1] X_indices,         # IN
        const int[::1] X_indptr,          # IN
        Py_ssize_t n_features,            # IN
        const int[::1] selected,          # IN, (n_selected,)
        const double[:, ::1] weights,     # IN, (n_selected, n_sums)
        double[:, ::1] out,               # INOUT, (n_sums, n_features)
):
    """Add ``weights.T @ X[selected]`` to ``out``, accumulated in float64.

    Row ``selected[r]`` of X is added to ``out[p]`` with the weight
    ``weights[r, p]``, r in increasing order and zero weights skipped: each
    sum accumulates its terms in the order (and with the double rounding)
    of SciPy's product of the CSR matrix of ``weights.T`` with X, without
    the float64 copy of X or of its selected rows that the product makes.

    Parameters
    ----------
    X_data, X_indices, X_indptr, n_features
        The rows of X, of shape (n_samples, n_features): its CSR arrays, or
        its values flattened with empty indices (see ``_common.pxd``).

    selected : ndarray of shape (n_selected,), dtype=int32
        Rows of X, each in ``0 .. n_samples - 1``.

    weights : ndarray of shape (n_selected, n_sums), dtype=float64
        Weight of each selected row in each sum.

    out : ndarray of shape (n_sums, n_features), dtype=float64
        Buffer to which the weighted sums are added in place.
    """
    cdef:
        const floating *data = _values(X_data)
        const int *indices = _indices(X_indices)
        const int *indptr = _indices(X_indptr)
        Py_ssize_t n_sums = weights.shape[1]
        Py_ssize_t r, p, start, end
        double weight

    if n_features == 0:
        return
    with nogil:
        for r in range(selected.shape[0]):
            _row_span(indptr, n_features, selected[r], &start, &end)
            for p in range(n_sums):
                weight = weights[r, p]
                if weight != 0.0:
                    _row_axpy(weight, data, indices, start, end, &out[p, 0])


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
        Py_ssize_t k, _, n_lines = offsets.shape[0]
        double lo = lower, hi = upper, mid, slope, best_b, best_value, tol
        double left = lower, right = upper, bound

    if n_lines == 0:
        return 0.5 * (lower + upper), 0.0

    with nogil:
        for _ in range(200):
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


ctypedef struct _Keyed:
    double key
    double tie
    Py_ssize_t index


cdef int _compare_keyed(const void *a, const void *b) noexcept nogil:
    """Order by key, then by tie, then by index (a total, reproducible order)."""
    cdef const _Keyed *x = <const _Keyed *> a
    cdef const _Keyed *y = <const _Keyed *> b
    if x.key < y.key:
        return -1
    if x.key > y.key:
        return 1
    if x.tie < y.tie:
        return -1
    if x.tie > y.tie:
        return 1
    return (x.index > y.index) - (x.index < y.index)


def balanced_signs(
        const double[::1] keys,      # IN
        const double[::1] ties,      # IN
        Py_ssize_t bound,            # IN
        signed char[::1] out,        # OUT
):
    """Labelling that maximises ``sum_i y_i keys_i`` under ``|sum_i y_i| <= bound``.

    Without the constraint the answer is ``y_i = sign(keys_i)``. When that
    labelling has too many +1 (or -1), the balance is repaired by moving the
    threshold: the ``(n + bound) // 2`` samples with the largest keys get +1
    (the smallest keys get -1), which changes the objective the least. Samples
    with a zero key, which the objective leaves free, follow the sign of
    ``ties`` (and are the first to move when the balance needs repair, in the
    order of ``ties``).

    Parameters
    ----------
    keys : ndarray of shape (n_samples,), dtype=float64
        Gain of labelling each sample +1 rather than -1 (halved).

    ties : ndarray of shape (n_samples,), dtype=float64
        Secondary key, for samples with equal keys.

    bound : int
        Largest allowed ``|sum_i y_i|``; at least ``n_samples % 2``.

    out : ndarray of shape (n_samples,), dtype=int8
        Receives the labelling.

    Returns
    -------
    n_moved : int
        Number of samples whose label the balance repair changed.
    """
    cdef:
        Py_ssize_t n_samples = keys.shape[0]
        Py_ssize_t i, n_positive = 0, n_moved = 0, limit
        _Keyed *order

    if n_samples == 0:
        return 0
    with nogil:
        for i in range(n_samples):
            if keys[i] > 0 or (keys[i] == 0 and ties[i] > 0):
                out[i] = 1
                n_positive += 1
            else:
                out[i] = -1
    limit = (n_samples + bound) // 2
    if n_positive <= limit and n_samples - n_positive <= limit:
        return 0
    with nogil:
        order = <_Keyed *> malloc(n_samples * sizeof(_Keyed))
        for i in range(n_samples):
            order[i].key = keys[i]
            order[i].tie = ties[i]
            order[i].index = i
        qsort(order, n_samples, sizeof(_Keyed), _compare_keyed)
        if n_positive > limit:
            # Only the `limit` largest keep +1.
            for i in range(n_samples - limit):
                if out[order[i].index] == 1:
                    out[order[i].index] = -1
                    n_moved += 1
        else:
            for i in range(limit, n_samples):
                if out[order[i].index] == -1:
                    out[order[i].index] = 1
                    n_moved += 1
        free(order)
    return n_moved


def row_sq_norms(
        const floating[::1] X_data,  # IN
        const int[::1] X_indices,    # IN
        const int[::1] X_indptr,     # IN
        Py_ssize_t n_features,       # IN
        double[::1] out,             # OUT (n_samples,)
):
    """``out_i = |x_i|^2``, accumulated in float64.

    Parameters
    ----------
    X_data, X_indices, X_indptr, n_features
        The rows of X, of shape (n_samples, n_features) (see
        ``_common.pxd``).

    out : ndarray of shape (n_samples,), dtype=float64
        Receives the squared norms of the rows.
    """
    cdef:
        const floating *data = _values(X_data)
        const int *indptr = _indices(X_indptr)
        Py_ssize_t n_samples = _n_rows(X_data.shape[0], X_indptr.shape[0], n_features)
        Py_ssize_t i, start, end

    with nogil:
        for i in range(n_samples):
            _row_span(indptr, n_features, i, &start, &end)
            out[i] = _row_sq_norm(data, start, end)


def signed_row_sum(
        const floating[::1] X_data,      # IN
        const int[::1] X_indices,        # IN
        const int[::1] X_indptr,         # IN
        Py_ssize_t n_features,           # IN
        const signed char[::1] labels,   # IN, -1 / 0 / +1
        double[::1] out,                 # OUT
):
    """``out = (1/n) sum_i labels[i] x_i`` (labels in {-1, 0, 1}).

    Parameters
    ----------
    X_data, X_indices, X_indptr, n_features
        The rows of X, of shape (n_samples, n_features) (see
        ``_common.pxd``).

    labels : ndarray of shape (n_samples,), dtype=int8
        Weight of each sample: -1, 0 or +1.

    out : ndarray of shape (n_features,), dtype=float64
        Receives the signed mean of the rows.
    """
    cdef:
        const floating *data = _values(X_data)
        const int *indices = _indices(X_indices)
        const int *indptr = _indices(X_indptr)
        Py_ssize_t n_samples = _n_rows(X_data.shape[0], X_indptr.shape[0], n_features)
        Py_ssize_t i, j, start, end

    out[:] = 0.0
    if n_samples == 0:
        return
    with nogil:
        for i in range(n_samples):
            _row_span(indptr, n_features, i, &start, &end)
            _row_axpy(labels[i], data, indices, start, end, &out[0])
        for j in range(out.shape[0]):
            out[j] /= n_samples


def mean_hinge_loss(
        const double[::1] margins,  # IN
        bint absolute=False,        # IN
):
    """Mean hinge loss ``(1/n) sum_i max(0, 1 - m_i)`` of the margins m.

    Parameters
    ----------
    margins : ndarray of shape (n_samples,), dtype=float64
        Margin of each sample: the gap between its two best class scores
        (CPM3C), or its decision value with ``absolute=True`` (the margin of
        two-cluster MMC is ``|f_i|``, whichever side the sample is on).

    absolute : bool, default=False
        Use ``|m_i|`` instead of ``m_i``.

    Returns
    -------
    loss : float
    """
    cdef:
        Py_ssize_t n_samples = margins.shape[0]
        Py_ssize_t i
        double margin, loss = 0.0

    if n_samples == 0:
        return 0.0

    with nogil:
        for i in range(n_samples):
            margin = fabs(margins[i]) if absolute else margins[i]
            if margin < 1.0:
                loss += 1.0 - margin
    return loss / n_samples
