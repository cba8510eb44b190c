"""Scores that compare a clustering with reference classes.

Every score is a function of the contingency table of the two labelings
(classes x clusters). The public functions validate their input, build the
table with :func:`contingency_table` and hand it to a private
``_<score>_from_table`` function; those private functions are the single
definition of each score, to be shared with the kernels that scan many small
tables (the most violated labelling search of ``MultivariateMMC``).

All scores are invariant to renaming classes or clusters. Accuracy, NMI and
the Rand index are also symmetric in their two arguments; the pair-counting
F_beta is symmetric only for ``beta = 1`` (swapping the arguments swaps
precision and recall, i.e. ``beta`` and ``1 / beta``).
"""

from numbers import Real

import numpy as np
from scipy.optimize import linear_sum_assignment
from sklearn.utils import check_consistent_length, column_or_1d

__all__ = [
    "clustering_accuracy",
    "clustering_error",
    "contingency_table",
    "normalized_mutual_info",
    "pairwise_fbeta",
    "rand_index",
]


def _check_labelings(labels_true, labels_pred):
    """Validate two labelings of the same samples.

    Parameters
    ----------
    labels_true : array-like of shape (n_samples,)
        Reference classes.

    labels_pred : array-like of shape (n_samples,)
        Cluster labels.

    Returns
    -------
    labels_true, labels_pred : ndarray of shape (n_samples,)
        The labelings as 1d arrays.

    Raises
    ------
    ValueError
        If a labeling is not 1d, the lengths differ, there are no samples or
        a label is NaN or infinite.
    """
    labels_true = column_or_1d(labels_true)
    labels_pred = column_or_1d(labels_pred)
    check_consistent_length(labels_true, labels_pred)
    if labels_true.shape[0] == 0:
        raise ValueError(
            "labels_true and labels_pred are empty: scores need at least one sample."
        )
    for name, labels in (("labels_true", labels_true), ("labels_pred", labels_pred)):
        # NaN is not equal to itself: each NaN would count as a class of its
        # own (or, sorted by np.unique, as one), silently.
        if labels.dtype.kind in "fc" and not np.isfinite(labels).all():
            raise ValueError(
                f"{name} contains NaN or infinity; a label must be a finite "
                "number or any other sortable value."
            )
        if labels.dtype == object and any(
            isinstance(v, float) and v != v for v in labels
        ):
            raise ValueError(f"{name} contains NaN; a label must not be NaN.")
    return labels_true, labels_pred


def contingency_table(labels_true, labels_pred):
    """Contingency table of two labelings.

    Parameters
    ----------
    labels_true : array-like of shape (n_samples,)
        Reference classes: any values that ``np.unique`` can sort.

    labels_pred : array-like of shape (n_samples,)
        Cluster labels: any values that ``np.unique`` can sort.

    Returns
    -------
    table : ndarray of shape (n_classes, n_clusters), dtype=int64
        ``table[i, j]`` is the number of samples of the i-th class (in sorted
        order of ``np.unique(labels_true)``) that are in the j-th cluster (in
        sorted order of ``np.unique(labels_pred)``). Every row and column has
        a positive sum.

    Raises
    ------
    ValueError
        If a labeling is not 1d, the lengths differ or there are no samples.

    Examples
    --------
    >>> from mmc.metrics import contingency_table
    >>> contingency_table([0, 0, 1, 1, 1], ["a", "b", "b", "b", "c"])
    array([[1, 1, 0],
           [0, 2, 1]])
    """
    labels_true, labels_pred = _check_labelings(labels_true, labels_pred)
    try:
        classes, class_idx = np.unique(labels_true, return_inverse=True)
        clusters, cluster_idx = np.unique(labels_pred, return_inverse=True)
    except TypeError as error:
        raise TypeError(
            f"The labels of a labeling must be comparable with each other "
            f"(numbers, strings, ...): {error}"
        ) from None
    n_classes, n_clusters = classes.shape[0], clusters.shape[0]
    flat = class_idx.astype(np.int64) * n_clusters + cluster_idx
    table = np.bincount(flat, minlength=n_classes * n_clusters)
    return table.reshape(n_classes, n_clusters).astype(np.int64, copy=False)


def _accuracy_from_table(table):
    """Fraction of samples on the best one-to-one matching of a table.

    Parameters
    ----------
    table : ndarray of shape (n_classes, n_clusters)
        Contingency table with a positive total. Need not be square: with more
        clusters than classes (or the reverse), the unmatched ones count as
        errors.

    Returns
    -------
    accuracy : float
        ``max_pi sum_i table[i, pi(i)] / table.sum()`` over one-to-one
        matchings pi of classes to clusters (Hungarian algorithm).
    """
    rows, cols = linear_sum_assignment(table, maximize=True)
    return float(table[rows, cols].sum() / table.sum())


def clustering_accuracy(labels_true, labels_pred):
    """Clustering accuracy after the best matching of clusters to classes.

    Each cluster is matched to at most one class and each class to at most
    one cluster, so as to maximise the number of samples whose cluster is
    matched to their class; the accuracy is that number over n_samples.

    Parameters
    ----------
    labels_true : array-like of shape (n_samples,)
        Reference classes.

    labels_pred : array-like of shape (n_samples,)
        Cluster labels.

    Returns
    -------
    accuracy : float
        In ``(0, 1]``; symmetric in its arguments. 1 if and only if the two
        labelings are the same partition.

    Raises
    ------
    ValueError
        If a labeling is not 1d, the lengths differ or there are no samples.

    See Also
    --------
    clustering_error : ``1 - clustering_accuracy``.

    Examples
    --------
    >>> from mmc.metrics import clustering_accuracy
    >>> clustering_accuracy([0, 0, 1, 1], [1, 1, 0, 0])
    1.0
    >>> clustering_accuracy([0, 0, 0, 1], [0, 0, 1, 1])
    0.75
    """
    return _accuracy_from_table(contingency_table(labels_true, labels_pred))


def clustering_error(labels_true, labels_pred):
    """Clustering error: one minus :func:`clustering_accuracy`.

    This is the error reported by the maximum margin clustering papers.

    Parameters
    ----------
    labels_true : array-like of shape (n_samples,)
        Reference classes.

    labels_pred : array-like of shape (n_samples,)
        Cluster labels.

    Returns
    -------
    error : float
        In ``[0, 1)``; 0 if and only if the two labelings are the same
        partition.

    Raises
    ------
    ValueError
        If a labeling is not 1d, the lengths differ or there are no samples.

    Examples
    --------
    >>> from mmc.metrics import clustering_error
    >>> clustering_error([0, 0, 0, 1], [0, 0, 1, 1])
    0.25
    """
    return 1.0 - clustering_accuracy(labels_true, labels_pred)


def _entropy_from_counts(counts, n):
    """Entropy (natural log) of the distribution ``counts / n``, zeros skipped."""
    p = counts[counts > 0] / n
    return float(-(p * np.log(p)).sum())


def _nmi_from_table(table):
    """Normalized mutual information of a contingency table.

    Parameters
    ----------
    table : ndarray of shape (n_classes, n_clusters)
        Contingency table with a positive total. Rows or columns of zeros are
        allowed and ignored.

    Returns
    -------
    nmi : float
        ``MI / ((H_true + H_pred) / 2)`` (natural logarithms), in ``[0, 1]``.
        As in :func:`sklearn.metrics.normalized_mutual_info_score`: 1 when both
        labelings have a single non-empty group (zero entropies), and 0 when
        the mutual information is 0 otherwise.
    """
    table = np.asarray(table, dtype=np.float64)
    n = table.sum()
    counts_true = table.sum(axis=1)
    counts_pred = table.sum(axis=0)
    h_true = _entropy_from_counts(counts_true, n)
    h_pred = _entropy_from_counts(counts_pred, n)
    if h_true == 0.0 and h_pred == 0.0:
        return 1.0
    i, j = np.nonzero(table)
    n_ij = table[i, j]
    # While n < 2**26, n * n_ij and counts_true[i] * counts_pred[j] are exact
    # in float64, so a cell at independence contributes exactly log(1.0) == 0.
    ratio = (n * n_ij) / (counts_true[i] * counts_pred[j])
    mi = float((n_ij / n * np.log(ratio)).sum())
    if mi <= 0.0:
        return 0.0
    return min(mi / ((h_true + h_pred) / 2.0), 1.0)


def normalized_mutual_info(labels_true, labels_pred):
    """Normalized mutual information (arithmetic normalisation).

    ``NMI = MI(U, V) / ((H(U) + H(V)) / 2)``, with natural logarithms. Equal
    to :func:`sklearn.metrics.normalized_mutual_info_score` with its default
    ``average_method="arithmetic"``, including its limit cases.

    Parameters
    ----------
    labels_true : array-like of shape (n_samples,)
        Reference classes.

    labels_pred : array-like of shape (n_samples,)
        Cluster labels.

    Returns
    -------
    nmi : float
        In ``[0, 1]``; symmetric in its arguments. 1 when both labelings put
        all samples in one group; 0 when exactly one of them does.

    Raises
    ------
    ValueError
        If a labeling is not 1d, the lengths differ or there are no samples.

    Examples
    --------
    >>> from mmc.metrics import normalized_mutual_info
    >>> normalized_mutual_info([0, 0, 1, 1], [1, 1, 0, 0])
    1.0
    >>> normalized_mutual_info([0, 0, 1, 1], [0, 1, 0, 1])
    0.0
    """
    return _nmi_from_table(contingency_table(labels_true, labels_pred))


def _pair_counts(table):
    """Count sample pairs that each labeling puts in the same group.

    Parameters
    ----------
    table : ndarray of shape (n_classes, n_clusters)
        Contingency table.

    Returns
    -------
    together_both : int
        Pairs in the same class and in the same cluster.

    together_true : int
        Pairs in the same class.

    together_pred : int
        Pairs in the same cluster.

    n_pairs : int
        All pairs, ``n * (n - 1) / 2``.
    """
    table = np.asarray(table, dtype=np.int64)

    def n_pairs_in(counts):
        return int((counts * (counts - 1) // 2).sum())

    return (
        n_pairs_in(table),
        n_pairs_in(table.sum(axis=1)),
        n_pairs_in(table.sum(axis=0)),
        n_pairs_in(table.sum(keepdims=True)),
    )


def _rand_from_table(table):
    """Rand index of a contingency table.

    Parameters
    ----------
    table : ndarray of shape (n_classes, n_clusters)
        Contingency table with a positive total.

    Returns
    -------
    rand : float
        Fraction of sample pairs on which the labelings agree (together in
        both, or apart in both). 1 when there is no pair (one sample), as in
        :func:`sklearn.metrics.rand_score`.
    """
    together_both, together_true, together_pred, n_pairs = _pair_counts(table)
    if n_pairs == 0:
        return 1.0
    apart_both = n_pairs - together_true - together_pred + together_both
    return (together_both + apart_both) / n_pairs


def rand_index(labels_true, labels_pred):
    """Rand index: fraction of sample pairs on which two labelings agree.

    A pair agrees when both labelings put its two samples in the same group,
    or both put them in different groups. Equal to
    :func:`sklearn.metrics.rand_score`.

    Parameters
    ----------
    labels_true : array-like of shape (n_samples,)
        Reference classes.

    labels_pred : array-like of shape (n_samples,)
        Cluster labels.

    Returns
    -------
    rand : float
        In ``[0, 1]``; symmetric in its arguments. 1 for a single sample.

    Raises
    ------
    ValueError
        If a labeling is not 1d, the lengths differ or there are no samples.

    Examples
    --------
    >>> from mmc.metrics import rand_index
    >>> rand_index([0, 0, 1, 2], [0, 0, 1, 1])
    0.8333333333333334
    """
    return _rand_from_table(contingency_table(labels_true, labels_pred))


def _fbeta_from_table(table, beta):
    """Pair-counting F_beta of a contingency table.

    Parameters
    ----------
    table : ndarray of shape (n_classes, n_clusters)
        Contingency table with a positive total.

    beta : float
        Weight of recall relative to precision, ``> 0`` (not checked here).

    Returns
    -------
    fbeta : float
        ``(1 + beta**2) P R / (beta**2 P + R)`` with pair precision ``P`` and
        pair recall ``R``. A ratio 0/0 (no pair together in the prediction,
        resp. in the truth) counts as 1, and F_beta is 0 when ``P = R = 0``;
        see :func:`pairwise_fbeta`.
    """
    together_both, together_true, together_pred, _ = _pair_counts(table)
    precision = together_both / together_pred if together_pred else 1.0
    recall = together_both / together_true if together_true else 1.0
    beta2 = beta * beta
    denominator = beta2 * precision + recall
    if denominator == 0.0:
        return 0.0
    return (1.0 + beta2) * precision * recall / denominator


def pairwise_fbeta(labels_true, labels_pred, beta=1.0):
    """Pair-counting F_beta score of a clustering.

    Over the pairs of samples, precision ``P`` is the fraction of the pairs
    put in the same cluster that are in the same class, and recall ``R`` the
    fraction of the pairs in the same class that are put in the same cluster.
    ``F_beta = (1 + beta**2) P R / (beta**2 P + R)``.

    Limit cases: when the prediction puts no pair together (all clusters are
    singletons), ``P`` is 0/0 and counts as 1; likewise ``R`` counts as 1 when
    no two samples share a class. Hence the score is 1 when neither labeling
    puts any pair together (this includes a single sample), 0 when exactly one
    of them does, and 0 when ``P = R = 0``.

    Parameters
    ----------
    labels_true : array-like of shape (n_samples,)
        Reference classes.

    labels_pred : array-like of shape (n_samples,)
        Cluster labels.

    beta : float, default=1.0
        Weight of recall relative to precision; finite and positive.

    Returns
    -------
    fbeta : float
        In ``[0, 1]``; 1 if and only if the two labelings are the same
        partition. Symmetric in its arguments only for ``beta = 1``.

    Raises
    ------
    ValueError
        If ``beta`` is not a finite positive number, a labeling is not 1d, the
        lengths differ or there are no samples.

    Examples
    --------
    >>> from mmc.metrics import pairwise_fbeta
    >>> pairwise_fbeta([0, 0, 1, 1], [0, 0, 1, 1])
    1.0
    >>> pairwise_fbeta([0, 0, 0, 0], [0, 0, 1, 1])  # P = 1, R = 1/3
    0.5
    """
    if not (isinstance(beta, Real) and np.isfinite(beta) and beta > 0):
        raise ValueError(f"beta must be a finite positive number, got {beta!r}.")
    return _fbeta_from_table(contingency_table(labels_true, labels_pred), beta)
