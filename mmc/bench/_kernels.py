"""Speed and memory of the kernel feature map: fit time against n with
``kernel="rbf"`` for the estimators that learn a linear model on it."""

import warnings

from sklearn.cluster import KMeans
from sklearn.datasets import make_blobs

from mmc.bench._timing import peak_fit_memory, time_fit, time_growing_sizes

FULL_SIZES = (10_000, 30_000, 100_000)
QUICK_SIZES = (1_000, 2_000)
FULL_COMPONENTS = 500
QUICK_COMPONENTS = 100
N_FEATURES = 20
# The next size is timed only if a linear extrapolation of the last fit time
# stays within this budget (s); the limit at n = 100 000 is 30 s.
TIME_BUDGET = 60.0
QUICK_TIME_BUDGET = 2.0
# Peak memory is measured at this size (an extra fit), against the n x r
# float64 features of the map.
FULL_MEMORY_SIZE = 30_000
QUICK_MEMORY_SIZE = 1_000
# The estimators that learn a linear model on the feature map of
# mmc.kernels (EvoMMC and FastEvoMMC work on the kernel matrix instead).
FEATURE_MAP_ESTIMATORS = ("CPMMC", "CPM3C", "MultivariateMMC", "ODMC")


def kernel_scaling(entries, quick=False, repeat=1, random_state=0, progress=None):
    """Time the rbf-kernel fit of the estimators that use the feature map.

    Data: :func:`sklearn.datasets.make_blobs` with two centres and 20
    features; each estimator runs with its defaults apart from
    ``kernel="rbf"`` and ``n_components`` (500; 100 with ``quick``), on
    growing n while the fit time extrapolated linearly to the next size
    stays within ``TIME_BUDGET``. KMeans(n_clusters=2, n_init=10) is timed on
    the same data.

    Returns
    -------
    result : dict
        ``"estimators"``: name -> ``{"sizes", "times", "errors", "slope",
        "stopped", "peak_memory_over_features"}``; ``"kmeans_times"`` per
        size; ``"n_components"``, ``"n_features"``, ``"repeat"``,
        ``"time_budget"``.
    """
    sizes = QUICK_SIZES if quick else FULL_SIZES
    n_components = QUICK_COMPONENTS if quick else FULL_COMPONENTS
    budget = QUICK_TIME_BUDGET if quick else TIME_BUDGET
    memory_size = QUICK_MEMORY_SIZE if quick else FULL_MEMORY_SIZE
    data = {
        n: make_blobs(n, n_features=N_FEATURES, centers=2, random_state=random_state)
        for n in sizes
    }
    # The first fit of each estimator is preceded by an untimed one on a few
    # samples, so that first-call costs do not count.
    kmeans_times = [
        time_fit(
            lambda: KMeans(n_clusters=2, n_init=10, random_state=random_state),
            data[n][0],
            repeat,
            warm_up=n == sizes[0],
        )[0]
        for n in sizes
    ]
    names = [name for name in entries if name in FEATURE_MAP_ESTIMATORS]
    if progress is not None:
        names = progress(names)
    result = {}
    for name in names:
        entry = entries[name]

        def make(entry=entry):
            return entry.make(2, random_state, kernel="rbf", n_components=n_components)

        record = time_growing_sizes(
            make, data.__getitem__, sizes, repeat, budget, quick
        )
        X, _ = make_blobs(
            memory_size, n_features=N_FEATURES, centers=2, random_state=random_state
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            peak = peak_fit_memory(make, X)
        record["peak_memory_over_features"] = peak / (8 * memory_size * n_components)
        result[name] = record
    return {
        "estimators": result,
        "sizes": list(sizes),
        "kmeans_times": kmeans_times,
        "n_components": n_components,
        "n_features": N_FEATURES,
        "memory_size": memory_size,
        "repeat": repeat,
        "time_budget": budget,
    }


def summary_lines(result):
    """A few lines for the terminal."""
    lines = [
        f"rbf kernel, n_components={result['n_components']} (fit time in s; "
        f"KMeans(n_init=10) "
        + ", ".join(
            f"n={n} {t:.2f}" for n, t in zip(result["sizes"], result["kmeans_times"])
        )
        + "):"
    ]
    for name, r in result["estimators"].items():
        times = ", ".join(f"n={n} {t:.2f}" for n, t in zip(r["sizes"], r["times"]))
        slope = "-" if r["slope"] is None else f"{r['slope']:.2f}"
        lines.append(f"  {name}: {times} (slope {slope}; {r['stopped']})")
    return lines


def markdown(result):
    """The result as a markdown section."""
    sizes = result["sizes"]
    lines = [
        "## Kernels: the rbf feature map at scale",
        "",
        f"`make_blobs` with two centres and {result['n_features']} features; each "
        f'estimator with its defaults apart from `kernel="rbf"` and '
        f"`n_components={result['n_components']}` (a Nystroem map of that "
        f"rank). Fit times in seconds (median of {result['repeat']}; one fit "
        "after a size that took over a second), with "
        "the clustering error (%); a size is skipped when the linear "
        f"extrapolation of the previous time exceeds {result['time_budget']:g} s. "
        f"Peak memory of a fit at n={result['memory_size']} (tracemalloc) is "
        "given in units of the n x n_components float64 features.",
        "",
        "| estimator | " + " | ".join(f"n={n}" for n in sizes) + " | slope "
        "| peak memory / features |",
        "|---|" + "---|" * (len(sizes) + 2),
        "| KMeans(n_init=10) | "
        + " | ".join(f"{t:.2f}" for t in result["kmeans_times"])
        + " | | |",
    ]
    for name, r in result["estimators"].items():
        timed = dict(zip(r["sizes"], zip(r["times"], r["errors"])))
        cells = [
            f"{timed[n][0]:.2f} ({timed[n][1]:.1f}%)" if n in timed else "-"
            for n in sizes
        ]
        slope = "-" if r["slope"] is None else f"{r['slope']:.2f}"
        lines.append(
            f"| {name} | " + " | ".join(cells) + f" | {slope} | "
            f"{r['peak_memory_over_features']:.1f} |"
        )
    return "\n".join(lines) + "\n"
