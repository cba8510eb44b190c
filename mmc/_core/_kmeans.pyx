"""Kernels of the stable k-means (mmc._kmeans): Lloyd steps and seeding.

The kernels compute the products ``x . c`` of the samples with a few dense
vectors (the centres, or the candidates of the k-means++ seeding) without
BLAS: each product is one accumulator that adds ``x_j c_j`` in the order of
the features, dense rows by blocks of four rows and four vectors held in
registers (:func:`_dense_block`), CSR rows by :func:`_row_scores`, wide CSC
matrices column by column (:func:`assign_columns`). All give the same sums
for a dense X and its CSR twin (adding ``0 * c`` leaves a sum unchanged),
float32 or float64, whatever the BLAS kernel or the number of threads; for
a canonical CSR X they are bit for bit SciPy's ``X @ C.T``. The extension
is built without fused multiply-add (``-ffp-contract=off``) so that the
order stated is the rounding obtained. The vectors are passed transposed,
of shape (n_features, n_vectors), so that the products of a row
accumulate from contiguous memory.

The discrete choices (nearest centre, zero distances) use the rounding
tolerances of mmc._kmeans, which bound the error of these products however
they are summed.

A run of Lloyd steps can carry Hamerly's bounds (Hamerly, "Making k-means
even faster", SDM 2010) from one :func:`assign` to the next: a sample whose
bounds prove, with the rounding tolerance, that the tie rule would give it
its label again is not compared with the centres. The labels and the sums
are those of a pass that compares every sample, to the last bit.
"""

from cython cimport floating
from libc.float cimport DBL_EPSILON
from libc.math cimport INFINITY, fmax, sqrt
from libc.stdlib cimport free, malloc

from mmc._core._common cimport (
    INTERRUPT_CHECK_WORK,
    _indices,
    _n_rows,
    _row_axpy,
    _row_scores,
    _row_span,
    _values,
    check_interrupts,
)

# The block products (_dense_block, _block_scores) and their helpers are
# declared inline in _kmeans.pxd.

# Relative growth (shrinkage) of an upper (lower) bound at each update: more
# than the rounding of the few operations that make it.
cdef double BOUND_SLACK = 8.0 * DBL_EPSILON


cdef inline double _max(const double[::1] values) noexcept nogil:
    """Largest of ``values`` and 0."""
    cdef Py_ssize_t p
    cdef double top = 0.0
    for p in range(values.shape[0]):
        if values[p] > top:
            top = values[p]
    return top


cdef inline void _label(
        double *scores, Py_ssize_t n_clusters, const double[::1] centre_norms,
        double tol, Py_ssize_t i, int[::1] labels, double[::1] nearest,
        Py_ssize_t *n_changed,
) noexcept nogil:
    """Label sample i from its products with the centres (``scores``, turned
    into ``|c|^2 - 2 x.c`` in place): the first centre within ``tol`` of the
    lowest value."""
    cdef Py_ssize_t p, best = 0
    cdef double lowest
    # Squared distance without |x|^2, the same for every centre.
    for p in range(n_clusters):
        scores[p] = centre_norms[p] - 2.0 * scores[p]
    lowest = scores[0]
    for p in range(1, n_clusters):
        if scores[p] < lowest:
            lowest = scores[p]
    # Distances within the rounding bound of the lowest are tied: the first
    # of them wins, whatever the rounding of this evaluation.
    for p in range(n_clusters):
        if scores[p] <= lowest + tol:
            best = p
            break
    if labels[i] != best:
        labels[i] = <int> best
        n_changed[0] += 1
    nearest[i] = lowest


cdef inline bint _bounds_hold(
        double *upper, double *lower, int label, const double *shifts,
        Py_ssize_t farthest, double top_shift, double next_shift, double tol,
) noexcept nogil:
    """Move the bounds of a sample by the shifts of the centres; whether
    they prove its label unchanged without computing its distances.

    ``upper`` bounds its distance to its centre, ``lower`` its distances to
    every other centre (Hamerly, 2010): a centre that moved by s changes a
    distance by at most s. Every exact squared distance differs from its
    computed value by at most ``tol / 2`` (``tol`` the sample's rounding
    bound, see :func:`_label`), so ``lower^2 - upper^2 > 2 tol`` proves that
    every other centre is computed farther than the label's by more than
    ``tol``: the label would be chosen again. The margin of ``3 tol`` covers
    the rounding of ``lower^2 - upper^2`` (below ``8 eps`` times the squared
    scale of the sample, ``tol`` being at least ``12 eps`` times it), and
    the factors ``1 +- BOUND_SLACK`` the rounding of the updates, so that
    the bounds stay bounds.
    """
    if label < 0:
        return False
    upper[0] = (upper[0] + shifts[label]) * (1.0 + BOUND_SLACK)
    lower[0] = (lower[0] - (next_shift if label == farthest else top_shift)) * (
        1.0 - BOUND_SLACK
    )
    return lower[0] > 0.0 and lower[0] * lower[0] - upper[0] * upper[0] > 3.0 * tol


cdef inline void _reset_bounds(
        const double *values, Py_ssize_t n_clusters, int label, double norm,
        double tol, double *upper, double *lower,
) noexcept nogil:
    """Bounds of a sample from its computed ``|c|^2 - 2 x.c`` (``values``):
    each exact squared distance is within ``tol / 2`` of ``norm + value``
    (the computed ``|x|^2`` within ``tol / 4`` of its own), and the margin
    of ``2 tol`` also covers the rounding of these sums."""
    cdef Py_ssize_t p
    cdef double second = INFINITY
    for p in range(n_clusters):
        if p != label and values[p] < second:
            second = values[p]
    upper[0] = sqrt(fmax(norm + values[label] + 2.0 * tol, 0.0)) * (1.0 + BOUND_SLACK)
    lower[0] = sqrt(fmax(norm + second - 2.0 * tol, 0.0)) * (1.0 - BOUND_SLACK)


cdef int _assign(
        const floating *data,
        const int *indices,
        const int *indptr,
        Py_ssize_t n_samples,
        Py_ssize_t n_features,
        const double[::1] norms,
        const double[:, ::1] centres_T,
        const double[::1] centre_norms,
        double rel,
        int[::1] labels,
        double[::1] nearest,
        double[:, ::1] sums,
        double *upper,
        double *lower,
        const double *shifts,
        double *scores,
        Py_ssize_t *n_changed,
) except -1 nogil:
    """The loop of :func:`assign` (see there), with ``scores`` of length
    BLOCK * k; ``upper`` is NULL without bounds, ``shifts`` NULL for a pass
    that computes every sample (and sets the bounds)."""
    cdef:
        Py_ssize_t n_clusters = centre_norms.shape[0]
        bint accumulate = sums.shape[0] > 0
        Py_ssize_t i, i0, r, p, n_rows, n_open, start, end, best, work = 0
        Py_ssize_t farthest = 0
        double top_shift = 0.0, next_shift = 0.0
        double tol_scale = _max(centre_norms)
        double tol
        bint open_rows[BLOCK]
        const double *C_T = _matrix(centres_T)
        double *S = _matrix(sums) if accumulate else NULL
    if shifts != NULL:
        # The two largest shifts: a sample's other centres moved by at most
        # the largest, or the next one when its own centre moved most.
        for p in range(n_clusters):
            if shifts[p] > top_shift:
                next_shift = top_shift
                top_shift = shifts[p]
                farthest = p
            elif shifts[p] > next_shift:
                next_shift = shifts[p]
    i0 = 0
    while i0 < n_samples:
        n_rows = min(<Py_ssize_t> BLOCK, n_samples - i0)
        n_open = n_rows
        if shifts != NULL:
            n_open = 0
            for r in range(n_rows):
                i = i0 + r
                open_rows[r] = not _bounds_hold(
                    upper + i, lower + i, labels[i], shifts, farthest, top_shift,
                    next_shift, rel * (norms[i] + tol_scale),
                )
                n_open += open_rows[r]
        if n_open == n_rows or (n_open > 1 and indices == NULL):
            # The whole block (four dense rows cost little more than one).
            _block_scores(
                data, indices, indptr, n_samples, n_features, i0, C_T, n_clusters,
                scores,
            )
            for r in range(n_rows):
                open_rows[r] = True
        elif n_open > 0:
            for r in range(n_rows):
                if open_rows[r]:
                    for p in range(n_clusters):
                        scores[r * n_clusters + p] = 0.0
                    _row_span(indptr, n_features, i0 + r, &start, &end)
                    _row_scores(
                        data, indices, start, end, C_T, n_clusters,
                        scores + r * n_clusters,
                    )
        for r in range(n_rows):
            i = i0 + r
            if n_open > 0 and open_rows[r]:
                tol = rel * (norms[i] + tol_scale)
                _label(
                    scores + r * n_clusters, n_clusters, centre_norms, tol, i,
                    labels, nearest, n_changed,
                )
                if upper != NULL:
                    _reset_bounds(
                        scores + r * n_clusters, n_clusters, labels[i], norms[i],
                        tol, upper + i, lower + i,
                    )
            best = labels[i]
            if accumulate:
                # Row by row, in sample order: each sum is accumulated in the
                # order of the samples, as the one-hot sparse product did.
                _row_span(indptr, n_features, i, &start, &end)
                _row_axpy(1.0, data, indices, start, end, S + best * n_features)
        work += (
            (_stored(indptr, n_features, i0, n_rows) + 2 * n_rows) * n_clusters
            if n_open > 0 else 4 * n_rows
        )
        i0 += n_rows
        if work >= INTERRUPT_CHECK_WORK:
            work = 0
            check_interrupts()
    return 0


def assign(
        const floating[::1] X_data,           # IN
        const int[::1] X_indices,             # IN
        const int[::1] X_indptr,              # IN
        Py_ssize_t n_features,                # IN
        const double[::1] norms,              # IN, (n_samples,)
        const double[:, ::1] centres_T,       # IN, (n_features, n_clusters)
        const double[::1] centre_norms,       # IN, (n_clusters,)
        double rel,                           # IN
        int[::1] labels,                      # INOUT, (n_samples,)
        double[::1] nearest,                  # OUT, (n_samples,)
        double[:, ::1] sums,                  # INOUT, (n_clusters, n_features)
        double[::1] upper,                    # INOUT, (n_samples,) or (0,)
        double[::1] lower,                    # INOUT, (n_samples,) or (0,)
        const double[::1] shifts,             # IN, (n_clusters,) or (0,)
):
    """Nearest centre of every sample, ties within rounding to the first.

    The squared distance of sample x to centre c, less ``|x|^2``, is
    ``|c|^2 - 2 x.c``; the label of x is the first centre whose value is
    within ``rel * (|x|^2 + max_c |c|^2)`` of the lowest (see
    :func:`mmc._kmeans.stable_kmeans`).

    Parameters
    ----------
    X_data, X_indices, X_indptr, n_features
        The rows of X, of shape (n_samples, n_features): its CSR arrays, or
        its values flattened with empty indices (see ``_common.pxd``).

    norms : ndarray of shape (n_samples,), dtype=float64
        Squared row norms of X.

    centres_T : ndarray of shape (n_features, n_clusters), dtype=float64
        Transposed centres (n_clusters >= 1).

    centre_norms : ndarray of shape (n_clusters,), dtype=float64
        Squared norms of the centres.

    rel : float
        Relative rounding bound of the squared distances.

    labels : ndarray of shape (n_samples,), dtype=int32
        Previous labels (any value outside ``0 .. n_clusters - 1`` for
        none); overwritten with the new ones.

    nearest : ndarray of shape (n_samples,), dtype=float64
        Receives ``|c|^2 - 2 x.c`` for the lowest such value.

    sums : ndarray of shape (n_clusters, n_features) or (0, 0), dtype=float64
        Buffer to which every sample is added in the row of its new label,
        in the order of the samples (zero it first to get the sums of the
        clusters); of shape (0, 0) to skip the sums.

    upper, lower : ndarrays of shape (n_samples,) or (0,), dtype=float64
        Bounds on each sample's distance to the centre of its label and to
        every other centre, for a run of Lloyd steps (Hamerly's bounds):
        set by a pass without ``shifts``, moved by the ``shifts`` and reset
        where recomputed by the next ones. A sample they prove to keep its
        label is not compared with the centres (its ``nearest`` is left as
        it was) but still added to ``sums``: the labels and sums are those
        of a pass without bounds, to the last bit. Of shape (0,) for none.

    shifts : ndarray of shape (n_clusters,) or (0,), dtype=float64
        Upper bounds on the distance each centre moved since the pass that
        left ``upper`` and ``lower`` (``labels`` being that pass's labels);
        of shape (0,) to compare every sample and set the bounds.

    Returns
    -------
    n_changed : int
        Number of samples whose label changed.
    """
    cdef:
        const floating *data = _values(X_data)
        const int *indices = _indices(X_indices)
        const int *indptr = _indices(X_indptr)
        Py_ssize_t n_samples = _n_rows(X_data.shape[0], X_indptr.shape[0], n_features)
        Py_ssize_t n_changed = 0
        bint bounded = upper.shape[0] > 0
        double *scores
    if n_samples == 0:
        return 0
    if bounded and (upper.shape[0] != n_samples or lower.shape[0] != n_samples):
        raise ValueError("upper and lower must hold one bound per sample")
    if shifts.shape[0] > 0 and (
            not bounded or shifts.shape[0] != centre_norms.shape[0]):
        raise ValueError("shifts need the bounds and one value per centre")
    scores = <double *> malloc(BLOCK * centre_norms.shape[0] * sizeof(double))
    if scores == NULL:
        raise MemoryError()
    try:
        with nogil:
            _assign(
                data, indices, indptr, n_samples, n_features, norms, centres_T,
                centre_norms, rel, labels, nearest, sums,
                &upper[0] if bounded else NULL,
                &lower[0] if bounded else NULL,
                &shifts[0] if shifts.shape[0] > 0 else NULL,
                scores, &n_changed,
            )
    finally:
        free(scores)
    return n_changed


cdef int _assign_columns(
        const floating *data,
        const int *indices,
        const int *indptr,
        Py_ssize_t n_samples,
        Py_ssize_t n_features,
        const double[::1] norms,
        const double[:, ::1] centres_T,
        const double[::1] centre_norms,
        double rel,
        int[::1] labels,
        double[::1] nearest,
        double[:, ::1] sums,
        double *scores,
        Py_ssize_t *n_changed,
) except -1 nogil:
    """The loops of :func:`assign_columns` (see there)."""
    cdef:
        Py_ssize_t n_clusters = centre_norms.shape[0]
        Py_ssize_t i, j, p, q, work = 0
        double value, tol_scale = _max(centre_norms)
        const double *C_T = _matrix(centres_T)
        const double *c
        double *S = _matrix(sums) if sums.shape[0] > 0 else NULL
    for i in range(n_samples * n_clusters):
        scores[i] = 0.0
    # Column by column, each sample's products gather the features in
    # increasing order, as a row of a canonical CSR X would.
    for j in range(n_features):
        c = C_T + j * n_clusters
        for q in range(indptr[j], indptr[j + 1]):
            value = data[q]
            i = indices[q]
            for p in range(n_clusters):
                scores[i * n_clusters + p] += value * c[p]
        work += (indptr[j + 1] - indptr[j] + 1) * n_clusters
        if work >= INTERRUPT_CHECK_WORK:
            work = 0
            check_interrupts()
    for i in range(n_samples):
        _label(
            scores + i * n_clusters, n_clusters, centre_norms,
            rel * (norms[i] + tol_scale), i, labels, nearest, n_changed,
        )
    if S == NULL:
        return 0
    # Each sum gathers its samples in increasing order within the column.
    for j in range(n_features):
        for q in range(indptr[j], indptr[j + 1]):
            S[labels[indices[q]] * n_features + j] += 1.0 * data[q]
    return 0


def assign_columns(
        const floating[::1] X_data,           # IN
        const int[::1] X_indices,             # IN
        const int[::1] X_indptr,              # IN
        Py_ssize_t n_samples,                 # IN
        const double[::1] norms,              # IN, (n_samples,)
        const double[:, ::1] centres_T,       # IN, (n_features, n_clusters)
        const double[::1] centre_norms,       # IN, (n_clusters,)
        double rel,                           # IN
        int[::1] labels,                      # INOUT, (n_samples,)
        double[::1] nearest,                  # OUT, (n_samples,)
        double[:, ::1] sums,                  # INOUT, (n_clusters, n_features)
        double[:, ::1] scores,                # OUT, (n_samples, n_clusters)
):
    """:func:`assign` for a sparse X given by its CSC arrays, column by column.

    The same numbers as :func:`assign` on the CSR twin of X in canonical
    form (the CSC arrays with row indices increasing in each column, as
    SciPy's conversion makes them): every product and every sum adds the
    same terms in the same order. Reading X by columns reads the centres
    once, in order, and gathers into ``scores`` instead: faster when the
    transposed centres are the larger of the two, that is when
    n_features > n_samples (wide data such as tf-idf).

    Parameters
    ----------
    X_data, X_indices, X_indptr : ndarrays
        CSC arrays of X, of shape (n_samples, n_features) (int32 indices).

    n_samples : int
        Number of rows of X.

    norms, centres_T, centre_norms, rel, labels, nearest, sums
        As for :func:`assign`.

    scores : ndarray of shape (n_samples, n_clusters), dtype=float64
        Scratch buffer (receives ``|c|^2 - 2 x.c`` for every pair).

    Returns
    -------
    n_changed : int
        Number of samples whose label changed.
    """
    cdef:
        const floating *data = _values(X_data)
        const int *indices = _indices(X_indices)
        const int *indptr = _indices(X_indptr)
        Py_ssize_t n_changed = 0
        double *S = _matrix(scores)
    if n_samples == 0 or S == NULL:
        return 0
    with nogil:
        _assign_columns(
            data, indices, indptr, n_samples, X_indptr.shape[0] - 1, norms,
            centres_T, centre_norms, rel, labels, nearest, sums, S, &n_changed,
        )
    return n_changed


cdef int _seed_distances(
        const floating *data,
        const int *indices,
        const int *indptr,
        Py_ssize_t n_samples,
        Py_ssize_t n_features,
        const double[::1] norms,
        const double[:, ::1] candidates_T,
        const double[::1] candidate_norms,
        double rel,
        const double[::1] closest,
        double[:, ::1] distances,
        double *scores,
) except -1 nogil:
    """The loop of :func:`seed_distances` (see there)."""
    cdef:
        Py_ssize_t n_candidates = candidate_norms.shape[0]
        Py_ssize_t i, i0, r, n_rows, t, work = 0
        double d
        const double *C_T = _matrix(candidates_T)
    i0 = 0
    while i0 < n_samples:
        n_rows = _block_scores(
            data, indices, indptr, n_samples, n_features, i0, C_T, n_candidates,
            scores,
        )
        for r in range(n_rows):
            i = i0 + r
            for t in range(n_candidates):
                # The order of the operations of mmc._kmeans before this kernel.
                d = candidate_norms[t] - 2.0 * scores[r * n_candidates + t] + norms[i]
                if d <= rel * (candidate_norms[t] + norms[i]):
                    d = 0.0
                distances[t, i] = d if d < closest[i] else closest[i]
        work += (_stored(indptr, n_features, i0, n_rows) + 4 * n_rows) * n_candidates
        i0 += n_rows
        if work >= INTERRUPT_CHECK_WORK:
            work = 0
            check_interrupts()
    return 0


def seed_distances(
        const floating[::1] X_data,           # IN
        const int[::1] X_indices,             # IN
        const int[::1] X_indptr,              # IN
        Py_ssize_t n_features,                # IN
        const double[::1] norms,              # IN, (n_samples,)
        const double[:, ::1] candidates_T,    # IN, (n_features, n_candidates)
        const double[::1] candidate_norms,    # IN, (n_candidates,)
        double rel,                           # IN
        const double[::1] closest,            # IN, (n_samples,)
        double[:, ::1] distances,             # OUT, (n_candidates, n_samples)
):
    """Squared distances of the samples to the seeding's candidates, capped.

    ``distances[t, i] = min(closest[i], |c_t|^2 - 2 x_i.c_t + |x_i|^2)``,
    the distance being set to 0 where it is at most ``rel * (|c_t|^2 +
    |x_i|^2)``, its rounding bound (so that duplicates of a centre are at
    distance 0 however the products round).

    Parameters
    ----------
    X_data, X_indices, X_indptr, n_features
        The rows of X, of shape (n_samples, n_features): its CSR arrays, or
        its values flattened with empty indices (see ``_common.pxd``).

    norms : ndarray of shape (n_samples,), dtype=float64
        Squared row norms of X.

    candidates_T : ndarray of shape (n_features, n_candidates), dtype=float64
        Transposed candidates (n_candidates >= 1).

    candidate_norms : ndarray of shape (n_candidates,), dtype=float64
        Their squared norms.

    rel : float
        Relative rounding bound of the squared distances.

    closest : ndarray of shape (n_samples,), dtype=float64
        Squared distance of each sample to the centres chosen so far
        (infinite before the first).

    distances : ndarray of shape (n_candidates, n_samples), dtype=float64
        Receives the capped distances.
    """
    cdef:
        const floating *data = _values(X_data)
        const int *indices = _indices(X_indices)
        const int *indptr = _indices(X_indptr)
        Py_ssize_t n_samples = _n_rows(X_data.shape[0], X_indptr.shape[0], n_features)
        double *scores
    if n_samples == 0:
        return
    scores = <double *> malloc(BLOCK * candidate_norms.shape[0] * sizeof(double))
    if scores == NULL:
        raise MemoryError()
    try:
        with nogil:
            _seed_distances(
                data, indices, indptr, n_samples, n_features, norms, candidates_T,
                candidate_norms, rel, closest, distances, scores,
            )
    finally:
        free(scores)
