"""Every estimator started from SpectralClustering's labels, on text.

On the tf-idf corpora of a topic model (:mod:`mmc.bench._text_corpus`)
SpectralClustering with a nearest-neighbour graph errs 6.2 % on average
where KMeans(n_init=10) errs 14.0 % and every estimator of mmc errs more
than KMeans (``text_topics.md``). This probe fits every estimator with its
defaults and with ``init=`` SpectralClustering's labels (with
``class_balance="auto"`` the bound then follows their sizes), on the 22
corpora and on the robustness suite's five text-like cases, whose topics
own their columns. ``random_state=0``; labels only score. Run from /tmp
with mmc installed::

    python -I bench/studies/text_spectral_start.py OUT.json
"""

import json
import sys
import warnings

import numpy as np
from sklearn.cluster import KMeans, SpectralClustering

import mmc
from mmc.bench._robustness_data import multiclass_cases, two_class_cases
from mmc.bench._study_cases import case_line
from mmc.bench._text_corpus import topic_corpus_cases
from mmc.metrics import clustering_error

MULTICLASS = ("CPM3C", "EvoMMC", "FastEvoMMC")
TWO_CLUSTER = ("CPMMC", "ODMC", "MultivariateMMC")


def cases():
    for name, X, y in topic_corpus_cases():
        yield "topics", name, X, y
    for case in two_class_cases() + multiclass_cases():
        if case.kind == "text":
            X, y = case.load()
            yield "suite text", case.name, X, y


def main(out):
    rows = []
    for group, name, X, y in cases():
        k = len(np.unique(y))
        kmeans = KMeans(k, n_init=10, random_state=0).fit_predict(X)
        graph = SpectralClustering(
            k, affinity="nearest_neighbors", random_state=0
        ).fit_predict(X)
        row = {
            "group": group,
            "case": name,
            "KMeans": 100 * clustering_error(y, kmeans),
            "SpectralClustering": 100 * clustering_error(y, graph),
            "spectral sizes": np.bincount(graph, minlength=k).tolist(),
        }
        names = MULTICLASS + (TWO_CLUSTER if k == 2 else ())
        for estimator in names:
            Estimator = getattr(mmc, estimator)
            params = {"n_clusters": k} if estimator in MULTICLASS else {}
            default = Estimator(random_state=0, **params).fit(X)
            started = Estimator(random_state=0, init=graph, **params).fit(X)
            row[estimator] = 100 * clustering_error(y, default.labels_)
            row[f"{estimator}, spectral start"] = 100 * clustering_error(
                y, started.labels_
            )
        rows.append(row)
        print(case_line(group, name, row), flush=True)
    with open(out, "w") as f:
        json.dump(rows, f, indent=1)
    for group in ("topics", "suite text"):
        sel = [r for r in rows if r["group"] == group]
        print(f"\n{group} ({len(sel)} cases)")
        for estimator in MULTICLASS + TWO_CLUSTER:
            mine = [r for r in sel if estimator in r]
            a = np.array([r[estimator] for r in mine])
            b = np.array([r[f"{estimator}, spectral start"] for r in mine])
            km = np.array([r["KMeans"] for r in mine])
            sc = np.array([r["SpectralClustering"] for r in mine])
            print(
                f"| {estimator} | {len(mine)} | {a.mean():.2f} ({np.sum(a > km + 1)}) "
                f"| {b.mean():.2f} ({np.sum(b > km + 1)}) | {km.mean():.2f} "
                f"| {sc.mean():.2f} |"
            )


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    main(sys.argv[1])
