"""Data far from the origin: the estimators whose clusters do not depend on
the origin fit them centred (mmc._rows.origin_shift) and give the clusters
of the data near it."""

import math
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from _data import two_blobs

from mmc import CPM3C, CPMMC, ODMC, EvoMMC, FastEvoMMC, MultivariateMMC
from mmc._rows import FAR_FROM_ORIGIN, centred, origin_shift
from mmc.kernels import KernelFeatureMap

# Two blobs of spread about 6 moved by 10^9: the mean is about 4 x 10^8
# spreads from the origin, far beyond the rule's 8 x 10^3; before the rule
# CPMMC and MultivariateMMC raised QPError there and every other estimator
# split the blobs at random (half the labels wrong).
OFFSET = 1e9

INVARIANT = [
    (CPMMC, {}),
    (CPMMC, {"kernel": "rbf"}),
    (MultivariateMMC, {}),
    (ODMC, {}),
    (ODMC, {"kernel": "rbf"}),
    (CPM3C, {"n_clusters": 3}),
    (CPM3C, {"n_clusters": 3, "kernel": "rbf"}),
    (EvoMMC, {"kernel": "rbf"}),
    (FastEvoMMC, {"kernel": "rbf", "n_clusters": 3}),
]


def _three_blobs(seed=0):
    rng = np.random.default_rng(seed)
    centres = np.array([[0.0, 0.0, 0.0], [8.0, 0.0, 0.0], [0.0, 8.0, 0.0]])
    X = np.repeat(centres, 40, axis=0) + rng.standard_normal((120, 3))
    return X, np.repeat(np.arange(3), 40)


def _data(kwargs):
    if kwargs.get("n_clusters", 2) == 3:
        return _three_blobs()[0]
    return two_blobs(n_per_cluster=60, n_features=5, seed=1)[0]


def _spread_of(ratio, n_features=4, seed=0):
    """Rows whose mean is ``ratio`` times their spread away from the origin."""
    rng = np.random.default_rng(seed)
    deviations = rng.standard_normal((200, n_features))
    deviations -= deviations.mean(axis=0)
    spread = math.sqrt((deviations**2).sum(axis=1).mean())
    direction = np.ones(n_features) / math.sqrt(n_features)
    return deviations + ratio * spread * direction


def test_origin_shift_follows_the_precision_rule():
    limit = math.sqrt(FAR_FROM_ORIGIN)  # the ratio of mean to spread
    assert origin_shift(_spread_of(0.5 * limit)) is None
    X = _spread_of(2.0 * limit)
    np.testing.assert_allclose(origin_shift(X), X.mean(axis=0), rtol=1e-12)
    # Far beyond: the spread computed from raw moments is noise, and the
    # data are still found far.
    X = _spread_of(1e12)
    np.testing.assert_allclose(origin_shift(X), X.mean(axis=0), rtol=1e-12)


@pytest.mark.parametrize(
    "X",
    [
        np.zeros((5, 3)),  # no spread, at the origin
        np.full((5, 3), 7.0),  # no spread, away from the origin: zeros
        sp.csr_matrix(_spread_of(1e9)),  # sparse: never centred
    ],
    ids=["zeros", "constant", "sparse"],
)
def test_origin_shift_leaves_alone(X):
    shift = origin_shift(X)
    if sp.issparse(X) or not X.any():
        assert shift is None
    else:
        # Identical rows are centred to zeros: still identical.
        np.testing.assert_array_equal(centred(X, shift), np.zeros_like(X))


def test_centred_keeps_the_dtype_and_the_array_without_shift():
    X = _spread_of(1e5).astype(np.float32)
    assert centred(X, None) is X
    shifted = centred(X, X.mean(axis=0, dtype=np.float64))
    assert shifted.dtype == np.float32 and shifted.flags.c_contiguous


@pytest.mark.parametrize(
    "Estimator, kwargs", INVARIANT, ids=lambda v: getattr(v, "__name__", str(v))
)
def test_far_data_get_the_clusters_of_the_data_near_the_origin(Estimator, kwargs):
    X = _data(kwargs)
    near = Estimator(random_state=0, **kwargs).fit(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no ConvergenceWarning either
        far = Estimator(random_state=0, **kwargs).fit(X + OFFSET)
    np.testing.assert_array_equal(far.labels_, near.labels_)
    # New samples, as they are: the shift is applied (or folded into the
    # intercepts) at predict time too.
    new = X[::7] + np.float64(0.25)
    np.testing.assert_array_equal(far.predict(new + OFFSET), near.predict(new))
    np.testing.assert_array_equal(far.predict(X + OFFSET), far.labels_)


@pytest.mark.parametrize("Estimator", [CPMMC, MultivariateMMC, ODMC, CPM3C])
def test_far_hyperplanes_are_on_the_raw_samples(Estimator):
    # The shift is folded into the intercepts: coef_ and intercept_ give
    # the decision values on the samples as they are.
    kwargs = {"n_clusters": 3} if Estimator is CPM3C else {}
    X = _data(kwargs) + OFFSET
    est = Estimator(random_state=0, **kwargs).fit(X)
    assert not hasattr(est, "_origin_shift")
    by_attributes = X @ est.coef_.T + est.intercept_
    decision = est.decision_function(X)
    scale = np.abs(decision).max()
    np.testing.assert_allclose(by_attributes, decision, atol=1e-6 * scale)


@pytest.mark.parametrize("Estimator", [EvoMMC, FastEvoMMC])
def test_evo_linear_kernel_is_not_centred(Estimator):
    # The linear kernel without intercept depends on the origin: the
    # least-squares model on X + c is another model, kept as it is.
    est = Estimator(kernel="linear", random_state=0).fit(_data({}) + 1e6)
    assert est.shift_ is None
    est = Estimator(kernel="rbf", random_state=0).fit(_data({}) + 1e6)
    np.testing.assert_allclose(est.shift_, (_data({}) + 1e6).mean(axis=0))


def test_kernel_feature_map_centres_far_rbf_data_only():
    X = _spread_of(1e9)
    rbf = KernelFeatureMap("rbf", n_components=50, random_state=0).fit(X)
    np.testing.assert_allclose(rbf.shift_, X.mean(axis=0), rtol=1e-12)
    near = KernelFeatureMap("rbf", n_components=50, random_state=0).fit(
        X - X.mean(axis=0)
    )
    assert near.shift_ is None
    np.testing.assert_allclose(
        rbf.transform(X[:20]),
        near.transform(X[:20] - X.mean(axis=0)),
        atol=1e-8,
    )
    poly = KernelFeatureMap("poly", n_components=50, random_state=0).fit(X / 1e9)
    assert poly.shift_ is None
