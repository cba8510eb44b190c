"""Runs of one fit on threads: fit time with and without them.

Independent runs inside one fit go on threads by the rule of
``mmc._threads.fit_threads`` (OpenMP's thread count when a pass over the
rows costs at least ``THREADED_PASS_PRODUCTS`` = 4e5 multiply-adds, one
inside restarts on threads of ``n_jobs``): the k-means runs of CPM3C's
start and class-balance estimate, and, measured here,

* ``CPM3C``: with k > 2, the two runs of each start, with the
  continuation in C and at C directly (``mmc._cpm3c_dual.best_dual_run``);
* ``EvoMMC``, ``FastEvoMMC``: with k > 2, the k-means starts of the
  ``n_init`` restarts, computed before the restarts' local searches
  (``mmc._evo_multiclass``; EvoMMC on the cases of at most 1500 samples,
  its exact kernel matrix being cubic).

The script times ``Estimator(n_clusters=k, random_state=0)`` on the 16
multiclass cases of ``python -m mmc.bench robustness`` and the 25 of
``cpm3c_starts.py`` three ways, each the median of ``ROUNDS`` fits
interleaved with ``KMeans(n_clusters=k, n_init=10)``:

* ``rule``: as shipped;
* ``one thread``: those runs on one thread;
* ``threads``: those runs on the OpenMP threads whatever the size.

It checks that the labels and objectives are identical, and prints a
markdown table (products of one pass, the three times and their ratios to
KMeans's) and a summary. Labels are not used.

Run from the repository root with mmc installed, on a quiet machine
(about 2 minutes for CPM3C, 8 for EvoMMC)::

    python -I bench/studies/fit_threads.py CPM3C > bench/studies/cpm3c_threads.md
    python -I bench/studies/fit_threads.py EvoMMC > bench/studies/evo_threads.md
    python -I bench/studies/fit_threads.py FastEvoMMC >> bench/studies/evo_threads.md
"""

import functools
import os
import sys
import warnings

import numpy as np

import mmc
import mmc._cpm3c_dual
import mmc._evo_multiclass
from mmc._threads import pass_products
from mmc.bench._robustness_data import multiclass_cases
from mmc.bench._thread_study import (
    measure_variants,
    patched,
    short_commit,
    table_row,
)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cpm3c_starts import cases as other_cases  # noqa: E402

ROUNDS = 7
# The module whose fit_threads decides each estimator's runs.
MODULES = {
    "CPM3C": mmc._cpm3c_dual,
    "EvoMMC": mmc._evo_multiclass,
    "FastEvoMMC": mmc._evo_multiclass,
}
# EvoMMC's cases: at most this many samples.
EVO_MAX_SAMPLES = 1500
RULE = mmc._threads.fit_threads
VARIANTS = {
    "rule": RULE,
    "one thread": lambda n_runs, products: 1,
    "threads": lambda n_runs, products: RULE(n_runs, np.inf),
}


def measure(Estimator, module, X, k):
    variants = {
        name: functools.partial(patched, [module], "fit_threads", rule)
        for name, rule in VARIANTS.items()
    }
    medians, _ = measure_variants(
        lambda name: Estimator(n_clusters=k, random_state=0), X, k, variants, ROUNDS
    )
    return medians


def study_cases():
    """(name, X, y) of the 16 multiclass cases of the robustness suite and
    the 25 of ``cpm3c_starts.py``."""
    cases = [("suite " + c.name, *c.load()[:2]) for c in multiclass_cases()]
    return cases + [("other " + case, X, y) for case, X, y in other_cases()]


def main(name):
    Estimator, module = getattr(mmc, name), MODULES[name]
    warnings.simplefilter("ignore")
    cases, commit = study_cases(), short_commit()
    print(f"# {name}: runs of one fit on threads\n")
    print(f"`python -I bench/studies/fit_threads.py {name}` at {commit} (see its")
    print(f"docstring): medians of {ROUNDS} fits, seconds (ratio to KMeans).\n")
    print("| case | products | KMeans | rule | one thread | threads |")
    print("|---|---:|---:|---:|---:|---:|")
    ratios = {name: [] for name in VARIANTS}
    for case, X, y in cases:
        if name == "EvoMMC" and X.shape[0] > EVO_MAX_SAMPLES:
            continue
        k = len(np.unique(y))
        products = pass_products(X, k)
        medians = measure(Estimator, module, X, k)
        line, case_ratios = table_row(case, products, medians, VARIANTS)
        for variant, ratio in case_ratios.items():
            ratios[variant].append((products, ratio))
        print(line)
    n_cases = len(ratios["rule"])
    header = f"median time / KMeans, all {n_cases} | at or above 4e5 products"
    print(f"\n| variant | {header} |")
    print("|---|---:|---:|")
    for variant, pairs in ratios.items():
        every = np.median([r for _, r in pairs])
        large = np.median([r for p, r in pairs if p >= 400_000])
        print(f"| {variant} | {every:.2f} | {large:.2f} |")


if __name__ == "__main__":
    main(sys.argv[1])
