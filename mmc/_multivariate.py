"""Maximum margin clustering with a multivariate loss (MultivariateMMC)."""

from numbers import Real

from sklearn.base import _fit_context
from sklearn.utils._openmp_helpers import _openmp_effective_n_threads
from sklearn.utils._param_validation import Interval, StrOptions

from mmc._cutting_plane import _BinaryCuttingPlane
from mmc._dask import RowBlocks
from mmc._docstrings import (
    N_ITER_NO_CHANGE,
    STABLE_BALANCE_SECTIONS,
    continuation_parameter,
    fill_doc,
)
from mmc._feature_map import FEATURE_MAP_PARAMETERS
from mmc._multivariate_constraints import _LOSS_CODES, _RelabellingConstraints

# The kernels square beta. F_beta = (1 + b^2) P R / (b^2 P + R) equals the
# recall R to double precision once b^2 P exceeds R / eps, i.e. for b beyond
# about 1e13 at any size of data, and b^2 overflows to inf (making F_beta
# NaN) beyond 1.3e154: larger values are taken as this one, which gives the
# same losses.
_LARGEST_BETA = 1e150


@fill_doc(
    feature_map_parameters=FEATURE_MAP_PARAMETERS,
    n_iter_no_change=N_ITER_NO_CHANGE,
    **STABLE_BALANCE_SECTIONS,
    continuation=continuation_parameter(
        False,
        "Off by default: at two seeds it lowered the mean error on the "
        "robustness suite by about a point, and on one-hot categorical data, "
        "where the runs at C split along one binary column, it came within "
        "a point of KMeans's error on 10 of 12 data sets tried; but it took "
        "1.5 to 2.4 times as long on the scaling benchmark's data "
        "(``bench/studies/cpmmc_continuation.md``).",
    ),
)
class MultivariateMMC(_BinaryCuttingPlane):
    """Maximum margin clustering that optimises NMI, the Rand index or F-beta.

    MultivariateMMC (Zhao, Kwok and Zhang, 2009) replaces the per-sample hinge
    loss of :class:`CPMMC` by a loss of the whole labelling, computed from its
    contingency table against the current clustering. With
    ``f_i = w.x_i + b`` and ``s = sign(f)`` it solves::

        min_{w, b}  v/2 |w|^2 + C xi(w, b)
        xi(w, b) = max_{y'} loss(y', s) - (1/n) sum_i (|f_i| - y'_i f_i)
        s.t.       |mean_i f_i| <= class_balance

    where ``loss`` is ``1 - NMI``, ``1 - Rand index`` or ``1 - F_beta``
    (one minus the scores of :mod:`mmc.metrics`, s being the reference) or
    twice the disagreement rate (``"error"``), and ``v`` is the variance of the
    data along its principal direction, as in :class:`CPMMC`. The constraint
    is divided by n, unlike in the paper, so that C does not depend on the
    number of samples. The problem is solved by the cutting-plane method with
    CCCP (the solver of :class:`CPMMC`); the most violated labelling (eq. 18)
    is found exactly over all O(n^2) contingency tables after sorting each
    side of the current clustering once.

    With ``loss="error"`` the problem is that of :class:`CPMMC` with twice
    the C (Theorem 2 of the paper), and the solver follows the same path:
    ``MultivariateMMC(loss="error", C=c, epsilon=e)`` finds the clustering of
    ``CPMMC(C=2 * c, epsilon=e / 2)``.

    Parameters
    ----------
    loss : {"nmi", "rand", "fbeta", "error"}, default="nmi"
        Loss of a labelling against the current clustering.

    beta : float, default=1.0
        Weight of recall against precision in the pair-counting F_beta
        (``loss="fbeta"`` only); must be positive. Large values tend to
        recall, small ones to precision; beyond 1e150 (where ``beta**2``
        would overflow) F_beta is recall to double precision and ``beta`` is
        taken as 1e150.

    C : float or "auto", default="auto"
        Weight of the loss against the margin term, relative to the spread
        of the data (see above). ``"auto"`` is 5 with the linear kernel and
        50 with any other. The linear default was chosen on the digit pairs
        of ``load_digits`` and on ``load_breast_cancer``, ``load_wine`` and
        ``load_iris``: with it the mean NMI over the digit pairs is higher
        than CPMMC's for the NMI, Rand and F-beta losses, and the NMI loss
        converges in a few times CPMMC's time (larger C needs many more
        constraints). Kernel feature maps concentrate the spread on a few
        directions, which calls for a larger C (as for :class:`CPMMC`).

    class_balance : "auto", "stable" or float, default="auto"
        Bound on the absolute mean decision value ``|mean_i f(x_i)|``, in
        [0, 1) (at 1, ``f = 1`` puts every sample in one cluster at no cost).
        ``"auto"`` sets it from the data without labels: the imbalance
        ``|n_1 - n_2| / n`` of the two clusters of k-means (the best of 10
        runs on at most 2000 sampled rows) plus 0.03, short of an empty
        cluster, even where they are as even as sampling noise allows;
        sparse X of more rows gives no estimate and keeps 0.03 (the paper's
        bound).
        The bound used is ``class_balance_``. {stable_class_balance}

    epsilon : float, default=0.01
        Precision of the cutting-plane method, in units of the loss: it stops
        when no labelling violates its constraint by more than ``epsilon``
        beyond the current slack.

    tol : float, default=1e-4
        CCCP stops when its objective decreases by less than ``tol`` times
        its value (or when no sign changes).

    max_iter : int, default=100
        Maximum number of cutting-plane iterations (constraints) per run, at
        each value of C of the continuation (``continuation``); a run that
        reaches it at C warns.

    max_cccp_iter : int, default=50
        Maximum number of CCCP iterations after each new constraint.

    {n_iter_no_change}
    {continuation}
    {feature_map_parameters}

    init : {"auto", "pca", "kmeans", "random"} or array-like of shape \
            (n_samples,), default="auto"
        Initial labelling of each run, as in :class:`CPMMC`.

    n_init : int, default=3
        Number of runs from different initial labellings; the run with the
        lowest objective is kept (labels are never consulted).

    random_state : int, RandomState instance or None, default=None
        Seeds the initialisations. Pass an int for reproducible results.

    n_jobs : int, default=None
        Number of threads running the restarts. ``None`` means 1 unless in a
        joblib parallel context; ``-1`` uses all processors. On a Dask array
        the number of restarts run at a time (``-1``: one per processor),
        each holding its per-sample state on the workers; ``None`` runs them
        all together.

    verbose : int, default=0
        Verbosity: 1 prints a line per run, 2 a line per iteration.

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
        Cluster of each training sample, 0 or 1 (1 where the decision value
        is positive); the first sample is in cluster 0.

    coef_ : ndarray of shape (n_features,)
        Normal vector w of the separating hyperplane.

    intercept_ : float
        Offset b of the hyperplane.

    objective_ : float
        Value of the objective above at the solution.

    class_balance_ : float
        The balance bound the runs used: ``class_balance``, or the value
        ``"auto"`` or ``"stable"`` chose.

    {balance_stability}

    n_iter_ : int
        Number of cutting-plane iterations of the selected run (over every
        value of C of the continuation).

    n_constraints_ : int
        Number of labellings in the working set of the selected run.

    n_features_in_ : int
        Number of features seen during fit.

    kernel_map_ : KernelFeatureMap
        The fitted feature map (only with a kernel other than ``"linear"``);
        ``coef_`` then holds weights on its features.

    See Also
    --------
    CPMMC : The same solver with the hinge loss.

    Notes
    -----
    The most violated labelling is the best of the (n_pos + 1)(n_neg + 1)
    contingency tables. For the error and Rand losses each row of tables is
    a concave function and is searched by bisection, O(n log n). For NMI and
    F-beta the tables are searched by branch and bound over rectangles of
    tables: the loss is a ratio whose numerator is convex and whose
    denominator depends on the row total only, which bounds it over a
    rectangle with a few look-ups, and rectangles that cannot beat a table
    already found are skipped (with a margin above rounding error, so the
    result is the full scan's, ties included). On the decision values met
    in fits this skips whole blocks of rows and grows linearly with n
    (10^7 samples: 1.3 s a search), against O(n_pos n_neg) for the full
    scan (``bench/studies/multivariate_search.md``). The bound holds
    for any input, but its pruning does not: decision values built to defeat
    it could still cost O(n_pos n_neg). The passes over X stay O(nnz), as
    in CPMMC. NMI is normalised by the arithmetic mean of the entropies, as
    in :mod:`mmc.metrics` and scikit-learn (the paper uses the geometric
    mean).

    References
    ----------
    B. Zhao, J. Kwok and C. Zhang. Maximum margin clustering with
    multivariate loss function. IEEE International Conference on Data
    Mining, 2009.

    Examples
    --------
    >>> import numpy as np
    >>> from mmc import MultivariateMMC
    >>> X = np.array([[0.0, 0.1], [0.2, 0.0], [0.1, 0.2],
    ...               [3.0, 3.1], [3.2, 3.0], [3.1, 3.2]])
    >>> MultivariateMMC(random_state=0).fit(X).labels_.tolist()
    [0, 0, 0, 1, 1, 1]
    """

    # The working set reports violations halved (see _RelabellingConstraints).
    _loss_scale = 0.5
    _auto_C = (5.0, 50.0)

    _parameter_constraints: dict = {
        **_BinaryCuttingPlane._parameter_constraints,
        "loss": [StrOptions(set(_LOSS_CODES))],
        "beta": [Interval(Real, 0, None, closed="neither")],
    }

    def __init__(
        self,
        loss="nmi",
        beta=1.0,
        C="auto",
        class_balance="auto",
        epsilon=0.01,
        tol=1e-4,
        max_iter=100,
        max_cccp_iter=50,
        n_iter_no_change=10,
        continuation=False,
        kernel="linear",
        gamma="scale",
        degree=3,
        coef0=0.0,
        n_components=500,
        init="auto",
        n_init=3,
        random_state=None,
        n_jobs=None,
        verbose=0,
    ):
        self.loss = loss
        self.beta = beta
        self.C = C
        self.class_balance = class_balance
        self.epsilon = epsilon
        self.tol = tol
        self.max_iter = max_iter
        self.max_cccp_iter = max_cccp_iter
        self.n_iter_no_change = n_iter_no_change
        self.continuation = continuation
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.n_components = n_components
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
            Training samples; sparse input is used as CSR without densifying.
            A Dask array chunked by rows, or a Dask DataFrame of numeric
            columns, is fitted block by block without being gathered (user
            guide, "Fitting on Dask arrays").

        y : Ignored
            Not used, present for API consistency.

        Returns
        -------
        self : MultivariateMMC
            The fitted estimator.
        """
        return self._fit(X)

    _takes_dask = True

    def _make_working_set(self, X, x_mean, capacity, C, class_balance):
        if isinstance(X, RowBlocks):
            # Imported here: mmc._dask_multivariate builds on this module.
            from mmc._dask_multivariate import DaskRelabellingConstraints

            working_set = DaskRelabellingConstraints
        else:
            working_set = _RelabellingConstraints
        return working_set(
            X,
            x_mean,
            capacity,
            C,
            class_balance,
            loss=self.loss,
            beta=min(self.beta, _LARGEST_BETA),
            n_threads=_openmp_effective_n_threads(),
        )
