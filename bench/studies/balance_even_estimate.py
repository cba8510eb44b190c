"""The ``"auto"`` bound where k-means' sizes are even within the noise.

``class_balance="auto"`` (mmc/_balance.py) sets the bound from the sizes of
k-means' clusters; until stop 57, where the chi-square test called them
even within sampling noise, it fell back to the papers' 0.03, which forces
even clusters: on wine's classes 0 and 2 (59:48, 107 samples) k-means
finds the classes exactly, yet CPM3C, EvoMMC and FastEvoMMC split them
55:52 (3.7 % error). Not rejecting even sizes is no evidence that they are
even. This study compares, for every estimator named, the library as it
was (``before``: the fallback to 0.03, and the choice by the cut refitting
wherever the bound exceeds 0.03) with the library as built (``after``:
k-means' own proportions whatever the test says, ODMC's linear fits,
which admit the noise, unchanged; no refit where the fit's clusters meet
0.03 already), on the cases of the robustness suite and the held-out
cases of ``graph_start.py`` (45 digit pairs, corpora of seeds 2 and 3,
unbalanced blobs), or with ``--generated`` on the 128 cases of
``make_classification`` of :mod:`mmc.bench._study_cases`, with
KMeans(n_init=10). Labels only score. It needs the rule as built
(``mmc._balance_cut.meets_paper_bound``, on main since stop 59). Run
from /tmp with mmc installed::

    python -I bench/studies/balance_even_estimate.py OUT.json NAME [NAME ...]
    python -I bench/studies/balance_even_estimate.py --generated OUT.json NAME [...]
    python -I bench/studies/balance_even_estimate.py --summary OUT.json [...]
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

from mmc import _balance, _balance_cut  # noqa: E402
from mmc.bench import _study_cases as study_cases  # noqa: E402
from mmc.bench._registry import estimators  # noqa: E402
from mmc.bench._study_cases import group_table  # noqa: E402
from mmc.metrics import clustering_error  # noqa: E402

BUILT = _balance.estimated_proportions
MEETS = _balance_cut.meets_paper_bound


def before_proportions(sizes, admit_noise):
    """The rule before stop 57: None (the papers' bound) for sizes even
    within the noise, unless ``admit_noise``."""
    if sizes is not None and _balance.uneven_proportions(sizes) is None:
        if not admit_noise:
            return None
    return BUILT(sizes, admit_noise)


def fit(entry, X, n_clusters, params, before):
    if before:
        _balance.estimated_proportions = before_proportions
        _balance_cut.meets_paper_bound = lambda estimator: False
    try:
        start = time.perf_counter()
        estimator = entry.make(n_clusters, 0, **params).fit(X)
        return estimator, time.perf_counter() - start
    finally:
        _balance.estimated_proportions = BUILT
        _balance_cut.meets_paper_bound = MEETS


def errors(entry, X, y, nonlinear):
    n_clusters = len(np.unique(y))
    params = {"kernel": "rbf"} if nonlinear and entry.kernel else {}
    before, seconds_before = fit(entry, X, n_clusters, params, True)
    after, seconds_after = fit(entry, X, n_clusters, params, False)
    kmeans = KMeans(n_clusters, n_init=10, random_state=0).fit_predict(X)
    return {
        "before": 100 * clustering_error(y, before.labels_),
        "after": 100 * clustering_error(y, after.labels_),
        "kmeans": 100 * clustering_error(y, kmeans),
        "class_balance_before": float(before.class_balance_),
        "class_balance_after": float(after.class_balance_),
        "seconds_before": seconds_before,
        "seconds_after": seconds_after,
    }


def generated_cases(names):
    """The ``estimator_cases`` tuples of the generated group."""
    entries = estimators()
    for case, X, y in study_cases.generated_cases():
        for name in names:
            yield name, entries[name], "generated", case, X, y, False


def main(out, names, generated=False):
    warnings.simplefilter("ignore")
    rows = []
    cases = generated_cases(names) if generated else estimator_cases(names)
    for name, entry, group, case, X, y, nonlinear in cases:
        row = {"estimator": name, "group": group, "case": case}
        rows.append({**row, **errors(entry, X, y, nonlinear)})
        print(rows[-1], flush=True)
        with open(out, "w") as f:
            json.dump(rows, f, indent=1)


def report(paths):
    rows = [row for path in paths for row in json.load(open(path))]
    for name in dict.fromkeys(row["estimator"] for row in rows):
        mine = [row for row in rows if row["estimator"] == name]
        print(f"\n### {name}\n")
        print("\n".join(group_table(mine, ("before", "after"), ("before", "after"))))
        print()
        for r in mine:
            if abs(r["after"] - r["before"]) > 0.05:
                print(
                    f"* {r['group']}, {r['case']}: {r['before']:.2f} -> "
                    f"{r['after']:.2f} (KMeans {r['kmeans']:.2f})"
                )


if __name__ == "__main__":
    if sys.argv[1] == "--summary":
        report(sys.argv[2:])
    elif sys.argv[1] == "--generated":
        main(sys.argv[2], sys.argv[3:], generated=True)
    else:
        main(sys.argv[1], sys.argv[2:])
