"""Cutting-plane maximum margin clustering (CPMMC) for two clusters."""

import numpy as np
from sklearn.base import _fit_context

from mmc._base import decision_values, grow_columns, grow_rows, row_kernel
from mmc._core._common import mean_hinge_loss, minimize_max_affine
from mmc._core._cpmmc import (
    apply_flips,
    flip_signs,
    most_violated,
)
from mmc._cutting_plane import _BinaryCuttingPlane
from mmc._dask import RowBlocks
from mmc._docstrings import N_ITER_NO_CHANGE, fill_doc
from mmc._feature_map import FEATURE_MAP_PARAMETERS
from mmc._qp import CPMMCDual


class _SubsetConstraints:
    """Working set of CPMMC: constraints that select subsets of the samples.

    Constraint k (eq. 3.12) is a 0/1 vector c_k over the samples and reads
    ``xi >= sizes[k] - Z[k].w - sign_sums[k] b``. It keeps
    ``Z[k] = (1/n) sum_i c_ki s_i x_i``, ``sign_sums[k] = (1/n) sum_i c_ki s_i``
    and ``sizes[k] = (1/n) sum_i c_ki``, where s are the current signs, and
    the products ``ZZt = Z Z'`` and ``Z_mean = Z x_mean`` from which the Gram
    matrix of the dual is assembled in O(k^2). Adding a constraint computes one
    new row of the products; a sign flip updates them by a rank-one correction
    in the kernel, at a cost independent of n_features.

    It also holds the current iterate (w, b), its decision values and signs,
    and implements the interface of :func:`mmc._cutting_plane.cutting_plane_run`.
    """

    def __init__(self, X, x_mean, capacity, C, class_balance):
        n_samples, n_features = X.shape
        self.X = X
        self.x_mean = x_mean
        self.class_balance = class_balance
        self.dual = CPMMCDual(C, class_balance)
        self.coef = np.zeros(n_features)
        self.intercept = 0.0
        self.decision = np.empty(n_samples)
        self.signs = None
        self._flipped = np.empty(n_samples, dtype=np.int32)
        self.mean_sq_norm = float(x_mean @ x_mean)
        self._most_violated = row_kernel(X, most_violated)
        self._apply_flips = row_kernel(X, apply_flips)
        self.size = 0
        self.constraints = np.zeros((n_samples, capacity), dtype=np.uint8)
        self.Z = np.zeros((capacity, n_features))
        self.sizes = np.zeros(capacity)
        self.sign_sums = np.zeros(capacity)
        self.ZZt = np.zeros((capacity, capacity))
        self.Z_mean = np.zeros(capacity)
        self._projections = np.zeros(capacity)

    def _grow(self):
        capacity = 2 * self.constraints.shape[1]
        self.constraints = grow_columns(self.constraints, capacity)
        self.ZZt = grow_columns(grow_rows(self.ZZt, capacity), capacity)
        for name in ("Z", "sizes", "sign_sums", "Z_mean", "_projections"):
            grow_rows(getattr(self, name), capacity)

    @property
    def offsets(self):
        return self.sizes[: self.size]

    @property
    def slopes(self):
        return self.sign_sums[: self.size]

    def start(self, signs):
        """Start from a labelling (+1 / -1, int8), modified in place later.

        The first constraint is then the most violated one at w = 0, where
        every sample lies inside the margin, with the signs of the labelling:
        decision values of those signs and of magnitude below 1 stand for it.
        """
        self.signs = signs
        self.decision[:] = 0.5 * signs

    def loss(self):
        """Mean hinge loss ``(1/n) sum_i max(0, 1 - |f_i|)`` at the iterate."""
        return mean_hinge_loss(self.decision, absolute=True)

    def squared_norm(self):
        return float(self.coef @ self.coef)

    def solution(self):
        return self.coef, self.intercept

    def solve(self):
        """Solve the dual QP and recover (w, b)."""
        lam = self.dual.solve(self.gram(), self.offsets, self.slopes)
        self.coef = self.coef_from(lam)
        # For fixed w the optimal b minimises the largest constraint
        # violation over the interval allowed by the class balance.
        centre = self.coef @ self.x_mean
        self.intercept, _ = minimize_max_affine(
            self.slack_terms(self.coef),
            self.slopes,
            -self.class_balance - centre,
            self.class_balance - centre,
        )

    def update(self):
        """Decision values and signs at the new (w, b); update the statistics."""
        decision_values(self.X, self.coef, self.intercept, out=self.decision)
        n_flipped = flip_signs(self.decision, self.signs, self._flipped)
        return self.apply_flips(self.signs, self._flipped, n_flipped)

    def release(self):
        """The signs were never held fixed: the run is over."""
        return False

    def n_empty_clusters(self):
        """Clusters without a sample at the iterate (0, 1 or 2)."""
        n_positive = int((self.signs > 0).sum())
        return int(n_positive == 0) + int(n_positive == len(self.signs))

    @property
    def free(self):
        """Whether the iterate is a solution whose signs follow it: from the
        first solve on (the start, w = 0, is not one)."""
        return self.size > 0

    def snapshot(self):
        """The iterate and its signs, for :meth:`restore`."""
        return self.coef.copy(), self.intercept, self.signs.copy()

    def restore(self, snapshot):
        """Go back to an iterate kept by :meth:`snapshot`, at the end of a run
        (the constraints stay as they are)."""
        self.coef, self.intercept, signs = snapshot
        self.signs[:] = signs

    def slack(self):
        """Slack of the restricted problem at (w, b)."""
        slack = self.slack_terms(self.coef) - self.slopes * self.intercept
        return max(0.0, float(slack.max()))

    def add_most_violated(self):
        """Append the most violated constraint at the iterate (eq. 3.12).

        Returns the violation ``(1/n) sum_i max(0, 1 - |f_i|)``. The caller
        decides whether to keep the constraint: :meth:`commit` does.
        """
        decision = self.decision
        if self.size == self.constraints.shape[1]:
            self._grow()
        k = self.size
        violation, size, sign_sum = self._most_violated(
            decision, self.constraints, k, self.Z[k]
        )
        self.sizes[k] = size
        self.sign_sums[k] = sign_sum
        return violation

    def commit(self):
        """Keep the constraint written by the last :meth:`add_most_violated`."""
        k = self.size
        z = self.Z[k]
        row = self.Z[: k + 1] @ z
        self.ZZt[k, : k + 1] = row
        self.ZZt[: k + 1, k] = row
        self.Z_mean[k] = z @ self.x_mean
        self.size += 1

    def apply_flips(self, signs, flipped, n_flipped):
        """Update the statistics after the signs of ``flipped`` changed.

        Returns the number of (sample, constraint) memberships updated.
        """
        if n_flipped == 0:
            return 0
        return self._apply_flips(
            flipped,
            n_flipped,
            signs,
            self.constraints,
            self.size,
            self.x_mean,
            Z=self.Z,
            sign_sums=self.sign_sums,
            gram=self.ZZt,
            Z_mean=self.Z_mean,
            projections=self._projections,
        )

    def gram(self):
        """Gram matrix of the centred constraint vectors ``z_k - s_k x_mean``."""
        k = self.size
        s = self.sign_sums[:k]
        # G = ZZ' - u s' - s u' + |x_mean|^2 s s' = ZZ' - v s' - s v'
        # with u = Z x_mean and v = u - |x_mean|^2 s / 2.
        v = self.Z_mean[:k] - (0.5 * self.mean_sq_norm) * s
        cross = np.outer(v, s)
        gram = self.ZZt[:k, :k] - cross
        gram -= cross.T
        return gram

    def coef_from(self, lam):
        """Primal ``w = sum_k lam_k (z_k - s_k x_mean)`` of a dual solution."""
        k = self.size
        return lam @ self.Z[:k] - (lam @ self.sign_sums[:k]) * self.x_mean

    def slack_terms(self, coef):
        """``offsets - Z coef``: constraint k reads ``xi >= term_k - s_k b``."""
        return self.offsets - self.Z[: self.size] @ coef


@fill_doc(
    feature_map_parameters=FEATURE_MAP_PARAMETERS, n_iter_no_change=N_ITER_NO_CHANGE
)
class CPMMC(_BinaryCuttingPlane):
    """Maximum margin clustering into two clusters by the cutting-plane method.

    CPMMC (Zhao, Wang and Zhang, 2008) looks for the hyperplane
    ``f(x) = w.x + b`` that separates the data into two clusters with the
    largest soft margin::

        min_{w, b}  s/2 |w|^2 + C/n sum_i max(0, 1 - |w.x_i + b|)
        s.t.        |mean_i (w.x_i + b)| <= class_balance

    and labels sample i by the side it falls on. The balance constraint
    (eq. 3.15 of the paper, with ``l = class_balance * n``) excludes the
    trivial solutions that put every sample in one cluster. The problem is
    solved by the cutting-plane algorithm: constraints ``c in {0, 1}^n`` are
    added one at a time (the most violated, eq. 3.12), and each restricted
    problem is solved by the constrained concave-convex procedure (CCCP),
    whose subproblems are small dual QPs with one variable per constraint.
    The time is linear in the number of non-zeros of X.

    Here ``s`` is the variance of the data along its principal direction
    (the largest eigenvalue of its covariance, estimated by a few steps of
    subspace iteration, which the ``"pca"`` start reuses). The paper has
    ``s = 1``; with
    ``s`` the objective, and so the clustering, does not change when X is
    multiplied by a constant, and one default for ``C`` serves dense data
    scaled to [0, 1], standardised data and unit-norm sparse rows alike. The
    loss is averaged over the samples, as in the paper, so ``C`` does not
    depend on n_samples either.

    The problem is not convex, so ``n_init`` runs start from different
    labellings and the run with the lowest objective (``objective_``) is
    kept; the true labels are never involved.

    Parameters
    ----------
    C : float or "auto", default="auto"
        Weight of the mean hinge loss against the margin term, relative to
        the spread of the data (see above). Larger values trade margin for
        fewer samples inside it; too small a value makes ``w = 0`` (one
        cluster) optimal. ``"auto"`` is 20 with the linear kernel and 100
        with any other (see Notes).

    class_balance : "auto" or float, default="auto"
        Bound on the absolute mean decision value ``|mean_i f(x_i)|``: 0 asks
        for decision values that sum to zero, larger values allow more
        unequal clusters. ``"auto"`` sets it from the data without labels:
        0.03 (the paper's bound) when the two clusters of k-means (the best
        of 10 runs on at most 2000 sampled rows; sparse X of more rows keeps
        0.03) are as even as sampling noise allows (their proportions differ
        by at most ``3 / sqrt(n)`` for the n rows used), else their
        imbalance ``|n_1 - n_2| / n`` plus 0.03. The bound used is ``class_balance_``.

    epsilon : float, default=0.01
        Precision of the cutting-plane method: it stops when no constraint is
        violated by more than ``epsilon`` beyond the current slack.

    tol : float, default=1e-4
        CCCP stops when its objective decreases by less than ``tol`` times
        its value (or when no sign changes).

    max_iter : int, default=100
        Maximum number of cutting-plane iterations (constraints) per run.

    max_cccp_iter : int, default=50
        Maximum number of CCCP iterations after each new constraint.

    {n_iter_no_change}
    {feature_map_parameters}

    init : {"auto", "pca", "kmeans", "random"} or array-like of shape \
            (n_samples,), default="auto"
        Initial labelling of each run: ``"pca"`` splits at the median along
        the principal direction, ``"kmeans"`` uses one run of 2-means,
        ``"random"`` splits at the median along a random direction, and
        ``"auto"`` uses them in that order (then random directions). An array
        gives the initial cluster of each sample (two distinct values).

    n_init : int, default=3
        Number of runs from different initial labellings.

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
        is positive). The clusters are named so that the first sample is in
        cluster 0.

    coef_ : ndarray of shape (n_features,)
        Normal vector w of the separating hyperplane.

    intercept_ : float
        Offset b of the hyperplane.

    objective_ : float
        Value of the MMC objective above at the solution (the quantity
        minimised over restarts).

    class_balance_ : float
        The balance bound the runs used: ``class_balance``, or the value
        ``"auto"`` chose.

    n_iter_ : int
        Number of cutting-plane iterations of the selected run.

    n_constraints_ : int
        Number of constraints in the working set of the selected run.

    n_features_in_ : int
        Number of features seen during fit.

    kernel_map_ : KernelFeatureMap
        The fitted feature map (only with a kernel other than ``"linear"``);
        ``coef_`` then holds weights on its features.

    Notes
    -----
    The defaults were chosen by experiment (``bench/``): on the 45 digit
    pairs of ``load_digits`` (features / 16), on ``load_breast_cancer``,
    ``load_wine`` and ``load_iris`` (standardised, class pairs) and on sparse
    text-like data, ``C=20`` with ``class_balance=0.03`` was as accurate as
    any value tried and fast; larger C slows the cutting plane down (more
    constraints) without a gain, and C=10 clusters 3 vs 8 less well. More
    than 3 restarts changed no result on the digits for four seeds.

    With a non-linear kernel the spread of the mapped data is concentrated
    on a few directions (the top eigenvalues of the kernel matrix), so the
    same relative C fits the data less: C=20 splits two moons
    (``make_moons``) across the moons for most seeds, C=100 along them for
    every seed tried, and is as good as C=20 on the digit pairs with the
    rbf kernel.

    MMC can prefer a split that is not the one a user has in mind: on some
    digit pairs a split by writing style has a larger margin than the split
    by digit (``bench/studies/cpmmc_objective.md``).

    See Also
    --------
    sklearn.cluster.KMeans : Clustering by distances to centroids.

    References
    ----------
    B. Zhao, F. Wang and C. Zhang. Efficient maximum margin clustering via
    cutting plane algorithm. SIAM International Conference on Data Mining,
    2008.

    Examples
    --------
    >>> import numpy as np
    >>> from mmc import CPMMC
    >>> X = np.array([[0.0, 0.1], [0.2, 0.0], [0.1, 0.2],
    ...               [3.0, 3.1], [3.2, 3.0], [3.1, 3.2]])
    >>> est = CPMMC(random_state=0).fit(X)
    >>> est.labels_[:3].tolist() != est.labels_[3:].tolist()
    True
    >>> bool(np.all(est.labels_[:3] == est.labels_[0]))
    True
    """

    def __init__(
        self,
        C="auto",
        class_balance="auto",
        epsilon=0.01,
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
        n_init=3,
        random_state=None,
        n_jobs=None,
        verbose=0,
    ):
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
        self : CPMMC
            The fitted estimator.
        """
        return self._fit(X)

    _takes_dask = True

    def _make_working_set(self, X, x_mean, capacity, C, class_balance):
        if isinstance(X, RowBlocks):
            # Imported here: mmc._dask_cpmmc builds on this module.
            from mmc._dask_cpmmc import DaskSubsetConstraints

            return DaskSubsetConstraints(X, x_mean, capacity, C, class_balance)
        return _SubsetConstraints(X, x_mean, capacity, C, class_balance)
