"""The probes behind the graph start (mmc/_graph_start.py).

``suite``: on every case of the robustness suite (two-class, multiclass,
the tf-idf corpora), KMeans(n_init=10) and SpectralClustering
(``affinity="nearest_neighbors"``), their errors, and the paired test of
their silhouettes: the mean of the samples' differences (graph minus
k-means) over its standard error, ``z``. ``held-out``: the same on data no
rule was looked at on: the 45 digit pairs, the corpora at seeds 2 and 3,
and unbalanced blobs (8 features, 1:1 to 1:12, raw, standardised and
min-max scaled, seeds 1 and 2). ``starts``: every estimator with its
defaults (before the graph start) and with ``init=`` SpectralClustering's
labels where ``z > 3`` (the rule), on the suite. Labels only score. Run
from /tmp with mmc installed::

    python -I bench/studies/graph_start.py suite OUT.json
    python -I bench/studies/graph_start.py held-out OUT.json
    python -I bench/studies/graph_start.py starts SUITE.json RECORD.json OUT.json

``starts`` reads the ``suite`` output and a robustness record taken before
the graph start (its default errors).
"""

import json
import sys
import warnings

import numpy as np
from sklearn.cluster import KMeans, SpectralClustering
from sklearn.datasets import make_blobs
from sklearn.metrics import silhouette_samples
from sklearn.preprocessing import MinMaxScaler, StandardScaler

from mmc.bench._comparison import applies
from mmc.bench._data import ALL_PAIRS, digits
from mmc.bench._registry import MMC_NAMES, estimators
from mmc.bench._robustness_data import multiclass_cases, topic_cases, two_class_cases
from mmc.bench._text_corpus import topic_corpus_cases
from mmc.metrics import clustering_error

# The level of the rule: NOISE_STANDARD_ERRORS of mmc/_balance.py.
LEVEL = 3.0


def suite_cases():
    groups = (
        ("two_class", two_class_cases()),
        ("multiclass", multiclass_cases()),
        ("topics", topic_cases()),
    )
    for group, cases in groups:
        for case in cases:
            X, y = case.load()
            yield group, case.name, X, y, case.nonlinear


def held_out_cases():
    for a, b in ALL_PAIRS:
        X, y = digits((a, b))
        yield "pairs", f"digits {a}v{b}", X, y, False
    for name, X, y in topic_corpus_cases(seeds=(2, 3)):
        yield "topics, seeds 2 and 3", name, X, y, False
    scalers = (("raw", None), ("std", StandardScaler), ("minmax", MinMaxScaler))
    for seed in (1, 2):
        for ratio in (1, 3, 6, 12):
            for scaling, scaler in scalers:
                X, y = make_blobs(
                    [900, 900 // ratio],
                    n_features=8,
                    centers=[[0.0] * 8, [3.5] + [0.0] * 7],
                    random_state=seed,
                )
                if scaler is not None:
                    X = scaler().fit_transform(X)
                name = f"blobs 1:{ratio} {scaling} seed {seed}"
                yield "blobs", name, X, y, False


def estimator_cases(names):
    """``(name, entry, group, case, X, y, nonlinear)`` for every case of
    :func:`suite_cases` and :func:`held_out_cases` and every estimator of
    ``names`` (of mmc.bench's registry) that clusters it."""
    entries = estimators()
    for cases in (suite_cases(), held_out_cases()):
        for group, case, X, y, nonlinear in cases:
            for name in names:
                entry = entries[name]
                if len(np.unique(y)) > 2 and entry.two_clusters_only:
                    continue
                yield name, entry, group, case, X, y, nonlinear


def compare(cases):
    """KMeans against SpectralClustering on each case, and the paired z of
    their silhouettes."""
    rows = []
    for group, name, X, y, _ in cases:
        k = len(np.unique(y))
        kmeans = KMeans(k, n_init=10, random_state=0).fit_predict(X)
        graph = SpectralClustering(
            k, affinity="nearest_neighbors", random_state=0
        ).fit_predict(X)
        gain = silhouette_samples(X, graph) - silhouette_samples(X, kmeans)
        spread = gain.std(ddof=1)
        z = gain.mean() / (spread / np.sqrt(gain.size)) if spread > 0 else 0.0
        rows.append(
            {
                "group": group,
                "case": name,
                "ekm": 100 * clustering_error(y, kmeans),
                "esc": 100 * clustering_error(y, graph),
                "z": float(z),
                "agree": float(1 - clustering_error(kmeans, graph)),
            }
        )
        print(rows[-1], flush=True)
    return rows


def summary(rows):
    for group in dict.fromkeys(r["group"] for r in rows):
        sel = [r for r in rows if r["group"] == group]
        chosen = [r["esc"] if r["z"] > LEVEL else r["ekm"] for r in sel]
        km = [r["ekm"] for r in sel]
        print(
            f"| {group} | {len(sel)} | {np.mean(km):.2f} "
            f"| {np.mean([r['esc'] for r in sel]):.2f} | {np.mean(chosen):.2f} "
            f"| {sum(r['z'] > LEVEL for r in sel)} "
            f"| {sum(c > k + 1 for c, k in zip(chosen, km))} |"
        )


def starts(suite_rows, record, out):
    """Every estimator from SpectralClustering's labels where z > LEVEL."""
    entries = estimators()
    z = {(r["group"], r["case"]): r["z"] for r in suite_rows}
    rows = []
    for group, name, X, y, nonlinear in suite_cases():
        k = len(np.unique(y))
        row = {"group": group, "case": name, "default": {}, "rule": {}}
        scores = record[group]["cases"][name]["scores"]
        picked = z[(group, name)] > LEVEL
        graph = None
        if picked:
            graph = SpectralClustering(
                k, affinity="nearest_neighbors", random_state=0
            ).fit_predict(X)
        for estimator in MMC_NAMES:
            entry = entries[estimator]
            if not applies(entry, k):
                continue
            row["default"][estimator] = scores[estimator]["error"]
            row["rule"][estimator] = scores[estimator]["error"]
            if picked:
                over = {"kernel": "rbf"} if nonlinear and entry.kernel else {}
                model = entry.make(k, 0, **over).set_params(init=graph).fit(X)
                row["rule"][estimator] = 100 * clustering_error(y, model.labels_)
        row["KMeans"] = scores["KMeans"]["error"]
        rows.append(row)
        print(group, name, picked, row["rule"], flush=True)
    with open(out, "w") as f:
        json.dump(rows, f, indent=1)
    for group in dict.fromkeys(r["group"] for r in rows):
        sel = [r for r in rows if r["group"] == group]
        for estimator in MMC_NAMES:
            mine = [r for r in sel if estimator in r["default"]]
            if not mine:
                continue
            km = np.array([r["KMeans"] for r in mine])
            a = np.array([r["default"][estimator] for r in mine])
            b = np.array([r["rule"][estimator] for r in mine])
            print(
                f"| {group} | {estimator} | {len(mine)} | {km.mean():.2f} "
                f"| {a.mean():.2f} ({np.sum(a > km + 1)}) "
                f"| {b.mean():.2f} ({np.sum(b > km + 1)}) |"
            )


def main(argv):
    warnings.simplefilter("ignore")
    if argv[0] == "starts":
        with open(argv[1]) as f:
            suite_rows = json.load(f)
        with open(argv[2]) as f:
            record = json.load(f)
        starts(suite_rows, record, argv[3])
        return
    cases = suite_cases() if argv[0] == "suite" else held_out_cases()
    rows = compare(cases)
    with open(argv[1], "w") as f:
        json.dump(rows, f, indent=1)
    summary(rows)


if __name__ == "__main__":
    main(sys.argv[1:])
