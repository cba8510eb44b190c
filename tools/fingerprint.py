"""Fingerprint of the fitted estimators on a fixed set of fits.

A refactoring that must not change behaviour is checked by running this
before and after it and comparing the outputs: every line holds the hash of
the fitted attributes (labels, objective, coefficients, intercepts and the
iteration counts) of one fit, to the last bit. Only public API is used.

    python -I tools/fingerprint.py > before.txt
    ... change ...
    python -I tools/fingerprint.py | diff before.txt -
"""

import hashlib
import sys
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.datasets import load_digits, make_blobs, make_circles, make_moons

import mmc
from mmc.datasets import make_sparse_clusters

ATTRIBUTES = (
    "labels_",
    "objective_",
    "coef_",
    "intercept_",
    "dual_coef_",
    "mu_",
    "n_iter_",
    "n_constraints_",
    "n_generations_",
    "duality_gap_",
    "fitness_",
)


def digit_pair(a, b):
    X, y = load_digits(return_X_y=True)
    mask = (y == a) | (y == b)
    return X[mask] / 16.0


def data_sets():
    pair = digit_pair(3, 8)
    moons = make_moons(300, noise=0.05, random_state=0)[0]
    circles = make_circles(300, noise=0.05, factor=0.5, random_state=0)[0]
    blobs3 = make_blobs(240, n_features=4, centers=3, random_state=0)[0]
    unbalanced = make_blobs(
        [300, 75], centers=[[0] * 10, [4] + [0] * 9], random_state=0
    )[0]
    sparse_data = make_sparse_clusters(400, 300, random_state=0)[0]
    return {
        "digits38": pair,
        "digits38_f32": pair.astype(np.float32),
        "digits38_csr": sp.csr_matrix(pair),
        "moons": moons,
        "circles": circles,
        "blobs3": blobs3,
        "unbalanced": unbalanced,
        "sparse": sparse_data,
    }


def fits():
    k2 = ("digits38", "digits38_f32", "digits38_csr", "unbalanced", "sparse")
    for name in k2:
        yield mmc.CPMMC(random_state=0), name
        yield mmc.CPM3C(random_state=0), name
        yield mmc.MultivariateMMC(random_state=0), name
        yield mmc.EvoMMC(random_state=0), name
        yield mmc.FastEvoMMC(random_state=0), name
        yield mmc.ODMC(random_state=0), name
    for loss in ("rand", "fbeta", "error"):
        yield mmc.MultivariateMMC(loss=loss, random_state=1), "digits38"
    yield mmc.CPMMC(random_state=0, n_jobs=2), "digits38"
    yield mmc.CPMMC(random_state=0, init="kmeans", n_init=2), "digits38_csr"
    yield mmc.EvoMMC(random_state=0, init="random", n_init=2), "digits38"
    yield mmc.EvoMMC(random_state=0, kernel="linear"), "digits38"
    yield mmc.EvoMMC(random_state=0, kernel="poly", coef0=1.0), "digits38"
    yield mmc.FastEvoMMC(random_state=0, landmarks="random"), "digits38_csr"
    yield mmc.FastEvoMMC(random_state=0, n_components=0.2), "unbalanced"
    yield mmc.ODMC(random_state=0, init="kmeans", n_init=1), "digits38"
    for name in ("moons", "circles"):
        yield mmc.CPMMC(kernel="rbf", random_state=0), name
        yield mmc.CPM3C(kernel="rbf", random_state=0), name
        yield mmc.MultivariateMMC(kernel="rbf", random_state=0), name
        yield mmc.ODMC(kernel="rbf", random_state=0), name
    yield mmc.ODMC(kernel="poly", degree=2, random_state=0), "moons"
    yield mmc.CPM3C(n_clusters=3, random_state=0), "blobs3"
    yield mmc.CPM3C(n_clusters=3, random_state=0, n_jobs=2), "blobs3"
    yield mmc.CPM3C(n_clusters=4, random_state=0), "digits38"


def digest(estimator):
    h = hashlib.sha256()
    for attribute in ATTRIBUTES:
        if hasattr(estimator, attribute):
            value = np.asarray(getattr(estimator, attribute))
            h.update(attribute.encode())
            h.update(np.ascontiguousarray(value, dtype=np.float64).tobytes())
    return h.hexdigest()[:16]


def main():
    data = data_sets()
    for estimator, name in fits():
        X = data[name]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            estimator.fit(X)
        params = {
            k: v
            for k, v in estimator.get_params().items()
            if v != type(estimator)().get_params()[k]
        }
        labels = np.bincount(estimator.labels_)
        warned = sorted({type(w.message).__name__ for w in caught})
        print(
            f"{type(estimator).__name__}{params} {name}: {digest(estimator)} "
            f"sizes={labels.tolist()} objective={float(estimator.objective_):.17g} "
            f"warnings={warned}"
        )
        sys.stdout.flush()


if __name__ == "__main__":
    main()
