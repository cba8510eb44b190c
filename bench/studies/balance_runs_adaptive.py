"""How many k-means runs the class-balance estimate takes: 10, 30, or more
while the best run is recent.

``class_balance="auto"`` (and CPMMC's ``"stable"``, which starts from it)
bounds the cluster sizes by those of the best, by inertia, of
``mmc._balance.KMEANS_RUNS`` runs of k-means on at most 2000 sampled rows.
On data where k-means has many local optima of nearly equal inertia
(tf-idf text above all) the best of 10 runs misses the lowest-inertia
clustering often, and the bound then follows a wrong clustering. This
script replaces the rule for the number of runs and refits every
estimator:

* ``fixed10``: 10 runs (the library's rule when this study was written);
* ``fixed30``: 30 runs;
* ``doubling``: 10 runs, then twice as many (20, 40) while the best run
  is among the later half of those made (it was found late, so more runs
  may still find a better one), at most ``DOUBLING_CAP``.

Groups: ``suite`` (``python -m mmc.bench robustness``, written to OUT_DIR),
``pairs`` (every two-cluster estimator on the 45 digit pairs),
``generated`` (the same on the 128 ``make_classification`` cases of
:mod:`mmc.bench._study_cases`) and ``text``
(the tf-idf corpora of :func:`mmc.bench._text_corpus.topic_corpus`; every
estimator, and KMeans(n_init=10), at ``random_state=0``). Labels only
score. Run from /tmp with mmc installed::

    python -I bench/studies/balance_runs_adaptive.py suite RULE OUT_DIR
    python -I bench/studies/balance_runs_adaptive.py pairs RULE
    python -I bench/studies/balance_runs_adaptive.py generated RULE
    python -I bench/studies/balance_runs_adaptive.py text RULE
"""

import sys
import time
import warnings

import numpy as np
from sklearn.cluster import KMeans
from sklearn.datasets import load_digits

import mmc
import mmc._balance as balance
from mmc._kmeans import KMeansRuns, first_near_minimum
from mmc.bench.__main__ import main as bench_main
from mmc.bench._registry import MMC_NAMES
from mmc.metrics import clustering_error

ESTIMATORS = tuple(getattr(mmc, name) for name in MMC_NAMES)
MULTICLASS = ("CPM3C", "EvoMMC", "FastEvoMMC")
DOUBLING_CAP = 40


def doubling_best(runs):
    """The best run by the doubling rule (see the module docstring)."""
    n_runs = 10
    while True:
        runs.compute(n_runs)
        inertias = np.array(runs._inertias[:n_runs])
        tol = 2.0 * max(runs._bounds[:n_runs])
        best = int(first_near_minimum(inertias, tol, axis=0))
        if best < n_runs // 2 or n_runs >= DOUBLING_CAP:
            return runs.best(n_runs)
        n_runs = min(2 * n_runs, DOUBLING_CAP)


def set_rule(rule):
    if rule.startswith("fixed"):
        balance.KMEANS_RUNS = int(rule[len("fixed") :])
        return
    assert rule == "doubling", rule
    original = balance.kmeans_estimate

    def kmeans_estimate(
        X, n_clusters, random_state, take_rows=None, sparse=None, kmeans_runs=None
    ):
        sample = balance.estimate_sample(X, random_state, take_rows, sparse)
        if sample is None:
            return None
        if sample is X and kmeans_runs is not None:
            return doubling_best(kmeans_runs), X
        return doubling_best(KMeansRuns(sample, n_clusters, random_state)), sample

    balance.kmeans_estimate = kmeans_estimate
    assert original is not kmeans_estimate


def pairs():
    digits = load_digits()
    for Estimator in ESTIMATORS:
        errors = []
        for a in range(10):
            for b in range(a + 1, 10):
                mask = (digits.target == a) | (digits.target == b)
                X, y = digits.data[mask] / 16.0, digits.target[mask]
                est = Estimator(random_state=0).fit(X)
                errors.append(100 * clustering_error(y, est.labels_))
        print(
            f"{Estimator.__name__}: pairs mean {np.mean(errors):.2f} "
            f"[{' '.join(f'{e:.2f}' for e in errors)}]",
            flush=True,
        )


def generated():
    from mmc.bench._study_cases import generated_cases

    errors = {Estimator.__name__: [] for Estimator in ESTIMATORS}
    kmeans = []
    for name, X, y in generated_cases():
        km = KMeans(2, n_init=10, random_state=0).fit(X)
        kmeans.append(100 * clustering_error(y, km.labels_))
        for Estimator in ESTIMATORS:
            est = Estimator(random_state=0).fit(X)
            errors[Estimator.__name__].append(100 * clustering_error(y, est.labels_))
    kmeans = np.array(kmeans)
    print(f"KMeans: generated mean {kmeans.mean():.2f}")
    for name, values in errors.items():
        values = np.array(values)
        listed = " ".join(f"{e:.2f}" for e in values)
        print(
            f"{name}: generated mean {values.mean():.2f}, worse than KMeans + 1 "
            f"{int(np.sum(values > kmeans + 1))} [{listed}]",
            flush=True,
        )


def text():
    from mmc.bench._text_corpus import topic_corpus_cases

    for name, X, y in topic_corpus_cases():
        k = len(np.unique(y))
        start = time.perf_counter()
        km = KMeans(k, n_init=10, random_state=0).fit(X)
        km_time = time.perf_counter() - start
        cells = [f"KMeans {100 * clustering_error(y, km.labels_):.2f}"]
        for Estimator in ESTIMATORS:
            if k > 2 and Estimator.__name__ not in MULTICLASS:
                continue
            start = time.perf_counter()
            est = (
                Estimator(n_clusters=k, random_state=0)
                if k > 2
                else Estimator(random_state=0)
            )
            est.fit(X)
            ratio = (time.perf_counter() - start) / km_time
            cells.append(
                f"{Estimator.__name__} "
                f"{100 * clustering_error(y, est.labels_):.2f} ({ratio:.1f}x)"
            )
        print(f"{name}: " + " | ".join(cells), flush=True)


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    group, rule = sys.argv[1], sys.argv[2]
    set_rule(rule)
    if group == "suite":
        bench_main(["robustness", "--out", sys.argv[3]])
    elif group == "pairs":
        pairs()
    elif group == "generated":
        generated()
    else:
        text()
