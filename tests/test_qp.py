"""Tests of mmc._qp: solve_qp (ridge retries, SLSQP fallback) and CPMMCDual.

CPMMCDual is checked against an independent solution of the PRIMAL problem
(see its docstring):

    min_{w, b, xi}  1/2 |w|^2 + C xi
    s.t.            xi >= sizes[k] - z_k.w - sign_sums[k] b   for every k,
                    xi >= 0,   |w.x_mean + b| <= class_balance,

whose Gram matrix is that of the centred vectors ``z_k - sign_sums[k] x_mean``.
The primal is solved by SLSQP, then polished on the active set SLSQP found and
accepted only with a KKT certificate (feasibility, stationarity, non-negative
multipliers from NNLS), so that it is exact to rounding and does not share any
code or formulation with the dual.

quadprog alone is not accurate on singular Gram matrices (more constraints
than features, which the cutting plane reaches quickly on low-dimensional
data): it can return, without an error, a dual off by 1e-4 relative or with
``sum(lam) > C``. :func:`mmc._qp.solve_qp` therefore re-solves the optimality
conditions on quadprog's active set and checks them; the tests on singular
instances below hold it to the primal at 1e-6.
"""

import warnings

import numpy as np
import pytest
from scipy.optimize import minimize, nnls
from sklearn.exceptions import ConvergenceWarning

import mmc._qp
from mmc._qp import CPMMCDual, QPError, solve_qp

# --------------------------------------------------------------------------
# Independent solution of the primal


def _primal_optimum(z, sizes, sign_sums, x_mean, C, class_balance):
    """Certified optimum ``(w, b, xi, value)`` of the CPMMC primal."""
    n_cons, n_features = z.shape
    n_vars = n_features + 2  # (w, b, xi)
    hessian = np.zeros((n_vars, n_vars))
    hessian[:n_features, :n_features] = np.eye(n_features)
    linear = np.zeros(n_vars)
    linear[-1] = C
    # Inequalities A v + c >= 0: the K slack constraints, xi >= 0, and the two
    # sides of the balance constraint.
    A = np.zeros((n_cons + 3, n_vars))
    c = np.zeros(n_cons + 3)
    A[:n_cons, :n_features] = z
    A[:n_cons, n_features] = sign_sums
    A[:n_cons, -1] = 1.0
    c[:n_cons] = -sizes
    A[n_cons, -1] = 1.0
    A[n_cons + 1, :n_features], A[n_cons + 1, n_features] = -x_mean, -1.0
    A[n_cons + 2, :n_features], A[n_cons + 2, n_features] = x_mean, 1.0
    c[n_cons + 1 :] = class_balance

    def objective(v):
        return 0.5 * v @ hessian @ v + linear @ v

    scale = 1.0 / (1.0 + C)  # SLSQP fares better with an O(1) objective
    start = np.zeros(n_vars)
    start[-1] = max(0.0, sizes.max())  # feasible
    result = minimize(
        lambda v: scale * objective(v),
        start,
        jac=lambda v: scale * (hessian @ v + linear),
        constraints=[{"type": "ineq", "fun": lambda v: A @ v + c, "jac": lambda v: A}],
        method="SLSQP",
        options={"ftol": 1e-15, "maxiter": 1000},
    )
    residual = A @ result.x + c
    # Polish: solve the KKT system on the active set, for a range of
    # thresholds deciding which constraints are active, and keep the first
    # point that satisfies every KKT condition.
    for threshold in np.logspace(-10, -2, 17):
        active = np.flatnonzero(residual <= threshold * (1.0 + np.abs(c)))
        A_act = A[active]
        kkt = np.block(
            [[hessian, -A_act.T], [A_act, np.zeros((len(active), len(active)))]]
        )
        v = np.linalg.lstsq(kkt, np.r_[-linear, -c[active]], rcond=None)[0][:n_vars]
        if np.min(A @ v + c) < -1e-12 * (1.0 + np.abs(c).max()):
            continue
        gradient = hessian @ v + linear
        multipliers = nnls(A_act.T, gradient)[0] if len(active) else np.zeros(0)
        if np.abs(gradient - A_act.T @ multipliers).max() <= 1e-10 * (1.0 + C):
            w, b, xi = v[:n_features], v[n_features], v[-1]
            return w, b, xi, objective(v)
    raise AssertionError("test oracle: no KKT point found for the primal")


def test_primal_oracle_on_hand_solved_instances():
    # One constraint, one feature, x_mean = 0 and class_balance = 0 (b = 0):
    # min 1/2 w^2 + C max(0, a - z w), with a = 0.5 and z = 0.25.
    z, sizes, sign_sums = np.array([[0.25]]), np.array([0.5]), np.array([0.3])
    x_mean = np.zeros(1)
    # C = 2: w = C z = 0.5, slack 0.375 > 0, value 0.125 + 0.75.
    w, b, xi, value = _primal_optimum(z, sizes, sign_sums, x_mean, 2.0, 0.0)
    np.testing.assert_allclose(
        [w[0], b, xi, value], [0.5, 0.0, 0.375, 0.875], atol=1e-12
    )
    # C = 100: the constraint is met exactly, w = a / z = 2, value 2.
    w, b, xi, value = _primal_optimum(z, sizes, sign_sums, x_mean, 100.0, 0.0)
    np.testing.assert_allclose([w[0], b, xi, value], [2.0, 0.0, 0.0, 2.0], atol=1e-10)
    # With |b| <= 0.5 and sign_sums 0.3 the constraint reads
    # xi >= 0.5 - 0.25 w - 0.3 b; b = 0.5 lowers it to 0.35 - 0.25 w, met by
    # w = 1.4: value 0.98 (the dual max of -lam^2/32 + 0.35 lam, at lam = 5.6).
    w, b, xi, value = _primal_optimum(z, sizes, sign_sums, x_mean, 100.0, 0.5)
    np.testing.assert_allclose([w[0], b, xi, value], [1.4, 0.5, 0.0, 0.98], atol=1e-10)


# --------------------------------------------------------------------------
# Random instances of the dual


def _instance(seed, n_features, n_constraints, signs="mixed", duplicate=False):
    """Random (z, x_mean, sizes, sign_sums) with 0 < |sign_sums| < sizes."""
    rng = np.random.default_rng(seed)
    z = rng.normal(scale=0.5, size=(n_constraints, n_features))
    x_mean = rng.normal(scale=0.5, size=n_features)
    sign_sums = rng.uniform(0.05, 0.8, size=n_constraints)
    if signs == "mixed":
        sign_sums *= np.where(np.arange(n_constraints) % 2, -1.0, 1.0)
    elif signs == "negative":
        sign_sums *= -1.0
    sizes = np.abs(sign_sums) + rng.uniform(0.05, 0.5, size=n_constraints)
    if duplicate:
        z[-1], sign_sums[-1], sizes[-1] = z[0], sign_sums[0], sizes[0]
    return z, x_mean, sizes, sign_sums


def _centred_gram(z, x_mean, sign_sums):
    centred = z - sign_sums[:, None] * x_mean
    return centred @ centred.T, centred


def _check_dual_against_primal(
    z, x_mean, sizes, sign_sums, C, class_balance, lam, value_rtol=1e-6, w_tol=1e-6
):
    gram, centred = _centred_gram(z, x_mean, sign_sums)
    w, b, xi, primal_value = _primal_optimum(
        z, sizes, sign_sums, x_mean, C, class_balance
    )
    dual = CPMMCDual(C, class_balance)
    value = dual.value(lam, gram, sizes, sign_sums)
    # (a) strong duality
    assert value == pytest.approx(primal_value, rel=value_rtol), (value, primal_value)
    # (b) the primal w is recovered from lam
    w_dual = lam @ centred
    assert np.abs(w_dual - w).max() <= w_tol * (1.0 + np.abs(w).max()), (w_dual, w)
    # (c) KKT: dual feasibility and complementary slackness with the primal
    # optimum (any primal optimum pairs with any dual optimum).
    assert lam.shape == sizes.shape
    assert np.all(lam >= 0.0)
    assert lam.sum() <= C * (1.0 + 1e-9)
    tol = value_rtol * max(abs(primal_value), 1e-12)
    slack = xi - (sizes - z @ w - sign_sums * b)
    assert np.all(slack >= -1e-9)
    assert np.all(lam * slack <= tol), lam * slack
    assert (C - lam.sum()) * xi <= tol
    # Balance multipliers: mu1 - mu2 = sign_sums'lam, active side only.
    nu = sign_sums @ lam
    centre = w @ x_mean + b
    assert abs(centre) <= class_balance + 1e-9
    assert max(nu, 0.0) * (class_balance - centre) <= tol
    assert max(-nu, 0.0) * (class_balance + centre) <= tol


# Instances whose centred Gram matrix is non-singular, or singular through a
# duplicated constraint with no more constraints than features.
REGULAR = {
    "d3-k1": dict(n_features=3, n_constraints=1),
    "d3-k3": dict(n_features=3, n_constraints=3),
    "d5-k2": dict(n_features=5, n_constraints=2),
    "d5-k4": dict(n_features=5, n_constraints=4),
    "d4-k4-duplicate": dict(n_features=4, n_constraints=4, duplicate=True),
}
# More constraints than features: the Gram matrix is singular.
SINGULAR = {
    "d1-k4": dict(n_features=1, n_constraints=4),
    "d2-k6": dict(n_features=2, n_constraints=6),
    "d3-k8-duplicate": dict(n_features=3, n_constraints=8, duplicate=True),
}


@pytest.mark.parametrize("class_balance", [0.0, 0.1])
@pytest.mark.parametrize("C", [0.05, 1.0, 100.0])
@pytest.mark.parametrize("case", list(REGULAR))
def test_dual_matches_primal(case, C, class_balance):
    # C = 0.05 leaves slack (sum(lam) = C), C = 100 fits the constraints
    # (sum(lam) < C); the signs cover mixed, all positive and all negative.
    spec = REGULAR[case]
    for signs in ("mixed", "positive", "negative"):
        seed = list(REGULAR).index(case)
        z, x_mean, sizes, sign_sums = _instance(seed, signs=signs, **spec)
        gram, _ = _centred_gram(z, x_mean, sign_sums)
        lam = CPMMCDual(C, class_balance).solve(gram, sizes, sign_sums)
        _check_dual_against_primal(z, x_mean, sizes, sign_sums, C, class_balance, lam)


def _singular_instances():
    for case, spec in SINGULAR.items():
        seed = 100 + list(SINGULAR).index(case)
        for signs in ("mixed", "positive", "negative"):
            yield f"{case}-{signs}", _instance(seed, signs=signs, **spec)


def test_dual_matches_primal_more_constraints_than_features():
    # The checks of test_dual_matches_primal on 54 instances with more
    # constraints than features (singular Gram matrices). quadprog's own
    # answer failed 38 of them before solve_qp polished it.
    failures = []
    for name, (z, x_mean, sizes, sign_sums) in _singular_instances():
        gram, _ = _centred_gram(z, x_mean, sign_sums)
        for C in (0.05, 1.0, 100.0):
            for class_balance in (0.0, 0.1):
                lam = CPMMCDual(C, class_balance).solve(gram, sizes, sign_sums)
                try:
                    _check_dual_against_primal(
                        z, x_mean, sizes, sign_sums, C, class_balance, lam
                    )
                except AssertionError as error:
                    first_line = str(error).splitlines()[0]
                    failures.append(f"{name} C={C} l={class_balance}: {first_line}")
    assert not failures, f"{len(failures)} of 54 failed:\n" + "\n".join(failures)


@pytest.mark.parametrize("class_balance", [0.0, 0.1])
@pytest.mark.parametrize("case", list(REGULAR) + list(SINGULAR))
def test_dual_with_the_slsqp_fallback_matches_primal(monkeypatch, case, class_balance):
    # With quadprog failing every time, the fallback solves the same dual QP,
    # accurately on singular Gram matrices too: the formulation is right,
    # the inaccuracy of quadprog alone is numerical.
    calls = []

    def failing_quadprog(*args):
        calls.append(args)
        raise ValueError("matrix G is not positive definite")

    monkeypatch.setattr(mmc._qp.quadprog, "solve_qp", failing_quadprog)
    spec = {**REGULAR, **SINGULAR}[case]
    z, x_mean, sizes, sign_sums = _instance(7, signs="mixed", **spec)
    gram, _ = _centred_gram(z, x_mean, sign_sums)
    for C in (0.05, 100.0):
        calls.clear()
        with pytest.warns(ConvergenceWarning, match="SLSQP"):
            lam = CPMMCDual(C, class_balance).solve(gram, sizes, sign_sums)
        assert len(calls) == mmc._qp._N_RIDGE_TRIES
        # SLSQP stops at ftol; w is first order in lam where the value is
        # second order, hence the looser w tolerance.
        _check_dual_against_primal(
            z, x_mean, sizes, sign_sums, C, class_balance, lam, w_tol=1e-5
        )


# The smallest singular case: one feature, x_mean = 0, three constraints
# with z = scale * (1, 3, 1), sizes 0.8, sign_sums 0.5, C = 1,
# class_balance = 0. The optimum puts all of C on the constraints with the
# smallest |z|: sum(lam) = 1, value 0.8 - scale^2 / 2.
@pytest.mark.parametrize("scale", [1e-2, 1e-3])
def test_dual_singular_gram_minimal_reproduction(scale):
    z = scale * np.array([[1.0], [3.0], [1.0]])
    sizes, sign_sums = np.full(3, 0.8), np.full(3, 0.5)
    gram = z @ z.T
    dual = CPMMCDual(C=1.0, class_balance=0.0)
    lam = dual.solve(gram, sizes, sign_sums)
    # quadprog alone gives sum(lam) = 1.000488 (infeasible) at scale 1e-2
    # and sum(lam) = 0.9375, value 0.75 at scale 1e-3.
    assert lam.sum() <= 1.0 + 1e-9
    assert dual.value(lam, gram, sizes, sign_sums) == pytest.approx(
        0.8 - 0.5 * scale**2, rel=1e-9
    )


@pytest.mark.parametrize("scale", [1e-2, 1e-3])
def test_solve_qp_singular_hessian_minimal_reproduction(scale):
    # The same QP as above, handed to solve_qp directly:
    # min 1/2 x'(v v')x - 0.8 sum(x) s.t. x >= 0, sum(x) <= 1, v = scale (1, 3, 1).
    v = scale * np.array([1.0, 3.0, 1.0])
    constraints = np.column_stack([np.eye(3), -np.ones(3)])
    bounds = np.array([0.0, 0.0, 0.0, -1.0])
    x, _ = solve_qp(np.outer(v, v), np.full(3, 0.8), constraints, bounds)
    assert np.all(constraints.T @ x >= bounds - 1e-9)
    assert 0.5 * (v @ x) ** 2 - 0.8 * x.sum() == pytest.approx(
        0.5 * scale**2 - 0.8, rel=1e-9
    )


def test_dual_value_formula():
    gram = np.array([[2.0, 0.5], [0.5, 1.0]])
    lam = np.array([0.25, 0.5])
    sizes, sign_sums = np.array([0.6, 0.9]), np.array([0.2, -0.4])
    quadratic = 0.5 * (0.25**2 * 2.0 + 2 * 0.25 * 0.5 * 0.5 + 0.5**2 * 1.0)
    linear = 0.6 * 0.25 + 0.9 * 0.5
    balance = 0.3 * abs(0.2 * 0.25 - 0.4 * 0.5)
    value = CPMMCDual(C=1.0, class_balance=0.3).value(lam, gram, sizes, sign_sums)
    assert value == pytest.approx(-quadratic + linear - balance, rel=1e-15)


@pytest.mark.parametrize("class_balance", [0.0, 0.1])
def test_dual_is_invariant_to_the_scale_of_the_data(class_balance):
    # Multiplying X by a multiplies G by a^2; with C / a^2 the QP solved is
    # the same and lam scales by 1 / a^2 (w = sum lam_k (z_k - s_k m) by 1/a).
    z, x_mean, sizes, sign_sums = _instance(3, n_features=4, n_constraints=3)
    gram, _ = _centred_gram(z, x_mean, sign_sums)
    lam = CPMMCDual(2.0, class_balance).solve(gram, sizes, sign_sums)
    for factor in (1e-3, 1e3):
        scaled = CPMMCDual(2.0 / factor**2, class_balance).solve(
            factor**2 * gram, sizes, sign_sums
        )
        np.testing.assert_allclose(scaled * factor**2, lam, rtol=1e-9, atol=1e-14)


@pytest.mark.parametrize("class_balance", [0.0, 0.1])
def test_dual_reuses_its_buffers_without_leaking_state(class_balance):
    # The solver calls solve() on a growing working set; the cached arrays
    # must give exactly what a fresh object gives, whatever came before.
    z, x_mean, sizes, sign_sums = _instance(11, n_features=5, n_constraints=4)
    other = _instance(12, n_features=5, n_constraints=4, signs="negative")
    reused = CPMMCDual(1.0, class_balance)
    sequence = [(z, x_mean, sizes, sign_sums, k) for k in (1, 2, 3)]
    sequence += [(*other, 3), (z, x_mean, sizes, sign_sums, 3)]
    sequence += [(*other, 4), (*other, 2)]
    for z_, x_mean_, sizes_, sign_sums_, k in sequence:
        gram, _ = _centred_gram(z_[:k], x_mean_, sign_sums_[:k])
        inputs = (gram, sizes_[:k].copy(), sign_sums_[:k].copy())
        copies = [a.copy() for a in inputs]
        lam = reused.solve(*inputs)
        fresh = CPMMCDual(1.0, class_balance).solve(*copies)
        np.testing.assert_array_equal(lam, fresh)
        for a, b in zip(inputs, copies):
            np.testing.assert_array_equal(a, b)  # inputs untouched


# --------------------------------------------------------------------------
# solve_qp


def _random_qp(seed, n_vars=5, n_constraints=6):
    rng = np.random.default_rng(seed)
    M = rng.normal(size=(n_vars, n_vars))
    hessian = M @ M.T + 0.5 * np.eye(n_vars)
    linear = rng.normal(size=n_vars)
    constraints = rng.normal(size=(n_vars, n_constraints))
    bounds = rng.normal(size=n_constraints) - 1.0  # x = 0 is strictly feasible
    return hessian, linear, constraints, bounds


def _assert_kkt(x, multipliers, hessian, linear, constraints, bounds, n_eq, tol):
    slack = constraints.T @ x - bounds
    np.testing.assert_allclose(slack[:n_eq], 0.0, atol=tol)
    assert np.all(slack[n_eq:] >= -tol)
    assert np.all(multipliers[n_eq:] >= -tol)
    np.testing.assert_allclose(multipliers[n_eq:] * slack[n_eq:], 0.0, atol=tol)
    np.testing.assert_allclose(
        hessian @ x - linear, constraints @ multipliers, atol=tol
    )


@pytest.mark.parametrize("n_equalities", [0, 1, 2])
def test_solve_qp_matches_quadprog_and_kkt(n_equalities):
    for seed in range(5):
        qp = _random_qp(seed)
        inputs = [a.copy() for a in qp]
        x, multipliers = solve_qp(*qp, n_equalities)
        reference = mmc._qp.quadprog.solve_qp(*qp, n_equalities)
        np.testing.assert_allclose(x, reference[0], atol=1e-8)
        np.testing.assert_allclose(multipliers, reference[4], atol=1e-8)
        _assert_kkt(x, multipliers, *qp, n_equalities, tol=1e-8)
        for a, b in zip(qp, inputs):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("n_failures", [1, 2])
def test_solve_qp_retries_with_a_larger_ridge(monkeypatch, n_failures):
    hessian, linear, constraints, bounds = _random_qp(20)
    original = mmc._qp.quadprog.solve_qp
    ridges = []

    def flaky_quadprog(G, a, C, b, meq):
        ridges.append(np.diagonal(G) - np.diagonal(hessian))
        if len(ridges) <= n_failures:
            raise ValueError("constraints are inconsistent, no solution")
        return original(G, a, C, b, meq)

    monkeypatch.setattr(mmc._qp.quadprog, "solve_qp", flaky_quadprog)
    x, multipliers = solve_qp(hessian, linear, constraints, bounds)  # no warning
    assert len(ridges) == n_failures + 1
    scale = hessian.diagonal().max()
    for i, ridge in enumerate(ridges):
        expected = mmc._qp._RIDGE * mmc._qp._RIDGE_GROWTH**i * scale
        np.testing.assert_allclose(ridge, expected, rtol=1e-6)
    # The answer is quadprog's at the last ridge (at most 1e-4 of the scale).
    reference = original(hessian, linear, constraints, bounds, 0)[0]
    np.testing.assert_allclose(x, reference, rtol=1e-3, atol=1e-3)
    assert np.all(constraints.T @ x >= bounds - 1e-9)


@pytest.mark.parametrize("n_equalities", [0, 1, 2])
def test_solve_qp_falls_back_to_slsqp(monkeypatch, n_equalities):
    qp = _random_qp(30 + n_equalities)
    reference = mmc._qp.quadprog.solve_qp(*qp, n_equalities)
    calls = []

    def failing_quadprog(*args):
        calls.append(args)
        raise ValueError("matrix G is not positive definite")

    monkeypatch.setattr(mmc._qp.quadprog, "solve_qp", failing_quadprog)
    match = "falling back to SciPy's SLSQP"
    with pytest.warns(ConvergenceWarning, match=match) as record:
        x, multipliers = solve_qp(*qp, n_equalities)
    assert len(calls) == mmc._qp._N_RIDGE_TRIES
    # The warning points at the caller of solve_qp.
    assert record[0].filename == __file__
    np.testing.assert_allclose(x, reference[0], atol=1e-6)
    np.testing.assert_allclose(multipliers, reference[4], atol=1e-6)
    # SLSQP stops at ftol=1e-12: stationarity holds to about 1e-6 of |Hx|.
    _assert_kkt(x, multipliers, *qp, n_equalities, tol=1e-5)


def test_solve_qp_raises_when_no_solver_succeeds():
    # x >= 1 and x <= 0: quadprog fails at every ridge, then SLSQP.
    with pytest.warns(ConvergenceWarning, match="SLSQP"):
        with pytest.raises(QPError, match="could not be solved"):
            solve_qp(
                np.eye(1), np.zeros(1), np.array([[1.0, -1.0]]), np.array([1.0, 0.0])
            )


def test_solve_qp_well_conditioned_problem_does_not_warn():
    # filterwarnings=error would turn any warning into a failure already;
    # this makes the expectation explicit.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        x, _ = solve_qp(*_random_qp(40))
    assert np.all(np.isfinite(x))
