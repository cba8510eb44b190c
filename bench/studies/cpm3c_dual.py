"""CPM3C by dual coordinate descent against the cutting plane, and its settings.

Runs CPM3C on the cases of the robustness suite (the 16 multiclass cases
and the 57 two-class cases at n_clusters=2, those marked non-linear with
``kernel="rbf"``) and on the 45 digit pairs over three seeds, with the
cutting-plane solver and with coordinate descent under its defaults and
variants, and records per case the error after the best matching, the fit
time and its ratio to KMeans(n_init=10) fitted in the same run (the faster
of two fits, before and after). The variants of coordinate descent:

* ``epsilon=0.1`` / ``epsilon=0.01``: the precision of each SVM (the
  default is 0.03);
* ``1 / 2 / 6 values of C``: the continuation from ``C / 2**(L - 1)``
  (``mmc._cpm3c_dual.N_LEVELS``, 4 by default);
* ``n_init=1`` / ``n_init=2``: fewer restarts.

The labels are used for scoring only.

Usage: python -I bench/studies/cpm3c_dual.py [--quick] [--out DIR]
"""

import argparse
import itertools
import json
import os
import time
import warnings

import numpy as np
from sklearn.cluster import KMeans

import mmc._cpm3c_dual as dual
from mmc import CPM3C
from mmc.bench._data import digits
from mmc.bench._robustness_data import multiclass_cases, two_class_cases
from mmc.metrics import clustering_error

# name: (parameters, number of values of C)
VARIANTS = {
    "cutting plane": ({"solver": "cutting-plane"}, None),
    "coordinate descent": ({}, None),
    "epsilon=0.1": ({"epsilon": 0.1}, None),
    "epsilon=0.01": ({"epsilon": 0.01}, None),
    "1 value of C": ({}, 1),
    "2 values of C": ({}, 2),
    "6 values of C": ({}, 6),
    "n_init=1": ({"n_init": 1}, None),
    "n_init=2": ({"n_init": 2}, None),
}


def _fit(variant, X, y, k, seed=0, kernel=None):
    params, levels = VARIANTS[variant]
    if kernel is not None:
        params = {**params, "kernel": kernel}
    dual.N_LEVELS = 4 if levels is None else levels
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        start = time.perf_counter()
        est = CPM3C(n_clusters=k, random_state=seed, **params).fit(X)
        seconds = time.perf_counter() - start
    return {
        "error": 100 * clustering_error(y, est.labels_),
        "time": seconds,
        "objective": float(est.objective_),
        "solver": est.solver_,
        "warnings": sorted({w.category.__name__ for w in caught}),
    }


def _kmeans_time(X, k):
    start = time.perf_counter()
    KMeans(n_clusters=k, n_init=10, random_state=0).fit(X)
    return time.perf_counter() - start


def cases(group, variants, quick):
    rows = {}
    for case in multiclass_cases() if group == "multiclass" else two_class_cases():
        X, y = case.load()
        k = int(np.unique(y).size)
        kernel = "rbf" if case.nonlinear else None
        before = _kmeans_time(X, k)
        row = {name: _fit(name, X, y, k, kernel=kernel) for name in variants}
        km = KMeans(n_clusters=k, n_init=10, random_state=0).fit(X)
        row["KMeans"] = {
            "error": 100 * clustering_error(y, km.labels_),
            "time": min(before, _kmeans_time(X, k)),
        }
        for name in variants:
            row[name]["ratio"] = row[name]["time"] / row["KMeans"]["time"]
        rows[case.name] = row
        print(group, case.name, {n: round(r["error"], 2) for n, r in row.items()})
        if quick and len(rows) == 3:
            break
    return rows


def pairs(variants, seeds):
    errors = {name: [] for name in variants}
    for seed, (a, b) in itertools.product(seeds, itertools.combinations(range(10), 2)):
        X, y = digits((a, b))
        for name in variants:
            errors[name].append(_fit(name, X, y, 2, seed=seed)["error"])
    return errors


def summary(result, variants):
    lines = [
        "| variant | multiclass mean (16) | worse than KMeans + 1 | median time "
        "/ KMeans | two-class mean (57) | worse than KMeans + 1 | median time "
        "/ KMeans | 45 pairs x 3 seeds |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name in ["KMeans", *variants]:
        cells = []
        for group in ("multiclass", "two_class"):
            rows = result[group].values()
            errors = np.array([r[name]["error"] for r in rows])
            km = np.array([r["KMeans"]["error"] for r in rows])
            ratio = np.median([r[name]["time"] / r["KMeans"]["time"] for r in rows])
            cells += [f"{errors.mean():.2f}", str(int((errors > km + 1).sum()))]
            cells.append(f"{ratio:.1f}")
        pair_errors = result["pairs"].get(name)
        cells.append("-" if pair_errors is None else f"{np.mean(pair_errors):.3f}")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return lines


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default="bench/studies/results/cpm3c_dual")
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    variants = args.variants.split(",")
    os.makedirs(args.out, exist_ok=True)
    load = os.getloadavg()[0]
    result = {"variants": variants}
    for group in ("multiclass", "two_class"):
        result[group] = cases(group, variants, args.quick)
    result["pairs"] = pairs(variants, (0,) if args.quick else (0, 1, 2))
    result["load_average"] = [load, os.getloadavg()[0]]
    lines = summary(result, variants)
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump(result, f, indent=1)
    with open(os.path.join(args.out, "summary.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
