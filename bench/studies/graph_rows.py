"""The graph start on fewer rows: what it costs in errors and saves in time.

The graph start (mmc/_graph_start.py) clusters the rows that the k-means
estimate sees, up to ``SAMPLE_ROWS`` (2000): on the multiclass cases its
graph costs one to five times KMeans(n_init=10) (``graph_start.md``), and
CPM3C's median fit time over KMeans's is about 5 with it and 2.4 without
it, against the factor 3 that the multiclass issue asks. This script fits
an estimator on the robustness suite (its two-class, multiclass and corpus
groups, ``mmc.bench._robustness.run``) with the graph start computed on at
most ``ROWS`` rows of the estimate's sample (drawn with the start's seed;
the bound is still set from the sizes of all sampled rows), and records
the errors and the fit times over KMeans's of the same run.

Run from any directory but the repository root (or with ``-I``), mmc
installed::

    python -I bench/studies/graph_rows.py collect NAME ROWS OUT_DIR [SEED]
    python -I bench/studies/graph_rows.py report NAME OUT_DIR ROWS ROWS ...
    python -I bench/studies/graph_rows.py times

``ROWS`` 2000 is the library as it is. Labels only score. ``times``
prints CPM3C's fit time over KMeans(n_init=10)'s on the 16 multiclass
cases with the start on 2000 rows, on 1000 and without it (medians of 3
fits, interleaved case by case): run it alone on the machine.
"""

import json
import sys
import warnings
from pathlib import Path

import numpy as np
from sklearn.cluster import KMeans

import mmc._graph_start as graph_module
from mmc import CPM3C
from mmc.bench._registry import estimators as registry
from mmc.bench._robustness import GROUPS, MARGIN, run
from mmc.bench._robustness_data import multiclass_cases
from mmc.bench._timing import time_fit

WHOLE_SAMPLE = graph_module.graph_start


def graph_start_on(max_rows):
    """:func:`mmc._graph_start.graph_start` on at most ``max_rows`` of the
    sampled rows, drawn with the start's seed."""

    def graph_start(sample, kmeans_labels, n_clusters, seed):
        if sample.shape[0] <= max_rows:
            return WHOLE_SAMPLE(sample, kmeans_labels, n_clusters, seed)
        chosen = np.random.RandomState(seed).choice(
            sample.shape[0], max_rows, replace=False
        )
        chosen.sort()
        return WHOLE_SAMPLE(sample[chosen], kmeans_labels[chosen], n_clusters, seed)

    return graph_start


def collect(name, max_rows, out_dir, seed=0):
    """``OUT_DIR/NAME_ROWS_seedSEED.json``: the suite's result for NAME."""
    graph_module.graph_start = graph_start_on(max_rows)
    entries = registry()
    result = run({name: entries[name]}, repeat=3, random_state=seed)
    Path(out_dir).mkdir(parents=True, exist_ok=True)
    with open(Path(out_dir) / f"{name}_{max_rows}_seed{seed}.json", "w") as f:
        json.dump(result, f, indent=1)


def report(name, out_dir, row_counts, seed=0):
    """Per group and row count: mean error (cases worse than KMeans +
    MARGIN), median fit time over KMeans's; then the cases whose error
    moved by more than a point from the first row count."""
    results = {}
    for rows in row_counts:
        with open(Path(out_dir) / f"{name}_{rows}_seed{seed}.json") as f:
            results[rows] = json.load(f)
    print("| group | rows | mean error (worse) | median time / KMeans |")
    print("|---|---|---|---|")
    for group in GROUPS:
        for rows in row_counts:
            cases = results[rows][group]["cases"].values()
            errors = [c["scores"][name]["error"] for c in cases]
            worse = sum(
                c["scores"][name]["error"] > c["scores"]["KMeans"]["error"] + MARGIN
                for c in cases
            )
            ratio = np.median([c["scores"][name]["time_over_kmeans"] for c in cases])
            print(
                f"| {group} | {rows} | {np.mean(errors):.2f} ({worse}/{len(errors)})"
                f" | {ratio:.2f} |"
            )
    first = row_counts[0]
    print(f"\nCases moved by more than a point from {first} rows (KMeans):\n")
    for group in GROUPS:
        for case, record in results[first][group]["cases"].items():
            base = record["scores"][name]["error"]
            errors = {
                rows: results[rows][group]["cases"][case]["scores"][name]["error"]
                for rows in row_counts[1:]
            }
            moves = [f"{r}: {e:.2f}" for r, e in errors.items() if abs(e - base) > 1]
            if moves:
                kmeans = record["scores"]["KMeans"]["error"]
                print(f"* {case}: {base:.2f} -> {', '.join(moves)} ({kmeans:.2f})")


def times():
    """CPM3C's fit time over KMeans's per multiclass case and setting."""
    warnings.simplefilter("ignore")
    settings = {
        "2000": graph_start_on(2000),
        "1000": graph_start_on(1000),
        "none": lambda *args: None,
    }
    ratios = {setting: [] for setting in settings}
    for case in multiclass_cases():
        X, y = case.load()
        k = np.unique(y).size
        line = f"{case.name:22s}"
        for setting, start in settings.items():
            kmeans, _ = time_fit(lambda: KMeans(k, n_init=10, random_state=0), X, 3)
            graph_module.graph_start = start
            cpm3c, _ = time_fit(lambda: CPM3C(n_clusters=k, random_state=0), X, 3)
            ratios[setting].append(cpm3c / kmeans)
            line += f" | {setting} {cpm3c:.3f} s ({cpm3c / kmeans:.1f}x)"
        print(line, flush=True)
    for setting, values in ratios.items():
        print(f"{setting}: median {np.median(values):.2f}")


if __name__ == "__main__":
    command = sys.argv[1]
    if command == "collect":
        seed = int(sys.argv[5]) if len(sys.argv) > 5 else 0
        collect(sys.argv[2], int(sys.argv[3]), sys.argv[4], seed)
    elif command == "report":
        report(sys.argv[2], sys.argv[3], [int(r) for r in sys.argv[4:]])
    elif command == "times":
        times()
    else:
        raise SystemExit(__doc__)
