"""Timing and memory measurement for the benchmarks."""

import time
import tracemalloc
import warnings

import numpy as np

from mmc.metrics import clustering_error


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


# The sizes a quick run always times, whatever the budget: two give a slope.
# (CPMMC's 500 sparse rows took 0.3 s on a quiet machine, over 0.5 s beside
# another job, and the quick budget of 1 s then stopped the series at one
# size: a slope that depended on the load.)
QUICK_MIN_SIZES = 2


def time_growing_sizes(make_estimator, load, sizes, repeat, budget, quick=False):
    """Fit time and error of ``make_estimator()`` on data of growing size.

    ``load(n)`` returns ``(X, y)``. The next size is timed only if the time
    of the last one, extrapolated linearly, stays within ``budget`` seconds
    (with ``quick``, from the third size on: a quick run's first two sizes
    are small, and its slope must not depend on the machine's load), and
    the sizes stop when the estimator refuses one (a ``ValueError`` or
    ``MemoryError``, such as a memory limit). Fits of over a second are
    timed once (they vary little); the first size gets a warm-up run.

    Returns
    -------
    record : dict
        ``"sizes"``, ``"times"``, ``"errors"`` (%), ``"slope"`` (log-log
        slope of time against n, None with fewer than two sizes) and
        ``"stopped"`` (why the sizes stopped).
    """
    record = {"sizes": [], "times": [], "errors": [], "stopped": "largest size"}
    min_sizes = QUICK_MIN_SIZES if quick else 1
    for n_samples, next_size in zip(sizes, tuple(sizes[1:]) + (None,)):
        X, y = load(n_samples)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                seconds, fitted = time_fit(
                    make_estimator,
                    X,
                    repeat if not record["times"] or record["times"][-1] < 1 else 1,
                    warm_up=n_samples == sizes[0],
                )
        except (ValueError, MemoryError) as exc:
            record["stopped"] = f"n={n_samples}: {type(exc).__name__}: {exc}"
            break
        record["sizes"].append(n_samples)
        record["times"].append(seconds)
        record["errors"].append(100 * clustering_error(y, fitted.labels_))
        if (
            next_size is not None
            and len(record["sizes"]) >= min_sizes
            and seconds * next_size / n_samples > budget
        ):
            record["stopped"] = f"time budget ({budget:g} s)"
            break
    record["slope"] = (
        loglog_slope(record["sizes"], record["times"])
        if len(record["sizes"]) >= 2
        else None
    )
    return record
