"""What the fit's shared work saves CPM3C on the multiclass cases.

Two changes of stop 60 that keep every label: the graph start's passes
over the sample's distances share their blocks among the fit's threads
(``mmc._graph_start._DistanceBlocks.visit_blocks``), and the refit at the
papers' bound takes the fit's k-means runs
(``mmc._balance_cut.SHARED_KMEANS_RUNS``).
This script times CPM3C with both, with neither (the passes on one thread,
the refit computing its own runs: the library before them), and
KMeans(n_init=10), interleaved case by case on the 16 multiclass cases of
the robustness suite; medians of 5 fits each.

Run alone on the machine, from any directory but the repository root (or
with ``-I``), mmc installed::

    python -I bench/studies/fit_reuse.py
"""

import warnings
from contextlib import contextmanager

import numpy as np
from sklearn.cluster import KMeans

import mmc._balance_cut as balance_cut
import mmc._graph_start as graph_start
from mmc import CPM3C
from mmc.bench._robustness_data import multiclass_cases
from mmc.bench._timing import time_fit

REPEAT = 5


@contextmanager
def without_reuse():
    """The passes on one thread; the refit finds no runs under the name it
    looks for, and computes its own."""
    threads, name = graph_start.fit_threads, balance_cut.SHARED_KMEANS_RUNS
    graph_start.fit_threads = lambda n_tasks, products: 1
    balance_cut.SHARED_KMEANS_RUNS = "_no_runs_shared"
    try:
        yield
    finally:
        graph_start.fit_threads, balance_cut.SHARED_KMEANS_RUNS = threads, name


def main():
    warnings.simplefilter("ignore")
    ratios = {"with": [], "without": []}
    print("| case | KMeans s | CPM3C without s (ratio) | CPM3C with s (ratio) |")
    print("|---|---|---|---|")
    for case in multiclass_cases():
        X, y = case.load()
        k = np.unique(y).size
        kmeans, _ = time_fit(lambda: KMeans(k, n_init=10, random_state=0), X, REPEAT)

        def cpm3c(k=k):
            return CPM3C(n_clusters=k, random_state=0)

        with without_reuse():
            without, _ = time_fit(cpm3c, X, REPEAT)
        with_reuse, _ = time_fit(cpm3c, X, REPEAT)
        ratios["without"].append(without / kmeans)
        ratios["with"].append(with_reuse / kmeans)
        print(
            f"| {case.name} | {kmeans:.3f} | {without:.3f} ({without / kmeans:.2f})"
            f" | {with_reuse:.3f} ({with_reuse / kmeans:.2f}) |",
            flush=True,
        )
    for setting, values in ratios.items():
        print(f"median time / KMeans, {setting}: {np.median(values):.2f}")


if __name__ == "__main__":
    main()
