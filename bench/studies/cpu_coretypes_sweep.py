"""Every estimator's default fits under one OpenBLAS core type, to compare.

Run one process per core type (the variable must be set before NumPy
loads), then compare the files::

    cd bench/studies
    OPENBLAS_CORETYPE=Haswell python -I cpu_coretypes_sweep.py suite H.npz
    OPENBLAS_CORETYPE=Sandybridge python -I cpu_coretypes_sweep.py suite S.npz
    python -I cpu_coretypes_sweep.py compare H.npz S.npz

GROUP is ``suite`` (the robustness suite's 60 two-class and 16 multiclass
cases, every estimator that takes them, rbf where the suite uses it) or
``generated`` (the 128 generated two-class cases of
``mmc.bench._study_cases``). Labels are saved per (case, estimator);
``compare`` prints the fits whose labels differ and their agreement after
the best matching.
"""

import sys
import warnings

import numpy as np

from mmc.bench._registry import estimators as registry
from mmc.bench._robustness_data import multiclass_cases, two_class_cases
from mmc.bench._study_cases import generated_cases
from mmc.metrics import clustering_error

NAMES = ("CPMMC", "CPM3C", "MultivariateMMC", "EvoMMC", "FastEvoMMC", "ODMC")


def cases(group):
    """``(name, X, n_clusters, rbf)`` of each case of the group."""
    if group == "generated":
        for name, X, _ in generated_cases():
            yield name, X, 2, False
        return
    for case in [*two_class_cases(), *multiclass_cases()]:
        X, y = case.load()
        yield case.name, X, len(np.unique(y)), case.nonlinear


def sweep(group, path):
    warnings.simplefilter("ignore")
    entries = registry()
    labels = {}
    for name, X, n_clusters, rbf in cases(group):
        for estimator in NAMES:
            entry = entries[estimator]
            if n_clusters > 2 and entry.two_clusters_only:
                continue
            params = {"kernel": "rbf"} if rbf and entry.kernel else {}
            fitted = entry.make(n_clusters, 0, **params).fit(X)
            labels[f"{name}|{estimator}"] = np.asarray(fitted.labels_)
    np.savez(path, **labels)


def compare(first, second):
    a, b = np.load(first), np.load(second)
    differ = [k for k in a.files if not np.array_equal(a[k], b[k])]
    print(f"{len(a.files)} fits, {len(differ)} differ")
    for key in differ:
        print(f"  {key}: agreement {1 - clustering_error(a[key], b[key]):.4f}")


if __name__ == "__main__":
    if sys.argv[1] == "compare":
        compare(sys.argv[2], sys.argv[3])
    else:
        sweep(sys.argv[1], sys.argv[2])
