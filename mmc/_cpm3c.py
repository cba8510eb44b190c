"""Multiclass cutting-plane maximum margin clustering (CPM3C): the estimator."""

from numbers import Integral, Real

import numpy as np
from sklearn.base import _fit_context
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from mmc import _cpm3c_dual
from mmc._balance import margin_balance, size_balance
from mmc._cpm3c_constraints import (
    MulticlassConstraints,
    best_classes,
    class_score_matrix,
    with_constant_feature,
)
from mmc._cpm3c_dual import (
    DUAL_TOL,
    DualMulticlassSVM,
    best_dual_run,
    centred_scale,
    dual_cccp_run,
)
from mmc._cutting_plane import _CuttingPlaneEstimator
from mmc._dask import RowBlocks
from mmc._dask_api import is_dask_input, map_blocks_predict
from mmc._dask_centres import initial_centres as blocked_centres
from mmc._dask_cpm3c import DaskDualMulticlassSVM, assign_on_blocks
from mmc._docstrings import STABLE_BALANCE_SECTIONS, fill_doc
from mmc._feature_map import FEATURE_MAP_PARAMETERS
from mmc._labelling import first_occurrence_order, warn_if_clusters_lost
from mmc._starts import (
    MULTICLASS_INIT_METHODS,
    MULTICLASS_KMEANS_RUNS,
    cluster_means,
    initial_centres,
    multiclass_start_methods,
)


@fill_doc(feature_map_parameters=FEATURE_MAP_PARAMETERS, **STABLE_BALANCE_SECTIONS)
class CPM3C(_CuttingPlaneEstimator):
    """Multiclass maximum margin clustering (CPM3C).

    CPM3C (Zhao, Wang and Zhang, 2008) looks for k weight vectors
    ``W = (w_1, .., w_k)`` and intercepts such that assigning each sample to
    its best class, ``argmax_p t_ip``, separates the clusters with the
    largest multiclass (Crammer-Singer) margin::

        min_W,v  s/2 (|W|^2 + |v|^2) + C/n sum_i max(0, 1 - (t_i1 - t_i2))

    under a balance constraint (below), where ``t_ip`` is the score of
    sample i for class p, ``t_i1`` and ``t_i2`` are the two best scores of
    sample i and ``s`` is the variance of the data along its principal
    direction (see :class:`CPMMC`). The problem is not convex; it is solved
    by CCCP, which alternates the multiclass SVM of the current clustering
    with moving every sample to its best class, from ``n_init`` initial
    clusterings. Each run first trains the SVM of its initial clustering
    (assignments held fixed) before letting the assignments follow W. The
    run of lowest objective that keeps all k clusters wins (labels are
    never consulted); if every run empties a cluster, a
    ``ConvergenceWarning`` says so. Two solvers are available:

    * ``"coordinate-descent"`` (the default with the linear kernel) solves
      each SVM exactly, in its per-sample dual, by coordinate descent
      warm-started from the previous step: a pass over X per epoch, a few
      epochs per step. Exact CCCP stops at any clustering that its own SVM
      reproduces, such as the Voronoi cells of k-means, so C starts at C/8
      and doubles each time CCCP settles (the continuation of transductive
      SVMs); with k > 2 each start is also run at C directly, and the lower
      objective wins. The balance constraint bounds the cluster sizes
      (``class_balance``): it is held in the assignment step by offsets of
      the classes' scores, unregularised like CPMMC's bias, so that
      ``predict`` follows it. About 5 times faster than the cutting plane,
      with mean errors within 0.8 point of it on the robustness suite
      (multiclass 4.70 against 4.50 %, two-class 10.76 against 11.56 %;
      ``bench/studies/cpm3c_dual.md``).
    * ``"cutting-plane"``, the paper's method, adds constraints one at a
      time (the most violated one, eq. 14) and solves each restricted
      problem by CCCP, one small dual QP per step. Its balance constraints
      ``|m_p - m_q| <= class_balance`` bound the differences of the classes'
      mean margins ``m_p = (1/n) sum_i (t_ip - max_{q != p} t_iq)``,
      linearised at the current assignments (the paper's eq. 16 bounds the
      differences of the mean scores ``(w_p - w_q).mean(x)`` instead, which
      does not stop a cluster from emptying). A run that empties a cluster
      is repeated from the same start by a block descent that alternates
      SVM fits and reassignments. It is used with kernels other than the
      linear one, where its restarts found the two moons and the concentric
      circles of the robustness suite more often (over seeds 0-4, errors
      of 0-17 % and 0-7 %, against 14-22 % and 0-49 % for coordinate
      descent).

    The problem is posed on the centred samples (the mapped ones with a
    kernel), each class with a regularised intercept of its own, so that
    translating the data does not change the clustering. With the linear
    kernel the scores are ``t_ip = w_p . (x_i - mean(x)) + r v_p``: the
    weights ``v_p`` of a constant feature ``r`` join the norm, ``|W|^2 +
    |v|^2``, and ``r`` is the root mean squared distance of the samples to
    their mean, so that the intercepts cost as much as the weights of a
    typical centred sample. With two clusters, the cutting plane holds the
    intercepts of the start's SVM at zero until the assignments are released,
    else its CCCP stays at the start's split (coordinate descent leaves it by
    its continuation in C and holds nothing;
    ``bench/studies/cpm3c_intercept.md``). With any other kernel the runs see
    the mapped samples, centred, and a constant feature that is not (the kernel
    ``K + s^2``, with ``s^2`` the mean of ``K(x, x)``), whose weights are the
    intercepts: without them no score difference through the mean of the
    feature space puts the inner of two concentric rings in a class of its own.
    (The paper's scores have no intercept and depend on the origin of X; why
    both the centring and the intercepts: the user guide.) Clusters are
    numbered in the order in which they first occur in X.

    Parameters
    ----------
    n_clusters : int, default=2
        Number of clusters k (at least 2, at most 255).

    C : float or "auto", default="auto"
        Weight of the mean multiclass hinge loss against the margin term,
        relative to the spread of the data. ``"auto"`` is 20 with the linear
        kernel and 100 with any other, as for :class:`CPMMC`.

    class_balance : "auto", "stable" or float, default="auto"
        The balance of the clusters. With ``solver="coordinate-descent"``,
        every cluster keeps at least ``(1 - class_balance) n / k`` samples
        (with two clusters: ``|n_1 - n_2| <= class_balance n``). With
        ``solver="cutting-plane"``, a bound on the differences of the mean
        margins of the classes. ``"auto"`` sets it from the data without
        labels, from the clusters of k-means (the best of 10 runs on at most
        2000 sampled rows; sparse X of more rows gives no estimate, and
        then 0.03, the paper's bound), of proportions ``pi_p`` (as even as
        sampling noise allows or not): for
        the sizes, the clusters may be no less balanced than those of
        k-means: for every j, the j smallest clusters hold at least the
        share of the j smallest k-means clusters less ``0.03 j / k``
        (``size_floors_``; ``class_balance_`` is ``1 - k min_p pi_p + 0.03``,
        the bound of the smallest), and for the mean margins
        ``2 (max_p pi_p - min_p pi_p) + 0.03``, the bound at which those
        clusters fit when every sample has a margin of 1. The bound used is
        ``class_balance_``. {stable_class_balance}

    epsilon : float or "auto", default="auto"
        Precision of each SVM: for the cutting plane, the excess of the most
        violated constraint over the slack that ends it (``"auto"``: 0.01);
        for coordinate descent, the largest violation of the optimality
        conditions of the SVM's dual, in units of the margin (``"auto"``:
        0.03).

    tol : float, default=1e-4
        CCCP stops when its objective decreases by less than ``tol`` times
        its value (or when no assignment changes).

    max_iter : int, default=100
        Maximum number of iterations per run: cutting-plane iterations
        (constraints), or CCCP steps of coordinate descent.

    max_cccp_iter : int, default=50
        Maximum number of CCCP iterations after each new constraint (the
        cutting plane only).

    n_iter_no_change : int or None, default=10
        Once the assignments follow W, a run stops after this many
        iterations in a row that do not lower the lowest MMC objective it
        has reached (coordinate descent: at the final C), and ends at the
        iterate that reached it. There, the cutting plane's CCCP can cycle
        (samples near a boundary change class at every step, so the most
        violated constraint never comes within ``epsilon``) and the runs
        used to reach ``max_iter``. None runs to ``epsilon`` or ``max_iter``
        and ends at the last iterate, as the paper does.

    {feature_map_parameters}

    init : {"auto", "kmeans", "k-means++", "pca", "random"} or array-like \
            of shape (n_samples,), default="auto"
        Initial clustering of each run: the best of 10 runs of k-means by
        inertia (as ``KMeans(n_init=10)``), k-means++ seeding, the k quantile
        bins along the principal direction, or k random samples as centres;
        ``"auto"`` uses them in that order (then random samples). An array
        gives the initial cluster of each sample (k distinct values); a named
        method assigns each sample to its nearest centre.

    n_init : int or "auto", default="auto"
        Number of runs from different initial clusterings. ``"auto"`` is 1,
        the k-means start alone, for more than two clusters with the
        coordinate-descent solver and ``init`` "auto" or "kmeans", else 4:
        on 25 multiclass data sets outside the robustness suite the other
        starts rarely won and tripled the fit time (one start erred 17.7%
        on average, four 18.4%; ``bench/studies/cpm3c_starts.md``). With two
        clusters the four starts lower the mean error of the robustness
        suite's 57 two-class cases from 12.0% to 10.8% (``cpm3c_dual.md``).

    solver : {"auto", "coordinate-descent", "cutting-plane"}, default="auto"
        How the runs are solved (see above). ``"auto"`` is
        ``"coordinate-descent"`` with the linear kernel, else
        ``"cutting-plane"``. The solver used is ``solver_``.

    refine_init : bool, default=True
        Whether the runs move away from their initial clustering. With False
        each run trains the multiclass SVM of its initial clustering with the
        assignments held fixed, and ``objective_`` is the objective of that
        clustering: with ``init`` given as labels, the MMC objective of a
        clustering of one's choice (to compare clusterings by it).

    random_state : int, RandomState instance or None, default=None
        Seeds the initialisations. Pass an int for reproducible results.

    n_jobs : int, default=None
        Threads running the restarts; ``-1`` uses all processors. ``None``
        runs them, with coordinate descent, on the OpenMP threads when X is
        large enough, as KMeans its runs (else on one thread); with k > 2 the
        two runs of a start likewise. On a Dask array: restarts at a time,
        each with its state on the workers (``None``: all; ``-1``: one per
        processor). No result differs.

    verbose : int, default=0
        Verbosity: 1 prints a line per run, 2 a line per iteration.

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
        Cluster of each training sample, in 0 .. k-1.

    coef_ : ndarray of shape (n_clusters, n_features)
        The weight vector of each cluster.

    intercept_ : ndarray of shape (n_clusters,)
        The intercept of each cluster's score: ``r v - coef_ @ mean(x)``
        with the linear kernel (``mean(x)`` the mean of the training
        samples, ``r v`` the regularised intercepts below), and the
        weights of the constant feature added with another kernel; with
        coordinate descent, plus the offsets that keep the clusters at
        their size floors.

    objective_ : float
        Value of the objective above at the solution (with coordinate
        descent, the offsets that hold the size floors are not part of the
        regularised intercepts).

    class_balance_ : float
        The balance bound the runs used: ``class_balance``, or the value
        ``"auto"`` or ``"stable"`` chose.

    {balance_stability}

    size_floors_ : ndarray of shape (n_clusters - 1,) or None
        With coordinate descent, the least number of samples the j smallest
        clusters hold together, for j = 1 .. k - 1; None with the cutting
        plane.

    solver_ : str
        The solver used, ``"coordinate-descent"`` or ``"cutting-plane"``.

    n_iter_ : int
        Number of iterations of the selected run (see ``max_iter``).

    n_constraints_ : int
        Number of constraints in the working set of the selected run; with
        coordinate descent, the number of samples with non-zero dual
        variables (the support vectors of its last SVM).

    n_features_in_ : int
        Number of features seen during fit.

    kernel_map_ : KernelFeatureMap
        The fitted feature map (only with a kernel other than ``"linear"``);
        ``coef_`` then holds weights on its features.

    See Also
    --------
    CPMMC : The two-cluster method, with an intercept.

    References
    ----------
    B. Zhao, F. Wang and C. Zhang. Efficient multiclass maximum margin
    clustering. International Conference on Machine Learning, 2008.

    Examples
    --------
    >>> import numpy as np
    >>> from mmc import CPM3C
    >>> X = np.array([[1.0, 1.0], [1.1, 1.2], [6.0, 1.0], [6.2, 1.1],
    ...               [1.0, 6.0], [1.1, 6.1]])
    >>> CPM3C(n_clusters=3, random_state=0).fit(X).labels_
    array([0, 0, 1, 1, 2, 2])
    """

    _parameter_constraints: dict = {
        **_CuttingPlaneEstimator._parameter_constraints,
        "n_clusters": [Interval(Integral, 2, 255, closed="both")],
        "init": [StrOptions({"auto", *MULTICLASS_INIT_METHODS}), "array-like"],
        "refine_init": ["boolean"],
        "solver": [StrOptions({"auto", "coordinate-descent", "cutting-plane"})],
        "epsilon": [StrOptions({"auto"}), Interval(Real, 0, None, closed="neither")],
        "n_init": [StrOptions({"auto"}), Interval(Integral, 1, None, closed="left")],
    }

    def __init__(
        self,
        n_clusters=2,
        C="auto",
        class_balance="auto",
        epsilon="auto",
        tol=1e-4,
        max_iter=100,
        max_cccp_iter=50,
        n_iter_no_change=10,
        kernel="linear",
        gamma="scale",
        degree=3,
        coef0=0.0,
        n_components=500,
        init="auto",
        n_init="auto",
        refine_init=True,
        solver="auto",
        random_state=None,
        n_jobs=None,
        verbose=0,
    ):
        self.n_clusters = n_clusters
        self.C = C
        self.class_balance = class_balance
        self.epsilon = epsilon
        self.tol = tol
        self.max_iter = max_iter
        self.max_cccp_iter = max_cccp_iter
        self.n_iter_no_change = n_iter_no_change
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.n_components = n_components
        self.init = init
        self.n_init = n_init
        self.refine_init = refine_init
        self.solver = solver
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Cluster the samples into ``n_clusters`` clusters.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training samples; sparse input is used as CSR without densifying.
            A Dask array chunked by rows, or a Dask DataFrame of numeric
            columns, is fitted block by block: with the in-memory fit's steps
            up to 65,536 rows, beyond them in another visiting order of the
            coordinate descent (user guide, "Fitting on Dask arrays").

        y : Ignored
            Not used, present for API consistency.

        Returns
        -------
        self : CPM3C
            The fitted estimator.
        """
        return self._fit(X)

    _takes_dask = True  # by coordinate descent (mmc/_dask_cpm3c.py)
    _kmeans_start_runs = MULTICLASS_KMEANS_RUNS

    def _fit(self, X):
        self.solver_ = self._resolve_solver(X)
        return super()._fit(X)

    def _resolve_solver(self, X):
        """The solver of a fit: ``solver``, or the one ``"auto"`` picks."""
        if is_dask_input(X) and self.solver == "cutting-plane":
            raise ValueError(
                "CPM3C fits on Dask arrays with solver='coordinate-descent' "
                "(what solver='auto' picks for them); got solver='cutting-plane'."
            )
        if self.solver != "auto":
            return self.solver
        return "coordinate-descent" if self.kernel == "linear" else "cutting-plane"

    def _dask_segment_rows(self):
        # Whole segments of the Dask visiting order: epochs free of the chunks.
        return _cpm3c_dual.SEGMENT_ROWS

    def _check_params_vs_input(self, X):
        if X.shape[0] < self.n_clusters:
            raise ValueError(
                f"n_samples={X.shape[0]} should be >= n_clusters={self.n_clusters}."
            )

    def _n_clusters(self):
        return self.n_clusters

    @property
    def _balance_of(self):
        # "auto": the solver's balance term, on mean margins or on sizes.
        return margin_balance if self.solver_ == "cutting-plane" else size_balance

    def _start_methods(self):
        return multiclass_start_methods(self.init, self._resolve_n_init())

    def _resolve_n_init(self):
        """The number of runs, with ``"auto"`` resolved (see ``n_init``)."""
        if self.n_init != "auto":
            return self.n_init
        kmeans_start = isinstance(self.init, str) and self.init in ("auto", "kmeans")
        dual = self.solver_ == "coordinate-descent"
        return 1 if self.n_clusters > 2 and dual and kmeans_start else 4

    def _run_passes(self):
        return _cpm3c_dual.RUN_PASSES if self.solver_ == "coordinate-descent" else None

    def _resolve_class_balance(self, X, **balance):
        sizes = self.solver_ == "coordinate-descent"  # floors on the sizes
        bound, centres = super()._resolve_class_balance(X, with_floors=sizes, **balance)
        bound, self.size_floors_ = bound if sizes else (bound, None)
        return bound, centres

    def _initial_state(self, X, x_mean, principal, method, arg, kmeans_runs=None):
        if method == "centres":  # the graph start's, in memory and on blocks
            return arg, None
        if isinstance(X, RowBlocks):
            rng = np.random.RandomState(arg)
            return blocked_centres(X, x_mean, method, rng, self.n_clusters), None
        if method == "array":
            return cluster_means(X, arg, self.n_clusters), arg
        if kmeans_runs is not None:
            return kmeans_runs.best(self._kmeans_start_runs), None
        centres = initial_centres(
            X, x_mean, method, np.random.RandomState(arg), self.n_clusters, principal
        )
        return centres, None

    def _make_working_set(
        self, X, x_mean, capacity, C, class_balance, repin=False, seed=0, n_levels=None
    ):
        if self.kernel == "linear":
            intercept_scale = centred_scale(X, x_mean)
        else:
            # The constant feature of _training_features is not centred, so
            # that its weights stay intercepts of their own.
            x_mean = x_mean.copy()
            x_mean[-1] = 0.0
            intercept_scale = 0.0
        if self.solver_ == "coordinate-descent":
            dask = isinstance(X, RowBlocks)
            svm = (DaskDualMulticlassSVM if dask else DualMulticlassSVM)(
                X,
                x_mean,
                self.n_clusters,
                self.size_floors_,
                intercept_scale,
                relabel=self.refine_init,
                tol=self._epsilon(),
                seed=seed,
            )
            if n_levels is not None:
                svm.n_levels = n_levels
            return svm
        # Two clusters: the cutting plane holds the intercepts of the start's
        # SVM at zero until the assignments are released; with them, CCCP
        # stays at the start's split (digits 5v9 from the median split along
        # the principal direction: 14.6% error, 1.1% held;
        # bench/studies/cpm3c_intercept.md). With k > 2, boundaries through
        # one point cannot follow a general clustering (text, k = 10).
        return MulticlassConstraints(
            X,
            x_mean,
            capacity,
            C,
            class_balance,
            self.n_clusters,
            repin=repin,
            relabel=self.refine_init,
            intercept_scale=intercept_scale,
            hold_intercepts=self.n_clusters == 2 and self.refine_init,
        )

    def _iterations_advice(self):
        if self.solver_ == "cutting-plane":
            return super()._iterations_advice()
        return "CCCP steps of coordinate descent; increase max_iter"

    def _epsilon(self):
        """The precision of the solver, with ``"auto"`` resolved."""
        if self.epsilon != "auto":
            return self.epsilon
        return 0.01 if self.solver_ == "cutting-plane" else DUAL_TOL

    def _run(self, working_set, C, start, name):
        if self.solver_ == "cutting-plane":
            return super()._run(working_set, C, start, name)
        return dual_cccp_run(
            working_set,
            C=C,
            tol=self.tol,
            max_iter=self.max_iter,
            n_iter_no_change=self.n_iter_no_change,
            verbose=self.verbose,
            start=start,
            name=name,
        )

    def _run_start(self, run_once, start, X):
        if self.solver_ == "coordinate-descent":
            seed = 0 if start[0] in ("array", "centres") else int(start[1])
            direct = self.n_clusters > 2 and self.refine_init
            return best_dual_run(run_once, start, seed, direct, X, self.n_clusters)
        # CCCP with free assignments reaches the lowest objectives, but on
        # many clusters it can empty some. A start that does is run again by
        # the block descent of MulticlassConstraints.release (assignments
        # pinned between SVM fits), which cannot empty a cluster as long as
        # the SVM of a clustering keeps each class the best for its samples.
        result = run_once(start)
        if result.n_empty_clusters and self.refine_init:
            pinned = run_once(start, repin=True)
            result = min(
                (result, pinned), key=lambda r: (r.n_empty_clusters, r.objective)
            )
        return result

    def _training_features(self, X):
        return X if self.kernel == "linear" else with_constant_feature(X)

    def _set_solution(self, X, best):
        coef = best.coef
        self.intercept_ = np.asarray(best.intercept, dtype=np.float64).copy()
        if self.kernel != "linear":
            # Split the weights of the constant feature off (see
            # _training_features) into intercepts.
            self.intercept_ += coef[:, -1] * float(X[0, -1])
            X, coef = np.ascontiguousarray(X[:, :-1]), coef[:, :-1]
        self.coef_ = coef
        labels = self._assign(X)
        # The problem is symmetric in the classes: the clusters are named in
        # the order they first occur in X (empty ones last), whatever won.
        order, _ = first_occurrence_order(labels, self.n_clusters)
        self.coef_ = np.ascontiguousarray(coef[order])
        self.intercept_ = np.ascontiguousarray(self.intercept_[order])
        # (A sample whose best scores tie goes to the lowest index, so it
        # may change cluster with the naming: predict again.)
        self.labels_ = self._assign(X)
        warn_if_clusters_lost(
            "CPM3C",
            self.labels_,
            self.n_clusters,
            " in every run; the data may not have that many clusters, or "
            "class_balance may be too loose",
        )

    def decision_function(self, X):
        """Score of each sample for each cluster.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        scores : ndarray of shape (n_samples, n_clusters)
            ``X @ coef_.T + intercept_``; a sample belongs to the cluster of
            its largest score.
        """
        check_is_fitted(self)
        if is_dask_input(X):
            return map_blocks_predict(self.decision_function, X, np.float64)
        X = self._validate_features(X, reset=False)
        coef_T = np.ascontiguousarray(self.coef_.T)
        return class_score_matrix(X, coef_T, self.intercept_)

    def predict(self, X):
        """Assign samples to the cluster of their largest score.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        labels : ndarray of shape (n_samples,)
            Cluster of each sample, in 0 .. k-1; ``predict`` on the training
            data equals ``labels_``.
        """
        check_is_fitted(self)
        if is_dask_input(X):
            return map_blocks_predict(self.predict, X, np.intp)
        return self._assign(self._validate_features(X, reset=False))

    def _assign(self, X):
        """Best class of each sample of a validated X (or its blocks)."""
        coef_T = np.ascontiguousarray(self.coef_.T)
        if isinstance(X, RowBlocks):
            return assign_on_blocks(X, coef_T, self.intercept_)
        return best_classes(X, coef_T, self.intercept_).astype(np.intp)
