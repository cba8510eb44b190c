"""One-hot categorical data: every estimator with its defaults, and CPMMC
against C.

Recorded in bench/studies/categorical.md. Two clusters of 150 samples
described by 4 categorical features of 3 levels, one-hot encoded (12
binary columns, four ones a row): feature f takes level (g + f) mod 3 in
cluster g with probability 0.7, else a level drawn uniformly; seeds 0-3.
Error (%) after the best matching of clusters to classes (labels score
only), ``random_state=0``.

    python -I bench/studies/categorical.py
"""

import warnings

import numpy as np
from sklearn.cluster import KMeans

from mmc import CPM3C, CPMMC, ODMC, EvoMMC, FastEvoMMC, MultivariateMMC
from mmc.metrics import clustering_error

ESTIMATORS = (CPMMC, MultivariateMMC, ODMC, CPM3C, EvoMMC, FastEvoMMC)
C_VALUES = (0.3, 1, 3, 10, 20, 100)


def one_hot_clusters(seed, n_samples=300, n_features=4, n_levels=3, noise=0.3):
    rng = np.random.default_rng(seed)
    clusters = np.repeat([0, 1], n_samples // 2)
    X = np.zeros((n_samples, n_features * n_levels))
    for i in range(n_samples):
        for f in range(n_features):
            if rng.random() < noise:
                level = rng.integers(0, n_levels)
            else:
                level = (clusters[i] + f) % n_levels
            X[i, n_levels * f + level] = 1.0
    return X, clusters


def error(y, labels):
    return f"{100 * clustering_error(y, labels):.1f}"


def main():
    warnings.simplefilter("ignore")
    names = ["KMeans"] + [E.__name__ for E in ESTIMATORS]
    print("## Defaults\n")
    print("| seed | " + " | ".join(names) + " |")
    print("|---|" + "---:|" * len(names))
    for seed in range(4):
        X, y = one_hot_clusters(seed)
        cells = [error(y, KMeans(2, n_init=10, random_state=0).fit(X).labels_)]
        cells += [error(y, E(random_state=0).fit(X).labels_) for E in ESTIMATORS]
        print(f"| {seed} | " + " | ".join(cells) + " |", flush=True)
    print("\n## CPMMC against C (default 20)\n")
    print("| seed | " + " | ".join(f"C = {c}" for c in C_VALUES) + " |")
    print("|---|" + "---:|" * len(C_VALUES))
    for seed in range(4):
        X, y = one_hot_clusters(seed)
        cells = [error(y, CPMMC(C=c, random_state=0).fit(X).labels_) for c in C_VALUES]
        print(f"| {seed} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
