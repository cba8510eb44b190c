"""CPMMC from zarr at n = 1e6, 3e6 and 1e7 for a given number of rows per block.

Run with ``python -I bench/dask/blocks.py ROWS`` (needs mmc[dask]): the data
of ``python -m mmc.bench dask`` (50 float32 features) written to zarr in a
temporary directory with blocks of ROWS rows, fitted on a LocalCluster of two
single-threaded workers of 1 GB; prints the time, the iterations, the peak
memory of the workers and of the client, and the log-log slope of the time.
"""

import os
import shutil
import sys
import tempfile

import dask.array as da
from distributed import Client

import mmc.bench._dask as dask_bench
from mmc.bench._timing import loglog_slope

if __name__ == "__main__":
    dask_bench.BLOCK_ROWS = int(sys.argv[1])
    directory = tempfile.mkdtemp(prefix="mmc-blocks-")
    times = {}
    try:
        with dask_bench.local_cluster() as cluster, Client(cluster) as client:
            for n_samples in (1_000_000, 3_000_000, 10_000_000):
                path = os.path.join(directory, f"X_{n_samples}.zarr")
                dask_bench.dask_data(n_samples, 0).to_zarr(path)
                _, row = dask_bench._fit(client, da.from_zarr(path), 0)
                times[n_samples] = row["time"]
                print(
                    f"rows per block {dask_bench.BLOCK_ROWS}, n {n_samples}: "
                    f"{row['time']:.2f} s, {row['n_iter']} iterations, workers "
                    f"{row['workers_peak_rss_mb']:.0f} MB, client "
                    f"{row['client_peak_rss_mb']:.0f} MB",
                    flush=True,
                )
                shutil.rmtree(path, ignore_errors=True)
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    print(f"log-log slope: {loglog_slope(list(times), list(times.values())):.3f}")
