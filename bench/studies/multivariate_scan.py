"""Fit time of MultivariateMMC(loss="nmi") against n, before and after the
branch and bound of the most violated contingency table
(bench/studies/multivariate_scan.md).

For n = 5k .. 200k samples of make_blobs (two centres, 50 features,
cluster_std=4), in one run:

1. the fit of MultivariateMMC(loss="nmi", random_state=0), with the search
   (after) and, up to n = 20k, with the full scan (before: the kernel's
   ``exhaustive=True``), and KMeans(n_clusters=2, n_init=1) as the baseline;
2. one scan alone at the decision values of the fitted hyperplane, search
   against full scan (up to n = 100k), checking that both return the same
   table.

    python -I bench/studies/multivariate_scan.py
"""

import functools
import subprocess
import time

import numpy as np
from sklearn.cluster import KMeans
from sklearn.datasets import make_blobs
from sklearn.utils._openmp_helpers import _openmp_effective_n_threads

import mmc._multivariate as multivariate
from mmc import MultivariateMMC
from mmc._core._multivariate import LOSS_NMI, most_violated_table, xlogx_table

SIZES = (5_000, 10_000, 20_000, 50_000, 100_000, 200_000)
FULL_FIT_UP_TO = 20_000
FULL_SCAN_UP_TO = 100_000


def _seconds(function):
    start = time.perf_counter()
    result = function()
    return time.perf_counter() - start, result


def _fit(X, exhaustive):
    original = multivariate.most_violated_table
    if exhaustive:
        multivariate.most_violated_table = functools.partial(
            most_violated_table, exhaustive=True
        )
    try:
        return _seconds(lambda: MultivariateMMC(loss="nmi", random_state=0).fit(X))
    finally:
        multivariate.most_violated_table = original


def _prefixes(decision):
    magnitude = np.abs(decision)
    positive = np.sort(magnitude[decision > 0])
    negative = np.sort(magnitude[decision <= 0])
    return (
        np.concatenate([[0.0], np.cumsum(positive)]),
        np.concatenate([[0.0], np.cumsum(negative)]),
    )


def main():
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    n_threads = _openmp_effective_n_threads()
    print(f"commit {commit}, {n_threads} threads")
    fits = [
        "| n | KMeans (s) | fit, search (s) | / KMeans | fit, full scan (s) "
        "| / KMeans | same labels |",
        "|---|---|---|---|---|---|---|",
    ]
    scans = [
        "| n | tables | search (s) | full scan (s) | full / search | same table |",
        "|---|---|---|---|---|---|",
    ]
    for n in SIZES:
        X, _ = make_blobs(
            n_samples=n, n_features=50, centers=2, cluster_std=4.0, random_state=0
        )
        kmeans, _ = _seconds(
            lambda: KMeans(n_clusters=2, n_init=1, random_state=0).fit(X)
        )
        after, fitted = _fit(X, exhaustive=False)
        cells = [f"{n}", f"{kmeans:.3f}", f"{after:.2f}", f"{after / kmeans:.1f}"]
        if n <= FULL_FIT_UP_TO:
            before, reference = _fit(X, exhaustive=True)
            same = np.array_equal(fitted.labels_, reference.labels_)
            cells += [f"{before:.2f}", f"{before / kmeans:.1f}", str(same)]
        else:
            cells += ["-", "-", "-"]
        fits.append("| " + " | ".join(cells) + " |")

        pos, neg = _prefixes(fitted.decision_function(X))
        xlogx = xlogx_table(n)
        search, table = _seconds(
            lambda: most_violated_table(pos, neg, LOSS_NMI, 1.0, xlogx, n_threads)
        )
        cells = [f"{n}", f"{pos.size * neg.size:.2e}", f"{search:.4f}"]
        if n <= FULL_SCAN_UP_TO:
            full, reference = _seconds(
                lambda: most_violated_table(
                    pos, neg, LOSS_NMI, 1.0, xlogx, n_threads, exhaustive=True
                )
            )
            cells += [f"{full:.3f}", f"{full / search:.0f}", str(table == reference)]
        else:
            cells += ["-", "-", "-"]
        scans.append("| " + " | ".join(cells) + " |")
        print(fits[-1], flush=True)
        print(scans[-1], flush=True)
    print("\n".join(["", *fits, "", *scans]))


if __name__ == "__main__":
    main()
