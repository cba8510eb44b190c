"""Workers' peak memory of a CPM3C fit of a persisted Dask array, in chunks
that are or are not whole segments of CPM3C's visiting order
(``bench/dask/cpm3c_aligned.md``).

Usage: ``python -I bench/dask/cpm3c_aligned.py N CHUNK_ROWS``: the data of
``python -m mmc.bench dask`` (N rows, 50 float32 features) in chunks of
CHUNK_ROWS rows, persisted on a LocalCluster of 2 single-threaded workers
(4 GB each, so that nothing is spilled), then ``CPM3C(n_clusters=2,
random_state=0)``. The workers' resident memory is sampled every 50 ms
during the fit; printed: its peak over the workers, the memory the worker
at that peak held in results (Dask's managed memory), the fit time and a
digest of the labels.
"""

import hashlib
import sys
import threading
import time


def worker_memory(dask_worker):
    import psutil

    held = sum(
        ts.nbytes or 0
        for ts in dask_worker.state.tasks.values()
        if ts.state == "memory"
    )
    return psutil.Process().memory_info().rss, held


def main(n_samples, chunk_rows):
    import dask
    from distributed import Client, LocalCluster, wait

    from mmc import CPM3C
    from mmc.bench._dask import dask_data

    cluster = LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        memory_limit="4GB",
        dashboard_address=None,
        silence_logs=40,
    )
    with cluster, Client(cluster) as client:
        X = dask_data(n_samples, 0).rechunk({0: chunk_rows}).persist()
        wait(X)
        peak = [0, 0]
        done = threading.Event()

        def sample():
            while not done.is_set():
                for rss, held in client.run(worker_memory).values():
                    if rss > peak[0]:
                        peak[:] = [rss, held]
                time.sleep(0.05)

        sampler = threading.Thread(target=sample)
        sampler.start()
        start = time.perf_counter()
        with dask.config.set(scheduler=client.get):
            labels = CPM3C(n_clusters=2, random_state=0).fit(X).labels_
        seconds = time.perf_counter() - start
        done.set()
        sampler.join()
    digest = hashlib.md5(labels.astype("int64").tobytes()).hexdigest()[:12]
    print(
        f"n={n_samples} chunks of {chunk_rows} rows: workers' peak "
        f"{peak[0] / 2**20:.0f} MB, of which results {peak[1] / 2**20:.0f} MB; "
        f"{seconds:.1f} s; labels {digest}"
    )


if __name__ == "__main__":
    main(int(float(sys.argv[1])), int(sys.argv[2]))
