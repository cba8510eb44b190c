"""Every default on a broad suite: ``python -m mmc.bench robustness``.

The defaults of mmc were chosen on digit pairs; this suite measures them
where they may fail: unbalanced and uncentred clusters, unequal spreads,
three scalings of the tabular data, sparse text-like data with unbalanced
topics, and data that no hyperplane separates (the cases are listed in
:mod:`mmc.bench._robustness_data`). It is the record on which later
defaults are chosen, so nothing in it is tuned: every estimator runs with
its default parameters and ``random_state`` (the ``--seed``), except that
on the cases marked non-linear (two moons, circles) the estimators that
take ``kernel=`` get ``kernel="rbf"``, as in the accuracy suite.
KMeans(n_init=10) and SpectralClustering are the baselines.

Three groups are reported apart: the two-class cases, on which every
estimator runs, the multiclass cases, on which only the estimators that
take ``n_clusters`` and the baselines run, and the tf-idf documents of a
topic model (two topics and more: each estimator on the cases whose
number of classes it takes), text unlike the planted topics of the
two-class and multiclass text cases. Per case and estimator: the
clustering error (%) after the best matching of clusters to classes, the
NMI, the fit time (median of ``repeat`` fits) and its ratio to KMeans's
in the same run, and the warnings raised (they are silenced, not lost: a
ConvergenceWarning is counted per estimator). The labels are used for
scoring only.
"""

import os
import time
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.datasets import make_blobs

from mmc.bench._comparison import applies, fit_and_score
from mmc.bench._robustness_data import (
    QUICK_MULTICLASS,
    QUICK_TOPICS,
    QUICK_TWO_CLASS,
    multiclass_cases,
    topic_cases,
    two_class_cases,
)

GROUPS = ("two_class", "multiclass", "topics")
GROUP_TITLES = {
    "two_class": "Two-class cases",
    "multiclass": "Multiclass cases",
    "topics": "Tf-idf text of a topic model",
}
# Errors within this many points of KMeans's count as neither worse nor better.
MARGIN = 1.0


def _warm_up(entries, random_state):
    """One untimed fit of each estimator, so first-call costs are not timed."""
    X, _ = make_blobs(200, centers=2, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for entry in entries.values():
            entry.make(2, random_state).fit(X)


def _describe(case, X, y):
    return {
        "kind": case.kind,
        "scaling": case.scaling,
        "nonlinear": case.nonlinear,
        "n_samples": int(X.shape[0]),
        "n_features": int(X.shape[1]),
        "sparse": bool(sp.issparse(X)),
        "n_classes": int(np.unique(y).size),
        "class_sizes": np.bincount(y).tolist(),
        "scores": {},
    }


def summarise(cases, names):
    """Per estimator, its errors over ``cases`` against KMeans's.

    Parameters
    ----------
    cases : dict
        Case name -> record with ``"scores"`` (estimator -> scores), as
        :func:`run` returns it; KMeans must have run on every case.

    names : iterable of str
        The estimators to summarise; one that ran on no case is left out.

    Returns
    -------
    summary : dict
        Estimator -> number of cases, mean and median error (%), mean NMI,
        the number of cases more than ``MARGIN`` points worse and better
        than KMeans, the worst case and its error, the median ratio of the
        fit time to KMeans's and the number of cases with a
        ConvergenceWarning.
    """
    summary = {}
    for name in names:
        rows = [
            (case, record["scores"][name], record["scores"]["KMeans"]["error"])
            for case, record in cases.items()
            if name in record["scores"]
        ]
        if not rows:
            continue
        errors = np.array([s["error"] for _, s, _ in rows])
        kmeans = np.array([k for _, _, k in rows])
        worst = int(errors.argmax())
        summary[name] = {
            "n_cases": len(rows),
            "mean_error": float(errors.mean()),
            "median_error": float(np.median(errors)),
            "mean_nmi": float(np.mean([s["nmi"] for _, s, _ in rows])),
            "n_worse_than_kmeans": int((errors > kmeans + MARGIN).sum()),
            "n_better_than_kmeans": int((errors < kmeans - MARGIN).sum()),
            "worst_case": rows[worst][0],
            "worst_error": float(errors[worst]),
            "median_time_over_kmeans": float(
                np.median([s["time_over_kmeans"] for _, s, _ in rows])
            ),
            "n_convergence_warnings": sum(s["convergence_warning"] for _, s, _ in rows),
        }
    return summary


def run(entries, quick=False, repeat=1, random_state=0, progress=None, groups=GROUPS):
    """Run every estimator on every case it can do.

    Parameters
    ----------
    entries : dict
        Name -> entry of :mod:`mmc.bench._registry`. KMeans, the reference
        of the comparisons and time ratios, is added if missing.

    quick : bool, default=False
        A handful of small cases of each group instead of all.

    repeat : int, default=1
        Fits per timing; the median is kept.

    random_state : int, default=0
        Seed of every estimator (the data have fixed seeds of their own).

    progress : callable, default=None
        Wraps the iterable of cases (a progress bar).

    groups : tuple of str, default=("two_class", "multiclass", "topics")
        The groups of cases to run.

    Returns
    -------
    result : dict
        ``"two_class"``, ``"multiclass"`` and ``"topics"`` (those run),
        each with ``"cases"`` (case name -> kind, scaling, non-linearity,
        size, class sizes and ``"scores"``: estimator -> error, NMI, fit
        time, time over KMeans, warnings) and ``"summary"`` (see
        :func:`summarise`); the estimators in order, ``"repeat"``,
        ``"quick"``, ``"margin"``, the ``"seconds"`` the suite took and the
        1-minute ``"load_average"`` of the machine before and after.
    """
    from mmc.bench._registry import BASELINES

    start = time.perf_counter()
    load_at_start = os.getloadavg()
    entries = {**entries, "KMeans": BASELINES["KMeans"]}
    cases_of = {
        "two_class": two_class_cases,
        "multiclass": multiclass_cases,
        "topics": topic_cases,
    }
    groups = {group: cases_of[group]() for group in groups}
    if quick:
        keep = set(QUICK_TWO_CLASS + QUICK_MULTICLASS + QUICK_TOPICS)
        groups = {
            g: [c for c in cases if c.name in keep] for g, cases in groups.items()
        }
    _warm_up(entries, random_state)
    runs = [(group, case) for group, cases in groups.items() for case in cases]
    result = {group: {"cases": {}} for group in groups}
    for group, case in progress(runs) if progress is not None else runs:
        X, y = case.load()
        record = _describe(case, X, y)
        n_clusters = record["n_classes"]
        if group != "topics" and (n_clusters == 2) != (group == "two_class"):
            raise ValueError(f"case {case.name!r} has {n_clusters} classes")
        for name, entry in entries.items():
            if applies(entry, n_clusters):
                record["scores"][name] = fit_and_score(
                    entry, X, y, n_clusters, case.nonlinear, repeat, random_state
                )
        reference = record["scores"]["KMeans"]["time"]
        for score in record["scores"].values():
            score["time_over_kmeans"] = score["time"] / reference
        result[group]["cases"][case.name] = record
    for group in groups:
        result[group]["summary"] = summarise(result[group]["cases"], entries)
    result.update(
        estimators=list(entries),
        repeat=repeat,
        quick=quick,
        margin=MARGIN,
        seconds=time.perf_counter() - start,
        # Other processes slow the timings down (KMeans's threads most):
        # the 1-minute load average before and after the run tells.
        load_average=[load_at_start[0], os.getloadavg()[0]],
    )
    return result


def moved_lines(name, before, after, pairs_before, pairs_after, threshold=0.05):
    """What moved between two runs of ``name``: a line for each case of
    :func:`run`'s results ``before`` and ``after`` whose error (%) moved by
    more than ``threshold`` points (``case: before -> after (KMeans)``),
    then for each digit pair of ``pairs_before`` and ``pairs_after``
    (pair -> error) that did (``digits pair: before -> after``). The
    studies that vary a rule print them."""
    lines = []
    for group in (g for g in GROUPS if g in before and g in after):
        for case, record in after[group]["cases"].items():
            if name not in record["scores"]:
                continue
            old = before[group]["cases"][case]["scores"][name]["error"]
            new = record["scores"][name]["error"]
            if abs(new - old) > threshold:
                kmeans = record["scores"]["KMeans"]["error"]
                lines.append(f"{case}: {old:.2f} -> {new:.2f} ({kmeans:.2f})")
    for pair, new in pairs_after.items():
        if abs(new - pairs_before[pair]) > threshold:
            lines.append(f"digits {pair}: {pairs_before[pair]:.2f} -> {new:.2f}")
    return lines


def summary_cells(name, suite):
    """The cells of ``name``'s row in a study's table of :func:`run`'s
    results ``suite``: the two-class mean error and count of cases worse
    than KMeans + ``MARGIN``, then the same for the multiclass cases
    (``-`` for an estimator of two clusters), each cell followed by
    ``" | "``."""
    two = suite["two_class"]["summary"][name]
    multi = suite["multiclass"]["summary"].get(name)
    cells = [f"{two['mean_error']:.2f}", str(two["n_worse_than_kmeans"])]
    if multi:
        cells += [f"{multi['mean_error']:.2f}", str(multi["n_worse_than_kmeans"])]
    else:
        cells += ["-", "-"]
    return "".join(f"{cell} | " for cell in cells)


def study_row(name, label, suite, pairs):
    """A row of a study's table: the estimator ``name``, the ``label`` of
    the variant, :func:`summary_cells` of ``suite`` and the mean error over
    the digit ``pairs`` (pair -> error)."""
    mean = np.mean(list(pairs.values()))
    return f"| {name} | {label} | {summary_cells(name, suite)}{mean:.2f} |"


def summary_lines(result):
    """The two summary tables for the terminal."""
    lines = []
    for group in (g for g in GROUPS if g in result):
        summary = result[group]["summary"]
        n_cases = len(result[group]["cases"])
        lines += [
            f"Robustness, {GROUP_TITLES[group].lower()} ({n_cases}), default "
            "parameters: error (%), cases worse / better than KMeans by more "
            f"than {result['margin']:g} point, median fit time / KMeans",
            f"  {'':18s}{'cases':>6s}{'mean':>7s}{'median':>7s}{'worse':>6s}"
            f"{'better':>7s}{'time':>7s}{'conv':>5s}  worst case",
        ]
        for name, s in summary.items():
            lines.append(
                f"  {name[:18]:18s}{s['n_cases']:6d}{s['mean_error']:7.2f}"
                f"{s['median_error']:7.2f}{s['n_worse_than_kmeans']:6d}"
                f"{s['n_better_than_kmeans']:7d}"
                f"{s['median_time_over_kmeans']:7.2f}"
                f"{s['n_convergence_warnings']:5d}  "
                f"{s['worst_case']} ({s['worst_error']:.1f})"
            )
    return lines


def _case_table(cases, names):
    lines = [
        "| case | kind | scaling | n | class sizes | " + " | ".join(names) + " |",
        "|---" * (5 + len(names)) + "|",
    ]
    for case, r in cases.items():
        label = f"{case} (rbf)" if r["nonlinear"] else case
        sizes = ":".join(str(s) for s in r["class_sizes"])
        cells = " | ".join(
            f"{r['scores'][n]['error']:.2f}" if n in r["scores"] else "-" for n in names
        )
        lines.append(
            f"| {label} | {r['kind']} | {r['scaling']} | {r['n_samples']} "
            f"| {sizes} | {cells} |"
        )
    return lines


def _summary_table(summary, margin):
    lines = [
        "| estimator | cases | mean error | median error | mean NMI "
        f"| worse than KMeans + {margin:g} | better than KMeans - {margin:g} "
        "| worst case | median time / KMeans | ConvergenceWarning |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, s in summary.items():
        lines.append(
            f"| {name} | {s['n_cases']} | {s['mean_error']:.2f} "
            f"| {s['median_error']:.2f} | {s['mean_nmi']:.3f} "
            f"| {s['n_worse_than_kmeans']} | {s['n_better_than_kmeans']} "
            f"| {s['worst_case']} ({s['worst_error']:.1f}) "
            f"| {s['median_time_over_kmeans']:.2f} "
            f"| {s['n_convergence_warnings']} |"
        )
    return lines


def markdown(result):
    """The result as a markdown section: every error, then the summaries."""
    lines = [
        "## Robustness: every default on a broad suite",
        "",
        "Clustering error (%) after the best matching of clusters to classes,",
        "default parameters, `random_state` as given; on the cases marked (rbf)",
        'the estimators that take `kernel=` use `kernel="rbf"`. KMeans is',
        "`KMeans(n_init=10)`, SpectralClustering uses",
        '`affinity="nearest_neighbors"`. Fit times are medians of '
        f"{result['repeat']} fit(s).",
        "Two-cluster estimators run on the cases of two classes only. A case is",
        f"worse (better) than KMeans when its error is more than {result['margin']:g}",
        "point above (below) KMeans's on the same case; the ConvergenceWarning",
        "column counts the cases where a fit raised one.",
    ]
    for group in (g for g in GROUPS if g in result):
        cases = result[group]["cases"]
        summary = result[group]["summary"]
        names = list(summary)
        lines += ["", f"### {GROUP_TITLES[group]} ({len(cases)})", ""]
        lines += _case_table(cases, names)
        lines += ["", f"#### Summary, {GROUP_TITLES[group].lower()}", ""]
        lines += _summary_table(summary, result["margin"])
    load = result["load_average"]
    lines += [
        "",
        f"The suite took {result['seconds']:.0f} s; 1-minute load average "
        f"{load[0]:.2f} before, {load[1]:.2f} after.",
        "",
    ]
    return "\n".join(lines)
