"""Time of the ten k-means runs of CPM3C's ``"kmeans"`` start on Dask.

Run with ``python -I bench/dask/kmeans_start.py [K[,K...] [REPEATS]]`` (needs
mmc[dask]; k = 2 and 10, once, by default) under each build to compare: the
data of ``python -m mmc.bench dask`` (10^6 x 50 float32, two clusters),
persisted on the benchmark's LocalCluster (two single-threaded workers of 1 GB)
in blocks of whole segments, then
``mmc._dask_starts.best_kmeans_centres(blocks, k, RandomState(0), 10)`` for
each k, REPEATS times, and the in-memory ``mmc._kmeans.best_kmeans_centres`` on
the same rows. Prints the times and a digest of the centres (the same centres
give the same digest on every build).
"""

import hashlib
import os
import sys
import time

import numpy as np
from distributed import Client, wait

from mmc._cpm3c_dual import SEGMENT_ROWS
from mmc._dask import RowBlocks, align_to_segments
from mmc._dask_starts import best_kmeans_centres
from mmc._kmeans import best_kmeans_centres as in_memory
from mmc.bench._dask import dask_data, local_cluster


def digest(centres):
    return hashlib.sha256(np.ascontiguousarray(centres).tobytes()).hexdigest()[:12]


if __name__ == "__main__":
    with local_cluster() as cluster, Client(cluster):
        lazy = dask_data(1_000_000, 0)
        X = lazy.compute()
        persisted = align_to_segments(lazy, SEGMENT_ROWS).persist()
        wait(persisted)
        blocks = RowBlocks(persisted, SEGMENT_ROWS)
        print("load average", os.getloadavg(), flush=True)
        ks = [int(k) for k in (sys.argv[1] if len(sys.argv) > 1 else "2,10").split(",")]
        repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 1
        for k in [k for k in ks for _ in range(repeats)]:
            start = time.perf_counter()
            centres = best_kmeans_centres(blocks, k, np.random.RandomState(0), 10)
            on_dask = time.perf_counter() - start
            start = time.perf_counter()
            expected = in_memory(X, k, np.random.RandomState(0), 10)
            memory = time.perf_counter() - start
            print(
                f"k={k}: Dask {on_dask:.2f} s, in memory {memory:.2f} s, "
                f"centres {digest(centres)} (in memory {digest(expected)})",
                flush=True,
            )
