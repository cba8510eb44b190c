"""What is specific to CPMMC (the behaviour shared by the estimators is in
test_common.py): its objective, restarts and the agreement of its kernels."""

import numpy as np
import pytest
import scipy.sparse as sp
from _data import two_blobs
from sklearn.datasets import make_blobs
from sklearn.exceptions import ConvergenceWarning

from mmc import CPMMC
from mmc.datasets import make_sparse_clusters
from mmc.metrics import clustering_error


def _objective(est, X):
    """The documented objective, recomputed from the fitted hyperplane."""
    X = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=np.float64)
    centred = X - X.mean(axis=0)
    top_variance = np.linalg.eigvalsh(centred.T @ centred / X.shape[0])[-1]
    decision = X @ est.coef_ + est.intercept_
    loss = np.maximum(0.0, 1.0 - np.abs(decision)).mean()
    return 0.5 * top_variance * est.coef_ @ est.coef_ + est._resolve_C() * loss


def test_objective_and_balance_constraint_hold_at_the_solution():
    X, _ = two_blobs(distance=3.0, seed=3)
    for class_balance in (0.0, 0.03, 0.2):
        est = CPMMC(class_balance=class_balance, random_state=0).fit(X)
        # The estimator estimates the top variance by a few power iterations.
        assert est.objective_ == pytest.approx(_objective(est, X), rel=1e-3)
        mean_decision = est.decision_function(X).mean()
        assert abs(mean_decision) <= class_balance + 1e-9


def test_restarts_keep_the_lowest_objective(one_fit):
    X, _ = two_blobs(distance=2.0, seed=6)
    best = CPMMC(n_init=6, random_state=0).fit(X)
    singles = []
    for init in ("pca", "kmeans", "random"):
        est = CPMMC(init=init, n_init=1, random_state=0).fit(X)
        assert est.class_balance_ == best.class_balance_  # "auto"'s, one estimate
        singles.append(est.objective_)
    # The "auto" restarts include a pca and a kmeans start, and can only do
    # better than them.
    assert best.objective_ <= min(singles[:2]) + 1e-12


def test_sparse_and_dense_input_agree():
    X, y = make_sparse_clusters(
        n_samples=400, n_features=300, nnz_per_row=15, separation=0.8, random_state=0
    )
    dense = CPMMC(random_state=0).fit(X.toarray())
    sparse = CPMMC(random_state=0).fit(X)
    np.testing.assert_array_equal(dense.labels_, sparse.labels_)
    assert clustering_error(y, sparse.labels_) < 0.05
    # From the same starts the two kernels follow the same path. (The
    # k-means start is left out: scikit-learn's KMeans itself may differ
    # between dense and sparse input.)
    for init in ("pca", "random"):
        dense = CPMMC(init=init, random_state=0).fit(X.toarray())
        sparse = CPMMC(init=init, random_state=0).fit(X)
        np.testing.assert_allclose(dense.coef_, sparse.coef_, rtol=1e-6, atol=1e-9)
        assert dense.n_iter_ == sparse.n_iter_
    # Other sparse formats are converted to CSR.
    for fmt in ("csc", "coo", "lil"):
        other = CPMMC(init="random", random_state=0).fit(X.asformat(fmt))
        np.testing.assert_array_equal(other.labels_, sparse.labels_)
    np.testing.assert_array_equal(sparse.predict(X.tocsc()), sparse.labels_)


def test_float32_and_float64_agree():
    X, _ = two_blobs(distance=3.0, seed=8)
    a = CPMMC(random_state=0).fit(X.astype(np.float32))
    b = CPMMC(random_state=0).fit(X)
    assert clustering_error(a.labels_, b.labels_) <= 0.01


@pytest.mark.parametrize("continuation", [False, True])
def test_early_stop_ends_at_the_best_iterate_without_a_warning(continuation):
    # Unequal 10-d blobs: samples near the boundary change side at every
    # step, and the paper's stopping rule alone runs to max_iter (at the
    # last value of C of the continuation at least). max_iter=30 (not the
    # default 100) keeps the cycling fit short: each of its steps adds a
    # constraint, and the QPs grow with them (100 steps took 160 s).
    X, _ = make_blobs(
        [1000, 250], centers=[[0.0] * 10, [4.0] + [0.0] * 9], random_state=0
    )
    max_iter = 30
    params = dict(
        n_init=1, init="pca", random_state=0, continuation=continuation,
        max_iter=max_iter,
    )  # fmt: skip
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        cycling = CPMMC(n_iter_no_change=None, **params).fit(X)
    stopped = CPMMC(**params).fit(X)  # no warning: an error under pytest
    assert cycling.n_iter_ >= max_iter and stopped.n_iter_ < max_iter
    if not continuation:
        assert cycling.n_iter_ == max_iter
    # The restored iterate is the hyperplane reported, and its objective the
    # one reported: the lowest seen, at most the last iterate's.
    assert stopped.objective_ == pytest.approx(_objective(stopped, X), rel=1e-3)
    np.testing.assert_array_equal(
        stopped.labels_, (stopped.decision_function(X) > 0).astype(int)
    )
