"""The k-means starts: scikit-learn's KMeans against the library's k-means.

The two-cluster estimators' ``"kmeans"`` start was one run of
scikit-learn's ``KMeans`` and CPM3C's ``"k-means++"`` start scikit-learn's
``kmeans_plusplus``; both are now :mod:`mmc._kmeans`' (for CPMMC and
MultivariateMMC one run of ``best_kmeans_centres``, for ODMC the best of
10 runs on at most 2000 sampled rows; ``stable_kmeans``' seeding), whose
choices do not depend on the BLAS kernel, the thread count or the input
format. A single run is one random draw, so the errors it leads to move
with the seed. This script fits the estimators that take those starts on
the robustness suite's 57 two-class cases (``kernel="rbf"`` on the
non-linear ones, as the suite does) for ``random_state`` 0 to 4, with
scikit-learn's starts restored in the process (``sklearn``), with one run
of the library's k-means for every estimator (``one run``) and with the
best of ``mmc._balance.KMEANS_RUNS`` runs for every estimator
(``best10``; ODMC's rule, and CPM3C's own),
and prints the mean error and the number of cases worse than
KMeans(n_init=10) + 1 point, per seed and over the seeds, then the errors
of the two-cluster estimators with ``kernel="rbf"`` on the moons and
circles of the suite for the five seeds. Labels only score.

    python -I bench/studies/kmeans_starts.py > kmeans_starts.txt
"""

import warnings

import numpy as np
from sklearn.cluster import KMeans, kmeans_plusplus

import mmc
import mmc._cpm3c as cpm3c
import mmc._cutting_plane as cutting_plane
import mmc._odmc_relaxed as odmc_relaxed
import mmc._starts as starts
from mmc._balance import KMEANS_RUNS
from mmc.bench._robustness_data import two_class_cases
from mmc.metrics import clustering_error

SEEDS = range(5)
VARIANTS = ("sklearn", "one run", "best10")
ESTIMATORS = {
    "CPMMC": lambda **kw: mmc.CPMMC(**kw),
    "MultivariateMMC": lambda **kw: mmc.MultivariateMMC(**kw),
    "ODMC": lambda **kw: mmc.ODMC(**kw),
    "CPM3C": lambda **kw: mmc.CPM3C(n_clusters=2, **kw),
}
STABLE = {
    "signs": starts.initial_signs,
    "centres": cpm3c.initial_centres,
    "shared": cutting_plane._CuttingPlaneEstimator._shared_kmeans_runs,
}


def sklearn_signs(X, method, random_state, principal, **_):
    """The former "kmeans" start: one run of scikit-learn's KMeans."""
    if method != "kmeans":
        return STABLE["signs"](X, method, random_state, principal)
    km = KMeans(n_clusters=2, n_init=1, random_state=random_state)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        labels = km.fit(X).labels_
    return np.where(labels == 1, 1, -1).astype(np.int8)


def sklearn_centres(X, x_mean, method, random_state, n_clusters, principal):
    """The former "k-means++" start: scikit-learn's kmeans_plusplus."""
    if method != "k-means++":
        return STABLE["centres"](X, x_mean, method, random_state, n_clusters, principal)
    centres, _ = kmeans_plusplus(X, n_clusters, random_state=random_state)
    return np.asarray(
        centres.toarray() if hasattr(centres, "toarray") else centres, dtype=np.float64
    )


def one_run_signs(X, method, random_state, principal, **_):
    """One run of the library's k-means for every estimator."""
    return STABLE["signs"](X, method, random_state, principal)


def best10_signs(X, method, random_state, principal, **_):
    """The best of KMEANS_RUNS runs of the library's k-means (on every row
    of the suite's cases, which have at most SAMPLE_ROWS) for every
    estimator."""
    return STABLE["signs"](X, method, random_state, principal, sampled_kmeans=True)


def use(variant):
    sk = variant == "sklearn"
    signs = {
        "sklearn": sklearn_signs,
        "one run": one_run_signs,
        "best10": best10_signs,
    }[variant]
    cutting_plane.initial_signs = signs
    odmc_relaxed.initial_signs = signs
    cpm3c.initial_centres = sklearn_centres if sk else STABLE["centres"]
    binary = cutting_plane._BinaryCuttingPlane
    if sk:
        # scikit-learn's start shares no run with the estimate.
        binary._shared_kmeans_runs = lambda self, X, method, seed: None
    else:
        binary._shared_kmeans_runs = STABLE["shared"]
        binary._kmeans_start_runs = KMEANS_RUNS if variant == "best10" else 1


def main():
    cases = [(case, *case.load()) for case in two_class_cases()]
    kmeans = {}
    for case, X, y in cases:
        labels = KMeans(2, n_init=10, random_state=0).fit(X).labels_
        kmeans[case.name] = 100 * clustering_error(y, labels)
    print("| estimator | starts | " + " | ".join(f"seed {s}" for s in SEEDS), end="")
    print(" | mean over seeds | worse than KMeans + 1, mean |")
    print("|---" * (len(SEEDS) + 4) + "|")
    for name, make in ESTIMATORS.items():
        variants = ("sklearn", "one run") if name == "CPM3C" else VARIANTS
        for variant in variants:
            use(variant)
            means, worse = [], []
            for seed in SEEDS:
                errors, n_worse = [], 0
                for case, X, y in cases:
                    kernel = {"kernel": "rbf"} if case.nonlinear else {}
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        est = make(random_state=seed, **kernel).fit(X)
                    error = 100 * clustering_error(y, est.labels_)
                    errors.append(error)
                    n_worse += error > kmeans[case.name] + 1
                means.append(np.mean(errors))
                worse.append(n_worse)
            cells = " | ".join(f"{m:.2f} ({w})" for m, w in zip(means, worse))
            print(
                f"| {name} | {variant} | {cells} | {np.mean(means):.2f} | "
                f"{np.mean(worse):.1f} |",
                flush=True,
            )
    print()
    print("| data | estimator | starts | error (%) at seeds 0-4 |")
    print("|---|---|---|---|")
    for case, X, y in cases:
        if not case.nonlinear:
            continue
        for name in ("CPMMC", "MultivariateMMC", "ODMC"):
            for variant in VARIANTS:
                use(variant)
                errors = []
                for seed in SEEDS:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        est = ESTIMATORS[name](random_state=seed, kernel="rbf")
                        labels = est.fit(X).labels_
                    errors.append(f"{100 * clustering_error(y, labels):.1f}")
                print(f"| {case.name} | {name} | {variant} | {', '.join(errors)} |")
    use("one run")


if __name__ == "__main__":
    main()
