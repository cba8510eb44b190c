"""Small dense quadratic programs of the cutting-plane solvers.

This is the only module that calls quadprog. The duals solved here have one
variable per constraint of the working set (tens to a few hundred), so they
are dense and cheap; the cost of the solvers lies in the passes over the data
done by the Cython kernels.

quadprog (Goldfarb-Idnani) needs a strictly positive definite Hessian, whereas
the Gram matrices of cutting-plane constraints are only semi-definite (two
constraints can coincide, and there can be more constraints than features).
:func:`solve_qp` adds a ridge relative to the scale of the Hessian, retries with
a larger ridge when quadprog reports a failure, and falls back to SciPy's SLSQP
as a last resort, so that a numerical accident never surfaces as a bare
quadprog error.
"""

import warnings

import numpy as np
import quadprog
from scipy.optimize import minimize
from sklearn.exceptions import ConvergenceWarning

# Ridge added to the Hessian, relative to its mean diagonal; the retries
# multiply it by _RIDGE_GROWTH.
_RIDGE = 1e-10
_RIDGE_GROWTH = 1e3
_N_RIDGE_TRIES = 3

# Below this magnitude a component of a constraint is treated as zero (the
# statistics are sums of +-1/n updated incrementally, so an exact zero can
# come back as rounding noise).
_ZERO = 1e-12


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
    hessian = np.asarray(hessian, dtype=np.float64)
    n_vars = hessian.shape[0]
    scale = max(float(np.trace(hessian)) / max(n_vars, 1), 1e-12)
    ridge = _RIDGE * scale
    for _ in range(_N_RIDGE_TRIES):
        regularised = hessian + ridge * np.eye(n_vars)
        try:
            solution = quadprog.solve_qp(
                regularised, linear, constraints, bounds, n_equalities
            )
        except ValueError:
            # "matrix G is not positive definite" or "constraints are
            # inconsistent": both come from rounding in nearly singular
            # problems, and a larger ridge resolves them.
            ridge *= _RIDGE_GROWTH
            continue
        return solution[0], solution[4]
    return _solve_qp_slsqp(hessian, linear, constraints, bounds, n_equalities)


def _solve_qp_slsqp(hessian, linear, constraints, bounds, n_equalities):
    """Fallback for :func:`solve_qp` when quadprog fails repeatedly."""
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


def solve_cpmmc_dual(gram, sizes, sign_sums, C, class_balance, side=1.0):
    """Solve the dual of the CCCP subproblem of CPMMC (problem 3.21).

    The primal is ``min 1/2 |w|^2 + C xi`` subject to, for every constraint k
    of the working set, ``xi >= sizes[k] - z_k.w - sign_sums[k] b``, to
    ``xi >= 0`` and to the class balance ``|mean_i (w.x_i + b)| <= class_balance``.
    Eliminating the multipliers of the balance constraint (DESIGN.md section 4)
    leaves, with ``G`` the Gram matrix of the centred vectors
    ``z_k - sign_sums[k] * mean(x)``,

        max  -1/2 lam'G lam + sizes'lam - class_balance |sign_sums'lam|
        s.t. lam >= 0, sum(lam) <= C.

    The absolute value is handled by solving the problem on each half-space
    ``side * sign_sums'lam >= 0``: first on the side that was optimal last time
    (``side``), and on the other one only if the half-space constraint binds.

    Parameters
    ----------
    gram : ndarray of shape (n_constraints, n_constraints)
        Gram matrix G of the centred constraint vectors.

    sizes : ndarray of shape (n_constraints,)
        ``(1/n) sum_i c_ki`` for each constraint.

    sign_sums : ndarray of shape (n_constraints,)
        ``(1/n) sum_i c_ki s_i`` for each constraint.

    C : float
        Bound on ``sum(lam)``.

    class_balance : float
        Bound on the absolute mean decision value.

    side : {1.0, -1.0}, default=1.0
        Sign of ``sign_sums'lam`` to try first.

    Returns
    -------
    lam : ndarray of shape (n_constraints,)
        Dual solution.

    dual_value : float
        Optimal value of the dual, equal to the optimal primal value.

    side : float
        Sign of ``sign_sums'lam`` at the solution (to pass back next time).
    """
    best = None
    for trial_side in (side, -side):
        lam, value, binds = _solve_cpmmc_dual_side(
            gram, sizes, sign_sums, C, class_balance, trial_side
        )
        if best is None or value > best[1]:
            best = (lam, value, trial_side)
        if not binds:
            break
    return best


def _solve_cpmmc_dual_side(gram, sizes, sign_sums, C, class_balance, side):
    """Dual of :func:`solve_cpmmc_dual` restricted to ``side * sign_sums'lam >= 0``.

    Returns the solution, the dual value and whether the half-space
    constraint binds (positive multiplier).
    """
    oriented = side * sign_sums
    oriented = np.where(np.abs(oriented) <= _ZERO, 0.0, oriented)
    # Restricting to the half-space with every oriented sign sum <= 0 forces
    # the variables with a negative one to zero. Eliminate them rather than
    # hand quadprog a feasible set of empty interior, which it mishandles.
    binds = False
    free = np.ones(len(sizes), dtype=bool)
    if not np.any(oriented > 0):
        binds = bool(np.any(oriented < 0))
        free = oriented == 0
    lam = np.zeros(len(sizes))
    idx = np.flatnonzero(free)
    if idx.size == 0:
        return lam, 0.0, binds
    n_free = idx.size
    G = gram[np.ix_(idx, idx)]
    linear = sizes[idx] - class_balance * oriented[idx]
    half_space = np.any(oriented[idx] < 0)
    n_cons = n_free + 1 + int(half_space)
    A = np.zeros((n_free, n_cons))
    A[np.arange(n_free), np.arange(n_free)] = 1.0  # lam >= 0
    A[:, n_free] = -1.0  # sum(lam) <= C
    b = np.zeros(n_cons)
    b[n_free] = -C
    if half_space:
        A[:, n_free + 1] = oriented[idx]
    sol, multipliers = solve_qp(G, linear, A, b)
    sol = np.maximum(sol, 0.0)
    lam[idx] = sol
    if half_space:
        binds = multipliers[n_free + 1] > 1e-12 * max(1.0, C)
    value = -0.5 * sol @ G @ sol + linear @ sol
    return lam, float(value), binds
