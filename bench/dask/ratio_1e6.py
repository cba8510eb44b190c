"""CPMMC (or another estimator) at n = 1e6: in memory against a Dask array
persisted on a LocalCluster.

Run with ``python -I bench/dask/ratio_1e6.py [NAME]`` (needs mmc[dask];
NAME is CPMMC by default, or MultivariateMMC): the data
of ``python -m mmc.bench dask`` (1e6 x 50 float32), two rounds of the
in-memory fit, the fit of the array persisted on two single-threaded
workers of 1 GB, and the fit with Dask's threaded scheduler (its time
includes generating the data into memory); each round prints the load
average first.
"""

import os
import sys
import time

import dask
from distributed import Client, wait

import mmc
from mmc.bench._dask import dask_data, local_cluster
from mmc.metrics import clustering_error


def timed_fit(X):
    start = time.perf_counter()
    estimator = getattr(mmc, NAME)(random_state=0).fit(X)
    return estimator, time.perf_counter() - start


NAME = sys.argv[1] if len(sys.argv) > 1 else "CPMMC"

if __name__ == "__main__":
    with local_cluster() as cluster, Client(cluster):
        lazy = dask_data(1_000_000, 0)
        X = lazy.compute()
        persisted = lazy.persist()
        wait(persisted)
        for _ in range(2):
            print("load average", os.getloadavg(), flush=True)
            reference, t_numpy = timed_fit(X)
            on_cluster, t_cluster = timed_fit(persisted)
            with dask.config.set(scheduler="threads"):
                threaded, t_threads = timed_fit(lazy.persist())
            print(
                f"numpy {t_numpy:.2f} s, LocalCluster {t_cluster:.2f} s "
                f"(ratio {t_cluster / t_numpy:.2f}), threads {t_threads:.2f} s "
                f"(ratio {t_threads / t_numpy:.2f}), agreement "
                f"{1 - clustering_error(reference.labels_, on_cluster.labels_):.4f} "
                f"{1 - clustering_error(reference.labels_, threaded.labels_):.4f}",
                flush=True,
            )
