"""CPM3C by coordinate descent: the continuation in C against the run at C.

Each run of CPM3C's coordinate-descent solver starts C at C / 2**(L - 1)
and doubles it each time CCCP settles (L = ``N_LEVELS`` = 4 values of C).
This script fits every case with single runs of L = 1 (CCCP at C directly
from the start), 2, 3 and 4 (``mmc._cpm3c.best_dual_run`` replaced by one
run of that L), records the error after the best matching (labels only
score), the MMC objective and the fit time, and reports the rule that
keeps the lower objective of the runs of a subset of the Ls
(``best_dual_run`` with k > 2 is the subset {1, 4}).

* ``multiclass``: the 16 multiclass cases of ``python -m mmc.bench
  robustness`` and the 25 of ``bench/studies/cpm3c_starts.py``, seeds 0-2.
* ``two-class``: the 57 two-class cases of the suite and the 45 digit
  pairs, seed 0: the default (four starts, continuation only) against the
  k-means start also run at C directly.
* ``report``: the tables, from the two JSON files.

Run from the repository root with mmc installed (about 4 and 1 minutes)::

    python -I bench/studies/cpm3c_direct.py multiclass OUT_DIR
    python -I bench/studies/cpm3c_direct.py two-class OUT_DIR
    python -I bench/studies/cpm3c_direct.py report OUT_DIR
"""

import json
import os
import sys
import time
import warnings

import numpy as np
from sklearn.datasets import load_digits

import mmc._cpm3c as cpm3c_module
from mmc import CPM3C
from mmc._cpm3c_dual import best_dual_run
from mmc.bench._robustness_data import multiclass_cases, two_class_cases
from mmc.metrics import clustering_error

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cpm3c_starts import cases as other_cases  # noqa: E402

LEVELS = (1, 2, 3, 4)
SEEDS = (0, 1, 2)
SUBSETS = ((4,), (1, 4), (2, 4), (3, 4), (1, 2, 3, 4), (1,), (2,), (3,))


def single_run(n_levels):
    """``best_dual_run`` replaced by one run of ``n_levels`` values of C."""

    def run(run_once, start, seed, direct, X, n_clusters):
        return run_once(start, seed=seed, n_levels=n_levels)

    return run


def kmeans_also_direct(run_once, start, seed, direct, X, n_clusters):
    """The k-means start also run at C directly, for any k."""
    return best_dual_run(run_once, start, seed, start[0] == "kmeans", X, n_clusters)


def fit(X, y, **params):
    began = time.perf_counter()
    est = CPM3C(**params).fit(X)
    seconds = time.perf_counter() - began
    return 100 * clustering_error(y, est.labels_), est.objective_, seconds


def multiclass(out):
    cases = [("suite " + c.name, *c.load()) for c in multiclass_cases()]
    cases += [("other " + name, X, y) for name, X, y in other_cases()]
    rows = []
    for name, X, y in cases:
        k = len(np.unique(y))
        for seed in SEEDS:
            row = {"case": name, "seed": seed}
            for n_levels in LEVELS:
                cpm3c_module.best_dual_run = single_run(n_levels)
                row[n_levels] = fit(X, y, n_clusters=k, random_state=seed)
            rows.append(row)
            print(name, seed, {n: round(row[n][0], 2) for n in LEVELS}, flush=True)
    with open(os.path.join(out, "cpm3c_direct_multiclass.json"), "w") as f:
        json.dump(rows, f)


def two_class(out):
    cases = [("suite " + c.name, *c.load(), c.nonlinear) for c in two_class_cases()]
    digits = load_digits()
    for a in range(10):
        for b in range(a + 1, 10):
            mask = (digits.target == a) | (digits.target == b)
            X, y = digits.data[mask] / 16.0, digits.target[mask]
            cases.append((f"pair {a}v{b}", X, y, False))
    rows = []
    for name, X, y, nonlinear in cases:
        params = {"random_state": 0, **({"kernel": "rbf"} if nonlinear else {})}
        row = {"case": name}
        for variant, rule in (
            ("default", best_dual_run),
            ("direct", kmeans_also_direct),
        ):
            cpm3c_module.best_dual_run = rule
            row[variant] = fit(X, y, **params)
        rows.append(row)
        print(name, row["default"][0], row["direct"][0], flush=True)
    with open(os.path.join(out, "cpm3c_direct_two_class.json"), "w") as f:
        json.dump(rows, f)


def kmeans_errors():
    """KMeans(n_init=10)'s errors: the suite's record and cpm3c_starts.md."""
    here = os.path.dirname(os.path.abspath(__file__))
    errors = {}
    with open(os.path.join(here, "..", "multiclass", "results.json")) as f:
        suite = json.load(f)["multiclass"]["accuracy"]["multiclass"]["cases"]
    for name, case in suite.items():
        errors["suite " + name] = case["scores"]["KMeans"]["error"]
    with open(os.path.join(here, "cpm3c_starts.md")) as f:
        for line in f:
            cells = [c.strip() for c in line.split("|")]
            if len(cells) == 10 and cells[7].replace(".", "").isdigit():
                errors["other " + cells[1]] = float(cells[7])
    return errors


def report(out):
    with open(os.path.join(out, "cpm3c_direct_multiclass.json")) as f:
        rows = json.load(f)
    kmeans = kmeans_errors()
    print(
        "| runs (values of C) | set | mean error | worse than KMeans + 1 |"
        " median fit time (s) |"
    )
    print("|---|---|---|---|---|")
    for subset in SUBSETS:
        per_case = {}
        for row in rows:
            best = min(subset, key=lambda n: row[str(n)][1])
            time_ = sum(row[str(n)][2] for n in subset)
            per_case.setdefault(row["case"], []).append((row[str(best)][0], time_))
        for group in ("suite", "other"):
            names = [c for c in per_case if c.startswith(group)]
            errors = {c: np.mean([e for e, _ in per_case[c]]) for c in names}
            worse = sum(errors[c] > kmeans[c] + 1 for c in names)
            seconds = np.median([np.mean([t for _, t in per_case[c]]) for c in names])
            label = " and ".join(map(str, subset))
            mean = np.mean(list(errors.values()))
            print(
                f"| {label} | {group} ({len(names)}) | {mean:.2f} | {worse}"
                f" | {seconds:.3f} |"
            )
    for group in ("suite", "other"):
        mean = np.mean([v for c, v in kmeans.items() if c.startswith(group)])
        print(f"\nKMeans, {group}: {mean:.2f}")
    print("\nCases whose mean error moved by more than 0.05 (4 -> 1 and 4; KMeans):\n")
    by_case = {}
    for row in rows:
        best = min((1, 4), key=lambda n: row[str(n)][1])
        by_case.setdefault(row["case"], []).append((row["4"][0], row[str(best)][0]))
    for name, values in by_case.items():
        before, after = (np.mean(v) for v in zip(*values))
        if abs(before - after) > 0.05:
            print(f"* {name}: {before:.2f} -> {after:.2f} ({kmeans[name]:.2f})")
    with open(os.path.join(out, "cpm3c_direct_two_class.json")) as f:
        rows = json.load(f)
    print("\n| two clusters | cases | default | k-means start also at C |")
    print("|---|---|---|---|")
    for group, label in (("suite", "two-class suite"), ("pair", "45 digit pairs")):
        group_rows = [r for r in rows if r["case"].startswith(group)]
        means = [np.mean([r[v][0] for r in group_rows]) for v in ("default", "direct")]
        print(f"| {label} | {len(group_rows)} | {means[0]:.2f} | {means[1]:.2f} |")


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    {"multiclass": multiclass, "two-class": two_class, "report": report}[sys.argv[1]](
        sys.argv[2]
    )
