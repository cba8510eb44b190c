import json
import sys
import warnings
from math import sqrt

import numpy as np

import mmc
from mmc._kmeans import best_kmeans_centres, nearest_centres
from mmc.bench._data import ALL_PAIRS, digits
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
for a, b in ALL_PAIRS:
    X, y = digits((a, b))
    n = X.shape[0]
    labels = nearest_centres(X, best_kmeans_centres(X, 2, np.random.RandomState(0), 10))
    p = abs(int((labels == 1).sum()) * 2 - n) / n
    q = imbalance(rule, p, n)
    row = {"p": p}
    for name in names:
        params = {"random_state": 0}
        if q is not None:
            params["class_balance"] = min(1.0, (2 * q if name == "CPM3C" else q) + 0.03)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est = getattr(mmc, name)(**params).fit(X)
        row[name] = 100 * clustering_error(y, est.labels_)
    rows[f"{a}v{b}"] = row
    print(a, b, row, flush=True)
for name in names:
    print(name, np.mean([r[name] for r in rows.values()]))
json.dump(rows, open(out, "w"))
