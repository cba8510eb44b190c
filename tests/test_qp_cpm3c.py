"""Tests of mmc._qp.CPM3CDual against an independent solution of its primal.

The primal (see the docstring of CPM3CDual), with W of shape (k, d):

    min_{W, xi}  1/2 |W|^2 + C xi
    s.t.         xi >= A_c - <B_c, W>                   for every constraint c,
                 xi >= 0,
                 |<D_p, W> - <D_q, W>| <= class_balance  for all pairs p, q,

is solved here with every pairwise balance constraint written out (k(k-1)
inequalities, no centre variable) by SLSQP, then polished on the active set
and accepted only with a KKT certificate (feasibility, stationarity,
non-negative multipliers from NNLS). The dual's W, objective and KKT
conditions (signs, sum(lam) <= C, complementary slackness) are compared with
it.
"""

import numpy as np
import pytest
from scipy.optimize import minimize, nnls

from mmc._qp import CPM3CDual


def _certified_qp(hessian, linear, A, c):
    """Minimiser of ``1/2 v'Hv + linear'v`` s.t. ``A v + c >= 0``, certified."""
    n_vars = hessian.shape[0]

    def objective(v):
        return 0.5 * v @ hessian @ v + linear @ v

    scale = 1.0 / (1.0 + np.abs(linear).max())
    start = np.zeros(n_vars)
    start[-1] = max(0.0, -c.min()) + 1.0  # xi large: feasible
    result = minimize(
        lambda v: scale * objective(v),
        start,
        jac=lambda v: scale * (hessian @ v + linear),
        constraints=[{"type": "ineq", "fun": lambda v: A @ v + c, "jac": lambda v: A}],
        method="SLSQP",
        options={"ftol": 1e-15, "maxiter": 2000},
    )
    residual = A @ result.x + c
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
        if np.abs(gradient - A_act.T @ multipliers).max() <= 1e-10 * (
            1.0 + np.abs(linear).max()
        ):
            return v, objective(v)
    raise AssertionError("test oracle: no KKT point found for the primal")


def _primal_optimum(B, A, D, C, class_balance):
    """Certified ``(W, xi, value)`` of the CPM3C primal."""
    n_cons, k, d = B.shape
    n_vars = k * d + 1
    hessian = np.zeros((n_vars, n_vars))
    hessian[: k * d, : k * d] = np.eye(k * d)
    linear = np.zeros(n_vars)
    linear[-1] = C
    rows, offsets = [], []
    for b, a in zip(B.reshape(n_cons, -1), A):
        rows.append(np.r_[b, 1.0])  # xi + <B_c, W> - A_c >= 0
        offsets.append(-a)
    rows.append(np.r_[np.zeros(k * d), 1.0])  # xi >= 0
    offsets.append(0.0)
    flat_D = D.reshape(k, -1)
    for p in range(k):
        for q in range(k):
            if p != q:  # class_balance - <D_p - D_q, W> >= 0
                rows.append(np.r_[flat_D[q] - flat_D[p], 0.0])
                offsets.append(class_balance)
    v, value = _certified_qp(hessian, linear, np.array(rows), np.array(offsets))
    return v[:-1].reshape(k, d), v[-1], value


def _instance(seed, k, d, n_cons):
    rng = np.random.default_rng(seed)
    B = 0.3 * rng.normal(size=(n_cons, k, d))
    A = rng.uniform(0.2, 1.0, size=n_cons)
    D = 0.5 * rng.normal(size=(k, k, d))
    return B, A, D


def _solve_dual(B, A, D, C, class_balance):
    n_cons, k, _ = B.shape
    flat_B, flat_D = B.reshape(n_cons, -1), D.reshape(k, -1)
    dual = CPM3CDual(C, class_balance, k)
    lam, m = dual.solve(flat_B @ flat_B.T, A, flat_B @ flat_D.T, flat_D @ flat_D.T)
    W = (lam @ flat_B - m @ flat_D).reshape(k, -1)
    return lam, m, W


def _check(B, A, D, C, class_balance, lam, m, W):
    W_ref, xi_ref, value_ref = _primal_optimum(B, A, D, C, class_balance)
    scale = 1.0 + np.abs(W_ref).max()
    np.testing.assert_allclose(W, W_ref, atol=1e-6 * scale)
    margins = A - np.einsum("ckd,kd->c", B, W)
    xi = max(0.0, margins.max())
    value = 0.5 * np.vdot(W, W) + C * xi
    assert value == pytest.approx(value_ref, rel=1e-6, abs=1e-9)
    # KKT of the dual: signs and bounds of the multipliers, complementary
    # slackness, and the balance constraints at the recovered W.
    assert lam.min() >= 0.0
    assert lam.sum() <= C * (1.0 + 1e-9)
    assert abs(m.sum()) <= 1e-8 * (1.0 + np.abs(m).max())
    tight = 1e-6 * (1.0 + np.abs(A).max())
    for c in np.flatnonzero(lam > 1e-7 * C):
        assert margins[c] == pytest.approx(xi_ref, abs=tight)
    if lam.sum() < C * (1.0 - 1e-6):
        assert xi_ref <= tight
    balance = np.einsum("pkd,kd->p", D, W)
    assert balance.max() - balance.min() <= class_balance + 1e-7


@pytest.mark.parametrize("class_balance", [0.0, 0.1, 10.0])
@pytest.mark.parametrize("C", [0.05, 1.0, 100.0])
@pytest.mark.parametrize(
    "k, d, n_cons",
    [(2, 3, 1), (3, 4, 3), (4, 2, 5), (3, 1, 8), (5, 3, 4)],
    ids=["k2-d3-c1", "k3-d4-c3", "k4-d2-c5", "k3-d1-c8-singular", "k5-d3-c4"],
)
def test_dual_matches_primal(k, d, n_cons, C, class_balance):
    B, A, D = _instance(10 * k + n_cons, k, d, n_cons)
    lam, m, W = _solve_dual(B, A, D, C, class_balance)
    _check(B, A, D, C, class_balance, lam, m, W)


def test_duplicate_constraints_and_balance_vectors():
    # Singular in both blocks: two equal constraints, two equal D_p.
    B, A, D = _instance(3, 3, 4, 4)
    B[3], A[3] = B[1], A[1]
    D[2] = D[0]
    for C in (0.05, 100.0):
        lam, m, W = _solve_dual(B, A, D, C, 0.05)
        _check(B, A, D, C, 0.05, lam, m, W)


def test_dual_is_invariant_to_the_scale_of_the_data():
    # Scaling every B_c and D_p by s, and C by 1/s^2 (as the estimator does
    # through the spread of X), scales W by 1/s and keeps the assignments.
    B, A, D = _instance(5, 3, 4, 5)
    _, _, W = _solve_dual(B, A, D, 1.0, 0.1)
    for s in (1e-3, 1e3):
        _, _, W_s = _solve_dual(s * B, A, s * D, 1.0 / s**2, 0.1 * 1.0)
        # The balance bound is on scores, which are unchanged: s <D, W/s>.
        np.testing.assert_allclose(s * W_s, W, rtol=1e-6, atol=1e-9)


def test_reuses_its_buffers_across_sizes():
    B, A, D = _instance(8, 3, 3, 6)
    dual = CPM3CDual(1.0, 0.1, 3)
    k = 3
    flat_D = D.reshape(k, -1)
    for n_cons in (1, 2, 6, 3):
        flat_B = B[:n_cons].reshape(n_cons, -1)
        lam, m = dual.solve(
            flat_B @ flat_B.T, A[:n_cons], flat_B @ flat_D.T, flat_D @ flat_D.T
        )
        fresh = _solve_dual(B[:n_cons], A[:n_cons], D, 1.0, 0.1)
        np.testing.assert_allclose(lam, fresh[0], atol=1e-10)
        np.testing.assert_allclose(m, fresh[1], atol=1e-10)
