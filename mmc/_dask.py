"""Fits on Dask arrays: passes over blocks of rows, summed on the driver.

The cutting-plane estimators spend their time in passes over the samples
(decision values, the most violated constraint, the statistics of the
samples whose sign flipped), each followed by small problems on the
driver. On a Dask array chunked by rows, :class:`RowBlocks` runs each pass
as one task per block, calling the same Cython kernels as the in-memory
fit on the block, and the driver sums the per-block results *in the order
of the blocks*, so that a fit gives the same result on any number of
workers and with any scheduler. What the passes keep per sample (signs,
decision values, constraint memberships) stays beside its block: each pass
returns the new per-block state, which is persisted (on the workers with a
``dask.distributed`` client, in memory with the local schedulers), and only
the small per-block results are brought to the driver: one computation per
pass. The data are never gathered; ``class_balance="auto"`` fetches a
sample of at most 2000 rows for its k-means (:func:`mmc._dask_starts.take_rows`).

Dask is imported only when a Dask array is given; without it (the
``mmc[dask]`` extra) such an input raises ImportError.
"""

import numpy as np
import scipy.sparse as sp

from mmc._core import _common, _linear
from mmc._dask_api import import_dask
from mmc._rows import _canonical_csr, _with_int32_indices, check_largest_magnitude, rows


def _row_chunked(X, what):
    """X checked to be 2-D, chunked by rows only, with known chunk sizes."""
    if X.ndim != 2:
        raise ValueError(f"Expected a 2-D Dask array for {what}; got {X.ndim}-D.")
    if any(np.isnan(size) for size in X.chunks[0]):
        raise ValueError(
            "The Dask array X has unknown chunk sizes; call "
            "X.compute_chunk_sizes() first."
        )
    if len(X.chunks[1]) != 1:
        raise ValueError(
            f"The Dask array X must be chunked by rows only (one chunk across "
            f"the {X.shape[1]} features); got {len(X.chunks[1])} column chunks. "
            "Use X.rechunk({1: -1})."
        )
    meta = getattr(X, "_meta", None)
    if not (_plain_array(meta) or sp.issparse(meta)):
        raise TypeError(
            "The chunks of the Dask array X must be NumPy arrays or SciPy "
            f"sparse matrices; got {_type_name(meta)}. Fill masked values "
            "first (dask.array.ma.filled(X, value)); convert sparse chunks of "
            "other libraries to SciPy CSR (X.map_blocks(lambda block: "
            "block.tocsr()) for pydata sparse)."
        )
    return X


def _plain_array(value):
    """A NumPy array with no mask (a mask the kernels would ignore)."""
    return isinstance(value, np.ndarray) and not isinstance(value, np.ma.MaskedArray)


def _type_name(value):
    return f"{type(value).__module__}.{type(value).__qualname__}"


def _float_dtype(dtype):
    """The dtype the blocks are fitted in: as scikit-learn's validation
    converts arrays in memory, so that both fits see the same values:
    float32 and float64 in the machine's byte order as they are, any other
    real numbers (booleans, integers, float16, long double, floats of the
    other byte order, as HDF5 and FITS files often hold them) as float64."""
    dtype = np.dtype(dtype)
    if dtype in (np.float32, np.float64):
        return dtype
    if dtype.kind in "biuf":
        return np.dtype(np.float64)
    raise ValueError(f"X must hold real numbers; got a Dask array of dtype {dtype}.")


def prepare_block(block, dtype, sparse):
    """A block as the kernels read it: C-contiguous or canonical int32 CSR.

    ``sparse`` is what the Dask array's meta promised, on which the driver
    chose how to sum the blocks' results; a block of another kind (Dask
    makes the meta of COO chunks a NumPy array, for one) is a TypeError
    rather than a wrong sum.
    """
    if sp.issparse(block) != sparse or not (sparse or _plain_array(block)):
        expected = "SciPy sparse matrices" if sparse else "NumPy arrays"
        raise TypeError(
            f"A chunk of the Dask array X is a {_type_name(block)}, but its "
            f"meta (X._meta) says the chunks are {expected}. Make the chunks "
            "CSR matrices with a CSR meta (X.map_blocks(lambda block: "
            "scipy.sparse.csr_matrix(block), meta=scipy.sparse.csr_matrix((0, "
            "0), dtype=X.dtype))) or NumPy arrays."
        )
    if sparse:
        block = sp.csr_matrix(block, dtype=dtype)
        return _canonical_csr(_with_int32_indices(block))
    return np.ascontiguousarray(block, dtype=dtype)


def value_range(block):
    """Whether a block's values are finite, and their largest magnitude."""
    values = block.data if sp.issparse(block) else block.reshape(-1)
    if values.size == 0:
        return True, 0.0
    largest, smallest = float(values.max()), float(values.min())
    finite = bool(np.isfinite(largest) and np.isfinite(smallest))
    return finite, max(abs(largest), abs(smallest))


def check_values(ranges, dtype):
    """Refuse NaN, infinity and values of extreme magnitude, as
    ``_validate_X`` does, from the :func:`value_range` of each block."""
    if not all(finite for finite, _ in ranges):
        raise ValueError("Input X contains NaN or infinity.")
    check_largest_magnitude(max(r[1] for r in ranges), dtype)


# Products of blocks for the passes, without BLAS: BLAS may round a product
# differently in another process (measured here: three processes, three
# results for the same matrices), and the per-block results must not depend
# on the worker that computed them.


def row_products(block, Q):
    """``block @ Q`` in float64, a column at a time by the rows kernel."""
    out = np.empty((block.shape[0], Q.shape[1]))
    column = np.empty(block.shape[0])
    for j in range(Q.shape[1]):
        coef = np.ascontiguousarray(Q[:, j], dtype=np.float64)
        _linear.decision_values(*rows(block), coef, 0.0, column)
        out[:, j] = column
    return out


def weighted_row_sums(W, block, selected=None):
    """``W.T @ block[selected]`` in float64 (the selected rows of block, all
    by default, summed with the weights in each column of W), in the order
    of SciPy's sparse product but without a float64 copy of the block or of
    its selected rows: a float32 block of a worker's memory is not doubled
    for the pass."""
    if selected is None:
        selected = np.arange(block.shape[0], dtype=np.int32)
    out = np.zeros((W.shape[1], block.shape[1]))
    _common.weighted_row_sums(
        *rows(block),
        np.asarray(selected, dtype=np.int32),
        np.ascontiguousarray(W, dtype=np.float64),
        out,
    )
    return out


def align_to_segments(X, segment_rows):
    """The Dask array X with its row chunks' ends moved to the nearest
    multiple of ``segment_rows`` (or the last row): blocks of whole
    segments. X itself when they are there already."""
    n_samples = X.shape[0]
    ends = np.cumsum(X.chunks[0])
    aligned = np.minimum(np.round(ends / segment_rows) * segment_rows, n_samples)
    aligned = np.unique(np.append(aligned[aligned > 0], n_samples)).astype(np.int64)
    if np.array_equal(aligned, ends):
        return X
    return X.rechunk({0: tuple(np.diff(np.concatenate([[0], aligned])).tolist())})


# Values (rows x features) of the smallest dense block a pass should visit
# in one task. Every pass runs a task per block, and the scheduler's cost
# per task (about a millisecond) outweighs the work on small blocks: with
# the threaded scheduler, CPMMC on 200,000 x 20 float32 rows took 0.33 s in
# blocks of 50,000 rows, 0.96 s in blocks of 5,000 and 4.68 s in blocks of
# 1,000, and 0.31-0.38 s joined (0.14 s in memory;
# bench/dask/small_blocks.md). 2**21 values are 8 MB of float32.
MIN_BLOCK_VALUES = 2**21


def min_block_rows(n_features):
    """Rows of the smallest block :class:`RowBlocks` keeps of a dense Dask
    array of ``n_features`` columns (:func:`merge_small_blocks`). Sparse
    blocks are kept: their size is in their non-zeros, unknown before they
    are read."""
    return max(1, MIN_BLOCK_VALUES // max(1, n_features))


def merge_small_blocks(X, min_rows):
    """The Dask array X with its chunks joined, in order, into blocks of at
    least ``min_rows`` rows (the last may hold fewer): a chunk of that many
    rows stays alone unless the chunks before it are short of them. Chunks
    are joined whole, never split, so that a block is read from the chunks
    it holds alone. X itself when no chunk is joined."""
    sizes, run = [], 0
    for size in X.chunks[0]:
        run += size
        if run >= min_rows:
            sizes.append(run)
            run = 0
    if run:
        sizes.append(run)
    if len(sizes) == X.numblocks[0]:
        return X
    return X.rechunk({0: tuple(sizes)})


class RowBlocks:
    """A validated Dask array seen as its blocks of rows.

    Parameters
    ----------
    X : dask.array.Array of shape (n_samples, n_features)
        Chunked by rows only, with NumPy or SciPy sparse chunks.

    segment_rows : int, default=None
        If given, the blocks are made of whole segments of this many rows
        (:func:`align_to_segments`); otherwise consecutive dense blocks of
        fewer than :func:`min_block_rows` rows are joined
        (:func:`merge_small_blocks`).

    Attributes
    ----------
    shape, dtype : the shape and (float32 or float64) dtype of the data.
    sparse : whether the blocks are CSR matrices.
    sizes : the number of rows of each block; ``starts`` their offsets.
    """

    def __init__(self, X, segment_rows=None):
        self.dask = import_dask()
        X = _row_chunked(X, "fit")
        self.sparse = sp.issparse(getattr(X, "_meta", None))
        if segment_rows is not None:
            X = align_to_segments(X, segment_rows)
        elif not self.sparse:
            X = merge_small_blocks(X, min_block_rows(X.shape[1]))
        self.segment_rows = segment_rows
        self.shape = tuple(int(s) for s in X.shape)
        self.dtype = _float_dtype(X.dtype)
        self.sizes = tuple(int(s) for s in X.chunks[0])
        self.starts = np.concatenate([[0], np.cumsum(self.sizes)]).astype(np.int64)
        self.blocks = list(X.to_delayed().ravel())

    @property
    def n_blocks(self):
        return len(self.blocks)

    def _tasks(self, function, states, shared, blocks):
        dask = self.dask
        shared = dask.delayed(shared, traverse=False)
        if states is None:
            states = [None] * self.n_blocks
        # A pass that needs only the states does not read the data.
        data = self.blocks if blocks else [None] * self.n_blocks
        call = dask.delayed(_on_block, pure=False)
        return [
            call(function, b, self.dtype, self.sparse, s, shared)
            for b, s in zip(data, states)
        ]

    def map(self, function, *shared, states=None, blocks=True):
        """``function(block, state, shared)[1]`` of every block, in order.

        ``function`` returns ``(new_state, result)``; the new states are
        dropped. One computation. With ``blocks=False`` the function gets
        None instead of the block.
        """
        tasks = self._tasks(function, states, shared, blocks)
        return list(compute(self.dask, [t[1] for t in tasks]))

    def step(self, function, states, *shared, blocks=True):
        """Map ``function`` over the blocks and their states.

        Returns ``(new_states, results)``: the new per-block states,
        persisted where they were computed, and the per-block results, in
        the order of the blocks. One computation of the blocks.
        """
        tasks = self._tasks(function, states, shared, blocks)
        (tasks,) = _guarded(self.dask.persist, tasks)
        results = compute(self.dask, [t[1] for t in tasks])
        return [t[0] for t in tasks], list(results)

    def chain(self, function, states, carry, *shared, n_rounds=1):
        """Run ``function`` on the blocks one after the other, in order.

        ``function(block, state, carry, shared, round_)`` returns
        ``(new_state, new_carry, result)``; each block gets the carry of
        the one before it (the first, ``carry``): a pass that must see the
        rows in their order, such as an epoch of coordinate descent. With
        ``n_rounds``, the blocks are visited that many times in turn
        (``round_`` from 0), each block getting its state of the round
        before. Returns ``(new_states, carry, results)`` as :meth:`step`
        does, the last block's carry on the driver and the results of every
        round, round after round. One computation; only the states of the
        last round are kept.
        """
        dask = self.dask
        shared = dask.delayed(shared, traverse=False)
        call = dask.delayed(_on_block_chained, pure=False, nout=3)
        results = []
        for round_ in range(n_rounds):
            new_states = []
            for block, state in zip(self.blocks, states):
                task = call(
                    function,
                    block,
                    self.dtype,
                    self.sparse,
                    state,
                    carry,
                    shared,
                    round_,
                )
                new_states.append(task[0])
                carry = task[1]
                results.append(task[2])
            states = new_states
        states, carry, results = _guarded(dask.persist, states, carry, results)
        carry, results = compute(dask, (carry, results))
        return states, carry, list(results)

    def states(self, array):
        """Per-block states from one driver array (sliced by block).

        With a distributed client they are scattered to the workers: in the
        graph they would make one large message (and a warning) per pass.
        """
        parts = [array[a:b].copy() for a, b in zip(self.starts[:-1], self.starts[1:])]
        client = _distributed_client(self.dask)
        if client is not None:
            # Unique keys: a key released by an earlier fit may still be
            # on its way out of the scheduler.
            return _guarded(lambda: client.scatter(parts, hash=False))
        return [self.dask.delayed(part, pure=True) for part in parts]

    def gather(self, states):
        """The per-block states concatenated on the driver."""
        return np.concatenate(compute(self.dask, states))


def _distributed_client(dask):
    """The distributed client that will run the computations, or None."""
    from dask.base import get_scheduler

    client = getattr(get_scheduler(), "__self__", None)
    return client if type(client).__name__ == "Client" else None


def _on_block_chained(function, block, dtype, sparse, state, carry, shared, round_):
    """``function`` of :meth:`RowBlocks.chain` on a block made ready."""
    return function(prepare_block(block, dtype, sparse), state, carry, shared, round_)


def _on_block(function, block, dtype, sparse, state, shared):
    """``function`` on a block made ready for the kernels (one task a block)."""
    if block is not None:
        block = prepare_block(block, dtype, sparse)
    return function(block, state, shared)


class DaskWorkerLost(RuntimeError):
    """A Dask computation of the fit failed because a worker was lost."""


def _guarded(function, *args):
    """Run a Dask computation; a lost worker becomes a clear RuntimeError."""
    try:
        return function(*args)
    except Exception as exc:
        # (CommClosedError: a worker's connection closed as it was lost,
        # during a scatter for one.)
        lost = type(exc).__name__ in (
            "KilledWorker",
            "CancelledError",
            "FutureCancelledError",
            "FutureLostError",
            "CommClosedError",
        )
        if not lost:
            raise
        raise DaskWorkerLost(
            "A Dask worker holding part of the fit's state was lost (or the "
            f"computation was cancelled): {type(exc).__name__}: {exc}. The "
            "per-sample state of a cutting-plane fit lives on the workers and "
            "is not recomputed; fit again. A worker stopped by its memory "
            "limit needs smaller chunks of X or more memory."
        ) from exc


def compute(dask, items):
    (values,) = _guarded(dask.compute, items)
    return values


def _decision_block(block, _state, shared):
    coef, intercept = shared
    out = np.empty(block.shape[0])
    _linear.decision_values(*rows(block), coef, intercept, out)
    return None, out


def decision_values_on_blocks(blocks, coef, intercept):
    """``X @ coef + intercept`` of every row, on the driver (8 bytes a row)."""
    return np.concatenate(blocks.map(_decision_block, coef, intercept))
