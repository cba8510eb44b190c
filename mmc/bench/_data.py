"""Data shared by the benchmarks."""

import itertools
import warnings
from functools import lru_cache

import numpy as np
from sklearn.datasets import load_digits

import mmc
from mmc.bench._timing import time_fit
from mmc.metrics import clustering_error

# Every pair of digits, as (a, b) with a < b.
ALL_PAIRS = tuple(itertools.combinations(range(10), 2))


@lru_cache(maxsize=1)
def _all_digits():
    X, y = load_digits(return_X_y=True)
    X = X / 16.0
    # Shared between calls: read-only, so that no caller can change it.
    X.flags.writeable = False
    y.flags.writeable = False
    return X, y


def digits(classes):
    """``load_digits`` scaled to [0, 1] (features / 16), restricted to ``classes``.

    The file is read once per process; each call returns fresh arrays of the
    samples whose digit is in ``classes``, in their original order.
    """
    X, y = _all_digits()
    mask = np.isin(y, classes)
    return X[mask], y[mask]


def fits_on_digit_pairs(makers, pairs=ALL_PAIRS, repeat=1, progress=None):
    """Fit every estimator of ``makers`` on every pair of digits, timed.

    Parameters
    ----------
    makers : dict
        Name -> function of no argument that makes an estimator.

    pairs : sequence of (int, int), default=ALL_PAIRS
        The pairs of digits.

    repeat : int, default=1
        Fits per estimator and pair; the median time is kept.

    progress : callable, default=None
        Wraps the iterable of the pairs (a progress bar).

    Yields
    ------
    pair : str
        ``"avb"``.

    y : ndarray
        The digits of the pair's samples.

    fits : dict
        Name -> ``(seconds, fitted estimator)``.
    """
    for a, b in progress(pairs) if progress is not None else pairs:
        X, y = digits((a, b))
        fits = {name: time_fit(make, X, repeat) for name, make in makers.items()}
        yield f"{a}v{b}", y, fits


def digit_pair_errors(name, pairs=ALL_PAIRS):
    """Clustering error (%) of the mmc estimator ``name`` with its defaults
    (two clusters, ``random_state=0``) on each pair of digits, ``{"avb":
    error}``; warnings are not shown (the studies that vary a rule over the
    pairs count errors, not warnings)."""
    estimator = getattr(mmc, name)
    params = {"n_clusters": 2} if "n_clusters" in estimator().get_params() else {}
    errors = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for pair, y, fits in fits_on_digit_pairs(
            {name: lambda: estimator(random_state=0, **params)}, pairs
        ):
            errors[pair] = 100.0 * clustering_error(y, fits[name][1].labels_)
    return errors
