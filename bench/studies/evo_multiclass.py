"""EvoMMC and FastEvoMMC with k > 2 clusters on the multiclass cases.

Runs both estimators (defaults, ``n_clusters`` = the number of classes) on
the 16 multiclass cases of the robustness suite for several values of
``class_balance``, which sets the smallest cluster size to
``(1 - class_balance) n / k``, with KMeans(n_init=10) fitted first on the
same case, and
prints the error (%) after the best matching of clusters to classes, the
fitness and the fit time over KMeans's. The labels are used for scoring
only.

Usage: python bench/studies/evo_multiclass.py [--balances 0.03,0.5,0.75]
"""

import argparse
import json
import time
import warnings

import numpy as np
from sklearn.cluster import KMeans

from mmc import EvoMMC, FastEvoMMC
from mmc.bench._robustness_data import multiclass_cases
from mmc.metrics import clustering_error


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--balances", default="0.03,0.5,0.75")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    balances = [float(b) for b in args.balances.split(",")]
    rows = {}
    for case in multiclass_cases():
        X, y = case.load()
        k = int(np.unique(y).size)
        start = time.perf_counter()
        kmeans = KMeans(n_clusters=k, n_init=10, random_state=0).fit(X)
        kmeans_time = time.perf_counter() - start
        row = {"KMeans": 100 * clustering_error(y, kmeans.labels_)}
        for balance in balances:
            for Estimator in (EvoMMC, FastEvoMMC):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    start = time.perf_counter()
                    est = Estimator(
                        n_clusters=k, class_balance=balance, random_state=0
                    ).fit(X)
                    seconds = time.perf_counter() - start
                row[f"{Estimator.__name__} class_balance={balance:g}"] = {
                    "error": 100 * clustering_error(y, est.labels_),
                    "fitness": float(est.objective_),
                    "time_over_kmeans": seconds / kmeans_time,
                }
        rows[case.name] = row
        cells = " ".join(
            f"{name} {r['error']:.2f}" for name, r in row.items() if name != "KMeans"
        )
        print(f"{case.name}: KMeans {row['KMeans']:.2f} {cells}", flush=True)
    print(
        "\n| estimator | mean error | worse than "
        "KMeans + 1 | median time / KMeans |\n|---|---|---|---|"
    )
    kmeans = np.array([r["KMeans"] for r in rows.values()])
    print(f"| KMeans | {kmeans.mean():.2f} | - | 1.0 |")
    for name in (n for n in next(iter(rows.values())) if n != "KMeans"):
        errors = np.array([r[name]["error"] for r in rows.values()])
        ratio = np.median([r[name]["time_over_kmeans"] for r in rows.values()])
        print(
            f"| {name} | {errors.mean():.2f} | {(errors > kmeans + 1).sum()} "
            f"| {ratio:.1f} |"
        )
    if args.out:
        with open(args.out, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
