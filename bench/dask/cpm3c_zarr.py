"""CPM3C out of core: a Dask array read from zarr on disk at every pass.

Run with ``python -I bench/dask/cpm3c_zarr.py N [N_ROUNDS ...]`` (needs
mmc[dask]): the data of ``python -m mmc.bench dask`` (N x 50 float32, two
clusters) written to a zarr store in a temporary directory in chunks of
whole segments (4 x 65,536 rows), ``CPM3C(n_clusters=2, random_state=0)``
in memory, then on ``da.from_zarr`` (nothing persisted: every task reads
its chunk) on a LocalCluster of two single-threaded workers of 1 GB, for
each value of ``mmc._cpm3c_dual.N_ROUNDS`` given. Prints the times, their
ratios to the in-memory fit, the epochs, the agreement of the labels with
the in-memory fit's and the workers' peak memory. Recorded in
bench/dask/cpm3c_agreement.md.
"""

import os
import sys
import tempfile
import time

import dask.array as da
from distributed import Client

from mmc import CPM3C, _cpm3c_dual, _dask_cpm3c
from mmc.bench._dask import _PeakMemory, dask_data, local_cluster
from mmc.metrics import clustering_error

EPOCHS = []


def _counted(solve):
    def counted(self):
        before = self.n_epochs
        solve(self)
        EPOCHS.append(self.n_epochs - before)

    return counted


if __name__ == "__main__":
    n = int(sys.argv[1])
    rounds = [int(a) for a in sys.argv[2:]] or [1, 8]
    for cls in (_cpm3c_dual.DualMulticlassSVM, _dask_cpm3c.DaskDualMulticlassSVM):
        cls.solve = _counted(cls.solve)
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "X.zarr")
        lazy = dask_data(n, 0)
        lazy.rechunk((4 * _cpm3c_dual.SEGMENT_ROWS, -1)).to_zarr(path)
        X = lazy.compute()
        print("load average", os.getloadavg(), flush=True)
        EPOCHS.clear()
        start = time.perf_counter()
        reference = CPM3C(n_clusters=2, random_state=0).fit(X)
        t_numpy = time.perf_counter() - start
        print(f"numpy {t_numpy:.2f} s, epochs {sum(EPOCHS)}", flush=True)
        del X
        with local_cluster() as cluster, Client(cluster) as client:
            for n_rounds in rounds:
                _cpm3c_dual.N_ROUNDS = n_rounds
                EPOCHS.clear()
                print("load average", os.getloadavg(), flush=True)
                with _PeakMemory(client) as memory:
                    start = time.perf_counter()
                    est = CPM3C(n_clusters=2, random_state=0).fit(da.from_zarr(path))
                    seconds = time.perf_counter() - start
                agreement = 1 - clustering_error(reference.labels_, est.labels_)
                print(
                    f"zarr, {n_rounds} rounds: {seconds:.2f} s (ratio "
                    f"{seconds / t_numpy:.2f}), epochs {sum(EPOCHS)}, agreement "
                    f"{agreement:.6f}, workers' peak memory "
                    f"{memory.workers_peak / 2**20:.0f} MB",
                    flush=True,
                )
