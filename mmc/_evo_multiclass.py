"""Least-squares maximum margin clustering into k > 2 clusters.

The fitness of the two-cluster search (:mod:`mmc._evo_search`) extends to k
clusters with one indicator per cluster, ``y_p = +1`` on its samples and -1
elsewhere (Pahikkala, Airola, Gieseke and Kramer, 2012):

    F(Y) = sum_p (1 - (1/n) sum_j w_j (V'y_p)_j^2),

the sum of the binary fitnesses of the indicators on the basis
:class:`mmc._evo_basis.Basis`. A run starts from a clustering of the
kernel's space (kernel k-means: k-means on the kernel principal components
``V diag(sqrt(sigma))``, or on the samples themselves with the linear
kernel where that is better or cheaper, see ``_start_coordinates``) and
moves single samples to the cluster that lowers F most until none does
(``mmc._core._evo_multiclass.local_search``, O(k r) per sample and sweep;
the runs on the threads of the k-means starts unless ``n_jobs`` is given,
:func:`mmc._threads.restart_threads`).
The k-means starts of all runs are computed before the runs, side by side
on threads (:func:`mmc._threads.fit_threads`), and the space they need
(n x r) is freed before the local searches; starts that are one partition
(k-means runs often find the same clusters) are searched once
(:func:`distinct_starts`).

Every cluster keeps at least ``(1 - class_balance) n / k`` samples, the
bound of two clusters (``|n_1 - n_2| <= class_balance n``) for any k: F is
lowest for degenerate clusterings (one cluster of nearly every sample is
fitted well by the near-constant leading eigenvector), and the bound keeps
the search away from them. On the multiclass cases of the robustness suite
a fixed 0.03 (clusters of at least 97% of the mean size) gave EvoMMC a
mean error of 11.45%, against 14.72% with half the mean size and 14.82% with
a quarter, which do better on unbalanced blobs only
(``bench/studies/evo_multiclass.md``). The default ``"auto"``, when the
k-means clusters are clearly unequal (mmc/_balance.py), bounds the sizes as
CPM3C does: for every j, the j smallest clusters hold at least the share of
the j smallest k-means clusters, less ``0.03 j / k``
(:func:`mmc._balance.size_floors`). A floor on the smallest cluster alone,
set by the smallest k-means cluster, let the search shrink others to it: on
the ten digits (k-means' smallest cluster 90 samples of 1,797) two
clusters of 83 and 98 samples and two digits merged, 17-28 % error against
10-19 % at seeds 0-2 (``bench/studies/evo_floors.md``).
"""

import math

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from mmc._balance import floor_of, min_cluster_size, smallest_sums
from mmc._core._cpm3c import score_matrix
from mmc._core._evo import fitness
from mmc._core._evo_multiclass import local_search
from mmc._evo_search import RunResult
from mmc._kmeans import (
    first_near_minimum,
    nearest_centres,
    squared_distances,
    stable_kmeans,
)
from mmc._labelling import first_occurrence_order, warn_if_clusters_lost
from mmc._rows import row_kernel, warn
from mmc._seeds import draw_seeds
from mmc._threads import (
    best_of_restarts,
    fit_threads,
    map_on_threads,
    pass_products,
    raise_if_stopped,
    restart_threads,
)

# Lloyd iterations of the k-means start.
KMEANS_ITERATIONS = 300

# The shares of size_floors times n carry rounding; a floor within this of
# an integer is that integer.
FLOOR_ROUNDING = 1e-9


def kernel_coordinates(basis):
    """Kernel principal components ``V diag(sqrt(sigma))``: their inner
    products are the (numerically non-zero part of the) kernel matrix."""
    return basis.V * np.sqrt(basis.sigma)


def indicator_coordinates(V, labels, n_clusters):
    """``U[p] = V'y_p`` for the +1/-1 indicator of each cluster.

    Exact on the fixed-point basis whatever the BLAS (see
    :func:`mmc._evo_basis.fixed_point`), as the binary coordinates are.
    """
    Y = np.where(labels[None, :] == np.arange(n_clusters)[:, None], 1.0, -1.0)
    return np.ascontiguousarray(Y @ V)


def multiclass_fitness(basis, U):
    """F(Y) from the coordinates of the indicators.

    Each cluster's term depends on its indicator alone (its coordinates are
    exact, see :func:`indicator_coordinates`), and their sum is rounded
    once (``math.fsum``): a partition has one fitness whatever the
    numbering of its clusters, so copies of one clustering reached from
    different starts tie exactly and the first start wins.
    """
    n_samples = basis.V.shape[0]
    return math.fsum(fitness(basis.weights, u, n_samples) for u in U)


def enforce_min_size(labels, coordinates, centres, min_size):
    """Fill every cluster below ``min_size`` with its nearest samples.

    The samples of clusters above ``min_size`` nearest to the centre of a
    small cluster move into it, in order of distance (ties by index), until
    it reaches ``min_size``; the clusters are filled in order.
    """
    n_clusters = centres.shape[0]
    labels = labels.copy()
    sizes = np.bincount(labels, minlength=n_clusters)
    for p in range(n_clusters):
        if sizes[p] >= min_size:
            continue
        distances = squared_distances(coordinates, centres[p])
        for i in np.argsort(distances, kind="stable"):
            if sizes[p] == min_size:
                break
            q = labels[i]
            if q != p and sizes[q] > min_size:
                labels[i] = p
                sizes[q] -= 1
                sizes[p] += 1
    return labels


def search_floors(n_samples, n_clusters, class_balance, share_floors=None):
    """The floors of the search: the least total size of the j smallest
    clusters, for j = 1 .. k-1.

    ``share_floors`` (:func:`mmc._balance.size_floors` of ``"auto"`` on
    uneven k-means clusters) rounded up, else ``j m`` for the floor ``m``
    of :func:`mmc._balance.min_cluster_size` on every cluster.

    Returns
    -------
    floors : ndarray of shape (n_clusters - 1,), dtype=intp
    """
    steps = np.arange(1, n_clusters, dtype=np.intp)
    if share_floors is None:
        return steps * min_cluster_size(n_samples, n_clusters, class_balance)
    # Rounded up, but not a value that rounding pushed past an integer, nor
    # past the j smallest of the most even clusters, the most any j
    # clusters of n samples hold (``floor(j n / k)``; on a few samples the
    # 0.03 below the k-means shares is less than a sample).
    rounded = np.ceil(np.asarray(share_floors) - FLOOR_ROUNDING)
    most_even = steps * n_samples // n_clusters
    return np.minimum(np.maximum(rounded, steps), most_even).astype(np.intp)


def uniform_floor(floors):
    """The least size that meets ``floors`` when every cluster has it."""
    steps = np.arange(1, floors.size + 1)
    return int(np.max(-(-floors // steps)))


def kmeans_start(coordinates, n_clusters, floors, seed):
    """The clusters of a k-means run on ``coordinates`` seeded by ``seed``,
    the clusters too small for ``floors`` filled to the size that meets
    them (:func:`mmc._balance.floor_of`, :func:`enforce_min_size`)."""
    rng = np.random.RandomState(seed)
    centres = stable_kmeans(coordinates, n_clusters, rng, KMEANS_ITERATIONS)
    labels = nearest_centres(coordinates, centres)
    counts = np.bincount(labels, minlength=n_clusters)
    min_size = math.ceil(floor_of(counts, floors))
    return enforce_min_size(labels, coordinates, centres, min_size)


def random_start(n_samples, n_clusters, floors, rng):
    """Random clusters, each of at least the size that meets ``floors``,
    or, when k clusters of that size do not fit in the samples, of the most
    even sizes (``n // k`` or one more), whose j smallest hold the most
    samples any k clusters' do."""
    min_size = uniform_floor(floors)
    labels = rng.randint(n_clusters, size=n_samples)
    order = rng.permutation(n_samples)
    if min_size * n_clusters > n_samples:
        labels[order] = np.arange(n_samples) % n_clusters
        return labels
    # The first min_size * k samples of a random order fill every cluster.
    labels[order[: min_size * n_clusters]] = np.repeat(np.arange(n_clusters), min_size)
    return labels


def multiclass_run(basis, n_clusters, *, floors, start, seed, max_sweeps):
    """One local search from a start.

    Parameters
    ----------
    basis : Basis
        The kernel matrix, see :mod:`mmc._evo_basis`.

    n_clusters : int
        k, at least 3.

    floors : ndarray of shape (n_clusters - 1,), dtype=intp
        Least total size of the j smallest clusters (:func:`search_floors`).

    start : "random" or ndarray of shape (n_samples,)
        Random clusters, or given labels (such as a :func:`kmeans_start`).

    seed : int
        Seed of the start.

    max_sweeps : int
        Largest number of sweeps of the local search.

    Returns
    -------
    result : RunResult
        The labels (uint8), the coordinates ``U`` (k, r) recomputed from
        them, the fitness, the number of sweeps and the seed.
    """
    V = basis.V
    n_samples = V.shape[0]
    if isinstance(start, str):
        labels = random_start(
            n_samples, n_clusters, floors, np.random.RandomState(seed)
        )
    else:
        labels = np.asarray(start)
    raise_if_stopped()
    labels = labels.astype(np.uint8)
    U = indicator_coordinates(V, labels, n_clusters)
    sizes = np.bincount(labels, minlength=n_clusters).astype(np.intp)
    # A given start may hold smaller clusters: the floors it breaks are
    # lowered to its sizes, never below (its small clusters may grow).
    n_sweeps = local_search(
        V,
        basis.weights,
        labels,
        U,
        sizes,
        np.ascontiguousarray(np.minimum(floors, smallest_sums(sizes)), dtype=np.intp),
        max_sweeps,
    )
    if n_sweeps < 0:
        raise MemoryError("Could not allocate the scratch memory of the search.")
    # From scratch: no rounding accumulated over the moves.
    U = indicator_coordinates(V, labels, n_clusters)
    return RunResult(labels, U, multiclass_fitness(basis, U), n_sweeps, seed)


# Rounds of fitted_offsets that set aside the samples no offsets reproduce.
OFFSET_ROUNDS = 20

# The widest offsets give the samples that bind them the same slack (equal
# in exact arithmetic, not in rounding): slacks within this share of the
# predictions' scale of the smallest count as tied, and the first of them
# is set aside. By the smallest alone the choice followed the BLAS kernel
# that computed the basis (predictions 1e-12 apart): on the ten digits
# FastEvoMMC set aside sample 1542 on OpenBLAS's Haswell kernels and 732 on
# its Sandybridge kernels, and two labels differed.
OFFSET_TIE_RTOL = 1e-9


def fitted_offsets(decision, labels):
    """Offsets b of the clusters' least-squares predictions whose largest,
    ``argmax_p decision[i, p] - b[p]``, reproduces ``labels`` best.

    At a labelling that no single move improves, a sample of cluster p has
    ``decision[i, p] > decision[i, q]`` for every q whose move the size
    floors allow (a move from p to q lowers F exactly when
    ``decision[i, q] - decision[i, p]`` exceeds minus twice the sample's
    leverage); the floors hold samples in clusters whose predictions prefer
    another, and offsets restore the largest prediction, as the multipliers
    of the floors would. The offsets keep the widest margin
    (:func:`widest_offsets`). When no offsets reproduce every label (the
    floors, or samples that coincide across clusters), the sample the
    widest offsets get most wrong is set aside and the offsets solved again
    on the others, for at most ``OFFSET_ROUNDS`` rounds; the offsets of the
    round (or zeros) that reproduce the most labels are kept.

    Returns
    -------
    offsets : ndarray of shape (n_clusters,)
        Centred (they sum to zero); zeros when a cluster is empty.
    """
    n_clusters = decision.shape[1]
    rows = np.arange(labels.size)
    best = np.zeros(n_clusters)
    best_count = np.count_nonzero(np.argmax(decision, axis=1) == labels)
    kept = np.ones(labels.size, dtype=bool)
    tie_tol = OFFSET_TIE_RTOL * (1.0 + float(np.abs(decision).max()))
    for _ in range(OFFSET_ROUNDS):
        solved = widest_offsets(decision[kept], labels[kept], n_clusters)
        if solved is None:  # a cluster left without samples
            break
        offsets, delta = solved
        shifted = decision - offsets
        count = np.count_nonzero(np.argmax(shifted, axis=1) == labels)
        if count > best_count or (count == best_count and delta >= 0):
            best, best_count = offsets, count
        if delta >= 0:
            break
        # Set aside the sample these offsets get most wrong.
        own = shifted[rows, labels]
        shifted[rows, labels] = -np.inf
        slack = np.where(kept, own - shifted.max(axis=1), np.inf)
        kept[first_near_minimum(slack, tie_tol, axis=0)] = False
    return best


def widest_offsets(decision, labels, n_clusters):
    """The offsets of the widest margin, and the margin, or None when a
    cluster has no sample.

    The margin is the largest delta with ``decision[i, p] - b[p] -
    decision[i, q] + b[q] >= delta`` for every sample i of every cluster p
    and every q, a system of difference constraints ``b[p] - b[q] <= c[p,
    q] - delta``, ``c[p, q] = min_{i in p} decision[i, p] - decision[i,
    q]``: the smallest mean weight of a cycle of the constraints' graph
    (Karp, 1978). Its solutions form a convex set; from the shortest paths
    of every cluster to every other (Floyd-Warshall) each cluster r gives
    the two extreme solutions with ``b[r] = 0``, and b is the mean of their
    midpoints: with two clusters, the midpoint of the gap between their
    predictions. A negative margin: every label but those violated by at
    most its size. O(n k + k^3) time.
    """
    margins = np.full((n_clusters, n_clusters), np.inf)
    for p in range(n_clusters):
        rows = decision[labels == p]
        if rows.shape[0] == 0:
            return None
        margins[p] = (rows[:, [p]] - rows).min(axis=0)
    np.fill_diagonal(margins, np.inf)
    # The constraint b[p] - b[q] <= c[p, q] is an edge q -> p of weight
    # c[p, q]: weights[q, p].
    weights = margins.T
    # Karp: walks[m, v] is the lightest walk of m edges ending at v, from
    # any cluster; the smallest cycle mean is the smallest over v of the
    # largest over m of the mean weight of the walk's last k - m edges.
    walks = np.zeros((n_clusters + 1, n_clusters))
    for m in range(1, n_clusters + 1):
        walks[m] = (walks[m - 1][:, None] + weights).min(axis=0)
    steps = (n_clusters - np.arange(n_clusters))[:, None]
    delta = float(((walks[-1] - walks[:-1]) / steps).max(axis=0).min())
    paths = weights - delta
    np.fill_diagonal(paths, 0.0)
    for r in range(n_clusters):
        paths = np.minimum(paths, paths[:, [r]] + paths[[r], :])
    # With b[r] = 0 the largest solution is b = paths[r], the smallest
    # -paths[:, r]; each midpoint is centred before the mean.
    midpoints = (paths - paths.T) / 2.0
    midpoints -= midpoints.mean(axis=1, keepdims=True)
    return midpoints.mean(axis=0), delta


def distinct_starts(starts, n_clusters):
    """Number each array start of ``starts`` (seed -> start) by first
    occurrence, in place, and return the first seed of each distinct start,
    in order (every seed when the starts are names)."""
    first_seeds = {}
    for seed, start in starts.items():
        if isinstance(start, str):
            return list(starts)
        relabel = first_occurrence_order(start, n_clusters)[1]
        starts[seed] = relabel[start].astype(np.uint8)
        first_seeds.setdefault(starts[seed].tobytes(), seed)
    return list(first_seeds.values())


class _MulticlassEvoMixin:
    """The fit of EvoMMC and FastEvoMMC with more than two clusters."""

    def _start_coordinates(self, X, basis):
        """The space in which k-means finds the starts: kernel k-means, on
        the kernel principal components :func:`kernel_coordinates` of the
        basis (EvoMMC and FastEvoMMC override this for the linear
        kernel)."""
        return kernel_coordinates(basis)

    def _fit_clusters(
        self, X, basis, dual_coef, init_labels, random_state, identical, share_floors
    ):
        """Restarts of :func:`multiclass_run`; the lowest fitness wins.

        With ``identical`` samples every clustering of the same sizes has
        the same fitness: they all go to one cluster, with a warning, as
        with two clusters. ``share_floors`` are the floors of ``"auto"`` on
        uneven k-means clusters, or None (:func:`search_floors`).
        """
        name = type(self).__name__
        k = self.n_clusters
        floors = search_floors(basis.V.shape[0], k, self.class_balance_, share_floors)
        self.size_floors_ = floors
        n_runs = self.n_init if init_labels is None else 1
        seeds = draw_seeds(random_state, n_runs)
        start = self.init if init_labels is None else init_labels
        starts = dict.fromkeys(seeds, start)
        if isinstance(start, str) and start == "spectral" and not identical:
            # The k-means starts, in their space (n x r for the kernel
            # principal components), are computed first, side by side on
            # the threads KMeans would use (the same clusters on any number).
            coordinates = self._start_coordinates(X, basis)
            n_threads = fit_threads(len(seeds), pass_products(coordinates, k))
            labels = map_on_threads(
                lambda seed: kmeans_start(coordinates, k, floors, int(seed)),
                list(seeds),
                n_threads,
            )
            starts = dict(zip(seeds, labels))
            del coordinates
        # Runs from one partition end at one clustering: the local search
        # has no randomness, and its start is numbered by first occurrence
        # (runs of k-means that find the same clusters number them in any
        # order). Each partition is searched once, from its first seed,
        # which also wins the ties among its copies: the winner is that of
        # searching every copy.
        run_seeds = distinct_starts(starts, k)

        def run(seed):
            result = multiclass_run(
                basis,
                k,
                floors=floors,
                start=starts[seed],
                seed=int(seed),
                max_sweeps=self.max_generations,
            )
            if self.verbose:
                print(
                    f"[{name}] run with seed {seed}: fitness "
                    f"{result.objective:.6f} after {result.n_generations} sweeps"
                )
            return result

        if identical:
            labels = np.zeros(basis.V.shape[0], dtype=np.uint8)
            U = indicator_coordinates(basis.V, labels, k)
            best = RunResult(labels, U, multiclass_fitness(basis, U), 0, 0)
        else:
            # A sweep of the local search is a pass of the basis against
            # the k indicators.
            products = pass_products(basis.V, k)
            n_threads = restart_threads(self.n_jobs, len(run_seeds), products)
            best, _ = best_of_restarts(run, run_seeds, n_threads)
        if best.n_generations >= self.max_generations:
            warn(
                f"{name} stopped at max_generations={self.max_generations} sweeps "
                f"while samples were still moving; increase max_generations.",
                ConvergenceWarning,
            )
        self.fitness_ = best.objective
        self.objective_ = best.objective
        self.n_generations_ = int(best.n_generations)
        self.n_components_ = basis.V.shape[1]
        U = best.coordinates
        # By the row kernel, not BLAS: labels_ follow these scores, the same
        # on every CPU.
        decision = np.empty((basis.V.shape[0], k))
        weighted = np.ascontiguousarray(basis.weights[:, None] * U.T)
        row_kernel(basis.V, score_matrix)(weighted, np.zeros(k), decision)
        offsets = fitted_offsets(decision, best.labels.astype(np.intp))
        # labels_ are the clusters of the least-squares classifier, those
        # predict gives the training samples. The search's labelling differs
        # from them only where the fit cannot follow it: identical samples
        # that the size floors split (their rows of V are tied bitwise, so
        # their predictions are equal), a few samples the floors hold (1 of
        # 1,797 on the ten digits, bench/studies/predict_labels.md). The
        # offsets are then fitted again, to the classifier's own clusters:
        # the widest margin around them, where those of the search's
        # labelling leave a split group exactly on a boundary (a tie that
        # the rounding of predict would break either way).
        predicted = np.argmax(decision - offsets, axis=1)
        offsets = fitted_offsets(decision, predicted)
        predicted = np.argmax(decision - offsets, axis=1)
        order, relabel = first_occurrence_order(predicted, k)
        self.labels_ = relabel[predicted]
        self.dual_coef_ = np.column_stack([dual_coef(u) for u in U[order]])
        self.intercept_ = -offsets[order]
        warn_if_clusters_lost(name, self.labels_, k)
        return self
