"""CPMMC read from zarr on workers of little memory, in chunks of two sizes
(``bench/dask/tight_workers.md``).

Usage: ``python -I bench/dask/tight_workers.py N MEMORY_LIMIT CHUNK_ROWS``:
the data of ``python -m mmc.bench dask`` (N rows, 50 float32 features),
written to a zarr store in chunks of CHUNK_ROWS rows (with the threaded
scheduler, before the cluster starts), then ``CPMMC(random_state=0)`` on
``dask.array.from_zarr`` with a LocalCluster of 2 single-threaded workers
of MEMORY_LIMIT each. Prints whether the fit ended, its time or error, and
a digest of the labels.
"""

import hashlib
import logging
import os
import shutil
import sys
import tempfile
import time


def main(n_samples, memory_limit, chunk_rows):
    import dask
    import dask.array as da
    from distributed import Client, LocalCluster

    from mmc import CPMMC
    from mmc.bench._dask import dask_data

    directory = tempfile.mkdtemp()
    try:
        path = os.path.join(directory, "X.zarr")
        with dask.config.set(scheduler="threads"):
            dask_data(n_samples, 0).rechunk({0: chunk_rows}).to_zarr(path)
        cluster = LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            memory_limit=memory_limit,
            dashboard_address=None,
            silence_logs=logging.CRITICAL,
        )
        with cluster, Client(cluster):
            X = da.from_zarr(path)
            start = time.perf_counter()
            try:
                labels = CPMMC(random_state=0).fit(X).labels_
            except Exception as exc:
                outcome = f"{type(exc).__name__}: {str(exc)[:80]}"
            else:
                digest = hashlib.md5(labels.astype("int64").tobytes()).hexdigest()
                outcome = f"fitted, labels {digest[:12]}"
            seconds = time.perf_counter() - start
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    print(
        f"n={n_samples}, workers of {memory_limit}, chunks of {chunk_rows} rows "
        f"({chunk_rows * 50 * 4 / 2**20:.0f} MB): {outcome} ({seconds:.1f} s)"
    )


if __name__ == "__main__":
    main(int(float(sys.argv[1])), sys.argv[2], int(sys.argv[3]))
