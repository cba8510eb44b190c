"""Where CPM3C's time goes, and what the stopping rule and the starts change.

Runs CPM3C with its defaults and with variants on the cases of the
robustness suite (the 16 multiclass cases; with ``--two-class`` also the 57
two-class cases at n_clusters=2 and the 45 digit pairs over three seeds) and
records, per case, the error after the best matching, the fit time and its
ratio to KMeans(n_init=10) fitted right after, the number of dual QPs solved
(one per CCCP step) and the MMC objective. The variants:

* ``one k-means run``: the "kmeans" start from one run of k-means instead
  of the best of 10 (``mmc._starts.MULTICLASS_KMEANS_RUNS = 1``);
* ``n_iter_no_change=None``: the paper's stopping rule only (epsilon or
  max_iter, the last iterate);
* ``n_init=1`` / ``n_init=2``: fewer restarts.

The labels are used for scoring only.

Usage: python bench/studies/cpm3c_speed.py [--two-class] [--out DIR]
"""

import argparse
import itertools
import json
import os
import time
import warnings

import numpy as np
from sklearn.cluster import KMeans

import mmc._cpm3c_constraints as constraints
import mmc._starts as starts
from mmc import CPM3C
from mmc.bench._data import digits
from mmc.bench._robustness_data import multiclass_cases, two_class_cases
from mmc.metrics import clustering_error

VARIANTS = {
    "default": ({}, 10),
    "one k-means run": ({}, 1),
    "n_iter_no_change=None": ({"n_iter_no_change": None}, 10),
    "one k-means run and n_iter_no_change=None": ({"n_iter_no_change": None}, 1),
    "n_init=2": ({"n_init": 2}, 10),
    "n_init=1": ({"n_init": 1}, 10),
}

_solves = [0]
_solve = constraints.MulticlassConstraints.solve


def _counted_solve(self):
    _solves[0] += 1
    return _solve(self)


constraints.MulticlassConstraints.solve = _counted_solve


def _fit(params, kmeans_runs, X, y, k, seed=0, kernel=None):
    starts.MULTICLASS_KMEANS_RUNS = kmeans_runs
    if kernel is not None:
        params = {**params, "kernel": kernel}
    _solves[0] = 0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        start = time.perf_counter()
        est = CPM3C(n_clusters=k, random_state=seed, **params).fit(X)
        seconds = time.perf_counter() - start
    return {
        "error": 100 * clustering_error(y, est.labels_),
        "time": seconds,
        "solves": _solves[0],
        "objective": float(est.objective_),
        "n_iter": int(est.n_iter_),
        "warnings": sorted({w.category.__name__ for w in caught}),
    }


def _kmeans(X, y, k):
    start = time.perf_counter()
    km = KMeans(n_clusters=k, n_init=10, random_state=0).fit(X)
    return time.perf_counter() - start, 100 * clustering_error(y, km.labels_)


def multiclass(variants):
    rows = {}
    for case in multiclass_cases():
        X, y = case.load()
        k = int(np.unique(y).size)
        row = {}
        for name in variants:
            params, runs = VARIANTS[name]
            row[name] = _fit(params, runs, X, y, k)
            row[name]["kmeans_time"], row["kmeans_error"] = _kmeans(X, y, k)
            row[name]["ratio"] = row[name]["time"] / row[name]["kmeans_time"]
        rows[case.name] = row
        print(case.name, {n: round(row[n]["error"], 2) for n in variants}, flush=True)
    return rows


def two_class(variants):
    rows = {}
    for case in two_class_cases():
        X, y = case.load()
        kernel = "rbf" if case.nonlinear else None
        rows[case.name] = {
            name: _fit(*VARIANTS[name], X, y, 2, kernel=kernel) for name in variants
        }
    pairs = {name: [] for name in variants}
    for seed, (a, b) in itertools.product(
        (0, 1, 2), itertools.combinations(range(10), 2)
    ):
        X, y = digits((a, b))
        for name in variants:
            pairs[name].append(_fit(*VARIANTS[name], X, y, 2, seed=seed))
    return rows, pairs


def _summary(rows, variants, kmeans=True):
    lines = [
        "| variant | mean error | worse than KMeans + 1 | QPs solved | "
        "median time / KMeans | cases with a warning |",
        "|---|---|---|---|---|---|",
    ]
    for name in variants:
        errors = np.array([r[name]["error"] for r in rows.values()])
        km = np.array([r["kmeans_error"] for r in rows.values()])
        lines.append(
            f"| {name} | {errors.mean():.2f} | {(errors > km + 1).sum()} | "
            f"{sum(r[name]['solves'] for r in rows.values())} | "
            f"{np.median([r[name]['ratio'] for r in rows.values()]):.1f} | "
            f"{sum(bool(r[name]['warnings']) for r in rows.values())} |"
        )
    return lines


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--two-class", action="store_true")
    parser.add_argument("--out", default="bench/studies/results/cpm3c_speed")
    parser.add_argument("--variants", default=",".join(VARIANTS))
    args = parser.parse_args()
    variants = args.variants.split(",")
    os.makedirs(args.out, exist_ok=True)
    load = os.getloadavg()[0]
    result = {"variants": variants, "multiclass": multiclass(variants)}
    lines = _summary(result["multiclass"], variants)
    if args.two_class:
        rows, pairs = two_class(variants)
        result["two_class"], result["digit_pairs"] = rows, pairs
        lines += [
            "",
            "| variant | 57 two-class cases, mean error | QPs | "
            "45 digit pairs x 3 seeds, mean error | QPs |",
            "|---|---|---|---|---|",
        ]
        for name in variants:
            lines.append(
                f"| {name} | {np.mean([r[name]['error'] for r in rows.values()]):.2f} "
                f"| {sum(r[name]['solves'] for r in rows.values())} "
                f"| {np.mean([p['error'] for p in pairs[name]]):.3f} "
                f"| {sum(p['solves'] for p in pairs[name])} |"
            )
    result["load_average"] = [load, os.getloadavg()[0]]
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump(result, f, indent=1)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
