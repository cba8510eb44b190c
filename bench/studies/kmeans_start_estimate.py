"""The ``"kmeans"`` start of CPMMC and MultivariateMMC: one k-means run, or
the clustering of the class-balance estimate (the best of 10 runs).

The two-cluster cutting-plane estimators start their restarts from the
principal direction, one run of k-means and random directions
(``init="auto"``). On short tf-idf documents of two topics (50 and 20
documents, :func:`mmc.bench._text_corpus.topic_corpus`) CPMMC erred 21.4 %
where KMeans(n_init=10) erred 0-11 %: the principal and random starts
are median splits, CCCP stays at an even split (35:35), and the one
k-means run lands in a poor local optimum (60:10, objective 3.34) where
the best of 10 runs leads to an objective lower than the even split's
(0.78 against 1.12) at 0 % error. ODMC already takes the estimate's
clustering (``sampled_kmeans`` of :func:`mmc._starts.initial_signs`).

This script fits both estimators with their one-run start (``one``) and
with the estimate's clustering (``estimate``) on the groups of
:mod:`mmc.bench._study_cases` (``kernel="rbf"`` on the suite's moons and
circles), the two-topic corpora of :mod:`mmc.bench._text_corpus`
(``topics``) and short two-topic documents (``short``: 50 and 20
documents, topic share 0.3, lengths 60 and 150 words, seeds 0-3).
Labels only score. Run from /tmp with mmc installed::

    python -I bench/studies/kmeans_start_estimate.py OUT.json SEED
    python -I bench/studies/kmeans_start_estimate.py report OUT.json
"""

import functools
import json
import sys
import warnings

import numpy as np
from sklearn.cluster import KMeans

import mmc._cutting_plane as cutting_plane
from mmc import CPMMC, MultivariateMMC
from mmc._starts import initial_signs
from mmc.bench._study_cases import (
    case_line,
    group_table,
    two_class_study_cases,
)
from mmc.bench._text_corpus import topic_corpus, topic_corpus_cases
from mmc.metrics import clustering_error

ESTIMATORS = (CPMMC, MultivariateMMC)
VARIANTS = {
    "one": initial_signs,
    "estimate": functools.partial(initial_signs, sampled_kmeans=True),
}


def cases():
    for group, name, X, y, kernel in two_class_study_cases():
        yield group, name, X, y, kernel
    for name, X, y in topic_corpus_cases():
        if len(np.unique(y)) == 2:
            yield "topics", name, X, y, "linear"
    for seed in range(4):
        for length in (60, 150):
            X, y = topic_corpus(
                (50, 20), topic_share=0.3, median_length=length, random_state=seed
            )
            yield "short", f"50:20 length {length} seed {seed}", X, y, "linear"


def collect(out, seed):
    rows = []
    for group, name, X, y, kernel in cases():
        km = KMeans(2, n_init=10, random_state=0).fit(X)
        row = {
            "group": group,
            "case": name,
            "kmeans": 100 * clustering_error(y, km.labels_),
        }
        for variant, function in VARIANTS.items():
            cutting_plane.initial_signs = function
            for Estimator in ESTIMATORS:
                est = Estimator(kernel=kernel, random_state=seed).fit(X)
                row[f"{Estimator.__name__} {variant}"] = 100 * clustering_error(
                    y, est.labels_
                )
        cutting_plane.initial_signs = initial_signs
        rows.append(row)
        print(case_line(group, name, row), flush=True)
    with open(out, "w") as f:
        json.dump(rows, f, indent=1)


def report(path):
    rows = json.load(open(path))
    keys = [k for k in rows[0] if k not in ("group", "case", "kmeans")]
    print("\n".join(group_table(rows, keys)))
    print()
    for r in rows:
        for Estimator in ESTIMATORS:
            a, b = r[f"{Estimator.__name__} one"], r[f"{Estimator.__name__} estimate"]
            if abs(a - b) > 1:
                print(
                    f"* {r['group']} {r['case']}, {Estimator.__name__}: "
                    f"{a:.2f} -> {b:.2f} ({r['kmeans']:.2f})"
                )


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    if sys.argv[1] == "report":
        report(sys.argv[2])
    else:
        collect(sys.argv[1], int(sys.argv[2]))
