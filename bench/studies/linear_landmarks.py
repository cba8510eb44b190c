"""FastEvoMMC's landmarks for the linear kernel: k-means centres, random
samples or the leading singular vectors (``landmarks="svd"``).

    python -I bench/studies/linear_landmarks.py

With at least as many landmarks as features, every rule gives the exact
linear kernel (its landmarks span the feature space), so only data with
more features than landmarks (300 by default) tell the rules apart: the
text-like cases of the robustness suite, and cases generated here that the
suite does not have (other numbers of features, values per row, topics,
separations, class ratios and seeds; dense Gaussian clusters in 1,000
dimensions). Every fit uses ``kernel="linear"`` and default parameters
otherwise, three seeds each; the reference is the exact kernel (EvoMMC).
Prints the error (%) of each rule per case (mean over the seeds), then the
mean over the cases and the number of cases worse than EvoMMC + 1 point and
than KMeans + 1 point.
"""

import time

import numpy as np
from sklearn.cluster import KMeans
from sklearn.datasets import make_blobs

from mmc import EvoMMC, FastEvoMMC
from mmc.bench._robustness_data import multiclass_cases, two_class_cases
from mmc.datasets import make_sparse_clusters
from mmc.metrics import clustering_error

SEEDS = (0, 1, 2)
RULES = ("kmeans", "random", "svd")


def _generated():
    """(name, X, y) of the cases this study adds to the suite's."""
    sparse = [
        # n, features, values per row, clusters, separation, weights, seed
        (1000, 2000, 20, 2, 0.3, None, 1),
        (1500, 20000, 50, 2, 0.25, [3, 1], 2),
        (2000, 20000, 100, 3, 0.3, None, 3),
        (1200, 2000, 50, 3, 0.3, [4, 2, 1], 4),
        (2000, 10000, 30, 6, 0.4, None, 5),
        (1800, 5000, 80, 6, 0.3, [3, 3, 2, 2, 1, 1], 6),
        (2000, 3000, 40, 8, 0.4, None, 7),
        (1500, 50000, 60, 5, 0.35, None, 8),
    ]
    for n, d, nnz, k, sep, weights, seed in sparse:
        X, y = make_sparse_clusters(
            n_samples=n,
            n_features=d,
            nnz_per_row=nnz,
            n_clusters=k,
            separation=sep,
            weights=weights,
            random_state=seed,
        )
        ratio = "" if weights is None else " " + ":".join(map(str, weights))
        name = f"sparse n={n} d={d} nnz={nnz} k={k} sep={sep}{ratio}"
        yield name, X, y
    for k, std in ((3, 12.0), (5, 10.0)):
        X, y = make_blobs(
            n_samples=1500, n_features=1000, centers=k, cluster_std=std, random_state=k
        )
        yield f"dense blobs d=1000 k={k} std={std:g}", X, y


def _cases():
    for case in two_class_cases() + multiclass_cases():
        X, y = case.load()
        if X.shape[1] > 300:
            yield f"suite: {case.name}", X, y
    yield from _generated()


def _errors(make, X, y):
    errors, seconds = [], []
    for seed in SEEDS:
        start = time.perf_counter()
        labels = make(seed).fit(X).labels_
        seconds.append(time.perf_counter() - start)
        errors.append(100.0 * clustering_error(y, labels))
    return float(np.mean(errors)), float(np.median(seconds))


def main():
    columns = [f"FastEvoMMC {rule}" for rule in RULES] + ["EvoMMC", "KMeans"]
    table = {column: [] for column in columns}
    print("| case | n | d | " + " | ".join(columns) + " |")
    print("|---|---|---|" + "---|" * len(columns))
    for name, X, y in _cases():
        k = int(np.unique(y).size)
        makers = {
            f"FastEvoMMC {rule}": lambda s, rule=rule: FastEvoMMC(
                n_clusters=k, kernel="linear", landmarks=rule, random_state=s
            )
            for rule in RULES
        }
        makers["EvoMMC"] = lambda s: EvoMMC(
            n_clusters=k, kernel="linear", random_state=s
        )
        makers["KMeans"] = lambda s: KMeans(k, n_init=10, random_state=s)
        cells = []
        for column in columns:
            error, seconds = _errors(makers[column], X, y)
            table[column].append(error)
            cells.append(f"{error:.2f} ({seconds:.2f} s)")
        print(f"| {name} | {X.shape[0]} | {X.shape[1]} | " + " | ".join(cells) + " |")
    exact = np.array(table["EvoMMC"])
    kmeans = np.array(table["KMeans"])
    print("\n| rule | mean error | worse than EvoMMC + 1 | worse than KMeans + 1 |")
    print("|---|---|---|---|")
    for column in columns:
        errors = np.array(table[column])
        print(
            f"| {column} | {errors.mean():.2f} | {int(np.sum(errors > exact + 1))} "
            f"| {int(np.sum(errors > kmeans + 1))} |"
        )


if __name__ == "__main__":
    main()
