"""Kernel of the least-squares MMC into k clusters (EvoMMC, FastEvoMMC).

Notation as in ``mmc._core._evo``: a basis ``V`` (n_samples, m) of the
kernel matrix with weights ``w``. A clustering into k clusters has one
indicator ``y_p in {-1, +1}^n`` per cluster (+1 on its samples) with
coordinates ``u_p = V'y_p``, the rows of ``U`` (k, m), and the fitness

    F(Y) = sum_p (1 - (1/n) sum_j w_j u_pj^2),

the sum of the binary fitnesses of the indicators. Moving sample i from
cluster p to q changes ``u_p`` by ``-2 V[i]`` and ``u_q`` by ``+2 V[i]``,
so ``n F`` falls by

    gain_q = 4 (a_q - a_p) + 8 sum_j w_j V[i, j]^2,  a_q = sum_j w_j V[i, j] u_qj,

which costs O(k m) for all q at once. Every move with a positive gain
lowers F, and moving the sample back would have the opposite gain, so the
local search below cannot cycle. No BLAS is called: the sums run in a fixed
order, so the result is the same on every CPU.
"""

from libc.stdlib cimport free, malloc

from mmc._core._common cimport INTERRUPT_CHECK_WORK, check_interrupts


cdef void shrinkable_clusters(
        const Py_ssize_t[::1] sizes,
        const Py_ssize_t[::1] floors,
        Py_ssize_t *order,
        Py_ssize_t *slack,
        unsigned char *shrinkable,
) noexcept nogil:
    """Which clusters may lose a sample without breaking the floors.

    The floors bound the sum ``S_j`` of the j smallest sizes (j = 1 .. k-1),
    and only the cluster that loses a sample shrinks (a cluster that grows
    never lowers a sum of smallest sizes). A cluster of size s loses one
    sample from the sums ``S_j`` with j beyond the clusters smaller than s
    (it takes the first place among the clusters of size s, and the sums
    of fewer clusters do not hold it), so it may shrink when each of those
    sums is above its floor. ``order`` holds the clusters by size, kept
    from the call before (insertion sort: after one move, O(k) steps);
    ``slack`` is scratch of k entries.
    """
    cdef:
        Py_ssize_t k = sizes.shape[0]
        Py_ssize_t a, b, c, total, lowest, first_equal
    for a in range(1, k):
        c = order[a]
        b = a
        while b > 0 and sizes[order[b - 1]] > sizes[c]:
            order[b] = order[b - 1]
            b -= 1
        order[b] = c
    # slack[a]: the least, over j >= a + 1, of S_j - floors[j - 1] (k for
    # the last place, which no floor bounds).
    total = 0
    for a in range(k - 1):
        total += sizes[order[a]]
        slack[a] = total - floors[a]
    slack[k - 1] = k
    lowest = k
    for a in range(k - 1, -1, -1):
        if slack[a] < lowest:
            lowest = slack[a]
        slack[a] = lowest
    first_equal = 0
    for a in range(k):
        if a > 0 and sizes[order[a]] != sizes[order[a - 1]]:
            first_equal = a
        shrinkable[order[a]] = slack[first_equal] >= 1


def local_search(
        const double[:, ::1] V,          # IN
        const double[::1] weights,       # IN
        unsigned char[::1] labels,       # IN/OUT
        double[:, ::1] U,                # IN/OUT
        Py_ssize_t[::1] sizes,           # IN/OUT
        const Py_ssize_t[::1] floors,    # IN
        Py_ssize_t max_sweeps,           # IN
):
    """Move samples to their best cluster until no move lowers the fitness.

    Sweeps over the samples in order; each sample goes to the cluster with
    the largest positive gain (the first on ties), unless its cluster may
    not shrink: for every j, the j smallest clusters hold at least
    ``floors[j - 1]`` samples together (``floors[j - 1] = j m`` is the
    floor of m samples on every cluster). Stops after a sweep without a
    move, or after ``max_sweeps`` sweeps.

    Parameters
    ----------
    V : ndarray of shape (n_samples, n_components), dtype=float64
        Basis of the kernel matrix.

    weights : ndarray of shape (n_components,), dtype=float64
        Its weights ``w_j``.

    labels : ndarray of shape (n_samples,), dtype=uint8
        Cluster of each sample, below k; updated in place.

    U : ndarray of shape (n_clusters, n_components), dtype=float64
        Coordinates ``u_p = V'y_p`` of the indicators of ``labels``; updated
        in place with every move.

    sizes : ndarray of shape (n_clusters,), dtype=intp
        Number of samples of each cluster; updated in place.

    floors : ndarray of shape (n_clusters - 1,), dtype=intp
        Least total size of the j smallest clusters, for j = 1 .. k-1; the
        sizes given must meet them.

    max_sweeps : int
        Largest number of sweeps.

    Returns
    -------
    n_sweeps : int
        Sweeps made, the last one without a move unless it is
        ``max_sweeps``; -1 if scratch memory could not be allocated.
    """
    cdef:
        Py_ssize_t n_samples = V.shape[0], n_components = V.shape[1]
        Py_ssize_t n_clusters = U.shape[0]
        Py_ssize_t i, j, p, q, best, sweep, n_sweeps = 0, moved
        Py_ssize_t work = 0
        double *scores = NULL
        double *columns = NULL
        Py_ssize_t *order = NULL
        Py_ssize_t *slack = NULL
        unsigned char *shrinkable = NULL
        double own_square, gain, best_gain, v, step

    if floors.shape[0] != n_clusters - 1:
        raise ValueError(
            f"floors must hold one value per j = 1 .. {n_clusters - 1}; "
            f"got {floors.shape[0]}."
        )
    scores = <double *> malloc(n_clusters * sizeof(double))
    # U by columns, columns[j * k + q] = U[q, j]: the k products of a
    # component are then adjacent in memory (U's rows are n_components
    # apart). The same products are summed in the same order.
    columns = <double *> malloc(n_components * n_clusters * sizeof(double))
    order = <Py_ssize_t *> malloc(n_clusters * sizeof(Py_ssize_t))
    slack = <Py_ssize_t *> malloc(n_clusters * sizeof(Py_ssize_t))
    shrinkable = <unsigned char *> malloc(n_clusters * sizeof(unsigned char))
    if (scores == NULL or columns == NULL or order == NULL or slack == NULL
            or shrinkable == NULL):
        free(scores)
        free(columns)
        free(order)
        free(slack)
        free(shrinkable)
        return -1
    try:
        with nogil:
            for q in range(n_clusters):
                order[q] = q
                for j in range(n_components):
                    columns[j * n_clusters + q] = U[q, j]
            shrinkable_clusters(sizes, floors, order, slack, shrinkable)
            for sweep in range(max_sweeps):
                n_sweeps = sweep + 1
                moved = 0
                for i in range(n_samples):
                    p = labels[i]
                    if not shrinkable[p]:
                        continue
                    for q in range(n_clusters):
                        scores[q] = 0.0
                    own_square = 0.0
                    for j in range(n_components):
                        v = weights[j] * V[i, j]
                        own_square += v * V[i, j]
                        for q in range(n_clusters):
                            scores[q] += v * columns[j * n_clusters + q]
                    best = p
                    best_gain = 0.0
                    for q in range(n_clusters):
                        if q == p:
                            continue
                        gain = 4.0 * (scores[q] - scores[p]) + 8.0 * own_square
                        if gain > best_gain:
                            best_gain = gain
                            best = q
                    if best != p:
                        for j in range(n_components):
                            step = 2.0 * V[i, j]
                            columns[j * n_clusters + p] -= step
                            columns[j * n_clusters + best] += step
                        labels[i] = <unsigned char> best
                        sizes[p] -= 1
                        sizes[best] += 1
                        moved += 1
                        shrinkable_clusters(sizes, floors, order, slack, shrinkable)
                    work += n_clusters * n_components
                    if work >= INTERRUPT_CHECK_WORK:
                        work = 0
                        check_interrupts()
                if moved == 0:
                    break
            for q in range(n_clusters):
                for j in range(n_components):
                    U[q, j] = columns[j * n_clusters + q]
    finally:
        free(scores)
        free(columns)
        free(order)
        free(slack)
        free(shrinkable)
    return n_sweeps
