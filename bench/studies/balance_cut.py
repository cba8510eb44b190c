"""ODMC's choice of bound by the normalised cut (mmc/_balance_cut.py).

On the two-class cases of the robustness suite (linear kernel throughout,
as ODMC's default), its two-topic corpora, and the held-out cases of
``graph_start.py`` with two classes (the 45 digit pairs, the corpora of
seeds 2 and 3, the unbalanced blobs): ODMC with its defaults, and with the
choice by the cut turned off (``keep_the_better_cut`` patched to keep the
bound set from the data), and KMeans(n_init=10). Labels only score. Run
from /tmp with mmc installed::

    python -I bench/studies/balance_cut.py OUT.json
"""

import json
import os
import sys
import warnings

import numpy as np
from sklearn.cluster import KMeans

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from graph_start import held_out_cases, suite_cases  # noqa: E402

import mmc._odmc  # noqa: E402
from mmc import ODMC  # noqa: E402
from mmc.bench._study_cases import group_table  # noqa: E402
from mmc.metrics import clustering_error  # noqa: E402


def errors(X, y):
    rule = mmc._odmc.keep_the_better_cut
    with_rule = ODMC(random_state=0).fit(X)
    mmc._odmc.keep_the_better_cut = lambda estimator, X: None
    try:
        without = ODMC(random_state=0).fit(X)
    finally:
        mmc._odmc.keep_the_better_cut = rule
    kmeans = KMeans(2, n_init=10, random_state=0).fit_predict(X)
    return {
        "rule": 100 * clustering_error(y, with_rule.labels_),
        "without": 100 * clustering_error(y, without.labels_),
        "kmeans": 100 * clustering_error(y, kmeans),
        "paper_bound_cut": bool(with_rule.paper_bound_cut_),
        "class_balance": float(without.class_balance_),
    }


def summary(rows):
    """The study's table (mmc.bench._study_cases.group_table) and the count
    of cases the rule changed in each group."""
    lines = group_table(rows, ("without", "rule"), ("without the rule", "with it"))
    for group in dict.fromkeys(r["group"] for r in rows):
        changed = sum(r["rule"] != r["without"] for r in rows if r["group"] == group)
        lines.append(f"* {group}: {changed} changed")
    return lines


def main(out):
    warnings.simplefilter("ignore")
    rows = []
    for cases in (suite_cases(), held_out_cases()):
        for group, name, X, y, _ in cases:
            if len(np.unique(y)) != 2:
                continue
            rows.append({"group": group, "case": name, **errors(X, y)})
            print(rows[-1], flush=True)
    with open(out, "w") as f:
        json.dump(rows, f, indent=1)
    print("\n".join(summary(rows)))
    for r in rows:
        if r["rule"] != r["without"]:
            print(
                f"* {r['group']}, {r['case']}: {r['without']:.2f} -> "
                f"{r['rule']:.2f} (KMeans {r['kmeans']:.2f})"
            )


if __name__ == "__main__":
    main(sys.argv[1])
