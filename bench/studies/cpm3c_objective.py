"""Does the CPM3C objective prefer the digit classes?

On the digit subsets of the CPM3C contract ({0, 6, 8, 9}, {1, 2, 7, 9} and
all ten digits of ``load_digits``, features / 16), compare the default
estimator with the multiclass SVM of the true digits and of the k-means
clustering (assignments held fixed to the end), and with the full method
started from them. The true-digit start is a diagnostic only: the estimator
never sees labels. With ``--grid``, also run the default estimator for a few
values of C and class_balance.

Usage: python bench/studies/cpm3c_objective.py [--grid]
"""

import argparse
import warnings

import numpy as np
from sklearn.cluster import KMeans
from sklearn.datasets import load_digits

from mmc import CPM3C
from mmc.metrics import clustering_accuracy

SUBSETS = ((0, 6, 8, 9), (1, 2, 7, 9), tuple(range(10)))
GRID = ((5.0, 0.03), (5.0, 0.3), (20.0, 0.03), (100.0, 0.03), (100.0, 0.3))


def _report(name, est, y):
    k = est.n_clusters
    empty = k - np.unique(est.labels_).size
    accuracy = 100 * clustering_accuracy(y, est.labels_)
    return (
        f"{name}: objective {est.objective_:.3f}, accuracy {accuracy:.1f}, "
        f"empty {empty}"
    )


def _svm(X, k, labels):
    """The multiclass SVM of a clustering, its assignments held fixed."""
    return CPM3C(
        n_clusters=k,
        init=labels,
        n_init=1,
        max_iter=300,
        refine_init=False,
        random_state=0,
    ).fit(X)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--grid", action="store_true")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    X, y = load_digits(return_X_y=True)
    X = X / 16.0
    for digits in SUBSETS:
        mask = np.isin(y, digits)
        X_sub, y_sub = X[mask], y[mask]
        k = len(digits)
        print(f"digits {digits}")
        print(
            "  "
            + _report("default", CPM3C(n_clusters=k, random_state=0).fit(X_sub), y_sub)
        )
        kmeans = KMeans(n_clusters=k, n_init=10, random_state=0).fit(X_sub).labels_
        for name, labels in (("digits", y_sub), ("k-means", kmeans)):
            print("  " + _report(f"SVM on {name}", _svm(X_sub, k, labels), y_sub))
            full = CPM3C(n_clusters=k, init=labels, n_init=1, random_state=0)
            print("  " + _report(f"CPM3C from {name}", full.fit(X_sub), y_sub))
        if args.grid:
            for C, class_balance in GRID:
                est = CPM3C(
                    n_clusters=k, C=C, class_balance=class_balance, random_state=0
                ).fit(X_sub)
                print(
                    "  " + _report(f"C={C} class_balance={class_balance}", est, y_sub)
                )


if __name__ == "__main__":
    main()
