"""The relaxed problem of ODMC: a working set of labellings and mirror descent.

ODMC (Zhang and Zhou, 2018) exchanges ``min_y`` and ``max_alpha`` in

    min_{y in B} max_{alpha in box} G(alpha, y),

the dual of the optimal margin distribution machine (ODM) of a labelling
y, which gives the convex-concave saddle problem

    min_{mu in simplex} max_{alpha in box} sum_k mu_k G(alpha, y_k)

over weights mu on labellings (the minimax relaxation of Li et al., 2009).
This module holds the set of labellings on which it is solved
(:class:`LabellingWorkingSet`), the mirror descent that solves it and grows
the set (:func:`relaxed_run`) and the hyperplane read from the solution
(:func:`hyperplane`); the estimator is :class:`mmc.ODMC`, whose module
describes the design.
"""

from collections import namedtuple

import numpy as np

from mmc._core._odmc import (
    coordinate_epoch,
    labelling_sums,
    mixture_margins,
)
from mmc._labelling import balanced_signs
from mmc._rows import (
    column_means,
    decision_values,
    grow_columns,
    grow_rows,
    row_kernel,
    squared_norms,
)
from mmc._seeds import draw_seeds
from mmc._starts import initial_signs, principal_component

# The estimator's parameters that the runs use: those of ODM (nu, theta,
# tau, intercept_scaling), of the solver (tol, max_iter, verbose) and the
# class balance (resolved to a number).
Settings = namedtuple(
    "Settings",
    [
        "nu",
        "theta",
        "tau",
        "intercept_scaling",
        "class_balance",
        "tol",
        "max_iter",
        "verbose",
    ],
)

# Mirror-descent steps on one working set before a new labelling is sought
# even though the duality gap is still above tol.
MAX_STEPS_PER_SET = 50
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


class LabellingWorkingSet:
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

    def __init__(self, X, x_mean, lam, nu, theta, tau, capacity, offset_sq=0.0):
        n_samples, n_features = X.shape
        self.X = X
        self.x_mean = x_mean
        # The offset is the weight of a constant feature of value
        # sqrt(offset_sq) appended to the centred samples: every product of
        # two of them gains offset_sq, which is |x_mean|^2 + offset_sq in the
        # place of |x_mean|^2 in the expansions of the kernels.
        self.offset_sq = float(offset_sq)
        self.mean_sq = float(x_mean @ x_mean) + self.offset_sq
        self.lam = lam
        self.nu = nu
        self.theta = theta
        self.tau = tau
        self.row_mean_dot = decision_values(X, x_mean, 0.0)
        sq = squared_norms(X)
        self._labelling_sums = row_kernel(X, labelling_sums)
        self._epoch = row_kernel(X, coordinate_epoch)
        self._mixture_margins = row_kernel(X, mixture_margins)
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
        self._labelling_sums(self.a1 - self.a2, Y, n_labellings, U, sigma)

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
            self.Y = grow_columns(self.Y, capacity)
            for name in ("U", "sigma", "ubar", "mu", "_spread", "_scratch"):
                grow_rows(getattr(self, name), capacity)
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
        n_samples = self.X.shape[0]
        c1 = 0.5 * (1 - self.theta) ** 2
        q = self.lam * self.row_sq_norm / n_samples
        weights = self._weights
        weights[:] = 0.0
        np.divide(1.0, n_samples * (c1 + q), out=weights, where=self.a1 > 0)
        np.divide(1.0, n_samples * (c1 / self.nu + q), out=weights, where=self.a2 > 0)
        self._mixture_margins(
            self.row_mean_dot,
            self.mean_sq,
            self.Y,
            self.size,
            self.mu,
            self.lam,
            U=self.U,
            sigma=self.sigma,
            ubar=self.ubar,
            weights=weights,
            out=self._margins,
            spread=self._spread,
            scratch=self._scratch,
        )
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
        return self._epoch(
            self.row_mean_dot,
            self.mean_sq,
            self.row_sq_norm,
            self.Y,
            self.size,
            self.mu,
            order,
            lam=self.lam,
            theta=self.theta,
            nu=self.nu,
            tau=self.tau,
            a1=self.a1,
            a2=self.a2,
            U=self.U,
            sigma=self.sigma,
            ubar=self.ubar,
        )

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
        return mu @ self.U[:k] - self.mixture_sigma() * self.x_mean

    def mixture_sigma(self):
        """``sum_k mu_k sigma_k``: the constant feature's weight is
        ``lam' offset_sq`` times it."""
        k = self.size
        return float(self.mu[:k] @ self.sigma[:k])

    def mixture_hyperplane(self):
        """``(coef, intercept)`` of the mixture: the normal ``lam' z`` and the
        intercept through the mean plus the constant feature's weight,
        ``lam' offset_sq sum_k mu_k sigma_k``."""
        coef = self.lam * self.direction()
        intercept = -float(coef @ self.x_mean) + (
            self.lam * self.offset_sq * self.mixture_sigma()
        )
        return coef, intercept

    def decision(self):
        """Decision values of the mixture, ``lam' ((x_i - x_mean) . z + offset_sq
        sum_k mu_k sigma_k)``."""
        return decision_values(self.X, *self.mixture_hyperplane())

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
        # The weight of the constant feature is offset_sq times this sum.
        s = self.mixture_sigma()
        y = self._y
        previous = None
        sq = 0.0
        for _ in range(_GENERATOR_ITER):
            p = decision_values(self.X, v, -float(v @ self.x_mean) + self.offset_sq * s)
            balanced_signs(b * p, bound, ties=p, out=y)
            if previous is not None and np.array_equal(previous, y):
                break
            previous = y.copy()
            self._sums(y[:, None], 1, self._u, self._s)
            s = float(self._s[0])
            v = self._u[0] - s * self.x_mean
            sq = float(v @ v) + self.offset_sq * s * s
        return previous, -0.5 * self.lam * sq + self.separable()


def visiting_order(n_samples, rng):
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


def relaxed_run(ws, starts, *, bound, tol, max_iter, rng, verbose):
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
        for _ in range(MAX_STEPS_PER_SET):
            order = visiting_order(n_samples, rng)
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


def balancing_shift(decision, bound):
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


def hyperplane(ws, bound, X=None):
    """The mixture's hyperplane ``(coef, intercept)`` and its decision values
    on X (by default the samples of the working set).

    It passes through the mean of the working set's samples unless the
    threshold has to move to keep the class balance on X.
    """
    X = ws.X if X is None else X
    coef, intercept = ws.mixture_hyperplane()
    decision = decision_values(X, coef, intercept)
    intercept += balancing_shift(decision, bound)
    decision = decision_values(X, coef, intercept, out=decision)
    return coef, intercept, decision


def relaxed_solution(
    X, *, lam, bound, settings, random_state, methods=None, labels=None
):
    """The relaxed problem on the features X, from initial labellings.

    The working set starts from ``labels`` (initial clusters 0 / 1) if given,
    else from one labelling per initialisation method (see
    :func:`mmc._starts.initial_signs`). X is scaled by the spread along its
    principal direction: ``lam`` is divided by the variance along it.
    ``random_state`` is the stage's generator; it draws one seed for the
    principal direction, one for the visiting orders and one per start.

    Returns
    -------
    ws : LabellingWorkingSet
    result : dict
        See :func:`relaxed_run`.
    """
    # One seed for the principal direction, one for the visiting orders of
    # the epochs, one per start.
    principal_seed, epochs_seed = draw_seeds(random_state, 2)
    x_mean = column_means(X)
    principal, top_variance = principal_component(
        X, x_mean, np.random.RandomState(principal_seed)
    )
    if labels is None:
        seeds = draw_seeds(random_state, len(methods))
        starts = [
            initial_signs(
                X, method, np.random.RandomState(seed), principal, sampled_kmeans=True
            )
            for method, seed in zip(methods, seeds)
        ]
    else:
        starts = [np.where(labels == 1, 1, -1).astype(np.int8)]
    # G does not see the sign of a labelling, but the mixture's hyperplane
    # does: orient every start like the first.
    starts = [y if y @ starts[0].astype(np.int64) >= 0 else -y for y in starts]
    ws = LabellingWorkingSet(
        X,
        x_mean,
        lam / top_variance,
        settings.nu,
        settings.theta,
        settings.tau,
        capacity=max(8, len(starts)),
        offset_sq=settings.intercept_scaling**2 * top_variance,
    )
    result = relaxed_run(
        ws,
        starts,
        bound=bound,
        tol=settings.tol,
        max_iter=settings.max_iter,
        rng=np.random.RandomState(epochs_seed),
        verbose=settings.verbose,
    )
    return ws, result
