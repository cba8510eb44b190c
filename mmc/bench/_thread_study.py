"""Timing a fit under variants of a threading rule, for the studies that
measure one (``bench/studies/fit_threads.py``, ``evo_run_threads.py``).

Each variant is applied by a context manager (it patches the rule where
the estimator reads it); the fits of the variants are interleaved with
``KMeans(n_clusters=k, n_init=10)`` over the rounds, so that a change of
the machine's load falls on all of them, and the variants must give the
same labels and objective: a threading rule may change the time only.
"""

import contextlib
import subprocess
import time

import numpy as np
from sklearn.cluster import KMeans


def short_commit():
    """The short hash of the current directory's checkout (the studies run
    from the repository root)."""
    return subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()


def timed(make, X):
    """Seconds of ``make().fit(X)``, and the fitted estimator."""
    start = time.perf_counter()
    fitted = make().fit(X)
    return time.perf_counter() - start, fitted


def measure_variants(make, X, k, variants, rounds):
    """Median fit times of KMeans and of ``make()`` under each variant.

    Parameters
    ----------
    make : callable
        ``make(variant)``: the unfitted estimator for a variant's name.

    variants : dict
        Variant name -> context manager factory (no arguments) in which the
        estimator is fitted; the first variant is the reference.

    rounds : int
        Fits of each, interleaved.

    Returns
    -------
    medians : dict
        ``"KMeans"`` and each variant -> median seconds.

    fitted : estimator
        The first variant's fit.
    """
    times = {name: [] for name in ("KMeans", *variants)}
    fits = {}
    for _ in range(rounds):
        seconds, _ = timed(lambda: KMeans(k, n_init=10, random_state=0), X)
        times["KMeans"].append(seconds)
        for name, applied in variants.items():
            with applied():
                seconds, fits[name] = timed(lambda: make(name), X)
            times[name].append(seconds)
    first = fits[next(iter(variants))]
    for fitted in fits.values():
        assert np.array_equal(fitted.labels_, first.labels_), "labels changed"
        assert fitted.objective_ == first.objective_, "objective changed"
    return {name: float(np.median(t)) for name, t in times.items()}, first


@contextlib.contextmanager
def patched(modules, attribute, value):
    """``attribute`` of every module set to ``value`` for the duration."""
    saved = [getattr(module, attribute) for module in modules]
    for module in modules:
        setattr(module, attribute, value)
    try:
        yield
    finally:
        for module, old in zip(modules, saved):
            setattr(module, attribute, old)


def table_row(case, products, medians, variants):
    """The markdown row of a case (the variants' times and their ratios to
    KMeans's) and the ratios, variant -> ratio."""
    base = medians["KMeans"]
    ratios = {variant: medians[variant] / base for variant in variants}
    cells = " | ".join(f"{medians[v]:.4f} ({ratios[v]:.2f})" for v in variants)
    return f"| {case} | {products:,} | {base:.4f} | {cells} |", ratios
