"""Evolutionary least-squares maximum margin clustering (EvoMMC, FastEvoMMC).

The estimators; their shared fit is in :mod:`mmc._evo_base`. The fitness
of a labelling and the basis of the kernel matrix it is computed on are in
:mod:`mmc._evo_basis`, the evolutionary search in :mod:`mmc._evo_search`,
its loop in ``mmc._core._evo``.
"""

import functools
import math
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import _fit_context
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_array

from mmc._docstrings import EVO_ATTRIBUTES, EVO_PARAMETERS, fill_doc
from mmc._evo_base import _BaseEvoMMC
from mmc._evo_basis import (
    ColumnsFeatureMap,
    exact_basis,
    exact_dual_coef,
    kmeans_landmarks,
    nystroem_basis,
    nystroem_dual_coef,
    on_columns,
    singular_landmarks,
    used_columns,
)
from mmc._rows import centred
from mmc._seeds import draw_seeds
from mmc._threads import pass_products
from mmc.kernels import kernel_matrix, nystroem

# Largest n x n kernel matrix EvoMMC builds (float64 bytes): 1 GiB, that is
# n_samples <= 11585. The eigendecomposition needs about three times as much
# and O(n^3) time; FastEvoMMC needs O(n_samples * n_components) instead.
MAX_KERNEL_BYTES = 1 << 30


@fill_doc(parameters=EVO_PARAMETERS, attributes=EVO_ATTRIBUTES)
class EvoMMC(_BaseEvoMMC):
    """Evolutionary least-squares maximum margin clustering.

    The hinge loss of maximum margin clustering is replaced by the squared
    loss, and a (mu + lambda) evolution strategy searches the labellings
    ``y in {-1, +1}^n`` with ``|sum y| <= class_balance * n`` for the lowest
    fitness::

        F(y) = min_c (1/n) |y - K c|^2 + lambda c'K c,

    the regularised least-squares fit of y by functions of the kernel's
    space (Gieseke et al., 2009), with ``lambda = reg s`` and s the mean of
    ``k(x_i, x_i)`` (``reg_``; the paper has s = 1, here the clusters of
    the linear kernel do not depend on the scale of X). With the
    eigendecomposition ``K = V diag(sigma) V'`` (O(n^3) once), ``F(y) = 1 -
    (1/n) sum_j sigma_j / (sigma_j + n lambda) (V'y)_j^2``: keeping
    ``u = V'y`` for each individual, a mutation of s labels costs O(s m)
    and its fitness O(m), where m <= n is the numerical rank of K.

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
    there by measurement (``bench/studies/evommc.md``), never with labels inside
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
        Training samples, kept for the kernel expansion of ``predict``
        (less ``shift_`` when it is set).

    dual_coef_ : ndarray of shape (n_samples,) or (n_samples, n_clusters)
        Coefficients c of the least-squares fit ``f(x) = sum_i c_i k(x_i, x)``
        (one column per cluster with more than two).

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
        n_clusters=2,
        reg=1e-3,
        kernel="auto",
        gamma="scale",
        degree=3,
        coef0=0.0,
        class_balance="auto",
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
        self.n_clusters = n_clusters
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
        """Cluster the samples into ``n_clusters`` clusters.

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

    def _check_params_vs_input(self, X):
        n_samples = X.shape[0]
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
        basis = exact_basis(np.asarray(K, dtype=np.float64), self.reg_)
        self.X_fit_ = X
        return basis, functools.partial(exact_dual_coef, basis, reg=self.reg_)

    def _start_coordinates(self, X, basis):
        """The space of the k-means starts with k > 2 clusters.

        The kernel principal components of the exact linear kernel are an
        isometric copy of the samples, with as many columns as the kernel's
        rank (up to n): k-means runs on whichever of the two holds fewer
        stored values, the same clusters up to rounding. On the ten-topic
        text-like case (2000 rows of 5000 features, 50 non-zeros each) the
        ten runs took 0.4 s on X against 4.1 s on the 2000 components, with
        the same labels on every case of the robustness suite.
        """
        if self.kernel_ == "linear" and pass_products(X, 1) < basis.V.size:
            return X
        return super()._start_coordinates(X, basis)

    def _predictions(self, X):
        K = kernel_matrix(X, self.X_fit_, **self._kernel_params(self.gamma_))
        return K @ self.dual_coef_


@fill_doc(parameters=EVO_PARAMETERS, attributes=EVO_ATTRIBUTES)
class FastEvoMMC(_BaseEvoMMC):
    """EvoMMC on a Nystroem approximation of the kernel matrix, for large data.

    The kernel functions are restricted to ``n_components`` landmarks R (the
    paper's subset of regressors, with points of the input space that need
    not be samples)::

        F(y) = min_c (1/n) |y - K_nR c|^2 + lambda c'K_RR c,

    ``lambda`` as for :class:`EvoMMC` (from the exact kernel's diagonal).
    This is ridge regression on the Nystroem features ``L = K_nR
    K_RR^{-1/2}``; with the thin SVD ``L = V diag(s) W'`` (O(n r^2) once),
    ``F(y) = 1 - (1/n) sum_j s_j^2 / (s_j^2 + n lambda) (V'y)_j^2``, so a
    mutation of s labels costs O(s r) and memory is O(n r). The search is
    that of :class:`EvoMMC` (see there).

    **Landmarks.** The paper draws R at random from the samples
    (``landmarks="random"``). By default (``landmarks="auto"``) the
    landmarks are, for the rbf and poly kernels, the centres of a short
    k-means run (``"kmeans"``), which approximate the kernel matrix better
    with the same r (Zhang, Tsang and Kwok, 2008): k-means++ seeding and
    ``mmc._evo_basis.KMEANS_ITERATIONS = 3`` Lloyd iterations on a random
    subsample of at most ``mmc._evo_basis.SAMPLES_PER_LANDMARK = 10`` samples
    per landmark, so O(r^2 d log r) time whatever n. On the 45 digit pairs of
    ``load_digits / 16`` with ``n_components=0.1`` (about 36 landmarks) this
    lowers the mean error from 0.93% to 0.70% (EvoMMC: 0.65%); over ten
    seeds, the pairs more than a point worse than EvoMMC fall from 5.5 to
    1.3 per seed (``bench/studies/evommc.md``). For the linear kernel they
    are the r leading right singular vectors of the same subsample
    (``"svd"``): the map is then the projection on them, and its kernel the
    closest of rank r to ``XX'`` (Eckart-Young). When the landmarks span the
    features (generally, at most r of them) every rule gives the exact linear
    kernel; with more features, as in text, the k-means centres keep too
    little of it: on 15 cases with more features than landmarks (13 sparse
    text-like ones) FastEvoMMC errs 32.8% with them, 27.2% with random
    samples and 25.1% with the singular vectors, EvoMMC 24.9%
    (``bench/studies/linear_landmarks.md``). A rank-r kernel still drops
    the components of the exact one beyond r: on 7v9 the exact kernel
    truncated to its 36 leading eigenvectors gives 6.1% against EvoMMC's
    0.8%, whatever the landmarks.

    Parameters
    ----------
    n_components : int, float or None, default=None
        Number of landmarks r: an int, a fraction of n_samples in (0, 1]
        (rounded up), or None for ``min(n_samples, 300)``. With r at least
        n_samples every sample is a landmark and the kernel is exact.

    landmarks : {"auto", "kmeans", "random", "svd"} or array-like of shape \
            (n_landmarks, n_features), default="auto"
        How the landmarks are chosen when r < n_samples: ``"kmeans"``, the
        centres of a short k-means run on (a subsample of) the data, dense
        even for sparse X; ``"random"``, samples drawn uniformly without
        replacement (the paper); ``"svd"`` (linear kernel only), the leading
        right singular vectors of (a subsample of) the data, dense, at most
        as many as its rank; ``"auto"``, ``"svd"`` when the kernel used
        (``kernel_``) is linear and ``"kmeans"`` otherwise. An array gives
        the landmarks themselves
        (``n_components`` must then be None or their number).

    {parameters}
    Attributes
    ----------
    {attributes}
    landmarks_ : ndarray of shape (n_components,) or None
        Indices of the training samples used as landmarks; None when they
        are k-means centres, singular vectors or given.

    X_landmarks_ : ndarray or sparse matrix of shape (n_components, n_features)
        The landmarks, kept for ``predict``: the k-means centres, the
        singular vectors (rows) or the landmarks given (a dense array, also
        for sparse X) or the samples drawn; with ``"svd"`` there may be fewer
        than ``n_components``. Less ``shift_`` when it is set. The singular
        vectors of sparse X are a CSR matrix when the rows they are computed
        from leave enough columns empty (hashed text, say): they are zero
        there, and only the other columns are stored.

    dual_coef_ : ndarray of shape (n_components,) or (n_components, n_clusters)
        Coefficients c of the least-squares fit ``f(x) = sum_{i in R} c_i
        k(x_i, x)`` (one column per cluster with more than two).

    See Also
    --------
    EvoMMC : The same search on the exact kernel matrix.

    Notes
    -----
    Memory for n samples, d features and r landmarks, beyond X: the basis,
    one n x r float64 array (``8 n r`` bytes) that lives until the end of
    the search, built in place of the Nystroem features 65,536 rows at a
    time, plus the temporaries of a block (about 0.3 GB for r = 300) and
    O(r^2 + r d + n); no n x n array is formed. At n = 10^6, d = 50
    (float32), r = 300: a peak of 2.8 GB (tracemalloc). Of sparse X the
    singular vectors take ``r`` values of each column their subsample uses
    (at most 10 r rows), not of all d: on 3000 rows of 2^20 hashed
    features (50 non-zeros a row) the fit peaked at 0.9 GB, not 7.4 GB.

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
        "landmarks": [StrOptions({"auto", "kmeans", "random", "svd"}), "array-like"],
    }

    def __init__(
        self,
        n_clusters=2,
        n_components=None,
        landmarks="auto",
        reg=1e-3,
        kernel="auto",
        gamma="scale",
        degree=3,
        coef0=0.0,
        class_balance="auto",
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
        self.n_clusters = n_clusters
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
        """Cluster the samples into ``n_clusters`` clusters.

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
            # More landmarks than samples: all of them, the exact kernel (as
            # the kernel maps of the other estimators), so that one value
            # serves folds of any size in a search.
            return min(int(r), n_samples)
        return max(1, math.ceil(r * n_samples))

    def _check_params_vs_input(self, X):
        if not isinstance(self.landmarks, str):
            self._check_landmarks(X)

    def _check_landmarks(self, X):
        """The landmarks given as an array, validated against X."""
        landmarks = check_array(self.landmarks, dtype=[np.float64, np.float32])
        if landmarks.shape[1] != X.shape[1]:
            raise ValueError(
                f"landmarks given as an array must have the {X.shape[1]} features "
                f"of X; got shape {landmarks.shape}."
            )
        if self.n_components not in (None, landmarks.shape[0]):
            raise ValueError(
                f"n_components={self.n_components} does not match the "
                f"{landmarks.shape[0]} landmarks given; leave it at None."
            )
        return np.ascontiguousarray(landmarks, dtype=X.dtype)

    def _fit_basis(self, X, gamma, random_state):
        n_samples = X.shape[0]
        seed = draw_seeds(random_state)
        r = self._n_landmarks(n_samples)
        # Landmarks that are not samples: given, singular vectors or k-means
        # centres (each of them a landmark, in the order of a permutation).
        rule = self._resolve_landmarks() if isinstance(self.landmarks, str) else None
        points = None
        if rule is None:
            # In the coordinates of X (centred by shift_ when set).
            points = centred(self._check_landmarks(X), self.shift_)
        elif rule == "svd":
            points = singular_landmarks(X, r, np.random.RandomState(seed))
        elif rule == "kmeans" and r < n_samples:
            points = kmeans_landmarks(X, r, np.random.RandomState(seed))
        params = self._kernel_params(gamma)
        if points is None:
            # Samples drawn at random (all of them when r = n_samples).
            feature_map = nystroem(X, r, random_state=seed, **params)
            self.landmarks_ = feature_map.component_indices_
            self.X_landmarks_ = feature_map.components_
        elif sp.issparse(points):
            # Singular vectors of sparse X, zero outside the columns its
            # subsample uses: the map is fitted to them dense on those
            # columns and reads only those columns of X.
            values, columns = used_columns(points)
            feature_map = nystroem(
                values,
                points.shape[0],
                random_state=seed,
                **params,
            )
            self.landmarks_ = None
            self.X_landmarks_ = on_columns(
                feature_map.components_, columns, points.shape[1]
            )
            feature_map = ColumnsFeatureMap(feature_map, columns)
        else:
            feature_map = nystroem(points, points.shape[0], random_state=seed, **params)
            self.landmarks_ = None
            self.X_landmarks_ = feature_map.components_
        return self._nystroem_model(feature_map, X)

    def _start_coordinates(self, X, basis):
        """The space of the k-means starts with k > 2 clusters.

        Kernel k-means of the linear kernel is k-means on the samples X
        (dense or CSR) themselves, whereas the basis holds only their
        projection on the landmarks, where k-means does much worse: on the
        ten-topic text-like case (5000 features, r = 300) single k-means runs
        erred 25-56 % on the projection against 2.5-18 % on X, and all ten
        starts of one seed of three ended in local optima (29.95 % against
        0.65 %). Other kernels: the kernel principal components.
        """
        if self.kernel_ == "linear":
            return X
        return super()._start_coordinates(X, basis)

    def _resolve_landmarks(self):
        """The landmark rule for the kernel used, ``kernel_``."""
        if self.landmarks == "auto":
            return "svd" if self.kernel_ == "linear" else "kmeans"
        if self.landmarks == "svd" and self.kernel_ != "linear":
            raise ValueError(
                "landmarks='svd' needs the linear kernel (its landmarks are "
                f"directions, not points); the kernel used is {self.kernel_!r}. "
                "Use landmarks='auto', 'kmeans' or 'random', or kernel='linear'."
            )
        return self.landmarks

    def _nystroem_model(self, feature_map, X):
        """The basis of the map's kernel matrix and the map from the winner's
        coordinates to ``dual_coef_``."""
        basis, right = nystroem_basis(feature_map, X, self.reg_)
        dual_coef = functools.partial(
            nystroem_dual_coef,
            basis,
            right,
            feature_map.normalization_,
            reg=self.reg_,
        )
        return basis, dual_coef

    def _predictions(self, X):
        K = kernel_matrix(X, self.X_landmarks_, **self._kernel_params(self.gamma_))
        return K @ self.dual_coef_
