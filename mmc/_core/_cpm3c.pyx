"""Kernels of the multiclass cutting-plane solver (CPM3C).

Notation: ``t_ip = w_p.x_i`` are the class scores, ``p_i = argmax_p t_ip``
the assignment and ``r_i`` the best other class. A constraint gives each
sample either nothing or one class r; it is stored in a uint8 matrix
``constraints`` of shape (n_samples, capacity), 0 meaning nothing and r + 1
meaning class r. Linearised at the current assignments,
constraint c reads ``xi >= A_c - <B_c, W>`` with

    B_c[p] = (1/n) sum_{i in c} ([p = p_i] - [p = r_i]) x_i,
    A_c    = (1/n) sum_{i in c} (1 - [r_i = p_i]).

When the assignment of sample i moves from class p to class q, every
constraint containing i changes by ``(1/n) (e_q - e_p) x_i'`` in B and by
``([r = p] - [r = q]) / n`` in A; the kernels apply these changes and the
matching rank-one corrections to the Frobenius Gram matrix of the B_c, at a
cost independent of n_features.

The class scores are computed from ``W_T``, the (n_features, n_clusters)
transpose of W, so that the k scores of a sample accumulate from contiguous
memory.
"""

from cython cimport floating
from libc.stdlib cimport free, malloc

from mmc._core._common cimport (
    _indices,
    _n_rows,
    _row_axpy,
    _row_dot_difference,
    _row_scores,
    _row_span,
    _row_sq_norm,
    _values,
)


cdef inline void _top_two(
        const double *scores, Py_ssize_t n_clusters, bint pinned,
        unsigned char *first, unsigned char *second, double *gap,
) noexcept nogil:
    """Best and second-best class (lowest index among ties) and their gap.

    With ``pinned`` the first class is the one given in ``first`` and the
    second is the best of the others (the gap can then be negative).
    """
    cdef:
        Py_ssize_t p
        Py_ssize_t best = 0, runner = 1
    if pinned:
        best = first[0]
        runner = 1 if best == 0 else 0
        for p in range(n_clusters):
            if p != best and scores[p] > scores[runner]:
                runner = p
        second[0] = <unsigned char> runner
        gap[0] = scores[best] - scores[runner]
        return
    if scores[1] > scores[0]:
        best, runner = 1, 0
    for p in range(2, n_clusters):
        if scores[p] > scores[best]:
            runner = best
            best = p
        elif scores[p] > scores[runner]:
            runner = p
    first[0] = <unsigned char> best
    second[0] = <unsigned char> runner
    gap[0] = scores[best] - scores[runner]


def assign(
        const floating[::1] X_data,          # IN
        const int[::1] X_indices,            # IN
        const int[::1] X_indptr,             # IN
        Py_ssize_t n_features,               # IN
        const double[:, ::1] W_T,            # IN, (n_features, n_clusters)
        const double[::1] intercepts,        # IN, (n_clusters,)
        unsigned char[::1] assignment,       # INOUT
        unsigned char[::1] runner,           # OUT
        double[::1] gap,                     # OUT
        int[::1] changed,                    # OUT
        unsigned char[::1] previous,         # OUT
        bint pinned=False,                   # IN
):
    """Assign every sample to its best class, and record the changes.

    Parameters
    ----------
    X_data, X_indices, X_indptr, n_features
        The rows of X, of shape (n_samples, n_features): its CSR arrays, or
        its values flattened with empty indices (see ``_common.pxd``).

    W_T : ndarray of shape (n_features, n_clusters), dtype=float64
        Transposed class weight vectors (n_clusters >= 2).

    intercepts : ndarray of shape (n_clusters,), dtype=float64
        Added to the scores (zero for CPM3C; used for the initial assignment).

    assignment : ndarray of shape (n_samples,), dtype=uint8
        Previous best class of each sample; overwritten with the new one.

    runner : ndarray of shape (n_samples,), dtype=uint8
        Receives the second-best class.

    gap : ndarray of shape (n_samples,), dtype=float64
        Receives the difference of the two best scores.

    changed : ndarray of shape (n_samples,), dtype=int32
        Its first ``n_changed`` entries receive, in increasing order, the
        samples whose best class changed.

    previous : ndarray of shape (n_samples,), dtype=uint8
        Its first ``n_changed`` entries receive their previous best class.

    pinned : bool, default=False
        Keep the assignment and compute the runner-up and the gap relative
        to it (no change is then recorded).

    Returns
    -------
    n_changed : int
    """
    cdef:
        const floating *data = _values(X_data)
        const int *indices = _indices(X_indices)
        const int *indptr = _indices(X_indptr)
        Py_ssize_t n_samples = _n_rows(X_data.shape[0], X_indptr.shape[0], n_features)
        Py_ssize_t n_clusters = W_T.shape[1]
        Py_ssize_t i, p, start, end
        int n_changed = 0
        unsigned char best
        double *scores = <double *> malloc(n_clusters * sizeof(double))

    if scores == NULL:
        raise MemoryError()
    try:
        with nogil:
            for i in range(n_samples):
                for p in range(n_clusters):
                    scores[p] = intercepts[p]
                _row_span(indptr, n_features, i, &start, &end)
                _row_scores(data, indices, start, end, &W_T[0, 0], n_clusters, scores)
                best = assignment[i]
                _top_two(scores, n_clusters, pinned, &best, &runner[i], &gap[i])
                if best != assignment[i]:
                    changed[n_changed] = <int> i
                    previous[n_changed] = assignment[i]
                    assignment[i] = best
                    n_changed += 1
    finally:
        free(scores)
    return n_changed


def most_violated(
        const floating[::1] X_data,              # IN
        const int[::1] X_indices,                # IN
        const int[::1] X_indptr,                 # IN
        Py_ssize_t n_features,                   # IN
        const unsigned char[::1] assignment,     # IN
        const unsigned char[::1] runner,         # IN
        const double[::1] gap,                   # IN
        unsigned char[:, ::1] constraints,       # INOUT (column `column` written)
        Py_ssize_t column,                       # IN
        double[:, ::1] B,                        # OUT, (n_clusters, n_features)
):
    """Most violated constraint (eq. 14) and its statistics, in one pass.

    Sample i joins the constraint, with its best other class r_i, when its
    two best scores are less than 1 apart.

    Parameters
    ----------
    X_data, X_indices, X_indptr, n_features
        The rows of X, of shape (n_samples, n_features) (see
        ``_common.pxd``).

    assignment, runner : ndarrays of shape (n_samples,), dtype=uint8
        Best and second-best class of each sample.

    gap : ndarray of shape (n_samples,), dtype=float64
        Difference of the two best scores.

    constraints : ndarray of shape (n_samples, capacity), dtype=uint8
        Working set; column ``column`` receives ``r_i + 1`` or 0.

    column : int
        Column to write.

    B : ndarray of shape (n_clusters, n_features), dtype=float64
        Receives B_c of the new constraint (see the module docstring).

    Returns
    -------
    violation : float
        ``(1/n) sum_{i in c} (1 - gap_i)``, also the mean multiclass hinge
        loss ``(1/n) sum_i max(0, 1 - gap_i)``.

    size : float
        ``(1/n) |c|``, the constraint's A_c.
    """
    cdef:
        const floating *data = _values(X_data)
        const int *indices = _indices(X_indices)
        const int *indptr = _indices(X_indptr)
        Py_ssize_t n_samples = _n_rows(X_data.shape[0], X_indptr.shape[0], n_features)
        Py_ssize_t i, p, r, start, end
        double violation = 0.0, size = 0.0, step

    B[:, :] = 0.0
    if n_samples == 0:
        return 0.0, 0.0
    step = 1.0 / n_samples
    with nogil:
        for i in range(n_samples):
            if gap[i] < 1.0:
                p = assignment[i]
                r = runner[i]
                constraints[i, column] = <unsigned char> (r + 1)
                violation += 1.0 - gap[i]
                size += 1.0
                _row_span(indptr, n_features, i, &start, &end)
                _row_axpy(step, data, indices, start, end, &B[p, 0])
                _row_axpy(-step, data, indices, start, end, &B[r, 0])
            else:
                constraints[i, column] = 0
    return violation * step, size * step


cdef inline void _move_sample(
        Py_ssize_t i, Py_ssize_t old, Py_ssize_t new, double step, double sq_norm,
        const unsigned char[:, ::1] constraints, Py_ssize_t n_constraints,
        double[::1] offsets, double[:, ::1] gram, const double *shift,
) noexcept nogil:
    """Corrections of A and of the Gram matrix for one reassignment.

    ``shift[c] = <Delta, B_c>`` with ``Delta = (e_new - e_old) x_i' / n``,
    computed before B changes; every constraint containing i gains Delta.
    """
    cdef Py_ssize_t c, c2, r
    for c in range(n_constraints):
        if not constraints[i, c]:
            continue
        r = constraints[i, c] - 1
        if r == old:
            offsets[c] += step
        elif r == new:
            offsets[c] -= step
        for c2 in range(n_constraints):
            gram[c, c2] += shift[c2]
            gram[c2, c] += shift[c2]
            if constraints[i, c2]:
                gram[c, c2] += 2.0 * step * step * sq_norm


def apply_changes(
        const floating[::1] X_data,                  # IN
        const int[::1] X_indices,                    # IN
        const int[::1] X_indptr,                     # IN
        Py_ssize_t n_features,                       # IN
        const int[::1] changed,                      # IN
        const unsigned char[::1] previous,           # IN
        int n_changed,                               # IN
        const unsigned char[::1] assignment,         # IN, the new classes
        const unsigned char[:, ::1] constraints,     # IN
        Py_ssize_t n_constraints,                    # IN
        double[:, :, ::1] B,                         # INOUT, (capacity, k, d)
        double[::1] offsets,                         # INOUT, (capacity,)
        double[:, ::1] gram,                         # INOUT, (capacity, capacity)
        double[::1] shift,                           # scratch, (capacity,)
):
    """Update the constraint statistics for the samples that changed class.

    Parameters
    ----------
    X_data, X_indices, X_indptr, n_features
        The rows of X, of shape (n_samples, n_features) (see
        ``_common.pxd``).

    changed, previous, n_changed
        From :func:`assign`: the samples that changed class and their
        previous class.

    assignment : ndarray of shape (n_samples,), dtype=uint8
        The new best class of each sample.

    constraints : ndarray of shape (n_samples, capacity), dtype=uint8
        Working set (see the module docstring).

    n_constraints : int
        Number of constraints in use.

    B : ndarray of shape (capacity, n_clusters, n_features), dtype=float64
        The B_c, updated in place.

    offsets : ndarray of shape (capacity,), dtype=float64
        The A_c, updated in place.

    gram : ndarray of shape (capacity, capacity), dtype=float64
        ``<B_c, B_c'>`` (Frobenius), updated in place.

    shift : ndarray of shape (capacity,), dtype=float64
        Scratch buffer.

    Returns
    -------
    n_updates : int
        Number of (sample, constraint) memberships updated.
    """
    cdef:
        const floating *data = _values(X_data)
        const int *indices = _indices(X_indices)
        const int *indptr = _indices(X_indptr)
        Py_ssize_t n_samples = _n_rows(X_data.shape[0], X_indptr.shape[0], n_features)
        Py_ssize_t t, i, c, old, new, start, end
        double step, sq_norm
        long n_updates = 0
        bint member

    if n_samples == 0:
        return 0
    step = 1.0 / n_samples
    with nogil:
        for t in range(n_changed):
            i = changed[t]
            old = previous[t]
            new = assignment[i]
            member = False
            for c in range(n_constraints):
                if constraints[i, c]:
                    member = True
                    break
            if not member:
                continue
            _row_span(indptr, n_features, i, &start, &end)
            sq_norm = _row_sq_norm(data, start, end)
            for c in range(n_constraints):
                shift[c] = step * _row_dot_difference(
                    data, indices, start, end, &B[c, new, 0], &B[c, old, 0]
                )
            _move_sample(i, old, new, step, sq_norm, constraints, n_constraints,
                         offsets, gram, &shift[0])
            for c in range(n_constraints):
                if constraints[i, c]:
                    _row_axpy(step, data, indices, start, end, &B[c, new, 0])
                    _row_axpy(-step, data, indices, start, end, &B[c, old, 0])
                    n_updates += 1
    return n_updates


def class_sums(
        const floating[::1] X_data,              # IN
        const int[::1] X_indices,                # IN
        const int[::1] X_indptr,                 # IN
        Py_ssize_t n_features,                   # IN
        const unsigned char[::1] assignment,     # IN
        const unsigned char[::1] runner,         # IN
        double[:, ::1] sums,                     # OUT, (n_clusters, n_features)
        double[:, :, ::1] runner_sums,           # OUT, (k, k, n_features)
):
    """Sums of the rows of each class, and of each (class, runner-up) pair.

    ``sums[p] = sum_{i: p_i = p} x_i`` and
    ``runner_sums[p, q] = sum_{i: p_i = p, r_i = q} x_i``, from which the
    balance vectors of CPM3C are built.

    Parameters
    ----------
    X_data, X_indices, X_indptr, n_features
        The rows of X, of shape (n_samples, n_features) (see
        ``_common.pxd``).

    assignment, runner : ndarrays of shape (n_samples,), dtype=uint8
        Best and second-best class of each sample.

    sums : ndarray of shape (n_clusters, n_features), dtype=float64
        Receives the class sums.

    runner_sums : ndarray of shape (n_clusters, n_clusters, n_features)
        Receives the sums per (class, runner-up).
    """
    cdef:
        const floating *data = _values(X_data)
        const int *indices = _indices(X_indices)
        const int *indptr = _indices(X_indptr)
        Py_ssize_t n_samples = _n_rows(X_data.shape[0], X_indptr.shape[0], n_features)
        Py_ssize_t i, p, r, start, end

    sums[:, :] = 0.0
    runner_sums[:, :, :] = 0.0
    with nogil:
        for i in range(n_samples):
            p = assignment[i]
            r = runner[i]
            _row_span(indptr, n_features, i, &start, &end)
            _row_axpy(1.0, data, indices, start, end, &sums[p, 0])
            _row_axpy(1.0, data, indices, start, end, &runner_sums[p, r, 0])


def score_matrix(
        const floating[::1] X_data,          # IN
        const int[::1] X_indices,            # IN
        const int[::1] X_indptr,             # IN
        Py_ssize_t n_features,               # IN
        const double[:, ::1] W_T,            # IN, (n_features, n_clusters)
        const double[::1] intercepts,        # IN, (n_clusters,)
        double[:, ::1] scores,               # OUT, (n_samples, n_clusters)
):
    """Every class score of every sample, ``x_i . w_p + intercepts[p]``.

    The same arithmetic as :func:`assign` (no BLAS), so that the scores and
    the assignments agree on every machine.

    Parameters
    ----------
    X_data, X_indices, X_indptr, n_features
        The rows of X, of shape (n_samples, n_features) (see
        ``_common.pxd``).

    W_T : ndarray of shape (n_features, n_clusters), dtype=float64
        Transposed class weight vectors.

    intercepts : ndarray of shape (n_clusters,), dtype=float64
        Added to the scores.

    scores : ndarray of shape (n_samples, n_clusters), dtype=float64
        Receives the scores.
    """
    cdef:
        const floating *data = _values(X_data)
        const int *indices = _indices(X_indices)
        const int *indptr = _indices(X_indptr)
        Py_ssize_t n_samples = _n_rows(X_data.shape[0], X_indptr.shape[0], n_features)
        Py_ssize_t n_clusters = W_T.shape[1]
        Py_ssize_t i, p, start, end

    with nogil:
        for i in range(n_samples):
            for p in range(n_clusters):
                scores[i, p] = intercepts[p]
            _row_span(indptr, n_features, i, &start, &end)
            _row_scores(data, indices, start, end, &W_T[0, 0], n_clusters,
                        &scores[i, 0])
