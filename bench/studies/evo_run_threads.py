"""EvoMMC's and FastEvoMMC's runs on threads without ``n_jobs``.

With ``n_jobs=None`` the ``n_init`` runs of EvoMMC and FastEvoMMC (the
spectral starts and the evolution with two clusters, the local search
with more) run on the threads that KMeans would use for its runs, by the
rule of ``mmc._threads.restart_threads``: OpenMP's thread count when a
run costs at least ``THREADED_PASS_PRODUCTS`` = 4e5 multiply-adds between
synchronisations (two clusters: the evolution's ``patience x offspring x
r`` children's fitnesses at least; more: a sweep of the local search, a
pass of the basis, n x r, against the k indicators), one thread otherwise
or inside a caller's thread. This script times
``Estimator(n_clusters=k, random_state=0)`` three ways, each the median of
``ROUNDS`` fits interleaved with ``KMeans(n_clusters=k, n_init=10)``:

* ``rule``: as shipped (``n_jobs=None``);
* ``one thread``: ``n_jobs=1``, the runs one after the other (the
  behaviour before the rule);
* ``threads``: the runs on the OpenMP threads whatever the size;

on the 57 two-class and 16 multiclass cases of ``python -m mmc.bench
robustness`` (EvoMMC on the cases of at most ``EVO_MAX_SAMPLES`` samples,
its exact kernel matrix being cubic). It checks that the labels and
objectives are identical and prints a markdown table per estimator
(products of one pass, the three times and their ratios to KMeans's) and
a summary. Labels are not used.

Run from the repository root with mmc installed, on a quiet machine
(about 15 minutes)::

    python -I bench/studies/evo_run_threads.py > bench/studies/evo_run_threads.md
"""

import functools
import warnings

import numpy as np

import mmc
import mmc._evo_base
import mmc._evo_multiclass
import mmc._threads
from mmc.bench._robustness_data import multiclass_cases, two_class_cases
from mmc.bench._thread_study import (
    measure_variants,
    patched,
    short_commit,
    table_row,
)

ROUNDS = 3
EVO_MAX_SAMPLES = 1500
RULE = mmc._threads.restart_threads
MODULES = (mmc._evo_base, mmc._evo_multiclass)
VARIANTS = {
    "rule": (None, RULE),
    "one thread": (1, RULE),
    "threads": (None, lambda n_jobs, n_runs, products: RULE(n_jobs, n_runs, np.inf)),
}


def measure(Estimator, X, k):
    variants = {
        name: functools.partial(patched, MODULES, "restart_threads", rule)
        for name, (_, rule) in VARIANTS.items()
    }
    return measure_variants(
        lambda name: Estimator(n_clusters=k, random_state=0, n_jobs=VARIANTS[name][0]),
        X,
        k,
        variants,
        ROUNDS,
    )


def study(name, cases):
    Estimator = getattr(mmc, name)
    print(f"\n## {name}\n")
    print("| case | products | KMeans | rule | one thread | threads |")
    print("|---|---:|---:|---:|---:|---:|")
    ratios = {variant: [] for variant in VARIANTS}
    for case, X, y in cases:
        if name == "EvoMMC" and X.shape[0] > EVO_MAX_SAMPLES:
            continue
        k = len(np.unique(y))
        medians, fitted = measure(Estimator, X, k)
        if k == 2:
            products = fitted.patience * fitted.offspring * fitted.n_components_
        else:
            products = X.shape[0] * fitted.n_components_ * k
        line, case_ratios = table_row(case, products, medians, VARIANTS)
        for variant, ratio in case_ratios.items():
            ratios[variant].append((k, products, ratio))
        print(line)
    print(
        "\n| variant | median time / KMeans, two clusters | more than two "
        "| at or above 4e5 products |"
    )
    print("|---|---:|---:|---:|")
    for variant, triples in ratios.items():
        two = np.median([r for k, _, r in triples if k == 2])
        more = np.median([r for k, _, r in triples if k > 2])
        large = np.median([r for _, p, r in triples if p >= 400_000])
        print(f"| {variant} | {two:.2f} | {more:.2f} | {large:.2f} |")


def main():
    warnings.simplefilter("ignore")
    cases = [(c.name, *c.load()[:2]) for c in two_class_cases() + multiclass_cases()]
    print("# EvoMMC and FastEvoMMC: the runs on threads without n_jobs\n")
    print(f"`python -I bench/studies/evo_run_threads.py` at {short_commit()} (see")
    print(f"its docstring): medians of {ROUNDS} fits, seconds (ratio to KMeans).")
    for name in ("FastEvoMMC", "EvoMMC"):
        study(name, cases)


if __name__ == "__main__":
    main()
