"""CPM3C with more than two clusters: size floors that admit the sampling
noise of the k-means estimate (as ODMC's linear bound does) or the papers'
0.03 around even estimates (the default).

``python -I bench/studies/cpm3c_noise_multiclass.py off`` runs the
default, ``... on`` passes ``admit_noise=True`` to the class-balance rule
(mmc._balance.resolve_class_balance) for every fit of more than two
clusters. CPM3C with defaults otherwise, ``random_state=0``, on the 16
multiclass cases of the robustness suite and the 25 of cpm3c_starts.py.
Prints each case's error (%) and the means over the 16 and the 25.
"""

import os
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cpm3c_starts import cases as extra_cases

import mmc._cutting_plane as cutting_plane
from mmc import CPM3C
from mmc.bench._robustness_data import multiclass_cases
from mmc.metrics import clustering_error


def admit_noise_above_two_clusters():
    resolve = cutting_plane.resolve_class_balance

    def patched(class_balance, X, n_clusters, *args, **kwargs):
        if n_clusters > 2:
            kwargs["admit_noise"] = True
        return resolve(class_balance, X, n_clusters, *args, **kwargs)

    cutting_plane.resolve_class_balance = patched


def main(noise):
    if noise:
        admit_noise_above_two_clusters()
    data = [(c.name, *c.load()) for c in multiclass_cases()] + list(extra_cases())
    errors = []
    for name, X, y in data:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            estimator = CPM3C(n_clusters=len(np.unique(y)), random_state=0)
            labels = estimator.fit(X).labels_
        errors.append(100 * clustering_error(y, labels))
        print(f"{name:40s} {errors[-1]:6.2f}", flush=True)
    errors = np.array(errors)
    suite, others = errors[:16].mean(), errors[16:].mean()
    print(f"MEAN suite (16) {suite:.2f}, others (25) {others:.2f}")


if __name__ == "__main__":
    main(sys.argv[1] == "on")
