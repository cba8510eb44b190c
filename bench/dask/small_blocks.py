"""CPMMC on a Dask array in blocks of various sizes (the merge of small
dense blocks, ``mmc._dask.MIN_BLOCK_VALUES``).

Two Gaussian clusters of 100,000 rows each in 20 float32 features, fitted
in memory and as a Dask array with the threaded scheduler in blocks of
50,000, 5,000 and 1,000 rows, once as the fit takes them (blocks of fewer
than 2**21 values merged) and once with every block kept
(``MIN_BLOCK_VALUES = 1``, the behaviour before the merge). Times are the
best of three fits; agreement is the share of labels equal to the
in-memory fit's.

Run from the repository root with mmc installed::

    python -I bench/dask/small_blocks.py
"""

import time

import dask
import dask.array as da
import numpy as np

import mmc._dask
from mmc import CPMMC

N_SAMPLES = 200_000
N_FEATURES = 20


def best_time(fit, repeats=3):
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fit()
        times.append(time.perf_counter() - start)
    return min(times), result


def main():
    rng = np.random.RandomState(0)
    half = N_SAMPLES // 2
    X = np.vstack(
        [rng.randn(half, N_FEATURES) - 1, rng.randn(half, N_FEATURES) + 1]
    ).astype(np.float32)
    seconds, reference = best_time(lambda: CPMMC(random_state=0).fit(X).labels_)
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
            kept, _ = best_time(lambda: CPMMC(random_state=0).fit(dX).labels_)
            mmc._dask.MIN_BLOCK_VALUES = default
            merged, labels = best_time(lambda: CPMMC(random_state=0).fit(dX).labels_)
            fitted = mmc._dask.RowBlocks(dX).n_blocks
            agreement = np.mean(labels == reference)
            print(
                f"| {rows:,} | {dX.numblocks[0]} | {fitted} | {kept:.2f} | "
                f"{merged:.2f} | {agreement:.4f} |"
            )


if __name__ == "__main__":
    main()
