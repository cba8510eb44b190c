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


def local_search(
        const double[:, ::1] V,          # IN
        const double[::1] weights,       # IN
        unsigned char[::1] labels,       # IN/OUT
        double[:, ::1] U,                # IN/OUT
        Py_ssize_t[::1] sizes,           # IN/OUT
        Py_ssize_t min_size,             # IN
        Py_ssize_t max_sweeps,           # IN
):
    """Move samples to their best cluster until no move lowers the fitness.

    Sweeps over the samples in order; each sample goes to the cluster with
    the largest positive gain (the first on ties), unless its cluster would
    fall below ``min_size`` samples. Stops after a sweep without a move, or
    after ``max_sweeps`` sweeps.

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

    min_size : int
        Smallest size a move may leave a cluster with.

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
        double own_square, gain, best_gain, v, step

    scores = <double *> malloc(n_clusters * sizeof(double))
    # U by columns, columns[j * k + q] = U[q, j]: the k products of a
    # component are then adjacent in memory (U's rows are n_components
    # apart). The same products are summed in the same order.
    columns = <double *> malloc(n_components * n_clusters * sizeof(double))
    if scores == NULL or columns == NULL:
        free(scores)
        free(columns)
        return -1
    try:
        with nogil:
            for q in range(n_clusters):
                for j in range(n_components):
                    columns[j * n_clusters + q] = U[q, j]
            for sweep in range(max_sweeps):
                n_sweeps = sweep + 1
                moved = 0
                for i in range(n_samples):
                    p = labels[i]
                    if sizes[p] <= min_size:
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
    return n_sweeps
