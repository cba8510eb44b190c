"""Optimal margin distribution clustering (ODMC) for two clusters: the estimator.

ODMC (Zhang and Zhou, 2018) looks for the labelling y whose optimal margin
distribution machine (ODM) reaches the lowest objective, ``min_{y in B}
max_alpha G(alpha, y)`` in the dual, and solves the minimax relaxation
``min_{mu} max_{alpha} sum_k mu_k G(alpha, y_k)`` (Li et al., 2009). The
mathematics are in :mod:`mmc._odmc_relaxed` (the working set of labellings
and mirror descent on it) and :mod:`mmc._odmc_refine` (the descent on the
unrelaxed problem); the row loops in ``mmc/_core/_odmc.pyx``.

Design
------
The paper's set B is exponentially large and its Algorithm 1
samples labellings uniformly from it, which is only meaningful on a
small set. ODMC therefore keeps a *working set* of labellings, as the
cutting-plane methods keep constraints:

1. It starts from balanced labellings (split along the principal
   direction, 2-means, splits along random directions: ``n_init`` of
   them, see ``init``). They form one working set rather than separate
   restarts: the relaxed objective over a union of labellings is never
   worse than over any of its parts, and one run shares its work.
2. On the working set it runs mirror descent on ``(mu, alpha)``: each
   step is an epoch of coordinate steps on alpha in random order (the
   Euclidean mirror map: a gradient step along each coordinate with step
   ``1 / curvature``, which makes it exact, followed by the box
   projection) and one entropic step on mu
   (``mu_k <- mu_k exp(-eta G(alpha, y_k))``, then normalisation).
   The paper samples one labelling per step for each gradient; with a
   working set of a few dozen labellings the expectations are computed
   exactly instead, which removes the variance that forces the paper's
   ``O(1/sqrt(T))`` step sizes. The step of mu is the inverse of an
   estimate of the curvature of ``max_alpha phi(mu, .)`` along each
   labelling (measured in the same pass as the duality gap), shrunk when
   the gap grows and enlarged otherwise; a floor on the weights lets a
   labelling whose weight has collapsed come back.
3. The stopping rule is the duality gap. ``min_k G(alpha, y_k)`` bounds the
   saddle value from below; an upper bound on ``max_alpha phi(mu, .)``
   comes from replacing each concave coupling term by its tangent, after
   which the maximisation over the box separates by sample and has a
   closed form. When the gap falls below ``tol`` (relative to the
   objective), or after 50 steps, ODMC looks for the most violated
   labelling, ``argmin_y G(alpha, y)``: for the linear model this
   maximises ``|X'(b o y)|`` with ``b = alpha_1 - alpha_2``, a convex
   function of y, which is increased by alternating
   ``y <- sign(b o X v)`` (with the class balance repaired by moving
   the threshold) and ``v <- X'(b o y)``. A labelling that lowers the
   lower bound by more than ``tol`` joins the working set (oriented
   along the current hyperplane, as G does not see the sign of y);
   otherwise the fit has converged. It has converged too when the last
   labelling added lowered the objective by less than ``tol``: "no new
   labelling helps" (the cutting-plane tail can otherwise add many
   labellings that each change the objective by a hair).
4. The labels are the sides of the mixture's hyperplane
   ``f = sum_k mu_k w_k``, the model that ``predict`` applies to new
   points, rather than the paper's ``sign(sum_k mu_k y_k)``, which has no
   out-of-sample counterpart (and was less accurate: 2.26% against 1.90%
   mean error on the digit pairs). If that split breaks the class
   balance, the threshold is moved just enough to restore it.

The paper's ODM has no offset: on the centred samples its hyperplane passes
through the mean of the data, which lies between two even clusters but
inside the larger of two uneven ones (on blobs of 1000 and 111 samples it
cut the large one: 35% error). With ``intercept_scaling`` the samples get a
constant feature whose weight is the offset; it needs no pass of its own,
since every product of two augmented samples is the product of the centred
ones plus the square of the constant (``offset_sq``, added where the
kernels take ``|x_mean|^2``). ``"auto"`` turns it on when the balance bound
admits uneven clusters (:func:`mmc._balance.resolve_class_balance`): on even
clusters the offset only loosens the fit (the digit pairs' mean error rose
from 2.0% to 4.1% with it).

The relaxation is loose: a mixture of labellings fits better than any
single one, and its hyperplane can cut across the clusters. With a kernel,
two moons and circles split across at ``gamma="scale"``, although the true
split has the lowest value of the unrelaxed objective there; with the
linear kernel, two even standardised blobs split at 16.6 % error where the
unrelaxed problem's descent finds 2.5 % (``bench/studies/odmc_refine.md``).
With ``refine=True`` (the default) ODMC therefore solves the paper's
problem ``min_y min_w`` itself, by descent from several starts, and keeps
the labelling of lowest objective (never a choice by the labels):

5. Each start is refined by alternating the two minimisations: ODM on the
   labelling (coordinate epochs on its dual until the duality gap
   closes), then the labelling of lowest loss at the fitted margins
   (with the class balance repaired at the least cost); neither step
   increases the objective, and it stops when the labelling repeats.
6. The starts are the relaxed solution and median splits along the 4
   leading principal directions of the (mapped) samples (kernel principal
   components with a kernel). With a kernel also, from each of the kernels
   ``k ** 3`` and ``k ** 5`` (powers of a kernel are kernels; for rbf, 3
   and 5 times its ``gamma``), the best of four relaxed runs under that
   kernel, refined there: under a sharper kernel the clusters that follow
   the shape of the data have a wider basin of attraction. Those runs use
   ``lam / power``, as the sharper kernel spreads the data over more
   directions.
7. On more than 2000 samples the search runs on a random subsample of
   2000; its winner labels every sample by its hyperplane and is refined
   once more on all of them.

The model is then the ODM of that single labelling (``mu_ == [1.0]``).
With the linear kernel this costs five refinements on at most 2000 samples
and one on all of them; with a kernel about 20 relaxed runs and
refinements. ``refine=False`` stops at the relaxation, as the paper does
(the labels read from the mixture's hyperplane, step 4).

Everything touching the samples is O(nnz) per labelling and never builds
the n x n kernel matrix: G and its gradient are computed through
``z_k = (1/n) X'(b o y_k)``, which the coordinate steps update row by
row (``mmc/_core/_odmc.pyx``).

Seeds: the fit's generator draws one seed for the relaxed run and one for
the refinement, and each of these stages draws the seeds of its own stages
(the principal direction, the starts, the visiting orders of the epochs;
the subsample, each start's refinement), so that the number of epochs of
one stage cannot change the draws of another.
"""

from numbers import Integral, Real

import numpy as np
from sklearn.base import _fit_context
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions

from mmc._balance import PAPER_CLASS_BALANCE, size_balance
from mmc._balance_cut import keep_the_better_cut
from mmc._base import _BaseMMC
from mmc._docstrings import STABLE_BALANCE_SECTIONS, fill_doc
from mmc._feature_map import (
    FEATURE_MAP_PARAMETERS,
    _FeatureMapMixin,
    _LinearDecisionMixin,
)
from mmc._graph_start import balance_and_start
from mmc._labelling import balance_bound, orientation, warn_if_one_cluster
from mmc._odmc_refine import MAX_REFINE_ROUNDS, refine_search
from mmc._odmc_relaxed import Settings, hyperplane, relaxed_solution
from mmc._rows import warn
from mmc._seeds import draw_seeds, starting_random_state
from mmc._starts import start_methods
from mmc._threads import single_blas_thread

# lam="auto": (linear kernel, any other kernel).
AUTO_LAM = (2.0, 10.0)
# intercept_scaling="auto" when the bound admits uneven clusters: a constant
# feature on the scale of the data (its spread along the principal direction).
AUTO_INTERCEPT_SCALING = 1.0


@fill_doc(feature_map_parameters=FEATURE_MAP_PARAMETERS, **STABLE_BALANCE_SECTIONS)
class ODMC(_LinearDecisionMixin, _BaseMMC):
    """Optimal margin distribution clustering into two clusters.

    ODMC (Zhang and Zhou, 2018) looks for the labelling ``y`` of the samples
    for which the optimal margin distribution machine (ODM) -- a linear
    classifier that maximises the mean of the margins ``y_i f(x_i)`` and
    minimises their variance -- reaches the lowest objective::

        min_{y in B} min_{w}  1/2 |w|^2
                              + lam/n sum_i (xi_i^2 + nu eps_i^2) / (1 - theta)^2
        s.t.  y_i w.x_i >= 1 - theta - xi_i,   y_i w.x_i <= 1 + theta + eps_i,

    where B holds the labellings with ``|sum_i y_i| <= class_balance * n``.
    As in the paper, the inner problem is replaced by its dual
    ``max_alpha G(alpha, y)`` over the box ``0 <= alpha <= tau`` and the order
    of ``min_y`` and ``max_alpha`` is exchanged (the minimax relaxation of Li
    et al., 2009), which gives the convex-concave saddle problem

        min_{mu in simplex} max_{alpha in box} sum_k mu_k G(alpha, y_k)

    over weights ``mu`` on the labellings. The clusters are read from the
    solution's hyperplane ``f(x) = sum_k mu_k w_k . x``.

    The design (a working set of labellings, mirror descent with a duality
    gap, then a descent on the unrelaxed problem from several starts) is
    described in the module :mod:`mmc._odmc`. Everything touching
    the samples is O(nnz) per labelling; the n x n kernel matrix is never
    built.

    The data are centred (implicitly, sparse input stays sparse) and scaled
    by the standard deviation along their principal direction, so that the
    hyperplane may pass anywhere, the result does not change when X is
    translated or multiplied by a constant, and one default of ``lam``
    serves differently scaled data. The dual variables are measured in units
    of ``lam / n``, which makes ``tau`` and ``tol`` independent of n; with a
    finite ``tau`` the squared losses become linear beyond a deviation of
    ``tau (1 - theta)^2 / 2`` (a Huber loss), which limits the pull of
    outliers.

    Parameters
    ----------
    lam : float or "auto", default="auto"
        Weight of the margin variance against ``|w|^2`` (the paper's lambda).
        ``"auto"`` is 2 with the linear kernel and 10 with any other kernel.

    nu : float, default=0.3
        Weight of the deviations above the margin mean (``eps``) relative to
        those below it (``xi``).

    theta : float, default=0.3
        Deviations of the margin from 1 smaller than ``theta`` are not
        penalised; in ``[0, 1)``.

    tau : float, default=10.0
        Upper bound on the dual variables, in units of ``lam / n_samples``
        (see above); ``numpy.inf`` gives the paper's unbounded problem.

    intercept_scaling : float or "auto", default="auto"
        Value of a constant feature appended to the centred samples, in
        units of their spread along the principal direction (as
        scikit-learn's ``intercept_scaling`` for liblinear): its weight is
        the hyperplane's offset from the mean of the data, regularised like
        the other weights. 0 gives the paper's model, whose hyperplane passes
        through the mean. ``"auto"`` is 1 when the clusters of k-means are
        uneven beyond sampling noise (with ``class_balance="auto"``) or
        ``class_balance`` is a number above the papers' 0.03, else 0: the
        mean lies between two even clusters, but inside the larger of two
        uneven ones. The value used is ``intercept_scaling_``.

    class_balance : float, "auto" or "stable", default="auto"
        Bound on ``|mean_i y_i|`` for the labellings of the working set and
        the labels. ``"auto"`` sets it from the data without labels, as for
        the other estimators (:class:`mmc.CPMMC`), from the clusters of
        k-means: their imbalance ``|n_1 - n_2| / n`` plus 0.03, and if they
        are even within sampling noise, with the linear kernel the noise
        itself, ``3 / sqrt(n)``, plus 0.03 (the other estimators and other
        kernels keep their imbalance there; with the rbf kernel the noise's
        looser bound raised the digit pairs' mean error from 0.89% to 1.42%;
        ``bench/studies/balance_noise.md``). {stable_class_balance}
        The paper set 0.03 n for balanced and 0.3 n for unbalanced data
        sets, from the labels; ``class_balance=0.3, intercept_scaling=0``
        is the former default of mmc.

    max_iter : int, default=500
        Maximum number of mirror-descent steps (epochs) of the relaxation, in
        total (the refinement's epochs are bounded per labelling, and its
        relabellings by 30).

    tol : float, default=1e-2
        Tolerance on the duality gap and on the violation of a new
        labelling, relative to the objective.

    {feature_map_parameters}

    init : {"auto", "pca", "kmeans", "random"} or array-like of shape \
            (n_samples,), default="auto"
        Initial labellings of the working set: ``"pca"`` splits at the
        median along the principal direction, ``"kmeans"`` uses the best of
        10 runs of 2-means (on at most 2000 sampled rows, every row labelled
        by its centres; one run on sparse data of more rows), ``"random"``
        splits at the median along a random direction and ``"auto"`` uses
        them in that order. An array gives a single
        initial labelling (two distinct values).

    n_init : int, default=3
        Number of initial labellings in the working set.

    refine : bool, default=True
        Whether to solve the unrelaxed problem after the relaxation: descent
        from the relaxed labelling and from median splits along the leading
        principal directions (and, with a kernel, from relaxed runs under
        sharper kernels), keeping the labelling of lowest objective. The
        relaxation alone is loose (a mixture of labellings fits better than
        any one of them) and its hyperplane can cut across clusters: with the
        linear kernel, on the 57 two-class cases of ``python -m mmc.bench
        robustness`` the refinement lowered the mean error from 11.8 % to
        10.9 % and the cases worse than KMeans by more than a point from 11
        to 7 (``random_state=0``; seeds 1 and 2 alike,
        ``bench/studies/odmc_refine.md``). ``False`` stops at the
        relaxation, the paper's method.

    random_state : int, RandomState instance or None, default=None
        Seeds the initial labellings and the order of the coordinate steps.

    n_jobs : int, default=None
        Not used (ODMC's runs are sequential); accepted for compatibility
        with the other estimators.

    verbose : int, default=0
        Verbosity: 1 prints a line per fit, 2 a line per step.

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
        Cluster of each training sample, 0 or 1 (1 where the decision value
        is positive); the first sample is in cluster 0.

    coef_ : ndarray of shape (n_features,)
        Normal vector of the hyperplane, ``sum_k mu_k w_k``.

    intercept_ : float
        Offset of the hyperplane: with ``intercept_scaling_`` 0 it passes
        through the mean of the training data, unless the threshold had to
        move to keep the class balance.

    class_balance_ : float
        The balance bound the fit used: ``class_balance``, or the value
        ``"auto"`` or ``"stable"`` set from the data.

    {balance_stability}

    intercept_scaling_ : float
        The ``intercept_scaling`` the fit used.

    mu_ : ndarray of shape (``n_constraints_``,)
        Weights of the labellings of the final working set (``[1.0]`` with
        ``refine``: the single refined labelling).

    objective_ : float
        With ``refine``, the value of the unrelaxed problem at the refined
        labelling; otherwise the saddle value ``sum_k mu_k G(alpha, y_k)`` of
        the relaxed problem at the solution (in the paper's units, on the
        scaled data).

    duality_gap_ : float
        Duality gap bound at the solution, in the same units.

    n_iter_ : int
        Number of epochs, in all runs of the fit: the relaxation's
        mirror-descent steps and the refinement's coordinate epochs.

    n_constraints_ : int
        Number of labellings in the working set (the constraints
        ``G(alpha, y_k) >= delta`` of the relaxed problem).

    n_features_in_ : int
        Number of features seen during fit.

    kernel_map_ : KernelFeatureMap
        The fitted feature map (only with a kernel other than ``"linear"``);
        ``coef_`` then holds weights on its features.

    Notes
    -----
    The defaults were chosen by experiment (``python -m mmc.bench odmc``,
    ``bench/odmc.md``), never by labels inside the library: on the 45 digit
    pairs of ``load_digits / 16`` and the standardised
    ``load_breast_cancer``, ``lam`` in {1, 1.5, 2, 3, 5, 10, 100}, ``nu`` in
    {0.1, 0.2, 0.3, 0.5, 0.8, 1}, ``theta`` in {0, 0.1, 0.2, 0.3, 0.5} were
    tried; ``lam=2, nu=0.3, theta=0.3`` had the lowest mean digit-pair error
    (1.9% for random_state 0, 2.2% and 2.4% for 1 and 2; CPMMC 2.4%) with
    91.4% on breast cancer (KMeans 90.5%). ``lam`` matters most: smaller
    values blur the clusters (one digit pair splits by style), larger ones
    slow the fit and fit the hard pairs worse. ``tau`` between 3 and 100
    changed nothing on these data. ``tol=3e-3`` changed the mean digit-pair
    error by less than 0.01 point for three times the steps. Those were
    measured with ``class_balance=0.3`` and no offset, the former defaults.

    ``class_balance="auto"`` and ``intercept_scaling="auto"`` were chosen on
    the 57 two-class cases of ``python -m mmc.bench robustness``
    (``bench/studies/odmc_offset.md``): mean error 12.7% (KMeans 13.2%, the
    former defaults 15.8%), 2.6% on blobs of 1000 and 111 samples (35.0%
    before); even estimates admitting the sampling noise then lowered it to
    12.4% and the cases worse than KMeans by more than a point from 16 to
    11 (``bench/studies/balance_noise.md``). An offset on every fit had the
    same suite mean but doubled the mean error on the digit pairs (2.0% to
    4.1%); with ``"auto"`` it is
    2.5% there (2.1% before), the offset being used on the two pairs whose
    k-means clusters are uneven (1 vs 4, 1 vs 8).

    With a kernel (``bench/studies/odmc_kernel.md``): at the rbf kernel's
    ``gamma="scale"`` and ``lam=2``, a wrong split of the two moons has a
    lower unrelaxed objective than the true one (0.44 against 0.56), so no
    search can find it; from ``lam=10`` on the true split is the cheapest.
    With ``lam="auto"`` (10) and the refinement, the rbf kernel gives 0.1%
    error on two moons and 0% on circles (n=1000, random_state 0 to 5) and
    a mean of 0.89% over the 45 digit pairs (2.51% with the linear kernel;
    1.48% and 1.90% with the former ``class_balance=0.3``). Since the
    balance estimate takes the best of 10 k-means runs, 1.84-2.13% at
    random_state 0 to 2: the estimates of 1v8 and 8v9 are uneven, and at
    the bounds they admit a split by style has the lower objective
    (``bench/studies/odmc_rbf_pairs.md``).

    ``refine=True`` with the linear kernel (``bench/studies/odmc_refine.md``,
    random_state 0 to 2, against the relaxation alone): mean error on the
    57 cases of the robustness suite 11.78% -> 10.93% (KMeans 13.16%),
    cases worse than KMeans by more than a point 8-11 -> 6-7; on the 45
    digit pairs 2.42% -> 2.27%; on 128 ``make_classification`` cases, data
    no default was chosen on, 33.21% -> 31.58% (KMeans 32.07%) and 43-47
    -> 24-31 cases worse.

    References
    ----------
    T. Zhang and Z.-H. Zhou. Optimal margin distribution clustering. AAAI
    Conference on Artificial Intelligence, 2018.

    Y.-F. Li, I. W. Tsang, J. T. Kwok and Z.-H. Zhou. Tighter and convex
    maximum margin clustering. AISTATS, 2009.

    Examples
    --------
    >>> import numpy as np
    >>> from mmc import ODMC
    >>> X = np.array([[0.0, 0.1], [0.2, 0.0], [0.1, 0.2],
    ...               [3.0, 3.1], [3.2, 3.0], [3.1, 3.2]])
    >>> est = ODMC(random_state=0).fit(X)
    >>> est.labels_.tolist()
    [0, 0, 0, 1, 1, 1]
    """

    _parameter_constraints: dict = {
        **_BaseMMC._parameter_constraints,
        "lam": [StrOptions({"auto"}), Interval(Real, 0, None, closed="neither")],
        "nu": [Interval(Real, 0, None, closed="neither")],
        "theta": [Interval(Real, 0, 1, closed="left")],
        "tau": [Interval(Real, 0, None, closed="right")],
        "intercept_scaling": [
            StrOptions({"auto"}),
            Interval(Real, 0, None, closed="left"),
        ],
        "class_balance": [
            StrOptions({"auto", "stable"}),
            Interval(Real, 0, 1, closed="both"),
        ],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "refine": ["boolean"],
        **_FeatureMapMixin._feature_map_constraints,
    }

    def __init__(
        self,
        lam="auto",
        nu=0.3,
        theta=0.3,
        tau=10.0,
        intercept_scaling="auto",
        class_balance="auto",
        max_iter=500,
        tol=1e-2,
        kernel="linear",
        gamma="scale",
        degree=3,
        coef0=0.0,
        n_components=500,
        init="auto",
        n_init=3,
        refine=True,
        random_state=None,
        n_jobs=None,
        verbose=0,
    ):
        self.lam = lam
        self.nu = nu
        self.theta = theta
        self.tau = tau
        self.intercept_scaling = intercept_scaling
        self.class_balance = class_balance
        self.max_iter = max_iter
        self.tol = tol
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.n_components = n_components
        self.init = init
        self.n_init = n_init
        self.refine = refine
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Cluster the samples into two clusters.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training samples; sparse input is used as CSR without densifying.

        y : Ignored
            Not used, present for API consistency.

        Returns
        -------
        self : ODMC
            The fitted estimator.
        """
        # With a kernel the refinement maps the samples again: two steps.
        random_state = starting_random_state(self.random_state)
        X = self._validate_X(X, reset=True)
        self._choose_class_balance(X)
        features = self._fit_feature_map(X)
        # (The linear kernel's features are X, centred if far from the
        # origin: the refinement sees them too.)
        self._fit_features(features if self.kernel == "linear" else X, features)
        self._fold_origin_shift()
        keep_the_better_cut(self, X, random_state=random_state)
        return self

    @single_blas_thread
    def _fit_features(self, X, features):
        """Fit on the kernel's features of the validated samples X."""
        n_samples = features.shape[0]
        labels = self._initial_labels(n_samples)
        # The fit's generator only draws seeds, one per stage: the relaxed
        # run and, with a kernel, the refinement.
        relaxed_seed, refine_seed = draw_seeds(check_random_state(self.random_state), 2)
        lam = self._resolve_lam()
        # Even estimates admit the sampling noise with the linear kernel:
        # ODMC's bound holds its labels' counts, which at the papers' 0.03
        # split classes that are even only within the noise (wine's 59:48)
        # evenly. With a kernel the looser bound let the relaxation's
        # unequal splits through (bench/studies/balance_noise.md).
        (self.class_balance_, uneven), graph_centres = balance_and_start(
            self._class_balance_setting,
            features,
            2,
            size_balance,
            relaxed_seed,
            graph=labels is None and self._graph_start_applies(),
            labels=labels,
            with_uneven=True,
            admit_noise=self.kernel == "linear",
        )
        labels = self._take_graph_start(features, graph_centres, labels)
        bound = balance_bound(self.class_balance_, n_samples)
        self.intercept_scaling_ = self._resolve_intercept_scaling(uneven)
        settings = Settings(
            nu=self.nu,
            theta=self.theta,
            tau=self.tau,
            intercept_scaling=self.intercept_scaling_,
            class_balance=self.class_balance_,
            tol=self.tol,
            max_iter=self.max_iter,
            verbose=self.verbose,
        )
        ws, result = relaxed_solution(
            features,
            lam=lam,
            bound=bound,
            settings=settings,
            random_state=np.random.RandomState(relaxed_seed),
            methods=start_methods(self.init, self.n_init) if labels is None else None,
            labels=labels,
        )
        # The relaxed run's limit is reported even when the refinement
        # settles: it started from the relaxation that max_iter cut short.
        if not result["converged"]:
            warn(
                f"ODMC did not converge within max_iter={self.max_iter} "
                f"mirror-descent steps; increase max_iter or tol.",
                ConvergenceWarning,
            )
        if self.refine:
            ws, result = refine_search(
                X,
                ws,
                result,
                kernel_map=None if self.kernel == "linear" else self.kernel_map_,
                lam=lam,
                bound=bound,
                settings=settings,
                random_state=np.random.RandomState(refine_seed),
            )
            if not result["converged"]:
                warn(
                    f"ODMC's refinement of the labelling did not settle within "
                    f"{MAX_REFINE_ROUNDS} relabellings; increase tol.",
                    ConvergenceWarning,
                )

        coef, intercept, decision = hyperplane(ws, bound)
        sign = orientation(decision[0])
        self.coef_ = sign * coef
        self.intercept_ = sign * intercept
        self.labels_ = (sign * decision > 0).astype(np.intp)
        self.mu_ = ws.mu[: ws.size].copy()
        self.objective_ = float(lam * result["objective"])
        self.duality_gap_ = float(lam * result["gap"])
        self.n_iter_ = result["n_iter"]
        self.n_constraints_ = ws.size
        warn_if_one_cluster("ODMC", self.labels_, self.class_balance_)
        return self

    def _resolve_intercept_scaling(self, uneven):
        """The value of intercept_scaling, with ``"auto"`` resolved for the
        bound of the fit: an offset when the bound admits uneven clusters,
        that is, a number above the papers' 0.03, or ``"auto"`` on data whose
        clusters k-means found uneven beyond sampling noise."""
        if self.intercept_scaling != "auto":
            return self.intercept_scaling
        setting = self._class_balance_setting
        if setting == "auto" and uneven:
            return AUTO_INTERCEPT_SCALING
        if setting != "auto" and self.class_balance_ > PAPER_CLASS_BALANCE:
            return AUTO_INTERCEPT_SCALING
        return 0.0

    def _resolve_lam(self):
        """The value of lam, with ``"auto"`` resolved for the kernel."""
        if self.lam != "auto":
            return self.lam
        return AUTO_LAM[0] if self.kernel == "linear" else AUTO_LAM[1]
