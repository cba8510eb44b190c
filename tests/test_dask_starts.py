"""The Dask passes' block kernels and the k-means start on row blocks
against their in-memory references (Dask's single-threaded scheduler)."""

import numpy as np
import pytest
import scipy.sparse as sp
from _dask_cluster import chunked, digits_rows

da = pytest.importorskip("dask.array")

pytestmark = pytest.mark.usefixtures("small_blocks")


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

    X = (digits_rows((1, 7, 9)) * 16.0 / 15.0).astype(dtype)  # ties, not dyadic
    X = sp.csr_matrix(X) if sparse else X
    expected = initial_signs(X, "kmeans", np.random.RandomState(5), None)
    blocks = RowBlocks(chunked(X, 64))
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

    X = (digits_rows((0, 3, 5, 8)) * 16.0 / 15.0).astype(dtype)
    X = sp.csr_matrix(X) if sparse else X
    expected = best_kmeans_centres(X, 4, np.random.RandomState(2), 10)
    got = blocked_best(RowBlocks(chunked(X, 100)), 4, np.random.RandomState(2), 10)
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

    X = (digits_rows((0, 3, 5, 8)) * 16.0 / 15.0).astype(np.float32)  # ties
    X = sp.csr_matrix(X) if sparse else X
    blocks = RowBlocks(chunked(X, rows))
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


def test_kmeans_runs_keep_norms_and_bounds_between_passes(monkeypatch, sync_scheduler):
    # The rows' norms are computed once a block for the seeding and the
    # Lloyd steps together (not at every pass), and every Lloyd pass but a
    # run's last compares rows with Hamerly's bounds, as in memory.
    import mmc._dask_starts as starts
    from mmc._dask import RowBlocks

    blocks = RowBlocks(chunked(digits_rows((0, 3, 5, 8)) * 16.0 / 15.0, 100))
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
    blocks = RowBlocks(chunked(digits_rows((0, 3, 5, 8)) * 16.0 / 15.0, 100))
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
