"""EvoMMC and FastEvoMMC with k > 2: one local search per distinct start.

The runs of the k-cluster least-squares MMC start from k-means runs on
the kernel principal components (``mmc._evo_multiclass``); the local
search has no randomness, so runs whose starts are one partition end at
one clustering. Since the commit that added this script each partition is
searched once (``mmc._evo_multiclass.distinct_starts``, the starts
numbered by first occurrence), and the fitness of a clustering is summed
exactly over its clusters (``math.fsum``), so that copies tie and the
first seed wins, as among all of them.

For every case (the 16 multiclass cases of ``python -m mmc.bench
robustness`` and the 25 of ``cpm3c_starts.py``; EvoMMC on those of at
most 1500 samples), ``random_state`` 0 and 1, the script fits each
estimator as shipped and with every start searched
(``distinct_starts`` patched to keep every seed), checks that the labels,
``dual_coef_`` and fitness are identical, and prints the number of
distinct starts of the 10 and the two fit times as a markdown table with
their sums. Labels are not used.

Run from the repository root with mmc installed, on a quiet machine
(about 2 minutes)::

    cd bench/studies && python -I evo_distinct_starts.py > evo_distinct_starts.md
"""

import os
import sys
import time
import warnings

import numpy as np

import mmc._evo_multiclass as evo_multiclass
from mmc import EvoMMC, FastEvoMMC

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fit_threads import short_commit, study_cases  # noqa: E402

SEEDS = (0, 1)
EVO_MAX_SAMPLES = 1500
SHIPPED = evo_multiclass.distinct_starts


def timed_fit(Estimator, X, k, seed, rule):
    """A fit with ``distinct_starts`` replaced by ``rule``, and its time."""
    evo_multiclass.distinct_starts = rule
    try:
        start = time.perf_counter()
        est = Estimator(n_clusters=k, random_state=seed).fit(X)
        return est, time.perf_counter() - start
    finally:
        evo_multiclass.distinct_starts = SHIPPED


def recording(searched):
    """The shipped rule, recording the number of starts it keeps."""

    def rule(starts, n_clusters):
        seeds = SHIPPED(starts, n_clusters)
        searched.append(len(seeds))
        return seeds

    return rule


def every_start(starts, n_clusters):
    return list(starts)


def main():
    warnings.simplefilter("ignore")
    cases, commit = study_cases(), short_commit()
    print("# EvoMMC and FastEvoMMC, k > 2: one local search per distinct start\n")
    print(f"`python -I bench/studies/evo_distinct_starts.py` at {commit} (see")
    print("its docstring): distinct starts of the 10, and fit times (s) with one")
    print("search per distinct start and with every start searched.\n")
    print("| case | estimator | seed | distinct starts | one per start | every start |")
    print("|---|---|---|---:|---:|---:|")
    totals = {}
    for name, X, y in cases:
        k = len(np.unique(y))
        for Estimator in (EvoMMC, FastEvoMMC):
            if Estimator is EvoMMC and X.shape[0] > EVO_MAX_SAMPLES:
                continue
            for seed in SEEDS:
                searched = []
                once, t_once = timed_fit(Estimator, X, k, seed, recording(searched))
                every, t_every = timed_fit(Estimator, X, k, seed, every_start)
                assert np.array_equal(once.labels_, every.labels_), name
                assert np.array_equal(once.dual_coef_, every.dual_coef_), name
                assert once.objective_ == every.objective_, name
                label = Estimator.__name__
                print(
                    f"| {name} | {label} | {seed} | {searched[0]} | "
                    f"{t_once:.3f} | {t_every:.3f} |"
                )
                fits, searches, a, b = totals.get(label, (0, 0, 0.0, 0.0))
                totals[label] = (
                    fits + 1,
                    searches + searched[0],
                    a + t_once,
                    b + t_every,
                )
    columns = "fits | searches (of 10 each) | one per start (s) | every start (s)"
    print(f"\n| estimator | {columns} |")
    print("|---|---:|---:|---:|---:|")
    for label, (fits, searches, a, b) in totals.items():
        print(f"| {label} | {fits} | {searches} | {a:.1f} | {b:.1f} |")


if __name__ == "__main__":
    main()
