"""CPM3C at n = 1e6 on a LocalCluster against the rounds of its Dask epochs.

Run with ``python -I bench/dask/cpm3c_rounds.py [--zarr] [N_ROUNDS ...]``
(needs mmc[dask]): the data of ``python -m mmc.bench dask`` (1e6 x 50
float32, two clusters), the in-memory fit of ``CPM3C(n_clusters=2,
random_state=0)`` (the rows in one shuffle), then for each value of
``mmc._cpm3c_dual.N_ROUNDS`` given the fit on two single-threaded workers
of 1 GB of the array in chunks of whole segments (4 x 65,536 rows):
persisted on the workers, or with ``--zarr`` written to a zarr store in a
temporary directory and read from it at every pass (out of core; nothing
persisted). Prints the times, their ratios to the in-memory fit, the epochs
of coordinate descent (in all, and the most of one SVM) and the agreement
of the labels with the in-memory fit's, with ``--zarr`` the workers' peak
memory. Recorded in bench/dask/cpm3c_agreement.md.
"""

import os
import sys
import tempfile
import time

import dask.array as da
from distributed import Client, wait

from mmc import CPM3C, _cpm3c_dual, _dask_cpm3c
from mmc._dask import align_to_segments
from mmc.bench._dask import _PeakMemory, dask_data, local_cluster
from mmc.metrics import clustering_error

N_SAMPLES = 1_000_000
EPOCHS = []


def _counted(solve):
    def counted(self):
        before = self.n_epochs
        solve(self)
        EPOCHS.append(self.n_epochs - before)

    return counted


def timed_fit(X):
    EPOCHS.clear()
    start = time.perf_counter()
    estimator = CPM3C(n_clusters=2, random_state=0).fit(X)
    seconds = time.perf_counter() - start
    return estimator, seconds, f"epochs {sum(EPOCHS)}, most {max(EPOCHS)}"


def persisted(rounds):
    with local_cluster() as cluster, Client(cluster):
        lazy = dask_data(N_SAMPLES, 0)
        X = lazy.compute()
        aligned = align_to_segments(lazy, _cpm3c_dual.SEGMENT_ROWS).persist()
        wait([aligned])
        print("load average", os.getloadavg(), flush=True)
        reference, t_numpy, epochs = timed_fit(X)
        print(
            f"numpy {t_numpy:.2f} s, n_iter {reference.n_iter_}, {epochs}", flush=True
        )
        for n_rounds in rounds:
            _cpm3c_dual.N_ROUNDS = n_rounds
            print("load average", os.getloadavg(), flush=True)
            estimator, seconds, epochs = timed_fit(aligned)
            agreement = 1 - clustering_error(reference.labels_, estimator.labels_)
            print(
                f"LocalCluster, {n_rounds} rounds: {seconds:.2f} s (ratio "
                f"{seconds / t_numpy:.2f}), n_iter {estimator.n_iter_}, {epochs}, "
                f"agreement {agreement:.6f}",
                flush=True,
            )


def from_zarr(rounds):
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "X.zarr")
        lazy = dask_data(N_SAMPLES, 0)
        lazy.rechunk((4 * _cpm3c_dual.SEGMENT_ROWS, -1)).to_zarr(path)
        X = lazy.compute()
        print("load average", os.getloadavg(), flush=True)
        reference, t_numpy, epochs = timed_fit(X)
        print(f"numpy {t_numpy:.2f} s, {epochs}", flush=True)
        del X
        with local_cluster() as cluster, Client(cluster) as client:
            for n_rounds in rounds:
                _cpm3c_dual.N_ROUNDS = n_rounds
                print("load average", os.getloadavg(), flush=True)
                with _PeakMemory(client) as memory:
                    est, seconds, epochs = timed_fit(da.from_zarr(path))
                agreement = 1 - clustering_error(reference.labels_, est.labels_)
                print(
                    f"zarr, {n_rounds} rounds: {seconds:.2f} s (ratio "
                    f"{seconds / t_numpy:.2f}), {epochs}, agreement "
                    f"{agreement:.6f}, workers' peak memory "
                    f"{memory.workers_peak / 2**20:.0f} MB",
                    flush=True,
                )


if __name__ == "__main__":
    arguments = sys.argv[1:]
    zarr = "--zarr" in arguments
    rounds = [int(a) for a in arguments if a != "--zarr"] or [1, 8]
    for cls in (_cpm3c_dual.DualMulticlassSVM, _dask_cpm3c.DaskDualMulticlassSVM):
        cls.solve = _counted(cls.solve)
    (from_zarr if zarr else persisted)(rounds)
