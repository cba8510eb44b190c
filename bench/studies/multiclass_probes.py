"""Three probes of what limits the multiclass and unbalanced cases, with the
labels used for scoring and diagnosis only (never inside an estimator).

``c``: CPM3C's C on 41 multiclass cases (the 16 of ``python -m mmc.bench
robustness`` and the 25 of ``cpm3c_starts.py``), error (%) for C in 5, 10,
20 (the default), 40, 80, against KMeans(n_init=10).

``objective``: on the 25 cases of ``cpm3c_starts.py``, CPM3C's objective at
its fit, and the objective of the SVM of the true classes and of KMeans's
clustering with the assignments held (``init=labels, refine_init=False``):
which cases are limited by the objective (the fit's is the lowest) and
which by the search (the true classes' is lower).

``spectral``: CPMMC (defaults) against CPMMC started from
SpectralClustering(affinity="nearest_neighbors")'s clustering (``init`` as
labels, so that ``class_balance="auto"`` takes its sizes), on the 57
two-class cases of the robustness suite: error, objective and the bound.

Run from the repository root with mmc installed::

    python -I bench/studies/multiclass_probes.py c
    python -I bench/studies/multiclass_probes.py objective
    python -I bench/studies/multiclass_probes.py spectral
"""

import os
import sys
import warnings

import numpy as np
from sklearn.cluster import KMeans, SpectralClustering

from mmc import CPM3C, CPMMC
from mmc.bench._robustness_data import multiclass_cases, two_class_cases
from mmc.metrics import clustering_error

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cpm3c_starts import cases as other_multiclass_cases  # noqa: E402

C_VALUES = (5, 10, 20, 40, 80)


def _error(y, labels):
    return 100 * clustering_error(y, labels)


def _kmeans(X, k):
    return KMeans(k, n_init=10, random_state=0).fit(X).labels_


def probe_c():
    suite = [(case.name, *case.load()) for case in multiclass_cases()]
    rows = []
    print("| case | KMeans | " + " | ".join(f"C={c}" for c in C_VALUES) + " |")
    print("|---|---|" + "---|" * len(C_VALUES))
    for name, X, y in suite + list(other_multiclass_cases()):
        k = len(np.unique(y))
        km = _error(y, _kmeans(X, k))
        errors = [
            _error(y, CPM3C(n_clusters=k, C=c, random_state=0).fit(X).labels_)
            for c in C_VALUES
        ]
        rows.append((km, errors))
        print(f"| {name} | {km:.2f} | " + " | ".join(f"{e:.2f}" for e in errors) + " |")
    print("\n| cases | KMeans | " + " | ".join(f"C={c}" for c in C_VALUES) + " |")
    print("|---|---|" + "---|" * len(C_VALUES))
    for label, part in (
        ("suite (16)", rows[:16]),
        ("others (25)", rows[16:]),
        ("all (41)", rows),
    ):
        km = np.array([r[0] for r in part])
        errors = np.array([r[1] for r in part])
        worse = (errors > km[:, None] + 1).sum(axis=0)
        cells = [f"{m:.2f} ({w})" for m, w in zip(errors.mean(axis=0), worse)]
        print(f"| {label} | {km.mean():.2f} | " + " | ".join(cells) + " |")


def probe_objective():
    columns = ("error of the fit", "of KMeans", "objective: fit")
    columns += ("true classes held", "KMeans held")
    print("| case | " + " | ".join(columns) + " |")
    print("|---|---|---|---|---|---|")
    for name, X, y in other_multiclass_cases():
        k = len(np.unique(y))
        fit = CPM3C(n_clusters=k, random_state=0).fit(X)
        km = _kmeans(X, k)
        held = {
            label: CPM3C(n_clusters=k, random_state=0, init=labels, refine_init=False)
            .fit(X)
            .objective_
            for label, labels in (("true", y), ("kmeans", km))
        }
        print(
            f"| {name} | {_error(y, fit.labels_):.2f} | {_error(y, km):.2f} | "
            f"{fit.objective_:.4f} | {held['true']:.4f} | {held['kmeans']:.4f} |"
        )


def probe_spectral():
    columns = ("SpectralClustering", "CPMMC: error, objective, bound")
    columns += ("from SpectralClustering: error, objective, bound",)
    print("| case | " + " | ".join(columns) + " |")
    print("|---|---|---|---|")
    for case in two_class_cases():
        X, y = case.load()
        spectral = (
            SpectralClustering(2, affinity="nearest_neighbors", random_state=0)
            .fit(X)
            .labels_
        )
        default = CPMMC(random_state=0).fit(X)
        started = CPMMC(random_state=0, init=spectral).fit(X)
        print(
            f"| {case.name} | {_error(y, spectral):.2f} | "
            f"{_error(y, default.labels_):.2f}, {default.objective_:.4f}, "
            f"{default.class_balance_:.3f} | {_error(y, started.labels_):.2f}, "
            f"{started.objective_:.4f}, {started.class_balance_:.3f} |"
        )


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    {"c": probe_c, "objective": probe_objective, "spectral": probe_spectral}[
        sys.argv[1]
    ]()
