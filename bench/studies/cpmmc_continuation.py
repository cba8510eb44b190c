"""CPMMC (or MultivariateMMC) with a continuation in C, prototyped through
the public API: C/8, then C/4, C/2 and C, each level started from the
labels of the one before (``init=``), C the default (20 with the linear
kernel, 100 with the rbf). With ``min`` the lower objective at C of the
continuation and of the default fit wins (no labels); with ``plain`` the
continuation's labels are kept. On the robustness suite's two-class cases,
the 45 digit pairs (/16) and the four categorical cases of
categorical.py: the cases that move by more than a point, then per group
the mean error and the cases worse than KMeans + 1, default against
continuation. Recorded in bench/studies/categorical.md.

    python -I bench/studies/cpmmc_continuation.py CPMMC plain|min
"""

import sys
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import numpy as np
from cpmmc_levels import cases
from sklearn.cluster import KMeans

from mmc import CPMMC, MultivariateMMC
from mmc.metrics import clustering_error

warnings.simplefilter("ignore")
E = {"CPMMC": CPMMC, "MultivariateMMC": MultivariateMMC}[sys.argv[1]]


def continuation(X, kw):
    C = 100.0 if kw.get("kernel", "linear") != "linear" else 20.0
    default = E(random_state=0, **kw).fit(X)
    labels = E(C=C / 8, random_state=0, **kw).fit(X).labels_
    fit = None
    for c in (C / 4, C / 2, C):
        if np.unique(labels).size < 2:
            return default.labels_
        fit = E(C=c, init=labels, random_state=0, **kw).fit(X)
        labels = fit.labels_
    if sys.argv[2] == "plain":
        return labels
    # The lower objective at C wins (no labels).
    return labels if fit.objective_ < default.objective_ else default.labels_


def main():
    results = {}
    for group, name, X, y, kw in cases(E):
        kmeans = KMeans(2, n_init=10, random_state=0).fit(X).labels_
        errors = [
            100 * clustering_error(y, labels)
            for labels in (kmeans, E(random_state=0, **kw).fit(X).labels_)
        ]
        errors.append(100 * clustering_error(y, continuation(X, kw)))
        results.setdefault(group, []).append(errors)
        km, default, cont = errors
        if abs(default - cont) > 1:
            print(
                f"  {group} {name}: default {default:.2f} -> continuation "
                f"{cont:.2f} (KMeans {km:.2f})",
                flush=True,
            )
    for group, rows in results.items():
        rows = np.array(rows)
        worse = [int((rows[:, j] > rows[:, 0] + 1).sum()) for j in (1, 2)]
        print(
            f"{group} ({len(rows)}): KMeans {rows[:, 0].mean():.2f}; default "
            f"{rows[:, 1].mean():.2f} (worse {worse[0]}); continuation "
            f"{rows[:, 2].mean():.2f} (worse {worse[1]})"
        )


if __name__ == "__main__":
    main()
