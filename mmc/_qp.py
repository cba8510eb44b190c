"""Small dense quadratic programs of the cutting-plane solvers.

This is the only module that calls quadprog. The duals solved here have one
variable per constraint of the working set (tens to a few hundred), so they
are dense and cheap: on large data the cost of the solvers lies in the
passes over the data done by the Cython kernels. On small data a fit solves
a thousand or more of them, and their cost is the calls' overhead; the
optimality check of every solution is therefore a kernel
(:func:`mmc._core._kkt.satisfies_kkt`), not a dozen NumPy calls.

quadprog (Goldfarb-Idnani) needs a strictly positive definite Hessian, whereas
the Gram matrices of cutting-plane constraints are only semi-definite (two
constraints can coincide, and there can be more constraints than features).
:func:`solve_qp` adds a ridge relative to the scale of the Hessian, checks the
optimality conditions of what quadprog returns, retries with a larger ridge
when quadprog fails or its answer does not pass the check, and falls back to
SciPy's SLSQP as a last resort, so that a numerical accident never surfaces as
a bare quadprog error or as a silently wrong solution.
"""

import warnings

import numpy as np
import quadprog

from mmc._core._kkt import satisfies_kkt

# Ridge added to the Hessian, relative to its mean diagonal; the retries
# multiply it by _RIDGE_GROWTH.
_RIDGE = 1e-10
_RIDGE_GROWTH = 1e2
_N_RIDGE_TRIES = 4

# Relative tolerance of the optimality check of a quadprog solution
# (mmc._core._kkt.satisfies_kkt: primal feasibility, the multipliers' signs,
# complementary slackness and stationarity, each relative to the magnitude
# of its terms).
_KKT_TOL = 1e-10


class QPError(RuntimeError):
    """Raised when neither quadprog nor the fallback solver solves a QP."""


def solve_qp(hessian, linear, constraints, bounds, n_equalities=0):
    """Minimise ``1/2 x'Hx - linear'x`` subject to ``constraints.T @ x >= bounds``.

    Parameters
    ----------
    hessian : ndarray of shape (n_vars, n_vars)
        Symmetric positive semi-definite Hessian H.

    linear : ndarray of shape (n_vars,)
        Linear term.

    constraints : ndarray of shape (n_vars, n_constraints)
        One column per linear constraint.

    bounds : ndarray of shape (n_constraints,)
        Right-hand sides.

    n_equalities : int, default=0
        The first ``n_equalities`` constraints are equalities.

    Returns
    -------
    x : ndarray of shape (n_vars,)
        The minimiser.

    multipliers : ndarray of shape (n_constraints,)
        Lagrange multipliers of the constraints (zero for inactive ones).

    Raises
    ------
    QPError
        If no solver finds a solution.
    """
    n_vars = hessian.shape[0]
    # The ridge is relative to the larger of the curvature and the linear
    # term: when the Hessian (nearly) vanishes the QP is an LP, and a ridge
    # tiny next to the linear term sends quadprog's unconstrained start off
    # to infinity.
    scale = max(
        float(hessian.diagonal().max(initial=0.0)),
        float(np.abs(linear).max(initial=0.0)),
        1e-300,
    )
    ridge = _RIDGE * scale
    for _ in range(_N_RIDGE_TRIES):
        regularised = np.array(hessian, dtype=np.float64, order="F")
        regularised.flat[:: n_vars + 1] += ridge
        ridge *= _RIDGE_GROWTH
        try:
            solution = quadprog.solve_qp(
                regularised, linear, constraints, bounds, n_equalities
            )
        except ValueError:
            # "matrix G is not positive definite" or "constraints are
            # inconsistent": both come from rounding in nearly singular
            # problems, and a larger ridge resolves them.
            continue
        x, multipliers = solution[0], solution[4]
        # On nearly singular Hessians quadprog can return, without an error,
        # a point that is inaccurate or even infeasible. Its active set is
        # reliable though: solve the optimality conditions on it exactly, and
        # accept only a point that passes them.
        if satisfies_kkt(
            regularised,
            linear,
            constraints,
            bounds,
            n_equalities,
            x,
            multipliers,
            _KKT_TOL,
        ):
            return x, multipliers
        polished = _polish(
            hessian, linear, constraints, bounds, n_equalities, multipliers
        )
        if polished is not None:
            return polished
    return _solve_qp_slsqp(hessian, linear, constraints, bounds, n_equalities)


def _polish(hessian, linear, constraints, bounds, n_equalities, multipliers):
    """Solve the QP exactly on the active set that quadprog found.

    The optimality conditions restricted to the constraints with a positive
    multiplier (and the equalities) form a linear system,
    ``H x - A_a m = linear, A_a' x = bounds_a``, solved by least squares so
    that a singular H is fine. Returns ``(x, multipliers)`` if the solution
    passes the optimality conditions of the full problem, else None.
    """
    n_vars = hessian.shape[0]
    active = np.flatnonzero(multipliers > 0)
    if n_equalities:
        active = np.union1d(np.arange(n_equalities), active)
    A = constraints[:, active]
    system = np.zeros((n_vars + active.size, n_vars + active.size))
    system[:n_vars, :n_vars] = hessian
    system[:n_vars, n_vars:] = -A
    system[n_vars:, :n_vars] = A.T
    rhs = np.concatenate([linear, bounds[active]])
    # An LU solve is enough when the active constraints pin down the null
    # space of H; least squares covers the singular systems.
    for solve in (np.linalg.solve, _least_squares):
        try:
            solution = solve(system, rhs)
        except np.linalg.LinAlgError:
            continue
        x = solution[:n_vars]
        polished = np.zeros_like(multipliers)
        polished[active] = solution[n_vars:]
        if satisfies_kkt(
            hessian, linear, constraints, bounds, n_equalities, x, polished, _KKT_TOL
        ):
            return x, polished
    return None


def _least_squares(system, rhs):
    return np.linalg.lstsq(system, rhs, rcond=None)[0]


def _solve_qp_slsqp(hessian, linear, constraints, bounds, n_equalities):
    """Fallback for :func:`solve_qp` when quadprog fails repeatedly."""
    # Imported here: the Dask workers import this module (through the
    # working sets) but never solve a QP, and these bring scikit-learn and
    # scipy.optimize (mmc/_rows.py).
    from scipy.optimize import minimize
    from sklearn.exceptions import ConvergenceWarning

    warnings.warn(
        "quadprog could not solve a dual QP even after regularisation; "
        "falling back to SciPy's SLSQP.",
        ConvergenceWarning,
        stacklevel=3,
    )
    n_vars = hessian.shape[0]
    cons = []
    if n_equalities:
        A_eq, b_eq = constraints[:, :n_equalities], bounds[:n_equalities]
        cons.append(
            {"type": "eq", "fun": lambda x: A_eq.T @ x - b_eq, "jac": lambda x: A_eq.T}
        )
    A_in, b_in = constraints[:, n_equalities:], bounds[n_equalities:]
    cons.append(
        {"type": "ineq", "fun": lambda x: A_in.T @ x - b_in, "jac": lambda x: A_in.T}
    )
    result = minimize(
        lambda x: 0.5 * x @ hessian @ x - linear @ x,
        np.zeros(n_vars),
        jac=lambda x: hessian @ x - linear,
        constraints=cons,
        method="SLSQP",
        options={"maxiter": 1000, "ftol": 1e-12},
    )
    if not result.success:
        raise QPError(f"The dual QP could not be solved: {result.message}")
    x = result.x
    # SLSQP does not report multipliers; recover those of the active
    # inequalities by least squares on the stationarity condition.
    residual = A_in.T @ x - b_in
    active = np.flatnonzero(np.abs(residual) <= 1e-8 * (1 + np.abs(b_in)))
    A_act = np.hstack([constraints[:, :n_equalities], A_in[:, active]])
    multipliers = np.zeros(constraints.shape[1])
    if A_act.shape[1]:
        mult_act = np.linalg.lstsq(A_act, hessian @ x - linear, rcond=None)[0]
        multipliers[:n_equalities] = mult_act[:n_equalities]
        multipliers[n_equalities + active] = np.maximum(mult_act[n_equalities:], 0)
    return x, multipliers


class CPMMCDual:
    """Dual of the CCCP subproblem of CPMMC (problem 3.21), for a growing working set.

    The primal is ``min 1/2 |w|^2 + C xi`` subject to, for every constraint k
    of the working set, ``xi >= sizes[k] - z_k.w - sign_sums[k] b``, to
    ``xi >= 0`` and to the class balance ``|mean_i (w.x_i + b)| <= class_balance``.
    With multipliers ``mu1, mu2`` of the two sides of the balance constraint,
    stationarity in w gives ``w = sum_k lam_k z_k - (mu1 - mu2) mean(x)`` and
    stationarity in b fixes ``mu1 - mu2 = sign_sums'lam``, so that
    ``w = sum_k lam_k (z_k - sign_sums[k] mean(x))``; with ``G`` the Gram
    matrix of these centred vectors the dual becomes

        max  -1/2 lam'G lam + sizes'lam - class_balance |sign_sums'lam|
        s.t. lam >= 0, sum(lam) <= C.

    The paper's form (3.22) keeps both balance multipliers, whose columns are
    collinear, so its Hessian is singular. Here the absolute value is written
    with one auxiliary variable, ``|u| = u + 2 max(0, -u)``:

        max  -1/2 lam'G lam + (sizes - class_balance sign_sums)'lam - 2 class_balance t
        s.t. lam >= 0, sum(lam) <= C, t >= 0, t + sign_sums'lam >= 0,

    one QP whose only singular direction is ``t``, which enters linearly and
    receives the ridge of :func:`solve_qp`. With ``class_balance = 0`` the
    balance term vanishes and ``t`` is dropped. The QP is solved for
    ``(lam, t) / C``, whose Hessian ``C G`` does not change when the data is
    rescaled (``C`` and ``G`` scale inversely), so quadprog sees the same,
    well-scaled problem whatever the units of X.

    The object keeps the QP's arrays between calls, since the solver calls it
    at every CCCP iteration with a working set that only grows.

    Parameters
    ----------
    C : float
        Bound on ``sum(lam)``.

    class_balance : float
        Bound on the absolute mean decision value.
    """

    def __init__(self, C, class_balance):
        self.C = C
        self.class_balance = class_balance
        self._n_constraints = -1

    def _allocate(self, n_cons):
        balanced = self.class_balance > 0
        n_vars = n_cons + balanced
        self._hessian = np.zeros((n_vars, n_vars))
        self._linear = np.zeros(n_vars)
        # Columns: lam >= 0, sum(lam) <= C, and with the balance term t >= 0
        # and t + sign_sums'lam >= 0 (its lam part is filled at each solve).
        constraints = np.zeros((n_vars, n_vars + 1 + balanced))
        constraints[np.arange(n_cons), np.arange(n_cons)] = 1.0
        constraints[:n_cons, n_cons] = -1.0
        self._bounds = np.zeros(constraints.shape[1])
        self._bounds[n_cons] = -1.0
        if balanced:
            self._linear[n_cons] = -2.0 * self.class_balance
            constraints[n_cons, n_cons + 1] = 1.0
            constraints[n_cons, n_cons + 2] = 1.0
        self._constraints = np.asfortranarray(constraints)
        self._n_constraints = n_cons

    def solve(self, gram, sizes, sign_sums):
        """Solve the dual for the current working set.

        Parameters
        ----------
        gram : ndarray of shape (n_constraints, n_constraints)
            Gram matrix G of the centred constraint vectors.

        sizes : ndarray of shape (n_constraints,)
            ``(1/n) sum_i c_ki`` for each constraint.

        sign_sums : ndarray of shape (n_constraints,)
            ``(1/n) sum_i c_ki s_i`` for each constraint.

        Returns
        -------
        lam : ndarray of shape (n_constraints,)
            Dual solution, clipped to be non-negative.
        """
        n_cons = gram.shape[0]
        if n_cons != self._n_constraints:
            self._allocate(n_cons)
        np.multiply(gram, self.C, out=self._hessian[:n_cons, :n_cons])
        linear = self._linear
        np.multiply(sign_sums, -self.class_balance, out=linear[:n_cons])
        linear[:n_cons] += sizes
        if self.class_balance > 0:
            self._constraints[:n_cons, n_cons + 2] = sign_sums
        solution, _ = solve_qp(self._hessian, linear, self._constraints, self._bounds)
        return self.C * np.maximum(solution[:n_cons], 0.0)

    def value(self, lam, gram, sizes, sign_sums):
        """Dual objective at ``lam`` (equal to the primal optimum at the solution)."""
        return float(
            -0.5 * lam @ gram @ lam
            + sizes @ lam
            - self.class_balance * abs(sign_sums @ lam)
        )


class CPM3CDual:
    """Dual of the CCCP subproblem of CPM3C, for a growing working set.

    The primal (problem 17 of the paper, linearised at the current
    assignments by CCCP, with the balance of the classes' mean margins of
    :mod:`mmc._cpm3c`) is

        min  1/2 sum_p |w_p|^2 + C xi
        s.t. xi >= A_c - <B_c, W>          for every constraint c,
             |<D_p, W> - <D_q, W>| <= class_balance   for all p, q,

    with W = (w_1 .. w_k) and one balance vector D_p (a k x d matrix) per
    class (see :mod:`mmc._cpm3c`). The pairwise balance constraints hold
    exactly when some centre tau has ``|<D_p, W> - tau| <= class_balance / 2``
    for every p, so with tau as a free variable they need k pairs of
    multipliers instead of k(k-1). Stationarity gives

        W = sum_c lam_c B_c - sum_p m_p D_p,   m = mu_plus - mu_minus,
        sum_c lam_c <= C,                      sum_p m_p = 0  (from tau),

    and the dual

        max  -1/2 |sum_c lam_c B_c - sum_p m_p D_p|^2 + A'lam
             - class_balance / 2 * sum_p (mu_plus_p + mu_minus_p)
        s.t. lam, mu_plus, mu_minus >= 0, sum(lam) <= C, sum(mu_plus - mu_minus) = 0,

    whose Hessian, in (lam, mu_plus, mu_minus), is built from the Frobenius
    Gram matrix of the B_c, the products <B_c, D_p> and the Gram matrix of
    the D_p. The columns of mu_plus and mu_minus are opposite, so the Hessian
    is singular; :func:`solve_qp` regularises and polishes. As for CPMMC the
    QP is solved for the variables divided by C, which makes it independent
    of the units of X.

    Parameters
    ----------
    C : float
        Bound on ``sum(lam)``.

    class_balance : float
        Bound on the pairwise differences of the balance terms.

    n_clusters : int
        Number of classes k.
    """

    def __init__(self, C, class_balance, n_clusters):
        self.C = C
        self.class_balance = class_balance
        self.n_clusters = n_clusters
        self._n_constraints = -1

    def _allocate(self, n_cons):
        k = self.n_clusters
        n_vars = n_cons + 2 * k
        self._hessian = np.zeros((n_vars, n_vars))
        self._linear = np.zeros(n_vars)
        self._linear[n_cons:] = -0.5 * self.class_balance
        # Columns: sum(mu_plus - mu_minus) = 0 (the equality, first), then
        # lam >= 0, sum(lam) <= 1 (scaled by C), mu_plus >= 0, mu_minus >= 0.
        constraints = np.zeros((n_vars, n_vars + 2))
        constraints[n_cons : n_cons + k, 0] = 1.0
        constraints[n_cons + k :, 0] = -1.0
        constraints[np.arange(n_cons), 1 + np.arange(n_cons)] = 1.0
        constraints[:n_cons, 1 + n_cons] = -1.0
        rows = n_cons + np.arange(2 * k)
        constraints[rows, 2 + rows] = 1.0
        self._constraints = np.asfortranarray(constraints)
        self._bounds = np.zeros(n_vars + 2)
        self._bounds[1 + n_cons] = -1.0
        self._n_constraints = n_cons

    def solve(self, gram, offsets, cross, balance_gram):
        """Solve the dual for the current working set.

        Parameters
        ----------
        gram : ndarray of shape (n_constraints, n_constraints)
            Frobenius Gram matrix of the B_c.

        offsets : ndarray of shape (n_constraints,)
            The A_c.

        cross : ndarray of shape (n_constraints, n_clusters)
            ``<B_c, D_p>``.

        balance_gram : ndarray of shape (n_clusters, n_clusters)
            ``<D_p, D_q>``.

        Returns
        -------
        lam : ndarray of shape (n_constraints,)
            Multipliers of the constraints (non-negative).

        m : ndarray of shape (n_clusters,)
            ``mu_plus - mu_minus``, summing to zero.
        """
        n_cons = gram.shape[0]
        k = self.n_clusters
        if n_cons != self._n_constraints:
            self._allocate(n_cons)
        H = self._hessian
        C = self.C
        H[:n_cons, :n_cons] = C * gram
        H[:n_cons, n_cons : n_cons + k] = -C * cross
        H[:n_cons, n_cons + k :] = C * cross
        H[n_cons:, :n_cons] = H[:n_cons, n_cons:].T
        block = C * balance_gram
        H[n_cons : n_cons + k, n_cons : n_cons + k] = block
        H[n_cons + k :, n_cons + k :] = block
        H[n_cons : n_cons + k, n_cons + k :] = -block
        H[n_cons + k :, n_cons : n_cons + k] = -block
        self._linear[:n_cons] = offsets
        solution, _ = solve_qp(
            H, self._linear, self._constraints, self._bounds, n_equalities=1
        )
        lam = C * np.maximum(solution[:n_cons], 0.0)
        m = C * (solution[n_cons : n_cons + k] - solution[n_cons + k :])
        return lam, m
