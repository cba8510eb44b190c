"""Memory of fits on float32 data: the float64 copies of X that k-means and
the Dask passes made (``bench/studies/float32_copies.md``).

Usage: ``python -I bench/studies/float32_copies.py N memory|dask`` (N rows
of 50 float32 features), once with each build to compare. ``memory``
prints, for CPMMC and CPM3C(n_clusters=4) fitted in memory, the peak of the
memory allocated during the fit beyond X (``tracemalloc``, which NumPy
reports to) and a digest of the labels. ``dask`` prints, for CPMMC and
CPM3C(n_clusters=2) fitted on a Dask array of the same data held in memory
(``dask.array.from_array``, chunks of 250,000 rows, the synchronous
scheduler), the largest memory allocated within one task of each kind of
pass, beyond its block.
"""

import collections
import hashlib
import sys
import time
import tracemalloc

import numpy as np

from mmc import CPM3C, CPMMC

MB = 2**20


def data(n_samples):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((n_samples, 50), dtype=np.float32)
    X[: n_samples // 2, 0] += 4.0
    return X


def digest(labels):
    return hashlib.md5(labels.astype(np.int64).tobytes()).hexdigest()[:12]


def in_memory(n_samples):
    X = data(n_samples)
    print(f"X: {n_samples} x 50 float32, {X.nbytes / MB:.0f} MB")
    for name, make in [
        ("CPMMC", lambda: CPMMC(random_state=0)),
        ("CPM3C k=4", lambda: CPM3C(n_clusters=4, random_state=0)),
    ]:
        tracemalloc.start()
        start = time.perf_counter()
        labels = make().fit(X).labels_
        seconds = time.perf_counter() - start
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        print(
            f"{name}: peak beyond X {peak / MB:.0f} MB, {seconds:.1f} s "
            f"(under tracemalloc), labels {digest(labels)}"
        )


def dask_tasks(n_samples):
    import dask
    import dask.array as da

    import mmc._dask as blocks_module

    peaks = collections.defaultdict(float)

    def traced(run):
        def on_block(function, block, *args):
            tracemalloc.start()
            try:
                return run(function, block, *args)
            finally:
                name = function.__name__
                peaks[name] = max(peaks[name], tracemalloc.get_traced_memory()[1])
                tracemalloc.stop()

        return on_block

    blocks_module._on_block = traced(blocks_module._on_block)
    blocks_module._on_block_chained = traced(blocks_module._on_block_chained)
    X = da.from_array(data(n_samples), chunks=(250_000, -1))
    print(
        f"Dask array, chunks of {X.chunksize[0]} rows "
        f"({X.blocks[0].nbytes / MB:.0f} MB)"
    )
    for name, make in [
        ("CPMMC", lambda: CPMMC(random_state=0)),
        ("CPM3C k=2", lambda: CPM3C(n_clusters=2, random_state=0)),
    ]:
        peaks.clear()
        with dask.config.set(scheduler="synchronous"):
            labels = make().fit(X).labels_
        print(f"{name}: labels {digest(labels)}")
        for function, peak in sorted(peaks.items(), key=lambda item: -item[1]):
            print(f"  {function}: {peak / MB:.1f} MB")


if __name__ == "__main__":
    n = int(float(sys.argv[1]))
    {"memory": in_memory, "dask": dask_tasks}[sys.argv[2]](n)
