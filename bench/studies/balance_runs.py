"""The k-means runs behind ``class_balance="auto"``: 3 against 10.

``class_balance="auto"`` estimates the cluster proportions from the best by
inertia of ``mmc._balance.KMEANS_RUNS`` runs of k-means on at most 2000
sampled rows. This script sets that number and runs either the robustness
suite (``python -m mmc.bench robustness``, written to OUT_DIR) or every
two-cluster estimator on the 45 digit pairs (``load_digits / 16``,
``random_state=0``) with 3 and with 10 runs, printing the mean errors and
the pairs whose error or bound moved. Labels only score.

Run from the repository root with mmc installed::

    python -I bench/studies/balance_runs.py suite 3 OUT_DIR
    python -I bench/studies/balance_runs.py suite 10 OUT_DIR
    python -I bench/studies/balance_runs.py pairs
"""

import sys
import warnings

import numpy as np
from sklearn.datasets import load_digits

import mmc
import mmc._balance as balance
from mmc.bench.__main__ import main as bench_main
from mmc.bench._registry import MMC_NAMES
from mmc.metrics import clustering_error

# The estimators of the benchmarks, in their order.
ESTIMATORS = tuple(getattr(mmc, name) for name in MMC_NAMES)


def suite(n_runs, out):
    balance.KMEANS_RUNS = int(n_runs)
    bench_main(["robustness", "--out", out])


def pairs():
    digits = load_digits()
    for Estimator in ESTIMATORS:
        errors, moved = {3: [], 10: []}, []
        for a in range(10):
            for b in range(a + 1, 10):
                mask = (digits.target == a) | (digits.target == b)
                X, y = digits.data[mask] / 16.0, digits.target[mask]
                fits = {}
                for n_runs in (3, 10):
                    balance.KMEANS_RUNS = n_runs
                    est = Estimator(random_state=0).fit(X)
                    error = 100 * clustering_error(y, est.labels_)
                    fits[n_runs] = (round(error, 2), round(est.class_balance_, 3))
                    errors[n_runs].append(error)
                if fits[3] != fits[10]:
                    moved.append(f"{a}v{b} {fits[3]} -> {fits[10]}")
        print(
            f"{Estimator.__name__}: {np.mean(errors[3]):.2f} -> "
            f"{np.mean(errors[10]):.2f}; (error, bound) moved: {moved or 'none'}",
            flush=True,
        )


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    if sys.argv[1] == "suite":
        suite(*sys.argv[2:4])
    else:
        pairs()
