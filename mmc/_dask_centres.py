"""The initial centres of CPM3C's starts on blocks of rows.

The counterparts, for :class:`mmc._dask.RowBlocks`, of
:func:`mmc._starts.initial_centres` and of the k-means it runs
(:func:`mmc._kmeans.best_kmeans_centres`): the same draws from the random
state and the same rules (ties within rounding to the first), each pass
over the rows mapped over the blocks and summed in their order. As in
memory, a few steps hold one float per sample on the driver (never the
data): the projections of the ``"pca"`` start, and the distances of the
k-means++ seeding (``2 + log k`` floats a sample while a centre is chosen).
"""

import numpy as np
import scipy.sparse as sp

from mmc._base import rows
from mmc._core._kmeans import seed_distances
from mmc._dask_starts import kmeans_plusplus_rows, take_rows
from mmc._kmeans import (
    _first_near_minimum,
    _nearest_centres,
    best_run,
    inertia_bound,
    relative_rounding_bound,
    rounding_scale,
    seeding_draws,
    seeding_tolerance,
)
from mmc._starts import MULTICLASS_KMEANS_RUNS, cluster_sums, means_of_sums

# The largest number of Lloyd iterations, as in memory.
_KMEANS_MAX_ITER = 300


def _stored_rows(blocks, indices):
    """Rows of X at ``indices`` (any order, repeats allowed), dense float64."""
    indices = np.asarray(indices, dtype=np.intp)
    unique, inverse = np.unique(indices, return_inverse=True)
    taken = take_rows(blocks, unique)
    taken = taken.toarray() if sp.issparse(taken) else taken
    return np.asarray(taken, dtype=np.float64)[inverse]


def _norm_stats(block, _state, _shared):
    """Sum and largest of the squared norms of a block's rows (float64)."""
    _, norms, _ = rounding_scale(block)
    return None, (float(norms.sum()), float(norms.max(initial=0.0)))


def _row_distances(block, _state, shared):
    """Squared distances of the block's rows to ``rows`` (those within
    rounding of zero set to zero), by the in-memory seeding's kernel."""
    rows_T, row_norms, rel = shared
    X, norms, _ = rounding_scale(block)
    D = np.empty((rows_T.shape[1], X.shape[0]))
    seed_distances(
        *rows(X), norms, rows_T, row_norms, rel, np.full(X.shape[0], np.inf), D
    )
    return None, D.T


def _lloyd_block(block, labels, shared):
    """Nearest centre of each row (ties within rounding to the first), the
    per-cluster sums and counts, the number of changed labels and the sum
    of ``|x|^2 + (|c|^2 - 2 x.c)`` at the nearest centre (the inertia)."""
    centres, rel = shared
    X, norms, _ = rounding_scale(block)
    k = centres.shape[0]
    sums = np.zeros((k, X.shape[1]))
    previous = None if labels is None else labels.copy()
    new, nearest, changed = _nearest_centres(X, norms, centres, rel, sums, previous)
    inertia = float(np.maximum(norms + nearest, 0.0).sum())
    return new, (sums, np.bincount(new, minlength=k), changed, inertia)


def _stable_kmeans(blocks, n_clusters, random_state, norm_sum, top_norm, rel):
    """Centres of one run of :func:`mmc._kmeans.stable_kmeans` on the
    blocks, and its inertia."""
    n_samples = blocks.shape[0]

    def distances_to(indices):  # (n_samples, len(indices))
        chosen_rows = _stored_rows(blocks, indices)
        row_norms = np.einsum("ij,ij->i", chosen_rows, chosen_rows)
        rows_T = np.ascontiguousarray(chosen_rows.T)
        return np.concatenate(blocks.map(_row_distances, rows_T, row_norms, rel))

    first, uniforms = seeding_draws(random_state, n_samples, n_clusters)
    chosen = np.empty(n_clusters, dtype=np.intp)
    chosen[0] = first
    closest = distances_to(chosen[:1])[:, 0]
    for c in range(1, n_clusters):
        potential = float(closest.sum())
        candidates = np.searchsorted(np.cumsum(closest), uniforms[c - 1] * potential)
        np.clip(candidates, None, n_samples - 1, out=candidates)
        D = np.minimum(closest, distances_to(candidates).T)
        potentials = D.sum(axis=1)
        tol = seeding_tolerance(rel, norm_sum, n_samples, top_norm, potentials)
        best = int(_first_near_minimum(potentials, tol, axis=0))
        chosen[c] = candidates[best]
        closest = D[best]
    centres = _stored_rows(blocks, chosen)

    states = None
    for _ in range(_KMEANS_MAX_ITER):
        states, results = blocks.step(_lloyd_block, states, centres, rel)
        if sum(r[2] for r in results) == 0:
            break
        sums = sum(r[0] for r in results)
        counts = sum(r[1] for r in results)
        filled = counts > 0
        centres[filled] = sums[filled] / counts[filled, None]
    else:
        # The inertia at the final centres.
        states, results = blocks.step(_lloyd_block, states, centres, rel)
    return centres, sum(r[3] for r in results)


def best_kmeans_centres(blocks, n_clusters, random_state, n_runs):
    """:func:`mmc._kmeans.best_kmeans_centres` on the blocks."""
    n_samples = blocks.shape[0]
    stats = blocks.map(_norm_stats)
    norm_sum = sum(s[0] for s in stats)
    top_norm = max(s[1] for s in stats)
    rel = relative_rounding_bound(blocks.shape[1])
    runs, inertias, bounds = [], [], []
    for _ in range(n_runs):
        centres, inertia = _stable_kmeans(
            blocks, n_clusters, random_state, norm_sum, top_norm, rel
        )
        runs.append(centres)
        inertias.append(inertia)
        bounds.append(inertia_bound(rel, norm_sum, n_samples, centres, inertia))
    return best_run(runs, inertias, bounds)


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
        _, chosen = kmeans_plusplus_rows(blocks, n_clusters, random_state, x_mean)
        return _stored_rows(blocks, chosen)
    if method == "pca":
        n_samples = blocks.shape[0]
        order = np.argsort(blocks.principal_projections, kind="stable")
        labels = np.empty(n_samples, dtype=np.intp)
        labels[order] = np.arange(n_samples) * n_clusters // n_samples
        results = blocks.map(_cluster_sums, n_clusters, states=blocks.states(labels))
        sums = sum(r[0] for r in results)
        return means_of_sums(sums, sum(r[1] for r in results), x_mean)
    chosen = random_state.choice(blocks.shape[0], size=n_clusters, replace=False)
    return _stored_rows(blocks, chosen)
