"""The restarts of the cutting-plane estimators on two threads.

``n_jobs`` runs the restarts of CPMMC, MultivariateMMC, CPM3C and ODMC on
threads. This script times every estimator with ``n_jobs=1`` and
``n_jobs=2`` (the best of 3 interleaved fits each, ``random_state=0``,
the default 4 starts with two clusters) on the 57 two-class cases of
``python -m mmc.bench robustness`` (every other case for CPMMC,
MultivariateMMC and ODMC), checks that the labels are identical, and
prints per case the products of one pass over the training features
(n x d x k multiply-adds, ``mmc._threads.pass_products``) with CPM3C's
times, then each estimator's median ratio of the two times. Labels are
not used.

Run from the repository root with mmc installed, on a quiet machine
(about 2 minutes)::

    python -I bench/studies/cpm3c_restart_threads.py
"""

import time
import warnings

import numpy as np

import mmc
from mmc._threads import pass_products
from mmc.bench._robustness_data import two_class_cases

ROUNDS = 3


def best_times(make, X):
    times, labels = {}, {}
    for _ in range(ROUNDS):
        for n_jobs in (1, 2):
            start = time.perf_counter()
            fitted = make(n_jobs).fit(X)
            seconds = time.perf_counter() - start
            times[n_jobs] = min(times.get(n_jobs, np.inf), seconds)
            labels.setdefault(n_jobs, fitted.labels_)
    assert np.array_equal(labels[1], labels[2]), "labels changed"
    return times


def main():
    warnings.simplefilter("ignore")
    cases = two_class_cases()
    print("| case | products | CPM3C, n_jobs=1 (s) | n_jobs=2 (s) | ratio |")
    print("|---|---:|---:|---:|---:|")
    ratios = {"CPM3C": []}
    for case in cases:
        X, _ = case.load()
        times = best_times(
            lambda n_jobs: mmc.CPM3C(n_clusters=2, random_state=0, n_jobs=n_jobs), X
        )
        ratio = times[2] / times[1]
        ratios["CPM3C"].append(ratio)
        print(
            f"| {case.name} | {pass_products(X, 2):,} | {times[1]:.4f} "
            f"| {times[2]:.4f} | {ratio:.3f} |"
        )
    for name in ("CPMMC", "MultivariateMMC", "ODMC"):
        Estimator = getattr(mmc, name)
        ratios[name] = []
        for case in cases[::2]:
            X, _ = case.load()
            times = best_times(
                lambda n_jobs: Estimator(random_state=0, n_jobs=n_jobs), X
            )
            ratios[name].append(times[2] / times[1])
    print("\n| estimator | cases | median time on two threads / one | min | max |")
    print("|---|---:|---:|---:|---:|")
    for name, values in ratios.items():
        print(
            f"| {name} | {len(values)} | {np.median(values):.3f} "
            f"| {min(values):.3f} | {max(values):.3f} |"
        )


if __name__ == "__main__":
    main()
