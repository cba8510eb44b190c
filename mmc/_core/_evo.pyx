"""Kernels of the evolutionary least-squares MMC (EvoMMC, FastEvoMMC).

Notation: the kernel matrix, exact or Nystroem, is summarised by a basis
``V`` of shape (n_samples, n_components) with orthonormal columns and by
weights ``w_j = sigma_j / (sigma_j + n lam)`` in [0, 1), where ``sigma_j``
are its non-zero eigenvalues. For a labelling
``y in {-1, +1}^n`` with coordinates ``u = V'y``, the optimal value of the
regularised least-squares problem ``min_c (1/n)|y - Kc|^2 + lam c'Kc`` is

    F(y) = 1 - (1/n) sum_j w_j u_j^2

(the components of y outside the span of V cost ``(1/n)|y|^2 = 1`` in full).
Flipping the labels of a set S of samples changes u by
``-2 sum_{i in S} y_i V[i]``, so a mutation of s labels costs O(s m) and its
fitness O(m), with m = n_components: m is the numerical rank of the kernel
matrix for EvoMMC and the number of landmarks for FastEvoMMC.

Randomness comes from a 32-bit xorshift generator seeded by an integer drawn
from the estimator's ``random_state`` in Python, so a run is reproducible
whatever the number of threads running restarts.
"""

from cython cimport floating
from libc.stdint cimport uint32_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy

from mmc._core._common cimport (
    INTERRUPT_CHECK_WORK,
    _rand_below,
    _seed_state,
    check_interrupts,
)

# Offspring are evaluated from their parent's coordinates and the list of
# flipped samples; they are materialised (labels copied) only when selected.


cdef Py_ssize_t _mutate(
        const signed char *y,
        Py_ssize_t n_samples,
        Py_ssize_t label_sum,
        Py_ssize_t n_wanted,
        Py_ssize_t bound,
        int *marks,
        int stamp,
        uint32_t *state,
        int *flips,
        Py_ssize_t *new_sum,
) noexcept nogil:
    """Draw a valid mutation of ``y``: up to ``n_wanted`` distinct flips.

    A flip that would break ``|sum y| <= bound`` is paired with the flip of a
    sample of the opposite label (the paper's swap), so the sum is
    unchanged. Samples already flipped in this mutation are marked with
    ``stamp`` and never drawn twice. Returns the number of flipped samples
    written to ``flips`` (at most n_samples) and their new label sum.
    """
    cdef:
        Py_ssize_t count = 0, i, j
        Py_ssize_t total = label_sum
        signed char label

    if n_wanted > n_samples:
        n_wanted = n_samples
    for _ in range(n_wanted):
        if count >= n_samples:
            break
        i = _rand_below(state, n_samples)
        while marks[i] == stamp:
            i = _rand_below(state, n_samples)
        label = y[i]
        if -bound <= total - 2 * label <= bound:
            marks[i] = stamp
            flips[count] = <int> i
            count += 1
            total -= 2 * label
            continue
        # Swap with a sample of the opposite label. The balance can only break
        # towards the side of the majority label, so one is found quickly;
        # give up on this flip after a number of failed draws (possible only
        # when most samples are already flipped).
        if count + 2 > n_samples:
            break
        for _ in range(64):
            j = _rand_below(state, n_samples)
            if j != i and marks[j] != stamp and y[j] == -label:
                marks[i] = stamp
                marks[j] = stamp
                flips[count] = <int> i
                flips[count + 1] = <int> j
                count += 2
                break
    new_sum[0] = total
    return count


cdef inline double _fitness_after(
        const double *u,
        const double *delta,
        const double *weights,
        Py_ssize_t n_components,
        double inv_n,
) noexcept nogil:
    """``1 - (1/n) sum_j w_j (u_j + delta_j)^2``."""
    cdef:
        Py_ssize_t j
        double acc = 0.0, t
    for j in range(n_components):
        t = u[j] + delta[j]
        acc += weights[j] * t * t
    return 1.0 - acc * inv_n


cdef inline void _flip_delta(
        const floating[:, ::1] V,
        const signed char *y,
        const int *flips,
        Py_ssize_t n_flips,
        double *delta,
) noexcept nogil:
    """``delta = -2 sum_{i in flips} y_i V[i]`` (y before the flips)."""
    cdef:
        Py_ssize_t n_components = V.shape[1]
        Py_ssize_t t, i, j
        double step
    for j in range(n_components):
        delta[j] = 0.0
    for t in range(n_flips):
        i = flips[t]
        step = -2.0 * y[i]
        for j in range(n_components):
            delta[j] += step * V[i, j]


def fitness(
        const double[::1] weights,  # IN
        const double[::1] u,        # IN
        Py_ssize_t n_samples,       # IN
):
    """Fitness ``F(y) = 1 - (1/n) sum_j w_j u_j^2`` of a labelling from its coordinates.

    Parameters
    ----------
    weights : ndarray of shape (n_components,), dtype=float64
        ``w_j = sigma_j / (sigma_j + n lam)``.

    u : ndarray of shape (n_components,), dtype=float64
        Coordinates ``V'y`` of the labelling.

    n_samples : int
        Number of samples n (the length of y).

    Returns
    -------
    fitness : float
        The optimal value of the regularised least-squares problem for y.
    """
    cdef:
        Py_ssize_t j, n_components = u.shape[0]
        double acc = 0.0
        double inv_n = 1.0 / n_samples
    # The same operations, in the same order, as the fitness of a child in
    # evolve (_fitness_after), so that a labelling gets one fitness to the bit.
    with nogil:
        for j in range(n_components):
            acc += weights[j] * u[j] * u[j]
    return 1.0 - acc * inv_n


def flip_labels(
        const floating[:, ::1] V,  # IN
        const int[::1] flips,      # IN
        Py_ssize_t n_flips,        # IN
        signed char[::1] y,        # INOUT
        double[::1] u,             # INOUT
):
    """Flip the labels ``y[flips]`` and update their coordinates ``u = V'y``.

    Costs O(n_flips * n_components): each flip of sample i adds
    ``-2 y_i V[i]`` to u (with y_i the label before the flip). A sample listed
    twice is flipped twice.

    Parameters
    ----------
    V : ndarray of shape (n_samples, n_components), dtype=floating
        Basis of the kernel matrix, C-contiguous.

    flips : ndarray of shape (>= n_flips,), dtype=int32
        Samples to flip.

    n_flips : int
        Number of valid entries in ``flips``.

    y : ndarray of shape (n_samples,), dtype=int8
        Labelling (+1 / -1), updated in place.

    u : ndarray of shape (n_components,), dtype=float64
        ``V'y``, updated in place.
    """
    cdef:
        Py_ssize_t n_components = V.shape[1]
        Py_ssize_t t, i, j
        double step
    with nogil:
        for t in range(n_flips):
            i = flips[t]
            step = -2.0 * y[i]
            for j in range(n_components):
                u[j] += step * V[i, j]
            y[i] = -y[i]


def mutate(
        const signed char[::1] y,  # IN
        Py_ssize_t n_wanted,       # IN
        Py_ssize_t bound,          # IN
        int[::1] marks,            # INOUT (n_samples,)
        int stamp,                 # IN
        uint32_t seed,             # IN
        int[::1] flips,            # OUT (n_samples,)
):
    """Draw the samples flipped by one mutation of ``y`` (the balance repair).

    ``n_wanted`` distinct samples are drawn at random; a flip that would break
    ``|sum y| <= bound`` is paired with the flip of a random sample of the
    opposite label, which keeps the sum. This is the mutation that
    :func:`evolve` applies; it is exposed for the tests.

    Parameters
    ----------
    y : ndarray of shape (n_samples,), dtype=int8
        Parent labelling, with ``|sum y| <= bound``.

    n_wanted : int
        Number of flips drawn (swaps add a partner to a flip).

    bound : int
        Bound on ``|sum y|``.

    marks : ndarray of shape (n_samples,), dtype=int32
        Scratch buffer: samples flipped in this mutation are set to ``stamp``.
        No entry may equal ``stamp`` on entry.

    stamp : int
        Marker of this mutation.

    seed : int
        Seed of the generator (uint32).

    flips : ndarray of shape (n_samples,), dtype=int32
        Receives the distinct flipped samples in its first entries.

    Returns
    -------
    n_flips : int
        Number of samples flipped.

    label_sum : int
        ``sum y`` after the flips.
    """
    cdef:
        uint32_t state = _seed_state(seed)
        Py_ssize_t n_flips, new_sum = 0, label_sum = 0, i
    if y.shape[0] == 0:
        return 0, 0
    with nogil:
        for i in range(y.shape[0]):
            label_sum += y[i]
        n_flips = _mutate(&y[0], y.shape[0], label_sum, n_wanted, bound,
                          &marks[0], stamp, &state, &flips[0], &new_sum)
    return n_flips, new_sum


def evolve(
        const floating[:, ::1] V,     # IN
        const double[::1] weights,    # IN
        signed char[:, ::1] Y,        # INOUT
        double[:, ::1] U,             # INOUT
        double[::1] F,                # INOUT
        Py_ssize_t n_offspring,       # IN
        Py_ssize_t bound,             # IN
        Py_ssize_t first_size,        # IN
        Py_ssize_t max_generations,   # IN
        Py_ssize_t patience,          # IN
        double tol,                   # IN
        uint32_t seed,                # IN
):
    """Run the (mu + lambda) evolution of a population of labellings.

    Each generation draws ``n_offspring`` children: a random parent, a
    mutation of ``s = max(1, first_size // (t + 1))`` flips at generation t
    (with the balance repair of :func:`mutate`), and the child's fitness from
    its parent's coordinates in O(s m). The ``mu`` best of parents and
    children survive (children first on equal fitness, so that the search
    can drift along plateaus). Only the surviving children are materialised:
    a child whose parent dies takes its parent's slot and applies its flips in
    place, any other child is copied into a free slot. The run stops after
    ``max_generations`` generations or after ``patience`` consecutive
    generations in which the best fitness did not decrease by more than
    ``tol``.

    Parameters
    ----------
    V : ndarray of shape (n_samples, n_components), dtype=floating
        Orthonormal basis of the kernel matrix, C-contiguous.

    weights : ndarray of shape (n_components,), dtype=float64
        ``w_j = sigma_j / (sigma_j + n lam)``.

    Y : ndarray of shape (mu, n_samples), dtype=int8
        Initial population (+1 / -1 labels, ``|sum y| <= bound`` for each);
        overwritten with the final population.

    U : ndarray of shape (mu, n_components), dtype=float64
        Coordinates ``V'y`` of each individual, updated with Y.

    F : ndarray of shape (mu,), dtype=float64
        Fitness of each individual, updated with Y.

    n_offspring : int
        Number of children per generation (lambda), at least 1.

    bound : int
        Bound on ``|sum y|`` (the class balance ``l``).

    first_size : int
        Numerator of the mutation size schedule (the paper's n).

    max_generations : int
        Maximum number of generations.

    patience : int
        Generations without improvement after which the run stops.

    tol : float
        Smallest decrease of the best fitness that counts as an improvement.

    seed : int
        Seed of the generator (uint32).

    Returns
    -------
    n_generations : int
        Number of generations run; -1 if scratch memory could not be
        allocated (nothing is changed then).

    Raises
    ------
    KeyboardInterrupt, mmc._threads.RestartsStopped
        From the checks for interrupts between chunks of the generations
        (see ``_common.pxd``); the population is then left part-way.
    """
    cdef:
        Py_ssize_t n_samples = V.shape[0]
        Py_ssize_t n_components = V.shape[1]
        Py_ssize_t mu = Y.shape[0]
        Py_ssize_t n_cand = mu + n_offspring
        Py_ssize_t t = 0
        uint32_t state = _seed_state(seed)
        double inv_n
        # Scratch, allocated once per run.
        int *flips = NULL             # (n_offspring, n_samples)
        Py_ssize_t *n_flips = NULL    # (n_offspring,)
        Py_ssize_t *parents = NULL    # (n_offspring,)
        Py_ssize_t *sums = NULL       # (mu + n_offspring,): label sums
        double *deltas = NULL         # (n_offspring, n_components)
        double *cand_fit = NULL       # (mu + n_offspring,)
        char *survives = NULL         # (mu + n_offspring,)
        Py_ssize_t *claimed = NULL    # (mu,): child applied in place, or -1
        Py_ssize_t *free_slots = NULL  # (mu,)
        int *marks = NULL             # (n_samples,)

    if n_samples == 0 or mu == 0:
        return 0
    inv_n = 1.0 / n_samples

    with nogil:
        flips = <int *> malloc(n_offspring * n_samples * sizeof(int))
        n_flips = <Py_ssize_t *> malloc(n_offspring * sizeof(Py_ssize_t))
        parents = <Py_ssize_t *> malloc(n_offspring * sizeof(Py_ssize_t))
        sums = <Py_ssize_t *> malloc(n_cand * sizeof(Py_ssize_t))
        deltas = <double *> malloc(n_offspring * n_components * sizeof(double) + 1)
        cand_fit = <double *> malloc(n_cand * sizeof(double))
        survives = <char *> malloc(n_cand * sizeof(char))
        claimed = <Py_ssize_t *> malloc(mu * sizeof(Py_ssize_t))
        free_slots = <Py_ssize_t *> malloc(mu * sizeof(Py_ssize_t))
        marks = <int *> malloc(n_samples * sizeof(int))
        try:
            if (flips == NULL or n_flips == NULL or parents == NULL
                    or sums == NULL or deltas == NULL or cand_fit == NULL
                    or survives == NULL or claimed == NULL or free_slots == NULL
                    or marks == NULL):
                t = -1
            else:
                t = _evolve_loop(
                    V, weights, Y, U, F, n_offspring, bound, first_size,
                    max_generations, patience, tol, &state, inv_n, flips,
                    n_flips, parents, sums, deltas, cand_fit, survives, claimed,
                    free_slots, marks,
                )
        finally:
            # Also when the loop raises for an interrupt.
            free(flips)
            free(n_flips)
            free(parents)
            free(sums)
            free(deltas)
            free(cand_fit)
            free(survives)
            free(claimed)
            free(free_slots)
            free(marks)
    return t


cdef Py_ssize_t _evolve_loop(
        const floating[:, ::1] V,
        const double[::1] weights,
        signed char[:, ::1] Y,
        double[:, ::1] U,
        double[::1] F,
        Py_ssize_t n_offspring,
        Py_ssize_t bound,
        Py_ssize_t first_size,
        Py_ssize_t max_generations,
        Py_ssize_t patience,
        double tol,
        uint32_t *state,
        double inv_n,
        int *flips,
        Py_ssize_t *n_flips,
        Py_ssize_t *parents,
        Py_ssize_t *sums,
        double *deltas,
        double *cand_fit,
        char *survives,
        Py_ssize_t *claimed,
        Py_ssize_t *free_slots,
        int *marks,
) except -1 nogil:
    """The generation loop of :func:`evolve` (see there); returns the number
    of generations, or raises from :func:`check_interrupts`."""
    cdef:
        Py_ssize_t n_samples = V.shape[0]
        Py_ssize_t n_components = V.shape[1]
        Py_ssize_t mu = Y.shape[0]
        Py_ssize_t n_cand = mu + n_offspring
        Py_ssize_t t, stale = 0, k, p, c, d, q, i, j, size, rank, n_free, acc
        # Operations since the last check for interrupts (an estimate:
        # mutations and their deltas, the selection, the copies).
        Py_ssize_t work = 0
        int stamp = 0
        double best, gen_best, fc, fd
        double *delta

    for i in range(n_samples):
        marks[i] = 0
    for p in range(mu):
        acc = 0
        for i in range(n_samples):
            acc += Y[p, i]
        sums[p] = acc
    best = F[0]
    for p in range(1, mu):
        if F[p] < best:
            best = F[p]

    t = 0
    while t < max_generations and stale < patience:
        size = first_size // (t + 1)
        if size < 1:
            size = 1
        # Children, evaluated from their parent's coordinates.
        for k in range(n_offspring):
            p = _rand_below(state, mu) if mu > 1 else 0
            if stamp == 2147483647:
                for i in range(n_samples):
                    marks[i] = 0
                stamp = 0
            stamp += 1
            n_flips[k] = _mutate(&Y[p, 0], n_samples, sums[p], size, bound,
                                 marks, stamp, state, flips + k * n_samples,
                                 &sums[mu + k])
            parents[k] = p
            delta = deltas + k * n_components
            _flip_delta(V, &Y[p, 0], flips + k * n_samples, n_flips[k], delta)
            cand_fit[mu + k] = _fitness_after(&U[p, 0], delta, &weights[0],
                                              n_components, inv_n)
            # A child of the first generations of random starts flips up to
            # n labels: check between children too.
            work += (n_flips[k] + 1) * (n_components + 2)
            if work >= INTERRUPT_CHECK_WORK:
                work = 0
                check_interrupts()
        for p in range(mu):
            cand_fit[p] = F[p]

        # (mu + lambda) selection: candidate c survives if fewer than mu
        # candidates beat it; children (c >= mu) precede parents on ties, and
        # earlier candidates precede later ones of the same kind.
        gen_best = best
        for c in range(n_cand):
            fc = cand_fit[c]
            rank = 0
            for d in range(n_cand):
                fd = cand_fit[d]
                if fd < fc or (fd == fc and _precedes(d, c, mu)):
                    rank += 1
            survives[c] = rank < mu
            if survives[c] and fc < gen_best:
                gen_best = fc

        # Slots of dying parents: a child of a dying parent takes its slot
        # (in place, O(s)); the other slots receive copies.
        for p in range(mu):
            claimed[p] = -1
        for k in range(n_offspring):
            p = parents[k]
            if survives[mu + k] and not survives[p] and claimed[p] < 0:
                claimed[p] = k
        n_free = 0
        for p in range(mu):
            if not survives[p] and claimed[p] < 0:
                free_slots[n_free] = p
                n_free += 1
        # Copies first: they read parents that are either alive or about to
        # be overwritten in place below.
        q = 0
        for k in range(n_offspring):
            p = parents[k]
            if not survives[mu + k] or claimed[p] == k:
                continue
            c = free_slots[q]
            q += 1
            memcpy(&Y[c, 0], &Y[p, 0], n_samples * sizeof(signed char))
            delta = deltas + k * n_components
            for j in range(n_components):
                U[c, j] = U[p, j] + delta[j]
            _apply_flips(Y, c, flips + k * n_samples, n_flips[k])
            F[c] = cand_fit[mu + k]
            sums[c] = sums[mu + k]
        for p in range(mu):
            k = claimed[p]
            if k < 0:
                continue
            delta = deltas + k * n_components
            for j in range(n_components):
                U[p, j] += delta[j]
            _apply_flips(Y, p, flips + k * n_samples, n_flips[k])
            F[p] = cand_fit[mu + k]
            sums[p] = sums[mu + k]

        work += n_cand * n_cand + q * n_samples
        if work >= INTERRUPT_CHECK_WORK:
            work = 0
            check_interrupts()

        t += 1
        if gen_best < best - tol:
            stale = 0
        else:
            stale += 1
        if gen_best < best:
            best = gen_best
    return t


cdef inline bint _precedes(Py_ssize_t d, Py_ssize_t c, Py_ssize_t mu) noexcept nogil:
    """Order among candidates of equal fitness: children first, then by index."""
    if (d >= mu) != (c >= mu):
        return d >= mu
    return d < c


cdef inline void _apply_flips(
        signed char[:, ::1] Y,
        Py_ssize_t row,
        const int *flips,
        Py_ssize_t n_flips,
) noexcept nogil:
    cdef Py_ssize_t t
    for t in range(n_flips):
        Y[row, flips[t]] = -Y[row, flips[t]]
