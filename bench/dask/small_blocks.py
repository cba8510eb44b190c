"""CPMMC on a Dask array in blocks of various sizes (the merge of small
dense blocks, ``mmc._dask.MIN_BLOCK_VALUES``).

Two Gaussian clusters of 100,000 rows each in 20 float32 features, fitted
in memory and as a Dask array with the threaded scheduler in blocks of
50,000, 5,000 and 1,000 rows, once as the fit takes them (consecutive
chunks joined into blocks of at least 2**21 values) and once with every
block kept (``MIN_BLOCK_VALUES = 1``, the behaviour before the join). Times
are the medians of three fits (``mmc.bench._timing.time_fit``); agreement
is the share of labels equal to the in-memory fit's.

Run from the repository root with mmc installed::

    python -I bench/dask/small_blocks.py
"""

import dask
import dask.array as da
import numpy as np

import mmc._dask
from mmc import CPMMC
from mmc.bench._timing import time_fit

N_SAMPLES = 200_000
N_FEATURES = 20
REPEAT = 3


def main():
    rng = np.random.RandomState(0)
    half = N_SAMPLES // 2
    X = np.vstack(
        [rng.randn(half, N_FEATURES) - 1, rng.randn(half, N_FEATURES) + 1]
    ).astype(np.float32)
    seconds, fitted = time_fit(lambda: CPMMC(random_state=0), X, REPEAT)
    reference = fitted.labels_
    print(f"In memory: {seconds:.2f} s\n")
    print(
        "| rows per block | blocks | blocks fitted | kept (s) | merged (s) "
        "| agreement |"
    )
    print("|---:|---:|---:|---:|---:|---:|")
    default = mmc._dask.MIN_BLOCK_VALUES
    with dask.config.set(scheduler="threads"):
        for rows in (50_000, 5_000, 1_000):
            dX = da.from_array(X, chunks=(rows, N_FEATURES))
            mmc._dask.MIN_BLOCK_VALUES = 1
            kept, _ = time_fit(lambda: CPMMC(random_state=0), dX, REPEAT)
            mmc._dask.MIN_BLOCK_VALUES = default
            merged, fitted = time_fit(lambda: CPMMC(random_state=0), dX, REPEAT)
            labels = fitted.labels_
            fitted = mmc._dask.RowBlocks(dX).n_blocks
            agreement = np.mean(labels == reference)
            print(
                f"| {rows:,} | {dX.numblocks[0]} | {fitted} | {kept:.2f} | "
                f"{merged:.2f} | {agreement:.4f} |"
            )


if __name__ == "__main__":
    main()
