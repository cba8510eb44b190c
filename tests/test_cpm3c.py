"""What is specific to CPM3C (the behaviour shared by the estimators is in
test_common.py): k clusters, its objective, restarts, input checks."""

import warnings
from collections import namedtuple

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_digits, make_blobs
from sklearn.exceptions import ConvergenceWarning

from mmc import CPM3C, CPMMC
from mmc._cpm3c_dual import N_LEVELS, best_dual_run
from mmc.datasets import make_sparse_clusters
from mmc.metrics import clustering_error


def blobs(n_clusters, n_per_cluster=40, n_features=4, distance=8.0, seed=0):
    """Gaussian clusters of unit variance on the corners of a simplex."""
    rng = np.random.default_rng(seed)
    centres = distance / np.sqrt(2) * np.eye(n_clusters, max(n_features, n_clusters))
    X = np.vstack(
        [rng.normal(size=(n_per_cluster, centres.shape[1])) + c for c in centres]
    )
    return X, np.repeat(np.arange(n_clusters), n_per_cluster)


def _intercept_weights(est, X):
    """The weights v of the constant feature r: intercept_ = r v - coef_ @ mean."""
    centred = X - X.mean(axis=0)
    r = np.sqrt(np.mean(np.einsum("ij,ij->i", centred, centred)))
    return (est.intercept_ + est.coef_ @ X.mean(axis=0)) / r


def _objective(est, X):
    """The documented objective, recomputed from the fitted weights."""
    X = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=np.float64)
    centred = X - X.mean(axis=0)
    top_variance = np.linalg.eigvalsh(centred.T @ centred / X.shape[0])[-1]
    scores = np.sort(X @ est.coef_.T + est.intercept_, axis=1)
    loss = np.maximum(0.0, 1.0 - (scores[:, -1] - scores[:, -2])).mean()
    v = _intercept_weights(est, X)
    sq_norm = np.vdot(est.coef_, est.coef_) + v @ v
    return 0.5 * top_variance * sq_norm + est._resolve_C() * loss


@pytest.mark.parametrize("n_clusters", [3, 4, 6])
def test_separates_k_blobs(n_clusters):
    X, y = blobs(n_clusters)
    est = CPM3C(n_clusters=n_clusters, random_state=0).fit(X)
    assert clustering_error(y, est.labels_) == 0.0
    assert est.labels_.dtype.kind == "i"
    assert set(np.unique(est.labels_)) == set(range(n_clusters))
    assert est.coef_.shape == (n_clusters, X.shape[1])
    scores = est.decision_function(X)
    assert scores.shape == (X.shape[0], n_clusters) and scores.dtype == np.float64
    np.testing.assert_allclose(
        scores, X @ est.coef_.T + est.intercept_, rtol=1e-9, atol=1e-12
    )
    np.testing.assert_array_equal(scores.argmax(axis=1), est.labels_)
    np.testing.assert_array_equal(est.predict(X), est.labels_)
    assert est.n_features_in_ == X.shape[1]
    assert est.n_iter_ >= 1 and est.n_constraints_ >= 1
    assert np.isfinite(est.objective_)
    # Clusters are named in the order they first occur.
    _, first = np.unique(est.labels_, return_index=True)
    np.testing.assert_array_equal(est.labels_[np.sort(first)], np.arange(n_clusters))


def test_intercepts_let_the_runs_converge_on_many_sparse_topics():
    # Centred scores without intercepts put every boundary between two
    # classes through the mean; on sparse non-negative data with many topics
    # those runs reached max_iter (a ConvergenceWarning, an error here).
    X, _ = make_sparse_clusters(
        n_samples=1000, n_clusters=8, n_features=1000, random_state=0
    )
    est = CPM3C(n_clusters=8, random_state=0).fit(X)
    assert est.n_iter_ < est.max_iter
    assert np.abs(_intercept_weights(est, X.toarray())).max() > 0.0


def test_two_clusters_hold_the_intercepts_of_the_start():
    # With its intercept, the SVM of the median split along the principal
    # direction of the digits 5 and 9 fitted that split so well that CCCP
    # stayed there (14.6% error); held at zero until the release, 1.1%.
    X, y = load_digits(return_X_y=True)
    pair = (y == 5) | (y == 9)
    est = CPM3C(init="pca", n_init=1, random_state=0).fit(X[pair])
    assert clustering_error(y[pair], est.labels_) < 0.03


@pytest.mark.parametrize("sparse", [False, True])
def test_translating_the_data_changes_nothing(sparse):
    # Without centring, the scores of the paper's CPM3C depend on the origin:
    # on two unit blobs 4 apart whose mean is not at the origin it split the
    # data at random (48.9% error) and one feature 1000 times larger than the
    # others gave one cluster (CPMMC split the same data 99/101).
    X, y = blobs(2, n_per_cluster=100, n_features=5, distance=4.0, seed=1)
    shifted = X + np.array([50.0, -3.0, 7.0, 0.0, 1e3])
    stretched = X * np.array([1e3, 1.0, 1.0, 1.0, 1.0])
    if sparse:
        X, shifted = sp.csr_matrix(X), sp.csr_matrix(shifted)
    base = CPM3C(random_state=0).fit(X)
    assert clustering_error(y, base.labels_) <= 0.05
    moved = CPM3C(random_state=0).fit(shifted)
    np.testing.assert_array_equal(moved.labels_, base.labels_)
    np.testing.assert_allclose(moved.coef_, base.coef_, rtol=1e-6, atol=1e-9)
    scaled = CPM3C(random_state=0).fit(stretched)
    assert np.bincount(scaled.labels_).min() >= 0.4 * X.shape[0]
    assert (
        clustering_error(CPMMC(random_state=0).fit(stretched).labels_, scaled.labels_)
        <= 0.05
    )


def test_objective_and_balance_hold_at_the_solution():
    X, _ = blobs(3, distance=4.0, seed=2)
    for class_balance in (0.0, 0.03, 0.3):
        est = CPM3C(n_clusters=3, class_balance=class_balance, random_state=0).fit(X)
        # The estimator estimates the top variance by a few power iterations.
        assert est.objective_ == pytest.approx(_objective(est, X), rel=1e-3)


def test_restarts_keep_the_lowest_objective():
    X, _ = blobs(3, distance=3.0, seed=4)
    best = CPM3C(n_clusters=3, n_init=4, random_state=0).fit(X)
    singles = [
        CPM3C(n_clusters=3, init=init, n_init=1, random_state=0).fit(X).objective_
        for init in ("kmeans",)
    ]
    # The "auto" restarts begin with a k-means start.
    assert best.objective_ <= min(singles) + 1e-12


@pytest.mark.parametrize(
    "params, n_runs",
    [
        ({"n_clusters": 3}, 1),
        ({"n_clusters": 3, "init": "kmeans"}, 1),
        ({"n_clusters": 2}, 4),
        ({"n_clusters": 3, "init": "random"}, 4),
        ({"n_clusters": 3, "solver": "cutting-plane"}, 4),
        ({"n_clusters": 3, "n_init": 2}, 2),
    ],
)
def test_auto_n_init_runs_the_kmeans_start_alone_for_k_clusters(
    params, n_runs, monkeypatch, one_fit
):
    import mmc._cpm3c as cpm3c_module

    runs = []
    original = CPM3C._run

    def counted(self, working_set, *args, **kwargs):
        runs.append(getattr(working_set, "n_levels", None))
        return original(self, working_set, *args, **kwargs)

    monkeypatch.setattr(cpm3c_module.CPM3C, "_run", counted)
    X, _ = blobs(params["n_clusters"], distance=4.0, seed=1)
    est = CPM3C(random_state=0, **params).fit(X)
    assert len(runs) >= n_runs  # a cutting-plane run may be repeated pinned
    assert est._resolve_n_init() == n_runs
    if params.get("solver") != "cutting-plane":
        # With k > 2 each start is run with the continuation in C and at C
        # directly (mmc._cpm3c_dual.best_dual_run).
        continued = [n for n in runs if n == N_LEVELS]
        direct = [n for n in runs if n == 1]
        assert len(continued) == n_runs
        assert len(direct) == (n_runs if params["n_clusters"] > 2 else 0)
        assert len(runs) == len(continued) + len(direct)


def test_best_dual_run_keeps_the_lower_objective_of_the_two_runs():
    Result = namedtuple("Result", "objective n_empty_clusters")
    calls = []

    def run_once(start, **options):
        calls.append(options)
        return outcomes[options.get("n_levels")]

    outcomes = {None: Result(2.0, 0), 1: Result(1.0, 0)}
    X = np.zeros((10, 3))  # too small for threads: the runs in order
    assert best_dual_run(run_once, "start", 7, True, X, 3) is outcomes[1]
    assert calls == [{"seed": 7}, {"seed": 7, "n_levels": 1}]
    # A run that lost a cluster loses, whatever its objective; ties keep
    # the continuation.
    for direct_result in (Result(1.0, 1), Result(2.0, 0)):
        outcomes = {None: Result(2.0, 0), 1: direct_result}
        assert best_dual_run(run_once, "start", 7, True, X, 3) is outcomes[None]
    calls.clear()
    assert best_dual_run(run_once, "start", 7, False, X, 3) is outcomes[None]
    assert calls == [{"seed": 7}]


def test_the_run_at_C_keeps_a_start_that_the_continuation_leaves(monkeypatch):
    """Blobs of 600 / (1 + p) samples, k = 8: from C / 8 the continuation
    merged two small blobs and split a large one (17.6 % error); the run
    at C from the same k-means start keeps the blobs, at a lower objective."""
    import mmc._cpm3c as cpm3c_module

    sizes = [600 // (1 + p) for p in range(8)]
    X, y = make_blobs(sizes, n_features=10, random_state=3)
    est = CPM3C(n_clusters=8, random_state=0).fit(X)
    assert clustering_error(y, est.labels_) < 0.01

    def continuation_only(run_once, start, seed, direct, X, n_clusters):
        return best_dual_run(run_once, start, seed, False, X, n_clusters)

    monkeypatch.setattr(cpm3c_module, "best_dual_run", continuation_only)
    continued = CPM3C(n_clusters=8, random_state=0).fit(X)
    assert clustering_error(y, continued.labels_) > 0.1
    assert est.objective_ < continued.objective_


def test_a_start_run_twice_draws_its_initial_clustering_once(monkeypatch, one_fit):
    import mmc._cpm3c as cpm3c_module

    calls = []
    original = CPM3C._initial_state

    def counted(self, *args, **kwargs):
        calls.append(args[3])  # the start's method
        return original(self, *args, **kwargs)

    monkeypatch.setattr(cpm3c_module.CPM3C, "_initial_state", counted)
    X, _ = blobs(3, distance=4.0, seed=1)
    CPM3C(n_clusters=3, n_init=2, random_state=0).fit(X)
    assert calls == ["kmeans", "k-means++"]


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_the_two_runs_of_a_start_on_threads_give_the_fit_of_one(
    monkeypatch, sparse, one_fit
):
    import mmc._cpm3c_dual as dual_module
    import mmc._threads as threads_module

    X, _ = blobs(4, distance=3.0, seed=2)
    X = sp.csr_matrix(X) if sparse else X
    fits, threads = {}, []
    original = dual_module.fit_threads

    def counted(n_runs, products):
        threads.append(original(n_runs, products))
        return threads[-1]

    monkeypatch.setattr(dual_module, "fit_threads", counted)
    for n_threads in (1, 2):
        monkeypatch.setattr(threads_module, "THREADED_PASS_PRODUCTS", 0)
        monkeypatch.setattr(
            threads_module, "_openmp_effective_n_threads", lambda: n_threads
        )
        fits[n_threads] = CPM3C(n_clusters=4, random_state=0).fit(X)
    assert threads == [1, 2]
    np.testing.assert_array_equal(fits[1].labels_, fits[2].labels_)
    np.testing.assert_array_equal(fits[1].coef_, fits[2].coef_)
    assert fits[1].objective_ == fits[2].objective_
    # Inside restarts on threads (n_jobs) the runs of a start take one.
    threads.clear()
    CPM3C(n_clusters=4, n_init=2, n_jobs=2, random_state=0).fit(X)
    assert threads == [1, 1]


def test_restarts_by_coordinate_descent_take_the_openmp_threads(monkeypatch, one_fit):
    # Without n_jobs, coordinate descent's restarts take the threads KMeans
    # would use when a run (about RUN_PASSES passes over X) costs enough;
    # n_jobs given wins; the cutting plane's restarts (CPM3C's other solver,
    # CPMMC) stay on the threads of n_jobs: their runs hold the GIL.
    import mmc._cutting_plane as cutting_plane_module
    import mmc._threads as threads_module

    monkeypatch.setattr(threads_module, "_openmp_effective_n_threads", lambda: 2)
    seen = []
    original = cutting_plane_module.best_of_restarts

    def recorded(run, starts, n_jobs, **kwargs):
        seen.append(n_jobs)
        return original(run, starts, n_jobs, **kwargs)

    monkeypatch.setattr(cutting_plane_module, "best_of_restarts", recorded)
    large, _ = make_blobs(600, 10, centers=2, random_state=0)
    small = large[::10, :2]
    fits = {}
    for name, make, X in (
        ("threads", lambda: CPM3C(random_state=0), large),
        ("small", lambda: CPM3C(random_state=0), small),
        ("n_jobs", lambda: CPM3C(random_state=0, n_jobs=1), large),
        ("cutting plane", lambda: CPM3C(random_state=0, solver="cutting-plane"), large),
        # (class_balance="auto": "stable" would fit subsamples first.)
        ("CPMMC", lambda: CPMMC(class_balance="auto", random_state=0), large),
    ):
        fits[name] = make().fit(X)
    assert seen == [2, 1, 1, None, None]
    np.testing.assert_array_equal(fits["threads"].labels_, fits["n_jobs"].labels_)
    assert fits["threads"].objective_ == fits["n_jobs"].objective_


def test_auto_n_init_is_the_first_of_four_starts_for_k_clusters():
    # The k-means start draws the first seed either way: n_init="auto" on
    # three clusters is the run of n_init=4 from its first start.
    X, _ = blobs(3, distance=3.0, seed=4)
    auto = CPM3C(n_clusters=3, random_state=0).fit(X)
    first = CPM3C(n_clusters=3, n_init=4, random_state=0)
    first._start_methods = lambda: ["kmeans"]
    first.fit(X)
    np.testing.assert_array_equal(auto.labels_, first.labels_)
    assert auto.objective_ == first.objective_


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_decision_function_is_the_scores_predict_takes_the_best_of(dtype, sparse):
    X, _ = blobs(3, distance=4.0, seed=5)
    est = CPM3C(n_clusters=3, random_state=0).fit(X)
    X_new = np.random.default_rng(1).normal(scale=4.0, size=(60, X.shape[1]))
    X_new = X_new.astype(dtype)
    X_in = sp.csr_matrix(X_new) if sparse else X_new
    scores = est.decision_function(X_in)
    assert scores.shape == (60, 3) and scores.dtype == np.float64
    expected = X_new.astype(np.float64) @ est.coef_.T + est.intercept_
    np.testing.assert_allclose(scores, expected, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(np.argmax(scores, axis=1), est.predict(X_in))


def test_sparse_and_dense_input_agree():
    X, y = make_sparse_clusters(
        n_samples=300, n_features=200, nnz_per_row=15, separation=0.8, random_state=0
    )
    for init in ("pca", "random", "k-means++"):
        dense = CPM3C(n_clusters=2, init=init, random_state=0).fit(X.toarray())
        sparse = CPM3C(n_clusters=2, init=init, random_state=0).fit(X)
        np.testing.assert_array_equal(dense.labels_, sparse.labels_)
        np.testing.assert_allclose(dense.coef_, sparse.coef_, rtol=1e-6, atol=1e-9)
        assert dense.n_iter_ == sparse.n_iter_
        np.testing.assert_allclose(
            sparse.decision_function(X),
            dense.decision_function(X.toarray()),
            rtol=1e-7,
            atol=1e-9,
        )
    default = CPM3C(n_clusters=2, random_state=0).fit(X)
    assert clustering_error(y, default.labels_) < 0.05


def test_float32_and_float64_agree():
    X, _ = blobs(4, distance=5.0, seed=8)
    a = CPM3C(n_clusters=4, random_state=0).fit(X.astype(np.float32))
    b = CPM3C(n_clusters=4, random_state=0).fit(X)
    assert clustering_error(a.labels_, b.labels_) <= 0.01


def test_initial_labels_with_k_values():
    X, y = blobs(3)
    est = CPM3C(n_clusters=3, init=10 * y + 5, n_init=1).fit(X)
    assert clustering_error(y, est.labels_) == 0.0
    with pytest.raises(ValueError, match="exactly 3 distinct labels"):
        CPM3C(n_clusters=3, init=y % 2, n_init=1).fit(X)


@pytest.mark.parametrize(
    "n_clusters, error, match",
    [
        (1, ValueError, "'n_clusters' parameter"),
        (0, ValueError, "'n_clusters' parameter"),
        (-3, ValueError, "'n_clusters' parameter"),
        (2.5, ValueError, "'n_clusters' parameter"),
        (3.0, ValueError, "'n_clusters' parameter"),
        ("3", ValueError, "'n_clusters' parameter"),
        (None, ValueError, "'n_clusters' parameter"),
        (256, ValueError, "'n_clusters' parameter"),
        (7, ValueError, "n_samples=6 should be >= n_clusters=7"),
    ],
)
def test_bad_n_clusters_is_rejected_clearly(n_clusters, error, match):
    X, _ = blobs(2, n_per_cluster=3)
    with pytest.raises(error, match=match):
        CPM3C(n_clusters=n_clusters).fit(X)


def test_as_many_clusters_as_samples():
    X, _ = blobs(3, n_per_cluster=1, distance=10.0)
    est = CPM3C(n_clusters=3, random_state=0).fit(X)
    assert sorted(est.labels_) == [0, 1, 2]


def test_empty_cluster_is_reported():
    # Two tight groups cannot feed four clusters.
    X, _ = blobs(2, n_per_cluster=30, distance=20.0)
    X = np.round(X / 20.0) * 20.0  # every sample on one of two points
    with pytest.warns(ConvergenceWarning, match="non-empty clusters out of"):
        est = CPM3C(n_clusters=4, random_state=0).fit(X)
    assert np.unique(est.labels_).size < 4


def test_no_warning_with_k_clusters():
    X, _ = blobs(5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        CPM3C(n_clusters=5, random_state=0).fit(X)


def test_block_descent_with_pinned_assignments(monkeypatch):
    # The fallback of the cutting plane for a start that empties a cluster:
    # SVM fits with pinned assignments, each followed by a reassignment to
    # the best classes.
    monkeypatch.setattr(
        CPM3C,
        "_run_start",
        lambda self, run_once, start, X: run_once(start, repin=True),
    )
    X, y = blobs(4, distance=8.0, seed=3)
    est = CPM3C(n_clusters=4, solver="cutting-plane", random_state=0).fit(X)
    assert clustering_error(y, est.labels_) == 0.0
    X, y = blobs(4, distance=5.0, seed=3)
    est = CPM3C(n_clusters=4, solver="cutting-plane", random_state=0).fit(X)
    assert clustering_error(y, est.labels_) <= 0.05
    assert est.objective_ == pytest.approx(_objective(est, X), rel=1e-3)
    # It descends from the k-means start: its objective is at most that of
    # the SVM trained on the k-means clustering (the first pinned phase), up
    # to the precision of the cutting plane (C * epsilon).
    params = dict(
        n_clusters=4,
        init="kmeans",
        n_init=1,
        epsilon=1e-4,
        max_iter=500,
        solver="cutting-plane",
    )
    descended = CPM3C(random_state=0, **params).fit(X)
    svm = CPM3C(random_state=0, refine_init=False, **params).fit(X)
    assert descended.objective_ <= svm.objective_ + descended._resolve_C() * 1e-4


@pytest.mark.parametrize("solver", ["coordinate-descent", "cutting-plane"])
def test_refine_init_false_trains_the_svm_of_the_initial_clustering(solver):
    X, y = blobs(3, distance=8.0, seed=4)
    # A wrong clustering (six samples given another cluster) is kept as it
    # is: the objective is that of the multiclass SVM of that clustering,
    # higher than the SVM of the true clustering and than what a free run
    # descends to from it.
    wrong = y.copy()
    wrong[:6] = (wrong[:6] + 1) % 3
    # (The papers' bound: the objectives compared are at the same one.)
    params = dict(n_clusters=3, n_init=1, epsilon=1e-4, max_iter=500,
                  solver=solver, class_balance=0.03)  # fmt: skip
    fixed = CPM3C(init=wrong, refine_init=False, **params).fit(X)
    true = CPM3C(init=y, refine_init=False, **params).fit(X)
    free = CPM3C(init=wrong, **params).fit(X)
    assert clustering_error(y, free.labels_) == 0.0
    assert fixed.objective_ > true.objective_
    assert fixed.objective_ > free.objective_
    assert free.objective_ == pytest.approx(true.objective_, rel=1e-2)
    with pytest.raises(ValueError, match="'refine_init' parameter"):
        CPM3C(refine_init="no").fit(X)


def _centred_statistics(X, constraints, assignment, n_constraints, k):
    """B_c of the centred samples and their Gram matrix, from the definition."""
    X = (X.toarray() if sp.issparse(X) else X).astype(np.float64)
    centred = X - X.mean(axis=0)
    n = X.shape[0]
    B = np.zeros((n_constraints, k, X.shape[1]))
    for c in range(n_constraints):
        for i in np.flatnonzero(constraints[:, c]):
            B[c, assignment[i]] += centred[i] / n
            B[c, constraints[i, c] - 1] -= centred[i] / n
    flat = B.reshape(n_constraints, -1)
    return B, flat @ flat.T


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_centred_statistics_follow_the_reassignments(sparse, dtype):
    # The working set keeps the statistics of the raw samples and centres
    # them through M_c and U_c: after constraints are added and samples
    # change class, the centred Gram matrix and W must be those of the
    # centred samples.
    from mmc._cpm3c_constraints import MulticlassConstraints
    from mmc._rows import column_means

    rng = np.random.default_rng(0)
    k = 3
    X = (rng.normal(size=(60, 5)) + 4.0).astype(dtype)
    if sparse:
        X[rng.random(X.shape) < 0.4] = 0.0
        X = sp.csr_matrix(X)
    working = MulticlassConstraints(
        X, column_means(X), 2, 1.0, 0.5, k, repin=False, relabel=True
    )
    working.start((rng.normal(size=(k, 5)) + 4.0, rng.integers(0, k, 60)))
    n_moved = 0
    for _ in range(6):
        working.add_most_violated()
        working.commit()
        working.solve()
        if working.pinned:
            working.release()
        n_moved += working.update()
        B, gram = _centred_statistics(
            X, working.constraints, working.assignment, working.size, k
        )
        np.testing.assert_allclose(working._centred_gram(), gram, atol=1e-12)
        M = working._mean_weights[: working.size]
        centred_B = working.B[: working.size] - M[:, :, None] * working.x_mean
        np.testing.assert_allclose(centred_B, B, atol=1e-12)
    assert n_moved > 0 and working.size == 6
    # W lies in the span of centred statistics: its scores sum to zero over
    # the samples for every class.
    scores = (working.X @ working.W.T) + working.intercepts
    np.testing.assert_allclose(scores.sum(axis=0), 0.0, atol=1e-9)


# --------------------------------------------------------------------------
# The solvers: coordinate descent (the default in memory with the linear
# kernel) and the paper's cutting plane


def test_solver_auto_picks_coordinate_descent_in_memory_with_the_linear_kernel():
    X, _ = blobs(3)
    assert CPM3C(n_clusters=3, random_state=0).fit(X).solver_ == "coordinate-descent"
    assert (
        CPM3C(n_clusters=3, random_state=0).fit(sp.csr_matrix(X)).solver_
        == "coordinate-descent"
    )
    rbf = CPM3C(n_clusters=3, kernel="rbf", n_components=20, random_state=0).fit(X)
    assert rbf.solver_ == "cutting-plane" and rbf.size_floors_ is None
    paper = CPM3C(n_clusters=3, solver="cutting-plane", random_state=0).fit(X)
    assert paper.solver_ == "cutting-plane"
    with pytest.raises(ValueError, match="'solver' parameter"):
        CPM3C(solver="newton").fit(X)


@pytest.mark.parametrize("solver", ["coordinate-descent", "cutting-plane"])
def test_both_solvers_separate_blobs_and_reach_the_documented_objective(solver):
    X, y = blobs(4, seed=2)
    est = CPM3C(n_clusters=4, solver=solver, random_state=0).fit(X)
    assert clustering_error(y, est.labels_) == 0.0
    # Even clusters: no floor binds, so the intercepts are the regularised
    # ones and the objective is the documented one.
    assert est.objective_ == pytest.approx(_objective(est, X), rel=1e-6)
    np.testing.assert_array_equal(est.predict(X), est.labels_)


@pytest.mark.parametrize("class_balance", ["auto", 0.03, 0.4])
def test_coordinate_descent_keeps_the_size_floors(class_balance):
    # Unbalanced blobs 4:2:1; the fitted clusters meet the floors on the
    # j smallest clusters, and predict follows them (the offsets of the
    # classes' scores are in intercept_).
    rng = np.random.default_rng(0)
    centres = 3.0 * np.eye(3, 5)
    sizes = (240, 120, 60)
    X = np.vstack([rng.normal(size=(m, 5)) + c for m, c in zip(sizes, centres)])
    y = np.repeat(np.arange(3), sizes)
    est = CPM3C(n_clusters=3, class_balance=class_balance, random_state=0).fit(X)
    counts = np.sort(np.bincount(est.labels_, minlength=3))
    assert np.all(np.cumsum(counts)[:-1] >= np.floor(est.size_floors_))
    np.testing.assert_array_equal(est.predict(X), est.labels_)
    if class_balance == "auto":
        # The floors follow the k-means clusters: the blobs are found.
        assert clustering_error(y, est.labels_) < 0.05
    else:
        # Every cluster keeps (1 - class_balance) n / 3.
        assert counts[0] >= int((1 - class_balance) * X.shape[0] / 3)


def test_in_memory_coordinate_descent_visits_the_rows_in_one_shuffle(monkeypatch):
    """Whatever the segments of the Dask order, a fit in memory visits its
    rows in one shuffle of all of them: in segments visited in a fixed
    order, a shift of the intercepts is absorbed by the same rows epoch
    after epoch and the SVMs run to the epoch limit
    (bench/studies/cpm3c_segments.md)."""
    import mmc._cpm3c_dual

    X, _ = make_sparse_clusters(
        n_samples=600, n_features=2000, nnz_per_row=20, n_clusters=3, random_state=0
    )
    expected = CPM3C(n_clusters=3, random_state=0).fit(X)
    monkeypatch.setattr(mmc._cpm3c_dual, "SEGMENT_ROWS", 64)
    monkeypatch.setattr(mmc._cpm3c_dual, "N_ROUNDS", 2)
    est = CPM3C(n_clusters=3, random_state=0).fit(X)
    np.testing.assert_array_equal(est.labels_, expected.labels_)
    assert est.objective_ == expected.objective_
    # The Dask order in memory (what the Dask tests compare against) is
    # another order: the same SVMs, other steps.
    monkeypatch.setattr(mmc._cpm3c_dual.DualMulticlassSVM, "segment_rows", 64)
    segmented = CPM3C(n_clusters=3, random_state=0).fit(X)
    assert segmented.objective_ != expected.objective_


@pytest.mark.parametrize(
    "solver, counted",
    [
        ("coordinate-descent", "CCCP steps of coordinate descent; increase max_iter"),
        ("cutting-plane", "cutting-plane iterations; increase max_iter or epsilon"),
    ],
)
def test_max_iter_warning_names_what_the_solver_counts(solver, counted):
    X, _ = make_blobs(500, n_features=10, centers=2, cluster_std=4, random_state=0)
    with pytest.warns(ConvergenceWarning, match=f"max_iter=2 {counted}"):
        CPM3C(max_iter=2, solver=solver, random_state=0).fit(X)
