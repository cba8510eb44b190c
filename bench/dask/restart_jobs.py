"""Restarts at a time on a Dask array (``n_jobs``): fit time and the
workers' peak memory.

Each restart of a cutting-plane fit keeps its per-sample state (signs,
decision values, one byte per slot of the working set) on the workers, and
by default the restarts run together. This script fits CPMMC and
MultivariateMMC (default parameters, ``random_state=0``) from a zarr store
of the data of ``python -m mmc.bench dask`` (two Gaussian clusters in 50
float32 features, blocks of 250,000 rows) on that benchmark's LocalCluster
(2 single-threaded workers of 1 GB), with ``n_jobs=None`` (every restart
together) and ``n_jobs=1`` (one at a time), and prints the fit time, the
workers' peak resident memory (summed) and whether the labels are equal.

Run from the repository root with mmc installed::

    python -I bench/dask/restart_jobs.py 3000000
"""

import os
import shutil
import sys
import tempfile
import time

import dask.array as da
import numpy as np
from distributed import Client

from mmc import CPMMC, MultivariateMMC
from mmc.bench._dask import _PeakMemory, dask_data, local_cluster


def main(n_samples):
    directory = tempfile.mkdtemp(prefix="mmc-restart-jobs-")
    try:
        with local_cluster() as cluster, Client(cluster) as client:
            path = os.path.join(directory, "X.zarr")
            dask_data(n_samples, 0).to_zarr(path)
            X = da.from_zarr(path)
            print(f"n = {n_samples:,}, {X.nbytes / 2**20:.0f} MB on disk\n")
            print("| estimator | n_jobs | time (s) | workers peak MB | same labels |")
            print("|---|---|---:|---:|---|")
            for Estimator in (CPMMC, MultivariateMMC):
                labels = {}
                for n_jobs in (None, 1):
                    with _PeakMemory(client) as memory:
                        start = time.perf_counter()
                        fit = Estimator(random_state=0, n_jobs=n_jobs).fit(X)
                        seconds = time.perf_counter() - start
                    labels[n_jobs] = np.asarray(fit.labels_)
                    same = np.array_equal(labels[n_jobs], labels[None])
                    print(
                        f"| {Estimator.__name__} | {n_jobs} | {seconds:.1f} | "
                        f"{memory.workers_peak / 2**20:.0f} | {same} |",
                        flush=True,
                    )
    finally:
        shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    main(int(float(sys.argv[1])))
