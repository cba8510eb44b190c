"""Declarations shared by the mmc._core kernels: the rows of X, random numbers.

Rows of X
---------
A kernel that passes over the samples takes X as four arguments,

    X_data, X_indices, X_indptr, n_features,

the arrays of a CSR matrix (int32 indices), or, for a dense C-contiguous X,
its values flattened (``X.reshape(-1)``) with empty ``X_indices`` and
``X_indptr``, row i then being the ``n_features`` values from
``i * n_features`` (``mmc._rows.rows`` makes these arguments). The helpers
below find a row's span of ``data`` and apply to it the few operations the
kernels need (dot products, squared norm, scaled addition, and their
k-class forms: the k scores of a row, k scaled additions), with a branch
for each storage inside the helper, so that every kernel is written once
for both. In the dense branch the columns are the positions in the span;
the arithmetic of each branch is that of a plain loop over the row (one
accumulator, in the order of the stored values), so a dense X and its CSR
twin give the same numbers up to the order of summation.

The helpers take pointers from ``_values`` and ``_indices`` (NULL for an
empty array, so the dense branch is taken when X_indices is empty: a CSR
matrix without stored values has only empty rows).

Interrupts
----------
A loop that may run for more than a few milliseconds calls
``check_interrupts()`` between chunks of about ``INTERRUPT_CHECK_WORK``
elementary operations (flops, loads): it takes the GIL, runs the Python
signal handlers (Ctrl-C raises KeyboardInterrupt there, in the main thread)
and raises ``mmc._threads.RestartsStopped`` in a restart told to stop (see
``mmc._threads``). The caller propagates the exception (``except -1``) after
freeing what it allocated. The check reads no state of the computation:
results do not depend on it.

Random numbers
--------------
A 32-bit xorshift generator (Marsaglia, 2003) whose state is seeded from an
integer drawn in Python from the estimator's ``random_state``, so that a
run is reproducible whatever the number of threads running restarts.
"""

from cython cimport floating
from libc.stdint cimport uint32_t, uint64_t

# Elementary operations between two checks for interrupts: a few
# milliseconds of work, against microseconds for a check.
cdef enum:
    INTERRUPT_CHECK_WORK = 4000000


cdef int check_interrupts() except -1 nogil


cdef inline Py_ssize_t _n_rows(
        Py_ssize_t n_values, Py_ssize_t n_indptr, Py_ssize_t n_features,
) noexcept nogil:
    """Number of samples of X given the lengths of X_data and X_indptr."""
    if n_indptr > 0:
        return n_indptr - 1
    if n_features > 0:
        return n_values // n_features
    return 0


cdef inline const floating *_values(const floating[::1] X_data) noexcept nogil:
    return &X_data[0] if X_data.shape[0] > 0 else NULL


cdef inline const int *_indices(const int[::1] array) noexcept nogil:
    return &array[0] if array.shape[0] > 0 else NULL


cdef inline void _row_span(
        const int *indptr, Py_ssize_t n_features, Py_ssize_t i,
        Py_ssize_t *start, Py_ssize_t *end,
) noexcept nogil:
    """Positions ``start .. end - 1`` of the values of row i in ``data``."""
    if indptr == NULL:
        start[0] = i * n_features
        end[0] = start[0] + n_features
    else:
        start[0] = indptr[i]
        end[0] = indptr[i + 1]


cdef inline double _row_dot(
        const floating *data, const int *indices, Py_ssize_t start,
        Py_ssize_t end, const double *v,
) noexcept nogil:
    """``x . v`` for the row x at ``start .. end``."""
    cdef Py_ssize_t p
    cdef double acc = 0.0
    if indices == NULL:
        for p in range(start, end):
            acc += data[p] * v[p - start]
    else:
        for p in range(start, end):
            acc += data[p] * v[indices[p]]
    return acc


cdef inline double _row_dot_difference(
        const floating *data, const int *indices, Py_ssize_t start,
        Py_ssize_t end, const double *a, const double *b,
) noexcept nogil:
    """``x . (a - b)`` for the row x at ``start .. end``."""
    cdef Py_ssize_t p
    cdef double acc = 0.0
    if indices == NULL:
        for p in range(start, end):
            acc += (a[p - start] - b[p - start]) * data[p]
    else:
        for p in range(start, end):
            acc += (a[indices[p]] - b[indices[p]]) * data[p]
    return acc


cdef inline double _row_sq_norm(
        const floating *data, Py_ssize_t start, Py_ssize_t end,
) noexcept nogil:
    """``|x|^2`` for the row x at ``start .. end``, in float64."""
    cdef Py_ssize_t p
    cdef double acc = 0.0
    for p in range(start, end):
        acc += <double> data[p] * data[p]
    return acc


cdef inline void _row_axpy(
        double alpha, const floating *data, const int *indices, Py_ssize_t start,
        Py_ssize_t end, double *out,
) noexcept nogil:
    """``out += alpha x`` for the row x at ``start .. end``."""
    cdef Py_ssize_t p
    if indices == NULL:
        for p in range(start, end):
            out[p - start] += alpha * data[p]
    else:
        for p in range(start, end):
            out[indices[p]] += alpha * data[p]


cdef inline void _row_scores(
        const floating *data, const int *indices, Py_ssize_t start, Py_ssize_t end,
        const double *W_T, Py_ssize_t n_clusters, double *scores,
) noexcept nogil:
    """Add ``x . w_p`` to ``scores[p]`` for every class p, for the row x at
    ``start .. end`` and W_T of shape (n_features, n_clusters), row-major.

    The weights of a feature are contiguous in W_T, so the k scores of a
    row accumulate from contiguous memory; zeros of a dense row are skipped.
    Dense and sparse rows have loops of their own (the test of ``indices``
    outside the loop); each score sums its products in the order of the
    row's stored values either way.
    """
    cdef Py_ssize_t p, q
    cdef double value
    cdef const double *weights
    if indices == NULL:
        for q in range(start, end):
            value = data[q]
            if value == 0.0:
                continue
            weights = W_T + (q - start) * n_clusters
            for p in range(n_clusters):
                scores[p] += value * weights[p]
    else:
        for q in range(start, end):
            value = data[q]
            weights = W_T + indices[q] * n_clusters
            for p in range(n_clusters):
                scores[p] += value * weights[p]


cdef inline void _row_outer_axpy(
        const floating *data, const int *indices, Py_ssize_t start, Py_ssize_t end,
        const double *delta, Py_ssize_t n_clusters, double *W_T,
) noexcept nogil:
    """``w_p += delta_p x`` for every class p, for the row x at ``start ..
    end`` and W_T as in :func:`_row_scores` (zeros of a dense row skipped)."""
    cdef Py_ssize_t p, q
    cdef double value
    cdef double *weights
    if indices == NULL:
        for q in range(start, end):
            value = data[q]
            if value == 0.0:
                continue
            weights = W_T + (q - start) * n_clusters
            for p in range(n_clusters):
                weights[p] += value * delta[p]
    else:
        for q in range(start, end):
            value = data[q]
            weights = W_T + indices[q] * n_clusters
            for p in range(n_clusters):
                weights[p] += value * delta[p]


cdef inline uint32_t _xorshift(uint32_t *state) noexcept nogil:
    """Next value of Marsaglia's xorshift32 generator (state never 0)."""
    state[0] ^= state[0] << 13
    state[0] ^= state[0] >> 17
    state[0] ^= state[0] << 5
    return state[0]


cdef inline Py_ssize_t _rand_below(uint32_t *state, Py_ssize_t n) noexcept nogil:
    """Uniform integer in [0, n), n < 2**32, from the high bits (no modulo bias
    worth mentioning: at most n / 2**32)."""
    return <Py_ssize_t> ((<uint64_t> _xorshift(state) * <uint64_t> n) >> 32)


cdef inline uint32_t _seed_state(uint32_t seed) noexcept nogil:
    # xorshift has the fixed point 0; any other state has period 2**32 - 1.
    return seed if seed != 0 else 2463534242u
