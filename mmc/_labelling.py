"""Rules on two-cluster labellings shared by every estimator.

A labelling is an int8 vector of +1 / -1. The rules here are the only
definitions of

* the class balance: the largest allowed ``|sum_i y_i|`` for a
  ``class_balance`` fraction (:func:`balance_bound`), and the labelling that
  maximises a score under it (:func:`balanced_signs`);
* the median split of a score (:func:`median_split`);
* the naming of the two clusters, so that the first sample is in cluster 0
  (:func:`orientation`), and the warning given when one cluster is empty
  (:func:`warn_if_one_cluster`).
"""

import math

import numpy as np

from mmc._core._common import balanced_signs as _balanced_signs_kernel
from mmc._rows import warn


def balance_bound(class_balance, n_samples):
    """Largest allowed ``|sum_i y_i|`` (the papers' ``l``) for ``class_balance``.

    ``floor(class_balance * n_samples)``, with a tolerance of 1e-9 against
    the rounding of the product (``0.29 * 100`` is ``28.999...``); at least
    ``n_samples % 2``, since ``sum_i y_i`` has the parity of n.
    """
    return max(int(math.floor(class_balance * n_samples + 1e-9)), n_samples % 2)


def median_split(values):
    """+1 for the larger half of ``values``, -1 for the rest (ties by index)."""
    n_samples = values.shape[0]
    signs = np.full(n_samples, -1, dtype=np.int8)
    signs[np.argsort(values, kind="stable")[n_samples // 2 :]] = 1
    return signs


def balanced_signs(scores, bound, ties=None, out=None):
    """The labelling that maximises ``y.scores`` under ``|sum_i y_i| <= bound``.

    ``sign(scores)`` if it is balanced enough; otherwise the threshold moves:
    the ``(n + bound) // 2`` samples with the largest scores get the majority
    label, which changes ``y.scores`` the least.

    Parameters
    ----------
    scores : ndarray of shape (n_samples,), dtype=float64
        Gain of labelling each sample +1 rather than -1.

    bound : int
        Largest allowed ``|sum_i y_i|``, at least ``n_samples % 2``.

    ties : ndarray of shape (n_samples,), dtype=float64, default=None
        Order among equal scores; samples with a zero score follow its sign.
        By default the earlier sample ranks higher and zero scores give -1.

    out : ndarray of shape (n_samples,), dtype=int8, default=None
        Receives the labelling.

    Returns
    -------
    signs : ndarray of shape (n_samples,), dtype=int8
    """
    n_samples = scores.shape[0]
    if ties is None:
        ties = -np.arange(n_samples, dtype=np.float64)
    if out is None:
        out = np.empty(n_samples, dtype=np.int8)
    _balanced_signs_kernel(scores, ties, bound, out)
    return out


def random_balanced_labels(n_samples, random_state):
    """A random labelling with ``|sum y| <= 1`` (int8, +1 / -1)."""
    y = np.full(n_samples, -1, dtype=np.int8)
    y[random_state.permutation(n_samples)[: (n_samples + 1) // 2]] = 1
    return y


def orientation(first_value):
    """-1 or +1: the sign that puts the first sample in cluster 0.

    Every two-cluster objective is symmetric in ``y -> -y`` (and ``(w, b) ->
    (-w, -b)``); naming the clusters by the first sample makes the labels
    the same whichever restart won. ``first_value`` is the first sample's
    decision value or label (cluster 1 where positive).
    """
    return -1 if first_value > 0 else 1


def warn_if_one_cluster(name, labels, class_balance=None):
    """Warn (ConvergenceWarning) when ``labels`` hold a single cluster;
    ``class_balance``, the bound of the fit, is named as a cause when it
    lets one cluster be more than three times the other (above 0.5)."""
    # Imported here, where it is used: the Dask workers import this module
    # and need not import scikit-learn (mmc/_rows.py).
    from sklearn.exceptions import ConvergenceWarning

    if np.unique(labels).size < 2:
        cause = ""
        if class_balance is not None and class_balance > 0.5:
            cause = (
                f", or class_balance_={class_balance:.3g} lets the clusters be so "
                "unequal that one holds them all (a smaller class_balance "
                "bounds the imbalance)"
            )
        warn(
            f"{name} put every sample in one cluster: the data has no direction "
            f"along which it splits (for example, all samples are identical){cause}.",
            ConvergenceWarning,
        )


def warn_if_clusters_lost(name, labels, n_clusters, detail=""):
    """Warn (ConvergenceWarning) when ``labels`` hold fewer than
    ``n_clusters`` clusters: as :func:`warn_if_one_cluster` for a single
    one, else naming how many were found (``detail`` goes after)."""
    from sklearn.exceptions import ConvergenceWarning  # see warn_if_one_cluster

    n_found = np.unique(labels).size
    if n_found == 1:
        warn_if_one_cluster(name, labels)
    elif n_found < n_clusters:
        warn(
            f"{name} found {n_found} non-empty clusters out of "
            f"n_clusters={n_clusters}{detail}.",
            ConvergenceWarning,
        )


def first_occurrence_order(labels, n_clusters):
    """Renaming of clusters in the order in which they first occur.

    Returns ``order``, the old cluster of each new one (clusters absent
    from ``labels`` last), and ``relabel``, its inverse: ``relabel[labels]``
    are the renamed labels.
    """
    _, first = np.unique(labels, return_index=True)
    order = labels[np.sort(first)]
    order = np.concatenate([order, np.setdiff1d(np.arange(n_clusters), order)])
    order = order.astype(np.intp)
    relabel = np.empty(n_clusters, dtype=np.intp)
    relabel[order] = np.arange(n_clusters)
    return order, relabel
