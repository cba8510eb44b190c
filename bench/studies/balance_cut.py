"""The choice of bound by the normalised cut (mmc/_balance_cut.py).

On the cases of the robustness suite, and the held-out cases of
``graph_start.py`` (the 45 digit pairs, the corpora of seeds 2 and 3, the
unbalanced blobs), each estimator named (ODMC by default; the multiclass
cases for those that take ``n_clusters``; ``kernel="rbf"`` where the
suite's case asks for it) with its defaults, and with the choice by the
cut turned off (``keep_the_better_cut`` patched to keep the bound set from
the data), and KMeans(n_init=10). Labels only score. Run from /tmp with
mmc installed::

    python -I bench/studies/balance_cut.py OUT.json [NAME ...]
    python -I bench/studies/balance_cut.py --summary OUT.json [OUT.json ...]
"""

import json
import os
import sys
import time
import warnings

import numpy as np
from sklearn.cluster import KMeans

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from graph_start import estimator_cases  # noqa: E402

from mmc import _balance_cut, _cutting_plane, _evo_base, _odmc  # noqa: E402
from mmc.bench._study_cases import group_table  # noqa: E402
from mmc.metrics import clustering_error  # noqa: E402

# The modules whose estimators call the rule.
CALLERS = (_cutting_plane, _evo_base, _odmc)


def errors(entry, X, y, nonlinear):
    n_clusters = len(np.unique(y))
    params = {"kernel": "rbf"} if nonlinear and entry.kernel else {}
    start = time.perf_counter()
    with_rule = entry.make(n_clusters, 0, **params).fit(X)
    seconds = time.perf_counter() - start
    for module in CALLERS:
        module.keep_the_better_cut = lambda estimator, *args, **kwargs: None
    try:
        start = time.perf_counter()
        without = entry.make(n_clusters, 0, **params).fit(X)
        seconds_without = time.perf_counter() - start
    finally:
        for module in CALLERS:
            module.keep_the_better_cut = _balance_cut.keep_the_better_cut
    kmeans = KMeans(n_clusters, n_init=10, random_state=0).fit_predict(X)
    return {
        "rule": 100 * clustering_error(y, with_rule.labels_),
        "without": 100 * clustering_error(y, without.labels_),
        "kmeans": 100 * clustering_error(y, kmeans),
        "paper_bound_cut": bool(with_rule.paper_bound_cut_),
        "class_balance": float(without.class_balance_),
        "seconds": seconds,
        "seconds_without": seconds_without,
    }


def summary(rows):
    """The study's table (mmc.bench._study_cases.group_table) and the count
    of cases the rule changed in each group."""
    lines = group_table(rows, ("without", "rule"), ("without the rule", "with it"))
    for group in dict.fromkeys(r["group"] for r in rows):
        changed = sum(r["rule"] != r["without"] for r in rows if r["group"] == group)
        lines.append(f"* {group}: {changed} changed")
    return lines


def main(out, names):
    warnings.simplefilter("ignore")
    rows = []
    for name, entry, group, case, X, y, nonlinear in estimator_cases(names):
        row = {"estimator": name, "group": group, "case": case}
        rows.append({**row, **errors(entry, X, y, nonlinear)})
        print(rows[-1], flush=True)
    with open(out, "w") as f:
        json.dump(rows, f, indent=1)


def report(paths):
    rows = [row for path in paths for row in json.load(open(path))]
    for name in dict.fromkeys(row.get("estimator", "ODMC") for row in rows):
        mine = [row for row in rows if row.get("estimator", "ODMC") == name]
        print(f"\n### {name}\n")
        print("\n".join(summary(mine)))
        print()
        for r in mine:
            if r["rule"] != r["without"]:
                print(
                    f"* {r['group']}, {r['case']}: {r['without']:.2f} -> "
                    f"{r['rule']:.2f} (KMeans {r['kmeans']:.2f})"
                )


if __name__ == "__main__":
    if sys.argv[1] == "--summary":
        report(sys.argv[2:])
    else:
        main(sys.argv[1], sys.argv[2:] or ["ODMC"])
