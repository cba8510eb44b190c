"""ODMC's offset (``intercept_scaling``) and class balance on the robustness suite.

Recorded in bench/studies/odmc_offset.md. For each setting of
``(intercept_scaling, class_balance)``: ODMC's error (%) on each of the 57
two-class cases of ``python -m mmc.bench robustness`` (``kernel="rbf"`` on
the non-linear cases, as the suite does), the mean, the number of cases
worse than ``KMeans(n_init=10)`` by more than 1 point, and the mean error over
the 45 digit pairs of ``load_digits / 16``. ``random_state=0`` everywhere.
Labels score the settings only; they never enter a fit.

    python -I bench/studies/odmc_offset.py [--quick] [--out DIR]

writes ``odmc_offset.json`` and the report ``odmc_offset.md`` in DIR;
``--from-json FILE`` writes the report of an earlier run again.
"""

import argparse
import json
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.cluster import KMeans

from mmc import ODMC
from mmc.bench._data import ALL_PAIRS, digits
from mmc.bench._robustness_data import QUICK_TWO_CLASS, two_class_cases
from mmc.metrics import clustering_error

# (intercept_scaling, class_balance); (0, 0.3) was the default before,
# ("auto", "auto") is the default now.
SETTINGS = [
    (0.0, 0.3),
    (0.0, "auto"),
    (1.0, 0.3),
    (0.5, "auto"),
    (1.0, "auto"),
    (2.0, "auto"),
    (4.0, "auto"),
    ("auto", "auto"),
]


def _fit_error(X, y, nonlinear, intercept_scaling, class_balance):
    est = ODMC(
        intercept_scaling=intercept_scaling,
        class_balance=class_balance,
        kernel="rbf" if nonlinear else "linear",
        random_state=0,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        labels = est.fit(X).labels_
    return 100.0 * clustering_error(y, labels)


def _label(setting):
    intercept_scaling, class_balance = setting
    return f"{intercept_scaling}, {class_balance}"


def report(results):
    """The markdown report of a run's ``results`` (the JSON's content)."""
    rows, summary = results["cases"], results["summary"]
    settings = [str(s) for s in SETTINGS]
    lines = [
        "| case | KMeans | " + " | ".join(_label(s) for s in SETTINGS) + " |",
        "|---|---|" + "---|" * len(SETTINGS),
    ]
    for name, row in rows.items():
        cells = [f"{row['KMeans']:.2f}"] + [f"{row[s]:.2f}" for s in settings]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "| intercept_scaling, class_balance | mean error (57 cases) "
        "| worse than KMeans + 1 | mean error, 45 digit pairs |",
        "|---|---|---|---|",
    ]
    for setting in SETTINGS:
        s = summary[str(setting)]
        lines.append(
            f"| {_label(setting)} | {s['mean']:.2f} | {s['worse']} | {s['pairs']:.2f} |"
        )
    lines.append(f"| KMeans | {summary['KMeans']['mean']:.2f} | | |")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out", default="odmc_offset")
    parser.add_argument("--from-json")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if args.from_json:
        results = json.loads(Path(args.from_json).read_text())
        (out / "odmc_offset.md").write_text(report(results))
        return
    cases = two_class_cases()
    if args.quick:
        cases = [c for c in cases if c.name in QUICK_TWO_CLASS]
    pairs = ALL_PAIRS[:5] if args.quick else ALL_PAIRS
    rows = {}
    for case in cases:
        X, y = case.load()
        kmeans = KMeans(2, n_init=10, random_state=0).fit(X).labels_
        row = {"KMeans": 100.0 * clustering_error(y, kmeans)}
        for setting in SETTINGS:
            row[str(setting)] = _fit_error(X, y, case.nonlinear, *setting)
        rows[case.name] = row
        print(case.name, " ".join(f"{v:6.2f}" for v in row.values()), flush=True)
    pair_means = {}
    for setting in SETTINGS:
        start = time.perf_counter()
        errors = [_fit_error(*digits(pair), False, *setting) for pair in pairs]
        pair_means[str(setting)] = float(np.mean(errors))
        print(setting, "pairs", pair_means[str(setting)], time.perf_counter() - start)
    summary = {}
    for setting in map(str, SETTINGS):
        errors = np.array([r[setting] for r in rows.values()])
        kmeans = np.array([r["KMeans"] for r in rows.values()])
        summary[setting] = {
            "mean": float(errors.mean()),
            "worse": int(np.sum(errors > kmeans + 1.0)),
            "pairs": pair_means[setting],
        }
    summary["KMeans"] = {"mean": float(np.mean([r["KMeans"] for r in rows.values()]))}
    results = {"cases": rows, "summary": summary}
    (out / "odmc_offset.json").write_text(json.dumps(results, indent=1))
    (out / "odmc_offset.md").write_text(report(results))
    for name, s in summary.items():
        print(name, s)


if __name__ == "__main__":
    main()
