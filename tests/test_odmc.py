"""Tests of ODMC: the dual and its gradient, the mirror steps, the duality gap,
the supervised ODM solution, the class balance and the parameters."""

import numpy as np
import pytest
import scipy.sparse as sp
from _data import random_X, two_blobs
from _reference import odm_dual

from mmc import ODMC
from mmc._odmc_relaxed import LabellingWorkingSet, balancing_shift, visiting_order
from mmc._qp import solve_qp
from mmc.metrics import clustering_error

LAM, NU, THETA = 2.0, 0.6, 0.3


def _working_set(X, labellings, tau=np.inf, lam=LAM, nu=NU, theta=THETA, mu=None):
    x_mean = np.asarray(X.mean(axis=0), dtype=np.float64).ravel()
    ws = LabellingWorkingSet(X, x_mean, lam, nu, theta, tau, capacity=2)
    for k, y in enumerate(labellings):
        ws.add(np.asarray(y, dtype=np.int8), 1.0 / (k + 1))
    if mu is not None:
        ws.mu[: ws.size] = mu
    return ws


def _set_alpha(ws, a1, a2):
    ws.a1[:] = a1
    ws.a2[:] = a2
    ws.refresh()


def _data(sparse, seed=0, n=24, d=5):
    rng = np.random.default_rng(seed)
    X = random_X(rng, n, d, np.float64, sparse, density=0.7, scales=(1.0,))
    y = np.where(rng.random(n) < 0.5, 1, -1).astype(np.int8)
    return X, y, rng


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_dual_value_matches_the_papers_formula(sparse):
    X, y, rng = _data(sparse)
    n = X.shape[0]
    ws = _working_set(X, [y])
    a1, a2 = np.abs(rng.normal(size=n)), np.abs(rng.normal(size=n))
    _set_alpha(ws, a1, a2)
    # The working set measures alpha in units of lam / n and G in units of lam.
    alpha = np.concatenate([a1, a2]) * LAM / n
    expected = odm_dual(X, y, alpha, LAM, NU, THETA)
    assert LAM * ws.values()[0] == pytest.approx(expected, rel=1e-10)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_gradient_matches_finite_differences(sparse):
    X, y, rng = _data(sparse, seed=1)
    n = X.shape[0]
    y2 = np.where(rng.random(n) < 0.5, 1, -1).astype(np.int8)
    ws = _working_set(X, [y, y2], mu=[0.3, 0.7])
    a1, a2 = np.abs(rng.normal(size=n)), np.abs(rng.normal(size=n))
    _set_alpha(ws, a1, a2)
    g1, g2 = ws.gradient()
    g1, g2 = g1.copy(), g2.copy()

    def phi(a1, a2):
        _set_alpha(ws, a1, a2)
        return float(ws.mu[:2] @ ws.values())

    h = 1e-6
    for i in rng.choice(n, 6, replace=False):
        e = np.zeros(n)
        e[i] = h
        fd1 = (phi(a1 + e, a2) - phi(a1 - e, a2)) / (2 * h)
        fd2 = (phi(a1, a2 + e) - phi(a1, a2 - e)) / (2 * h)
        assert g1[i] == pytest.approx(fd1, rel=1e-6, abs=1e-9)
        assert g2[i] == pytest.approx(fd2, rel=1e-6, abs=1e-9)


def test_entropic_step_stays_on_the_simplex_and_follows_the_values():
    X, y, rng = _data(False, seed=2)
    labellings = [y, -np.roll(y, 3), np.roll(y, 7)]
    ws = _working_set(X, labellings, mu=[0.2, 0.5, 0.3])
    values = np.array([1.0, 0.5, 2.0])
    ws.mu_step(values, eta=0.8)
    expected = np.array([0.2, 0.5, 0.3]) * np.exp(-0.8 * values)
    np.testing.assert_allclose(ws.mu[:3], expected / expected.sum(), rtol=1e-12)
    # A huge step cannot zero a weight for good.
    ws.mu_step(np.array([0.0, 1e6, 0.0]), eta=10.0)
    assert ws.mu[:3].sum() == pytest.approx(1.0)
    assert np.all(ws.mu[:3] > 0)


def test_epoch_keeps_alpha_in_the_box():
    X, y, rng = _data(False, seed=3)
    ws = _working_set(X, [y], tau=0.05)
    for _ in range(3):
        ws.epoch(rng.permutation(X.shape[0]).astype(np.int32))
    assert np.all((ws.a1 >= 0) & (ws.a1 <= 0.05))
    assert np.all((ws.a2 >= 0) & (ws.a2 <= 0.05))
    assert np.any(ws.a1 == 0.05)  # the bound is active


def _mirror_steps(ws, n_steps, rng, eta):
    gaps = []
    for _ in range(n_steps):
        ws.epoch(rng.permutation(ws.X.shape[0]).astype(np.int32))
        values = ws.values()
        ws.mu_step(values, eta)
        upper, lower = ws.gap(values)
        assert upper >= lower - 1e-12
        gaps.append(upper - lower)
    return np.array(gaps)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_duality_gap_shrinks_on_a_fixed_working_set(sparse):
    X, y = two_blobs(n_per_cluster=30, distance=3.0, seed=4)
    rng = np.random.default_rng(4)
    if sparse:
        X = sp.csr_matrix(X)
    labellings = [np.where(y == 1, 1, -1).astype(np.int8)]
    for _ in range(2):
        flipped = labellings[0].copy()
        flipped[rng.choice(60, 10, replace=False)] *= -1
        labellings.append(flipped)
    ws = _working_set(X, labellings)
    gaps = _mirror_steps(ws, 100, rng, eta=30.0)
    assert gaps[-1] < 1e-3 * gaps[0]
    assert gaps[-1] < 1e-6
    # Mostly monotone: every 10 steps the gap has fallen.
    assert np.all(np.diff(gaps[::10]) < 0)


def test_single_labelling_matches_a_direct_qp_solve():
    rng = np.random.default_rng(5)
    m, d = 16, 3
    X = rng.normal(size=(m, d))
    y = np.where(rng.random(m) < 0.5, 1, -1).astype(np.int8)
    tau = 0.8
    ws = _working_set(X, [y], tau=tau)
    for _ in range(400):
        ws.epoch(rng.permutation(m).astype(np.int32))
    # The supervised ODM dual (eq. 3) in the paper's units, with the box
    # 0 <= alpha <= tau lam / m, solved by quadprog: minimise -G.
    Xc = X - X.mean(axis=0)
    Q = (Xc @ Xc.T) * np.outer(y, y)
    D = np.concatenate([np.ones(m), np.full(m, 1 / NU)])
    hessian = np.block([[Q, -Q], [-Q, Q]]) + np.diag(
        m * (1 - THETA) ** 2 / (2 * LAM) * D
    )
    linear = -np.concatenate([np.full(m, THETA - 1), np.full(m, THETA + 1)])
    box = tau * LAM / m
    constraints = np.hstack([np.eye(2 * m), -np.eye(2 * m)])
    bounds = np.concatenate([np.zeros(2 * m), np.full(2 * m, -box)])
    alpha = solve_qp(hessian, linear, constraints, bounds)
    if isinstance(alpha, tuple):
        alpha = alpha[0]
    ours = np.concatenate([ws.a1, ws.a2]) * LAM / m
    np.testing.assert_allclose(ours, alpha, atol=1e-8 * box)
    assert LAM * ws.values()[0] == pytest.approx(
        odm_dual(X, y, alpha, LAM, NU, THETA), rel=1e-9
    )
    upper, lower = ws.gap(ws.values())
    assert upper - lower < 1e-9


@pytest.mark.parametrize("class_balance", [0.0, 0.1, 0.3])
def test_labellings_and_labels_respect_the_balance(class_balance):
    rng = np.random.default_rng(6)
    # Unequal clusters (70 / 30): an unconstrained split would be unbalanced.
    X = np.vstack([rng.normal(size=(70, 4)) + 3, rng.normal(size=(30, 4)) - 3])
    est = ODMC(class_balance=class_balance, random_state=0).fit(X)
    bound = max(int(class_balance * 100), 0)
    assert abs(int((2 * est.labels_ - 1).sum())) <= bound
    np.testing.assert_array_equal(est.predict(X), est.labels_)
    # The labellings the generator adds are balanced too.
    ws = _working_set(X, [np.where(np.arange(100) < 50, 1, -1).astype(np.int8)])
    for _ in range(5):
        ws.epoch(rng.permutation(100).astype(np.int32))
    y, _ = ws.most_violated(bound)
    assert abs(int(y.sum())) <= bound


def testbalancing_shift():
    decision = np.array([-3.0, -1.0, 0.5, 1.0, 2.0, 4.0])
    assert balancing_shift(decision, 2) == 0.0
    shift = balancing_shift(decision, 0)
    assert np.count_nonzero(decision + shift > 0) == 3
    shift = balancing_shift(-decision, 0)
    assert np.count_nonzero(-decision + shift > 0) == 3


def test_most_violated_labelling_lowers_the_lower_bound():
    X, y = two_blobs(n_per_cluster=40, distance=4.0, seed=7)
    rng = np.random.default_rng(7)
    start = np.where(rng.random(80) < 0.5, 1, -1).astype(np.int8)
    ws = _working_set(X, [start])
    for _ in range(30):
        ws.epoch(rng.permutation(80).astype(np.int32))
    values = ws.values()
    y_new, g_new = ws.most_violated(0)
    assert g_new < values.min()
    # The value it reports is G at that labelling.
    check = _working_set(X, [y_new])
    _set_alpha(check, ws.a1, ws.a2)
    assert check.values()[0] == pytest.approx(g_new, rel=1e-10)
    # On two clear blobs it is the split into the blobs.
    assert clustering_error(y, (y_new > 0).astype(int)) == 0.0


def test_fitted_attributes():
    X, y = two_blobs(seed=8)
    est = ODMC(refine=False, random_state=0).fit(X)
    assert clustering_error(y, est.labels_) == 0.0
    assert est.mu_.shape == (est.n_constraints_,)
    assert est.mu_.sum() == pytest.approx(1.0) and np.all(est.mu_ >= 0)
    assert 0.0 <= est.duality_gap_ <= est.tol * abs(est.objective_) * 1.001
    assert est.objective_ > 0
    assert est.n_iter_ >= 1


def test_sparse_and_dense_input_give_the_same_fit():
    rng = np.random.default_rng(9)
    X = random_X(rng, 80, 12, np.float64, False, density=0.3, scales=(1.0,))
    X[:40, :3] += 2.0
    dense = ODMC(random_state=0).fit(X)
    sparse = ODMC(random_state=0).fit(sp.csr_matrix(X))
    np.testing.assert_array_equal(dense.labels_, sparse.labels_)
    np.testing.assert_allclose(dense.coef_, sparse.coef_, rtol=1e-8, atol=1e-12)


@pytest.mark.parametrize(
    "params, match",
    [
        ({"theta": 1.0}, "'theta' parameter"),
        ({"theta": -0.1}, "'theta' parameter"),
        ({"nu": 0.0}, "'nu' parameter"),
        ({"nu": -1.0}, "'nu' parameter"),
        ({"lam": 0.0}, "'lam' parameter"),
        ({"lam": -2.0}, "'lam' parameter"),
        ({"tau": 0.0}, "'tau' parameter"),
        ({"tau": -1.0}, "'tau' parameter"),
        ({"class_balance": 1.5}, "'class_balance' parameter"),
        ({"kernel": "laplacian"}, "'kernel' parameter"),
        ({"tol": -1.0}, "'tol' parameter"),
        ({"max_iter": 0}, "'max_iter' parameter"),
    ],
)
def test_bad_parameters(params, match):
    X, _ = two_blobs(n_per_cluster=5)
    with pytest.raises(ValueError, match=match):
        ODMC(**params).fit(X)


def test_infinite_tau_is_the_unbounded_problem():
    X, y = two_blobs(seed=10)
    est = ODMC(tau=np.inf, random_state=0).fit(X)
    assert clustering_error(y, est.labels_) == 0.0


def test_docstring_example():
    import doctest

    import mmc._odmc

    result = doctest.testmod(mmc._odmc)
    assert result.attempted > 0 and result.failed == 0


@pytest.mark.parametrize("n_samples", [1, 7, 255, 256, 1000, 5003])
def test_visiting_order_is_a_permutation(n_samples):
    order = visiting_order(n_samples, np.random.RandomState(0))
    assert order.dtype == np.int32
    np.testing.assert_array_equal(np.sort(order), np.arange(n_samples))
