"""Unequal clusters: clustering error against the class balance bound.

Two Gaussian blobs in 2-D (unit variance, centres 4 apart), 800 and 200
samples (1:4), and the same blobs at 500 and 500 as a control. Every
estimator with its defaults (``class_balance="auto"``; ODMC also
``intercept_scaling="auto"``, and ODMC once more without an offset,
``intercept_scaling=0``, the paper's model) and with ``class_balance``
set to the papers' 0.03, 0.3, 0.6 and 1.0 (a true 1:4 split has
``|mean_i y_i| = 0.6``); CPM3C also on the centred data, which must change
nothing since it centres the samples itself (the paper's CPM3C, with no
intercept, failed on these blobs away from the origin). KMeans(n_init=10)
in the same run. Labels only score the results.

Run from the repository root with mmc installed::

    python -I bench/studies/class_balance.py > bench/studies/class_balance.md
"""

import time
import warnings

import numpy as np
from sklearn.cluster import KMeans

import mmc
from mmc.metrics import clustering_error

ESTIMATORS = ("CPMMC", "CPM3C", "MultivariateMMC", "EvoMMC", "FastEvoMMC", "ODMC")
BOUNDS = ("default", 0.03, 0.3, 0.6, 1.0)


def blobs(n_big, n_small, seed=0):
    rng = np.random.default_rng(seed)
    X = np.vstack(
        [
            rng.normal([0.0, 0.0], 1.0, (n_big, 2)),
            rng.normal([4.0, 0.0], 1.0, (n_small, 2)),
        ]
    )
    return X, np.repeat([0, 1], [n_big, n_small])


def error_of(name, bound, X, y, **extra):
    params = {"random_state": 0, **extra}
    if bound != "default":
        params["class_balance"] = bound
    estimator = getattr(mmc, name)(**params)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        estimator.fit(X)
    return 100 * clustering_error(y, estimator.labels_), time.perf_counter() - start


def main():
    start = time.perf_counter()
    print("# Unequal clusters and the class balance bound\n")
    print(__doc__.split("\n\n")[1].replace("\n", " ").strip() + "\n")
    print(
        "Command: `python -I bench/studies/class_balance.py > "
        "bench/studies/class_balance.md`.\n"
    )
    defaults = {
        name: getattr(mmc, name)().get_params()["class_balance"] for name in ESTIMATORS
    }
    for title, (n_big, n_small) in (("1:4 (800 + 200)", (800, 200)),
                                    ("1:1 (500 + 500)", (500, 500))):  # fmt: skip
        X, y = blobs(n_big, n_small)
        print(f"## {title}\n")
        print("Clustering error (%) for each `class_balance`:\n")
        print("| estimator | default | " + " | ".join(map(str, BOUNDS[1:])) + " |")
        print("|---|---|" + "---|" * (len(BOUNDS) - 1))
        rows = [(name, X, {}) for name in ESTIMATORS]
        rows.insert(2, ("CPM3C, centred X", X - X.mean(axis=0), {}))
        rows.append(("ODMC, intercept_scaling=0", X, {"intercept_scaling": 0.0}))
        for name, data, extra in rows:
            estimator = name.split(",")[0]
            cells = []
            for bound in BOUNDS:
                error, _ = error_of(estimator, bound, data, y, **extra)
                cells.append(f"{error:.1f}")
            label = f"{name} (default {defaults[estimator]})"
            print(f"| {label} | " + " | ".join(cells) + " |")
        kmeans = KMeans(n_clusters=2, n_init=10, random_state=0).fit(X)
        error = 100 * clustering_error(y, kmeans.labels_)
        print(f"| KMeans(n_init=10) | {error:.1f} |" + " |" * (len(BOUNDS) - 1) + "\n")
    print(
        f"Measured in {time.perf_counter() - start:.0f} s with mmc {mmc.__version__}."
    )


if __name__ == "__main__":
    main()
