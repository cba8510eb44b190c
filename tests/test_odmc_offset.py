"""Tests of ODMC's offset (``intercept_scaling``) and its class balance "auto".

The offset is the weight of a constant feature appended to the centred
samples; the working set holds it implicitly (``offset_sq``). It is compared
here with the working set of the same samples with the constant feature
appended explicitly, dense and CSR.
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from _data import random_X
from sklearn.datasets import make_blobs
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import adjusted_rand_score
from sklearn.preprocessing import StandardScaler

from mmc import ODMC
from mmc._balance import PAPER_CLASS_BALANCE
from mmc._odmc_relaxed import LabellingWorkingSet, hyperplane
from mmc.metrics import clustering_error

LAM, NU, THETA, TAU = 0.3, 0.6, 0.3, 10.0


def _working_sets(sparse, offset, seed=0, n=30, d=6):
    """The working set with offset_sq = offset^2, and the one on the samples
    with a column of value ``offset`` appended, uncentred (its mean 0)."""
    rng = np.random.default_rng(seed)
    X = random_X(rng, n, d, np.float64, sparse, density=0.7, scales=(1.0,))
    x_mean = np.asarray(X.mean(axis=0), dtype=np.float64).ravel()
    column = np.full((n, 1), offset)
    if sparse:
        X_aug = sp.hstack([X, sp.csr_matrix(column)], format="csr")
    else:
        X_aug = np.hstack([X, column])
    implicit = LabellingWorkingSet(
        X, x_mean, LAM, NU, THETA, TAU, capacity=2, offset_sq=offset**2
    )
    explicit = LabellingWorkingSet(
        X_aug, np.append(x_mean, 0.0), LAM, NU, THETA, TAU, capacity=2
    )
    labellings = [
        np.where(rng.random(n) < p, 1, -1).astype(np.int8) for p in (0.3, 0.6)
    ]
    for ws in (implicit, explicit):
        for k, y in enumerate(labellings):
            ws.add(y, 1.0 / (k + 1))
    return implicit, explicit, rng


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("offset", [0.5, 2.0])
def test_offset_is_a_constant_feature(sparse, offset):
    implicit, explicit, rng = _working_sets(sparse, offset)
    n = implicit.X.shape[0]
    for _ in range(4):
        order = rng.permutation(n).astype(np.int32)
        implicit.epoch(order)
        explicit.epoch(order)
        np.testing.assert_allclose(implicit.a1, explicit.a1, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(implicit.a2, explicit.a2, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(implicit.values(), explicit.values(), rtol=1e-10)
    np.testing.assert_allclose(
        implicit.gap(implicit.values()), explicit.gap(explicit.values()), rtol=1e-10
    )
    np.testing.assert_allclose(
        implicit.decision(), explicit.decision(), rtol=1e-9, atol=1e-12
    )
    # The hyperplane's intercept carries the constant feature's weight.
    coef, intercept, decision = hyperplane(implicit, n)
    coef_aug, intercept_aug, decision_aug = hyperplane(explicit, n)
    np.testing.assert_allclose(coef, coef_aug[:-1], rtol=1e-9, atol=1e-12)
    assert intercept == pytest.approx(intercept_aug + offset * coef_aug[-1], rel=1e-9)
    np.testing.assert_allclose(decision, decision_aug, rtol=1e-9, atol=1e-12)
    # The labelling generator sees the offset too.
    y_implicit, g_implicit = implicit.most_violated(n)
    y_explicit, g_explicit = explicit.most_violated(n)
    np.testing.assert_array_equal(y_implicit, y_explicit)
    assert g_implicit == pytest.approx(g_explicit, rel=1e-10)


def _uneven_blobs(ratio, shift=0.0):
    X, y = make_blobs(
        [1000, 1000 // ratio],
        centers=[[0.0] * 10, [4.0] + [0.0] * 9],
        random_state=0,
    )
    return X + shift, y


@pytest.mark.parametrize("shift", [0.0, 10.0], ids=["centred", "uncentred"])
def test_uneven_clusters_are_found_with_the_defaults(shift):
    # 1000 and 111 samples, 4 standard deviations apart: the mean of the data
    # lies inside the large cluster, so a hyperplane through it (the paper's
    # model, kept by intercept_scaling=0) splits that cluster.
    X, y = _uneven_blobs(9, shift)
    est = ODMC(random_state=0).fit(X)
    assert est.class_balance_ > PAPER_CLASS_BALANCE
    assert est.intercept_scaling_ == 1.0
    assert clustering_error(y, est.labels_) <= 0.05
    np.testing.assert_array_equal(est.predict(X), est.labels_)
    paper = ODMC(class_balance=0.3, intercept_scaling=0, random_state=0).fit(X)
    assert clustering_error(y, paper.labels_) > 0.2


def test_even_clusters_keep_the_hyperplane_through_the_mean():
    X, y = _uneven_blobs(1, shift=3.0)
    est = ODMC(random_state=0).fit(X)
    # Even within sampling noise: the bound admits the noise (3 / sqrt(n)),
    # and no offset.
    assert est.class_balance_ == pytest.approx(PAPER_CLASS_BALANCE + 3 / np.sqrt(2000))
    assert est.intercept_scaling_ == 0.0
    # Through the mean, unless the balance moved the threshold (it does not
    # here: the clusters are even).
    assert est.intercept_ == pytest.approx(-est.coef_ @ X.mean(axis=0), rel=1e-9)
    assert clustering_error(y, est.labels_) <= 0.05


def test_papers_formulation_is_the_former_default():
    # intercept_scaling=0 with a number for class_balance does not run the
    # k-means estimate: the fit is the paper's model at that bound.
    X, _ = _uneven_blobs(4)
    est = ODMC(class_balance=0.3, intercept_scaling=0.0, random_state=0).fit(X)
    assert est.class_balance_ == 0.3 and est.intercept_scaling_ == 0.0
    decision = est.decision_function(X)
    n_positive = int(np.count_nonzero(decision > 0))
    assert abs(2 * n_positive - X.shape[0]) <= int(0.3 * X.shape[0])


def test_intercept_scaling_is_validated():
    X, _ = _uneven_blobs(1)
    with pytest.raises(ValueError, match="intercept_scaling"):
        ODMC(intercept_scaling=-1.0).fit(X)
    with pytest.raises(ValueError, match="intercept_scaling"):
        ODMC(intercept_scaling="large").fit(X)


def test_three_small_blobs_are_not_cut_by_the_bound():
    # scikit-learn's check_clustering data: 50 samples of three even blobs.
    # Their k-means split into two (33:17) is within sampling noise of an
    # even one at 50 samples; "auto" admits that noise (3 / sqrt(50)), so the
    # bound on the labels no longer cuts a blob as the papers' 0.03 does.
    X, y = make_blobs(n_samples=50, random_state=1)
    X = StandardScaler().fit_transform(X)
    est = ODMC(random_state=0).fit(X)
    assert est.class_balance_ == pytest.approx(PAPER_CLASS_BALANCE + 3 / np.sqrt(50))
    assert est.intercept_scaling_ == 0.0
    assert adjusted_rand_score(y, est.labels_) > 0.5
    # The papers' bound stays reachable, and splits 25:25, through a blob.
    paper = ODMC(class_balance=PAPER_CLASS_BALANCE, random_state=0).fit(X)
    assert sorted(np.bincount(paper.labels_)) == [25, 25]
    assert adjusted_rand_score(y, paper.labels_) < 0.45


@pytest.mark.parametrize(
    "class_balance, expected", [(0.03, 0.0), (0.3, 1.0), ("auto", 0.0)]
)
def test_auto_offset_follows_a_fixed_bound_or_the_estimate(class_balance, expected):
    # Even blobs: "auto" finds them even (no offset although its bound is
    # above 0.03); a number above the papers' 0.03 admits uneven clusters.
    X, _ = _uneven_blobs(1)
    est = ODMC(class_balance=class_balance, max_iter=20, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est.fit(X)
    assert est.intercept_scaling_ == expected
    assert (est.class_balance_ > PAPER_CLASS_BALANCE) == (class_balance != 0.03)


def test_even_estimates_admit_the_noise_only_in_the_linear_odmc(one_fit):
    # Only the linear ODMC admits the sampling noise on even estimates;
    # with a kernel, the bound admits k-means' own split (33:17 of 50),
    # as the other estimators' bounds do.
    X, _ = make_blobs(n_samples=50, random_state=1)
    X = StandardScaler().fit_transform(X)
    linear = ODMC(max_iter=20, random_state=0)
    rbf = ODMC(kernel="rbf", max_iter=20, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        linear.fit(X)
        rbf.fit(X)
    assert linear.class_balance_ == pytest.approx(PAPER_CLASS_BALANCE + 3 / np.sqrt(50))
    assert rbf.class_balance_ == pytest.approx(PAPER_CLASS_BALANCE + 16 / 50)
    assert rbf.intercept_scaling_ == 0.0
