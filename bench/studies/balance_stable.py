"""``class_balance="stable"`` as the library computes it, against ``"auto"``.

``bench/studies/balance_stability.py`` measured the rule from fits at every
bound; this script fits the estimators themselves with
``class_balance="stable"`` (mmc/_stability.py) and with the default, on the
three groups of ``mmc.bench._study_cases``, and records each case's errors,
the setting chosen, the stabilities and the fit times against
KMeans(n_init=10)'s in the same run. Labels only score.

Run from any directory but the repository root (or with ``-I``), mmc
installed::

    python -I bench/studies/balance_stable.py collect CPMMC OUT_DIR [GROUPS [SEED]]
    python -I bench/studies/balance_stable.py report OUT_DIR CPMMC ODMC ...

``GROUPS`` is a comma-separated list of ``suite``, ``pairs``,
``generated`` (all by default); ``SEED`` the ``random_state`` of every
estimator and of KMeans (0).
"""

import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.cluster import KMeans

from mmc.bench._registry import estimators as registry
from mmc.bench._study_cases import STUDY_GROUPS, two_class_study_cases
from mmc.metrics import clustering_error

KERNEL_PARAMS = {"linear": {}, "rbf": {"kernel": "rbf"}}


def timed_fit(estimator, X):
    """The fitted estimator and its fit time in seconds."""
    start = time.perf_counter()
    estimator.fit(X)
    return estimator, time.perf_counter() - start


def collect(name, out_dir, groups=STUDY_GROUPS, seed=0):
    """One JSON file per estimator: a row per case."""
    warnings.simplefilter("ignore")
    make = registry()[name].make
    rows = []
    for group, case, X, y, kernel in two_class_study_cases():
        if group not in groups:
            continue
        kmeans, kmeans_time = timed_fit(KMeans(2, n_init=10, random_state=seed), X)
        row = {
            "group": group,
            "case": case,
            "kmeans": 100 * clustering_error(y, kmeans.labels_),
            "kmeans_time": kmeans_time,
        }
        for setting in ("auto", "stable"):
            fitted, seconds = timed_fit(
                make(2, seed, class_balance=setting, **KERNEL_PARAMS[kernel]), X
            )
            row[setting] = {
                "error": 100 * clustering_error(y, fitted.labels_),
                "time": seconds,
                "class_balance_": fitted.class_balance_,
            }
        stabilities = fitted.balance_stability_ or {}
        row["stabilities"] = {str(k): v for k, v in stabilities.items()}
        rows.append(row)
        print(
            group,
            case,
            round(row["auto"]["error"], 2),
            round(row["stable"]["error"], 2),
            {k: round(v, 2) for k, v in row["stabilities"].items()},
            flush=True,
        )
    Path(out_dir).mkdir(parents=True, exist_ok=True)
    with open(Path(out_dir) / f"{name}.json", "w") as f:
        json.dump(rows, f, indent=1)


def report(out_dir, names):
    """Per estimator and group: mean error (cases worse than KMeans + 1),
    median fit time over KMeans's, and the cases moved by over a point."""
    print("| estimator | group | KMeans | auto | stable | time auto | time stable |")
    print("|---|---|---|---|---|---|---|")
    moved = []
    for name in names:
        with open(Path(out_dir) / f"{name}.json") as f:
            rows = json.load(f)
        for group in STUDY_GROUPS:
            part = [r for r in rows if r["group"] == group]
            if not part:
                continue
            cells = [f"{np.mean([r['kmeans'] for r in part]):.2f}"]
            for setting in ("auto", "stable"):
                errors = [r[setting]["error"] for r in part]
                worse = sum(r[setting]["error"] > r["kmeans"] + 1 for r in part)
                cells.append(f"{np.mean(errors):.2f} ({worse}/{len(part)})")
            for setting in ("auto", "stable"):
                ratio = np.median([r[setting]["time"] / r["kmeans_time"] for r in part])
                cells.append(f"{ratio:.1f}")
            print(f"| {name} | {group} | " + " | ".join(cells) + " |")
            for r in part:
                if abs(r["stable"]["error"] - r["auto"]["error"]) > 1:
                    moved.append(
                        f"* {name} {group} {r['case']}: {r['auto']['error']:.2f} -> "
                        f"{r['stable']['error']:.2f} at "
                        f"{r['stable']['class_balance_']:.2f} "
                        f"(KMeans {r['kmeans']:.2f})"
                    )
    print("\nCases moved by more than a point (auto -> stable, the bound used):\n")
    print("\n".join(moved))


if __name__ == "__main__":
    command = sys.argv[1]
    if command == "collect":
        groups = sys.argv[4].split(",") if len(sys.argv) > 4 else STUDY_GROUPS
        seed = int(sys.argv[5]) if len(sys.argv) > 5 else 0
        collect(sys.argv[2], sys.argv[3], groups, seed)
    elif command == "report":
        report(sys.argv[2], sys.argv[3:])
    else:
        raise SystemExit(__doc__)
