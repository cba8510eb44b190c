"""EvoMMC and FastEvoMMC with more than two clusters: the local search
kernel against its NumPy twin in tests/_reference.py, and the estimators."""

import pickle

import _reference
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_blobs
from sklearn.exceptions import ConvergenceWarning

import mmc._evo_multiclass
from mmc import EvoMMC, FastEvoMMC
from mmc._core._evo_multiclass import local_search
from mmc._evo_basis import spectral_basis
from mmc._evo_multiclass import (
    distinct_starts,
    enforce_min_size,
    first_occurrence_order,
    fitted_offsets,
    indicator_coordinates,
    min_cluster_size,
    multiclass_fitness,
)
from mmc._evo_search import fitted_threshold
from mmc.datasets import make_sparse_clusters
from mmc.metrics import clustering_error

ESTIMATORS = (EvoMMC, FastEvoMMC)


def _random_basis(rng, n_samples, n_components):
    A = rng.standard_normal((n_samples, n_samples))
    K = A @ A.T / n_samples
    sigma, V = np.linalg.eigh(K)
    return spectral_basis(V[:, -n_components:], sigma[-n_components:], 1e-2)


def _start_floors(labels, n_clusters, kind, rng):
    """Floors the start meets: 3 samples a cluster ("uniform"), or each
    sum of the j smallest start sizes less 0-2 samples ("shares"; they
    bind after a few moves)."""
    steps = np.arange(1, n_clusters, dtype=np.intp)
    if kind == "uniform":
        return 3 * steps
    sums = np.cumsum(np.sort(np.bincount(labels, minlength=n_clusters)))[:-1]
    return np.maximum(sums - rng.integers(0, 3, size=n_clusters - 1), steps)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("n_clusters", [3, 5])
@pytest.mark.parametrize("kind", ["uniform", "shares"])
def test_local_search_matches_its_reference(seed, n_clusters, kind):
    rng = np.random.default_rng(seed)
    basis = _random_basis(rng, 40, 12)
    labels = rng.integers(n_clusters, size=40)
    labels[:n_clusters] = np.arange(n_clusters)
    floors = _start_floors(labels, n_clusters, kind, rng)
    expected, expected_sweeps = _reference.multiclass_local_search(
        basis.V, basis.weights, labels, n_clusters, floors, 50
    )
    found = labels.astype(np.uint8)
    U = indicator_coordinates(basis.V, found, n_clusters)
    sizes = np.bincount(found, minlength=n_clusters).astype(np.intp)
    sweeps = local_search(basis.V, basis.weights, found, U, sizes, floors, 50)
    np.testing.assert_array_equal(found, expected)
    assert sweeps == expected_sweeps
    # The coordinates and sizes were kept up to date with every move.
    np.testing.assert_allclose(
        U, indicator_coordinates(basis.V, found, n_clusters), atol=1e-10
    )
    np.testing.assert_array_equal(sizes, np.bincount(found, minlength=n_clusters))
    # A local optimum: no allowed move lowers F, and F fell.
    gains = _reference.best_moves(basis.V, basis.weights, found, n_clusters, floors)
    assert gains.max() <= 1e-9
    before = _reference.multiclass_fitness(basis.V, basis.weights, labels, n_clusters)
    after = multiclass_fitness(basis, indicator_coordinates(basis.V, found, n_clusters))
    assert after <= before
    np.testing.assert_allclose(
        after,
        _reference.multiclass_fitness(basis.V, basis.weights, found, n_clusters),
        rtol=1e-12,
    )


def test_local_search_keeps_clusters_at_their_minimum_and_stops_at_max_sweeps():
    rng = np.random.default_rng(7)
    basis = _random_basis(rng, 30, 8)
    labels = np.repeat(np.arange(3), 10).astype(np.uint8)
    U = indicator_coordinates(basis.V, labels, 3)
    sizes = np.full(3, 10, dtype=np.intp)
    floors = 10 * np.arange(1, 3, dtype=np.intp)
    assert local_search(basis.V, basis.weights, labels, U, sizes, floors, 20) == 1
    np.testing.assert_array_equal(labels, np.repeat(np.arange(3), 10))
    labels = rng.integers(3, size=30).astype(np.uint8)
    U = indicator_coordinates(basis.V, labels, 3)
    sizes = np.bincount(labels, minlength=3).astype(np.intp)
    floors = np.arange(1, 3, dtype=np.intp)
    assert local_search(basis.V, basis.weights, labels, U, sizes, floors, 1) == 1
    with pytest.raises(ValueError, match="one value per j = 1 .. 2"):
        local_search(basis.V, basis.weights, labels, U, sizes, floors[:1], 1)


def test_starts_fill_small_clusters_and_clusters_are_numbered_by_first_occurrence():
    coordinates = np.array([[0.0], [0.1], [0.2], [0.3], [5.0], [5.1]])
    centres = np.array([[0.0], [5.0], [10.0]])
    labels = enforce_min_size(np.array([0, 0, 0, 0, 1, 1]), coordinates, centres, 2)
    assert np.bincount(labels, minlength=3).min() >= 2
    # The samples nearest to the empty cluster's centre moved into it.
    np.testing.assert_array_equal(labels, [0, 0, 2, 2, 1, 1])
    order, relabel = first_occurrence_order(np.array([2, 2, 0, 1]), 4)
    np.testing.assert_array_equal(relabel[[2, 2, 0, 1]], [0, 0, 1, 2])
    np.testing.assert_array_equal(order[:3], [2, 0, 1])
    assert min_cluster_size(100, 4, 0.5) == 12 and min_cluster_size(3, 3, 0.03) == 1


def test_small_clusters_fill_the_same_for_dense_and_csr_coordinates():
    rng = np.random.RandomState(3)
    coordinates = rng.rand(30, 6) * (rng.rand(30, 6) < 0.5)
    centres = rng.rand(3, 6)
    labels = np.zeros(30, dtype=np.intp)
    labels[:3] = 1
    dense = enforce_min_size(labels, coordinates, centres, 8)
    csr = enforce_min_size(labels, sp.csr_matrix(coordinates), centres, 8)
    np.testing.assert_array_equal(csr, dense)
    np.testing.assert_array_equal(np.bincount(dense, minlength=3), [14, 8, 8])
    # Cluster 1 took the 5 samples of cluster 0 nearest to its centre.
    distances = ((coordinates - centres[1]) ** 2).sum(axis=1)
    nearest = np.argsort(np.where(labels == 0, distances, np.inf), kind="stable")
    moved = np.flatnonzero((labels == 0) & (dense == 1))
    np.testing.assert_array_equal(moved, np.sort(nearest[:5]))


@pytest.mark.parametrize("Estimator", ESTIMATORS)
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_where_the_kmeans_starts_run(Estimator, sparse, monkeypatch):
    # Kernel k-means of the linear kernel is k-means on X itself: FastEvoMMC
    # runs it there, not on the projection of X on its landmarks; EvoMMC's
    # exact kernel principal components are the same space, and it takes
    # whichever of the two stores fewer values (X when it is sparse here).
    seen = []
    original = mmc._evo_multiclass.stable_kmeans

    def recording_kmeans(coordinates, n_clusters, random_state, max_iter):
        seen.append((coordinates.shape, sp.issparse(coordinates)))
        return original(coordinates, n_clusters, random_state, max_iter)

    monkeypatch.setattr(mmc._evo_multiclass, "stable_kmeans", recording_kmeans)
    X, _ = make_sparse_clusters(
        n_samples=120, n_features=400, nnz_per_row=20, n_clusters=3, random_state=0
    )
    X = X if sparse else X.toarray()
    fast = Estimator is FastEvoMMC
    params = {"n_components": 30} if fast else {}
    # (A fixed class_balance: no graph start, the k-means starts run.)
    est = Estimator(
        n_clusters=3,
        kernel="linear",
        n_init=2,
        class_balance=0.03,
        random_state=0,
        **params,
    )
    est.fit(X)
    on_samples = fast or sparse
    expected = (120, 400) if on_samples else (120, est.n_components_)
    assert seen == [(expected, sparse)] * 2
    seen.clear()
    Xb, _ = _blobs()
    est = Estimator(n_clusters=3, kernel="rbf", n_init=1, random_state=0, **params)
    est.fit(Xb)
    assert seen == [((180, est.n_components_), False)]  # kernel principal components


def test_evommc_linear_starts_on_samples_or_components_agree():
    # EvoMMC's k-means starts run on sparse X, and on the kernel principal
    # components of dense X (which stores more values than they do): two
    # isometric copies of the samples, so the same clusterings.
    X, _ = make_sparse_clusters(
        n_samples=150, n_features=400, nnz_per_row=20, n_clusters=4, random_state=1
    )
    fits = [
        EvoMMC(n_clusters=4, kernel="linear", n_init=3, random_state=0).fit(data)
        for data in (X, X.toarray())
    ]
    np.testing.assert_array_equal(fits[0].labels_, fits[1].labels_)
    # (The kernel matrices of sparse and dense X differ in their rounding.)
    assert fits[0].fitness_ == pytest.approx(fits[1].fitness_, rel=1e-12)


def _blobs(sizes=(60, 60, 60), random_state=0):
    centres = [[0.0, 0.0], [6.0, 0.0], [0.0, 6.0], [6.0, 6.0]][: len(sizes)]
    return make_blobs(list(sizes), centers=centres, random_state=random_state)


@pytest.mark.parametrize("Estimator", ESTIMATORS)
@pytest.mark.parametrize("sparse", [False, True])
def test_finds_k_blobs_and_predicts_them(Estimator, sparse):
    X, y = _blobs((60, 60, 60, 60))
    X = sp.csr_matrix(X) if sparse else X
    est = Estimator(n_clusters=4, random_state=0).fit(X)
    assert clustering_error(y, est.labels_) <= 0.01
    assert est.labels_[0] == 0 and set(est.labels_) == {0, 1, 2, 3}
    decision = est.decision_function(X)
    assert decision.shape == (240, 4) and est.dual_coef_.shape[1] == 4
    # The least-squares fits with their offsets reproduce the clusters, and
    # predict takes the largest.
    np.testing.assert_array_equal(est.predict(X), est.labels_)
    np.testing.assert_array_equal(est.predict(X), decision.argmax(axis=1))
    assert est.intercept_.shape == (4,) and est.n_generations_ >= 1
    # The fitness is that of the labels, and pickling keeps the model.
    assert est.objective_ == pytest.approx(est.fitness_)
    clone = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(clone.predict(X[:10]), est.predict(X[:10]))


@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_the_same_seed_gives_the_same_clusters_whatever_the_threads(Estimator):
    X, _ = _blobs((50, 40, 30))
    X = X + np.random.default_rng(0).normal(scale=2.0, size=X.shape)
    one = Estimator(n_clusters=3, random_state=3).fit(X)
    two = Estimator(n_clusters=3, random_state=3, n_jobs=2).fit(X)
    np.testing.assert_array_equal(one.labels_, two.labels_)
    assert one.objective_ == two.objective_


@pytest.mark.parametrize("Estimator", ESTIMATORS)
@pytest.mark.parametrize("n_jobs", [None, 2])
def test_kmeans_starts_on_threads_are_those_of_one_thread(
    Estimator, n_jobs, monkeypatch, one_fit
):
    # The restarts' k-means starts are computed first, side by side on the
    # threads KMeans would use (mmc._threads.fit_threads); inside restarts
    # on threads of n_jobs they are not: they run before the restarts.
    import mmc._threads as threads_module

    X, _ = _blobs((50, 40, 30))
    X = X + np.random.default_rng(0).normal(scale=2.0, size=X.shape)
    threads = []
    original = mmc._evo_multiclass.map_on_threads

    def recorded(run, items, n_threads):
        threads.append((len(items), n_threads))
        return original(run, items, n_threads)

    monkeypatch.setattr(mmc._evo_multiclass, "map_on_threads", recorded)
    fits = {}
    for n_threads in (1, 2):
        monkeypatch.setattr(threads_module, "THREADED_PASS_PRODUCTS", 0)
        monkeypatch.setattr(
            threads_module, "_openmp_effective_n_threads", lambda: n_threads
        )
        fits[n_threads] = Estimator(
            n_clusters=3, n_init=4, n_jobs=n_jobs, random_state=3
        ).fit(X)
    assert threads == [(4, 1), (4, 2)]
    np.testing.assert_array_equal(fits[1].labels_, fits[2].labels_)
    assert fits[1].objective_ == fits[2].objective_
    np.testing.assert_array_equal(fits[1].dual_coef_, fits[2].dual_coef_)


@pytest.mark.parametrize("Estimator", ESTIMATORS)
@pytest.mark.parametrize("n_clusters", [2, 3])
def test_runs_take_the_openmp_threads_unless_n_jobs_is_given(
    Estimator, n_clusters, monkeypatch, one_fit
):
    # The restarts (evolutions with two clusters, local searches with more)
    # are kernel work: without n_jobs they take the threads KMeans would
    # use for its runs (mmc._threads.restart_threads), with the same result.
    import mmc._evo_base
    import mmc._threads as threads_module

    X, _ = _blobs((50, 40, 30))
    X = X + np.random.default_rng(0).normal(scale=2.0, size=X.shape)
    module = mmc._evo_base if n_clusters == 2 else mmc._evo_multiclass
    threads = []
    original = module.best_of_restarts

    def recorded(run, starts, n_jobs):
        threads.append(n_jobs)
        return original(run, starts, n_jobs)

    monkeypatch.setattr(module, "best_of_restarts", recorded)
    monkeypatch.setattr(threads_module, "THREADED_PASS_PRODUCTS", 0)
    fits = []
    for n_threads, n_jobs in ((1, None), (2, None), (2, 1)):
        monkeypatch.setattr(
            threads_module, "_openmp_effective_n_threads", lambda: n_threads
        )
        fits.append(
            Estimator(
                n_clusters=n_clusters, n_init=4, n_jobs=n_jobs, random_state=3
            ).fit(X)
        )
    assert threads == [1, 2, 1]
    for fit in fits[1:]:
        np.testing.assert_array_equal(fit.labels_, fits[0].labels_)
        assert fit.objective_ == fits[0].objective_


@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_two_cluster_runs_are_long_enough_for_threads(Estimator, monkeypatch, one_fit):
    # A two-cluster run evolves for at least patience x offspring children
    # (each O(r)): threads even on 120 samples, where a sweep of the
    # three-cluster local search (n r k multiply-adds) is too short for them.
    import mmc._evo_base
    import mmc._threads as threads_module

    monkeypatch.setattr(threads_module, "_openmp_effective_n_threads", lambda: 2)
    X, _ = _blobs((50, 40, 30))
    X = X + np.random.default_rng(0).normal(scale=2.0, size=X.shape)
    threads = []
    for module in (mmc._evo_base, mmc._evo_multiclass):
        original = module.restart_threads

        def recorded(n_jobs, n_runs, products, original=original):
            threads.append(original(n_jobs, n_runs, products))
            return threads[-1]

        monkeypatch.setattr(module, "restart_threads", recorded)
    for n_clusters in (2, 3):
        Estimator(n_clusters=n_clusters, n_init=4, random_state=3).fit(X)
    assert threads == [2, 1]


def test_distinct_starts_number_partitions_by_first_occurrence():
    starts = {
        7: np.array([2, 2, 0, 1, 1], dtype=np.uint8),
        3: np.array([1, 1, 2, 0, 0], dtype=np.uint8),  # the same partition
        5: np.array([0, 1, 1, 2, 2], dtype=np.uint8),
        9: np.array([0, 0, 1, 2, 2], dtype=np.uint8),  # the first, numbered
    }
    assert distinct_starts(starts, 3) == [7, 5]
    np.testing.assert_array_equal(starts[7], [0, 0, 1, 2, 2])
    np.testing.assert_array_equal(starts[3], starts[7])
    named = {1: "random", 2: "random"}
    assert distinct_starts(named, 3) == [1, 2]


def test_the_fitness_of_a_partition_does_not_depend_on_its_numbering():
    rng = np.random.default_rng(3)
    basis = _random_basis(rng, 40, 12)
    labels = rng.integers(4, size=40)
    fitnesses = set()
    for permutation in ([0, 1, 2, 3], [3, 1, 0, 2], [2, 3, 1, 0]):
        permuted = np.asarray(permutation)[labels]
        U = indicator_coordinates(basis.V, permuted, 4)
        fitnesses.add(multiclass_fitness(basis, U))
    assert len(fitnesses) == 1


@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_each_partition_is_searched_once_with_the_result_of_every_copy(
    Estimator, monkeypatch
):
    # Three even blobs: the ten k-means starts find one partition, numbered
    # in several ways.
    X, _ = _blobs((60, 60, 60))
    searched = []
    original = mmc._evo_multiclass.local_search

    def counted(V, weights, labels, *args):
        searched.append(labels.copy())
        return original(V, weights, labels, *args)

    monkeypatch.setattr(mmc._evo_multiclass, "local_search", counted)
    once = Estimator(n_clusters=3, random_state=0).fit(X)
    assert len(searched) == 1
    searched.clear()
    monkeypatch.setattr(
        mmc._evo_multiclass, "distinct_starts", lambda starts, k: list(starts)
    )
    every = Estimator(n_clusters=3, random_state=0).fit(X)
    assert len(searched) == 10
    np.testing.assert_array_equal(once.labels_, every.labels_)
    np.testing.assert_array_equal(once.dual_coef_, every.dual_coef_)
    assert once.objective_ == every.objective_
    assert once.n_generations_ == every.n_generations_


@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_restarts_keep_the_lowest_fitness(Estimator):
    X, _ = _blobs((50, 40, 30))
    X = X + np.random.default_rng(1).normal(scale=2.5, size=X.shape)
    best = Estimator(n_clusters=3, random_state=0, n_init=6).fit(X)
    # The first restart draws the seed of the single run.
    single = Estimator(n_clusters=3, random_state=0, n_init=1).fit(X)
    assert best.objective_ <= single.objective_
    # Every cluster keeps at least (1 - class_balance) n / k samples.
    assert np.bincount(best.labels_).min() >= min_cluster_size(
        120, 3, best.class_balance_
    )


@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_predict_reproduces_the_labels_the_size_floors_hold(Estimator):
    # Blobs of 30, 30 and 12 samples held to clusters of at least 97 % of
    # the mean size (the papers' bound): a sample is held in a cluster whose
    # fit is not its largest, and without offsets predict moved it.
    X, _ = _blobs((30, 30, 12), random_state=3)
    est = Estimator(n_clusters=3, class_balance=0.03, random_state=0).fit(X)
    decision = est.decision_function(X)
    assert np.any(np.argmax(decision - est.intercept_, axis=1) != est.labels_), (
        "the floors hold no sample against its fit: the case tests nothing"
    )
    np.testing.assert_array_equal(est.predict(X), est.labels_)
    assert est.intercept_.sum() == pytest.approx(0.0, abs=1e-12)


def test_fitted_offsets_reproduce_labels_of_shifted_predictions():
    rng = np.random.RandomState(0)
    checked = 0
    for _ in range(300):
        n_clusters = rng.randint(2, 8)
        decision = rng.standard_normal((rng.randint(n_clusters, 60), n_clusters))
        labels = np.argmax(decision - rng.standard_normal(n_clusters), axis=1)
        if np.unique(labels).size < n_clusters:
            continue
        offsets = fitted_offsets(decision, labels)
        np.testing.assert_array_equal(np.argmax(decision - offsets, axis=1), labels)
        assert offsets.sum() == pytest.approx(0.0, abs=1e-12)
        if n_clusters == 2:
            # The binary rule: the midpoint of the gap between the clusters.
            threshold = fitted_threshold(
                decision[:, 1] - decision[:, 0], np.where(labels == 1, 1, -1)
            )
            assert offsets[1] - offsets[0] == pytest.approx(threshold)
        checked += 1
    assert checked > 100


def test_fitted_offsets_set_aside_a_sample_held_against_its_fit():
    # Shifted predictions reproduce every label but one sample's, held in
    # cluster 0 far from its fit: the offsets of the others reproduce all
    # but that one (the widest-margin offsets with it got 3 more wrong).
    rng = np.random.RandomState(2)
    decision = rng.standard_normal((60, 3))
    shift = np.array([0.0, 0.8, -0.8])
    labels = np.argmax(decision - shift, axis=1)
    held = np.flatnonzero(labels == 1)[0]
    decision[held] = [-3.0, 3.0, 0.0]
    labels[held] = 0
    offsets = fitted_offsets(decision, labels)
    wrong = np.flatnonzero(np.argmax(decision - offsets, axis=1) != labels)
    np.testing.assert_array_equal(wrong, [held])


def test_fitted_offsets_when_no_offsets_reproduce_the_labels():
    # Two samples with the same predictions in different clusters: no
    # offsets separate them; the result reproduces at least what zeros do.
    rng = np.random.RandomState(1)
    decision = rng.standard_normal((40, 4))
    labels = np.argmax(decision, axis=1)
    decision[1] = decision[0]
    labels[1] = (labels[0] + 1) % 4
    offsets = fitted_offsets(decision, labels)
    reproduced = np.sum(np.argmax(decision - offsets, axis=1) == labels)
    assert reproduced >= np.sum(np.argmax(decision, axis=1) == labels)
    # An empty cluster gives no constraints: zeros.
    np.testing.assert_array_equal(fitted_offsets(decision, labels % 3), 0.0)


@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_initial_labels_and_random_starts(Estimator):
    X, y = _blobs()
    given = Estimator(n_clusters=3, init=y, n_init=1, random_state=0).fit(X)
    assert clustering_error(y, given.labels_) <= 0.01
    random = Estimator(n_clusters=3, init="random", random_state=0).fit(X)
    assert np.bincount(random.labels_, minlength=3).min() >= min_cluster_size(
        180, 3, random.class_balance_
    )
    with pytest.raises(ValueError, match="exactly 3 distinct"):
        Estimator(n_clusters=3, init=y % 2, n_init=1).fit(X)


@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_bad_n_clusters_is_rejected_clearly(Estimator):
    X, _ = _blobs((2, 2, 1))
    with pytest.raises(ValueError, match="n_samples=5 should be >= n_clusters=6"):
        Estimator(n_clusters=6).fit(X)
    with pytest.raises(ValueError, match="n_clusters"):
        Estimator(n_clusters=1).fit(X)


@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_identical_samples_make_one_cluster_with_a_warning(Estimator):
    X = np.ones((20, 3))
    with pytest.warns(ConvergenceWarning, match="one cluster"):
        est = Estimator(n_clusters=3, random_state=0).fit(X)
    np.testing.assert_array_equal(est.labels_, 0)
    np.testing.assert_array_equal(est.predict(X[:2]), 0)


def _repeated_rows(sizes, n_features=3, seed=0):
    """Distinct random rows, row g repeated ``sizes[g]`` times, and the
    group of each sample."""
    base = np.random.default_rng(seed).standard_normal((len(sizes), n_features))
    groups = np.repeat(np.arange(len(sizes)), sizes)
    return base[groups], groups


@pytest.mark.parametrize("Estimator", ESTIMATORS)
@pytest.mark.parametrize(
    "n_clusters, sizes, class_balance",
    [
        # Clusters of 10 from groups of 6: the size floors split a group.
        (3, (6, 6, 6, 6, 6), "auto"),
        # Two even clusters from groups of 12, 9 and 9: the same with two.
        (2, (12, 9, 9), 0.0),
    ],
)
def test_identical_rows_share_a_cluster(Estimator, n_clusters, sizes, class_balance):
    # labels_ are the least-squares classifier's clusters: identical rows,
    # whose predictions are equal, are never split (the search's labelling
    # split one group here, and predict then differed from labels_ on 3 to
    # 6 of the 30 samples).
    X, groups = _repeated_rows(sizes)
    est = Estimator(
        n_clusters=n_clusters, class_balance=class_balance, random_state=0
    ).fit(X)
    for group in range(len(sizes)):
        assert np.unique(est.labels_[groups == group]).size == 1
    np.testing.assert_array_equal(est.predict(X), est.labels_)
    assert est.labels_[0] == 0
    # No sample on a boundary: the threshold or offsets are fitted to these
    # clusters, not to the search's split group (whose tie the rounding of
    # predict broke either way).
    decision = est.decision_function(X)
    if decision.ndim == 1:
        margins = np.abs(decision)
    else:
        top_two = np.sort(decision, axis=1)[:, -2:]
        margins = top_two[:, 1] - top_two[:, 0]
    assert margins.min() > 1e-6 * np.abs(decision).max()


@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_more_clusters_than_distinct_rows_warns(Estimator):
    # Five distinct rows cannot make eight clusters without splitting
    # identical samples: five clusters and a ConvergenceWarning, as KMeans
    # and CPM3C give.
    X, groups = _repeated_rows((6, 6, 6, 6, 6))
    with pytest.warns(ConvergenceWarning, match="found 5 non-empty clusters"):
        est = Estimator(n_clusters=8, random_state=0).fit(X)
    assert np.unique(est.labels_).size == 5
    np.testing.assert_array_equal(np.unique(est.labels_), np.arange(5))
    for group in range(5):
        assert np.unique(est.labels_[groups == group]).size == 1
    np.testing.assert_array_equal(est.predict(X), est.labels_)


def test_fitted_offsets_do_not_follow_rounding():
    # A sample held against its fit makes the margin negative, and the
    # widest offsets give it and the sample that binds the other way the
    # same slack: which one is set aside must not hinge on rounding (the
    # predictions of a basis computed by another BLAS kernel differ by
    # 1e-12). Perturbed predictions give the same offsets.
    rng = np.random.RandomState(3)
    changed = 0
    for trial in range(40):
        decision = rng.standard_normal((50, 3))
        labels = np.argmax(decision - rng.standard_normal(3), axis=1)
        held = rng.choice(50, size=2, replace=False)
        labels[held] = (labels[held] + 1) % 3
        if np.unique(labels).size < 3:
            continue
        reference = fitted_offsets(decision, labels)
        for _ in range(5):
            noise = 1e-13 * rng.standard_normal(decision.shape)
            offsets = fitted_offsets(decision + noise, labels)
            changed += not np.allclose(offsets, reference, rtol=0, atol=1e-9)
    assert changed == 0
