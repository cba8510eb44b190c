"""Behaviour of the CPMMC estimator: API, input handling, invariances, errors."""

import pickle
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.estimator_checks import parametrize_with_checks

from mmc import CPMMC
from mmc.datasets import make_sparse_clusters
from mmc.metrics import clustering_error


def _blobs(n_per_cluster=60, n_features=5, distance=6.0, seed=0, dtype=np.float64):
    """Two Gaussian clusters of unit variance, ``distance`` apart."""
    rng = np.random.default_rng(seed)
    centre = np.zeros(n_features)
    centre[0] = distance / 2
    X = np.vstack(
        [
            rng.normal(size=(n_per_cluster, n_features)) + centre,
            rng.normal(size=(n_per_cluster, n_features)) - centre,
        ]
    ).astype(dtype)
    y = np.repeat([0, 1], n_per_cluster)
    return X, y


def _objective(est, X):
    """The documented objective, recomputed from the fitted hyperplane."""
    X = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=np.float64)
    centred = X - X.mean(axis=0)
    top_variance = np.linalg.eigvalsh(centred.T @ centred / X.shape[0])[-1]
    decision = X @ est.coef_ + est.intercept_
    loss = np.maximum(0.0, 1.0 - np.abs(decision)).mean()
    return 0.5 * top_variance * est.coef_ @ est.coef_ + est.C * loss


@parametrize_with_checks([CPMMC(random_state=0)])
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_separates_two_blobs():
    X, y = _blobs()
    est = CPMMC(random_state=0).fit(X)
    assert clustering_error(y, est.labels_) == 0.0
    assert est.labels_.dtype.kind == "i"
    assert set(np.unique(est.labels_)) == {0, 1}
    np.testing.assert_array_equal(est.predict(X), est.labels_)
    np.testing.assert_array_equal(CPMMC(random_state=0).fit_predict(X), est.labels_)
    decision = est.decision_function(X)
    assert decision.shape == (X.shape[0],)
    np.testing.assert_array_equal(decision > 0, est.labels_ == 1)
    assert est.coef_.shape == (X.shape[1],)
    assert isinstance(est.intercept_, float)
    assert est.n_iter_ >= 1 and est.n_constraints_ >= 1


def test_objective_and_balance_constraint_hold_at_the_solution():
    X, _ = _blobs(distance=3.0, seed=3)
    for class_balance in (0.0, 0.03, 0.2):
        est = CPMMC(class_balance=class_balance, random_state=0).fit(X)
        # The estimator estimates the top variance by a few power iterations.
        assert est.objective_ == pytest.approx(_objective(est, X), rel=1e-3)
        mean_decision = est.decision_function(X).mean()
        assert abs(mean_decision) <= class_balance + 1e-9


def test_predict_on_new_points_follows_the_hyperplane():
    X, y = _blobs(seed=1)
    X_new, y_new = _blobs(seed=2)
    est = CPMMC(random_state=0).fit(X)
    # The clusters of the new points are those of the training points they
    # resemble: labels agree up to the naming of the clusters.
    mapping = {y[i]: est.labels_[i] for i in range(len(y))}
    assert len(set(mapping.values())) == 2
    np.testing.assert_array_equal(est.predict(X_new), [mapping[c] for c in y_new])


def test_same_random_state_same_result_and_different_seeds_run():
    X, _ = _blobs(distance=2.0, seed=4)
    a = CPMMC(random_state=7).fit(X)
    b = CPMMC(random_state=7).fit(X)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    assert a.objective_ == b.objective_
    rng = np.random.RandomState(7)
    c = CPMMC(random_state=rng).fit(X)
    np.testing.assert_array_equal(a.labels_, c.labels_)


def test_threads_give_the_same_result_as_one():
    X, _ = _blobs(distance=2.0, seed=5)
    one = CPMMC(random_state=0, n_jobs=1).fit(X)
    two = CPMMC(random_state=0, n_jobs=2).fit(X)
    np.testing.assert_array_equal(one.labels_, two.labels_)
    assert one.objective_ == two.objective_


def test_restarts_keep_the_lowest_objective():
    X, _ = _blobs(distance=2.0, seed=6)
    best = CPMMC(n_init=6, random_state=0).fit(X)
    singles = []
    for init in ("pca", "kmeans", "random"):
        est = CPMMC(init=init, n_init=1, random_state=0).fit(X)
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


def test_sparse_with_int64_indices_and_explicit_zeros():
    X, _ = make_sparse_clusters(
        n_samples=200, n_features=100, nnz_per_row=10, separation=0.5, random_state=1
    )
    reference = CPMMC(random_state=0).fit(X)
    X64 = X.copy()
    X64.indices = X64.indices.astype(np.int64)
    X64.indptr = X64.indptr.astype(np.int64)
    np.testing.assert_array_equal(
        CPMMC(random_state=0).fit(X64).labels_, reference.labels_
    )
    X_zeros = X.copy()
    X_zeros.data[::7] = 0.0  # explicit zeros stay stored
    est = CPMMC(random_state=0).fit(X_zeros)
    np.testing.assert_array_equal(
        est.labels_, CPMMC(random_state=0).fit(X_zeros.toarray()).labels_
    )


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_dtypes_memory_orders_and_read_only_input(dtype):
    X, y = _blobs(dtype=dtype)
    reference = CPMMC(random_state=0).fit(X)
    assert clustering_error(y, reference.labels_) == 0.0
    fortran = np.asfortranarray(X)
    np.testing.assert_array_equal(
        CPMMC(random_state=0).fit(fortran).labels_, reference.labels_
    )
    read_only = X.copy()
    read_only.flags.writeable = False
    est = CPMMC(random_state=0).fit(read_only)
    np.testing.assert_array_equal(est.labels_, reference.labels_)
    np.testing.assert_array_equal(est.predict(read_only), reference.labels_)
    # Lists and integer arrays are accepted too.
    as_list = CPMMC(random_state=0).fit(X.tolist())
    np.testing.assert_array_equal(as_list.labels_, reference.labels_)


def test_float32_and_float64_agree():
    X, _ = _blobs(distance=3.0, seed=8)
    a = CPMMC(random_state=0).fit(X.astype(np.float32))
    b = CPMMC(random_state=0).fit(X)
    assert clustering_error(a.labels_, b.labels_) <= 0.01


def test_invariant_to_scaling_and_translation():
    X, _ = _blobs(distance=2.5, seed=9)
    reference = CPMMC(random_state=0).fit(X)
    for transformed in (1e3 * X, 1e-3 * X, X + 50.0):
        est = CPMMC(random_state=0).fit(transformed)
        assert clustering_error(reference.labels_, est.labels_) == 0.0
    scaled = CPMMC(random_state=0).fit(1e3 * X)
    assert scaled.objective_ == pytest.approx(reference.objective_, rel=1e-5)


def test_pickle_and_clone():
    X, _ = _blobs()
    est = CPMMC(random_state=0).fit(X)
    restored = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(restored.predict(X), est.labels_)
    np.testing.assert_array_equal(
        restored.decision_function(X), est.decision_function(X)
    )
    fresh = clone(est)
    assert not hasattr(fresh, "labels_")
    assert fresh.get_params() == est.get_params()


def test_initial_labels_as_array():
    X, y = _blobs(distance=6.0)
    est = CPMMC(init=y, n_init=1).fit(X)
    assert clustering_error(y, est.labels_) == 0.0
    with pytest.warns(RuntimeWarning, match="n_init=3"):
        CPMMC(init=y).fit(X)
    with pytest.raises(ValueError, match="shape"):
        CPMMC(init=y[:-1], n_init=1).fit(X)
    with pytest.raises(ValueError, match="two distinct labels"):
        CPMMC(init=np.zeros(len(y)), n_init=1).fit(X)


def test_iteration_limit_warns_and_still_labels():
    X, _ = _blobs(distance=1.0, seed=10)
    with pytest.warns(ConvergenceWarning, match="max_iter=1"):
        est = CPMMC(max_iter=1, random_state=0).fit(X)
    assert est.n_iter_ == 1
    assert set(np.unique(est.labels_)) <= {0, 1}
    assert np.all(np.isfinite(est.decision_function(X)))


def test_identical_samples_give_one_cluster_with_a_warning():
    X = np.ones((20, 3))
    with pytest.warns(ConvergenceWarning, match="one cluster"):
        est = CPMMC(random_state=0).fit(X)
    assert np.unique(est.labels_).size == 1
    np.testing.assert_array_equal(est.coef_, 0.0)


def test_duplicated_rows_and_constant_features():
    X, y = _blobs(distance=6.0)
    X = np.hstack([X, np.full((X.shape[0], 2), 3.0)])
    X = np.vstack([X, X])
    y = np.concatenate([y, y])
    est = CPMMC(random_state=0).fit(X)
    assert clustering_error(y, est.labels_) == 0.0
    np.testing.assert_allclose(est.coef_[-2:], 0.0, atol=1e-10)


def test_single_feature():
    rng = np.random.default_rng(0)
    X = np.concatenate([rng.normal(-4, 1, 50), rng.normal(4, 1, 50)])[:, None]
    y = np.repeat([0, 1], 50)
    est = CPMMC(random_state=0).fit(X)
    assert clustering_error(y, est.labels_) == 0.0


@pytest.mark.parametrize(
    "X, error, match",
    [
        (np.array([[0.0, 1.0], [np.nan, 2.0], [1.0, 1.0]]), ValueError, "NaN"),
        (np.array([[0.0, 1.0], [np.inf, 2.0], [1.0, 1.0]]), ValueError, "infinity"),
        (np.empty((0, 3)), ValueError, "0 sample"),
        (np.ones((1, 3)), ValueError, "1 sample"),
        (np.ones(5), ValueError, "2D array"),
        (np.ones((4, 2, 2)), ValueError, "dim 3"),
        (np.array([["a", "b"], ["c", "d"]]), ValueError, "convert string"),
        (np.ones((3, 2)) + 1j, ValueError, "Complex"),
    ],
    ids=["nan", "inf", "empty", "one-sample", "1d", "3d", "strings", "complex"],
)
def test_bad_input_is_rejected_clearly(X, error, match):
    with pytest.raises(error, match=match):
        CPMMC(random_state=0).fit(X)


@pytest.mark.parametrize(
    "params, match",
    [
        ({"C": 0}, "'C' parameter"),
        ({"C": -1.0}, "'C' parameter"),
        ({"C": "big"}, "'C' parameter"),
        ({"class_balance": -0.1}, "'class_balance' parameter"),
        ({"epsilon": 0}, "'epsilon' parameter"),
        ({"tol": -1e-3}, "'tol' parameter"),
        ({"max_iter": 0}, "'max_iter' parameter"),
        ({"max_iter": 2.5}, "'max_iter' parameter"),
        ({"max_cccp_iter": 0}, "'max_cccp_iter' parameter"),
        ({"n_init": 0}, "'n_init' parameter"),
        ({"init": "spectral"}, "'init' parameter"),
        ({"n_jobs": "all"}, "'n_jobs' parameter"),
        ({"verbose": -1}, "'verbose' parameter"),
        ({"random_state": "seed"}, "'random_state' parameter"),
    ],
)
def test_bad_parameters_are_rejected_at_fit(params, match):
    X, _ = _blobs(n_per_cluster=5)
    with pytest.raises(ValueError, match=match):
        CPMMC(**params).fit(X)


def test_predict_checks_fitted_and_features():
    X, _ = _blobs()
    est = CPMMC(random_state=0)
    with pytest.raises(Exception, match="not fitted"):
        est.predict(X)
    est.fit(X)
    with pytest.raises(ValueError, match="features"):
        est.predict(X[:, :-1])
    with pytest.raises(ValueError, match="NaN"):
        est.predict(np.full_like(X, np.nan))


def test_no_warning_on_easy_data():
    X, _ = _blobs()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        CPMMC(random_state=0).fit(X)
