"""The base of the cutting-plane estimators (CPMMC, MultivariateMMC and
CPM3C): the data (in memory or on Dask), the class balance, the starts, the
restarts chosen by their objective, and the fitted attributes. A run from
one start is :func:`mmc._cutting_plane_run.cutting_plane_run` (or, for
CPM3C's default solver, :func:`mmc._cpm3c_dual.dual_cccp_run`).
"""

from numbers import Integral, Real

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions

from mmc import _dask_starts as blocked
from mmc._balance import SAMPLE_ROWS, size_balance
from mmc._balance_cut import SHARED_KMEANS_RUNS, keep_the_better_cut
from mmc._base import _BaseMMC
from mmc._cutting_plane_run import continuation_values, cutting_plane_run
from mmc._dask import RowBlocks, decision_values_on_blocks
from mmc._dask_api import frame_values, is_dask_dataframe, is_dask_input, refuse_dask
from mmc._feature_map import _FeatureMapMixin, _LinearDecisionMixin
from mmc._graph_start import balance_and_start
from mmc._kmeans import KMeansRuns
from mmc._labelling import orientation, warn_if_one_cluster
from mmc._rows import column_means, decision_values, warn
from mmc._seeds import draw_seeds, starting_random_state
from mmc._starts import (
    initial_signs,
    nearest_signs,
    principal_component,
    start_methods,
)
from mmc._threads import (
    best_of_restarts,
    pass_products,
    restart_threads,
    single_blas_thread,
)


class _CuttingPlaneEstimator(_FeatureMapMixin, _BaseMMC):
    """Fit shared by the estimators solved by :func:`cutting_plane_run`.

    Subclasses implement

    * ``_make_working_set(X, x_mean, capacity, C, class_balance)``;
    * ``_initial_state(X, x_mean, principal, method, arg)``: what the working
      set starts from, for an initialisation method and its seed (or the
      labels given as ``init``);
    * ``_start_methods()``: the initialisation of each restart;
    * ``_set_solution(X, best, top_variance)``: the fitted attributes;

    and may extend the parameters or override ``_training_features``, the
    features the runs see (the validated, mapped X by default). The
    objective they minimise is ``s/2 |W|^2 + C * loss`` where ``s`` is the
    variance of X along its principal direction and ``loss`` is the working
    set's loss divided by ``_loss_scale`` (the units in which the working set
    reports violations).
    Restarts are compared by the number of empty clusters, then by the
    objective: a run that lost a cluster only wins when all did.
    """

    _loss_scale = 1.0

    # C="auto": (linear kernel, any other kernel).
    _auto_C = (20.0, 100.0)

    _parameter_constraints: dict = {
        **_BaseMMC._parameter_constraints,
        **_FeatureMapMixin._feature_map_constraints,
        "C": [StrOptions({"auto"}), Interval(Real, 0, None, closed="neither")],
        "class_balance": [
            StrOptions({"auto", "stable"}),
            Interval(Real, 0, None, closed="left"),
        ],
        "epsilon": [Interval(Real, 0, None, closed="neither")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "max_cccp_iter": [Interval(Integral, 1, None, closed="left")],
        "n_iter_no_change": [Interval(Integral, 1, None, closed="left"), None],
    }

    # Whether fit takes Dask arrays (see mmc/_dask.py).
    _takes_dask = False
    # The k-means runs a "kmeans" start takes (best_kmeans_centres): set by
    # each kind of estimator (_BinaryCuttingPlane, CPM3C).

    # class_balance="auto": the balance term as a function of the cluster
    # proportions (mmc/_balance.py).
    _balance_of = staticmethod(size_balance)

    def _iterations_advice(self):
        """What ``max_iter`` counts, and what to change, for the warning of
        a run that reached it."""
        return "cutting-plane iterations; increase max_iter or epsilon"

    def _fit(self, X):
        """Validate X, map it to the kernel's features and fit on them."""
        # (Dask arrays are never centred: far ones are refused.)
        self._origin_shift = None
        data = X
        random_state = starting_random_state(self.random_state)
        if is_dask_input(X):
            X = validated = self._dask_features(X)
        else:
            validated = self._validate_X(X, reset=True)
            X = self._training_features(self._fit_feature_map(validated))
        self._check_params_vs_input(X)
        # (On the samples before any feature map: the fits on subsamples
        # map their own.)
        access = row_access(validated)
        self._choose_class_balance(validated, **access)
        try:
            self._fit_features(X)
            self._fold_origin_shift()
            keep_the_better_cut(
                self, data, validated, access.get("take_rows"), random_state
            )
        finally:
            # (It holds the data: never kept past the fit, nor pickled.)
            self.__dict__.pop(SHARED_KMEANS_RUNS, None)
        return self

    def _dask_segment_rows(self):
        """Rows of the segments the blocks of a Dask fit must hold whole
        (:class:`mmc._dask.RowBlocks`); None: any blocks."""
        return None

    def _dask_features(self, X):
        """A Dask array or DataFrame X validated and seen as its blocks of
        rows (a DataFrame's partitions; its column names, all strings, are
        ``feature_names_in_`` as for a pandas DataFrame)."""
        if not self._takes_dask:
            refuse_dask(self)
        if self.kernel != "linear":
            raise ValueError(
                f"{type(self).__name__} fits on Dask arrays with kernel='linear' "
                f"only; got kernel={self.kernel!r}."
            )
        if not isinstance(self.init, str):
            raise ValueError(
                f"{type(self).__name__} fits on Dask arrays from its named init "
                f"methods only (such as 'auto'), not from an array."
            )
        feature_names = None
        if is_dask_dataframe(X):
            X, feature_names = frame_values(X)
        blocks = RowBlocks(X, segment_rows=self._dask_segment_rows())
        if blocks.shape[0] < 2:
            raise ValueError(
                f"Found array with {blocks.shape[0]} sample(s) while a minimum "
                "of 2 is required."
            )
        self.n_features_in_ = blocks.shape[1]
        if feature_names is not None:
            self.feature_names_in_ = feature_names
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        return blocks

    @single_blas_thread
    def _fit_features(self, X):
        """Run the restarts on the features X and set the fitted attributes."""
        name = type(self).__name__
        # The fit's generator draws the random block of the principal
        # direction, then one seed per restart: draws of sizes fixed by the
        # shapes, before any run, so no run can change another's draws.
        random_state = check_random_state(self.random_state)
        if isinstance(X, RowBlocks):
            # The same draws, each pass over the rows mapped over the blocks.
            x_mean = blocked.checked_column_means(X)
            principal, top_variance = blocked.principal_component(
                X, x_mean, random_state
            )
            labels = None
        else:
            x_mean = column_means(X)
            principal, top_variance = principal_component(X, x_mean, random_state)
            labels = self._initial_labels(X.shape[0], self._n_clusters())
        kmeans_runs = named_starts = None
        if labels is None:
            methods = self._start_methods()
            starts = list(zip(methods, draw_seeds(random_state, len(methods))))
            named_starts = starts
            # The first restart's seed: no draw of its own, so that a fixed
            # class_balance gives the same fit as before "auto" existed. A
            # k-means start there shares its runs with the estimate.
            kmeans_runs = self._shared_kmeans_runs(X, *starts[0])
            self.class_balance_, graph_centres = self._resolve_class_balance(
                X,
                seed=starts[0][1],
                kmeans_runs=kmeans_runs,
                graph=self._graph_start_applies(),
            )
            if graph_centres is not None:
                # The graph's clustering fits the data better than k-means'
                # (mmc._graph_start): one run, every sample starting at the
                # nearest mean of its clusters.
                starts = [("centres", graph_centres)]
        else:
            starts = [("array", labels)]
            self.class_balance_, graph_centres = self._resolve_class_balance(
                X, labels=labels
            )
        self.graph_start_ = graph_centres is not None

        # The initial state of each start, computed once for all of its runs
        # (a subclass's _run_start may run a start more than once, on
        # threads: they only read it).
        initial_states = {}

        def run_once(start, **options):
            method = start[0]
            state = initial_states[id(start)]
            # 1/2 |W|^2 + C / (top_variance scale) loss_ws has the minimisers
            # of the documented objective top_variance/2 |W|^2 + C loss, where
            # the working set reports loss_ws = scale * loss.
            C = self._resolve_C() / (top_variance * self._loss_scale)

            def started(value):
                working_set = self._make_working_set(
                    X,
                    x_mean,
                    min(self.max_iter, 8),
                    value,
                    self.class_balance_,
                    **options,
                )
                working_set.start(state)
                return working_set

            working_set, result = self._run_levels(started, C, method, name)
            return result._replace(n_empty_clusters=working_set.n_empty_clusters())

        def run(start):
            shared = kmeans_runs if start is starts[0] else None
            initial_states[id(start)] = self._initial_state(
                X, x_mean, principal, *start, shared
            )
            try:
                return self._run_start(run_once, start, X)
            finally:
                initial_states.pop(id(start), None)

        # On Dask arrays the restarts wait on the workers: they run together,
        # on threads of the driver (the winner does not depend on it), unless
        # n_jobs says how many at a time: each keeps its per-sample state on
        # the workers (bench/dask/restart_jobs.md).
        def best_run():
            run_passes = self._run_passes()
            if isinstance(X, RowBlocks):
                n_jobs = len(starts) if self.n_jobs is None else self.n_jobs
            elif run_passes is None:
                n_jobs = self.n_jobs
            else:
                products = run_passes * pass_products(X, self._n_clusters())
                n_jobs = restart_threads(self.n_jobs, len(starts), products)
            best, _ = best_of_restarts(
                run, starts, n_jobs, key=lambda r: (r.n_empty_clusters, r.objective)
            )
            return best

        best = best_run()
        if best.n_empty_clusters and self.graph_start_:
            # The bound of the graph's unequal sizes let the run empty a
            # cluster (the relaxed balance of the decision values admits
            # w = 0): the fit goes on as without the graph start.
            self.graph_start_ = False
            starts = named_starts
            self.class_balance_, _ = self._resolve_class_balance(
                X, seed=starts[0][1], kmeans_runs=kmeans_runs
            )
            best = best_run()
        if not best.converged:
            warn(
                f"{name} did not converge within max_iter={self.max_iter} "
                f"{self._iterations_advice()}.",
                ConvergenceWarning,
            )
        self.objective_ = float(top_variance * best.objective)
        self.n_iter_ = best.n_iter
        self.n_constraints_ = best.n_constraints
        self._set_solution(X, best)
        return self

    def _graph_start_applies(self):
        """The graph start (:mod:`mmc._graph_start`) sets the bound from the
        sizes of its clusters: it is for runs that bound the sizes, CPM3C's
        coordinate descent. CPMMC, MultivariateMMC and CPM3C's cutting
        plane bound the mean of the decision values (or margins), which the
        far side of a large cluster inflates: at the bound of the graph's
        unequal sizes their hyperplanes moved into the large cluster or put
        every sample in one (bench/studies/graph_start.md)."""
        coordinate_descent = getattr(self, "solver_", None) == "coordinate-descent"
        return coordinate_descent and super()._graph_start_applies()

    def _resolve_class_balance(
        self,
        X,
        seed=None,
        labels=None,
        with_floors=False,
        kmeans_runs=None,
        graph=False,
    ):
        """The bound of the runs (:func:`mmc._balance.resolve_class_balance`)
        and, with ``graph``, the centres of the graph start where it wins
        (:func:`mmc._graph_start.balance_and_start`), else None."""
        sample = row_access(X) or {"kmeans_runs": kmeans_runs}
        return balance_and_start(
            self._class_balance_setting,
            X,
            self._n_clusters(),
            self._balance_of,
            seed,
            graph=graph,
            labels=labels,
            with_floors=with_floors,
            **sample,
        )

    def _run_passes(self):
        """Passes over the rows that a run makes at least, when its restarts
        may take the OpenMP threads without ``n_jobs``
        (:func:`mmc._threads.restart_threads`); None: the restarts run on
        the threads of ``n_jobs`` alone (the cutting plane's runs spend
        their time in Python, holding the GIL: CPMMC's and
        MultivariateMMC's restarts ran slower on two threads)."""
        return None

    def _epsilon(self):
        """The precision of the cutting plane."""
        return self.epsilon

    def _resolve_C(self):
        """The value of C, with ``"auto"`` resolved for the kernel."""
        if self.C != "auto":
            return self.C
        return self._auto_C[0] if self.kernel == "linear" else self._auto_C[1]

    def _training_features(self, X):
        """The features of the runs, from the validated (and mapped) X."""
        return X

    def _check_params_vs_input(self, X):
        """Checks that involve the data; none by default."""

    def _n_clusters(self):
        return 2

    def _n_iter_no_change(self):
        """Early stop of the runs with free assignments."""
        return self.n_iter_no_change

    def _continues(self):
        """Whether each run goes through the continuation in C
        (:meth:`_run_levels`); CPM3C's own solver has its own."""
        return False

    def _run_levels(self, started, C, method, name):
        """The run of a start at C: ``(working_set, result)``.

        ``started(value)`` makes a working set for C = ``value``, started
        from the start's labelling. Without the continuation, one run at C.
        With it, a run at each of :func:`continuation_values`, each going
        on from the constraints and the iterate of the one before: with a
        small C the samples near the boundary lie inside the margin and
        CCCP moves them with the hyperplane, so that the run is less bound
        to the clustering it started from (CPM3C's continuation). A value
        whose run ends with an empty cluster is not carried on: the relaxed
        balance constraint ``|mean_i f(x_i)| <= class_balance`` only bounds
        the cluster sizes where the decision values leave the margin, and a
        small C can make one cluster optimal
        (``bench/studies/cpmmc_continuation.md``); the next value starts
        again from the start's labelling, and a run at C that ended so after
        such a carry is run again from it.
        """
        if not self._continues():
            working_set = started(C)
            return working_set, self._run(working_set, C, method, name)
        working_set, fresh, n_iter = None, True, 0
        for value in continuation_values(C):
            if working_set is None or working_set.n_empty_clusters():
                working_set, fresh = started(value), True
            else:
                working_set.set_C(value)
                fresh = False
            # The precision of the objective, C times that of the loss, is
            # the same at every value: an intermediate one is solved no
            # closer than the last.
            label = method if value == C else f"{method}, C / {C / value:g}"
            result = self._run(working_set, value, label, name, C / value)
            n_iter += result.n_iter
        if working_set.n_empty_clusters() and not fresh:
            working_set = started(C)
            result = self._run(working_set, C, method, name)
            n_iter += result.n_iter
        return working_set, result._replace(n_iter=n_iter)

    def _run(self, working_set, C, start, name, precision=1.0):
        """One run from a started working set (:func:`cutting_plane_run`), to
        ``precision`` times the estimator's ``epsilon``."""
        return cutting_plane_run(
            working_set,
            C=C,
            epsilon=precision * self._epsilon() * self._loss_scale,
            tol=self.tol,
            max_iter=self.max_iter,
            max_cccp_iter=self.max_cccp_iter,
            n_iter_no_change=self._n_iter_no_change(),
            verbose=self.verbose,
            start=start,
            name=name,
        )

    def _run_start(self, run_once, start, X):
        """The run of one restart: ``run_once(start, **options)``, where the
        options go to ``_make_working_set``; a subclass may run variants (on
        the features X)."""
        return run_once(start)

    def _shared_kmeans_runs(self, X, method, seed):
        """The :class:`mmc._kmeans.KMeansRuns` that the first start (of
        ``method`` and ``seed``) shares with the class-balance estimate, or
        None. Shared by a ``"kmeans"`` start where the estimate sees every
        row (its runs are then the start's first ones); they are kept for
        the fit, so only on data that small; the start takes the first
        ``_kmeans_start_runs`` of them. The start's runs are computed at
        once, on threads, before the estimate takes the first few."""
        if method != "kmeans" or isinstance(X, RowBlocks) or X.shape[0] > SAMPLE_ROWS:
            return None
        # The refit at the papers' bound (mmc._balance_cut) draws the same
        # seed on the same data: it takes the runs of the fit it repeats.
        offered = self.__dict__.get(SHARED_KMEANS_RUNS)
        if offered is not None and offered[0] == seed:
            return offered[1]
        runs = KMeansRuns(X, self._n_clusters(), np.random.RandomState(seed))
        runs.compute(self._kmeans_start_runs)
        self.__dict__[SHARED_KMEANS_RUNS] = (seed, runs)
        return runs


def row_access(X):
    """How the class-balance rules read rows of X: for data in blocks, the
    ``take_rows`` and ``sparse`` of :func:`mmc._balance.kmeans_cluster_sizes`
    (rows fetched from the blocks); nothing for data in memory."""
    if isinstance(X, RowBlocks):
        return {"take_rows": blocked.take_rows, "sparse": X.sparse}
    return {}


class _BinaryCuttingPlane(_LinearDecisionMixin, _CuttingPlaneEstimator):
    """Two-cluster estimators: one hyperplane ``w.x + b``, starts from signs."""

    _parameter_constraints: dict = {
        **_CuttingPlaneEstimator._parameter_constraints,
        # |mean_i f(x_i)| <= 1 admits w = 0, b = 1: every sample in one
        # cluster at no cost, whatever the data.
        "class_balance": [
            StrOptions({"auto", "stable"}),
            Interval(Real, 0, 1, closed="left"),
        ],
        "continuation": ["boolean"],
    }

    def _continues(self):
        return self.continuation

    # A "kmeans" start is one run (mmc._starts.initial_signs).
    _kmeans_start_runs = 1

    def _start_methods(self):
        return start_methods(self.init, self.n_init)

    def _initial_state(self, X, x_mean, principal, method, arg, kmeans_runs=None):
        if method == "array":
            return np.where(arg == np.max(arg), 1, -1).astype(np.int8)
        if method == "centres":
            if isinstance(X, RowBlocks):
                return blocked.nearest_centre_signs(X, arg)
            return nearest_signs(X, arg)
        if kmeans_runs is not None:
            return nearest_signs(X, kmeans_runs.best(self._kmeans_start_runs))
        if isinstance(X, RowBlocks):
            # A "pca" start splits the projections that principal_component
            # kept on the blocks.
            return blocked.initial_signs(X, method, np.random.RandomState(arg))
        return initial_signs(X, method, np.random.RandomState(arg), principal)

    def _set_solution(self, X, best):
        if isinstance(X, RowBlocks):
            # labels_ is a NumPy array: 8 bytes a sample on the driver, and
            # an estimator that pickles without a cluster (mmc/_dask.py).
            decision = decision_values_on_blocks(X, best.coef, best.intercept)
        else:
            decision = decision_values(X, best.coef, best.intercept)
        sign = orientation(decision[0])
        self.coef_ = sign * best.coef
        self.intercept_ = sign * float(best.intercept)
        self.labels_ = (sign * decision > 0).astype(np.intp)
        warn_if_one_cluster(type(self).__name__, self.labels_, self.class_balance_)
