"""Fits on Dask arrays: agreement with the in-memory fit, on the local
schedulers and on a LocalCluster of two worker processes, errors, and a
worker lost in the middle of a fit."""

import pickle
import sys
import threading

import numpy as np
import pytest
import scipy.sparse as sp
from _dask_cluster import TIMEOUT, local_client
from sklearn.datasets import load_digits, make_blobs

from mmc import CPM3C, CPMMC, ODMC, EvoMMC, FastEvoMMC, MultivariateMMC
from mmc.metrics import clustering_error

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")
distributed = pytest.importorskip("distributed")

DASK_ESTIMATORS = [CPMMC, MultivariateMMC, CPM3C]


def _digits(pair=(3, 8)):
    digits = load_digits()
    mask = np.isin(digits.target, pair)
    return digits.data[mask] / 16.0


def _chunked(X, rows=100):
    """X as a Dask array of blocks of ``rows`` rows (CSR blocks for CSR X)."""
    return da.from_array(X, chunks=(rows, -1), asarray=not sp.issparse(X))


def _agreement(a, b):
    return 1.0 - clustering_error(a, b)


@pytest.fixture(scope="module")
def client():
    """A LocalCluster of two single-threaded worker processes."""
    with local_client() as client:
        yield client


@pytest.fixture
def sync_scheduler():
    with dask.config.set(scheduler="sync"):
        yield


@pytest.fixture(autouse=True)
def small_segments(monkeypatch):
    """CPM3C's Dask visiting order in segments of 64 rows, so that the small
    data here make several blocks, and the in-memory fits visit the rows in
    the same order (they visit them in one shuffle otherwise: see
    test_cpm3c_dask_fit_agrees_with_the_in_memory_order)."""
    import mmc._cpm3c_dual

    monkeypatch.setattr(mmc._cpm3c_dual, "SEGMENT_ROWS", 64)
    monkeypatch.setattr(mmc._cpm3c_dual.DualMulticlassSVM, "segment_rows", 64)
    monkeypatch.setattr(
        mmc._cpm3c_dual.DualMulticlassSVM, "n_rounds", mmc._cpm3c_dual.N_ROUNDS
    )


@pytest.fixture(autouse=True)
def small_blocks(monkeypatch):
    """Blocks of any size kept as they are, so that the small data here make
    several blocks (see test_small_dense_blocks_are_merged)."""
    import mmc._dask

    monkeypatch.setattr(mmc._dask, "MIN_BLOCK_VALUES", 1)


def _blobs():
    X, _ = make_blobs(
        n_samples=300, centers=2, n_features=5, cluster_std=1.0, random_state=2
    )
    return X


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_auto_class_balance_is_estimated_as_in_memory(sync_scheduler, sparse):
    # More rows than mmc._balance.SAMPLE_ROWS: the estimate samples rows,
    # fetched from the blocks in one compute; 1:3 clusters loosen the bound.
    X, _ = make_blobs([2700, 900], centers=[[0.0] * 5, [5.0] + [0.0] * 4],
                      random_state=0)  # fmt: skip
    X -= X.min()
    X = sp.csr_matrix(X) if sparse else X
    expected = CPMMC(n_init=1, random_state=0).fit(X)
    est = CPMMC(n_init=1, random_state=0).fit(_chunked(X, rows=700))
    # Sparse rows beyond mmc._balance.SAMPLE_ROWS give no estimate.
    bound = 0.03 if sparse else pytest.approx(0.5 + 0.03, abs=0.05)
    assert expected.class_balance_ == bound
    assert est.class_balance_ == expected.class_balance_
    assert _agreement(expected.labels_, est.labels_) >= 0.999


@pytest.mark.parametrize("Estimator", DASK_ESTIMATORS)
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_cluster_fit_agrees_with_in_memory_fit(client, Estimator, sparse):
    # Small and quick on the cluster; every start on the digits below.
    X = _blobs()
    X = sp.csr_matrix(X) if sparse else X
    expected = Estimator(n_init=2, random_state=0).fit(X)
    est = Estimator(n_init=2, random_state=0).fit(_chunked(X))
    assert isinstance(est.labels_, np.ndarray)
    assert est.labels_.dtype == expected.labels_.dtype
    assert _agreement(expected.labels_, est.labels_) >= 0.999
    assert est.objective_ == pytest.approx(expected.objective_, rel=1e-9)
    np.testing.assert_allclose(est.coef_, expected.coef_, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("Estimator", DASK_ESTIMATORS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("init", ["pca", "kmeans", "random"])
def test_local_scheduler_fit_agrees_for_every_start(
    sync_scheduler, Estimator, dtype, init
):
    X = _digits((1, 7)).astype(dtype)
    expected = Estimator(init=init, n_init=1, random_state=1).fit(X)
    est = Estimator(init=init, n_init=1, random_state=1).fit(_chunked(X, 64))
    assert _agreement(expected.labels_, est.labels_) >= 0.999
    assert est.objective_ == pytest.approx(expected.objective_, rel=1e-6)


@pytest.mark.parametrize("Estimator", [CPMMC, MultivariateMMC])
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_continuation_in_c_agrees_with_the_fit_in_memory(
    sync_scheduler, Estimator, sparse
):
    # Each value of C goes on from the working set of the one before, after
    # the early stop went back to its best iterate: the signs and the
    # statistics of the constraints follow it on the blocks as in memory.
    X = _digits((1, 7))
    X = sp.csr_matrix(X) if sparse else X
    params = dict(continuation=True, n_init=3, random_state=1)
    expected = Estimator(**params).fit(X)
    est = Estimator(**params).fit(_chunked(X, 64))
    assert _agreement(expected.labels_, est.labels_) >= 0.999
    assert est.objective_ == pytest.approx(expected.objective_, rel=1e-6)
    assert est.n_iter_ == expected.n_iter_


def test_result_does_not_depend_on_the_scheduler(client):
    """Per-block results are summed in the order of the blocks, whichever
    worker computed them: the cluster's fit is the local scheduler's."""
    X = _chunked(_blobs(), 50)
    on_cluster = MultivariateMMC(random_state=0).fit(X)
    with dask.config.set(scheduler="sync"):
        local = MultivariateMMC(random_state=0).fit(X)
    np.testing.assert_array_equal(on_cluster.labels_, local.labels_)
    assert on_cluster.objective_ == local.objective_
    np.testing.assert_array_equal(on_cluster.coef_, local.coef_)


def test_threaded_scheduler_and_uneven_blocks():
    X, _ = make_blobs(n_samples=500, centers=2, n_features=6, random_state=3)
    expected = CPMMC(random_state=0).fit(X)
    uneven = da.from_array(X, chunks=((1, 200, 99, 200), (6,)))
    with dask.config.set(scheduler="threads"):
        est = CPMMC(random_state=0).fit(uneven)
    np.testing.assert_array_equal(est.labels_, expected.labels_)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_predict_and_decision_function_return_dask_arrays(sync_scheduler, sparse):
    X = _digits()
    X = sp.csr_matrix(X) if sparse else X
    est = CPMMC(random_state=0).fit(X)
    dX = _chunked(X, 70)
    decision = est.decision_function(dX)
    labels = est.predict(dX)
    assert isinstance(decision, da.Array) and isinstance(labels, da.Array)
    np.testing.assert_array_equal(labels.compute(), est.predict(X))
    np.testing.assert_allclose(decision.compute(), est.decision_function(X))
    # Also for the estimators fitted in memory only.
    cpm3c = CPM3C(n_clusters=2, random_state=0).fit(X)
    np.testing.assert_array_equal(cpm3c.predict(dX).compute(), cpm3c.predict(X))
    assert cpm3c.decision_function(dX).compute().shape == (X.shape[0], 2)
    odmc = ODMC(random_state=0).fit(X)
    np.testing.assert_array_equal(odmc.predict(dX).compute(), odmc.predict(X))


def test_fitted_estimator_pickles_without_the_cluster(client):
    X = _blobs()
    est = CPMMC(n_init=1, random_state=0).fit(_chunked(X))
    restored = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(restored.labels_, est.labels_)
    np.testing.assert_array_equal(restored.predict(X), est.predict(X))


@pytest.mark.parametrize(
    "Estimator", [ODMC, EvoMMC, FastEvoMMC], ids=lambda e: e.__name__
)
def test_other_estimators_refuse_dask_input(Estimator):
    with pytest.raises(TypeError, match="CPMMC, CPM3C, MultivariateMMC"):
        Estimator().fit(_chunked(_digits()))


# Every start with each dtype and each format, and every dtype with every
# format (all pairs of the three: 8 fits, not the 16 of every triple).
_START_DTYPE_FORMAT = [
    (init, dtype, sparse)
    for i, init in enumerate(["kmeans", "k-means++", "pca", "random"])
    for dtype, sparse in (
        [(np.float64, False), (np.float32, True)]
        if i % 2 == 0
        else [(np.float64, True), (np.float32, False)]
    )
]


@pytest.mark.parametrize("init, dtype, sparse", _START_DTYPE_FORMAT)
def test_cpm3c_dask_fit_takes_the_in_memory_steps(sync_scheduler, sparse, dtype, init):
    """Epochs on blocks of whole segments make the in-memory steps: the same
    labels and iterations; the weights equal up to the rounding of the sums
    over the rows. (With float32 data the principal direction, the scale of
    C, differs in its 7th digit: the in-memory fit computes its products in
    float32, the blocks in float64; the support may differ by a few samples
    there.)"""
    digits = load_digits()
    mask = np.isin(digits.target, (0, 6, 8, 9))
    X = (digits.data[mask] / 16.0).astype(dtype)
    X = sp.csr_matrix(X) if sparse else X
    expected = CPM3C(n_clusters=4, init=init, n_init=1, random_state=3).fit(X)
    # Blocks of 100 rows: their ends move to multiples of the segments.
    est = CPM3C(n_clusters=4, init=init, n_init=1, random_state=3).fit(_chunked(X))
    np.testing.assert_array_equal(est.labels_, expected.labels_)
    assert est.n_iter_ == expected.n_iter_
    np.testing.assert_array_equal(est.size_floors_, expected.size_floors_)
    rel = 1e-9 if dtype == np.float64 else 1e-6
    assert est.objective_ == pytest.approx(expected.objective_, rel=rel)
    np.testing.assert_allclose(est.coef_, expected.coef_, rtol=rel, atol=rel)
    np.testing.assert_allclose(est.intercept_, expected.intercept_, atol=10 * rel)
    if dtype == np.float64:
        assert est.n_constraints_ == expected.n_constraints_


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_cpm3c_dask_fit_agrees_with_the_in_memory_order(
    sync_scheduler, monkeypatch, sparse
):
    """Beyond one segment a fit in memory visits its rows in one shuffle,
    the Dask fit segment by segment in rounds: the same SVMs to the
    solver's precision, and on clusters that are not near a tie the same
    labels."""
    import mmc._cpm3c_dual

    monkeypatch.setattr(mmc._cpm3c_dual.DualMulticlassSVM, "segment_rows", None)
    monkeypatch.setattr(mmc._cpm3c_dual.DualMulticlassSVM, "n_rounds", 1)
    X, _ = make_blobs(n_samples=900, centers=3, n_features=6, random_state=4)
    X = sp.csr_matrix(X) if sparse else X
    expected = CPM3C(n_clusters=3, random_state=0).fit(X)
    est = CPM3C(n_clusters=3, random_state=0).fit(_chunked(X, 200))
    assert _agreement(expected.labels_, est.labels_) >= 0.999
    assert est.objective_ == pytest.approx(expected.objective_, rel=1e-2)
    assert est.objective_ != expected.objective_


def test_cpm3c_dask_fit_holds_size_floors(sync_scheduler):
    """Unbalanced clusters: the floors bind and their offsets come from the
    scores of every row, on the driver, as in memory."""
    X, _ = make_blobs([300, 60, 40], centers=[[0, 0], [3, 0], [0, 3]], random_state=1)
    est = CPM3C(n_clusters=3, class_balance=0.1, n_init=2, random_state=0)
    expected = est.fit(X).labels_
    np.testing.assert_array_equal(est.fit(_chunked(X, 90)).labels_, expected)
    assert np.bincount(expected).min() >= (1 - 0.1) * X.shape[0] / 3 - 1


def test_cpm3c_dask_cutting_plane_is_refused(sync_scheduler):
    with pytest.raises(ValueError, match="coordinate-descent"):
        CPM3C(solver="cutting-plane").fit(_chunked(_digits()))


@pytest.mark.parametrize(
    "chunks, expected",
    [
        ((100, 100, 100), (128, 64, 108)),
        ((64, 128, 108), (64, 128, 108)),
        ((10, 20, 30), (60,)),
        ((40, 200), (64, 176)),
    ],
)
def test_align_to_segments(chunks, expected):
    from mmc._dask import align_to_segments

    X = da.zeros((sum(chunks), 3), chunks=(chunks, 3))
    aligned = align_to_segments(X, 64)
    assert aligned.chunks[0] == expected
    assert (aligned is X) == (chunks == expected)


def test_bad_dask_input(sync_scheduler):
    X = _digits()
    with pytest.raises(ValueError, match="rows only"):
        CPMMC().fit(da.from_array(X, chunks=(100, 16)))
    with pytest.raises(ValueError, match="kernel='linear'"):
        CPMMC(kernel="rbf").fit(_chunked(X))
    with pytest.raises(ValueError, match="init methods"):
        CPMMC(init=np.arange(X.shape[0]) % 2).fit(_chunked(X))
    bad = X.copy()
    bad[5, 3] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        CPMMC().fit(_chunked(bad))
    with pytest.raises(ValueError, match="magnitude"):
        CPMMC().fit(_chunked(X * 1e120))
    with pytest.raises(ValueError, match="features"):
        CPMMC(random_state=0).fit(X).predict(_chunked(X[:, :10]))
    with pytest.raises(ValueError, match="real numbers"):
        CPMMC().fit(_chunked(X.astype(np.complex128)))
    with pytest.raises(ValueError, match="unknown chunk sizes"):
        dX = _chunked(X)
        CPMMC().fit(dX[dX[:, 10] > 0.5])


@pytest.mark.parametrize("Estimator", DASK_ESTIMATORS)
def test_dask_data_far_from_the_origin_are_refused(Estimator, sync_scheduler):
    # In memory such data are centred first (mmc._rows.origin_shift); the
    # blocks are not, and the fit would lose the clusters to rounding (or
    # raise QPError): a clear error that says what to do.
    X = _digits()
    with pytest.raises(ValueError, match="far from the origin"):
        Estimator(random_state=0).fit(_chunked(X + 1e9))
    Estimator(random_state=0).fit(_chunked(X + 10.0))
    in_memory = Estimator(random_state=0).fit(X + 1e9)
    np.testing.assert_array_equal(
        in_memory.labels_, Estimator(random_state=0).fit(X).labels_
    )


@pytest.mark.parametrize("dtype", [">f8", ">f4", "f2", "g", "i4", "?"])
def test_other_real_dtypes_are_fitted_as_float64(sync_scheduler, dtype):
    """As scikit-learn converts them in memory: floats of the other byte
    order (HDF5 and FITS files hold them), float16, long double, integers
    and booleans become float64 (only native float32 stays float32)."""
    X = _digits() * 16 - 4 if dtype in ("i4", "?") else _digits()
    X = X > 0 if dtype == "?" else X
    given = CPMMC(random_state=0).fit(_chunked(X.astype(dtype)))
    as_float64 = CPMMC(random_state=0).fit(_chunked(X.astype(dtype).astype(np.float64)))
    np.testing.assert_array_equal(given.labels_, as_float64.labels_)
    np.testing.assert_array_equal(given.coef_, as_float64.coef_)


def test_small_dense_blocks_are_merged(sync_scheduler, monkeypatch):
    import mmc._dask
    from mmc._dask import RowBlocks

    X = _digits()  # 357 x 64
    monkeypatch.setattr(mmc._dask, "MIN_BLOCK_VALUES", 100 * 64)
    # 36 blocks of 10 rows become blocks of about 100 rows; the fit is the
    # fit of those blocks.
    merged = RowBlocks(_chunked(X, 10))
    assert merged.sizes == (100, 100, 100, 57)
    np.testing.assert_array_equal(
        CPMMC(random_state=0).fit(_chunked(X, 10)).labels_,
        CPMMC(random_state=0).fit(da.from_array(X, chunks=(merged.sizes, 64))).labels_,
    )
    # Blocks of the size or larger, and sparse blocks, are kept.
    assert RowBlocks(_chunked(X, 100)).sizes == (100, 100, 100, 57)
    assert RowBlocks(_chunked(X, 150)).sizes == (150, 150, 57)
    sparse = _chunked(X, 10).map_blocks(sp.csr_matrix, dtype=X.dtype)
    assert len(RowBlocks(sparse).sizes) == 36


@pytest.mark.parametrize("Estimator", [CPMMC, MultivariateMMC, CPM3C])
def test_n_jobs_sets_the_restarts_at_a_time_on_dask(
    sync_scheduler, monkeypatch, Estimator
):
    import mmc._cutting_plane

    threads = []
    best_of_restarts = mmc._cutting_plane.best_of_restarts

    def recording(run, starts, n_jobs, **kwargs):
        threads.append(n_jobs)
        return best_of_restarts(run, starts, n_jobs, **kwargs)

    monkeypatch.setattr(mmc._cutting_plane, "best_of_restarts", recording)
    dX = _chunked(_digits())
    together = Estimator(random_state=0).fit(dX)
    one_at_a_time = Estimator(random_state=0, n_jobs=1).fit(dX)
    # All restarts together (CPM3C's "auto" makes 4 with two clusters).
    assert threads == [4 if Estimator is CPM3C else Estimator().n_init, 1]
    np.testing.assert_array_equal(one_at_a_time.labels_, together.labels_)


def test_chunks_of_other_kinds(sync_scheduler):
    X = _digits()
    dX = _chunked(X)
    # Masked chunks: the kernels would ignore the mask.
    with pytest.raises(TypeError, match="NumPy arrays or SciPy sparse"):
        CPMMC().fit(da.ma.masked_greater(dX, 0.9))
    # COO chunks: Dask makes their meta a NumPy array, and the driver would
    # sum the blocks' compact sparse results as dense ones.
    coo = dX.map_blocks(sp.coo_matrix, dtype=X.dtype)
    assert isinstance(coo._meta, np.ndarray)
    with pytest.raises(TypeError, match="meta"):
        CPMMC().fit(coo)
    # CSC chunks keep a sparse meta and fit as CSR does.
    csc = dX.map_blocks(sp.csc_matrix, dtype=X.dtype)
    csr = dX.map_blocks(sp.csr_matrix, dtype=X.dtype)
    np.testing.assert_array_equal(
        CPMMC(random_state=0).fit(csc).labels_, CPMMC(random_state=0).fit(csr).labels_
    )


def test_missing_dask_raises_import_error_naming_the_extra(monkeypatch):
    X = _chunked(_digits())
    monkeypatch.setitem(sys.modules, "dask", None)
    with pytest.raises(ImportError, match=r"mmc\[dask\]"):
        CPMMC().fit(X)


def test_worker_lost_mid_fit_completes_or_raises(client):
    """A worker restarted in the middle of a fit loses the per-sample state
    it held: the fit raises a clear error (or completes), and never hangs."""
    import mmc._dask as mmc_dask

    X = _chunked(_blobs(), 60)
    original = mmc_dask.RowBlocks.step
    calls = []

    def step(self, *args, **kwargs):
        calls.append(None)
        if len(calls) == 3:
            worker = sorted(client.scheduler_info()["workers"])[0]
            client.restart_workers([worker], timeout=TIMEOUT)
        return original(self, *args, **kwargs)

    outcome = {}

    def fit():
        try:
            outcome["estimator"] = CPMMC(n_init=1, random_state=0).fit(X)
        except Exception as exc:  # reported below
            outcome["error"] = exc

    mmc_dask.RowBlocks.step = step
    try:
        thread = threading.Thread(target=fit, daemon=True)
        thread.start()
        thread.join(TIMEOUT)
    finally:
        mmc_dask.RowBlocks.step = original
    assert not thread.is_alive(), "the fit hung after a worker restart"
    assert len(calls) >= 3
    if "error" in outcome:
        assert isinstance(outcome["error"], RuntimeError)
        assert "worker" in str(outcome["error"])
    else:
        expected = CPMMC(n_init=1, random_state=0).fit(_blobs())
        assert _agreement(expected.labels_, outcome["estimator"].labels_) >= 0.999
    client.wait_for_workers(2, timeout=TIMEOUT)


def test_worker_lost_while_scattering_states_is_a_clear_error(client, monkeypatch):
    """A worker lost while the per-block states are scattered to the workers
    (measured: a worker over its memory limit, bench/dask/tight_workers.md)
    is the clear error of a lost worker, not distributed's CommClosedError."""
    from distributed.comm.core import CommClosedError

    from mmc._dask import DaskWorkerLost

    def scatter(*args, **kwargs):
        raise CommClosedError("in <TCP (closed) ConnectionPool.scatter>")

    monkeypatch.setattr(client, "scatter", scatter)
    with pytest.raises(DaskWorkerLost, match="worker"):
        CPMMC(n_init=1, random_state=0).fit(_chunked(_blobs(), 60))


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("shape", [(7, 3), (500, 3), (2000, 2), (300, 1)])
def test_right_singular_vectors_match_numpy_svd_signs_included(seed, shape):
    from mmc._dask_starts import _right_singular_vectors

    rng = np.random.default_rng(seed)
    Y = rng.standard_normal(shape) * rng.uniform(0.1, 10, shape[1])
    Y += rng.standard_normal(shape[1])  # not centred
    expected = np.linalg.svd(Y, full_matrices=False)[2]
    got = _right_singular_vectors(Y.T @ Y, Y[: shape[1]])
    np.testing.assert_allclose(got, expected, atol=1e-8)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_block_products_match_numpy(dtype, sparse):
    from mmc._dask import prepare_block, row_products, weighted_row_sums

    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 9)).astype(dtype)
    X[rng.random(X.shape) < 0.5] = 0
    block = prepare_block(sp.csr_matrix(X) if sparse else X, np.dtype(dtype), sparse)
    Q = rng.standard_normal((9, 3))
    W = rng.standard_normal((40, 2))
    X64 = X.astype(np.float64)
    np.testing.assert_allclose(row_products(block, Q), X64 @ Q, rtol=1e-10)
    np.testing.assert_allclose(weighted_row_sums(W, block), W.T @ X64, rtol=1e-10)
    some = np.array([3, 0, 17, 39], dtype=np.int32)
    np.testing.assert_allclose(
        weighted_row_sums(W[:4], block, some), W[:4].T @ X64[some], rtol=1e-10
    )


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_kmeans_start_on_blocks_is_the_in_memory_start(sync_scheduler, sparse, dtype):
    from mmc._dask import RowBlocks
    from mmc._dask_starts import initial_signs as blocked_signs
    from mmc._starts import initial_signs

    X = (_digits((1, 7, 9)) * 16.0 / 15.0).astype(dtype)  # ties, not dyadic
    X = sp.csr_matrix(X) if sparse else X
    expected = initial_signs(X, "kmeans", np.random.RandomState(5), None)
    blocks = RowBlocks(_chunked(X, 64))
    states, n_positive = blocked_signs(blocks, "kmeans", np.random.RandomState(5))
    np.testing.assert_array_equal(blocks.gather(states), expected)
    assert n_positive == np.count_nonzero(expected > 0)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_kmeans_runs_sharing_passes_are_the_in_memory_runs(
    sync_scheduler, sparse, dtype
):
    # Ten runs whose Lloyd steps share the passes over the blocks, each
    # ending after its own number of steps: the centres of the in-memory
    # runs, and the same best.
    from mmc._dask import RowBlocks
    from mmc._dask_starts import best_kmeans_centres as blocked_best
    from mmc._kmeans import best_kmeans_centres

    X = (_digits((0, 3, 5, 8)) * 16.0 / 15.0).astype(dtype)
    X = sp.csr_matrix(X) if sparse else X
    expected = best_kmeans_centres(X, 4, np.random.RandomState(2), 10)
    got = blocked_best(RowBlocks(_chunked(X, 100)), 4, np.random.RandomState(2), 10)
    if dtype == np.float32:
        np.testing.assert_array_equal(got, expected)
    else:
        # Sums of float64 rows by blocks round otherwise in the last bits.
        np.testing.assert_allclose(got, expected, rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("rows", [13, 100])
def test_kmeans_seedings_sharing_passes_are_the_in_memory_seedings(
    monkeypatch, sync_scheduler, sparse, rows
):
    # Six seedings drawn one after the other and computed in the same passes
    # (blocks of 13 rows: the draws fall in many blocks) choose the rows the
    # in-memory seeding chooses, in three computes a centre after the first
    # whatever the number of runs.
    import mmc._dask
    import mmc._dask_starts as starts
    from mmc._dask import RowBlocks
    from mmc._kmeans import seeding_draws, stable_kmeans

    X = (_digits((0, 3, 5, 8)) * 16.0 / 15.0).astype(np.float32)  # ties
    X = sp.csr_matrix(X) if sparse else X
    blocks = RowBlocks(_chunked(X, rows))
    if sparse:  # with empty blocks (CSR chunks are kept as given)
        sizes = (0, rows, 0) + (rows,) * ((X.shape[0] - rows) // rows)
        sizes += (X.shape[0] - sum(sizes),)
        blocks = RowBlocks(da.from_array(X, chunks=(sizes, -1), asarray=False))
        assert 0 in blocks.sizes
    stats = starts._norm_summary(blocks)
    n_computes = []
    compute = mmc._dask.compute

    def counted(*args):
        n_computes[-1] += 1
        return compute(*args)

    monkeypatch.setattr(mmc._dask, "compute", counted)
    monkeypatch.setattr(starts, "compute", counted)
    for n_runs in (1, 6):
        rng = np.random.RandomState(4)
        draws = [seeding_draws(rng, X.shape[0], 4) for _ in range(n_runs)]
        n_computes.append(0)
        together = starts._seeded_runs(blocks, 4, draws, *stats)
        rng = np.random.RandomState(4)
        for centres in together:
            np.testing.assert_array_equal(centres, stable_kmeans(X, 4, rng, 0))
    assert n_computes == [1 + 3 * 3, 1 + 3 * 3]


@pytest.mark.parametrize("Estimator", [CPMMC, CPM3C, MultivariateMMC])
def test_fit_on_csr_chunks_with_an_empty_chunk(sync_scheduler, Estimator):
    # CSR chunks are kept as given, an empty one included: every pass (the
    # k-means seeding's cumulative sums among them) takes it in its stride.
    X = sp.csr_matrix(_digits((1, 7)))
    sizes = (100, 0, X.shape[0] - 100)
    chunked = da.from_array(X, chunks=(sizes, -1), asarray=False)
    on_dask = Estimator(random_state=0).fit(chunked)
    in_memory = Estimator(random_state=0).fit(X)
    np.testing.assert_array_equal(on_dask.labels_, in_memory.labels_)


def test_kmeans_runs_keep_norms_and_bounds_between_passes(monkeypatch, sync_scheduler):
    # The rows' norms are computed once a block for the seeding and the
    # Lloyd steps together (not at every pass), and every Lloyd pass but a
    # run's last compares rows with Hamerly's bounds, as in memory.
    import mmc._dask_starts as starts
    from mmc._dask import RowBlocks

    blocks = RowBlocks(_chunked(_digits((0, 3, 5, 8)) * 16.0 / 15.0, 100))
    scaled, bounded = [], []
    rounding_scale, nearest_centres = starts.rounding_scale, starts._nearest_centres

    def counted_scale(X):
        scaled.append(X.shape[0])
        return rounding_scale(X)

    def recorded_nearest(*args, bounds=None):
        bounded.append(bounds is not None)
        return nearest_centres(*args, bounds=bounds)

    monkeypatch.setattr(starts, "rounding_scale", counted_scale)
    monkeypatch.setattr(starts, "_nearest_centres", recorded_nearest)
    starts.best_kmeans_centres(blocks, 4, np.random.RandomState(0), 3)
    # Once a block, by _norm_summary; the seeding and the Lloyd steps start
    # from its states.
    assert len(scaled) == blocks.n_blocks
    n_final = 3 * blocks.n_blocks  # one pass a run compares every row
    assert bounded.count(False) == n_final and len(bounded) > 2 * n_final


@pytest.mark.parametrize("max_iter", [300, 2])
def test_kmeans_runs_sharing_passes_step_as_each_run_alone(
    monkeypatch, sync_scheduler, max_iter
):
    # Each run of the shared passes makes the steps it makes alone, also
    # when it stops at the largest number of steps (one more pass for the
    # inertia), and leaves the passes when it ends.
    import mmc._dask_starts as starts
    from mmc._dask import RowBlocks

    monkeypatch.setattr(starts, "_KMEANS_MAX_ITER", max_iter)
    blocks = RowBlocks(_chunked(_digits((0, 3, 5, 8)) * 16.0 / 15.0, 100))
    *_, rel = starts._norm_summary(blocks)
    seeded = [
        starts.kmeans_plusplus_centres(blocks, 4, np.random.RandomState(s))
        for s in range(6)
    ]
    alone = [c.copy() for c in seeded]
    alone_inertias = [starts._lloyd_runs(blocks, [c], rel)[0] for c in alone]
    passes = []
    step = blocks.step
    monkeypatch.setattr(blocks, "step", lambda *a: passes.append(a[2]) or step(*a))
    together = [c.copy() for c in seeded]
    assert starts._lloyd_runs(blocks, together, rel) == alone_inertias
    for a, b in zip(together, alone):
        np.testing.assert_array_equal(a, b)
    # Fewer passes than the runs alone, and the runs left as they ended.
    active = [sum(c is not None for c in stepping) for stepping in passes]
    assert active[0] == 6 and active == sorted(active, reverse=True)
    if max_iter == 2:
        assert len(passes) == 3
