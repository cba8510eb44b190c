"""Timing and memory measurement for the benchmarks."""

import time
import tracemalloc

import numpy as np


def time_fit(make_estimator, X, repeat, warm_up=False):
    """Median wall-clock time of ``make_estimator().fit(X)`` over ``repeat`` runs.

    A fresh estimator is made for every run; ``warm_up`` adds one untimed run
    on the first 200 samples first (so that first-call costs such as
    thread-pool start-up do not count). Returns the median time in seconds
    and the estimator of the last run.
    """
    if warm_up:
        make_estimator().fit(X[:200])
    times = []
    for _ in range(repeat):
        estimator = make_estimator()
        start = time.perf_counter()
        estimator.fit(X)
        times.append(time.perf_counter() - start)
    return float(np.median(times)), estimator


def peak_fit_memory(make_estimator, X):
    """Peak memory allocated while fitting, in bytes (NumPy buffers included).

    Measured with :mod:`tracemalloc`, which sees every allocation made through
    Python's and NumPy's allocators; the kernels of mmc allocate nothing of
    their own.
    """
    estimator = make_estimator()
    tracemalloc.start()
    try:
        estimator.fit(X)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak


def loglog_slope(sizes, times):
    """Least-squares slope of log(time) against log(size)."""
    return float(np.polyfit(np.log(sizes), np.log(times), 1)[0])
