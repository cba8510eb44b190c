"""Tuning with the true labels, as the papers did: outside every estimator.

The papers of the mmc estimators chose their parameters by a grid search
scored with the true labels and reported the best point. That number is not
what a user of the method gets, but it is the only one comparable with the
papers. :func:`tune_by_labels` runs that protocol on any labelled data: it
fits the estimator at every point of a grid, scores each clustering against
the labels and keeps the best. The estimators never see the labels; only
this function, which is a benchmark tool and not a way to choose parameters
for unlabelled data, does.
"""

import time
import warnings

import numpy as np
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import ParameterGrid
from sklearn.utils import Bunch

from mmc.metrics import (
    clustering_accuracy,
    normalized_mutual_info,
    pairwise_fbeta,
    rand_index,
)

SCORES = {
    "accuracy": clustering_accuracy,
    "nmi": normalized_mutual_info,
    "rand": rand_index,
    "fbeta": pairwise_fbeta,
}


def _resolve_score(score):
    if callable(score):
        return score
    if isinstance(score, str) and score in SCORES:
        return SCORES[score]
    raise ValueError(
        f"score must be a callable or one of {sorted(SCORES)}, got {score!r}"
    )


def _make(estimator, params):
    if isinstance(estimator, type):
        return estimator(**params)
    if not hasattr(estimator, "get_params"):
        raise TypeError(
            "estimator must be an estimator class or an unfitted estimator, "
            f"got {type(estimator).__name__}"
        )
    return clone(estimator).set_params(**params)


def fit_grid(estimator, grid, X):
    """Fit ``estimator`` at every point of ``grid``; the labels play no part.

    Parameters
    ----------
    estimator : estimator class or estimator
        A class is called with each point's parameters; an instance is
        cloned and given them with ``set_params``.

    grid : dict or list of dict
        Parameter name -> list of values, as for
        :class:`sklearn.model_selection.ParameterGrid`.

    X : array-like or sparse matrix of shape (n_samples, n_features)
        The data.

    Returns
    -------
    fits : list of Bunch
        One per grid point, in grid order: ``params``, ``labels``,
        ``seconds`` (fit time) and ``convergence_warnings`` (the number of
        ConvergenceWarning the fit raised; they are counted, not shown).
    """
    points = list(ParameterGrid(grid))
    if not points:
        raise ValueError("grid has no point")
    fits = []
    for params in points:
        model = _make(estimator, params)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ConvergenceWarning)
            start = time.perf_counter()
            model.fit(X)
            seconds = time.perf_counter() - start
        n_convergence = 0
        for w in caught:
            if issubclass(w.category, ConvergenceWarning):
                n_convergence += 1
            else:  # anything else is not ours to hide
                warnings.warn_explicit(
                    w.message, w.category, w.filename, w.lineno, source=w.source
                )
        fits.append(
            Bunch(
                params=params,
                labels=np.asarray(model.labels_),
                seconds=seconds,
                convergence_warnings=n_convergence,
            )
        )
    return fits


def best_fit(fits, y, score="accuracy"):
    """The fit of ``fits`` whose labels score highest against ``y``.

    Ties go to the first point in grid order. Returns ``(index, scores)``:
    the position of the best fit and the score of every fit.
    """
    score = _resolve_score(score)
    scores = [float(score(y, fit.labels)) for fit in fits]
    return int(np.argmax(scores)), scores


def tune_by_labels(estimator, grid, X, y, score="accuracy"):
    """Grid search scored with the true labels: the papers' protocol.

    The papers of maximum margin clustering report, for each data set, the
    best result over a grid of parameters, chosen with the true labels.
    This function does the same on any labelled data, so that an estimator
    of mmc can be compared like with like with a published number. It uses
    the labels; a clustering of unlabelled data cannot, so the score it
    returns is an optimistic bound, never an estimate of what the defaults
    (or any parameter chosen without labels) give.

    Parameters
    ----------
    estimator : estimator class or estimator
        What to tune, for example :class:`mmc.CPMMC`. A class is called
        with each grid point's parameters; an unfitted instance is cloned
        and given them with ``set_params``, its other parameters kept.

    grid : dict or list of dict
        Parameter name -> list of values, as for
        :class:`sklearn.model_selection.ParameterGrid`. Put
        ``random_state`` in the grid to take the best of several runs by
        the labels (the EvoMMC paper's best of 10), or fix it in the
        instance for one run per point.

    X : array-like or sparse matrix of shape (n_samples, n_features)
        The data; the estimator is fitted on it at every grid point.

    y : array-like of shape (n_samples,)
        The true classes, used for scoring only.

    score : {"accuracy", "nmi", "rand", "fbeta"} or callable, default="accuracy"
        Higher is better: clustering accuracy after the best matching of
        clusters to classes, normalized mutual information, Rand index or
        pairwise F-beta (beta = 1) of :mod:`mmc.metrics`, or a callable
        ``score(y_true, labels_pred) -> float``.

    Returns
    -------
    result : Bunch
        ``best_params`` (dict), ``best_score`` (float), ``best_labels``
        (ndarray), and ``grid``: a list with, for every grid point in grid
        order, ``params``, ``score``, ``seconds`` (fit time) and
        ``convergence_warnings`` (ConvergenceWarning raised by the fit:
        counted and not shown). Ties go to the first point in grid order.

    Examples
    --------
    >>> from sklearn.datasets import make_blobs
    >>> from mmc import CPMMC
    >>> from mmc.bench import tune_by_labels
    >>> X, y = make_blobs(200, centers=2, random_state=0)
    >>> result = tune_by_labels(
    ...     CPMMC(random_state=0), {"C": [1, 10, 100]}, X, y, score="accuracy"
    ... )
    >>> sorted(result.best_params)
    ['C']
    """
    y = np.asarray(y)
    n_samples = X.shape[0] if hasattr(X, "shape") else len(X)
    if y.ndim != 1 or y.shape[0] != n_samples:
        raise ValueError(
            f"y has {y.shape[0] if y.ndim else 0} labels but X has {n_samples} "
            "samples; y must be one label per sample"
        )
    score = _resolve_score(score)  # before the fits, not after
    fits = fit_grid(estimator, grid, X)
    best, scores = best_fit(fits, y, score)
    return Bunch(
        best_params=fits[best].params,
        best_score=scores[best],
        best_labels=fits[best].labels,
        grid=[
            {
                "params": fit.params,
                "score": s,
                "seconds": fit.seconds,
                "convergence_warnings": fit.convergence_warnings,
            }
            for fit, s in zip(fits, scores)
        ],
    )
