"""The initial centres of CPM3C's starts on blocks of rows.

The counterparts, for :class:`mmc._dask.RowBlocks`, of
:func:`mmc._starts.initial_centres` (its k-means runs are
:func:`mmc._dask_starts.best_kmeans_centres`): the same draws from the
random state and the same rules (ties within rounding to the first), each
pass over the rows mapped over the blocks and summed in their order. One
step holds one float per sample on the driver (never the data): the
projections of the ``"pca"`` start.
"""

import numpy as np

from mmc._dask_starts import best_kmeans_centres, dense_rows, kmeans_plusplus_centres
from mmc._starts import MULTICLASS_KMEANS_RUNS, cluster_sums, means_of_sums


def _cluster_sums(block, labels, shared):
    return None, cluster_sums(block, labels, *shared)


def initial_centres(blocks, x_mean, method, random_state, n_clusters):
    """:func:`mmc._starts.initial_centres` on the blocks (the principal
    direction's projections are ``blocks.principal_projections``)."""
    if method == "kmeans":
        return best_kmeans_centres(
            blocks, n_clusters, random_state, MULTICLASS_KMEANS_RUNS
        )
    if method == "k-means++":
        return kmeans_plusplus_centres(blocks, n_clusters, random_state)
    if method == "pca":
        n_samples = blocks.shape[0]
        order = np.argsort(blocks.principal_projections, kind="stable")
        labels = np.empty(n_samples, dtype=np.intp)
        labels[order] = np.arange(n_samples) * n_clusters // n_samples
        results = blocks.map(_cluster_sums, n_clusters, states=blocks.states(labels))
        sums = sum(r[0] for r in results)
        return means_of_sums(sums, sum(r[1] for r in results), x_mean)
    chosen = random_state.choice(blocks.shape[0], size=n_clusters, replace=False)
    return dense_rows(blocks, chosen)
