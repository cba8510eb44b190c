"""Optimal margin distribution clustering (ODMC) for two clusters."""

import warnings
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import _fit_context
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.parallel import _get_threadpool_controller

from mmc._base import (
    _BaseMMC,
    _FeatureMapMixin,
    _LinearDecisionMixin,
    column_means,
    decision_values,
)
from mmc._core._odmc import (
    balanced_signs,
    coordinate_epoch_dense,
    coordinate_epoch_sparse,
    labelling_sums_dense,
    labelling_sums_sparse,
    mixture_margins_dense,
    mixture_margins_sparse,
    row_sq_norms_dense,
    row_sq_norms_sparse,
)
from mmc._init import (
    initial_signs,
    median_split,
    principal_component,
    principal_directions,
    start_methods,
)

_MAX_INT = np.iinfo(np.int32).max

# Mirror-descent steps on one working set before a new labelling is sought
# even though the duality gap is still above tol.
_MAX_STEPS_PER_SET = 50
# Blocks of the random visiting order of the coordinate steps.
_N_BLOCKS = 256
# Alternations of the labelling generator (each costs two passes over X).
_GENERATOR_ITER = 10
# The step of the entropic update of mu is boost / curvature (see
# _LabellingWorkingSet.margins); the boost shrinks when a step increases the
# duality gap and grows otherwise, within [_ETA_MIN, _ETA_MAX].
_ETA_GROWTH = 1.25
_ETA_SHRINK = 0.7
_ETA_MIN = 0.1
_ETA_MAX = 8.0
_MU_FLOOR = 1e-12
# lam="auto": (linear kernel, any other kernel).
_AUTO_LAM = (2.0, 10.0)
# With a kernel, the refinement starts from the relaxed solution, from
# splits along this many principal directions of the mapped data and from
# the relaxed solutions under the kernel raised to these powers; each start
# is refined by at most _MAX_REFINE_ROUNDS relabellings.
_N_SPECTRAL_SPLITS = 4
_SHARPENING_POWERS = (3, 5)
_MAX_REFINE_ROUNDS = 30
_SHARP_METHODS = ("pca", "kmeans", "random", "random")
_SEARCH_SAMPLES = 2000


class _LabellingWorkingSet:
    """The working set B of labellings and the iterate (mu, alpha) on it.

    Holds the labellings as the columns of an int8 matrix ``Y`` (sample-major),
    their weights ``mu`` on the simplex, the dual variables ``a1, a2`` (the
    paper's alpha in units of lam / n, in the box ``[0, tau]``) and, per
    labelling, the statistics ``U, sigma, ubar`` from which
    ``z_k = (1/n) sum_i b_i y_ik (x_i - x_mean)`` is read (see
    ``mmc/_core/_odmc.pyx``). All values are per sample and divided by lam:
    ``G(alpha, y_k) / lam = -lam'/2 |z_k|^2 + S(alpha)`` with ``lam'`` the
    lam of the estimator divided by the squared scale of the data and ``S``
    the separable part of the dual.
    """

    def __init__(self, X, x_mean, lam, nu, theta, tau, capacity):
        n_samples, n_features = X.shape
        self.X = X
        self.sparse = sp.issparse(X)
        self.x_mean = x_mean
        self.mean_sq = float(x_mean @ x_mean)
        self.lam = lam
        self.nu = nu
        self.theta = theta
        self.tau = tau
        self.row_mean_dot = decision_values(X, x_mean, 0.0)
        sq = np.empty(n_samples)
        if self.sparse:
            row_sq_norms_sparse(X.data, X.indices, X.indptr, sq)
        else:
            row_sq_norms_dense(X, sq)
        # |x_i - x_mean|^2, clipped at 0 against cancellation.
        self.row_sq_norm = np.maximum(sq - 2 * self.row_mean_dot + self.mean_sq, 0.0)
        self.a1 = np.zeros(n_samples)
        self.a2 = np.zeros(n_samples)
        self.size = 0
        self.Y = np.zeros((n_samples, capacity), dtype=np.int8)
        self.U = np.zeros((capacity, n_features))
        self.sigma = np.zeros(capacity)
        self.ubar = np.zeros(capacity)
        self.mu = np.zeros(capacity)
        self._margins = np.empty(n_samples)
        self._weights = np.empty(n_samples)
        self._spread = np.zeros(capacity)
        self._scratch = np.zeros(capacity)
        self._y = np.empty(n_samples, dtype=np.int8)
        self._u = np.zeros((1, n_features))
        self._s = np.zeros(1)

    # -- statistics ---------------------------------------------------------

    def _sums(self, Y, n_labellings, U, sigma):
        X = self.X
        b = self.a1 - self.a2
        if self.sparse:
            labelling_sums_sparse(
                X.data, X.indices, X.indptr, b, Y, n_labellings, U, sigma
            )
        else:
            labelling_sums_dense(X, b, Y, n_labellings, U, sigma)

    def refresh(self):
        """Recompute the statistics of every labelling from scratch."""
        k = self.size
        self._sums(self.Y, k, self.U, self.sigma)
        self.ubar[:k] = self.U[:k] @ self.x_mean

    def add(self, y, weight):
        """Append labelling ``y`` with weight ``weight`` (mu is rescaled)."""
        k = self.size
        if k == self.Y.shape[1]:
            capacity = 2 * k
            Y = np.zeros((self.Y.shape[0], capacity), dtype=np.int8)
            Y[:, :k] = self.Y
            self.Y = Y
            for name in ("U", "sigma", "ubar", "mu", "_spread", "_scratch"):
                array = getattr(self, name)
                grown = np.zeros((capacity,) + array.shape[1:])
                grown[:k] = array[:k]
                setattr(self, name, grown)
        self.Y[:, k] = y
        self._sums(
            np.ascontiguousarray(self.Y[:, k : k + 1]),
            1,
            self.U[k : k + 1],
            self.sigma[k : k + 1],
        )
        self.ubar[k] = self.U[k] @ self.x_mean
        self.mu[:k] *= 1.0 - weight
        self.mu[k] = weight
        self.size += 1

    def contains(self, y):
        """Whether ``y`` or ``-y`` is already in the working set."""
        if self.size == 0:
            return False
        agreement = np.abs(y.astype(np.int64) @ self.Y[:, : self.size])
        return bool(np.any(agreement == y.shape[0]))

    def z_sq_norms(self):
        """``|z_k|^2`` for every labelling."""
        k = self.size
        U = self.U[:k]
        s = self.sigma[:k]
        sq = np.einsum("ij,ij->i", U, U)
        return np.maximum(sq - 2 * s * self.ubar[:k] + s * s * self.mean_sq, 0.0)

    def separable(self, a1=None, a2=None):
        """Separable part ``S(alpha)`` of the dual, per sample."""
        a1 = self.a1 if a1 is None else a1
        a2 = self.a2 if a2 is None else a2
        theta = self.theta
        c1 = 0.5 * (1 - theta) ** 2
        c2 = c1 / self.nu
        return float(
            np.mean((1 - theta - 0.5 * c1 * a1) * a1 - (1 + theta + 0.5 * c2 * a2) * a2)
        )

    def values(self):
        """``G(alpha, y_k) / lam`` for every labelling k of the working set."""
        return -0.5 * self.lam * self.z_sq_norms() + self.separable()

    def margins(self):
        """``r_i = lam' sum_k mu_k y_ik (x_i - x_mean) . z_k`` for every sample.

        Also sets ``curvature``, an estimate of the largest curvature of
        ``F(mu) = max_alpha phi(mu, alpha)`` along a labelling:
        ``max_k (1/n) sum_i (r_ik - r_i)^2 / (c_i + q_i)`` over the samples
        with a positive dual variable, where ``r_ik`` is the margin under
        labelling k alone and ``c_i + q_i`` the curvature of the dual along
        sample i (the sensitivity of ``G(alpha*(mu), y_k)`` to mu, with the
        Hessian in alpha replaced by its diagonal).
        """
        X = self.X
        n_samples = X.shape[0]
        c1 = 0.5 * (1 - self.theta) ** 2
        q = self.lam * self.row_sq_norm / n_samples
        weights = self._weights
        weights[:] = 0.0
        np.divide(1.0, n_samples * (c1 + q), out=weights, where=self.a1 > 0)
        np.divide(1.0, n_samples * (c1 / self.nu + q), out=weights, where=self.a2 > 0)
        args = (
            self.row_mean_dot, self.mean_sq, self.Y, self.size, self.mu, self.lam,
            self.U, self.sigma, self.ubar, weights, self._margins, self._spread,
            self._scratch,
        )  # fmt: skip
        if self.sparse:
            mixture_margins_sparse(X.data, X.indices, X.indptr, *args)
        else:
            mixture_margins_dense(X, *args)
        self.curvature = float(self._spread[: self.size].max())
        return self._margins

    def gradient(self):
        """Gradient of ``phi(mu, alpha) / lam`` in ``(a1, a2)``.

        ``d/da1_i = (1/n) (1 - theta - r_i - c1 a1_i)`` and
        ``d/da2_i = (1/n) (r_i - 1 - theta - c2 a2_i)`` with the margins r of
        :meth:`margins`: one product ``X'(b o y_k)`` (kept in U) and one
        ``X z_k`` per labelling, O(nnz) each.
        """
        r = self.margins()
        theta = self.theta
        c1 = 0.5 * (1 - theta) ** 2
        c2 = c1 / self.nu
        n_samples = r.shape[0]
        g1 = (1 - theta - r - c1 * self.a1) / n_samples
        g2 = (r - 1 - theta - c2 * self.a2) / n_samples
        return g1, g2

    # -- mirror descent -----------------------------------------------------

    def epoch(self, order):
        """Coordinate steps on alpha at every sample of ``order`` (the alpha step)."""
        X = self.X
        args = (
            self.row_mean_dot, self.mean_sq, self.row_sq_norm, self.Y, self.size,
            self.mu, order, self.lam, self.theta, self.nu, self.tau, self.a1,
            self.a2, self.U, self.sigma, self.ubar,
        )  # fmt: skip
        if self.sparse:
            return coordinate_epoch_sparse(X.data, X.indices, X.indptr, *args)
        return coordinate_epoch_dense(X, *args)

    def mu_step(self, values, eta):
        """Entropic mirror step on mu: ``mu_k <- mu_k exp(-eta G_k)``, normalised."""
        k = self.size
        mu = self.mu[:k]
        mu *= np.exp(-eta * (values - values.min()))
        mu /= mu.sum()
        # A floor keeps every labelling able to come back within a few steps
        # (a weight that underflowed to zero never would).
        np.maximum(mu, _MU_FLOOR, out=mu)
        mu /= mu.sum()

    def gap(self, values):
        """Upper and lower bounds on the saddle value on this working set.

        The lower bound is ``min_mu phi(mu, alpha) = min_k G(alpha, y_k)``. The
        upper bound majorises ``max_alpha phi(mu, alpha)``: each coupling term
        ``-lam'/2 |z_k(alpha)|^2`` is concave, so its tangent at the current
        alpha lies above it; with the tangent the maximisation over the box
        separates by sample and is solved in closed form. The bound is exact
        when alpha maximises ``phi(mu, .)``, so ``upper - lower`` is a duality
        gap that vanishes at the saddle point.
        """
        k = self.size
        mu = self.mu[:k]
        r = self.margins()
        theta = self.theta
        c1 = 0.5 * (1 - theta) ** 2
        c2 = c1 / self.nu
        a1 = np.clip((1 - theta - r) / c1, 0.0, self.tau)
        a2 = np.clip((r - 1 - theta) / c2, 0.0, self.tau)
        best = np.mean((1 - theta - r - 0.5 * c1 * a1) * a1) + np.mean(
            (r - 1 - theta - 0.5 * c2 * a2) * a2
        )
        upper = 0.5 * self.lam * float(mu @ self.z_sq_norms()) + best
        lower = float(values.min())
        return upper, lower

    # -- the model and the labelling generator -------------------------------

    def direction(self):
        """``z = sum_k mu_k z_k``, the normal of the mixture's hyperplane / lam'."""
        k = self.size
        mu = self.mu[:k]
        return mu @ self.U[:k] - float(mu @ self.sigma[:k]) * self.x_mean

    def decision(self):
        """Decision values of the mixture, ``lam' (x_i - x_mean) . z``."""
        coef = self.lam * self.direction()
        return decision_values(self.X, coef, -float(coef @ self.x_mean))

    def most_violated(self, bound):
        """Heuristic ``argmin_y G(alpha, y)`` over the balanced labellings.

        Minimising G over y maximises ``|z(y)|^2 = |(1/n) X_c'(b o y)|^2``, a
        convex function of y: each alternation takes the labelling that
        maximises its linearisation at the current direction v,
        ``y_i = sign(b_i (x_i - x_mean) . v)`` with the balance repaired, and
        then ``v = z(y)``, so ``|z|`` never decreases. Samples with
        ``b_i = 0`` do not enter G and follow the side of the hyperplane.

        Returns
        -------
        y : ndarray of shape (n_samples,), dtype=int8
        value : float
            ``G(alpha, y) / lam``.
        """
        b = self.a1 - self.a2
        v = self.direction()
        y = self._y
        previous = None
        sq = 0.0
        for _ in range(_GENERATOR_ITER):
            p = decision_values(self.X, v, -float(v @ self.x_mean))
            balanced_signs(b * p, p, bound, y)
            if previous is not None and np.array_equal(previous, y):
                break
            previous = y.copy()
            self._sums(y[:, None], 1, self._u, self._s)
            v = self._u[0] - self._s[0] * self.x_mean
            sq = float(v @ v)
        return previous, -0.5 * self.lam * sq + self.separable()


def _visiting_order(n_samples, rng):
    """Random order of the coordinate steps, by blocks of consecutive samples.

    The blocks (at least ``_N_BLOCKS`` of them) are visited in random order
    and the samples of a block in sequence: a random order at the scale of
    the data, but one that reads X by contiguous stretches (a fully random
    order makes the epoch several times slower on large sparse data).
    """
    block = max(1, n_samples // _N_BLOCKS)
    starts = rng.permutation(np.arange(0, n_samples, block, dtype=np.int32))
    order = (starts[:, None] + np.arange(block, dtype=np.int32)).ravel()
    return order[order < n_samples]


def _odmc_run(ws, starts, *, bound, tol, max_iter, rng, verbose):
    """Mirror descent over the labellings of ``ws``, growing the working set.

    Returns
    -------
    result : dict
        ``objective`` (the saddle value / lam), ``gap``, ``n_iter``,
        ``converged``.
    """
    n_samples = ws.X.shape[0]
    for y in starts:
        if not ws.contains(y):
            ws.add(y, 1.0 / (ws.size + 1))
    n_iter = 0
    converged = False
    upper = lower = value = 0.0
    boost = 1.0
    curvature = None
    previous_value = np.inf
    while n_iter < max_iter:
        inner_converged = False
        previous_gap = np.inf
        for _ in range(_MAX_STEPS_PER_SET):
            order = _visiting_order(n_samples, rng)
            ws.epoch(order)
            n_iter += 1
            values = ws.values()
            value = float(ws.mu[: ws.size] @ values)
            scale = max(abs(value), 1e-12)
            if curvature is not None:
                # Entropic step of size 1 / curvature (times the boost), with
                # the curvature measured at the previous step.
                ws.mu_step(values, boost / curvature)
            upper, lower = ws.gap(values)
            curvature = max(ws.curvature, 1e-12 * scale)
            gap = upper - lower
            if verbose > 1:
                print(
                    f"[ODMC] step {n_iter}: {ws.size} labellings, "
                    f"bounds [{lower:.6g}, {upper:.6g}], step {boost / curvature:.3g}"
                )
            if gap <= tol * scale:
                inner_converged = True
                break
            if gap > previous_gap:
                boost = max(boost * _ETA_SHRINK, _ETA_MIN)
            else:
                boost = min(boost * _ETA_GROWTH, _ETA_MAX)
            previous_gap = gap
            if n_iter >= max_iter:
                break
        ws.refresh()
        values = ws.values()
        value = float(ws.mu[: ws.size] @ values)
        if inner_converged and previous_value - value <= tol * abs(value):
            # The last labelling added did not help: the relaxed objective
            # has stopped decreasing.
            converged = True
            break
        previous_value = value
        y_new, g_new = ws.most_violated(bound)
        violated = g_new < lower - tol * max(abs(value), 1e-12)
        if verbose:
            print(
                f"[ODMC] step {n_iter}: {ws.size} labellings, value {value:.6g}, "
                f"gap {(upper - lower) / max(abs(value), 1e-12):.2e}, new labelling "
                f"violation {(lower - g_new) / max(abs(value), 1e-12):.2e}"
            )
        if not violated and inner_converged:
            converged = True
            break
        if violated and not ws.contains(y_new):
            if np.dot(ws.decision(), y_new) < 0:
                y_new = -y_new
            ws.add(y_new, 1.0 / (ws.size + 1))
    if verbose:
        print(
            f"[ODMC] {'converged' if converged else 'stopped'} after {n_iter} "
            f"steps, {ws.size} labellings, objective {value:.6g}"
        )
    return {
        "objective": value,
        "gap": max(upper - lower, 0.0),
        "n_iter": n_iter,
        "converged": converged,
    }


def _balancing_shift(decision, bound):
    """Smallest shift of the threshold that puts at most ``(n + bound) / 2``
    samples on either side of the hyperplane (0 if the split is balanced)."""
    n_samples = decision.shape[0]
    limit = (n_samples + bound) // 2
    n_positive = int(np.count_nonzero(decision > 0))
    if n_samples - limit <= n_positive <= limit:
        return 0.0
    ordered = np.sort(decision)
    # Keep exactly `limit` samples on the crowded side, cutting half-way
    # between the last sample moved and the first one kept.
    if n_positive > limit:
        cut = 0.5 * (ordered[n_samples - limit - 1] + ordered[n_samples - limit])
    else:
        cut = 0.5 * (ordered[limit - 1] + ordered[limit])
    return -cut


def _hyperplane(ws, bound, X=None):
    """The mixture's hyperplane ``(coef, intercept)`` and its decision values
    on X (by default the samples of the working set).

    It passes through the mean of the working set's samples unless the
    threshold has to move to keep the class balance on X.
    """
    X = ws.X if X is None else X
    coef = ws.lam * ws.direction()
    intercept = -float(coef @ ws.x_mean)
    decision = decision_values(X, coef, intercept)
    intercept += _balancing_shift(decision, bound)
    decision = decision_values(X, coef, intercept, out=decision)
    return coef, intercept, decision


def _huber_losses(deviations, curvature, tau):
    """``max_{0 <= a <= tau} a d - curvature a^2 / 2`` for each deviation d.

    The conjugate of the dual's box: ``d^2 / (2 curvature)`` up to the knee
    ``d = curvature tau``, linear beyond it, 0 for ``d <= 0``.
    """
    d = np.maximum(deviations, 0.0)
    if not np.isfinite(tau):
        return d * d / (2 * curvature)
    knee = curvature * tau
    return np.where(
        d <= knee, d * d / (2 * curvature), tau * (d - knee) + 0.5 * curvature * tau**2
    )


def _margin_losses(margins, theta, nu, tau):
    """Loss of ODM at each margin ``y_i f(x_i)`` (per sample, in units of lam / n)."""
    c1 = 0.5 * (1 - theta) ** 2
    return _huber_losses(1 - theta - margins, c1, tau) + _huber_losses(
        margins - 1 - theta, c1 / nu, tau
    )


def _solve_labelling(ws, *, tol, rng):
    """Coordinate epochs on alpha for the single labelling of ``ws``.

    Stops when the duality gap falls below ``tol`` (relative to the value)
    or after ``_MAX_STEPS_PER_SET`` epochs. Returns the number of epochs,
    the value ``G(alpha, y) / lam`` and the gap.
    """
    n_samples = ws.X.shape[0]
    for n_steps in range(1, _MAX_STEPS_PER_SET + 1):
        ws.epoch(_visiting_order(n_samples, rng))
        values = ws.values()
        upper, lower = ws.gap(values)
        if upper - lower <= tol * max(abs(float(values[0])), 1e-12):
            break
    return n_steps, float(values[0]), max(upper - lower, 0.0)


def _refine_labelling(ws, y, *, bound, tol, rng):
    """Descent on the unrelaxed objective from labelling ``y``.

    Alternates the two minimisations of ``min_y min_w``: ODM on the current
    labelling (``ws`` holds it alone, with weight 1), then the labelling of
    lowest loss at the fitted margins, ``y_i = argmin_s loss(s f(x_i))`` with
    the class balance repaired at the least cost. Neither step increases the
    objective; it stops when the labelling repeats, or after
    ``_MAX_REFINE_ROUNDS`` relabellings. The dual variables are kept from one
    labelling to the next as a warm start.

    Returns
    -------
    result : dict
        As :func:`_odmc_run`.
    """
    ws.add(y, 1.0)
    signs = np.empty_like(y)
    n_iter = 0
    for n_rounds in range(1, _MAX_REFINE_ROUNDS + 1):
        n_steps, value, gap = _solve_labelling(ws, tol=tol, rng=rng)
        n_iter += n_steps
        decision = ws.decision()
        gains = _margin_losses(-decision, ws.theta, ws.nu, ws.tau) - _margin_losses(
            decision, ws.theta, ws.nu, ws.tau
        )
        balanced_signs(gains, decision, bound, signs)
        converged = np.array_equal(signs, ws.Y[:, 0])
        if converged or n_rounds == _MAX_REFINE_ROUNDS:
            # Out of rounds, ws keeps the labelling that value belongs to.
            break
        ws.Y[:, 0] = signs
        ws.refresh()
    return {"objective": value, "gap": gap, "n_iter": n_iter, "converged": converged}


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

    **Design.** The paper's set B is exponentially large and its Algorithm 1
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

    **With a kernel** the relaxation is loose: on the mapped samples a
    mixture of labellings fits much better than any single one, and its
    hyperplane can cut across the clusters (two moons and circles split
    across at ``gamma="scale"``, although the true split has the lowest
    value of the unrelaxed objective there). ODMC then solves the paper's
    problem ``min_y min_w`` itself, by descent from several starts, and keeps
    the labelling of lowest objective (never a choice by the labels):

    5. Each start is refined by alternating the two minimisations: ODM on the
       labelling (coordinate epochs on its dual until the duality gap
       closes), then the labelling of lowest loss at the fitted margins
       (with the class balance repaired at the least cost); neither step
       increases the objective, and it stops when the labelling repeats.
    6. The starts are the relaxed solution, median splits along the 4
       leading principal directions of the mapped samples (kernel principal
       components), and, from each of the kernels ``k ** 3`` and ``k ** 5``
       (powers of a kernel are kernels; for rbf, 3 and 5 times its
       ``gamma``), the best of four relaxed runs under that kernel, refined
       there: under a sharper kernel the clusters that follow the shape of
       the data have a wider basin of attraction. Those runs use
       ``lam / power``, as the sharper kernel spreads the data over more
       directions.
    7. On more than 2000 samples the search runs on a random subsample of
       2000; its winner labels every sample by its hyperplane and is refined
       once more on all of them.

    The model is then the ODM of that single labelling (``mu_ == [1.0]``).
    This costs about 20 relaxed runs and refinements on at most 2000
    samples, plus one refinement on all of them.

    Everything touching the samples is O(nnz) per labelling and never builds
    the n x n kernel matrix: G and its gradient are computed through
    ``z_k = (1/n) X'(b o y_k)``, which the coordinate steps update row by
    row (``mmc/_core/_odmc.pyx``).

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

    class_balance : float, default=0.3
        Bound on ``|mean_i y_i|`` for the labellings of the working set.

    max_iter : int, default=500
        Maximum number of mirror-descent steps (epochs) in total.

    tol : float, default=1e-2
        Tolerance on the duality gap and on the violation of a new
        labelling, relative to the objective.

    {feature_map_parameters}

    init : {"auto", "pca", "kmeans", "random"} or array-like of shape \
            (n_samples,), default="auto"
        Initial labellings of the working set: ``"pca"`` splits at the
        median along the principal direction, ``"kmeans"`` uses one run of
        2-means, ``"random"`` splits at the median along a random direction
        and ``"auto"`` uses them in that order. An array gives a single
        initial labelling (two distinct values).

    n_init : int, default=3
        Number of initial labellings in the working set.

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
        Offset of the hyperplane: it passes through the mean of the training
        data, unless the threshold had to move to keep the class balance.

    mu_ : ndarray of shape (``n_constraints_``,)
        Weights of the labellings of the final working set (``[1.0]`` with a
        kernel: the single refined labelling).

    objective_ : float
        Saddle value ``sum_k mu_k G(alpha, y_k)`` of the relaxed problem at
        the solution (in the paper's units, on the scaled data); with a
        kernel, the value of the unrelaxed problem at the refined labelling.

    duality_gap_ : float
        Duality gap bound at the solution, in the same units.

    n_iter_ : int
        Number of mirror-descent steps (epochs), in all runs of the fit.

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
    changed nothing on these data. ``class_balance=0.3`` (the paper's value
    for unbalanced data) lets the unequal classes of breast cancer (37/63)
    through; 0.1 costs 4 points there and gains nothing on the digits.
    ``tol=3e-3`` changed the mean digit-pair error by less than 0.01 point
    for three times the steps.

    With a kernel (``bench/odmc_kernel.md``): at the rbf kernel's
    ``gamma="scale"`` and ``lam=2``, a wrong split of the two moons has a
    lower unrelaxed objective than the true one (0.44 against 0.56), so no
    search can find it; from ``lam=10`` on the true split is the cheapest.
    With ``lam="auto"`` (10) and the refinement, the rbf kernel gives 0.1%
    error on two moons and 0% on circles (n=1000, random_state 0 to 5) and
    a mean of 1.48% over the 45 digit pairs (1.90% with the linear kernel).

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
        "class_balance": [Interval(Real, 0, 1, closed="both")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        **_FeatureMapMixin._feature_map_constraints,
    }

    def __init__(
        self,
        lam="auto",
        nu=0.3,
        theta=0.3,
        tau=10.0,
        class_balance=0.3,
        max_iter=500,
        tol=1e-2,
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
        self.lam = lam
        self.nu = nu
        self.theta = theta
        self.tau = tau
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
        # The refinement with a kernel maps the samples again (under sharper
        # kernels), so they are validated and mapped in two steps.
        X = self._validate_X(X, reset=True)
        features = self._fit_feature_map(X)
        n_samples = features.shape[0]
        random_state = check_random_state(self.random_state)
        lam = self._resolve_lam()
        bound = max(int(self.class_balance * n_samples), n_samples % 2)
        # The dense algebra of the runs is on vectors of the working set's
        # size, where BLAS threads only add synchronisation: one thread, as
        # in CPMMC and KMeans.
        with _get_threadpool_controller().limit(limits=1, user_api="blas"):
            ws, result = self._relaxed_run(features, lam, bound, random_state)
            if self.kernel != "linear":
                ws, result = self._refine(X, ws, result, lam, bound, random_state)
        if not result["converged"]:
            if self.kernel == "linear":
                message = (
                    f"ODMC did not converge within max_iter={self.max_iter} "
                    f"mirror-descent steps; increase max_iter or tol."
                )
            else:
                message = (
                    f"ODMC's refinement of the labelling did not settle within "
                    f"{_MAX_REFINE_ROUNDS} relabellings; increase tol."
                )
            warnings.warn(message, ConvergenceWarning, stacklevel=3)

        coef, intercept, decision = _hyperplane(ws, bound)
        orientation = -1.0 if decision[0] > 0 else 1.0
        self.coef_ = orientation * coef
        self.intercept_ = orientation * intercept
        self.labels_ = (orientation * decision > 0).astype(np.intp)
        self.mu_ = ws.mu[: ws.size].copy()
        self.objective_ = float(lam * result["objective"])
        self.duality_gap_ = float(lam * result["gap"])
        self.n_iter_ = result["n_iter"]
        self.n_constraints_ = ws.size
        if np.unique(self.labels_).size < 2:
            warnings.warn(
                "ODMC put every sample in one cluster: the data has no direction "
                "along which it splits (for example, all samples are identical).",
                ConvergenceWarning,
                stacklevel=3,
            )
        return self

    def _resolve_lam(self):
        """The value of lam, with ``"auto"`` resolved for the kernel."""
        if self.lam != "auto":
            return self.lam
        return _AUTO_LAM[0] if self.kernel == "linear" else _AUTO_LAM[1]

    def _relaxed_run(self, X, lam, bound, random_state, methods=None):
        """The relaxed problem on features X, from the starts of ``init``
        (or of the given initialisation ``methods``).

        Returns the working set and the result of :func:`_odmc_run`.
        """
        n_samples = X.shape[0]
        x_mean = column_means(X)
        principal, top_variance = principal_component(X, x_mean, random_state)
        if methods is not None or isinstance(self.init, str):
            if methods is None:
                methods = start_methods(self.init, self.n_init)
            seeds = random_state.randint(_MAX_INT, size=len(methods))
            starts = [
                initial_signs(X, method, np.random.RandomState(seed), principal)
                for method, seed in zip(methods, seeds)
            ]
        else:
            labels = self._check_init_labels(n_samples)
            if self.n_init != 1:
                warnings.warn(
                    f"Explicit initial labels given in init; starting from them "
                    f"alone instead of n_init={self.n_init} labellings.",
                    RuntimeWarning,
                    stacklevel=4,
                )
            starts = [np.where(labels == 1, 1, -1).astype(np.int8)]
        # G does not see the sign of a labelling, but the mixture's hyperplane
        # does: orient every start like the first.
        starts = [y if y @ starts[0].astype(np.int64) >= 0 else -y for y in starts]
        ws = _LabellingWorkingSet(
            X, x_mean, lam / top_variance, self.nu, self.theta, self.tau,
            capacity=max(8, len(starts)),
        )  # fmt: skip
        result = _odmc_run(
            ws,
            starts,
            bound=bound,
            tol=self.tol,
            max_iter=self.max_iter,
            rng=random_state,
            verbose=self.verbose,
        )
        return ws, result

    def _refine(self, X, ws, result, lam, bound, random_state):
        """With a kernel: the best labelling of the unrelaxed problem found by
        descent from several starts (see "With a kernel" in the class
        docstring). X holds the validated training samples (their kernel
        matrix if ``kernel="precomputed"``), ``ws`` the relaxed run on their
        features.

        Returns the working set holding that labelling alone and its result.
        """
        features = ws.X
        n_samples = features.shape[0]
        n_starts = 1 + _N_SPECTRAL_SPLITS + len(_SHARPENING_POWERS)
        # Every stage draws from a generator of its own, so that rounding
        # differences in one (sparse against dense input) cannot change the
        # random draws of the others: the subsample, the principal
        # directions, each sharpened run and its refinement, the refinement
        # of each start and the last one on all samples.
        n_sharp_runs = len(_SHARP_METHODS) * len(_SHARPENING_POWERS)
        n_seeds = 3 + 2 * n_sharp_runs + n_starts
        seeds = iter(random_state.randint(_MAX_INT, size=n_seeds))
        n_iter = result["n_iter"]

        def refine(X, x_mean, lam, start, bound):
            candidate = _LabellingWorkingSet(
                X, x_mean, lam, self.nu, self.theta, self.tau, capacity=1
            )
            refined = _refine_labelling(
                candidate, start, bound=bound, tol=self.tol,
                rng=np.random.RandomState(next(seeds)),
            )  # fmt: skip
            return candidate, refined

        def signs(working_set, bound, X=None):
            decision = _hyperplane(working_set, bound, X)[2]
            return np.where(decision > 0, 1, -1).astype(np.int8)

        # The search runs on at most _SEARCH_SAMPLES samples; on more, its
        # winner is extended to every sample by its hyperplane and refined
        # once more on all of them.
        rows = np.random.RandomState(next(seeds)).permutation(n_samples)
        rows = np.sort(rows[:_SEARCH_SAMPLES])
        subsample = rows.size < n_samples
        search = features[rows] if subsample else features
        search_mean = column_means(search)
        search_bound = max(int(self.class_balance * rows.size), rows.size % 2)

        starts = [signs(ws, bound)[rows]]
        directions = principal_directions(
            search, search_mean, _N_SPECTRAL_SPLITS, np.random.RandomState(next(seeds))
        )
        starts += [
            median_split(decision_values(search, direction, 0.0))
            for direction in directions
        ]
        for power in _SHARPENING_POWERS:
            # Under the sharper kernel the clusters that follow the shape of
            # the data have a wider basin. The runs there are less regularised
            # (lam / power: the sharper kernel spreads the data over more
            # directions); the best of them, refined there, is refined again
            # below under the kernel itself.
            sharpened = self.kernel_map_.sharpened_features(X, power, rows)
            best_sharp = None
            for method in _SHARP_METHODS:
                sharp_ws, sharp_result = self._relaxed_run(
                    sharpened, lam / power, search_bound,
                    np.random.RandomState(next(seeds)), [method],
                )  # fmt: skip
                refined_ws, refined = refine(
                    sharpened, sharp_ws.x_mean, sharp_ws.lam,
                    signs(sharp_ws, search_bound), search_bound,
                )  # fmt: skip
                n_iter += sharp_result["n_iter"] + refined["n_iter"]
                if best_sharp is None or refined["objective"] < best_sharp[1]:
                    best_sharp = refined_ws.Y[:, 0].copy(), refined["objective"]
            starts.append(best_sharp[0])

        best = None
        for start in starts:
            candidate, refined = refine(
                search, search_mean, ws.lam, start, search_bound
            )
            n_iter += refined["n_iter"]
            # Ties go to the earlier start.
            if best is None or refined["objective"] < best[1]["objective"]:
                best = candidate, refined
        if subsample:
            start = signs(best[0], bound, features)
            best = refine(features, ws.x_mean, ws.lam, start, bound)
            n_iter += best[1]["n_iter"]
        if self.verbose:
            print(
                f"[ODMC] refined {len(starts)} labellings; objective "
                f"{best[1]['objective']:.6g}"
            )
        best[1]["n_iter"] = n_iter
        return best
