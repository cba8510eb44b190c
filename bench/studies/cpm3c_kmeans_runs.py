"""CPM3C with more than two clusters: the k-means start from the best of 10
runs of k-means (the default, as KMeans(n_init=10)) or of 3.

The start's number of runs, mmc._starts.MULTICLASS_KMEANS_RUNS, is set for
the process from the command line; CPM3C with defaults otherwise, seeds 0,
1 and 2, on the 16 multiclass cases of the robustness suite and the 25 of
bench/studies/cpm3c_starts.py. Prints each case's mean error over the seeds
and median fit time, then the means over the 16, the 25 and all.

    python -I bench/studies/cpm3c_kmeans_runs.py 10
    python -I bench/studies/cpm3c_kmeans_runs.py 3
"""

import os
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cpm3c_starts import cases as extra_cases

import mmc._cpm3c as cpm3c
import mmc._starts as starts
from mmc import CPM3C
from mmc.bench._robustness_data import multiclass_cases
from mmc.metrics import clustering_error


def main(n_runs):
    # Both names of the constant: the start's (mmc._starts) and the one
    # CPM3C reads when its start shares the runs of the balance estimate.
    starts.MULTICLASS_KMEANS_RUNS = n_runs
    cpm3c.MULTICLASS_KMEANS_RUNS = n_runs
    data = [(c.name, *c.load()) for c in multiclass_cases()] + list(extra_cases())
    means = []
    for name, X, y in data:
        k = len(np.unique(y))
        errors, times = [], []
        for seed in (0, 1, 2):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                start = time.perf_counter()
                labels = CPM3C(n_clusters=k, random_state=seed).fit(X).labels_
                times.append(time.perf_counter() - start)
            errors.append(100 * clustering_error(y, labels))
        means.append(np.mean(errors))
        print(f"{name:40s} {means[-1]:6.2f} {np.median(times):.3f}", flush=True)
    means = np.array(means)
    print(
        f"MEAN suite (16) {means[:16].mean():.2f}, others (25) "
        f"{means[16:].mean():.2f}, all {means.mean():.2f}"
    )


if __name__ == "__main__":
    main(int(sys.argv[1]))
