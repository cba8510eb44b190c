"""Tests of mmc._core._kkt against the NumPy twin in _reference.

The kernel checks a QP's solution; it takes the small dense float64 arrays
of the dual QPs (never the samples), so there are no CSR or float32 forms.
It must give the twin's answer on solutions (True), on solutions spoiled in
each of the conditions it checks (False), on arbitrary points at tolerances
that make either answer likely, on Fortran- and C-ordered matrices, and
fail on NaN.
"""

import numpy as np
import pytest
import quadprog
from _reference import satisfies_kkt as ref_satisfies_kkt

from mmc._core._kkt import satisfies_kkt


def _solved_qp(seed, n_vars, n_constraints, n_equalities):
    """A random strictly convex QP, feasible at 0, and quadprog's solution
    (the next seed's when quadprog fails on a degenerate draw)."""
    rng = np.random.default_rng(seed)
    M = rng.normal(size=(n_vars, n_vars))
    hessian = M @ M.T + 0.5 * np.eye(n_vars)
    linear = rng.normal(size=n_vars) * 3.0
    constraints = np.asfortranarray(rng.normal(size=(n_vars, n_constraints)))
    bounds = rng.normal(size=n_constraints) - 1.0
    bounds[:n_equalities] = 0.0
    try:
        solution = quadprog.solve_qp(hessian, linear, constraints, bounds, n_equalities)
    except ValueError:
        return _solved_qp(seed + 1000, n_vars, n_constraints, n_equalities)
    return (hessian, linear, constraints, bounds, n_equalities), (
        solution[0],
        solution[4],
    )


def _check(qp, x, multipliers, tol):
    """The kernel's answer, asserted equal to the twin's."""
    answer = satisfies_kkt(*qp, x, multipliers, tol)
    assert answer == ref_satisfies_kkt(*qp, x, multipliers, tol)
    return answer


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("n_equalities", [0, 1, 2])
def test_solutions_pass_and_spoiled_ones_fail(seed, n_equalities):
    n_vars = 3 + seed
    qp, (x, multipliers) = _solved_qp(seed, n_vars, n_vars + 4, n_equalities)
    hessian, linear, constraints, bounds, _ = qp
    assert _check(qp, x, multipliers, 1e-8)
    _check(qp, x, multipliers, 1e-10)  # either answer, the twin's

    # Primal infeasible: move x against an active or any inequality.
    worst = n_equalities + int(np.argmin((constraints.T @ x - bounds)[n_equalities:]))
    assert not _check(qp, x - 1e-3 * constraints[:, worst], multipliers, 1e-8)
    # A negative inequality multiplier.
    negative = multipliers.copy()
    negative[-1] = -1e-3
    assert not _check(qp, x, negative, 1e-8)
    # Complementary slackness: a multiplier on a slack constraint.
    slack = constraints.T @ x - bounds
    loose = n_equalities + int(np.argmax(slack[n_equalities:]))
    if slack[loose] > 1e-3:
        spoiled = multipliers.copy()
        spoiled[loose] += 1e-3
        assert not _check(qp, x, spoiled, 1e-8)
    # Stationarity: a different linear term.
    assert not _check(
        (hessian, linear + 1e-3, constraints, bounds, n_equalities),
        x,
        multipliers,
        1e-8,
    )
    # An equality off its bound.
    if n_equalities:
        assert not _check(qp, x + 1e-3 * constraints[:, 0], multipliers, 1e-8)


@pytest.mark.parametrize("seed", range(40))
def test_arbitrary_points_match_the_reference(seed):
    rng = np.random.default_rng(seed)
    n_equalities = seed % 3
    qp, (x, multipliers) = _solved_qp(seed, 4, 7, n_equalities)
    # Perturbed solutions at tolerances across the perturbation's size:
    # every condition is met or broken somewhere in the sweep.
    noise = 10.0 ** rng.uniform(-12, -2)
    x = x + noise * rng.normal(size=x.shape)
    multipliers = multipliers + noise * rng.normal(size=multipliers.shape)
    answers = {_check(qp, x, multipliers, tol) for tol in 10.0 ** np.arange(-14, 1)}
    assert answers == {True, False}


@pytest.mark.parametrize("order", ["C", "F"])
def test_memory_order_and_strided_views(order):
    qp, (x, multipliers) = _solved_qp(3, 5, 8, 1)
    hessian, linear, constraints, bounds, n_eq = qp
    reordered = (
        np.array(hessian, order=order),
        linear,
        np.array(constraints, order=order),
        bounds,
        n_eq,
    )
    assert _check(reordered, x, multipliers, 1e-8)
    # A view of a larger buffer, as the duals pass their working arrays.
    big = np.zeros((8, 8), order=order)
    big[:5, :5] = hessian
    viewed = (big[:5, :5], linear, constraints, bounds, n_eq)
    assert _check(viewed, x, multipliers, 1e-8)


@pytest.mark.parametrize("where", ["x", "multipliers"])
def test_nan_fails(where):
    qp, (x, multipliers) = _solved_qp(5, 4, 6, 0)
    if where == "x":
        x = x.copy()
        x[1] = np.nan
    else:
        multipliers = multipliers.copy()
        multipliers[2] = np.nan
    assert not _check(qp, x, multipliers, 1e-8)


def test_no_constraints_checks_stationarity_only():
    hessian = np.array([[2.0, 0.0], [0.0, 4.0]])
    linear = np.array([2.0, 4.0])
    empty = np.zeros((2, 0), order="F")
    qp = (hessian, linear, empty, np.zeros(0), 0)
    assert _check(qp, np.array([1.0, 1.0]), np.zeros(0), 1e-12)
    assert not _check(qp, np.array([1.0, 1.1]), np.zeros(0), 1e-12)
