"""CPM3C at n = 1e6: in memory against a Dask array persisted on a LocalCluster.

Run with ``python -I bench/dask/cpm3c_ratio.py`` (needs mmc[dask]): the data
of ``python -m mmc.bench dask`` (1e6 x 50 float32, two clusters), the
in-memory fit of ``CPM3C(n_clusters=2, random_state=0)``, then the fit of
the array persisted on two single-threaded workers of 1 GB, in blocks of
whole segments of the coordinate descent (4 x 262,144 rows) and in the
benchmark's blocks of 250,000 rows (realigned by the fit at every pass).
Prints the load average, the times, their ratios to the in-memory fit and
the agreement of the labels with it.
"""

import os
import time

from distributed import Client, wait

from mmc import CPM3C
from mmc._cpm3c_dual import SEGMENT_ROWS
from mmc._dask import align_to_segments
from mmc.bench._dask import dask_data, local_cluster
from mmc.metrics import clustering_error


def timed_fit(X):
    start = time.perf_counter()
    estimator = CPM3C(n_clusters=2, random_state=0).fit(X)
    return estimator, time.perf_counter() - start


if __name__ == "__main__":
    with local_cluster() as cluster, Client(cluster):
        lazy = dask_data(1_000_000, 0)
        X = lazy.compute()
        aligned = align_to_segments(lazy, SEGMENT_ROWS).persist()
        unaligned = lazy.persist()
        wait([aligned, unaligned])
        print("load average", os.getloadavg(), flush=True)
        reference, t_numpy = timed_fit(X)
        print(f"numpy {t_numpy:.2f} s, n_iter {reference.n_iter_}", flush=True)
        for name, data in (("aligned", aligned), ("250k blocks", unaligned)):
            print("load average", os.getloadavg(), flush=True)
            estimator, seconds = timed_fit(data)
            agreement = 1 - clustering_error(reference.labels_, estimator.labels_)
            print(
                f"LocalCluster {name}: {seconds:.2f} s (ratio "
                f"{seconds / t_numpy:.2f}), agreement {agreement:.6f}, "
                f"objective {estimator.objective_:.12g} vs "
                f"{reference.objective_:.12g}",
                flush=True,
            )
