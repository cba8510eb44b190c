"""CPM3C on the ten digits: the objective of the clustering found against
the objective near the true digits.

Issue 18 asks for at most 15 % error on the ten digits (``load_digits() /
16``, k = 10). This script fits ``CPM3C(n_clusters=10)`` with its defaults
for ``random_state`` 0-4, then from the true digits as ``init`` (CCCP free
to move the samples, and with ``refine_init=False``: the SVM of the true
digits, the assignments held), and prints each fit's objective
(``objective_``, the quantity the restarts minimise) and its error as a
markdown table. The labels are used as a start and to score only: a
default fit never sees them.

With mmc installed (a few seconds)::

    cd bench/studies && python -I cpm3c_digits_objective.py > cpm3c_digits_objective.md
"""

import subprocess
import warnings

from sklearn.datasets import load_digits

from mmc import CPM3C
from mmc.metrics import clustering_error


def main():
    warnings.simplefilter("ignore")
    X, y = load_digits(return_X_y=True)
    X = X / 16.0
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    fits = [
        (f"defaults, random_state={seed}", {"random_state": seed}) for seed in range(5)
    ]
    fits += [
        ("from the true digits", {"random_state": 0, "init": y}),
        ("the true digits held", {"random_state": 0, "init": y, "refine_init": False}),
    ]
    print("# CPM3C on the ten digits: objective against error\n")
    print(f"`python -I bench/studies/cpm3c_digits_objective.py` at {commit} (see its")
    print("docstring).\n")
    print("| fit | objective | error (%) |")
    print("|---|---:|---:|")
    for name, params in fits:
        est = CPM3C(n_clusters=10, **params).fit(X)
        error = 100 * clustering_error(y, est.labels_)
        print(f"| {name} | {est.objective_:.4f} | {error:.2f} |")


if __name__ == "__main__":
    main()
