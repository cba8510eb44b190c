"""NumPy twins of the k-cluster EvoMMC's move loop
(``mmc._core._evo_multiclass``); re-exported by ``_reference``."""

import numpy as np


def spectral_fitness(V, weights, Y):
    """Helper: ``F(y) = 1 - (1/n) sum_j w_j (V'y)_j^2`` for each row y of Y.

    The fitness that ``mmc._core._evo`` keeps for a labelling, recomputed
    from its labels; equal to :func:`least_squares_fitness` when V has
    orthonormal columns and ``w = sigma / (sigma + n reg)`` for the kernel
    matrix ``V diag(sigma) V'``.
    """
    V = np.asarray(V, dtype=np.float64)
    U = np.atleast_2d(np.asarray(Y, dtype=np.float64)) @ V
    return 1.0 - (U * U) @ np.asarray(weights, dtype=np.float64) / V.shape[0]


def may_shrink(labels, cluster, n_clusters, floors):
    """Whether ``cluster`` may lose a sample: with it one smaller, the j
    smallest clusters still hold ``floors[j - 1]`` samples, for every j
    (sizes sorted and summed again)."""
    sizes = np.bincount(labels, minlength=n_clusters)
    sizes[cluster] -= 1
    return bool(np.all(np.cumsum(np.sort(sizes))[:-1] >= floors))


def multiclass_local_search(V, weights, labels, n_clusters, floors, max_sweeps):
    """Twin of ``mmc._core._evo_multiclass.local_search``, in plain NumPy.

    Sweeps the samples in order and moves each to the cluster that lowers
    ``F(Y)`` (:func:`multiclass_fitness`) most, the first on ties, with F
    recomputed from the labels for every candidate, unless its cluster may
    not shrink (:func:`may_shrink`). Returns the labels and the sweeps made.
    """
    labels = np.array(labels, dtype=np.intp)
    n = labels.size
    for sweep in range(1, max_sweeps + 1):
        moved = 0
        for i in range(n):
            p = labels[i]
            if not may_shrink(labels, p, n_clusters, floors):
                continue
            base = multiclass_fitness(V, weights, labels, n_clusters)
            best, best_gain = p, 0.0
            for q in range(n_clusters):
                if q == p:
                    continue
                trial = labels.copy()
                trial[i] = q
                gain = n * (base - multiclass_fitness(V, weights, trial, n_clusters))
                if gain > best_gain:
                    best, best_gain = q, gain
            if best != p:
                labels[i] = best
                moved += 1
        if moved == 0:
            return labels, sweep
    return labels, max_sweeps


def multiclass_fitness(V, weights, labels, n_clusters):
    """``F(Y)`` of a clustering, from the +1/-1 indicators of its clusters."""
    labels = np.asarray(labels)
    Y = np.where(labels[None, :] == np.arange(n_clusters)[:, None], 1.0, -1.0)
    return float(spectral_fitness(V, weights, Y).sum())


def best_moves(V, weights, labels, n_clusters, floors):
    """For each sample, the decrease of ``n F`` of its best allowed move
    (0 when none lowers F), from fitnesses recomputed from the labels."""
    labels = np.asarray(labels, dtype=np.intp)
    base = multiclass_fitness(V, weights, labels, n_clusters)
    n = labels.size
    gains = np.zeros(n)
    for i in range(n):
        p = labels[i]
        if not may_shrink(labels, p, n_clusters, floors):
            continue
        for q in range(n_clusters):
            if q == p:
                continue
            moved = labels.copy()
            moved[i] = q
            gains[i] = max(
                gains[i], n * (base - multiclass_fitness(V, weights, moved, n_clusters))
            )
    return gains
