"""KMeansRuns: the runs of best_kmeans_centres kept for a second use, and
the fit that shares them (CPM3C's class-balance estimate and k-means start)."""

import threading

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_digits

import mmc._kmeans as kmeans
import mmc._threads as threads_module
from mmc import CPM3C, CPMMC
from mmc._balance import KMEANS_RUNS, SAMPLE_ROWS
from mmc._kmeans import KMeansRuns, best_kmeans_centres, nearest_centres
from mmc._starts import MULTICLASS_KMEANS_RUNS, initial_centres, initial_signs


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_runs_are_those_of_best_kmeans_centres_for_every_count(sparse):
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(size=(60, 4)) + shift for shift in (0.0, 2.0, 4.0)])
    X = sp.csr_matrix(X) if sparse else X
    runs = KMeansRuns(X, 3, np.random.RandomState(7))
    for n_runs in (1, 3, 2, 6, 10):  # out of order: kept runs are reused
        expected = best_kmeans_centres(X, 3, np.random.RandomState(7), n_runs)
        np.testing.assert_array_equal(runs.best(n_runs), expected)


def _count_runs(monkeypatch, n_features=64):
    """The runs of k-means on rows of ``n_features`` (the graph start's runs
    on its embedding, of n_clusters columns, are not counted: it reuses the
    estimate's runs on the rows, which these tests count)."""
    calls = []
    run = kmeans._stable_kmeans

    def counted(*args):
        if args[0].shape[1] == n_features:
            calls.append(args[3])
        return run(*args)

    monkeypatch.setattr(kmeans, "_stable_kmeans", counted)
    return calls


def test_cpm3c_shares_the_estimates_runs_with_its_kmeans_start(monkeypatch, one_fit):
    X, _ = load_digits(n_class=4, return_X_y=True)
    assert X.shape[0] <= SAMPLE_ROWS
    expected = CPM3C(n_clusters=4, random_state=0).fit(X)
    sharing = CPM3C._shared_kmeans_runs
    calls = _count_runs(monkeypatch)
    # Without sharing, 3 runs for the estimate and 10 for the start.
    monkeypatch.setattr(CPM3C, "_shared_kmeans_runs", lambda *args: None)
    unshared = CPM3C(n_clusters=4, random_state=0).fit(X)
    assert len(calls) == KMEANS_RUNS + MULTICLASS_KMEANS_RUNS
    monkeypatch.setattr(CPM3C, "_shared_kmeans_runs", sharing)
    calls.clear()
    shared = CPM3C(n_clusters=4, random_state=0).fit(X)
    assert len(calls) == MULTICLASS_KMEANS_RUNS
    for fitted in (unshared, shared):
        np.testing.assert_array_equal(fitted.labels_, expected.labels_)
        np.testing.assert_array_equal(fitted.coef_, expected.coef_)
        assert fitted.class_balance_ == expected.class_balance_


def _seeding_reference(X, n_clusters, random_state):
    """Greedy k-means++ seeding in NumPy, drawing as it goes (the order of
    the draws that ``seeding_draws`` takes ahead)."""
    n_trials = 2 + int(np.log(n_clusters))
    chosen = [random_state.randint(X.shape[0])]
    closest = ((X - X[chosen[0]]) ** 2).sum(axis=1)
    for _ in range(1, n_clusters):
        draws = random_state.uniform(size=n_trials) * closest.sum()
        candidates = np.minimum(
            np.searchsorted(np.cumsum(closest), draws), X.shape[0] - 1
        )
        D = ((X[None, :, :] - X[candidates][:, None, :]) ** 2).sum(axis=2)
        D = np.minimum(D, closest)
        best = int(np.argmin(D.sum(axis=1)))
        chosen.append(candidates[best])
        closest = D[best]
    return X[chosen]


@pytest.mark.parametrize("n_clusters", [2, 5, 12])
def test_seeding_drawn_ahead_is_the_seeding_drawn_as_it_goes(n_clusters):
    rng = np.random.default_rng(n_clusters)
    X = rng.normal(size=(200, 6))
    random_state, reference_state = np.random.RandomState(3), np.random.RandomState(3)
    for _ in range(3):  # consecutive runs: each leaves the generator as it went
        expected = _seeding_reference(X, n_clusters, reference_state)
        got = kmeans.stable_kmeans(X, n_clusters, random_state, 0)
        np.testing.assert_array_equal(got, expected)


def _threads_of_runs(monkeypatch):
    calls = []
    map_on_threads = kmeans.map_on_threads

    def recorded(run, items, n_threads):
        calls.append((len(items), n_threads))
        return map_on_threads(run, items, n_threads)

    monkeypatch.setattr(kmeans, "map_on_threads", recorded)
    return calls


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_runs_on_threads_are_the_runs_on_one_thread(monkeypatch, sparse):
    X, _ = load_digits(n_class=5, return_X_y=True)
    X = sp.csr_matrix(X) if sparse else X
    by_threads = {}
    for n_threads in (1, 2, 4):
        monkeypatch.setattr(
            threads_module, "_openmp_effective_n_threads", lambda: n_threads
        )
        monkeypatch.setattr(threads_module, "THREADED_PASS_PRODUCTS", 0)
        calls = _threads_of_runs(monkeypatch)
        runs = KMeansRuns(X, 5, np.random.RandomState(0))
        centres = runs.best(3), runs.best(MULTICLASS_KMEANS_RUNS)
        assert calls == [(3, min(n_threads, 3)), (7, n_threads)]
        by_threads[n_threads] = centres, runs._inertias
        monkeypatch.undo()
    for n_threads in (2, 4):
        for got, expected in zip(by_threads[n_threads][0], by_threads[1][0]):
            np.testing.assert_array_equal(got, expected)
        assert by_threads[n_threads][1] == by_threads[1][1]


def test_cpm3c_computes_its_starts_runs_at_once(monkeypatch, one_fit):
    # The shared runs are computed together (on threads) before the
    # class-balance estimate takes its first few.
    X, _ = load_digits(n_class=4, return_X_y=True)
    # (Without the graph start, whose runs on its embedding come after.)
    monkeypatch.setattr(CPM3C, "_graph_start_applies", lambda self: False)
    calls = _threads_of_runs(monkeypatch)
    CPM3C(n_clusters=4, random_state=0).fit(X)
    assert calls[0][0] == MULTICLASS_KMEANS_RUNS
    assert sum(n_runs for n_runs, _ in calls) == MULTICLASS_KMEANS_RUNS


def test_two_cluster_kmeans_start_draws_only_the_estimates_runs(monkeypatch):
    # CPMMC's "kmeans" start is one run, the first of the estimate's (the
    # same seed): the fit computes the estimate's runs and no more.
    X, _ = load_digits(n_class=2, return_X_y=True)
    calls = _count_runs(monkeypatch)
    CPMMC(init="kmeans", n_init=1, class_balance="auto", random_state=0).fit(X)
    assert len(calls) == KMEANS_RUNS


def test_a_failing_run_on_threads_stops_the_others_and_is_raised(monkeypatch):
    X, _ = load_digits(n_class=5, return_X_y=True)
    monkeypatch.setattr(threads_module, "_openmp_effective_n_threads", lambda: 2)
    monkeypatch.setattr(threads_module, "THREADED_PASS_PRODUCTS", 0)
    run = kmeans._stable_kmeans
    started = []

    def failing(*args):
        started.append(threading.current_thread().name)
        if len(started) == 2:
            raise ValueError("run failed")
        return run(*args)

    monkeypatch.setattr(kmeans, "_stable_kmeans", failing)
    before = threading.active_count()
    with pytest.raises(ValueError, match="run failed"):
        KMeansRuns(X, 5, np.random.RandomState(0)).compute(MULTICLASS_KMEANS_RUNS)
    # The runs queued behind the failure did not start, and no thread of
    # the pool outlives the call.
    assert len(started) < MULTICLASS_KMEANS_RUNS
    assert threading.active_count() == before


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_float32_runs_are_those_of_the_float64_copy_without_making_it(
    monkeypatch, sparse
):
    # float32 X is not copied to float64 (twice its memory, of each block
    # of a Dask array on its worker): the kernels compute in float64 from
    # its values, and the squared norms are taken a few rows at a time, so
    # every number is that of the float64 copy, to the last bit.
    monkeypatch.setattr(kmeans, "_NORM_CHUNK_BYTES", 8 * 13 * 7)  # 7 rows
    rng = np.random.default_rng(5)
    X = rng.standard_normal((400, 13)) * rng.uniform(0.1, 50.0, 13)
    X[:150] += 4.0 * rng.standard_normal(13)
    X[rng.random(X.shape) < 0.3] = 0.0
    X32 = X.astype(np.float32)
    X32 = sp.csr_matrix(X32) if sparse else X32
    X64 = X32.astype(np.float64)
    prepared, norms, _ = kmeans.rounding_scale(X32)
    assert prepared.dtype == np.float32
    if not sparse:
        assert np.shares_memory(prepared, X32)
    np.testing.assert_array_equal(norms, kmeans.rounding_scale(X64)[1])
    for n_runs in (1, 4):
        np.testing.assert_array_equal(
            best_kmeans_centres(X32, 5, np.random.RandomState(0), n_runs),
            best_kmeans_centres(X64, 5, np.random.RandomState(0), n_runs),
        )
    seeding = kmeans.stable_kmeans(X32, 5, np.random.RandomState(1), max_iter=0)
    assert seeding.dtype == np.float64
    np.testing.assert_array_equal(
        seeding, kmeans.stable_kmeans(X64, 5, np.random.RandomState(1), max_iter=0)
    )


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_two_cluster_kmeans_start_is_one_stable_run(monkeypatch, sparse, dtype):
    # The "kmeans" start of CPMMC, MultivariateMMC and ODMC is the first run
    # of best_kmeans_centres from the start's seed, the same labels for any
    # number of OpenMP threads and for dense, CSR and float32 input. Pixel
    # values over 15 are not binary fractions and have exact ties.
    X, _ = load_digits(n_class=3, return_X_y=True)
    X = X / 15.0
    centres = best_kmeans_centres(X, 2, np.random.RandomState(3), 1)
    expected = np.where(nearest_centres(X, centres) == 1, 1, -1)
    data = X.astype(dtype)
    data = sp.csr_matrix(data) if sparse else data
    for n_threads in (1, 2):
        monkeypatch.setattr(
            threads_module, "_openmp_effective_n_threads", lambda: n_threads
        )
        monkeypatch.setattr(threads_module, "THREADED_PASS_PRODUCTS", 0)
        signs = initial_signs(data, "kmeans", np.random.RandomState(3), None)
        assert signs.dtype == np.int8
        np.testing.assert_array_equal(signs, expected)
        monkeypatch.undo()


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_kmeans_plusplus_start_is_the_stable_seeding(sparse, dtype):
    # CPM3C's "k-means++" start: the seeding of stable_kmeans (the rows it
    # chooses), the same for dense, CSR and float32 input, with ties.
    X, _ = load_digits(n_class=4, return_X_y=True)
    X = X / 15.0
    expected = kmeans.stable_kmeans(X, 4, np.random.RandomState(2), max_iter=0)
    data = X.astype(dtype)
    data = sp.csr_matrix(data) if sparse else data
    centres = initial_centres(
        data, X.mean(axis=0), "k-means++", np.random.RandomState(2), 4, None
    )
    # The same rows (float32 rows differ from the float64 ones by rounding;
    # two rows of different pixels by at least 1/15).
    atol = 0.0 if dtype == np.float64 else 1e-6
    np.testing.assert_allclose(centres, expected, rtol=0.0, atol=atol)
    # Every centre is a row of X, and they are distinct rows here.
    rows = [np.flatnonzero((X == c).all(axis=1)) for c in expected]
    assert all(r.size > 0 for r in rows)
    assert len({tuple(c) for c in centres}) == 4


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("many_rows", [False, True], ids=["few", "many"])
def test_sampled_kmeans_start_is_the_estimates_clustering(sparse, many_rows):
    # ODMC's "kmeans" start: the best of KMEANS_RUNS runs on at most
    # SAMPLE_ROWS rows drawn as the class-balance estimate draws them, every
    # row labelled by their centres; sparse X of more rows: one run.
    rng = np.random.default_rng(0)
    X = rng.standard_normal((SAMPLE_ROWS + 300 if many_rows else 500, 6))
    X[: X.shape[0] // 3] += 3.0
    if sparse:
        X[rng.random(X.shape) < 0.5] = 0.0
        X = sp.csr_matrix(X)
    random_state = np.random.RandomState(4)
    if sparse and many_rows:
        centres = best_kmeans_centres(X, 2, random_state, 1)
    elif many_rows:
        rows = np.sort(random_state.choice(X.shape[0], SAMPLE_ROWS, replace=False))
        centres = best_kmeans_centres(X[rows], 2, random_state, KMEANS_RUNS)
    else:
        centres = best_kmeans_centres(X, 2, random_state, KMEANS_RUNS)
    expected = np.where(nearest_centres(X, centres) == 1, 1, -1)
    signs = initial_signs(
        X, "kmeans", np.random.RandomState(4), None, sampled_kmeans=True
    )
    np.testing.assert_array_equal(signs, expected)
    assert signs.dtype == np.int8
    assert 0 < np.count_nonzero(signs > 0) < X.shape[0]
