"""Synthetic data sets for tests, examples and benchmarks.

:func:`make_sparse_clusters` draws text-like sparse data (a fixed number of
non-zeros per row, like term counts) in O(nnz) time and memory, so that the
scaling benchmarks can reach millions of rows.
"""

from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions, validate_params

__all__ = ["make_sparse_clusters"]


@validate_params(
    {
        "n_samples": [Interval(Integral, 1, None, closed="left")],
        "n_features": [Interval(Integral, 2, None, closed="left")],
        "nnz_per_row": [Interval(Integral, 1, None, closed="left")],
        "n_clusters": [Interval(Integral, 2, None, closed="left")],
        "separation": [Interval(Real, 0, 1, closed="both")],
        "topic_size": [Interval(Integral, 1, None, closed="left"), None],
        "weights": ["array-like", None],
        "dtype": [StrOptions({"float32", "float64"}), type],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def make_sparse_clusters(
    n_samples=10000,
    n_features=100000,
    nnz_per_row=50,
    n_clusters=2,
    separation=0.3,
    topic_size=None,
    weights=None,
    dtype=np.float64,
    random_state=None,
):
    """Sparse, text-like data with planted clusters.

    Each cluster owns a "topic", a block of ``topic_size`` features of its
    own. Each row has ``nnz_per_row`` stored values (or slightly fewer where a
    column is drawn twice, the duplicates being summed); each value falls,
    with probability ``separation``, in the topic of the row's cluster and
    otherwise anywhere. Values are positive (exponentially distributed) and
    every row is scaled to unit Euclidean norm, as tf-idf rows are.

    Parameters
    ----------
    n_samples : int, default=10000
        Number of rows.

    n_features : int, default=100000
        Number of columns; must be at least ``n_clusters``.

    nnz_per_row : int, default=50
        Stored values drawn per row; must not exceed ``n_features``.

    n_clusters : int, default=2
        Number of clusters; rows are assigned to them in equal proportions
        unless ``weights`` is given.

    separation : float, default=0.3
        Probability that a value falls in the topic of its row's cluster
        rather than anywhere; 0 gives no cluster structure.

    topic_size : int, default=None
        Number of features of each topic; ``None`` means
        ``min(1000, n_features // n_clusters)``. Must not exceed
        ``n_features // n_clusters``.

    weights : array-like of shape (n_clusters,), default=None
        Relative sizes of the clusters: positive numbers, normalised to sum
        to one. Cluster ``k`` gets ``n_samples * weights[k]`` rows rounded
        down, and the rows left over go one each to the clusters with the
        largest remainders (the lowest index first among equal ones), so the
        sizes sum to ``n_samples``; a cluster may get no row when
        ``n_samples`` is small. ``None`` gives equal proportions (rows are
        assigned to the clusters in turn before shuffling).

    dtype : {"float32", "float64"} or numpy dtype, default=np.float64
        Type of the stored values.

    random_state : int, RandomState instance or None, default=None
        Seed of the generator.

    Returns
    -------
    X : scipy.sparse.csr_matrix of shape (n_samples, n_features)
        The data, with sorted int32 indices and no duplicates.

    y : ndarray of shape (n_samples,)
        The cluster of each row.

    Examples
    --------
    >>> from mmc.datasets import make_sparse_clusters
    >>> X, y = make_sparse_clusters(n_samples=100, n_features=1000, random_state=0)
    >>> X.shape, int(y.max()) + 1
    ((100, 1000), 2)

    Unbalanced clusters, one row in five in the first:

    >>> X, y = make_sparse_clusters(
    ...     n_samples=100, n_features=1000, weights=[1, 4], random_state=0
    ... )
    >>> np.bincount(y).tolist()
    [20, 80]
    """
    if n_features < n_clusters:
        raise ValueError(
            f"n_features={n_features} must be at least n_clusters={n_clusters}."
        )
    if nnz_per_row > n_features:
        raise ValueError(
            f"nnz_per_row={nnz_per_row} cannot exceed n_features={n_features}."
        )
    block = n_features // n_clusters
    if topic_size is None:
        topic_size = min(1000, block)
    elif topic_size > block:
        raise ValueError(
            f"topic_size={topic_size} cannot exceed n_features // n_clusters = {block}."
        )
    sizes = None if weights is None else _cluster_sizes(weights, n_samples, n_clusters)
    rng = check_random_state(random_state)
    dtype = np.dtype(dtype)
    if sizes is None:
        y = np.arange(n_samples) % n_clusters
    else:
        y = np.repeat(np.arange(n_clusters), sizes)
    rng.shuffle(y)
    nnz = n_samples * nnz_per_row

    rows_cluster = np.repeat(y, nnz_per_row)
    in_block = rng.random_sample(nnz) < separation
    columns = rng.randint(0, n_features, size=nnz)
    columns[in_block] = rows_cluster[in_block] * block + rng.randint(
        0, topic_size, size=int(in_block.sum())
    )
    values = rng.exponential(size=nnz)
    indptr = np.arange(0, nnz + 1, nnz_per_row, dtype=np.int64)
    X = sp.csr_matrix(
        (values, columns.astype(np.int32), indptr), shape=(n_samples, n_features)
    )
    X.sum_duplicates()  # also sorts the indices of each row
    # Every row keeps at least one value, so every norm is positive.
    norms = np.sqrt(np.add.reduceat(X.data**2, X.indptr[:-1]))
    X.data /= np.repeat(norms, np.diff(X.indptr))
    X = X.astype(dtype)
    X.indices = X.indices.astype(np.int32)
    X.indptr = X.indptr.astype(np.int32)
    return X, y


def _cluster_sizes(weights, n_samples, n_clusters):
    """Cluster sizes in the proportions ``weights`` (largest remainders)."""
    weights = np.asarray(weights, dtype=np.float64)
    if weights.shape != (n_clusters,):
        raise ValueError(
            f"weights must have shape ({n_clusters},) (one per cluster), "
            f"got {weights.shape}."
        )
    if not np.all(np.isfinite(weights)) or np.any(weights <= 0):
        raise ValueError(f"weights must be finite and positive, got {weights}.")
    exact = n_samples * weights / weights.sum()
    sizes = np.floor(exact).astype(np.int64)
    # Stable sort: among equal remainders the lowest cluster index comes first.
    order = np.argsort(-(exact - sizes), kind="stable")
    sizes[order[: n_samples - sizes.sum()]] += 1
    return sizes
