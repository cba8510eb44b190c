"""CPM3C on Dask with workers of ample memory: is its out-of-core slope the
algorithm's or the memory's? (``bench/dask/cpm3c/README.md``)

Run with ``python -I bench/dask/cpm3c_ample.py 1e6,3e6 [10GB]`` (needs
mmc[dask]): the data of ``python -m mmc.bench dask`` (two clusters, 50
float32 features) persisted in chunks of whole segments on a LocalCluster
of two single-threaded workers of the given memory limit (10 GB by
default), then ``CPM3C(n_clusters=2, random_state=0)``; prints for each n
the fit time, the CCCP iterations of the best run, and the epochs and SVM
solves of coordinate descent over all restarts.
"""

import os
import sys
import time

from distributed import Client, LocalCluster, wait

import mmc._dask_cpm3c as dask_cpm3c
from mmc import CPM3C
from mmc._cpm3c_dual import SEGMENT_ROWS
from mmc._dask import align_to_segments
from mmc.bench._dask import dask_data

counts = {"epochs": 0, "solves": 0}
_solve = dask_cpm3c.DaskDualMulticlassSVM.solve


def counted_solve(self):
    before = self.n_epochs
    _solve(self)
    counts["epochs"] += self.n_epochs - before
    counts["solves"] += 1


dask_cpm3c.DaskDualMulticlassSVM.solve = counted_solve

if __name__ == "__main__":
    memory = sys.argv[2] if len(sys.argv) > 2 else "10GB"
    cluster = LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        memory_limit=memory,
        dashboard_address=":0",
        silence_logs=40,
    )
    with cluster, Client(cluster):
        for n in [int(float(size)) for size in sys.argv[1].split(",")]:
            counts.update(epochs=0, solves=0)
            X = align_to_segments(dask_data(n, 0), SEGMENT_ROWS).persist()
            wait(X)
            start = time.perf_counter()
            estimator = CPM3C(n_clusters=2, random_state=0).fit(X)
            seconds = time.perf_counter() - start
            print(
                f"n={n} time {seconds:.1f} s n_iter {estimator.n_iter_} epochs "
                f"{counts['epochs']} solves {counts['solves']} load "
                f"{os.getloadavg()[0]:.1f}",
                flush=True,
            )
            del X
