"""Tests of ODMC with a kernel: the margin losses, the single-labelling solve,
the descent on the unrelaxed objective, its starts and lam="auto"."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from _data import random_X, two_blobs
from scipy.optimize import minimize
from sklearn.datasets import make_blobs, make_circles, make_moons
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics.pairwise import pairwise_kernels
from sklearn.preprocessing import StandardScaler

import mmc._odmc_refine as refine_module
from mmc import ODMC
from mmc._odmc_refine import margin_losses, refine_labelling, solve_labelling
from mmc._odmc_relaxed import LabellingWorkingSet
from mmc._starts import principal_direction, principal_directions
from mmc.kernels import KernelFeatureMap
from mmc.metrics import clustering_error

NU, THETA = 0.6, 0.3


def _reference_losses(margins, theta, nu, tau):
    """max over 0 <= a <= tau of a d - c a^2 / 2, per side, by clipping the
    unconstrained maximiser (the dual's box, written out)."""
    c1 = 0.5 * (1 - theta) ** 2
    total = np.zeros_like(margins)
    for d, c in ((1 - theta - margins, c1), (margins - 1 - theta, c1 / nu)):
        a = np.clip(d / c, 0.0, tau)
        total += a * d - 0.5 * c * a * a
    return total


@pytest.mark.parametrize("tau", [0.5, 10.0, np.inf])
def test_margin_losses_are_the_conjugate_of_the_box(tau):
    margins = np.random.default_rng(0).normal(scale=3.0, size=200)
    np.testing.assert_allclose(
        margin_losses(margins, THETA, NU, tau),
        _reference_losses(margins, THETA, NU, tau),
        rtol=1e-12,
        atol=1e-12,
    )
    # No loss inside the band 1 +- theta, and more below it than above.
    inside = np.array([1 - THETA, 1.0, 1 + THETA])
    np.testing.assert_allclose(margin_losses(inside, THETA, NU, tau), 0, atol=1e-15)
    assert (
        margin_losses(np.array([0.0]), THETA, NU, tau)[0]
        > margin_losses(np.array([2.0]), THETA, NU, tau)[0]
    )


def _primal_value(Xc, y, lam, nu, theta):
    """min_w 1/2 |w|^2 + lam/n sum (xi^2 + nu eps^2) / (1 - theta)^2, by L-BFGS."""
    n = Xc.shape[0]
    scale = lam / n / (1 - theta) ** 2

    def objective(w):
        margins = y * (Xc @ w)
        xi = np.maximum(1 - theta - margins, 0.0)
        eps = np.maximum(margins - 1 - theta, 0.0)
        value = 0.5 * w @ w + scale * np.sum(xi**2 + nu * eps**2)
        grad = w + 2 * scale * (Xc.T @ (y * (nu * eps - xi)))
        return value, grad

    w0 = np.zeros(Xc.shape[1])
    result = minimize(objective, w0, jac=True, method="L-BFGS-B", tol=1e-14)
    return result.fun


def _working_set(X, lam, tau=np.inf):
    x_mean = np.asarray(X.mean(axis=0), dtype=np.float64).ravel()
    return LabellingWorkingSet(X, x_mean, lam, NU, THETA, tau, capacity=1)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_single_labelling_solve_reaches_the_primal_optimum(sparse, dtype):
    rng = np.random.default_rng(1)
    X = random_X(rng, 40, 4, dtype, sparse, density=0.8, scales=(1.0,))
    y = np.where(rng.random(40) < 0.5, 1, -1).astype(np.int8)
    lam = 3.0
    ws = _working_set(X, lam)
    ws.add(y, 1.0)
    value = None
    for _ in range(20):  # each call stops at the gap or after 50 epochs
        _, value, gap = solve_labelling(ws, tol=1e-12, rng=np.random.RandomState(0))
    Xd = X.toarray() if sparse else X
    Xc = np.asarray(Xd, dtype=np.float64) - ws.x_mean
    # The value is G / lam; at the optimum G is the primal minimum.
    expected = _primal_value(Xc, y.astype(np.float64), lam, NU, THETA) / lam
    tolerance = 1e-4 if dtype == np.float32 else 1e-7
    assert value == pytest.approx(expected, rel=tolerance)
    assert gap <= 1e-9 * abs(value) or dtype == np.float32


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_refinement_descends_to_a_fixed_point(sparse):
    rng = np.random.default_rng(2)
    X, truth = two_blobs(n_per_cluster=30, distance=4.0, seed=2)
    X = sp.csr_matrix(X) if sparse else X
    bound = 6
    # The blobs with a fifth of each side swapped: a start in their basin.
    start = np.where(truth == 1, 1, -1).astype(np.int8)
    swapped = np.concatenate(
        [rng.choice(30, 6, replace=False), 30 + rng.choice(30, 6, replace=False)]
    )
    start[swapped] *= -1
    lam = 2.0
    Xc = np.asarray(X.toarray() if sparse else X) - np.asarray(X.mean(axis=0)).ravel()
    start_value = _primal_value(Xc, start.astype(np.float64), lam, NU, THETA) / lam

    ws = _working_set(X, lam)
    result = refine_labelling(
        ws, start.copy(), bound=bound, tol=1e-10, rng=np.random.RandomState(0)
    )
    y = ws.Y[:, 0].astype(np.float64)
    assert result["converged"]
    assert abs(y.sum()) <= bound
    # The reported value is the primal optimum of the final labelling, below
    # that of the start.
    final_value = _primal_value(Xc, y, lam, NU, THETA) / lam
    assert result["objective"] == pytest.approx(final_value, rel=1e-6)
    assert final_value < start_value
    # A fixed point: no sample would lower the loss by changing sides (the
    # class balance aside), and most of the swapped samples are back.
    margins = y * ws.decision()
    flipped = _reference_losses(-margins, THETA, NU, np.inf)
    kept = _reference_losses(margins, THETA, NU, np.inf)
    assert np.all(flipped >= kept - 1e-9)
    assert clustering_error(truth, (y > 0).astype(int)) <= 3 / 60


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_principal_directions_match_the_svd(sparse, dtype):
    rng = np.random.default_rng(3)
    # Well separated leading singular values, so that a few subspace
    # iterations resolve each direction.
    X = rng.normal(size=(300, 8)) * np.array([10.0, 6.0, 3.0, 1.5, 0.5, 0.3, 0.2, 0.1])
    X = (X @ np.linalg.qr(rng.normal(size=(8, 8)))[0]).astype(dtype) + 1.0
    x_mean = X.astype(np.float64).mean(axis=0)
    Xin = sp.csr_matrix(X) if sparse else X
    directions = principal_directions(Xin, x_mean, 3, np.random.RandomState(0))
    _, _, vt = np.linalg.svd(X.astype(np.float64) - x_mean, full_matrices=False)
    assert directions.shape == (3, 8)
    for j in range(3):
        assert abs(directions[j] @ vt[j]) == pytest.approx(1.0, abs=1e-4)
    # One direction is the principal direction the estimators start from.
    np.testing.assert_array_equal(
        principal_directions(Xin, x_mean, 1, np.random.RandomState(5))[0],
        principal_direction(Xin, x_mean, np.random.RandomState(5)),
    )


@pytest.mark.parametrize("power", [1, 3])
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_sharpened_features_give_the_powered_kernel(power, sparse):
    rng = np.random.default_rng(4)
    X = rng.normal(size=(30, 3))
    Xin = sp.csr_matrix(X) if sparse else X
    for kernel, params in (
        ("rbf", {"gamma": 0.7}),
        ("poly", {"gamma": 0.5, "coef0": 1.0}),
    ):
        feature_map = KernelFeatureMap(kernel, n_components=50, **params).fit(Xin)
        features = feature_map.sharpened_features(Xin, power)
        K = pairwise_kernels(X, metric=kernel, **params)
        # Every sample is a landmark: the map is exact.
        np.testing.assert_allclose(
            features @ features.T, K**power, atol=1e-9 * np.abs(K**power).max()
        )
    # The rbf kernel to a power is the rbf kernel with power times its gamma.
    named = KernelFeatureMap("rbf", gamma=0.7 * power, n_components=50).fit(Xin)
    sharp = KernelFeatureMap("rbf", gamma=0.7, n_components=50).fit(Xin)
    a = named.transform(Xin)
    b = sharp.sharpened_features(Xin, power)
    np.testing.assert_allclose(a @ a.T, b @ b.T, atol=1e-8)
    # A precomputed kernel gives the same features as the named one.
    K = pairwise_kernels(X, metric="rbf", gamma=0.7)
    pre = KernelFeatureMap("precomputed", n_components=50).fit(K)
    c = pre.sharpened_features(K, power)
    np.testing.assert_allclose(c @ c.T, b @ b.T, atol=1e-8)


def test_sharpened_features_keep_the_landmarks_of_a_low_rank_map():
    X = np.random.default_rng(5).normal(size=(60, 2))
    feature_map = KernelFeatureMap("rbf", gamma=1.0, n_components=20, random_state=0)
    features = feature_map.fit(X).sharpened_features(X, 2)
    assert features.shape == (60, 20)
    # On the landmarks the Nystroem map is exact.
    landmarks = feature_map.landmarks_
    K = pairwise_kernels(X[landmarks], metric="rbf", gamma=2.0)
    np.testing.assert_allclose(
        features[landmarks] @ features[landmarks].T, K, atol=1e-8
    )


@pytest.mark.parametrize("name", ["moons", "circles", "blobs"])
def test_refinement_picks_the_lowest_objective(name, monkeypatch):
    """The fit keeps, among its refined starts, the one of lowest objective
    -- never a choice by the labels -- and reports that value. With the
    linear kernel (the blobs) the starts are the relaxed labelling and the
    median splits along the principal directions, without sharpened
    kernels."""
    X, _ = {
        "moons": make_moons(300, noise=0.05, random_state=1),
        "circles": make_circles(300, factor=0.4, noise=0.05, random_state=1),
        "blobs": two_blobs(n_per_cluster=150, seed=11),
    }[name]
    kernel, lam = ("linear", 2.0) if name == "blobs" else ("rbf", 10.0)
    refined = []
    original = refine_module.refine_labelling

    def recording(ws, y, **kwargs):
        result = original(ws, y, **kwargs)
        refined.append(result["objective"])
        return result

    monkeypatch.setattr(refine_module, "refine_labelling", recording)
    # The refinements of one fit: not the refit at the papers' bound that the
    # choice by the cut may add (mmc/_balance_cut.py).
    monkeypatch.setattr("mmc._odmc.keep_the_better_cut", lambda *args, **kw: None)
    est = ODMC(kernel=kernel, random_state=0).fit(X)
    # One refinement per run under each sharpened kernel, then one per start.
    powers = len(refine_module.SHARPENING_POWERS) if kernel == "rbf" else 0
    n_starts = 1 + refine_module.N_SPECTRAL_SPLITS + powers
    n_sharp = powers * len(refine_module.SHARP_METHODS)
    assert len(refined) == n_sharp + n_starts
    assert est.objective_ == pytest.approx(lam * min(refined[-n_starts:]))
    assert est.n_constraints_ == 1 and est.mu_.tolist() == [1.0]


def test_auto_lam_depends_on_the_kernel():
    X, _ = two_blobs(seed=6)
    linear = ODMC(random_state=0).fit(X)
    np.testing.assert_array_equal(
        linear.coef_, ODMC(lam=2.0, random_state=0).fit(X).coef_
    )
    rbf = ODMC(kernel="rbf", random_state=0).fit(X)
    np.testing.assert_array_equal(
        rbf.coef_, ODMC(kernel="rbf", lam=10.0, random_state=0).fit(X).coef_
    )
    with pytest.raises(ValueError, match="'lam' parameter"):
        ODMC(lam="large").fit(X)


def test_refinement_stops_after_the_rounds_allowed(monkeypatch):
    X, _ = two_blobs(n_per_cluster=30, distance=1.0, seed=3)
    start = np.where(np.random.default_rng(3).random(60) < 0.5, 1, -1).astype(np.int8)
    monkeypatch.setattr(refine_module, "MAX_REFINE_ROUNDS", 1)
    ws = _working_set(X, 2.0)
    result = refine_labelling(
        ws, start, bound=60, tol=1e-6, rng=np.random.RandomState(0)
    )
    assert not result["converged"]
    # The labelling held is the one the value belongs to: the start.
    np.testing.assert_array_equal(ws.Y[:, 0], start)


def test_refinement_that_does_not_settle_warns(monkeypatch):
    original = refine_module.refine_labelling

    def unsettled(ws, y, **kwargs):
        return {**original(ws, y, **kwargs), "converged": False}

    monkeypatch.setattr(refine_module, "refine_labelling", unsettled)
    X, _ = make_moons(200, noise=0.05, random_state=2)
    with pytest.warns(ConvergenceWarning, match="did not settle within 30 relabel"):
        est = ODMC(kernel="rbf", random_state=0).fit(X)
    np.testing.assert_array_equal(est.predict(X), est.labels_)


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_refine_false_stops_at_the_relaxation(kernel, monkeypatch):
    def fail(*args, **kwargs):
        raise AssertionError("refine=False does not refine")

    monkeypatch.setattr(refine_module, "refine_labelling", fail)
    X, y = two_blobs(seed=7)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        est = ODMC(kernel=kernel, refine=False, random_state=0).fit(X)
    assert clustering_error(y, est.labels_) < 0.02
    # The relaxation's model: a mixture of the working set's labellings.
    assert est.mu_.shape == (est.n_constraints_,)
    assert est.mu_.sum() == pytest.approx(1.0)


@pytest.mark.parametrize(
    "values, settled",
    [((1.0,), False), ((1.0, 0.9), False), ((1.0, 0.995), True), ((1.0, 1.002), True)],
)
def test_descent_out_of_rounds_is_settled_only_within_the_solver_precision(
    values, settled, monkeypatch
):
    """Cut off after its rounds with the labelling still moving, a descent
    counts as settled only when its last round lowered the objective by less
    than tol (relative), the precision of each ODM solve; after a single
    round nothing is known."""
    X, _ = two_blobs(n_per_cluster=10, seed=12)
    ws = _working_set(X, 2.0)
    scripted = iter(values)
    monkeypatch.setattr(
        refine_module, "solve_labelling", lambda ws, **_: (1, next(scripted), 0.0)
    )

    def moved(gains, bound, ties=None, out=None):
        out[:] = np.roll(ws.Y[:, 0], 1)  # a new labelling every round

    monkeypatch.setattr(refine_module, "balanced_signs", moved)
    monkeypatch.setattr(refine_module, "MAX_REFINE_ROUNDS", len(values))
    start = np.where(np.arange(20) < 10, 1, -1).astype(np.int8)
    result = refine_labelling(ws, start, bound=20, tol=1e-2, rng=None)
    assert result["objective"] == values[-1]
    assert result["converged"] == settled


def test_drifting_descents_do_not_warn():
    """Two even blobs, min-max scaled: some descents drift by a few samples a
    round until their rounds run out, at the solver's precision; the fit
    does not warn of that."""
    X, _ = make_blobs(
        [1000, 1000], centers=[[0.0] * 10, [4.0] + [0.0] * 9], random_state=0
    )
    X = (X - X.min(axis=0)) / (X.max(axis=0) - X.min(axis=0))
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        ODMC(random_state=0).fit(X)


def test_relaxation_cut_short_warns_before_the_refinement():
    X, _ = two_blobs(distance=1.0, seed=10)
    with pytest.warns(ConvergenceWarning, match="max_iter=1"):
        est = ODMC(max_iter=1, random_state=0).fit(X)
    # The refinement's epochs count too, and it still ends at one labelling.
    assert est.n_iter_ > 1 and est.mu_.tolist() == [1.0]
    np.testing.assert_array_equal(est.predict(X), est.labels_)


def test_refinement_mends_a_relaxation_that_cuts_across_the_clusters():
    """Two even blobs, standardised: the relaxed hyperplane cuts across
    them, the descent on the unrelaxed problem finds them (robustness
    suite's "blobs 1:1 std")."""
    X, y = make_blobs(
        [1000, 1000], centers=[[0.0] * 10, [4.0] + [0.0] * 9], random_state=0
    )
    X = StandardScaler().fit_transform(X)
    relaxed = ODMC(refine=False, random_state=0).fit(X)
    refined = ODMC(random_state=0).fit(X)
    assert clustering_error(y, relaxed.labels_) > 0.1
    assert clustering_error(y, refined.labels_) < 0.03


def test_sharpened_features_of_some_rows():
    X = np.random.default_rng(8).normal(size=(40, 3))
    feature_map = KernelFeatureMap("rbf", gamma=0.5, n_components=15, random_state=0)
    feature_map.fit(X)
    rows = np.array([3, 7, 21, 39])
    np.testing.assert_allclose(
        feature_map.sharpened_features(X, 3, rows),
        feature_map.sharpened_features(X, 3)[rows],
        atol=1e-10,
    )


def test_search_on_a_subsample_is_extended_to_every_sample(monkeypatch):
    X, y = two_blobs(n_per_cluster=300, seed=4)
    monkeypatch.setattr(refine_module, "SEARCH_SAMPLES", 200)
    refined_sizes = []
    original = refine_module.refine_labelling

    def recording(ws, start, **kwargs):
        refined_sizes.append(ws.X.shape[0])
        return original(ws, start, **kwargs)

    monkeypatch.setattr(refine_module, "refine_labelling", recording)
    est = ODMC(kernel="rbf", random_state=0).fit(X)
    # The search refines on the subsample; the winner once more on all.
    assert set(refined_sizes[:-1]) == {200} and refined_sizes[-1] == 600
    np.testing.assert_array_equal(est.predict(X), est.labels_)
    assert clustering_error(y, est.labels_) <= 0.02
