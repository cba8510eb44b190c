"""The normalised cut in the graph start (mmc/_graph_start.py), as built.

On every case of the robustness suite and of the held-out cases of
``graph_start.py`` (their rows as that script loads them), the library's
own two clusterings of the rows of the class-balance estimate (seed 0): the
k-means estimate's labels and the spectral clustering of the
10-nearest-neighbour graph. For each: the normalised cut of that graph
(:func:`mmc._graph_start.normalised_cut`), the paired z of the silhouettes
(graph minus k-means) and, where the estimate saw every row, both errors.
The summary counts the cases the silhouette test alone takes (z > 3), those
the cut keeps from it (the graph's cut no lower than k-means') and what the
chosen clustering errs. Labels only score. Run from /tmp with mmc
installed::

    python -I bench/studies/graph_cut.py suite OUT.json
    python -I bench/studies/graph_cut.py held-out OUT.json
    python -I bench/studies/graph_cut.py summary SUITE.json HELD_OUT.json
    python -I bench/studies/graph_cut.py cost
    python -I bench/studies/graph_cut.py ratio

``cost``: the time of the graph start alone (the graph, its clustering, the
cut and the silhouettes; not the k-means estimate, which the fit ran
before) on the suite's multiclass cases and two-class corpora, the median
of 5, with BLAS on one thread as inside a fit. ``ratio``: CPM3C's fit time
over KMeans(n_init=10)'s on the multiclass cases, with the start and with
it turned off (``_graph_start_applies`` patched to False), medians of 3
fits interleaved.
"""

import json
import math
import os
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from graph_start import LEVEL, held_out_cases, suite_cases  # noqa: E402

from mmc._balance import kmeans_estimate  # noqa: E402
from mmc._graph_start import (  # noqa: E402
    SampleDistances,
    graph_start,
    neighbour_graph,
    normalised_cut,
    silhouettes,
    spectral_labels,
)
from mmc._kmeans import nearest_centres  # noqa: E402
from mmc._threads import single_blas_thread  # noqa: E402
from mmc.metrics import clustering_error  # noqa: E402


def probe(cases):
    rows = []
    for group, name, X, y, _ in cases:
        k = len(np.unique(y))
        estimate = kmeans_estimate(X, k, np.random.RandomState(0))
        if estimate is None:  # sparse rows beyond the sample: no graph
            continue
        centres, sample = estimate
        kmeans = nearest_centres(sample, centres)
        distances = SampleDistances(sample)
        affinity = neighbour_graph(distances)
        graph = spectral_labels(affinity, k, np.random.RandomState(0))
        gain = np.subtract(*silhouettes(distances, (graph, kmeans), k))
        spread = gain.std(ddof=1)
        z = gain.mean() / (spread / math.sqrt(gain.size)) if spread > 0 else 0.0
        row = {
            "group": group,
            "case": name,
            "z": float(z),
            "cut_kmeans": normalised_cut(affinity, kmeans, k),
            "cut_graph": normalised_cut(affinity, graph, k),
        }
        if sample is X:  # errors where the estimate saw every row
            row["error_kmeans"] = 100 * clustering_error(y, kmeans)
            row["error_graph"] = 100 * clustering_error(y, graph)
        rows.append(row)
        print(row, flush=True)
    return rows


def summary(rows):
    print(
        "| group | cases | silhouette z > 3 | of those, cut no better "
        "| mean error, k-means | silhouette alone | silhouette and cut |"
    )
    print("|---|---|---|---|---|---|---|")
    for group in dict.fromkeys(r["group"] for r in rows):
        sel = [r for r in rows if r["group"] == group]
        by_z = [r for r in sel if r["z"] > LEVEL]
        vetoed = [r for r in by_z if r["cut_graph"] >= r["cut_kmeans"]]
        scored = [r for r in sel if "error_kmeans" in r]

        def chosen(r, cut):
            take = r["z"] > LEVEL and (not cut or r["cut_graph"] < r["cut_kmeans"])
            return r["error_graph"] if take else r["error_kmeans"]

        print(
            f"| {group} | {len(sel)} | {len(by_z)} | {len(vetoed)}"
            f"{' (' + ', '.join(r['case'] for r in vetoed) + ')' if vetoed else ''} "
            f"| {np.mean([r['error_kmeans'] for r in scored]):.2f} "
            f"| {np.mean([chosen(r, False) for r in scored]):.2f} "
            f"| {np.mean([chosen(r, True) for r in scored]):.2f} |"
        )


@single_blas_thread
def cost():
    for group, name, X, y, _ in suite_cases():
        if group not in ("multiclass", "topics"):
            continue
        k = len(np.unique(y))
        centres, sample = kmeans_estimate(X, k, np.random.RandomState(0))
        kmeans = nearest_centres(sample, centres)
        times = []
        for _ in range(5):
            start = time.perf_counter()
            graph_start(sample, kmeans, k, 0)
            times.append(time.perf_counter() - start)
        print(
            f"{group}, {name}: {sample.shape[0]} x {sample.shape[1]}, "
            f"{1000 * np.median(times):.1f} ms",
            flush=True,
        )


def ratio():
    from sklearn.cluster import KMeans

    from mmc import CPM3C

    def median_time(fit):
        times = []
        for _ in range(3):
            start = time.perf_counter()
            fit()
            times.append(time.perf_counter() - start)
        return float(np.median(times))

    applies = CPM3C._graph_start_applies
    ratios = {"with the start": [], "without": []}
    for group, name, X, y, _ in suite_cases():
        if group != "multiclass":
            continue
        k = len(np.unique(y))
        kmeans = median_time(lambda: KMeans(k, n_init=10, random_state=0).fit(X))
        line = f"{name}: KMeans {1000 * kmeans:.1f} ms"
        rules = (("with the start", applies), ("without", lambda self: False))
        for label, rule in rules:
            CPM3C._graph_start_applies = rule
            try:
                fit = median_time(lambda: CPM3C(n_clusters=k, random_state=0).fit(X))
            finally:
                CPM3C._graph_start_applies = applies
            ratios[label].append(fit / kmeans)
            line += f", CPM3C {label} {1000 * fit:.1f} ms ({fit / kmeans:.2f})"
        print(line, flush=True)
    for label, values in ratios.items():
        print(f"median time over KMeans's, {label}: {np.median(values):.2f}")


def main(argv):
    warnings.simplefilter("ignore")
    if argv[0] == "cost":
        cost()
        return
    if argv[0] == "ratio":
        ratio()
        return
    if argv[0] == "summary":
        rows = []
        for path in argv[1:]:
            with open(path) as f:
                rows += json.load(f)
        summary(rows)
        return
    rows = probe(suite_cases() if argv[0] == "suite" else held_out_cases())
    with open(argv[1], "w") as f:
        json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1:])
