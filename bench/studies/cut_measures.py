"""Other cuts than the normalised one for the bound by the cut: on every
case where the rule took the papers' bound (``results/s56/balance_cut_*.json``,
``paper_bound_cut``), the fit at the bound set from the data and at 0.03,
and which of the two each measure of the rows' 10-nearest-neighbour graph
prefers: the normalised cut (the rule's), the raw cut (the weight of the
edges cut, which does not favour even splits) and the conductance (the
largest cut over the smaller side's volume). Labels only score. Run from
/tmp with mmc installed::

    python -I bench/studies/cut_measures.py
"""

import json
import os
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from graph_start import estimator_cases  # noqa: E402

import mmc._cutting_plane as cutting_plane  # noqa: E402
import mmc._evo_base as evo_base  # noqa: E402
from mmc._graph_start import SampleDistances, neighbour_graph  # noqa: E402
from mmc.metrics import clustering_error  # noqa: E402

RESULTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results", "s56")


def cuts(affinity, labels, n_clusters):
    """The three measures of the graph ``affinity`` cut by ``labels``."""
    degrees = np.asarray(affinity.sum(axis=1)).ravel()
    volumes, leaving = [], []
    for cluster in range(n_clusters):
        members = labels == cluster
        volumes.append(degrees[members].sum())
        leaving.append(volumes[-1] - affinity[members][:, members].sum())
    total = degrees.sum()
    return {
        "ncut": sum(cut / volume for cut, volume in zip(leaving, volumes)),
        "raw": sum(leaving) / 2,
        "conductance": max(
            cut / min(volume, total - volume) for cut, volume in zip(leaving, volumes)
        ),
    }


def main():
    warnings.simplefilter("ignore")
    rows = [
        r
        for name in ("balance_cut_a.json", "balance_cut_b.json")
        for r in json.load(open(os.path.join(RESULTS, name)))
    ]
    changed = {(r["estimator"], r["case"]) for r in rows if r["paper_bound_cut"]}
    res = []
    for name, entry, group, case, X, y, nonlinear in estimator_cases(
        ["CPMMC", "CPM3C", "MultivariateMMC", "EvoMMC", "FastEvoMMC"]
    ):
        if (name, case) not in changed:
            continue
        k = len(np.unique(y))
        params = {"kernel": "rbf"} if nonlinear and entry.kernel else {}
        keep = cutting_plane.keep_the_better_cut
        cutting_plane.keep_the_better_cut = evo_base.keep_the_better_cut = (
            lambda *a, **kw: None
        )
        try:
            data = entry.make(k, 0, **params).fit(X)
            paper = entry.make(k, 0, class_balance=0.03, **params).fit(X)
        finally:
            cutting_plane.keep_the_better_cut = evo_base.keep_the_better_cut = keep
        graph = neighbour_graph(SampleDistances(X)).tocsr()
        cd, cp = cuts(graph, data.labels_, k), cuts(graph, paper.labels_, k)
        ed, ep = (
            100 * clustering_error(y, data.labels_),
            100 * clustering_error(y, paper.labels_),
        )
        res.append((name, case, ed, ep, cd, cp))
        print(
            f"{name:16s} {case[:40]:40s} err data {ed:6.2f} paper {ep:6.2f} | "
            + " ".join(f"{m}: {'P' if cp[m] < cd[m] else 'D'}" for m in cd),
            flush=True,
        )
    for m in ("ncut", "raw", "conductance"):
        chosen = [ep if cp[m] < cd[m] else ed for _, _, ed, ep, cd, cp in res]
        print(
            m,
            "mean error of the chosen",
            round(float(np.mean(chosen)), 2),
            "data-bound mean",
            round(float(np.mean([r[2] for r in res])), 2),
            "best possible",
            round(float(np.mean([min(r[2], r[3]) for r in res])), 2),
        )


if __name__ == "__main__":
    main()
