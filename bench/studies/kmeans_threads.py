"""CPM3C's k-means runs on threads: fit time with and without them.

Since 6d0446e the runs of k-means behind CPM3C's start and class-balance
estimate go on threads (``mmc._threads.fit_threads``: OpenMP's thread
count when a pass costs at least ``THREADED_PASS_PRODUCTS``; the same rule
puts CPM3C's two runs of a start on threads since then, see
``cpm3c_threads.py``, so "one thread" now turns both off). This script
times ``CPM3C(n_clusters=10, random_state=0)`` with them and with one
thread (``_openmp_effective_n_threads`` patched to 1), interleaved with
``KMeans(n_clusters=10, n_init=10)``, on the ten digits (31 rounds, after
3 untimed ones) and on 100,000 blobs of 50 features and 10 centres (3
rounds), checks that the labels are identical, and prints medians and
ratios to KMeans as a markdown table.

Run from the repository root with mmc installed, on a quiet machine::

    python -I bench/studies/kmeans_threads.py > bench/studies/kmeans_threads.md
"""

import time
import warnings

import numpy as np
from sklearn.cluster import KMeans
from sklearn.datasets import load_digits, make_blobs

import mmc._threads as threads
from mmc import CPM3C

OPENMP_THREADS = threads._openmp_effective_n_threads


def fit_time(make, X, one_thread=False):
    if one_thread:
        threads._openmp_effective_n_threads = lambda: 1
    try:
        start = time.perf_counter()
        fitted = make().fit(X)
        return time.perf_counter() - start, fitted
    finally:
        threads._openmp_effective_n_threads = OPENMP_THREADS


def measure(X, rounds, warm_up):
    makers = {
        "KMeans(n_init=10)": lambda: KMeans(10, n_init=10, random_state=0),
        "CPM3C, runs on threads": lambda: CPM3C(n_clusters=10, random_state=0),
        "CPM3C, one thread": lambda: CPM3C(n_clusters=10, random_state=0),
    }
    times = {name: [] for name in makers}
    for round_ in range(warm_up + rounds):
        labels = []
        for name, make in makers.items():
            seconds, fitted = fit_time(make, X, one_thread=name.endswith("thread"))
            if round_ >= warm_up:
                times[name].append(seconds)
            labels.append(fitted.labels_)
        assert np.array_equal(labels[1], labels[2]), "threads changed the labels"
    return {name: float(np.median(t)) for name, t in times.items()}


def main():
    warnings.simplefilter("ignore")
    digits = load_digits().data / 16.0
    blobs, _ = make_blobs(
        100_000, n_features=50, centers=10, cluster_std=4.0, random_state=0
    )
    print("# CPM3C's k-means runs on threads\n")
    print("`python -I bench/studies/kmeans_threads.py` (see its docstring).\n")
    print("| data | estimator | median fit (s) | over KMeans |")
    print("|---|---|---|---|")
    for label, X, rounds, warm_up in (
        ("ten digits (1797 x 64)", digits, 31, 3),
        ("blobs (100,000 x 50)", blobs, 3, 0),
    ):
        medians = measure(X, rounds, warm_up)
        base = medians["KMeans(n_init=10)"]
        for name, seconds in medians.items():
            print(f"| {label} | {name} | {seconds:.4f} | {seconds / base:.2f} |")


if __name__ == "__main__":
    main()
