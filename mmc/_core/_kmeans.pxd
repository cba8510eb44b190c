"""Products of the samples with a few dense vectors, by blocks of rows: the
arithmetic shared by the kernels of mmc._core._kmeans (see its docstring
for the order of the sums and why it matters)."""

from cython cimport floating

from mmc._core._common cimport _row_scores, _row_span


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
