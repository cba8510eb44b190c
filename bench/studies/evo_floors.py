"""EvoMMC and FastEvoMMC with k > 2 clusters: one floor on every cluster
against floors on the j smallest clusters together.

``class_balance="auto"`` on uneven k-means clusters used to give the search
one floor, the size of the smallest k-means cluster less 0.03 n / k, on
every cluster; now it bounds the j smallest clusters together by the share
of the j smallest k-means clusters less 0.03 j / k, as CPM3C does
(``mmc._balance.size_floors``, ``mmc._evo_multiclass.search_floors``). The
bound ``class_balance_`` is the same both ways, and a number gives the one
floor it gave before, so the old rule is the fit with
``class_balance=class_balance_`` (the same draws: a number gives the fit
that ``"auto"`` would at that bound); cases whose k-means clusters are even
are the same both ways and fitted once.

Cases: the 16 multiclass cases of ``python -m mmc.bench robustness`` and
32 more, generated here: 8 subsets of 3 to 6 digits, 4 subsets of 4 digits
kept at 100, 70, 45 and 25 % of their samples, Gaussian blobs with k = 4,
6, 8 in 10 features and sizes from 400 down to a third of it (three data
seeds, raw and standardised), wine and iris min-max scaled. Labels only
score. Run from any directory but the repository root (or with ``-I``)::

    python -I bench/studies/evo_floors.py OUT.json [SEEDS]

``SEEDS``: comma-separated ``random_state`` values of every estimator and
of KMeans(n_init=10) (``0,1,2``).
"""

import json
import sys
import time
import warnings

import numpy as np
from sklearn.cluster import KMeans
from sklearn.datasets import load_digits, load_iris, load_wine, make_blobs
from sklearn.preprocessing import MinMaxScaler, StandardScaler

from mmc import EvoMMC, FastEvoMMC
from mmc.bench._robustness_data import multiclass_cases
from mmc.metrics import clustering_error


def generated_cases():
    """``(name, X, y)`` of the 32 cases beyond the suite's."""
    X, y = load_digits(return_X_y=True)
    X = X / 16.0
    rng = np.random.RandomState(0)
    for _ in range(8):
        digits = np.sort(rng.choice(10, rng.randint(3, 7), replace=False))
        rows = np.isin(y, digits)
        yield f"digits {''.join(map(str, digits))}", X[rows], y[rows]
    for _ in range(4):
        digits = rng.choice(10, 4, replace=False)
        rows = np.sort(
            np.concatenate(
                [
                    np.flatnonzero(y == d)[: int(share * np.sum(y == d))]
                    for d, share in zip(digits, (1.0, 0.7, 0.45, 0.25))
                ]
            )
        )
        yield f"digits {''.join(map(str, digits))} 1:4", X[rows], y[rows]
    for k in (4, 6, 8):
        for seed in (1, 2, 3):
            centres = np.random.RandomState(100 * k + seed).uniform(-6, 6, (k, 10))
            sizes = np.round(400 / 3 ** (np.arange(k) / (k - 1))).astype(int)
            Xb, yb = make_blobs(
                sizes, centers=centres, cluster_std=1.5, random_state=seed
            )
            yield f"blobs k={k} 1:3 seed {seed}", Xb, yb
            yield (
                f"blobs k={k} 1:3 seed {seed} std",
                StandardScaler().fit_transform(Xb),
                yb,
            )
    for name, load in (("wine", load_wine), ("iris", load_iris)):
        Xt, yt = load(return_X_y=True)
        yield f"{name} minmax", MinMaxScaler().fit_transform(Xt), yt


def timed(estimator, X):
    start = time.perf_counter()
    estimator.fit(X)
    return estimator, time.perf_counter() - start


def main(out, seeds):
    warnings.simplefilter("ignore")
    cases = [("suite", c.name, *c.load()) for c in multiclass_cases()]
    cases += [("generated", *case) for case in generated_cases()]
    rows = []
    for group, name, X, y in cases:
        k = np.unique(y).size
        for seed in seeds:
            kmeans = KMeans(k, n_init=10, random_state=seed).fit(X)
            row = {
                "group": group,
                "case": name,
                "seed": seed,
                "kmeans": 100 * clustering_error(y, kmeans.labels_),
            }
            for Estimator in (EvoMMC, FastEvoMMC):
                new, new_time = timed(Estimator(n_clusters=k, random_state=seed), X)
                floors = new.size_floors_
                uniform = np.all(floors == floors[0] * np.arange(1, k))
                if uniform:
                    old, old_time = new, new_time
                else:
                    old, old_time = timed(
                        Estimator(
                            n_clusters=k,
                            class_balance=new.class_balance_,
                            random_state=seed,
                        ),
                        X,
                    )
                row[Estimator.__name__] = {
                    "floors": floors.tolist(),
                    "uneven": not uniform,
                    "one_floor": 100 * clustering_error(y, old.labels_),
                    "floors_of_smallest": 100 * clustering_error(y, new.labels_),
                    "time_one_floor": old_time,
                    "time_floors_of_smallest": new_time,
                }
            rows.append(row)
            print(
                f"{name:28s} seed {seed} KMeans {row['kmeans']:6.2f} "
                + " ".join(
                    f"{e} {row[e]['one_floor']:6.2f} -> "
                    f"{row[e]['floors_of_smallest']:6.2f}"
                    for e in ("EvoMMC", "FastEvoMMC")
                ),
                flush=True,
            )
    with open(out, "w") as f:
        json.dump(rows, f, indent=1)
    summary(rows)


def summary(rows):
    """Mean error and cases worse than KMeans + 1, per group and seed."""
    print(
        "| estimator | group | seed | KMeans | one floor | floors of the j smallest |"
    )
    print("|---|---|---|---|---|---|")
    for name in ("EvoMMC", "FastEvoMMC"):
        for group in ("suite", "generated"):
            for seed in sorted({r["seed"] for r in rows}):
                chosen = [r for r in rows if r["group"] == group and r["seed"] == seed]
                kmeans = np.array([r["kmeans"] for r in chosen])
                cells = []
                for rule in ("one_floor", "floors_of_smallest"):
                    errors = np.array([r[name][rule] for r in chosen])
                    worse = int(np.sum(errors > kmeans + 1))
                    cells.append(f"{errors.mean():.2f} ({worse}/{len(chosen)})")
                print(
                    f"| {name} | {group} | {seed} | {kmeans.mean():.2f} | "
                    + " | ".join(cells)
                    + " |"
                )


if __name__ == "__main__":
    main(
        sys.argv[1],
        [int(s) for s in (sys.argv[2] if len(sys.argv) > 2 else "0,1,2").split(",")],
    )
