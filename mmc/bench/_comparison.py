"""Every estimator against the baselines on real and toy data sets.

Each task is a data set with its classes and a number of clusters; each
estimator runs with its default parameters on every task it can do
(two-cluster estimators on two-class tasks only). On the non-linear toy
data (two moons, circles) the estimators that take ``kernel=`` use
``kernel="rbf"``, the one parameter changed. Scores are measured against
the classes: clustering error after the best matching, NMI and Rand index;
fit times are medians, with their ratio to KMeans on the same data in the
same run.
"""

import warnings
from collections import namedtuple

import numpy as np
from sklearn.datasets import (
    load_breast_cancer,
    load_iris,
    load_wine,
    make_circles,
    make_moons,
)
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import StandardScaler

from mmc.bench._data import ALL_PAIRS, digits
from mmc.bench._timing import time_fit
from mmc.metrics import clustering_error, normalized_mutual_info, rand_index

Task = namedtuple("Task", ["name", "load", "nonlinear"])


def _digits(classes):
    return lambda: digits(classes)


def _standardised(loader):
    def load():
        X, y = loader(return_X_y=True)
        return StandardScaler().fit_transform(X), y

    return load


HARD_PAIRS = ((3, 8), (1, 7), (2, 7), (8, 9))
TASKS = [
    *(Task(f"digits {a}v{b}", _digits((a, b)), False) for a, b in HARD_PAIRS),
    Task("digits {0,6,8,9}", _digits((0, 6, 8, 9)), False),
    Task("digits {1,2,7,9}", _digits((1, 2, 7, 9)), False),
    Task("digits (10 classes)", _digits(tuple(range(10))), False),
    Task("breast_cancer", _standardised(load_breast_cancer), False),
    Task("wine", _standardised(load_wine), False),
    Task("iris", _standardised(load_iris), False),
    Task("two moons", lambda: make_moons(1000, noise=0.05, random_state=0), True),
    Task(
        "circles",
        lambda: make_circles(1000, factor=0.4, noise=0.05, random_state=0),
        True,
    ),
]
QUICK_TASKS = ("digits 3v8", "digits {0,6,8,9}", "two moons")

QUICK_PAIRS = ((1, 7), (4, 9))


def fit_and_score(entry, X, y, n_clusters, nonlinear, repeat, random_state):
    """Fit an estimator of the registry with its defaults and score it.

    On ``nonlinear`` data the estimators that take ``kernel=`` get
    ``kernel="rbf"``. Warnings are part of what is measured: they are
    recorded (and kept off the terminal), by category.
    """
    overrides = {"kernel": "rbf"} if nonlinear and entry.kernel else {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        seconds, fitted = time_fit(
            lambda: entry.make(n_clusters, random_state, **overrides), X, repeat
        )
    labels = fitted.labels_
    return {
        "error": 100 * clustering_error(y, labels),
        "nmi": float(normalized_mutual_info(y, labels)),
        "rand": float(rand_index(y, labels)),
        "time": seconds,
        "n_clusters_found": int(np.unique(labels).size),
        "kernel": overrides.get("kernel", getattr(fitted, "kernel", None)),
        "convergence_warning": any(
            issubclass(w.category, ConvergenceWarning) for w in caught
        ),
        "warnings": sorted({w.category.__name__ for w in caught}),
    }


def applies(entry, n_clusters):
    """Whether the estimator of ``entry`` can find ``n_clusters`` clusters."""
    return n_clusters == 2 or not entry.two_clusters_only


def compare(entries, quick=False, repeat=3, random_state=0, progress=None):
    """Run every estimator on every task it can do.

    Parameters
    ----------
    entries : dict
        Name -> entry of :mod:`mmc.bench._registry`; must include KMeans,
        the reference of the time ratios, which is added if missing.

    quick : bool, default=False
        Three tasks and two digit pairs instead of all.

    repeat : int, default=3
        Fits per timing; the median is kept.

    random_state : int, default=0
        Seed of every estimator.

    progress : callable, default=None
        Wraps the iterable of (task, estimator) runs (a progress bar).

    Returns
    -------
    result : dict
        ``"tasks"``: task -> estimator -> scores, fit time and time ratio to
        KMeans; ``"digit_pairs"``: estimator -> mean and worst error over the
        digit pairs (the 45 pairs, or two with ``quick``), with the median
        time ratio to KMeans.
    """
    from mmc.bench._registry import BASELINES

    entries = {**entries, "KMeans": BASELINES["KMeans"]}
    tasks = [t for t in TASKS if not quick or t.name in QUICK_TASKS]
    pair_tasks = [
        Task(f"{a}v{b}", _digits((a, b)), False)
        for a, b in (QUICK_PAIRS if quick else ALL_PAIRS)
    ]
    runs = [(task, name) for task in tasks + pair_tasks for name in entries]
    if progress is not None:
        runs = progress(runs)
    data, scores = {}, {}
    for task, name in runs:
        if task.name not in data:
            X, y = task.load()
            data[task.name] = (X, y, np.unique(y).size)
        X, y, n_clusters = data[task.name]
        if not applies(entries[name], n_clusters):
            continue
        scores.setdefault(task.name, {})[name] = fit_and_score(
            entries[name], X, y, n_clusters, task.nonlinear, repeat, random_state
        )
    for row in scores.values():
        for score in row.values():
            score["time_over_kmeans"] = score["time"] / row["KMeans"]["time"]

    pairs = {}
    for name in entries:
        rows = [scores[t.name][name] for t in pair_tasks]
        errors = np.array([r["error"] for r in rows])
        worst = int(errors.argmax())
        pairs[name] = {
            "mean_error": float(errors.mean()),
            "worst_error": float(errors[worst]),
            "worst_pair": pair_tasks[worst].name,
            "mean_nmi": float(np.mean([r["nmi"] for r in rows])),
            "median_time_over_kmeans": float(
                np.median([r["time_over_kmeans"] for r in rows])
            ),
        }
    return {
        "tasks": {t.name: scores.get(t.name, {}) for t in tasks},
        "digit_pairs": pairs,
        "n_digit_pairs": len(pair_tasks),
        "repeat": repeat,
    }
