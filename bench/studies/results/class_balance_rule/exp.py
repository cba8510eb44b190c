"""Label-free balance rules on the two-class robustness suite."""

import json
import sys
import time
import warnings
from math import sqrt

import numpy as np

import mmc
from mmc._kmeans import best_kmeans_centres, nearest_centres
from mmc.bench._robustness_data import two_class_cases
from mmc.metrics import clustering_error


def imbalance(rule, p, n):
    """The imbalance the rule admits (None: the estimator's default)."""
    if rule == "p+.03":
        return p
    if rule == "max":
        return max(0.0, p - 0.03)
    if rule == "z3":
        return p if p > 3 / sqrt(n) else 0.0
    if rule == "z2":
        return p if p > 2 / sqrt(n) else 0.0
    return None


names = sys.argv[1].split(",")
rule = sys.argv[2]
out = sys.argv[3]
rows = {}
for case in two_class_cases():
    X, y = case.load()
    n = X.shape[0]
    t = time.perf_counter()
    centres = best_kmeans_centres(X, 2, np.random.RandomState(0), 10)
    labels = nearest_centres(X, centres)
    p = abs(int((labels == 1).sum()) * 2 - n) / n
    tk = time.perf_counter() - t
    q = imbalance(rule, p, n)
    row = {"p": p, "tk": tk, "km": 100 * clustering_error(y, labels)}
    for name in names:
        cls = getattr(mmc, name)
        params = {"random_state": 0}
        if case.nonlinear:
            params["kernel"] = "rbf"
        if q is not None:
            params["class_balance"] = min(1.0, (2 * q if name == "CPM3C" else q) + 0.03)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t = time.perf_counter()
            est = cls(**params).fit(X)
            row[name] = 100 * clustering_error(y, est.labels_)
            row[name + "_t"] = time.perf_counter() - t
    rows[case.name] = row
    print(case.name, {k: round(v, 2) for k, v in row.items()}, flush=True)
json.dump(rows, open(out, "w"), indent=1)
