"""The choice of bound by the normalised cut, for every estimator.

ODMC's ``class_balance="auto"`` fits at the bound from the data (admitting
the sampling noise where k-means' clusters are even within it) and at the
papers' 0.03, and keeps the fit whose labels cut the rows'
10-nearest-neighbour graph strictly better (mmc/_balance_cut.py). This
script asks whether the same choice helps the other estimators. For each of
CPMMC, CPM3C, MultivariateMMC, EvoMMC and FastEvoMMC, on every case of
``graph_start.py`` (the robustness suite's two-class, multiclass and topic
cases; the held-out digit pairs, corpora and blobs; kernel="rbf" where the
suite's case asks for it), three fits with ``random_state=0``:

* ``default``: the estimator as it is;
* ``noise``: ``admit_noise`` forced on (the bound from the data admits the
  sampling noise where k-means' sizes are even within it);
* ``paper``: ``class_balance=0.03``;

and, for each, the error (labels only score) and the normalised cut of its
labels on the graph of the rows (``mmc._graph_start``); then three rules
choosing by the lower cut (:func:`choose`). Run from /tmp with mmc
installed::

    python -I bench/studies/bound_cut_all.py OUT.json NAME [NAME ...]
    python -I bench/studies/bound_cut_all.py --summary OUT.json [OUT.json ...]
"""

import functools
import json
import os
import sys
import time
import warnings

import numpy as np
from sklearn.cluster import KMeans

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from graph_start import estimator_cases  # noqa: E402

import mmc._graph_start as graph_module  # noqa: E402
from mmc._graph_start import SampleDistances, neighbour_graph, normalised_cut  # noqa: E402
from mmc.bench._study_cases import group_table  # noqa: E402
from mmc.metrics import clustering_error  # noqa: E402

RESOLVE = graph_module.resolve_class_balance


def fit(entry, X, n_clusters, nonlinear, admit_noise=False, **params):
    if nonlinear and entry.kernel:
        params["kernel"] = "rbf"

    @functools.wraps(RESOLVE)
    def resolve(*args, **kwargs):
        kwargs["admit_noise"] = True
        return RESOLVE(*args, **kwargs)

    if admit_noise:
        graph_module.resolve_class_balance = resolve
    try:
        start = time.perf_counter()
        estimator = entry.make(n_clusters, 0, **params).fit(X)
        seconds = time.perf_counter() - start
    finally:
        graph_module.resolve_class_balance = RESOLVE
    return estimator, seconds


def measure(name, entry, X, y, nonlinear):
    n_clusters = len(np.unique(y))
    affinity = neighbour_graph(SampleDistances(X))
    row = {}
    for key, options in (
        ("default", {}),
        ("noise", {"admit_noise": True}),
        ("paper", {"class_balance": 0.03}),
    ):
        estimator, seconds = fit(entry, X, n_clusters, nonlinear, **options)
        row[key] = 100 * clustering_error(y, estimator.labels_)
        row[key + "_cut"] = float(
            normalised_cut(affinity, estimator.labels_, n_clusters)
        )
        row[key + "_bound"] = float(getattr(estimator, "class_balance_", np.nan))
        row[key + "_time"] = seconds
    kmeans = KMeans(n_clusters, n_init=10, random_state=0).fit_predict(X)
    row["kmeans"] = 100 * clustering_error(y, kmeans)
    return row


def choose(row):
    """The rules over the study's fits, by the lower cut (ties: the looser
    bound): ``both``, between ``noise`` and ``paper`` everywhere; ``even``,
    only where k-means' sizes were even within the noise (the default's
    bound is 0.03); ``uneven``, only where they were not (ODMC's rule
    without the noise: the library's)."""
    cut = row["paper"] if row["paper_cut"] < row["noise_cut"] else row["noise"]
    even = row["default_bound"] == 0.03
    return {
        "both": cut,
        "even": cut if even else row["default"],
        "uneven": cut if not even else row["default"],
    }


def run(out, names):
    warnings.simplefilter("ignore")
    rows = []
    for name, entry, group, case, X, y, nonlinear in estimator_cases(names):
        row = {"estimator": name, "group": group, "case": case}
        row.update(measure(name, entry, X, y, nonlinear))
        rows.append(row)
        print(json.dumps(row), flush=True)
    with open(out, "w") as f:
        json.dump(rows, f, indent=1)


def summary(paths):
    rows = [row for path in paths for row in json.load(open(path))]
    for row in rows:
        row.update(choose(row))
    for name in dict.fromkeys(row["estimator"] for row in rows):
        mine = [row for row in rows if row["estimator"] == name]
        print(f"\n### {name}\n")
        keys = ("default", "noise", "paper", "both", "even", "uneven")
        print("\n".join(group_table(mine, keys)))


if __name__ == "__main__":
    if sys.argv[1] == "--summary":
        summary(sys.argv[2:])
    else:
        run(sys.argv[1], sys.argv[2:])
