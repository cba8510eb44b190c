"""Evolutionary least-squares maximum margin clustering (EvoMMC, FastEvoMMC).

The fitness of a labelling y is the optimal value of the regularised
least-squares problem ``F(y) = min_c (1/n)|y - Kc|^2 + reg c'Kc``; with the
spectral summary ``K = V diag(sigma) V'`` of the kernel matrix (exact for
EvoMMC, Nystroem for FastEvoMMC) it is ``1 - (1/n) sum_j w_j (V'y)_j^2`` with
``w_j = sigma_j / (sigma_j + n reg)`` (DESIGN.md section 4). The
(mu + lambda) evolution over labellings runs in ``mmc._core._evo``.
"""

import math
import warnings
from collections import namedtuple
from numbers import Integral, Real

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from sklearn.base import _fit_context
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.parallel import _get_threadpool_controller
from sklearn.utils.validation import check_is_fitted

from mmc._base import _BaseMMC, best_of_restarts
from mmc._core._evo import evolve
from mmc._init import kmeans_run
from mmc.kernels import KERNELS, kernel_matrix, nystroem, resolve_gamma

# Largest n x n kernel matrix EvoMMC builds (float64 bytes): 1 GiB, that is
# n_samples <= 11585. The eigendecomposition needs about three times as much
# and O(n^3) time; FastEvoMMC needs O(n_samples * n_components) instead.
MAX_KERNEL_BYTES = 1 << 30

_MAX_SEED = np.iinfo(np.int32).max

# FastEvoMMC's k-means landmarks: k-means++ seeding and this many Lloyd
# iterations on a random subsample of at most this many samples per landmark,
# so that choosing them costs O(r^2 d log r) whatever n (the kernel between
# the samples and the landmarks costs O(n r d)).
KMEANS_ITERATIONS = 3
KMEANS_SAMPLES_PER_LANDMARK = 10

RunResult = namedtuple(
    "RunResult", ["labels", "coordinates", "objective", "n_generations", "seed"]
)


class _Basis(namedtuple("_Basis", ["V", "weights", "sigma"])):
    """Spectral summary of a kernel matrix for a regularisation ``reg``.

    ``V`` (n_samples, n_components) has orthonormal columns spanning the
    numerical range of the kernel matrix ``K = V diag(sigma) V'``, and
    ``weights = sigma / (sigma + n reg)``.
    """


def spectral_basis(V, sigma, reg):
    """Keep the numerically non-zero part of ``V diag(sigma) V'``.

    Eigenvalues below ``n * eps * max(sigma)`` are rounding noise of the
    kernel matrix (they may even be negative); their components are dropped,
    which changes no fitness by more than that relative amount but makes
    every flip cost O(rank) instead of O(n).

    Returns
    -------
    basis : _Basis
        Components sorted by decreasing eigenvalue, V C-contiguous.
    """
    n_samples = V.shape[0]
    sigma = np.asarray(sigma, dtype=np.float64)
    top = float(sigma.max(initial=0.0))
    keep = sigma > max(n_samples, 1) * np.finfo(np.float64).eps * top
    order = np.flatnonzero(keep)[np.argsort(-sigma[keep], kind="stable")]
    sigma = sigma[order]
    V = np.ascontiguousarray(V[:, order], dtype=np.float64)
    weights = sigma / (sigma + n_samples * reg)
    return _Basis(V, weights, sigma)


def balance_bound(class_balance, n_samples):
    """Largest allowed ``|sum y|`` (``l`` of the paper) for ``class_balance``.

    ``sum y`` has the parity of n, so an odd n allows at least 1.
    """
    return max(int(math.floor(class_balance * n_samples + 1e-9)), n_samples % 2)


def random_balanced_labels(n_samples, random_state):
    """A random labelling with ``|sum y| <= 1`` (int8, +1 / -1)."""
    y = np.full(n_samples, -1, dtype=np.int8)
    y[random_state.permutation(n_samples)[: (n_samples + 1) // 2]] = 1
    return y


def median_split(values):
    n_samples = values.shape[0]
    y = np.full(n_samples, -1, dtype=np.int8)
    y[np.argsort(values, kind="stable")[n_samples // 2 :]] = 1
    return y


def balanced_signs(scores, bound):
    """The labelling maximising ``y.scores`` under ``|sum y| <= bound``.

    ``sign(scores)`` if it is balanced enough; otherwise the samples with the
    largest scores are labelled +1, as many as the bound allows.
    """
    n_samples = scores.shape[0]
    y = np.where(scores > 0, 1, -1).astype(np.int8)
    total = int(y.sum(dtype=np.int64))
    if abs(total) <= bound:
        return y
    if total > 0:
        n_positive = (n_samples + bound) // 2
    else:
        n_positive = -((bound - n_samples) // 2)  # ceil((n - bound) / 2)
    y[:] = -1
    y[np.argsort(-scores, kind="stable")[:n_positive]] = 1
    return y


def ascend(basis, Y, bound, max_steps=50):
    """Lower the fitness of labellings by steps ``y <- balanced_signs(G y)``.

    With ``G = V diag(w) V'`` the fitness is ``1 - y'Gy / n``, and ``y'Gy`` is
    convex: the labelling that maximises its linearisation ``y'(G y_old)``
    under the balance bound never has a worse fitness, so each step descends,
    and the steps stop at a labelling that is its own best response. Large
    moves, many labels at once: the evolution then fine-tunes.

    ``Y`` is one labelling (n_samples,) or several (k, n_samples), stepped
    together: a step costs two products with V, O(k n m), which read V once
    for all k.
    """
    V, weights = basis.V, basis.weights
    Y = np.array(Y, dtype=np.int8)
    single = Y.ndim == 1
    Y = np.atleast_2d(Y)
    active = np.arange(Y.shape[0])
    for _ in range(max_steps):
        if active.size == 0:
            break
        scores = ((Y[active].astype(np.float64) @ V) * weights) @ V.T
        moved = []
        for k, i in enumerate(active):
            new = balanced_signs(scores[k], bound)
            if not np.array_equal(new, Y[i]):
                Y[i] = new
                moved.append(i)
        active = np.array(moved, dtype=np.intp)
    return Y[0] if single else Y


def initial_population(basis, size, rng, method, bound):
    """Initial labellings of one run, each with ``|sum y| <= bound``.

    ``"random"``: random balanced labellings (the paper). ``"spectral"``:
    median splits of random functions of the kernel's space (Gaussian
    coordinates on its eigenvectors, scaled by the square roots of the
    eigenvalues, so that the leading components dominate), each improved by
    :func:`ascend`.
    """
    n_samples = basis.V.shape[0]
    if method == "random":
        return np.stack([random_balanced_labels(n_samples, rng) for _ in range(size)])
    scale = np.sqrt(basis.sigma)
    directions = rng.standard_normal((basis.V.shape[1], size)) * scale[:, None]
    P = basis.V @ directions
    starts = np.stack([median_split(P[:, k]) for k in range(size)])
    return ascend(basis, starts, bound)


def evolution_run(basis, population, *, n_offspring, bound, first_size,
                  max_generations, patience, seed):  # fmt: skip
    """One (mu + lambda) run from an initial population.

    Parameters
    ----------
    basis : _Basis
        The kernel matrix, see :func:`spectral_basis`.

    population : ndarray of shape (mu, n_samples), dtype=int8
        Initial labellings, each with ``|sum y| <= bound``; overwritten.

    n_offspring, bound, first_size, max_generations, patience
        See :func:`mmc._core._evo.evolve`.

    seed : int
        Seed of the mutations.

    Returns
    -------
    result : RunResult
        The best individual, its coordinates ``V'y`` recomputed from scratch
        (no rounding accumulated over the flips) and its fitness.
    """
    V, weights = basis.V, basis.weights
    n_samples = V.shape[0]
    U = np.ascontiguousarray(population @ V, dtype=np.float64)
    F = 1.0 - (U * U) @ weights / n_samples
    n_generations = evolve(
        V, weights, population, U, F, n_offspring, bound, first_size,
        max_generations, patience, 0.0, seed,
    )  # fmt: skip
    if n_generations < 0:
        raise MemoryError("Could not allocate the scratch memory of the evolution.")
    best = int(np.argmin(F))
    labels = population[best].copy()
    u = labels @ V
    objective = 1.0 - float((u * u) @ weights) / n_samples
    return RunResult(labels, u, objective, n_generations, seed)


def fitted_threshold(decision, labels):
    """Threshold b on the least-squares predictions that best reproduces labels.

    Returns the midpoint of the widest gap among the thresholds that make
    ``sign(decision - b)`` disagree with the +1 / -1 ``labels`` on the fewest
    samples. At a labelling that no single flip or swap improves the
    predictions of the two clusters do not overlap, and the labels are
    reproduced exactly.
    """
    order = np.argsort(decision, kind="stable")
    f = decision[order]
    positive = labels[order] > 0
    # Threshold between f[k-1] and f[k]: samples before it are predicted -1.
    # Errors = positives before + negatives from k on.
    pos_before = np.concatenate([[0], np.cumsum(positive)])
    neg_after = np.concatenate([np.cumsum((~positive)[::-1])[::-1], [0]])
    errors = pos_before + neg_after
    lower = np.concatenate([[f[0] - 1.0], f])
    upper = np.concatenate([f, [f[-1] + 1.0]])
    candidates = np.flatnonzero(errors == errors.min())
    k = candidates[np.argmax(upper[candidates] - lower[candidates])]
    return 0.5 * (lower[k] + upper[k])


def repair_balance(y, bound, random_state):
    """Flip random samples of the majority label until ``|sum y| <= bound``."""
    y = y.copy()
    excess = int(y.sum(dtype=np.int64))
    if abs(excess) <= bound:
        return y
    majority = 1 if excess > 0 else -1
    n_flips = (abs(excess) - bound + 1) // 2
    candidates = np.flatnonzero(y == majority)
    y[random_state.choice(candidates, n_flips, replace=False)] = -majority
    return y


def kmeans_landmarks(X, n_landmarks, random_state):
    """Centres of a short k-means run, as landmarks of a Nystroem map.

    k-means++ seeding followed by ``KMEANS_ITERATIONS`` Lloyd iterations
    (:class:`sklearn.cluster.KMeans` with one initialisation) on a random
    subsample of ``min(n_samples, KMEANS_SAMPLES_PER_LANDMARK * n_landmarks)``
    samples: O(r^2 d log r) time for r landmarks and d features (the greedy
    k-means++ seeding tries ``2 + log r`` candidates per centre), whatever
    n_samples.

    Parameters
    ----------
    X : {ndarray, CSR matrix} of shape (n_samples, n_features)
        Validated training samples.

    n_landmarks : int
        Number of centres, at most n_samples.

    random_state : numpy.random.RandomState
        Draws the subsample and seeds k-means.

    Returns
    -------
    centres : ndarray of shape (n_landmarks, n_features)
        Dense, in the dtype of X. Coincident centres (data with fewer
        distinct points than landmarks) are kept: the Nystroem map treats
        them as one.
    """
    n_samples = X.shape[0]
    n_subsample = min(n_samples, KMEANS_SAMPLES_PER_LANDMARK * n_landmarks)
    if n_subsample < n_samples:
        X = X[np.sort(random_state.choice(n_samples, n_subsample, replace=False))]
    # One thread: KMeans merges the per-thread sums in no fixed order, and the
    # search is sensitive to the last bits of the kernel basis.
    with _get_threadpool_controller().limit(limits=1, user_api="openmp"):
        km = kmeans_run(X, n_landmarks, random_state, max_iter=KMEANS_ITERATIONS)
    return np.ascontiguousarray(km.cluster_centers_)


def _rows_identical(X):
    if sp.issparse(X):
        return bool((X.max(axis=0) != X.min(axis=0)).nnz == 0)
    return bool((X.max(axis=0) == X.min(axis=0)).all())


class _BaseEvoMMC(_BaseMMC):
    """Shared fit of EvoMMC and FastEvoMMC.

    Subclasses implement ``_fit_basis(X, gamma, random_state)``, returning a
    :class:`_Basis` of the (exact or approximate) kernel matrix, and
    ``_set_predictor(X, basis, u)``, which stores the model whose least-squares
    predictions ``_predictions(X)`` returns, for the labelling with
    coordinates ``u = V'y``.
    """

    _parameter_constraints: dict = {
        "reg": [Interval(Real, 0, None, closed="neither")],
        "kernel": [StrOptions(set(KERNELS))],
        "gamma": [StrOptions({"scale"}), Interval(Real, 0, None, closed="neither")],
        "degree": [Interval(Integral, 1, None, closed="left")],
        "coef0": [Interval(Real, None, None, closed="neither")],
        "class_balance": [Interval(Real, 0, 1, closed="both")],
        "population_size": [Interval(Integral, 1, None, closed="left")],
        "offspring": [Interval(Integral, 1, None, closed="left")],
        "max_generations": [Interval(Integral, 1, None, closed="left")],
        "patience": [Interval(Integral, 1, None, closed="left")],
        "init": [StrOptions({"spectral", "random"}), "array-like"],
        "n_init": _BaseMMC._parameter_constraints["n_init"],
        "random_state": _BaseMMC._parameter_constraints["random_state"],
        "n_jobs": _BaseMMC._parameter_constraints["n_jobs"],
        "verbose": _BaseMMC._parameter_constraints["verbose"],
    }

    # Mutation size schedule s_t = max(1, first_size // (t + 1)); the paper
    # has first_size = n, for random starts.
    _first_size = "n"

    def _kernel_params(self, gamma):
        return {
            "kernel": self.kernel,
            "gamma": gamma,
            "degree": self.degree,
            "coef0": self.coef0,
        }

    def _fit(self, X):
        # One BLAS thread for the whole fit: the search is sensitive to the
        # last bits of the kernel's eigenvectors, which threaded BLAS rounds
        # differently with the number of threads (measured: the mean digit
        # pair error moved from 0.75% to 0.93% with two threads); this way
        # the result does not depend on the machine. Restarts still run on
        # threads with n_jobs.
        with _get_threadpool_controller().limit(limits=1, user_api="blas"):
            return self._fit_single_blas_thread(X)

    def _fit_single_blas_thread(self, X):
        name = type(self).__name__
        X = self._validate_X(X, reset=True)
        n_samples = X.shape[0]
        self._check_params_vs_input(n_samples)
        random_state = check_random_state(self.random_state)
        init_labels = None
        if not isinstance(self.init, str):
            init_labels = self._check_init_labels(n_samples)
            if self.n_init != 1:
                warnings.warn(
                    f"Explicit initial labels given in init; starting from them "
                    f"alone instead of n_init={self.n_init} runs.",
                    RuntimeWarning,
                    stacklevel=5,
                )
        gamma = resolve_gamma(X, self.gamma) if self.kernel != "linear" else 1.0
        self.gamma_ = gamma
        basis = self._fit_basis(X, gamma, random_state)
        bound = balance_bound(self.class_balance, n_samples)
        # Spectral starts are local optima of large moves already: the
        # evolution only fine-tunes them, by single flips (or swaps).
        random_starts = isinstance(self.init, str) and self.init == "random"
        if random_starts and self._first_size == "n":
            first_size = n_samples
        else:
            first_size = 1 if self._first_size == "n" else int(self._first_size)

        def run(seeds):
            init_seed, seed = seeds
            rng = np.random.RandomState(init_seed)
            if init_labels is None:
                population = initial_population(
                    basis, self.population_size, rng, self.init, bound
                )
            else:
                start = np.where(init_labels == 1, 1, -1).astype(np.int8)
                start = repair_balance(start, bound, rng)
                population = np.tile(start, (self.population_size, 1))
            result = evolution_run(
                basis,
                population,
                n_offspring=self.offspring,
                bound=bound,
                first_size=first_size,
                max_generations=self.max_generations,
                patience=self.patience,
                seed=int(seed),
            )
            if self.verbose:
                print(
                    f"[{name}] run with seed {seed}: fitness {result.objective:.6f} "
                    f"after {result.n_generations} generations"
                )
            return result

        if _rows_identical(X):
            # Every labelling with the same balance has the same fitness:
            # there is nothing to split.
            labels = -np.ones(n_samples, dtype=np.int8)
            u = labels @ basis.V
            best = RunResult(
                labels, u, 1.0 - float((u * u) @ basis.weights) / n_samples, 0, 0
            )
        else:
            n_runs = self.n_init if init_labels is None else 1
            seeds = random_state.randint(_MAX_SEED, size=(n_runs, 2))
            best, _ = best_of_restarts(run, list(seeds), self.n_jobs)
            if best.n_generations >= self.max_generations:
                warnings.warn(
                    f"{name} stopped at max_generations={self.max_generations} "
                    f"while the fitness was still improving; increase "
                    f"max_generations.",
                    ConvergenceWarning,
                    stacklevel=5,
                )
        # The fitness is symmetric in y -> -y; name the clusters so that the
        # first sample is in cluster 0.
        orientation = -1 if best.labels[0] > 0 else 1
        labels = orientation * best.labels.astype(np.intp)
        u = orientation * best.coordinates
        self.labels_ = (labels > 0).astype(np.intp)
        self.fitness_ = best.objective
        self.objective_ = best.objective
        self.n_generations_ = int(best.n_generations)
        self.n_components_ = basis.V.shape[1]
        self._set_predictor(X, basis, u)
        decision = basis.V @ (basis.weights * u)
        self.intercept_ = float(-fitted_threshold(decision, labels))
        if np.unique(self.labels_).size < 2:
            warnings.warn(
                f"{name} put every sample in one cluster: the data has no "
                "direction along which it splits (all samples are identical).",
                ConvergenceWarning,
                stacklevel=5,
            )
        return self

    def _check_params_vs_input(self, n_samples):
        pass

    def decision_function(self, X):
        """Least-squares prediction of the labelling, minus a threshold.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        decision : ndarray of shape (n_samples,)
            ``f(x) + intercept_``, where f is the regularised least-squares fit
            of the labels ``2 * labels_ - 1``; positive values belong to
            cluster 1.
        """
        check_is_fitted(self)
        X = self._validate_X(X, reset=False)
        return self._predictions(X) + self.intercept_

    def predict(self, X):
        """Assign samples to the cluster whose label the fit predicts.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        labels : ndarray of shape (n_samples,)
            0 or 1 for each sample.
        """
        return (self.decision_function(X) > 0).astype(np.intp)


_COMMON_PARAMETERS = """
    reg : float, default={reg}
        Regularisation ``lambda`` of the least-squares problem, > 0.

    kernel : {{"rbf", "linear", "poly"}}, default="rbf"
        Kernel function (see :mod:`mmc.kernels`).

    gamma : "scale" or float, default="scale"
        Coefficient of the rbf and poly kernels; ``"scale"`` is
        ``1 / (n_features * X.var())``, taken from the data as in
        :class:`sklearn.svm.SVC`.

    degree : int, default=3
        Degree of the poly kernel.

    coef0 : float, default=0.0
        Constant term of the poly kernel.

    class_balance : float, default={class_balance}
        Bound on ``|mean_i y_i|``: every labelling the search visits has
        ``|sum_i y_i| <= class_balance * n_samples`` (the paper's ``l``).

    population_size : int, default={population_size}
        Number of individuals kept from one generation to the next (mu).

    offspring : int, default={offspring}
        Number of children per generation (lambda).

    max_generations : int, default={max_generations}
        Maximum number of generations of one run.

    patience : int, default={patience}
        A run stops after this many generations without a better fitness.

    init : {{"spectral", "random"}} or array-like of shape (n_samples,), \
            default="spectral"
        Initial population of each run. ``"spectral"``: median splits of
        random functions of the kernel's leading eigenvectors, each improved
        by large moves ``y <- sign(G y)`` (within the class balance) that
        never worsen the fitness; the evolution then fine-tunes them with
        single flips. ``"random"``: random balanced labellings, mutated with
        the paper's schedule of ``max(1, n / (t + 1))`` flips at generation
        t. An array gives one labelling (two distinct values; its balance is
        repaired by random flips if needed, and ``n_init`` is then ignored),
        fine-tuned by single flips.

    n_init : int, default={n_init}
        Number of independent runs; the run with the lowest fitness wins.

    random_state : int, RandomState instance or None, default=None
        Seeds the initial populations and the mutations.

    n_jobs : int, default=None
        Number of runs executed in parallel on threads (the evolution releases
        the GIL); the result does not depend on it.

    verbose : int, default=0
        Print one line per run if positive.
"""

_COMMON_ATTRIBUTES = """
    labels_ : ndarray of shape (n_samples,)
        Cluster of each training sample, 0 or 1: the best labelling found
        (the first sample is in cluster 0).

    fitness_ : float
        Fitness of ``labels_``: the optimal value of the regularised
        least-squares problem (lower is better, in [0, 1]).

    objective_ : float
        Same as ``fitness_`` (the name the other estimators use).

    n_generations_ : int
        Number of generations of the winning run.

    n_components_ : int
        Rank of the (exact or approximate) kernel matrix used.

    gamma_ : float
        The kernel coefficient used.

    intercept_ : float
        Threshold subtracted from the least-squares predictions in
        ``decision_function``: the one that best reproduces ``labels_`` on
        the training samples.

    n_features_in_ : int
        Number of features seen during fit.
"""


class EvoMMC(_BaseEvoMMC):
    """Evolutionary least-squares maximum margin clustering into two clusters.

    The hinge loss of maximum margin clustering is replaced by the squared
    loss, and a (mu + lambda) evolution strategy searches the labellings
    ``y in {-1, +1}^n`` with ``|sum y| <= class_balance * n`` for the lowest
    fitness::

        F(y) = min_c (1/n) |y - K c|^2 + reg c'K c,

    the regularised least-squares fit of y by functions of the kernel's
    space (Gieseke et al., 2009). With the eigendecomposition
    ``K = V diag(sigma) V'`` (O(n^3) once), ``F(y) = 1 - (1/n) sum_j
    sigma_j / (sigma_j + n reg) (V'y)_j^2``: keeping ``u = V'y`` for each
    individual, a mutation of s labels costs O(s m) and its fitness O(m),
    where m <= n is the numerical rank of K.

    Each generation draws ``offspring`` children of random parents by
    flipping s random labels; a flip that would break the class balance is
    paired with the flip of a sample of the opposite label. The
    ``population_size`` best of parents and children survive. A run stops
    after ``patience`` generations without improvement; of ``n_init`` runs,
    the one with the lowest fitness wins (never chosen by labels, unlike the
    paper).

    **Starts.** The paper starts from random labellings and mutates
    ``s_t = max(1, n / (t + 1))`` labels at generation t (``init="random"``).
    From random starts the search ends in poor local optima on most data:
    on 1 vs 8 of the digits its best labelling has a fitness 2 to 5 times
    that of the local optimum next to the digits. The default
    (``init="spectral"``) starts from median splits of random functions of
    the kernel's leading eigenvectors, each improved by steps
    ``y <- sign(G y)`` with ``G = V diag(w) V'`` (kept within the class
    balance), which never worsen the fitness since ``y'Gy`` is convex; the
    evolution then fine-tunes with ``s = 1``. On the 45 digit pairs of
    ``load_digits / 16`` this lowers the mean error from 2.8% to 0.75%; the
    defaults (``gamma="scale"``, ``reg=1e-3``, spectral starts) were chosen
    there by measurement (``bench/evommc.md``), never with labels inside
    the library. The paper's kernel width, from the range of the data, was
    measured worse than ``gamma="scale"``.

    EvoMMC builds the n x n kernel matrix: it refuses data whose kernel matrix
    would exceed ``mmc._evo.MAX_KERNEL_BYTES`` (1 GiB of float64, about 11500
    samples) with an error pointing to :class:`FastEvoMMC`, whose memory
    grows as ``n_samples * n_components``.

    Parameters
    ----------
    {parameters}
    Attributes
    ----------
    {attributes}
    X_fit_ : ndarray or sparse matrix of shape (n_samples, n_features)
        Training samples, kept for the kernel expansion of ``predict``.

    dual_coef_ : ndarray of shape (n_samples,)
        Coefficients c of the least-squares fit ``f(x) = sum_i c_i k(x_i, x)``.

    See Also
    --------
    FastEvoMMC : The same search on a Nystroem approximation of the kernel,
        for large data.

    References
    ----------
    F. Gieseke, T. Pahikkala and O. Kramer. Fast evolutionary maximum margin
    clustering. International Conference on Machine Learning, 2009.

    Examples
    --------
    >>> import numpy as np
    >>> from mmc import EvoMMC
    >>> X = np.array([[0.0, 0.1], [0.2, 0.0], [0.1, 0.2],
    ...               [3.0, 3.1], [3.2, 3.0], [3.1, 3.2]])
    >>> est = EvoMMC(random_state=0).fit(X)
    >>> est.labels_.tolist()
    [0, 0, 0, 1, 1, 1]
    >>> est.predict([[0.1, 0.0], [3.0, 3.0]]).tolist()
    [0, 1]
    """

    def __init__(
        self,
        reg=1e-3,
        kernel="rbf",
        gamma="scale",
        degree=3,
        coef0=0.0,
        class_balance=0.03,
        population_size=10,
        offspring=10,
        max_generations=1_000_000,
        patience=1000,
        init="spectral",
        n_init=10,
        random_state=None,
        n_jobs=None,
        verbose=0,
    ):
        self.reg = reg
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.class_balance = class_balance
        self.population_size = population_size
        self.offspring = offspring
        self.max_generations = max_generations
        self.patience = patience
        self.init = init
        self.n_init = n_init
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Cluster the samples into two clusters.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training samples.

        y : Ignored
            Not used, present for API consistency.

        Returns
        -------
        self : EvoMMC
            The fitted estimator.
        """
        return self._fit(X)

    def _check_params_vs_input(self, n_samples):
        size = 8 * n_samples * n_samples
        if size > MAX_KERNEL_BYTES:
            raise ValueError(
                f"EvoMMC needs the {n_samples} x {n_samples} kernel matrix "
                f"({size / 2**30:.1f} GiB), more than its limit of "
                f"{MAX_KERNEL_BYTES / 2**30:.1f} GiB (mmc._evo.MAX_KERNEL_BYTES); "
                "use FastEvoMMC, whose memory grows as n_samples * n_components."
            )

    def _fit_basis(self, X, gamma, random_state):
        K = kernel_matrix(X, **self._kernel_params(gamma))
        K = np.asarray(K, dtype=np.float64)
        sigma, V = scipy.linalg.eigh(K, overwrite_a=True, check_finite=False)
        return spectral_basis(V, sigma, self.reg)

    def _set_predictor(self, X, basis, u):
        n_samples = basis.V.shape[0]
        self.X_fit_ = X
        self.dual_coef_ = basis.V @ (u / (basis.sigma + n_samples * self.reg))

    def _predictions(self, X):
        K = kernel_matrix(X, self.X_fit_, **self._kernel_params(self.gamma_))
        return K @ self.dual_coef_


class FastEvoMMC(_BaseEvoMMC):
    """EvoMMC on a Nystroem approximation of the kernel matrix, for large data.

    The kernel functions are restricted to ``n_components`` landmarks R (the
    paper's subset of regressors, with points of the input space that need
    not be samples)::

        F(y) = min_c (1/n) |y - K_nR c|^2 + reg c'K_RR c.

    This is ridge regression on the Nystroem features ``L = K_nR
    K_RR^{-1/2}``; with the thin SVD ``L = V diag(s) W'`` (O(n r^2) once),
    ``F(y) = 1 - (1/n) sum_j s_j^2 / (s_j^2 + n reg) (V'y)_j^2``, so a
    mutation of s labels costs O(s r) and memory is O(n r). The search is
    that of :class:`EvoMMC` (see there).

    **Landmarks.** The paper draws R at random from the samples
    (``landmarks="random"``). By default (``landmarks="kmeans"``) the
    landmarks are the centres of a short k-means run, which approximate the
    kernel matrix better with the same r (Zhang, Tsang and Kwok, 2008):
    k-means++ seeding and ``mmc._evo.KMEANS_ITERATIONS = 3`` Lloyd
    iterations on a random subsample of at most
    ``mmc._evo.KMEANS_SAMPLES_PER_LANDMARK = 10`` samples per landmark, so
    O(r^2 d log r) time whatever n (6 s of a 20 s fit at n = 70000,
    d = 784, r = 700). On the 45 digit pairs of ``load_digits / 16`` with
    ``n_components=0.1`` (about 36 landmarks) this lowers the mean error
    from 1.16% to 0.80% (EvoMMC: 0.75%) and the error on 3v8 from 4.20% to
    0.00%; over ten seeds, the pairs more than a point worse than EvoMMC
    fall from 5.6 to 1.7 per seed (``bench/evommc.md``). A rank-r kernel
    still drops the components of the exact one beyond r, which are not
    negligible there: on 7v9 the exact kernel truncated to its 36 leading
    eigenvectors gives 6.1% against EvoMMC's 0.8%, whatever the landmarks.

    Parameters
    ----------
    n_components : int, float or None, default=None
        Number of landmarks r: an int, a fraction of n_samples in (0, 1]
        (rounded up), or None for ``min(n_samples, 300)``. With r =
        n_samples every sample is a landmark and the kernel is exact.

    landmarks : {"kmeans", "random"}, default="kmeans"
        How the landmarks are chosen when r < n_samples: ``"kmeans"``, the
        centres of a short k-means run on (a subsample of) the data, dense
        even for sparse X; ``"random"``, samples drawn uniformly without
        replacement (the paper).

    {parameters}
    Attributes
    ----------
    {attributes}
    landmarks_ : ndarray of shape (n_components,) or None
        Indices of the training samples used as landmarks; None when they
        are k-means centres.

    X_landmarks_ : ndarray or sparse matrix of shape (n_components, n_features)
        The landmarks, kept for ``predict``: the k-means centres (a dense
        array, also for sparse X) or the samples drawn.

    dual_coef_ : ndarray of shape (n_components,)
        Coefficients c of the least-squares fit ``f(x) = sum_{i in R} c_i
        k(x_i, x)``.

    See Also
    --------
    EvoMMC : The same search on the exact kernel matrix.

    References
    ----------
    F. Gieseke, T. Pahikkala and O. Kramer. Fast evolutionary maximum margin
    clustering. International Conference on Machine Learning, 2009.

    K. Zhang, I. W. Tsang and J. T. Kwok. Improved Nystroem low-rank
    approximation and error analysis. International Conference on Machine
    Learning, 2008.

    Examples
    --------
    >>> import numpy as np
    >>> from mmc import FastEvoMMC
    >>> X = np.array([[0.0, 0.1], [0.2, 0.0], [0.1, 0.2],
    ...               [3.0, 3.1], [3.2, 3.0], [3.1, 3.2]])
    >>> est = FastEvoMMC(n_components=4, random_state=0).fit(X)
    >>> est.labels_.tolist()
    [0, 0, 0, 1, 1, 1]
    """

    _parameter_constraints: dict = {
        **_BaseEvoMMC._parameter_constraints,
        "n_components": [
            Interval(Integral, 1, None, closed="left"),
            Interval(Real, 0, 1, closed="right"),
            None,
        ],
        "landmarks": [StrOptions({"kmeans", "random"})],
    }

    def __init__(
        self,
        n_components=None,
        landmarks="kmeans",
        reg=1e-3,
        kernel="rbf",
        gamma="scale",
        degree=3,
        coef0=0.0,
        class_balance=0.03,
        population_size=10,
        offspring=10,
        max_generations=1_000_000,
        patience=1000,
        init="spectral",
        n_init=10,
        random_state=None,
        n_jobs=None,
        verbose=0,
    ):
        self.n_components = n_components
        self.landmarks = landmarks
        self.reg = reg
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.class_balance = class_balance
        self.population_size = population_size
        self.offspring = offspring
        self.max_generations = max_generations
        self.patience = patience
        self.init = init
        self.n_init = n_init
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Cluster the samples into two clusters.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training samples.

        y : Ignored
            Not used, present for API consistency.

        Returns
        -------
        self : FastEvoMMC
            The fitted estimator.
        """
        return self._fit(X)

    def _n_landmarks(self, n_samples):
        r = self.n_components
        if r is None:
            return min(n_samples, 300)
        if isinstance(r, Integral):
            return int(r)
        return max(1, math.ceil(r * n_samples))

    def _check_params_vs_input(self, n_samples):
        r = self._n_landmarks(n_samples)
        if r > n_samples:
            raise ValueError(
                f"n_components={self.n_components} landmarks cannot be drawn "
                f"from n_samples={n_samples} samples; use at most {n_samples}."
            )

    def _fit_basis(self, X, gamma, random_state):
        n_samples = X.shape[0]
        r = self._n_landmarks(n_samples)
        seed = random_state.randint(_MAX_SEED)
        if self.landmarks == "kmeans" and r < n_samples:
            centres = kmeans_landmarks(X, r, np.random.RandomState(seed))
            # Every centre is a landmark (in the order of a permutation).
            feature_map = nystroem(
                centres, r, random_state=seed, **self._kernel_params(gamma)
            )
            self.landmarks_ = None
        else:
            # Samples drawn at random (all of them when r = n_samples).
            feature_map = nystroem(
                X, r, random_state=seed, **self._kernel_params(gamma)
            )
            self.landmarks_ = feature_map.component_indices_
        self.X_landmarks_ = feature_map.components_
        self._normalization = feature_map.normalization_
        L = np.asarray(feature_map.transform(X), dtype=np.float64)
        # L = V S W': the Nystroem kernel matrix is L L' = V S^2 V'. S^2 and W
        # come from the r x r Gram matrix L'L = W S^2 W' (one BLAS product,
        # O(n r^2), several times faster than a thin SVD of L), then
        # V = L W S^-1 on the components with S^2 above 1e-10 of the largest:
        # their columns are orthonormal to about 1e-6 or better, and the
        # weights S^2 / (S^2 + n reg) of the others are negligible.
        s2, W = scipy.linalg.eigh(L.T @ L, check_finite=False)
        order = np.argsort(-s2, kind="stable")
        s2, W = s2[order], W[:, order]
        keep = s2 > 1e-10 * max(float(s2[0]), 0.0)
        s2, W = s2[keep], W[:, keep]
        V = L @ (W / np.sqrt(s2))
        del L
        basis = spectral_basis(V, s2, self.reg)
        # spectral_basis keeps the (decreasing) order and may drop a tail.
        self._right = W.T
        return basis

    def _set_predictor(self, X, basis, u):
        n_samples = basis.V.shape[0]
        # Ridge solution on the Nystroem features, beta = W diag(s / (s^2 +
        # n reg)) V'y over the kept components, then c = K_RR^{-1/2} beta on
        # the landmarks. The singular values are sorted decreasingly by both
        # the SVD and spectral_basis, so the kept components are the first.
        m = basis.V.shape[1]
        s = np.sqrt(basis.sigma)
        W = self._right[:m].T
        beta = W @ (s / (basis.sigma + n_samples * self.reg) * u)
        self.dual_coef_ = self._normalization.T @ beta
        del self._right, self._normalization

    def _predictions(self, X):
        K = kernel_matrix(X, self.X_landmarks_, **self._kernel_params(self.gamma_))
        return K @ self.dual_coef_


def _fill_docstring(cls, **defaults):
    parameters = _COMMON_PARAMETERS.format(**defaults).strip()
    cls.__doc__ = cls.__doc__.replace("{parameters}", parameters).replace(
        "{attributes}", _COMMON_ATTRIBUTES.strip()
    )


_fill_docstring(
    EvoMMC, reg="1e-3", class_balance=0.03, population_size=10, offspring=10,
    max_generations="1_000_000", patience=1000, n_init=10,
)  # fmt: skip
_fill_docstring(
    FastEvoMMC, reg="1e-3", class_balance=0.03, population_size=10, offspring=10,
    max_generations="1_000_000", patience=1000, n_init=10,
)  # fmt: skip
