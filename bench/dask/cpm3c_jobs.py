"""CPM3C out of core with its restarts run together or a few at a time
(``n_jobs``): fit time and the workers' peak memory against n.

``CPM3C(n_clusters=2, random_state=0, n_jobs=...)`` (four restarts) on the
data of ``python -m mmc.bench dask`` (two Gaussian clusters in 50 float32
features, zarr chunks of 250,000 rows), read from a zarr store on disk, on
that benchmark's LocalCluster (2 single-threaded workers of 1 GB), one
cluster per size. Prints a Markdown row per fit: n, n_jobs, seconds, the
workers' peak resident memory (summed) and whether the labels equal those of
the first setting.

Run from the repository root with mmc installed::

    python -I bench/dask/cpm3c_jobs.py 1e6 None,2,1
    python -I bench/dask/cpm3c_jobs.py 3e6 None,2,1
"""

import os
import shutil
import sys
import tempfile
import time

import dask.array as da
import numpy as np
from distributed import Client

from mmc import CPM3C
from mmc.bench._dask import _PeakMemory, dask_data, local_cluster


def main(sizes, settings):
    directory = tempfile.mkdtemp(prefix="mmc-cpm3c-jobs-")
    try:
        print("| n | n_jobs | time (s) | workers peak MB | same labels |")
        print("|---:|---|---:|---:|---|")
        for n_samples in sizes:
            with local_cluster() as cluster, Client(cluster) as client:
                path = os.path.join(directory, f"X{n_samples}.zarr")
                dask_data(n_samples, 0).to_zarr(path)
                X = da.from_zarr(path)
                first = None
                for n_jobs in settings:
                    with _PeakMemory(client) as memory:
                        start = time.perf_counter()
                        fit = CPM3C(n_clusters=2, random_state=0, n_jobs=n_jobs).fit(X)
                        seconds = time.perf_counter() - start
                    labels = np.asarray(fit.labels_)
                    first = labels if first is None else first
                    print(
                        f"| {n_samples:,} | {n_jobs} | {seconds:.1f} | "
                        f"{memory.workers_peak / 2**20:.0f} | "
                        f"{np.array_equal(labels, first)} |",
                        flush=True,
                    )
            shutil.rmtree(path, ignore_errors=True)
    finally:
        shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    sizes = [int(float(size)) for size in sys.argv[1].split(",")]
    settings = [None if s == "None" else int(s) for s in sys.argv[2].split(",")]
    main(sizes, settings)
