"""CPM3C's continuation in C with the intermediate values skipped (not taken).

Runs CPM3C (defaults, coordinate descent) with its CCCP driver
(``mmc._cpm3c_dual.dual_cccp_run``) as it is (``base``), or changed so that a
value of C whose CCCP steps moved no sample sends the run straight to the
final C (``skip``), on the linear cases of the robustness suite (16
multiclass, 55 two-class, ``random_state=0``), on the 45 digit pairs over
seeds 0-2, and on two dense blobs of 100,000 x 50 (k = 2, the scaling
benchmark's case), timing the last. The labels are used for scoring only.

Usage, from /tmp::

    python -I skip_levels.py base OUT.json
    python -I skip_levels.py skip OUT.json

The outputs recorded in ``bench/studies/cpm3c_dual.md`` are
``skip_levels_base.json`` and ``skip_levels_skip.json`` beside this script:
per case ``[error, fit time]``, the pair errors and the large fit's time.
"""

import itertools
import json
import sys
import time
import warnings

import numpy as np
from sklearn.datasets import make_blobs

import mmc._cpm3c as cpm3c_module
import mmc._cpm3c_dual as dual
from mmc import CPM3C
from mmc._cutting_plane_run import RunResult
from mmc.bench._data import digits
from mmc.bench._robustness_data import multiclass_cases, two_class_cases
from mmc.metrics import clustering_error


def skip_run(svm, *, C, tol, max_iter, n_iter_no_change, verbose, start, name):
    """``dual_cccp_run`` that jumps to the final C after a value of C at which
    CCCP moved no sample (the release of the start counts as a move)."""
    C = float(f"{C:.12g}")
    n_levels = dual.N_LEVELS
    level, level_moves = 0, 0
    svm.set_C(C / 2.0 ** (n_levels - 1))
    best = (np.inf, None)
    previous, n_stale, converged = np.inf, 0, False
    for n_iter in range(1, max_iter + 1):
        svm.solve()
        n_changed = svm.update()
        level_moves += n_changed
        objective = svm.objective
        if level == n_levels - 1 and not svm.pinned:
            if objective < best[0]:
                best, n_stale = (objective, svm.weights), 0
            else:
                n_stale += 1
        settled = svm.converged and (
            n_changed == 0 or previous - objective <= tol * abs(objective)
        )
        previous = objective
        if settled:
            previous = np.inf
            if svm.release():
                level_moves = 1
                continue
            if level == n_levels - 1:
                converged = True
                break
            level = n_levels - 1 if level_moves == 0 else level + 1
            level_moves = 0
            svm.set_C(C / 2.0 ** (n_levels - 1 - level))
        if n_iter_no_change is not None and n_stale >= n_iter_no_change:
            converged = True
            break
    if best[1] is None:
        best = (svm.objective, svm.weights)
    objective, (coef, intercept) = best
    return RunResult(
        coef, intercept, objective, n_iter, svm.n_support(), converged, start
    )


def error(y, labels):
    return 100 * clustering_error(y, labels)


def main():
    variant, out_path = sys.argv[1], sys.argv[2]
    if variant == "skip":
        cpm3c_module.dual_cccp_run = skip_run
    warnings.simplefilter("ignore")
    cases = {}
    for group, group_cases in (
        ("multi", multiclass_cases()),
        ("two", two_class_cases()),
    ):
        for case in group_cases:
            if case.nonlinear:
                continue
            X, y = case.load()
            k = len(np.unique(y))
            start = time.perf_counter()
            est = CPM3C(n_clusters=k, random_state=0).fit(X)
            cases[f"{group}:{case.name}"] = (
                error(y, est.labels_),
                time.perf_counter() - start,
            )
    pairs = [
        error(y, CPM3C(n_clusters=2, random_state=seed).fit(X).labels_)
        for seed in (0, 1, 2)
        for X, y in (digits(p) for p in itertools.combinations(range(10), 2))
    ]
    X, _ = make_blobs(n_samples=100000, n_features=50, centers=2, random_state=0)
    start = time.perf_counter()
    CPM3C(n_clusters=2, random_state=0).fit(X)
    large = time.perf_counter() - start
    for group in ("multi", "two"):
        e = np.array([v for key, v in cases.items() if key.startswith(group)])
        print(
            variant,
            group,
            f"mean {e[:, 0].mean():.3f}",
            f"median time {np.median(e[:, 1]):.4f} s",
        )
    print(variant, f"pairs x 3 seeds {np.mean(pairs):.3f}", f"large {large:.2f} s")
    with open(out_path, "w") as f:
        json.dump({"cases": cases, "pairs": pairs, "big": large}, f)


if __name__ == "__main__":
    main()
