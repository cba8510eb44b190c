"""CPMMC and MultivariateMMC with and without the continuation in C
(``continuation=True`` / ``False``), through the public API, recorded in
bench/studies/cpmmc_continuation.md.

``cases``: the robustness suite's two-class cases (the rbf kernel where the
suite uses it; MultivariateMMC on the linear ones), the 45 digit pairs
(/16) and the four one-hot categorical cases of categorical.py, each with
KMeans(n_init=10) at the same seed: the cases that move by more than a
point, then per group the mean error, the cases worse than KMeans + 1 and
the fit time with over without. ``scaling``: the fit time with over
without on the scaling benchmark's data (``mmc.bench._scaling``), dense and
sparse, 10^4 to 10^6 rows. ``onehot``: the error without and with on
one-hot clusters of 150 and 150 samples from the generators of
categorical.py and of the robustness suite
(``mmc.bench._robustness_data.one_hot_clusters``), seeds 0-5. Labels only
score.

    python -I bench/studies/cpmmc_levels.py cases CPMMC 0
    python -I bench/studies/cpmmc_levels.py scaling MultivariateMMC
    python -I bench/studies/cpmmc_levels.py onehot MultivariateMMC
"""

import itertools
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import numpy as np
from categorical import one_hot_clusters
from sklearn.cluster import KMeans
from sklearn.datasets import load_digits

from mmc import CPMMC, MultivariateMMC
from mmc.bench._robustness_data import one_hot_clusters as suite_one_hot
from mmc.bench._robustness_data import two_class_cases
from mmc.bench._scaling import scaling_data
from mmc.metrics import clustering_error

ESTIMATORS = {"CPMMC": CPMMC, "MultivariateMMC": MultivariateMMC}


def cases(estimator):
    for case in two_class_cases():
        kw = {"kernel": "rbf"} if case.nonlinear else {}
        if kw and estimator is MultivariateMMC:
            continue
        X, y = case.load()
        yield "suite", case.name, X, y, kw
    Xd, yd = load_digits(return_X_y=True)
    for a, b in itertools.combinations(range(10), 2):
        mask = (yd == a) | (yd == b)
        yield "pairs", f"{a}v{b}", Xd[mask] / 16, yd[mask], {}
    for seed in range(4):
        X, y = one_hot_clusters(seed)
        yield "categorical", f"onehot {seed}", X, y, {}


def fit(estimator, X, seed, continuation, kw):
    model = estimator(random_state=seed, continuation=continuation, **kw)
    start = time.perf_counter()
    labels = model.fit(X).labels_
    return labels, time.perf_counter() - start


def run_cases(estimator, seed):
    rows = {}
    for group, name, X, y, kw in cases(estimator):
        kmeans = KMeans(2, n_init=10, random_state=seed).fit(X).labels_
        without, t_without = fit(estimator, X, seed, False, kw)
        with_, t_with = fit(estimator, X, seed, True, kw)
        errors = [
            100 * clustering_error(y, labels) for labels in (kmeans, without, with_)
        ]
        rows.setdefault(group, []).append((name, *errors, t_without, t_with))
        if abs(errors[1] - errors[2]) > 1:
            print(
                f"  {group} {name}: {errors[1]:.2f} -> {errors[2]:.2f} "
                f"(KMeans {errors[0]:.2f})",
                flush=True,
            )
    print(
        "\n| group (cases) | KMeans | without: mean (worse than KMeans + 1) "
        "| with | time with / without: median, total |"
    )
    print("|---|---:|---|---|---|")
    for group, group_rows in rows.items():
        errors = np.array([row[1:4] for row in group_rows])
        times = np.array([row[4:6] for row in group_rows])
        worse = [int((errors[:, j] > errors[:, 0] + 1).sum()) for j in (1, 2)]
        print(
            f"| {group} ({len(errors)}) | {errors[:, 0].mean():.2f} | "
            f"{errors[:, 1].mean():.2f} ({worse[0]}) | "
            f"{errors[:, 2].mean():.2f} ({worse[1]}) | "
            f"{np.median(times[:, 1] / times[:, 0]):.2f}, "
            f"{times[:, 1].sum() / times[:, 0].sum():.2f} |"
        )
    for group, group_rows in rows.items():
        for j, label in ((2, "without"), (3, "with")):
            names = [row[0] for row in group_rows if row[j] > row[1] + 1]
            print(f"{group}, worse than KMeans + 1 {label}: {', '.join(names)}")


def run_scaling(estimator):
    print("| data | n | without (s) | with (s) | with / without | errors (%) |")
    print("|---|---:|---:|---:|---:|---|")
    for kind in ("dense", "sparse"):
        for n_samples in (10_000, 100_000, 1_000_000):
            X, y = scaling_data(kind, n_samples, False, 0)
            without, t_without = fit(estimator, X, 0, False, {})
            with_, t_with = fit(estimator, X, 0, True, {})
            errors = [100 * clustering_error(y, labels) for labels in (without, with_)]
            print(
                f"| {kind} | {n_samples:,} | {t_without:.3f} | {t_with:.3f} | "
                f"{t_with / t_without:.2f} | {errors[0]:.2f} / {errors[1]:.2f} |",
                flush=True,
            )


def run_one_hot(estimator):
    print("| generator | seed | KMeans | without | with |")
    print("|---|---:|---:|---:|---:|")
    generators = {
        "categorical.py": one_hot_clusters,
        "robustness suite": lambda seed: suite_one_hot((150, 150), random_state=seed),
    }
    for label, generate in generators.items():
        for seed in range(6):
            X, y = generate(seed)
            kmeans = KMeans(2, n_init=10, random_state=0).fit(X).labels_
            labels = [fit(estimator, X, 0, c, {})[0] for c in (False, True)]
            errors = [100 * clustering_error(y, lab) for lab in (kmeans, *labels)]
            print(
                f"| {label} | {seed} | "
                + " | ".join(f"{e:.2f}" for e in errors)
                + " |",
                flush=True,
            )


def main():
    warnings.simplefilter("ignore")
    what, name = sys.argv[1], sys.argv[2]
    if what == "cases":
        run_cases(ESTIMATORS[name], int(sys.argv[3]))
    elif what == "onehot":
        run_one_hot(ESTIMATORS[name])
    else:
        run_scaling(ESTIMATORS[name])


if __name__ == "__main__":
    main()
