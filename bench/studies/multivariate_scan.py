"""Fit time of MultivariateMMC(loss="nmi") against n
(bench/studies/multivariate_scan.md).

For n = 5k .. 200k samples of make_blobs (two centres, 50 features,
cluster_std=4), the fit of MultivariateMMC(loss="nmi", random_state=0) and
KMeans(n_clusters=2, n_init=1) as the baseline, in the same run. Public API
only; the comparison with the full scan that the estimator ran before the
branch and bound is recorded in the .md, with the commit of its script.

    python -I bench/studies/multivariate_scan.py
"""

import subprocess
import time

from sklearn.cluster import KMeans
from sklearn.datasets import make_blobs

from mmc import MultivariateMMC

SIZES = (5_000, 10_000, 20_000, 50_000, 100_000, 200_000)


def _seconds(function):
    start = time.perf_counter()
    result = function()
    return time.perf_counter() - start, result


def main():
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    print(f"commit {commit}\n")
    print("| n | KMeans (s) | MultivariateMMC fit (s) | / KMeans | iterations |")
    print("|---|---|---|---|---|")
    for n in SIZES:
        X, _ = make_blobs(
            n_samples=n, n_features=50, centers=2, cluster_std=4.0, random_state=0
        )
        kmeans, _ = _seconds(
            lambda: KMeans(n_clusters=2, n_init=1, random_state=0).fit(X)
        )
        fit, fitted = _seconds(
            lambda: MultivariateMMC(loss="nmi", random_state=0).fit(X)
        )
        print(
            f"| {n} | {kmeans:.3f} | {fit:.2f} | {fit / kmeans:.1f} "
            f"| {fitted.n_iter_} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
