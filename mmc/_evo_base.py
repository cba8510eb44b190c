"""The fit shared by EvoMMC and FastEvoMMC.

The fitness of a labelling and the basis of the kernel matrix it is
computed on are in :mod:`mmc._evo_basis`, the evolutionary search of two
clusters in :mod:`mmc._evo_search` (its loop in ``mmc._core._evo``), the
local search of more in :mod:`mmc._evo_multiclass`.
"""

import copy
from numbers import Integral, Real

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from mmc._balance import size_balance
from mmc._balance_cut import keep_the_better_cut
from mmc._base import _BaseMMC, _BinaryPredictMixin
from mmc._core._evo import fitness
from mmc._evo_basis import (
    all_rows_identical,
    duplicate_representatives,
    tie_duplicates,
)
from mmc._evo_multiclass import _MulticlassEvoMixin
from mmc._evo_search import (
    RunResult,
    evolution_run,
    fitted_threshold,
    initial_population,
    repair_balance,
)
from mmc._feature_map import KERNEL_COEFFICIENT_CONSTRAINTS
from mmc._graph_start import balance_and_start
from mmc._labelling import balance_bound, orientation, warn_if_one_cluster
from mmc._rows import centred, decision_values, origin_shift, warn
from mmc._seeds import draw_seeds, starting_random_state
from mmc._threads import best_of_restarts, restart_threads, single_blas_thread
from mmc.kernels import (
    KERNELS,
    kernel_diagonal_mean,
    resolve_gamma,
    resolve_kernel,
)


class _BaseEvoMMC(_MulticlassEvoMixin, _BinaryPredictMixin, _BaseMMC):
    """Shared fit of EvoMMC and FastEvoMMC.

    Subclasses implement ``_fit_basis(X, gamma, random_state)``, returning
    the :class:`mmc._evo_basis.Basis` of the (exact or approximate) kernel
    matrix and a function that maps the coordinates ``u = V'y`` of the
    winning labelling to ``dual_coef_``, and ``_predictions(X)``, the
    least-squares predictions of that model on new samples. Two clusters
    are searched by the evolution of :mod:`mmc._evo_search`, more by the
    local search of :mod:`mmc._evo_multiclass`.
    """

    # Their own spectral starts are the default: the graph start comes first.
    _graph_start_init = "spectral"

    _parameter_constraints: dict = {
        "n_clusters": [Interval(Integral, 2, 255, closed="both")],
        "reg": [Interval(Real, 0, None, closed="neither")],
        "kernel": [StrOptions({"auto", *KERNELS})],
        **KERNEL_COEFFICIENT_CONSTRAINTS,
        "class_balance": [
            StrOptions({"auto", "stable"}),
            Interval(Real, 0, 1, closed="both"),
        ],
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

    def _kernel_params(self, gamma):
        return {
            "kernel": self.kernel_,
            "gamma": gamma,
            "degree": self.degree,
            "coef0": self.coef0,
        }

    def _resolve_class_balance(self, X, random_state, init_labels):
        """The bound of the search (:func:`mmc._balance.resolve_class_balance`),
        estimated from ``init_labels`` when given, the floors of the j
        smallest clusters that ``"auto"`` sets on uneven k-means clusters
        (:func:`mmc._balance.size_floors`; None otherwise and with two
        clusters, where the bound says it all), and the centres of the graph
        start where it wins, else None
        (:func:`mmc._graph_start.balance_and_start`)."""
        # The seed that the generator draws next, without drawing it: a fixed
        # class_balance gives the fit it gave before "auto".
        seed = draw_seeds(copy.deepcopy(random_state))
        (bound, floors, uneven), graph_centres = balance_and_start(
            self._class_balance_setting,
            X,
            self.n_clusters,
            size_balance,
            seed,
            graph=init_labels is None and self._graph_start_applies(),
            labels=init_labels,
            with_floors=True,
            with_uneven=True,
        )
        floors = floors if uneven and self.n_clusters > 2 else None
        return bound, floors, graph_centres

    @single_blas_thread
    def _fit(self, X):
        # One BLAS thread for the whole fit (see single_blas_thread): the
        # search is sensitive to the last bits of the kernel's eigenvectors
        # (measured: the mean digit pair error moved from 0.75% to 0.93% with
        # two threads). Restarts still run on threads with n_jobs.
        random_state = starting_random_state(self.random_state)
        X = self._validate_X(X, reset=True)
        self._fit_rows(X)
        keep_the_better_cut(self, X, random_state=random_state)
        return self

    def _fit_rows(self, X):
        """Fit on the validated rows X."""
        name = type(self).__name__
        n_samples = X.shape[0]
        if n_samples < self.n_clusters:
            raise ValueError(
                f"n_samples={n_samples} should be >= n_clusters={self.n_clusters}."
            )
        self._check_params_vs_input(X)
        self._choose_class_balance(X)
        random_state = check_random_state(self.random_state)
        init_labels = self._initial_labels(n_samples, self.n_clusters)
        # Of the kernels only the rbf does not depend on the origin: it sees
        # data far from it centred (mmc._rows.origin_shift), new samples
        # too. "auto" picks it by the distances, the same from any origin.
        shift = origin_shift(X)
        X_centred = centred(X, shift)
        self.kernel_ = resolve_kernel(X_centred, self.kernel)
        self.shift_ = shift if self.kernel_ == "rbf" else None
        if self.shift_ is not None:
            X = X_centred
        gamma = resolve_gamma(X, self.gamma) if self.kernel_ != "linear" else 1.0
        self.gamma_ = gamma
        # reg weighs the norm of the fit against the kernel's own scale (the
        # mean of its eigenvalues, 1 for the rbf kernel), so that the linear
        # kernel gives the same clusters for X and for X times a constant. A
        # kernel that is 0 on every sample has no scale: reg as given.
        scale = kernel_diagonal_mean(X, **self._kernel_params(gamma))
        self.reg_ = self.reg * scale if scale > 0.0 else self.reg
        basis, dual_coef = self._fit_basis(X, gamma, random_state)
        basis = tie_duplicates(basis, duplicate_representatives(X))
        self.class_balance_, share_floors, graph_centres = self._resolve_class_balance(
            X, random_state, init_labels
        )
        # Where the graph's clustering fits the data better than k-means',
        # one run from it, as from labels given.
        init_labels = self._take_graph_start(X, graph_centres, init_labels)
        if self.n_clusters > 2:
            return self._fit_clusters(
                X,
                basis,
                dual_coef,
                init_labels,
                random_state,
                all_rows_identical(X),
                share_floors,
            )
        self.size_floors_ = None
        bound = balance_bound(self.class_balance_, n_samples)
        # Spectral starts are local optima of large moves already: the
        # evolution only fine-tunes them, by single flips (or swaps). Random
        # starts follow the paper's schedule of n / (t + 1) flips at
        # generation t.
        random_starts = init_labels is None and self.init == "random"
        first_size = n_samples if random_starts else 1

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

        if all_rows_identical(X):
            # Every labelling with the same balance has the same fitness:
            # there is nothing to split.
            labels = -np.ones(n_samples, dtype=np.int8)
            u = labels @ basis.V
            best = RunResult(labels, u, fitness(basis.weights, u, n_samples), 0, 0)
        else:
            n_runs = self.n_init if init_labels is None else 1
            seeds = draw_seeds(random_state, (n_runs, 2))
            # A run evolves for at least `patience` generations of
            # `offspring` children, each child's fitness O(r): on the
            # robustness suite even the smallest cases (100 samples) ran
            # faster on threads (bench/studies/evo_run_threads.md).
            run_products = self.patience * self.offspring * basis.V.shape[1]
            n_threads = restart_threads(self.n_jobs, n_runs, run_products)
            best, _ = best_of_restarts(run, list(seeds), n_threads)
            if best.n_generations >= self.max_generations:
                warn(
                    f"{name} stopped at max_generations={self.max_generations} "
                    f"while the fitness was still improving; increase "
                    f"max_generations.",
                    ConvergenceWarning,
                )
        labels = best.labels.astype(np.intp)
        u = best.coordinates
        self.fitness_ = best.objective
        self.objective_ = best.objective
        self.n_generations_ = int(best.n_generations)
        self.n_components_ = basis.V.shape[1]
        # By the row kernel, not BLAS: labels_ follow these values, the same
        # on every CPU.
        decision = decision_values(basis.V, basis.weights * u, 0.0)
        threshold = fitted_threshold(decision, labels)
        predicted = decision > threshold
        wrong = np.count_nonzero(predicted != (labels > 0))
        n_positive = np.count_nonzero(labels > 0)
        if wrong and wrong >= min(n_positive, n_samples - n_positive):
            # The predictions reproduce the labelling no better than one
            # cluster would: a kernel without information (constant, as a
            # poly kernel of degree 0) fits every labelling alike, and the
            # search's is random. One cluster, as the other estimators give,
            # and predict agrees with labels_.
            threshold = fitted_threshold(decision, np.full(n_samples, -1))
            predicted = decision > threshold
        else:
            # labels_ are the clusters of the least-squares classifier, as
            # with more clusters (mmc._evo_multiclass._fit_clusters says
            # why), with the threshold in the middle of their own gap.
            threshold = fitted_threshold(decision, np.where(predicted, 1, -1))
            predicted = decision > threshold
        sign = orientation(predicted[0])
        if sign < 0:
            u, decision, threshold = -u, -decision, -threshold
            predicted = decision > threshold
        self.labels_ = predicted.astype(np.intp)
        self.dual_coef_ = dual_coef(u)
        self.intercept_ = float(-threshold)
        warn_if_one_cluster(name, self.labels_, self.class_balance_)
        return self

    def _check_params_vs_input(self, X):
        """Checks that involve the data; none by default."""

    def decision_function(self, X):
        """Least-squares prediction of the labelling, minus a threshold.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        decision : ndarray of shape (n_samples,) or (n_samples, n_clusters)
            ``f(x) + intercept_``, where f is the regularised least-squares fit
            of the labels ``2 * labels_ - 1``; positive values belong to
            cluster 1. With more than two clusters, one column per cluster:
            the fit of its indicator (+1 in the cluster, -1 elsewhere) plus
            the cluster's ``intercept_``.
        """
        check_is_fitted(self)
        X = centred(self._validate_X(X, reset=False), self.shift_)
        return self._predictions(X) + self.intercept_

    def predict(self, X):
        """Assign samples to the cluster whose least-squares fit is largest.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        labels : ndarray of shape (n_samples,)
            With two clusters, 1 where ``decision_function`` is positive;
            with more, the column of ``decision_function`` that is largest.
        """
        if self.n_clusters == 2:
            return super().predict(X)
        return np.argmax(self.decision_function(X), axis=1).astype(np.intp)
