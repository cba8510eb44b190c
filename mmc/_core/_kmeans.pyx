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
"""

from cython cimport floating
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


# Rows of a dense X whose products are computed together (see _dense_block).
cdef enum:
    BLOCK = 4


cdef inline double *_matrix(const double[:, ::1] M) noexcept nogil:
    # NULL for an empty matrix (no features): never read then.
    return <double *> &M[0, 0] if M.shape[0] > 0 and M.shape[1] > 0 else NULL


cdef inline void _dense_block(
        const floating *x, Py_ssize_t n_features, const double *V_T,
        Py_ssize_t n_vectors, double *scores,
) noexcept nogil:
    """``scores[r * n_vectors + p] = x_r . v_p`` for the BLOCK dense rows
    x_r from ``x`` (row-major) and V_T of shape (n_features, n_vectors).

    Four rows times four vectors are accumulated at once in sixteen locals
    (registers), each in the order of the features as in
    :func:`_row_scores`: the same sums, which skips the zeros (adding
    ``0 * v`` to a sum leaves it unchanged), at a fraction of the loads.
    """
    cdef:
        Py_ssize_t j, p
        const floating *x0 = x
        const floating *x1 = x + n_features
        const floating *x2 = x + 2 * n_features
        const floating *x3 = x + 3 * n_features
        const double *v
        double a0, a1, a2, a3, b0, b1, b2, b3, c0, c1, c2, c3, d0, d1, d2, d3
        double y0, y1, y2, y3, w0, w1, w2, w3
    p = 0
    while p + 4 <= n_vectors:
        a0 = a1 = a2 = a3 = b0 = b1 = b2 = b3 = 0.0
        c0 = c1 = c2 = c3 = d0 = d1 = d2 = d3 = 0.0
        for j in range(n_features):
            v = V_T + j * n_vectors + p
            w0 = v[0]
            w1 = v[1]
            w2 = v[2]
            w3 = v[3]
            y0 = x0[j]
            y1 = x1[j]
            y2 = x2[j]
            y3 = x3[j]
            a0 += y0 * w0
            a1 += y0 * w1
            a2 += y0 * w2
            a3 += y0 * w3
            b0 += y1 * w0
            b1 += y1 * w1
            b2 += y1 * w2
            b3 += y1 * w3
            c0 += y2 * w0
            c1 += y2 * w1
            c2 += y2 * w2
            c3 += y2 * w3
            d0 += y3 * w0
            d1 += y3 * w1
            d2 += y3 * w2
            d3 += y3 * w3
        scores[p] = a0
        scores[p + 1] = a1
        scores[p + 2] = a2
        scores[p + 3] = a3
        scores[n_vectors + p] = b0
        scores[n_vectors + p + 1] = b1
        scores[n_vectors + p + 2] = b2
        scores[n_vectors + p + 3] = b3
        scores[2 * n_vectors + p] = c0
        scores[2 * n_vectors + p + 1] = c1
        scores[2 * n_vectors + p + 2] = c2
        scores[2 * n_vectors + p + 3] = c3
        scores[3 * n_vectors + p] = d0
        scores[3 * n_vectors + p + 1] = d1
        scores[3 * n_vectors + p + 2] = d2
        scores[3 * n_vectors + p + 3] = d3
        p += 4
    # The last vectors (fewer than four): two, then one at a time.
    if p + 2 <= n_vectors:
        a0 = a1 = b0 = b1 = c0 = c1 = d0 = d1 = 0.0
        for j in range(n_features):
            v = V_T + j * n_vectors + p
            w0 = v[0]
            w1 = v[1]
            y0 = x0[j]
            y1 = x1[j]
            y2 = x2[j]
            y3 = x3[j]
            a0 += y0 * w0
            a1 += y0 * w1
            b0 += y1 * w0
            b1 += y1 * w1
            c0 += y2 * w0
            c1 += y2 * w1
            d0 += y3 * w0
            d1 += y3 * w1
        scores[p] = a0
        scores[p + 1] = a1
        scores[n_vectors + p] = b0
        scores[n_vectors + p + 1] = b1
        scores[2 * n_vectors + p] = c0
        scores[2 * n_vectors + p + 1] = c1
        scores[3 * n_vectors + p] = d0
        scores[3 * n_vectors + p + 1] = d1
        p += 2
    while p < n_vectors:
        a0 = b0 = c0 = d0 = 0.0
        for j in range(n_features):
            w0 = V_T[j * n_vectors + p]
            a0 += x0[j] * w0
            b0 += x1[j] * w0
            c0 += x2[j] * w0
            d0 += x3[j] * w0
        scores[p] = a0
        scores[n_vectors + p] = b0
        scores[2 * n_vectors + p] = c0
        scores[3 * n_vectors + p] = d0
        p += 1


cdef inline Py_ssize_t _block_scores(
        const floating *data, const int *indices, const int *indptr,
        Py_ssize_t n_samples, Py_ssize_t n_features, Py_ssize_t i0,
        const double *V_T, Py_ssize_t n_vectors, double *scores,
) noexcept nogil:
    """``scores[r * n_vectors + p] = x_{i0 + r} . v_p`` for the rows i0 ..
    i0 + BLOCK - 1 (fewer at the end of X); returns their number."""
    cdef Py_ssize_t r, p, start, end
    cdef Py_ssize_t n_rows = min(<Py_ssize_t> BLOCK, n_samples - i0)
    if indices == NULL and n_rows == BLOCK:
        _dense_block(data + i0 * n_features, n_features, V_T, n_vectors, scores)
        return n_rows
    for r in range(n_rows):
        for p in range(n_vectors):
            scores[r * n_vectors + p] = 0.0
        _row_span(indptr, n_features, i0 + r, &start, &end)
        _row_scores(data, indices, start, end, V_T, n_vectors, scores + r * n_vectors)
    return n_rows


cdef inline Py_ssize_t _stored(
        const int *indptr, Py_ssize_t n_features, Py_ssize_t i0, Py_ssize_t n_rows,
) noexcept nogil:
    """Number of stored values of the rows i0 .. i0 + n_rows - 1 (work count)."""
    if indptr == NULL:
        return n_rows * n_features
    return indptr[i0 + n_rows] - indptr[i0]


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
        double *scores,
        Py_ssize_t *n_changed,
) except -1 nogil:
    """The loop of :func:`assign` (see there), with ``scores`` of length
    BLOCK * k."""
    cdef:
        Py_ssize_t n_clusters = centre_norms.shape[0]
        bint accumulate = sums.shape[0] > 0
        Py_ssize_t i, i0, r, n_rows, start, end, best, work = 0
        double tol_scale = _max(centre_norms)
        const double *C_T = _matrix(centres_T)
        double *S = _matrix(sums) if accumulate else NULL
    i0 = 0
    while i0 < n_samples:
        n_rows = _block_scores(
            data, indices, indptr, n_samples, n_features, i0, C_T, n_clusters,
            scores,
        )
        for r in range(n_rows):
            i = i0 + r
            _label(
                scores + r * n_clusters, n_clusters, centre_norms,
                rel * (norms[i] + tol_scale), i, labels, nearest, n_changed,
            )
            best = labels[i]
            if accumulate:
                # Row by row, in sample order: each sum is accumulated in the
                # order of the samples, as the one-hot sparse product did.
                _row_span(indptr, n_features, i, &start, &end)
                _row_axpy(1.0, data, indices, start, end, S + best * n_features)
        work += (_stored(indptr, n_features, i0, n_rows) + 2 * n_rows) * n_clusters
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
        double *scores
    if n_samples == 0:
        return 0
    scores = <double *> malloc(BLOCK * centre_norms.shape[0] * sizeof(double))
    if scores == NULL:
        raise MemoryError()
    try:
        with nogil:
            _assign(
                data, indices, indptr, n_samples, n_features, norms, centres_T,
                centre_norms, rel, labels, nearest, sums, scores, &n_changed,
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
