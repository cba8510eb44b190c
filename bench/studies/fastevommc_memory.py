"""Memory of FastEvoMMC's fits: its basis built a block of rows at a time
(``bench/studies/fastevommc_memory.md``).

Usage: ``python -I bench/studies/fastevommc_memory.py N [N ...]``, once
with each build to compare. For each N, ``FastEvoMMC(random_state=0)`` on
N rows of 50 float32 features (two Gaussian clusters 4 apart along the
first): the peak of the memory allocated during the fit beyond X
(``tracemalloc``, which NumPy reports to), the fit time, the error and a
digest of the labels.
"""

import hashlib
import sys
import time
import tracemalloc

import numpy as np

from mmc import FastEvoMMC
from mmc.metrics import clustering_error

MB = 2**20


def data(n_samples):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((n_samples, 50)).astype(np.float32)
    X[: n_samples // 2, 0] += 4.0
    y = (np.arange(n_samples) >= n_samples // 2).astype(int)
    return X, y


def measure(n_samples):
    X, y = data(n_samples)
    tracemalloc.start()
    start = time.perf_counter()
    labels = FastEvoMMC(random_state=0).fit(X).labels_
    seconds = time.perf_counter() - start
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    digest = hashlib.md5(labels.astype(np.int64).tobytes()).hexdigest()[:12]
    print(
        f"| {n_samples:,} | {X.nbytes / MB:.0f} | {peak / MB:,.0f} | "
        f"{seconds:.1f} | {100 * clustering_error(y, labels):.4f} | {digest} |",
        flush=True,
    )


if __name__ == "__main__":
    print("| n | X (MB) | peak beyond X (MB) | fit (s) | error (%) | labels |")
    print("|---:|---:|---:|---:|---:|---|")
    for size in sys.argv[1:]:
        measure(int(float(size)))
