"""Maximum margin clustering with a multivariate loss (MultivariateMMC)."""

from numbers import Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import _fit_context
from sklearn.utils._openmp_helpers import _openmp_effective_n_threads
from sklearn.utils._param_validation import Interval, StrOptions

from mmc._core._multivariate import (
    LOSS_ERROR,
    LOSS_FBETA,
    LOSS_NMI,
    LOSS_RAND,
    add_flipped_rows_dense,
    add_flipped_rows_sparse,
    most_violated_table,
    signed_row_sum_dense,
    signed_row_sum_sparse,
    table_losses,
    update_tables,
    xlogx_table,
)
from mmc._cutting_plane import _BinaryCuttingPlane, grow_columns, grow_rows

_LOSS_CODES = {
    "error": LOSS_ERROR,
    "nmi": LOSS_NMI,
    "rand": LOSS_RAND,
    "fbeta": LOSS_FBETA,
}


class _LabellingConstraints:
    """Working set of MultivariateMMC: constraints given by whole labellings.

    With s the current signs and y' a stored labelling, the constraint of y'
    linearised at s reads (DESIGN.md section 4)

        xi >= loss(y', s) - z.w - slope b,
        z = (1/n) sum_i (s_i - y'_i) x_i = m - u,   slope = mean(s) - mean(y'),

    with ``m = (1/n) sum_i s_i x_i`` shared by all constraints and
    ``u = (1/n) sum_i y'_i x_i`` fixed. The centred vectors of the dual are
    then ``p - q_k`` with ``p = m - mean(s) x_mean`` and ``q_k = u_k -
    mean(y'_k) x_mean``, so the Gram matrix is
    ``|p|^2 - (Qp) 1' - 1 (Qp)' + QQ'``, where QQ' only gains a row per new
    constraint. A sign flip moves m by one row of X and changes the
    contingency table of every labelling by one count, from which the losses
    are recomputed in O(1) each.
    """

    def __init__(self, X, x_mean, capacity, loss, beta, n_threads):
        n_samples, n_features = X.shape
        self.X = X
        self.x_mean = x_mean
        self.sparse = sp.issparse(X)
        self.loss_code = _LOSS_CODES[loss]
        self.beta = beta
        self.n_threads = n_threads
        self.xlogx = xlogx_table(n_samples)
        self.size = 0
        self.labellings = np.zeros((n_samples, capacity), dtype=np.uint8)
        self.Q = np.zeros((capacity, n_features))
        self.QQt = np.zeros((capacity, capacity))
        self.label_means = np.zeros(capacity)
        self.tables = np.zeros((capacity, 4), dtype=np.int64)
        self.losses = np.zeros(capacity)
        self.m = None  # (1/n) sum_i s_i x_i, set from the first signs seen
        self.sign_mean = 0.0

    def _signed_mean(self, labels):
        out = np.empty(self.X.shape[1])
        if self.sparse:
            X = self.X
            signed_row_sum_sparse(X.data, X.indices, X.indptr, labels, out)
        else:
            signed_row_sum_dense(self.X, labels, out)
        return out

    def _grow(self):
        capacity = 2 * self.labellings.shape[1]
        self.labellings = grow_columns(self.labellings, capacity)
        self.QQt = grow_columns(grow_rows(self.QQt, capacity), capacity)
        for name in ("Q", "label_means", "tables", "losses"):
            grow_rows(getattr(self, name), capacity)

    def _most_violated(self, decision):
        """Most violated labelling at ``decision``: (labels, table, violation)."""
        signs = np.where(decision > 0, 1, -1).astype(np.int8)
        magnitude = np.abs(decision)
        positive = np.flatnonzero(signs > 0)
        negative = np.flatnonzero(signs < 0)
        # Within each side, the samples closest to the hyperplane are the
        # cheapest to relabel: sort each side once by |f|.
        positive = positive[np.argsort(magnitude[positive], kind="stable")]
        negative = negative[np.argsort(magnitude[negative], kind="stable")]
        pos_prefix = np.concatenate([[0.0], np.cumsum(magnitude[positive])])
        neg_prefix = np.concatenate([[0.0], np.cumsum(magnitude[negative])])
        # Waking threads costs more than scanning a few million tables.
        n_tables = pos_prefix.size * neg_prefix.size
        n_threads = self.n_threads if n_tables > 4_000_000 else 1
        c, b, violation = most_violated_table(
            pos_prefix, neg_prefix, self.loss_code, self.beta, self.xlogx, n_threads
        )
        labels = signs.copy()
        labels[positive[:c]] = -1
        labels[negative[:b]] = 1
        table = (positive.size - c, b, c, negative.size - b)
        return labels, table, violation

    def add_most_violated(self, decision):
        """Append the most violated labelling at ``decision`` (eq. 18)."""
        if self.m is None:
            signs = np.where(decision > 0, 1, -1).astype(np.int8)
            self.m = self._signed_mean(signs)
            self.sign_mean = float(signs.mean())
        if self.size == self.labellings.shape[1]:
            self._grow()
        k = self.size
        labels, table, violation = self._most_violated(decision)
        self.labellings[:, k] = labels > 0
        label_mean = float(labels.mean())
        self.Q[k] = self._signed_mean(labels) - label_mean * self.x_mean
        self.label_means[k] = label_mean
        self.tables[k] = table
        table_losses(
            self.tables[k : k + 1], self.loss_code, self.beta, self.xlogx,
            self.losses[k : k + 1],
        )  # fmt: skip
        return violation

    def commit(self):
        """Keep the labelling written by the last :meth:`add_most_violated`."""
        k = self.size
        row = self.Q[: k + 1] @ self.Q[k]
        self.QQt[k, : k + 1] = row
        self.QQt[: k + 1, k] = row
        self.size += 1

    def apply_flips(self, signs, flipped, n_flipped):
        """Move m and the contingency tables after the signs of ``flipped`` changed.

        Every flip changes every constraint; returns ``n_flipped``.
        """
        if n_flipped == 0:
            return 0
        k = self.size
        if self.sparse:
            X = self.X
            add_flipped_rows_sparse(
                X.data, X.indices, X.indptr, flipped, n_flipped, signs, self.m
            )
        else:
            add_flipped_rows_dense(self.X, flipped, n_flipped, signs, self.m)
        self.sign_mean += 2.0 * float(signs[flipped[:n_flipped]].sum()) / len(signs)
        update_tables(flipped, n_flipped, signs, self.labellings, k, self.tables)
        table_losses(
            self.tables[:k], self.loss_code, self.beta, self.xlogx, self.losses[:k]
        )
        return n_flipped

    @property
    def offsets(self):
        return self.losses[: self.size]

    @property
    def slopes(self):
        return self.sign_mean - self.label_means[: self.size]

    def _centred_mean(self):
        return self.m - self.sign_mean * self.x_mean

    def gram(self):
        """Gram matrix of the centred constraint vectors ``p - q_k``."""
        k = self.size
        p = self._centred_mean()
        Qp = self.Q[:k] @ p
        gram = self.QQt[:k, :k] - Qp[:, None]
        gram -= Qp[None, :]
        gram += p @ p
        return gram

    def coef(self, lam):
        """Primal ``w = sum_k lam_k (p - q_k)`` of a dual solution."""
        k = self.size
        return lam.sum() * self._centred_mean() - lam @ self.Q[:k]

    def slack_terms(self, coef):
        """``losses - z_k.coef`` with ``z_k = m - q_k - mean(y'_k) x_mean``."""
        k = self.size
        z_coef = (
            self.m @ coef
            - self.Q[:k] @ coef
            - self.label_means[:k] * (self.x_mean @ coef)
        )
        return self.losses[:k] - z_coef

    def loss(self, decision):
        """Violation of the most violated labelling at ``decision``."""
        return self._most_violated(decision)[2]


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
    is found exactly by scanning all O(n^2) contingency tables after sorting
    each side of the current clustering once.

    With ``loss="error"`` the problem is that of :class:`CPMMC` with twice
    the C (Theorem 2 of the paper): ``MultivariateMMC(loss="error", C=c)``
    finds the clustering of ``CPMMC(C=2 * c)``.

    Parameters
    ----------
    loss : {"nmi", "rand", "fbeta", "error"}, default="nmi"
        Loss of a labelling against the current clustering.

    beta : float, default=1.0
        Weight of recall against precision in the pair-counting F_beta
        (``loss="fbeta"`` only); must be positive.

    C : float, default=10.0
        Weight of the loss against the margin term, relative to the spread
        of the data (see above). The default was chosen on the digit pairs
        of ``load_digits`` and on ``load_breast_cancer``, ``load_wine`` and
        ``load_iris``: 10 gave a higher mean NMI than CPMMC with both the NMI
        and the Rand losses, in a third of the time of C=20.

    class_balance : float, default=0.03
        Bound on the absolute mean decision value ``|mean_i f(x_i)|``.

    epsilon : float, default=0.01
        Precision of the cutting-plane method.

    tol : float, default=1e-4
        CCCP stops when its objective decreases by less than ``tol`` times
        its value (or when no sign changes).

    max_iter : int, default=100
        Maximum number of cutting-plane iterations (constraints) per run.

    max_cccp_iter : int, default=50
        Maximum number of CCCP iterations after each new constraint.

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
        joblib parallel context; ``-1`` uses all processors.

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

    n_iter_ : int
        Number of cutting-plane iterations of the selected run.

    n_constraints_ : int
        Number of labellings in the working set of the selected run.

    n_features_in_ : int
        Number of features seen during fit.

    See Also
    --------
    CPMMC : The same solver with the hinge loss.

    Notes
    -----
    The scan over contingency tables costs O(n_pos n_neg) per cutting-plane
    iteration (about 1e8 tables per second per core), which is what limits
    this estimator to some tens of thousands of samples; the passes over X
    stay O(nnz) as in CPMMC. NMI is normalised by the arithmetic mean of the
    entropies, as in :mod:`mmc.metrics` and scikit-learn (the paper uses the
    geometric mean).

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

    _parameter_constraints: dict = {
        **_BinaryCuttingPlane._parameter_constraints,
        "loss": [StrOptions(set(_LOSS_CODES))],
        "beta": [Interval(Real, 0, None, closed="neither")],
    }

    def __init__(
        self,
        loss="nmi",
        beta=1.0,
        C=10.0,
        class_balance=0.03,
        epsilon=0.01,
        tol=1e-4,
        max_iter=100,
        max_cccp_iter=50,
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

        y : Ignored
            Not used, present for API consistency.

        Returns
        -------
        self : MultivariateMMC
            The fitted estimator.
        """
        return self._fit(X)

    def _make_working_set(self, X, x_mean, capacity):
        return _LabellingConstraints(
            X, x_mean, capacity, self.loss, self.beta,
            _openmp_effective_n_threads(),
        )  # fmt: skip
