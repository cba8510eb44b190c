"""Does the CPMMC objective itself prefer the digit classes?

For every pair of digits in scikit-learn's ``load_digits`` (features / 16),
run CPMMC from 21 starts -- the true digits, the principal direction, 2-means
and 18 random directions -- and keep the run with the lowest objective, as
the restarts of the estimator do. The true-digit start is a diagnostic only:
the estimator never sees labels. If the lowest objective belongs to a run
that is far from the digits, no restart rule based on the objective can
reach the digits, whatever the search.

Usage:
    python bench/studies/cpmmc_objective.py [--out bench/studies/cpmmc_objective.json]
"""

import argparse
import itertools
import json
import time
import warnings

import numpy as np
from sklearn.datasets import load_digits

from mmc import CPMMC
from mmc.metrics import clustering_error

GRID_C = (5.0, 10.0, 20.0, 50.0, 100.0)
GRID_BALANCE = (0.0, 0.03, 0.1)
N_RANDOM = 18


def study(C, class_balance, X, y):
    rows = {}
    for a, b in itertools.combinations(range(10), 2):
        mask = (y == a) | (y == b)
        X_pair, y_pair = X[mask], y[mask]
        params = dict(C=C, class_balance=class_balance, n_init=1)
        runs = [("true", CPMMC(init=(y_pair == a).astype(int), **params))]
        runs += [("pca", CPMMC(init="pca", random_state=0, **params))]
        runs += [("kmeans", CPMMC(init="kmeans", random_state=0, **params))]
        runs += [
            (f"random{s}", CPMMC(init="random", random_state=s, **params))
            for s in range(N_RANDOM)
        ]
        results = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for name, est in runs:
                est.fit(X_pair)
                error = 100 * clustering_error(y_pair, est.labels_)
                results.append((name, est.objective_, error))
        best = min(results, key=lambda r: r[1])
        best_unlabelled = min(results[1:], key=lambda r: r[1])
        rows[f"{a}v{b}"] = {
            "true_start_error": results[0][2],
            "true_start_objective": results[0][1],
            "lowest_objective_error": best[2],
            "lowest_objective_start": best[0],
            "lowest_objective_without_true_start_error": best_unlabelled[2],
        }
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="bench/studies/cpmmc_objective.json")
    args = parser.parse_args()
    X, y = load_digits(return_X_y=True)
    X = X / 16.0
    report = []
    for C, class_balance in itertools.product(GRID_C, GRID_BALANCE):
        start = time.perf_counter()
        rows = study(C, class_balance, X, y)
        summary = {
            key: float(np.mean([r[key] for r in rows.values()]))
            for key in (
                "true_start_error",
                "lowest_objective_error",
                "lowest_objective_without_true_start_error",
            )
        }
        worst = sorted(rows, key=lambda p: -rows[p]["lowest_objective_error"])[:4]
        report.append(
            {
                "C": C,
                "class_balance": class_balance,
                "mean": summary,
                "worst_pairs": {p: rows[p]["lowest_objective_error"] for p in worst},
                "pairs": rows,
            }
        )
        print(
            f"C={C:g} class_balance={class_balance:g}: mean error of the lowest "
            f"objective {summary['lowest_objective_error']:.2f}% "
            f"(true start {summary['true_start_error']:.2f}%), worst "
            + ", ".join(f"{p} {rows[p]['lowest_objective_error']:.1f}" for p in worst)
            + f" [{time.perf_counter() - start:.0f}s]",
            flush=True,
        )
    with open(args.out, "w") as f:
        json.dump(report, f, indent=1)


if __name__ == "__main__":
    main()
