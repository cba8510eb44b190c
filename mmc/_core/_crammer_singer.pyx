"""Dual coordinate descent for the multiclass (Crammer-Singer) SVM of CPM3C.

With the assignments ``y_i`` of the samples held fixed, each step of CPM3C
(CCCP) solves a multiclass SVM on the centred samples with a regularised
intercept per class:

    min_U  1/2 |U|^2 + c sum_i max_p (e_ip + t_ip - t_iy_i),
    t_ip = u_p . z_i,   z_i = (x_i - mean(x), s),   e_ip = [p != y_i],

(``c = C / n``; the balance constraints are handled by the caller). Its dual
has k variables per sample, ``alpha_ip <= c [p = y_i]`` with
``sum_p alpha_ip = 0``, and ``u_p = sum_i alpha_ip z_i`` (plus the balance
terms). The kernel here minimises the dual over one sample's k variables at
a time, exactly: with the scores of the other samples' variables fixed, the
problem in ``alpha_i`` is

    min  A_i/2 |alpha_i|^2 + sum_p b_p alpha_ip,  b_p = g_p - A_i alpha_ip,

where ``A_i = |z_i|^2`` and ``g_p = t_ip + e_ip`` is the gradient. Its KKT
conditions give ``alpha_ip = min(c_p, (beta - b_p) / A_i)`` for the value
``beta`` at which the alphas sum to zero, found by sorting the
``d_p = b_p + A_i c_p`` in decreasing order: ``beta`` is the mean of the
largest r of them less ``A_i c / r``, for the r where it falls between the
r-th and (r+1)-th.

The weights are kept without forming the centred samples, so that sparse
rows stay sparse: ``w_p = w'_p - a_p mean(x)`` with ``w'_p`` the weights on
the raw rows (``W_T``, transposed, one row of k per feature) and
``a_p = sum_i alpha_ip``, whence

    t_ip = w'_p . x_i - a_p (x_i . mean) - (w'_p . mean) + a_p |mean|^2 + s v_p.

Samples are visited in a random order drawn afresh each epoch from seeded
xorshift generators, so that a run gives the same result on every machine;
no BLAS is called. In memory the order is one shuffle of all the rows; on
blocks of rows (Dask) it is made of segments and rounds (:func:`dual_epochs`).
"""

from cython cimport floating
from libc.stdint cimport uint32_t
from libc.stdlib cimport free, malloc

from mmc._core._common cimport (
    INTERRUPT_CHECK_WORK,
    _indices,
    _n_rows,
    _rand_below,
    _row_outer_axpy,
    _row_scores,
    _row_span,
    _seed_state,
    _values,
    check_interrupts,
)


cdef inline void _scores(
        const floating *data, const int *indices, Py_ssize_t start, Py_ssize_t end,
        const double *W_T, Py_ssize_t k, double x_dot_mean,
        const double *offsets, const double *mean_coef, double *scores,
) noexcept nogil:
    """``t_ip`` for every class p of the row at ``start .. end``.

    ``offsets[p]`` holds ``s v_p - w'_p . mean + a_p |mean|^2``, the part of
    the score that does not depend on the row.
    """
    cdef Py_ssize_t p
    for p in range(k):
        scores[p] = offsets[p] - mean_coef[p] * x_dot_mean
    _row_scores(data, indices, start, end, W_T, k, scores)


cdef inline void _sort_decreasing(double *values, Py_ssize_t n) noexcept nogil:
    """Insertion sort, largest first (k is small)."""
    cdef Py_ssize_t a, b
    cdef double value
    for a in range(1, n):
        value = values[a]
        b = a - 1
        while b >= 0 and values[b] < value:
            values[b + 1] = values[b]
            b -= 1
        values[b + 1] = value


cdef inline double _solve_sample(
        const double *gradient, double *alpha, Py_ssize_t k, Py_ssize_t label,
        double A, double cap, double *work, double *delta,
) noexcept nogil:
    """Minimise the dual over one sample's variables; returns the KKT violation.

    ``gradient`` holds the ``g_p``, ``alpha`` the sample's variables
    (updated in place), ``delta`` receives their changes; ``work`` is
    scratch of size k.
    """
    cdef Py_ssize_t p, r
    cdef double largest = gradient[0], smallest_free, beta, total, new
    # KKT: g_p equal to beta for every alpha_p below its bound, at most
    # beta at it; the violation is max_p g_p - min_{alpha_p < c_p} g_p.
    smallest_free = 1e300
    for p in range(k):
        if gradient[p] > largest:
            largest = gradient[p]
        if (alpha[p] < 0.0 or (p == label and alpha[p] < cap)) and (
                gradient[p] < smallest_free):
            smallest_free = gradient[p]
    if smallest_free == 1e300 or largest - smallest_free <= 1e-12:
        for p in range(k):
            delta[p] = 0.0
        return 0.0 if smallest_free == 1e300 else largest - smallest_free
    for p in range(k):
        work[p] = gradient[p] - A * alpha[p]
        if p == label:
            work[p] += A * cap
    _sort_decreasing(work, k)
    total = work[0] - A * cap
    r = 1
    while r < k and total < r * work[r]:
        total += work[r]
        r += 1
    beta = total / r
    for p in range(k):
        new = (beta - (gradient[p] - A * alpha[p])) / A
        if p == label:
            if new > cap:
                new = cap
        elif new > 0.0:
            new = 0.0
        delta[p] = new - alpha[p]
        alpha[p] = new
    return largest - smallest_free


cdef inline uint32_t _segment_seed(uint32_t seed, Py_ssize_t segment) noexcept nogil:
    """The generator's seed for a segment: ``seed`` for the first, so that
    data of one segment are visited as by a single shuffle."""
    return _seed_state(<uint32_t> (seed + <uint32_t> segment * 2654435769u))


cdef inline void _epoch_offsets(
        const double *mean_coef, const double *W_dot_mean, const double *v,
        Py_ssize_t k, double intercept_scale, double mean_sq_norm,
        double *offsets,
) noexcept nogil:
    """The part of each class's score that does not depend on the row."""
    cdef Py_ssize_t p
    for p in range(k):
        offsets[p] = (intercept_scale * v[p] - W_dot_mean[p]
                      + mean_coef[p] * mean_sq_norm)


cdef void _shuffle_segments(
        Py_ssize_t n_samples, Py_ssize_t segment_rows, Py_ssize_t *order,
        uint32_t *states,
) noexcept nogil:
    """A Fisher-Yates shuffle of each segment's part of ``order``, by the
    segment's generator."""
    cdef Py_ssize_t segment, first, last, position, other, i
    for segment in range((n_samples + segment_rows - 1) // segment_rows):
        first = segment * segment_rows
        last = min(first + segment_rows, n_samples)
        for position in range(last - first - 1, 0, -1):
            other = _rand_below(&states[segment], position + 1)
            i = order[first + position]
            order[first + position] = order[first + other]
            order[first + other] = i


cdef double _round(
        const floating *data, const int *indices, const int *indptr,
        Py_ssize_t n_features, Py_ssize_t n_samples,
        const double *x_dot_mean, const double *sq_norms,
        const unsigned char *labels, double *alpha,
        double *W_T, Py_ssize_t k, double *mean_coef, double *W_dot_mean,
        double *v, double *offsets, double intercept_scale, double mean_sq_norm,
        double cap, const Py_ssize_t *order, Py_ssize_t segment_rows,
        Py_ssize_t round_, Py_ssize_t n_rounds, double *buffer,
) except -1.0 nogil:
    """Round ``round_`` of an epoch: the ``round_``-th of ``n_rounds`` equal
    parts of every segment's shuffled order, segment after segment; returns
    the largest KKT violation. ``offsets`` must hold :func:`_epoch_offsets`
    at the weights (they are carried from row to row, and from one call to
    the next); ``buffer`` is scratch of 3 k."""
    cdef:
        Py_ssize_t segment, first, size, position, i, p, start, end
        Py_ssize_t work_done = 0
        double violation = 0.0, sample_violation
        double *scores = buffer
        double *work = buffer + k
        double *delta = buffer + 2 * k
        bint changed
    for segment in range((n_samples + segment_rows - 1) // segment_rows):
        first = segment * segment_rows
        size = min(segment_rows, n_samples - first)
        for position in range(first + size * round_ // n_rounds,
                              first + size * (round_ + 1) // n_rounds):
            i = order[position]
            if sq_norms[i] <= 0.0:
                continue
            _row_span(indptr, n_features, i, &start, &end)
            _scores(data, indices, start, end, W_T, k,
                    x_dot_mean[i], offsets, mean_coef, scores)
            for p in range(k):
                if p != labels[i]:
                    scores[p] += 1.0
            sample_violation = _solve_sample(
                scores, &alpha[i * k], k, labels[i], sq_norms[i], cap,
                work, delta)
            if sample_violation > violation:
                violation = sample_violation
            changed = False
            for p in range(k):
                if delta[p] != 0.0:
                    changed = True
                    mean_coef[p] += delta[p]
                    W_dot_mean[p] += delta[p] * x_dot_mean[i]
                    v[p] += delta[p] * intercept_scale
                    offsets[p] += delta[p] * (
                        intercept_scale * intercept_scale
                        - x_dot_mean[i] + mean_sq_norm)
            if changed:
                _row_outer_axpy(data, indices, start, end, delta, k, W_T)
            work_done += 2 * k * (end - start) + 4 * k
            if work_done >= INTERRUPT_CHECK_WORK:
                check_interrupts()
                work_done = 0
    return violation


cdef int _check_rounds(Py_ssize_t segment_rows, Py_ssize_t n_rounds) except -1:
    if segment_rows < 1 or n_rounds < 1:
        raise ValueError(
            f"segment_rows and n_rounds must be at least 1, got {segment_rows} "
            f"and {n_rounds}")
    return 0


def seed_segments(
        uint32_t seed,                          # IN
        Py_ssize_t first_segment,               # IN
        uint32_t[::1] states,                   # OUT, (n_segments,)
):
    """The generators' states of consecutive segments at the start of
    :func:`dual_epochs` (one segment after ``first_segment`` per entry)."""
    cdef Py_ssize_t j
    for j in range(states.shape[0]):
        states[j] = _segment_seed(seed, first_segment + j)


def epoch_offsets(
        const double[::1] mean_coef,            # IN, (k,)
        const double[::1] W_dot_mean,           # IN, (k,)
        const double[::1] v,                    # IN, (k,)
        double intercept_scale,                 # IN
        double mean_sq_norm,                    # IN
        double[::1] offsets,                    # OUT, (k,)
):
    """The scores' offsets at the start of an epoch (see :func:`dual_round`)."""
    _epoch_offsets(&mean_coef[0], &W_dot_mean[0], &v[0], mean_coef.shape[0],
                   intercept_scale, mean_sq_norm, &offsets[0])


def dual_epochs(
        const floating[::1] X_data,             # IN
        const int[::1] X_indices,               # IN
        const int[::1] X_indptr,                # IN
        Py_ssize_t n_features,                  # IN
        const double[::1] x_dot_mean,           # IN, (n_samples,)
        const double[::1] sq_norms,             # IN, (n_samples,): A_i
        const unsigned char[::1] labels,        # IN, (n_samples,)
        double[:, ::1] alpha,                   # INOUT, (n_samples, k)
        double[:, ::1] W_T,                     # INOUT, (n_features, k)
        double[::1] mean_coef,                  # INOUT, (k,): a_p
        double[::1] W_dot_mean,                 # INOUT, (k,): w'_p . mean
        double[::1] v,                          # INOUT, (k,)
        double intercept_scale,                 # IN: s
        double mean_sq_norm,                    # IN: |mean|^2
        double cap,                             # IN: c
        uint32_t seed,                          # IN
        Py_ssize_t max_epochs,                  # IN
        double tol,                             # IN
        Py_ssize_t segment_rows,                # IN
        Py_ssize_t n_rounds,                    # IN
):
    """Epochs of dual coordinate descent until the KKT violation is below tol.

    The rows are cut into segments of ``segment_rows`` consecutive rows,
    each shuffled afresh each epoch by a seeded xorshift generator of its
    own, and an epoch visits them in ``n_rounds`` rounds: round r visits
    the r-th of ``n_rounds`` equal parts of every segment's order, segment
    after segment. So X can be cut into blocks of whole segments and each
    round run block after block, with the same result (:func:`dual_round`).

    The rounds bring the order of an epoch nearer to one shuffle of all the
    rows (``segment_rows`` = n_samples, the order in memory). Visited
    segment after segment in one round, the rows of the first
    segment always come first: the step that corrects a shift of the
    intercepts common to every row (as after samples change class) falls
    on them, and the next epochs hand it back and forth between the same
    rows instead of spreading it, so that the epochs stall far from the
    optimum (``bench/studies/cpm3c_segments.md``). With the rounds, which
    rows come first changes every epoch.

    Parameters
    ----------
    X_data, X_indices, X_indptr, n_features
        The rows of X, of shape (n_samples, n_features) (see
        ``_common.pxd``).

    x_dot_mean : ndarray of shape (n_samples,), dtype=float64
        ``x_i . mean(x)``.

    sq_norms : ndarray of shape (n_samples,), dtype=float64
        ``A_i = |x_i - mean(x)|^2 + s^2``; samples with ``A_i = 0`` are
        skipped (their scores do not depend on U).

    labels : ndarray of shape (n_samples,), dtype=uint8
        The class ``y_i`` of each sample.

    alpha : ndarray of shape (n_samples, n_clusters), dtype=float64
        Dual variables, feasible on entry (zeros are); updated.

    W_T, mean_coef, W_dot_mean, v
        The weights in the form of the module docstring: ``w'`` transposed,
        ``a``, ``w'_p . mean`` and the constant feature's weights, consistent
        with ``alpha`` on entry (plus any fixed part the caller added);
        updated with it.

    intercept_scale, mean_sq_norm, cap
        ``s``, ``|mean(x)|^2`` and the bound ``c`` of the alphas.

    seed : int
        Seeds the order of the samples in each epoch
        (:func:`seed_segments`).

    max_epochs : int
        Most passes over the samples.

    tol : float
        The epochs stop after one whose largest KKT violation is below tol.

    segment_rows : int
        Rows per segment (at least 1).

    n_rounds : int
        Rounds of an epoch (at least 1; one segment is visited as one
        shuffle whatever their number).

    Returns
    -------
    n_epochs : int
        Passes made.

    violation : float
        Largest KKT violation of the last pass.
    """
    cdef:
        const floating *data = _values(X_data)
        const int *indices = _indices(X_indices)
        const int *indptr = _indices(X_indptr)
        Py_ssize_t n_samples = _n_rows(X_data.shape[0], X_indptr.shape[0], n_features)
        Py_ssize_t k = W_T.shape[1]
        Py_ssize_t n_segments
        Py_ssize_t epoch, round_, i, n_epochs = 0
        double violation = 0.0, round_violation
        double *buffer
        Py_ssize_t *order
        uint32_t *states

    _check_rounds(segment_rows, n_rounds)
    n_segments = (n_samples + segment_rows - 1) // segment_rows
    buffer = <double *> malloc(4 * k * sizeof(double))
    order = <Py_ssize_t *> malloc(
        (n_samples if n_samples > 0 else 1) * sizeof(Py_ssize_t))
    states = <uint32_t *> malloc(
        (n_segments if n_segments > 0 else 1) * sizeof(uint32_t))
    if buffer == NULL or order == NULL or states == NULL:
        free(buffer)
        free(order)
        free(states)
        raise MemoryError()
    try:
        for i in range(n_samples):
            order[i] = i
        for i in range(n_segments):
            states[i] = _segment_seed(seed, i)
        with nogil:
            for epoch in range(max_epochs):
                _epoch_offsets(&mean_coef[0], &W_dot_mean[0], &v[0], k,
                               intercept_scale, mean_sq_norm, buffer + 3 * k)
                _shuffle_segments(n_samples, segment_rows, order, states)
                violation = 0.0
                for round_ in range(n_rounds):
                    round_violation = _round(
                        data, indices, indptr, n_features, n_samples,
                        &x_dot_mean[0] if n_samples else NULL,
                        &sq_norms[0] if n_samples else NULL,
                        &labels[0] if n_samples else NULL,
                        &alpha[0, 0] if n_samples else NULL,
                        &W_T[0, 0], k, &mean_coef[0], &W_dot_mean[0], &v[0],
                        buffer + 3 * k, intercept_scale, mean_sq_norm, cap,
                        order, segment_rows, round_, n_rounds, buffer)
                    if round_violation > violation:
                        violation = round_violation
                n_epochs = epoch + 1
                if violation <= tol:
                    break
    finally:
        free(buffer)
        free(order)
        free(states)
    return n_epochs, violation


def dual_round(
        const floating[::1] X_data,             # IN
        const int[::1] X_indices,               # IN
        const int[::1] X_indptr,                # IN
        Py_ssize_t n_features,                  # IN
        const double[::1] x_dot_mean,           # IN, (n_samples,)
        const double[::1] sq_norms,             # IN, (n_samples,)
        const unsigned char[::1] labels,        # IN, (n_samples,)
        double[:, ::1] alpha,                   # INOUT, (n_samples, k)
        double[:, ::1] W_T,                     # INOUT, (n_features, k)
        double[::1] mean_coef,                  # INOUT, (k,)
        double[::1] W_dot_mean,                 # INOUT, (k,)
        double[::1] v,                          # INOUT, (k,)
        double[::1] offsets,                    # INOUT, (k,)
        double intercept_scale,                 # IN
        double mean_sq_norm,                    # IN
        double cap,                             # IN
        Py_ssize_t[::1] order,                  # INOUT, (n_samples,)
        uint32_t[::1] states,                   # INOUT, (n_segments,)
        Py_ssize_t segment_rows,                # IN
        Py_ssize_t round_,                      # IN
        Py_ssize_t n_rounds,                    # IN
):
    """One round of an epoch of :func:`dual_epochs` over a block of its rows.

    The block holds whole segments (its first row starts one). Run on the
    blocks of X in their order for each round in turn, with ``offsets`` from
    :func:`epoch_offsets` at the start of the epoch and the weights carried
    from block to block, the epochs of :func:`dual_epochs` come out
    exactly: the first round (``round_`` 0) shuffles the block's segments;
    ``order`` (the block's rows, ``arange`` at the first epoch) and
    ``states`` (from :func:`seed_segments` at the block's first segment)
    are carried from one round and epoch to the next. Other parameters are
    those of :func:`dual_epochs`. Returns the largest KKT violation of the
    round in the block.
    """
    cdef:
        const floating *data = _values(X_data)
        const int *indices = _indices(X_indices)
        const int *indptr = _indices(X_indptr)
        Py_ssize_t n_samples = _n_rows(X_data.shape[0], X_indptr.shape[0], n_features)
        Py_ssize_t k = W_T.shape[1]
        double violation = 0.0
        double *buffer

    _check_rounds(segment_rows, n_rounds)
    if not 0 <= round_ < n_rounds:
        raise ValueError(f"round_ must be in [0, {n_rounds}), got {round_}")
    if n_samples == 0:
        return 0.0
    if order.shape[0] != n_samples or states.shape[0] != (
            (n_samples + segment_rows - 1) // segment_rows):
        raise ValueError("order and states must cover the block's rows and segments")
    buffer = <double *> malloc(3 * k * sizeof(double))
    if buffer == NULL:
        raise MemoryError()
    try:
        with nogil:
            if round_ == 0:
                _shuffle_segments(n_samples, segment_rows, &order[0], &states[0])
            violation = _round(
                data, indices, indptr, n_features, n_samples,
                &x_dot_mean[0], &sq_norms[0], &labels[0], &alpha[0, 0],
                &W_T[0, 0], k, &mean_coef[0], &W_dot_mean[0], &v[0],
                &offsets[0], intercept_scale, mean_sq_norm, cap,
                &order[0], segment_rows, round_, n_rounds, buffer)
    finally:
        free(buffer)
    return violation


def remove_samples(
        const floating[::1] X_data,             # IN
        const int[::1] X_indices,               # IN
        const int[::1] X_indptr,                # IN
        Py_ssize_t n_features,                  # IN
        const double[::1] x_dot_mean,           # IN, (n_samples,)
        const int[::1] samples,                 # IN
        double[:, ::1] alpha,                   # INOUT, (n_samples, k)
        double[:, ::1] W_T,                     # INOUT, (n_features, k)
        double[::1] mean_coef,                  # INOUT, (k,)
        double[::1] W_dot_mean,                 # INOUT, (k,)
        double[::1] v,                          # INOUT, (k,)
        double intercept_scale,                 # IN
):
    """Set the dual variables of the given samples to zero, and the weights
    with them (the samples changed class: their old variables are no longer
    feasible).

    Parameters are those of :func:`dual_epochs`; ``samples`` lists the rows.
    """
    cdef:
        const floating *data = _values(X_data)
        const int *indices = _indices(X_indices)
        const int *indptr = _indices(X_indptr)
        Py_ssize_t k = W_T.shape[1]
        Py_ssize_t position, i, p, start, end
        double *delta = <double *> malloc(k * sizeof(double))

    if delta == NULL:
        raise MemoryError()
    try:
        with nogil:
            for position in range(samples.shape[0]):
                i = samples[position]
                for p in range(k):
                    delta[p] = -alpha[i, p]
                    alpha[i, p] = 0.0
                    mean_coef[p] += delta[p]
                    W_dot_mean[p] += delta[p] * x_dot_mean[i]
                    v[p] += delta[p] * intercept_scale
                _row_span(indptr, n_features, i, &start, &end)
                _row_outer_axpy(data, indices, start, end, delta, k, &W_T[0, 0])
    finally:
        free(delta)
