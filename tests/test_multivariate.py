"""What is specific to MultivariateMMC (the shared behaviour is in
test_common.py): its losses, Theorem 2, its objective and its parameters."""

import numpy as np
import pytest
from _data import two_blobs
from _reference import most_violated_labelling

from mmc import CPMMC, MultivariateMMC
from mmc._core._multivariate import table_loss
from mmc._multivariate import _LARGEST_BETA
from mmc._multivariate_constraints import _smallest
from mmc.datasets import make_sparse_clusters
from mmc.metrics import clustering_error, normalized_mutual_info

LOSSES = ["nmi", "rand", "fbeta", "error"]


def _top_variance(X):
    centred = X - X.mean(axis=0)
    return np.linalg.eigvalsh(centred.T @ centred / X.shape[0])[-1]


@pytest.mark.parametrize("continuation", [False, True])
@pytest.mark.parametrize("init", ["pca", "random", "kmeans"])
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_error_loss_is_cpmmc_with_twice_the_c(init, sparse, continuation):
    # Theorem 2 of the paper: with twice the error as its loss the problem is
    # CPMMC's with C doubled; the solver then takes exactly CPMMC's path,
    # with the continuation in C too.
    if sparse:
        X, _ = make_sparse_clusters(
            n_samples=150,
            n_features=60,
            nnz_per_row=8,
            separation=0.6,
            random_state=0,
        )
    else:
        X, _ = two_blobs(distance=2.0, seed=5)
    params = dict(init=init, random_state=0, continuation=continuation)
    cpmmc = CPMMC(C=12.0, epsilon=0.01, class_balance="auto", **params).fit(X)
    multi = MultivariateMMC(loss="error", C=6.0, epsilon=0.02, **params).fit(X)
    np.testing.assert_array_equal(multi.labels_, cpmmc.labels_)
    np.testing.assert_allclose(multi.coef_, cpmmc.coef_, rtol=1e-9, atol=1e-12)
    assert multi.objective_ == pytest.approx(cpmmc.objective_, rel=1e-9)
    assert multi.n_iter_ == cpmmc.n_iter_


@pytest.mark.parametrize("loss", LOSSES)
def test_objective_is_the_documented_one(loss):
    # objective_ = v/2 |w|^2 + C * max over labellings y' of
    # loss(y', s) - (1/n) sum_i (|f_i| - y'_i f_i), checked by brute force.
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(-1.5, 1, (6, 2)), rng.normal(1.5, 1, (6, 2))])
    est = MultivariateMMC(loss=loss, beta=2.0, random_state=0).fit(X)
    decision = est.decision_function(X)
    violation = most_violated_labelling(decision, loss, beta=2.0)
    margin = 0.5 * _top_variance(X) * est.coef_ @ est.coef_
    expected = margin + est._resolve_C() * violation
    # The estimator estimates the top variance by a few power iterations.
    assert est.objective_ == pytest.approx(expected, rel=1e-3)


@pytest.mark.parametrize("loss", ["nmi", "rand", "fbeta"])
def test_clusters_blobs_and_balance_holds(loss):
    X, y = two_blobs(distance=5.0, seed=2)
    est = MultivariateMMC(loss=loss, class_balance=0.03, random_state=0).fit(X)
    assert clustering_error(y, est.labels_) == 0.0
    assert abs(est.decision_function(X).mean()) <= 0.03 + 1e-9


def test_sparse_text_like_data():
    X, y = make_sparse_clusters(
        n_samples=2000,
        n_features=20000,
        nnz_per_row=30,
        separation=0.5,
        random_state=0,
    )
    est = MultivariateMMC(random_state=0).fit(X)
    assert normalized_mutual_info(y, est.labels_) > 0.9


def test_beta_changes_only_the_fbeta_loss():
    # Pair precision and recall differ on this table, so beta matters.
    assert table_loss(30, 5, 2, 10, 3, 0.5) != table_loss(30, 5, 2, 10, 3, 2.0)
    X, _ = two_blobs(distance=3.0, seed=3)
    a = MultivariateMMC(loss="nmi", beta=0.5, random_state=0).fit(X)
    b = MultivariateMMC(loss="nmi", beta=4.0, random_state=0).fit(X)
    np.testing.assert_array_equal(a.coef_, b.coef_)


def test_huge_beta_is_the_recall_limit():
    # beta**2 overflows beyond 1.3e154, so the estimator takes larger values
    # as 1e150, where F_beta is the recall, as it already is to double
    # precision at beta = 1e13.
    recall_loss = table_loss(30, 5, 2, 10, 3, 1e13)
    assert table_loss(30, 5, 2, 10, 3, _LARGEST_BETA) == recall_loss
    X, _ = two_blobs(distance=3.0, seed=3)
    huge = MultivariateMMC(loss="fbeta", beta=1e300, random_state=0).fit(X)
    large = MultivariateMMC(loss="fbeta", beta=1e13, random_state=0).fit(X)
    np.testing.assert_array_equal(huge.labels_, large.labels_)
    np.testing.assert_allclose(huge.coef_, large.coef_, rtol=1e-12)


@pytest.mark.parametrize(
    "params, match",
    [
        ({"loss": "hinge"}, "'loss' parameter"),
        ({"loss": None}, "'loss' parameter"),
        ({"beta": 0}, "'beta' parameter"),
        ({"beta": -1.0}, "'beta' parameter"),
        ({"beta": "one"}, "'beta' parameter"),
    ],
)
def test_bad_loss_parameters(params, match):
    X, _ = two_blobs(n_per_cluster=5)
    with pytest.raises(ValueError, match=match):
        MultivariateMMC(**params).fit(X)


def test_smallest_is_the_head_of_a_stable_sort():
    # The relabelled samples of a side: the first ``count`` of a stable
    # argsort by |f|, ties (many here) to the earliest index.
    rng = np.random.default_rng(0)
    for n in (1, 2, 7, 50, 301):
        values = rng.integers(0, 4, size=n) * 0.5
        indices = np.sort(rng.choice(10 * n, size=n, replace=False))
        order = indices[np.argsort(values, kind="stable")]
        for count in range(n + 1):
            got = _smallest(indices, values, count)
            np.testing.assert_array_equal(np.sort(got), np.sort(order[:count]))
