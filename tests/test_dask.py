"""Fits on Dask arrays: agreement with the in-memory fit, on the local
schedulers and on a LocalCluster of two worker processes, errors, and a
worker lost in the middle of a fit."""

import pickle
import sys
import threading

import numpy as np
import pytest
import scipy.sparse as sp
from _dask_cluster import TIMEOUT, chunked, digits_rows, local_client
from sklearn.datasets import load_digits, make_blobs

from mmc import CPM3C, CPMMC, ODMC, EvoMMC, FastEvoMMC, MultivariateMMC
from mmc.metrics import clustering_error

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")
distributed = pytest.importorskip("distributed")

DASK_ESTIMATORS = [CPMMC, MultivariateMMC, CPM3C]

# Blocks of any size kept as they are, so that the small data here make
# several blocks (see test_small_dense_blocks_are_merged).
pytestmark = pytest.mark.usefixtures("small_blocks")


def _agreement(a, b):
    return 1.0 - clustering_error(a, b)


@pytest.fixture(scope="module")
def client():
    """A LocalCluster of two single-threaded worker processes."""
    with local_client() as client:
        yield client


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
    est = CPMMC(n_init=1, random_state=0).fit(chunked(X, rows=700))
    # Sparse rows beyond mmc._balance.SAMPLE_ROWS give no estimate.
    bound = 0.03 if sparse else pytest.approx(0.5 + 0.03, abs=0.05)
    assert expected.class_balance_ == bound
    assert est.class_balance_ == expected.class_balance_
    assert _agreement(expected.labels_, est.labels_) >= 0.999


@pytest.mark.parametrize("Estimator", DASK_ESTIMATORS)
@pytest.mark.parametrize(
    "sparse, n_large",
    [(False, 1800), (True, 1800), (False, 2700)],
    ids=["dense", "csr", "dense-sampled"],
)
def test_graph_start_is_taken_as_in_memory(sync_scheduler, Estimator, sparse, n_large):
    # Standardised 1:9 blobs, which k-means splits and the graph does not:
    # the graph start (mmc/_graph_start.py) sees the rows of the estimate
    # (all 2000, or 2000 drawn from 3000), fetched from the blocks, and
    # starts every row at the nearest of its centres, in one pass.
    X, y = make_blobs([n_large, n_large // 9],
                      centers=[[0.0] * 5, [4.0] + [0.0] * 4],
                      random_state=3)  # fmt: skip
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    X = np.where(np.abs(X) < 0.3, 0.0, X)  # zeros for the CSR matrix
    X = sp.csr_matrix(X) if sparse else X
    expected = Estimator(n_init=1, random_state=0).fit(X)
    est = Estimator(n_init=1, random_state=0).fit(chunked(X, rows=700))
    assert est.graph_start_ == expected.graph_start_
    # (Only CPM3C's coordinate descent takes it: the others bound the mean
    # of the decision values.)
    assert expected.graph_start_ is (Estimator is CPM3C)
    if Estimator is CPM3C:
        assert clustering_error(y, expected.labels_) < 0.05
    assert est.class_balance_ == expected.class_balance_
    assert _agreement(expected.labels_, est.labels_) >= 0.999


def test_stable_class_balance_is_chosen_as_in_memory(sync_scheduler):
    # More rows than mmc._balance.SAMPLE_ROWS: the fits on subsamples see
    # the same sampled rows, fetched from the blocks; standardised 1:9 blobs
    # make "auto" unstable, so that every candidate is fitted.
    X, _ = make_blobs([2700, 300], centers=[[0.0] * 5, [4.0] + [0.0] * 4],
                      random_state=0)  # fmt: skip
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    expected = CPMMC(n_init=1, class_balance="stable", random_state=0).fit(X)
    est = CPMMC(n_init=1, class_balance="stable", random_state=0)
    est.fit(chunked(X, rows=700))
    assert len(expected.balance_stability_) == 3
    assert est.balance_stability_ == expected.balance_stability_
    assert est.class_balance_ == expected.class_balance_
    assert _agreement(expected.labels_, est.labels_) >= 0.999


@pytest.mark.parametrize("Estimator", DASK_ESTIMATORS)
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_cluster_fit_agrees_with_in_memory_fit(client, Estimator, sparse):
    # Small and quick on the cluster; every start on the digits below.
    X = _blobs()
    X = sp.csr_matrix(X) if sparse else X
    expected = Estimator(n_init=2, random_state=0).fit(X)
    est = Estimator(n_init=2, random_state=0).fit(chunked(X))
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
    X = digits_rows((1, 7)).astype(dtype)
    expected = Estimator(init=init, n_init=1, random_state=1).fit(X)
    est = Estimator(init=init, n_init=1, random_state=1).fit(chunked(X, 64))
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
    X = digits_rows((1, 7))
    X = sp.csr_matrix(X) if sparse else X
    params = dict(continuation=True, n_init=3, random_state=1)
    expected = Estimator(**params).fit(X)
    est = Estimator(**params).fit(chunked(X, 64))
    assert _agreement(expected.labels_, est.labels_) >= 0.999
    assert est.objective_ == pytest.approx(expected.objective_, rel=1e-6)
    assert est.n_iter_ == expected.n_iter_


def test_result_does_not_depend_on_the_scheduler(client):
    """Per-block results are summed in the order of the blocks, whichever
    worker computed them: the cluster's fit is the local scheduler's."""
    X = chunked(_blobs(), 50)
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
    X = digits_rows()
    X = sp.csr_matrix(X) if sparse else X
    est = CPMMC(random_state=0).fit(X)
    dX = chunked(X, 70)
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
    est = CPMMC(n_init=1, random_state=0).fit(chunked(X))
    restored = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(restored.labels_, est.labels_)
    np.testing.assert_array_equal(restored.predict(X), est.predict(X))


@pytest.mark.parametrize(
    "Estimator", [ODMC, EvoMMC, FastEvoMMC], ids=lambda e: e.__name__
)
def test_other_estimators_refuse_dask_input(Estimator):
    with pytest.raises(TypeError, match="CPMMC, CPM3C, MultivariateMMC"):
        Estimator().fit(chunked(digits_rows()))


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
    # Every fourth row (179): each segment of 64 rows (two whole, one not)
    # is a compute per round.
    X = (digits.data[mask][::4] / 16.0).astype(dtype)
    X = sp.csr_matrix(X) if sparse else X
    expected = CPM3C(n_clusters=4, init=init, n_init=1, random_state=3).fit(X)
    # Blocks of 100 rows: their ends move to multiples of the segments.
    est = CPM3C(n_clusters=4, init=init, n_init=1, random_state=3).fit(chunked(X))
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
    est = CPM3C(n_clusters=3, random_state=0).fit(chunked(X, 200))
    assert _agreement(expected.labels_, est.labels_) >= 0.999
    assert est.objective_ == pytest.approx(expected.objective_, rel=1e-2)
    assert est.objective_ != expected.objective_


def test_cpm3c_dask_fit_holds_size_floors(sync_scheduler):
    """Unbalanced clusters: the floors bind and their offsets come from the
    scores of every row, on the driver, as in memory."""
    X, _ = make_blobs([300, 60, 40], centers=[[0, 0], [3, 0], [0, 3]], random_state=1)
    est = CPM3C(n_clusters=3, class_balance=0.1, n_init=1, random_state=0)
    expected = est.fit(X).labels_
    np.testing.assert_array_equal(est.fit(chunked(X, 90)).labels_, expected)
    assert np.bincount(expected).min() >= (1 - 0.1) * X.shape[0] / 3 - 1


def test_cpm3c_dask_cutting_plane_is_refused(sync_scheduler):
    with pytest.raises(ValueError, match="coordinate-descent"):
        CPM3C(solver="cutting-plane").fit(chunked(digits_rows()))


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
    X = digits_rows()
    with pytest.raises(ValueError, match="rows only"):
        CPMMC().fit(da.from_array(X, chunks=(100, 16)))
    with pytest.raises(ValueError, match="kernel='linear'"):
        CPMMC(kernel="rbf").fit(chunked(X))
    with pytest.raises(ValueError, match="init methods"):
        CPMMC(init=np.arange(X.shape[0]) % 2).fit(chunked(X))
    bad = X.copy()
    bad[5, 3] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        CPMMC().fit(chunked(bad))
    with pytest.raises(ValueError, match="magnitude"):
        CPMMC().fit(chunked(X * 1e120))
    with pytest.raises(ValueError, match="features"):
        CPMMC(random_state=0).fit(X).predict(chunked(X[:, :10]))
    with pytest.raises(ValueError, match="real numbers"):
        CPMMC().fit(chunked(X.astype(np.complex128)))
    with pytest.raises(ValueError, match="unknown chunk sizes"):
        dX = chunked(X)
        CPMMC().fit(dX[dX[:, 10] > 0.5])


@pytest.mark.parametrize("Estimator", DASK_ESTIMATORS)
def test_dask_data_far_from_the_origin_are_refused(Estimator, sync_scheduler):
    # In memory such data are centred first (mmc._rows.origin_shift); the
    # blocks are not, and the fit would lose the clusters to rounding (or
    # raise QPError): a clear error that says what to do.
    X = digits_rows()[::4]
    with pytest.raises(ValueError, match="far from the origin"):
        Estimator(random_state=0).fit(chunked(X + 1e9))
    Estimator(random_state=0).fit(chunked(X + 10.0))
    in_memory = Estimator(random_state=0).fit(X + 1e9)
    np.testing.assert_array_equal(
        in_memory.labels_, Estimator(random_state=0).fit(X).labels_
    )


@pytest.mark.parametrize("dtype", [">f8", ">f4", "f2", "g", "i4", "?"])
def test_other_real_dtypes_are_fitted_as_float64(sync_scheduler, dtype):
    """As scikit-learn converts them in memory: floats of the other byte
    order (HDF5 and FITS files hold them), float16, long double, integers
    and booleans become float64 (only native float32 stays float32)."""
    X = digits_rows() * 16 - 4 if dtype in ("i4", "?") else digits_rows()
    X = X > 0 if dtype == "?" else X
    given = CPMMC(random_state=0).fit(chunked(X.astype(dtype)))
    as_float64 = CPMMC(random_state=0).fit(chunked(X.astype(dtype).astype(np.float64)))
    np.testing.assert_array_equal(given.labels_, as_float64.labels_)
    np.testing.assert_array_equal(given.coef_, as_float64.coef_)


def test_small_dense_blocks_are_merged(sync_scheduler, monkeypatch):
    import mmc._dask
    from mmc._dask import RowBlocks

    X = digits_rows()  # 357 x 64
    monkeypatch.setattr(mmc._dask, "MIN_BLOCK_VALUES", 100 * 64)
    # 36 blocks of 10 rows become blocks of about 100 rows; the fit is the
    # fit of those blocks.
    merged = RowBlocks(chunked(X, 10))
    assert merged.sizes == (100, 100, 100, 57)
    np.testing.assert_array_equal(
        CPMMC(random_state=0).fit(chunked(X, 10)).labels_,
        CPMMC(random_state=0).fit(da.from_array(X, chunks=(merged.sizes, 64))).labels_,
    )
    # Blocks of the size or larger, and sparse blocks, are kept.
    assert RowBlocks(chunked(X, 100)).sizes == (100, 100, 100, 57)
    assert RowBlocks(chunked(X, 150)).sizes == (150, 150, 57)
    sparse = chunked(X, 10).map_blocks(sp.csr_matrix, dtype=X.dtype)
    assert len(RowBlocks(sparse).sizes) == 36


@pytest.mark.parametrize("Estimator", [CPMMC, MultivariateMMC, CPM3C])
def test_n_jobs_sets_the_restarts_at_a_time_on_dask(
    sync_scheduler, monkeypatch, Estimator, one_fit
):
    import mmc._cutting_plane

    threads = []
    best_of_restarts = mmc._cutting_plane.best_of_restarts

    def recording(run, starts, n_jobs, **kwargs):
        threads.append(n_jobs)
        return best_of_restarts(run, starts, n_jobs, **kwargs)

    monkeypatch.setattr(mmc._cutting_plane, "best_of_restarts", recording)
    dX = chunked(digits_rows()[::4])
    # (class_balance="auto": CPMMC's "stable" fits subsamples in memory first.)
    together = Estimator(class_balance="auto", random_state=0).fit(dX)
    one_at_a_time = Estimator(class_balance="auto", random_state=0, n_jobs=1)
    one_at_a_time.fit(dX)
    # All restarts together (CPM3C's "auto" makes 4 with two clusters).
    assert threads == [4 if Estimator is CPM3C else Estimator().n_init, 1]
    np.testing.assert_array_equal(one_at_a_time.labels_, together.labels_)


def test_chunks_of_other_kinds(sync_scheduler):
    X = digits_rows()
    dX = chunked(X)
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
    X = chunked(digits_rows())
    monkeypatch.setitem(sys.modules, "dask", None)
    with pytest.raises(ImportError, match=r"mmc\[dask\]"):
        CPMMC().fit(X)


def test_worker_lost_mid_fit_completes_or_raises(client):
    """A worker restarted in the middle of a fit loses the per-sample state
    it held: the fit raises a clear error (or completes), and never hangs."""
    import mmc._dask as mmc_dask

    X = chunked(_blobs(), 60)
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
        CPMMC(n_init=1, random_state=0).fit(chunked(_blobs(), 60))


@pytest.mark.parametrize("Estimator", [CPMMC, CPM3C, MultivariateMMC])
def test_fit_on_csr_chunks_with_an_empty_chunk(sync_scheduler, Estimator):
    # CSR chunks are kept as given, an empty one included: every pass (the
    # k-means seeding's cumulative sums among them) takes it in its stride.
    X = sp.csr_matrix(digits_rows((1, 7)))
    sizes = (100, 0, X.shape[0] - 100)
    chunked = da.from_array(X, chunks=(sizes, -1), asarray=False)
    on_dask = Estimator(random_state=0).fit(chunked)
    in_memory = Estimator(random_state=0).fit(X)
    np.testing.assert_array_equal(on_dask.labels_, in_memory.labels_)
