"""Floors of CPM3C's coordinate descent that admit sampling noise (not taken).

Replaces ``mmc._balance.size_floors`` for ``class_balance="auto"`` by a
variant whose slack on the share P of the j smallest clusters is at least
``z`` standard errors of the k-means estimate, ``z sqrt(P (1 - P) / n)``
(never less than the papers' ``0.03 j / k``), and runs CPM3C with its other
defaults (``random_state=0``) on the robustness suite's 16 multiclass and
57 two-class cases (``kernel="rbf"`` on the non-linear ones) and on the 45
digit pairs. The labels are used for scoring only.

Usage, from /tmp::

    python -I floor_slack.py current  OUT.json   # the floors as they are
    python -I floor_slack.py all 1 OUT.json      # slack z = 1 (or 3)
    python -I floor_slack.py even-only 3 OUT.json

Outputs of the runs recorded in ``bench/studies/cpm3c_dual.md`` are the
``floor_slack_*.json`` files beside this script: per case ``[error,
KMeans error]``, and ``pairs``, the 45 pair errors.
"""

import itertools
import json
import math
import sys
import warnings

import numpy as np
from sklearn.cluster import KMeans

import mmc._balance as balance
from mmc import CPM3C
from mmc.bench._data import digits
from mmc.bench._robustness_data import multiclass_cases, two_class_cases
from mmc.metrics import clustering_error

VARIANT = sys.argv[1]
Z = float(sys.argv[2]) if len(sys.argv) > 3 else balance.NOISE_STANDARD_ERRORS
OUT = sys.argv[-1]
size_floors = balance.size_floors


def noisy_floors(sizes, n_samples, n_clusters, class_balance):
    if class_balance != "auto" or sizes is None or VARIANT == "current":
        return size_floors(sizes, n_samples, n_clusters, class_balance)
    sizes = np.sort(np.asarray(sizes, dtype=float))
    n_used = sizes.sum()
    steps = np.arange(1, n_clusters)
    even = (sizes[-1] - sizes[0]) / n_used <= balance.NOISE_STANDARD_ERRORS / (
        math.sqrt(n_used)
    )
    if even:
        shares = steps / n_clusters
    elif VARIANT == "even-only":
        return size_floors(sizes, n_samples, n_clusters, class_balance)
    else:
        shares = np.cumsum(sizes / n_used)[:-1]
    slack = np.maximum(
        balance.PAPER_CLASS_BALANCE * steps / n_clusters,
        Z * np.sqrt(shares * (1 - shares) / n_used),
    )
    return np.maximum(shares - slack, 0.0) * n_samples


def error(y, labels):
    return 100 * clustering_error(y, labels)


def main():
    warnings.simplefilter("ignore")
    balance.size_floors = noisy_floors
    out = {}
    for group, cases in (("multi", multiclass_cases()), ("two", two_class_cases())):
        for case in cases:
            X, y = case.load()
            k = len(np.unique(y))
            kernel = {"kernel": "rbf"} if case.nonlinear else {}
            est = CPM3C(n_clusters=k, random_state=0, **kernel).fit(X)
            km = KMeans(n_clusters=k, n_init=10, random_state=0).fit(X)
            out[f"{group}:{case.name}"] = (error(y, est.labels_), error(y, km.labels_))
    out["pairs"] = [
        error(y, CPM3C(n_clusters=2, random_state=0).fit(X).labels_)
        for X, y in (digits(pair) for pair in itertools.combinations(range(10), 2))
    ]
    with open(OUT, "w") as f:
        json.dump(out, f)
    for group in ("multi", "two"):
        e = np.array([v for key, v in out.items() if key.startswith(group)])
        worse = int((e[:, 0] > e[:, 1] + 1).sum())
        print(VARIANT, Z, group, f"mean {e[:, 0].mean():.2f}", f"worse {worse}")
    print(VARIANT, Z, "pairs", f"{np.mean(out['pairs']):.3f}")


if __name__ == "__main__":
    main()
