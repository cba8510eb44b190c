"""The statistics and starts of a cutting-plane fit on blocks of rows.

The counterparts, for :class:`mmc._dask.RowBlocks`, of ``column_means``,
:func:`mmc._starts.principal_component` and :func:`mmc._starts.initial_signs`:
the same computations, each pass over the rows mapped over the blocks and
summed in their order. Two steps need every sample at once and bring one
float per sample to the driver (8 bytes a row, never the data): the median
split of the ``"pca"`` and ``"random"`` starts, and the k-means++ seeding
of the k-means runs. The estimate of ``class_balance="auto"`` brings a
sample of rows (:func:`take_rows`).

The k-means runs (:func:`best_kmeans_centres`, the ``"kmeans"`` start here
and CPM3C's in :mod:`mmc._dask_centres`) are those of
:func:`mmc._kmeans.best_kmeans_centres`: the same draws from the random
state and the same rules (ties within rounding to the first), so the same
centres as in memory (to the last bit on float32 data; the sums of float64
rows, taken block by block, may round otherwise in the last bits). The
runs' Lloyd steps share the passes (:func:`_lloyd_runs`).
"""

import numpy as np
import scipy.sparse as sp

from mmc._core import _linear
from mmc._core._common import column_sums
from mmc._core._kmeans import seed_distances
from mmc._dask import (
    check_values,
    compute,
    prepare_block,
    row_products,
    value_range,
    weighted_row_sums,
)
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
from mmc._labelling import median_split
from mmc._rows import rows
from mmc._starts import _PCA_OVERSAMPLING, _PCA_POWER_ITERATIONS
from mmc._starts import _orthonormalise_columns as orthonormalise_columns

# The largest number of Lloyd iterations of a k-means run, as in memory.
_KMEANS_MAX_ITER = 300


def _decision(block, coef, intercept):
    out = np.empty(block.shape[0])
    _linear.decision_values(*rows(block), coef, intercept, out)
    return out


def _column_stats(block, _state, _shared):
    """Column sums of a block and its extreme values."""
    sums = np.zeros(block.shape[1])
    column_sums(*rows(block), sums)
    return None, (sums, value_range(block))


def checked_column_means(blocks):
    """Check the values of X (as ``_validate_X`` does) and return the mean
    of the rows; one pass."""
    results = blocks.map(_column_stats)
    check_values([r[1] for r in results], blocks.dtype)
    return sum(r[0] for r in results) / blocks.shape[0]


def _centred_times(block, Q, mean):
    """``(X_b - mean) Q`` (in float64)."""
    Y = row_products(block, Q)
    Y -= row_products(mean[None, :], Q)[0]
    return Y


def _power_step(block, _state, shared):
    """``X_b' (X_b - mean) Q`` and the column sums of ``(X_b - mean) Q``."""
    Y = _centred_times(block, *shared)
    return None, (weighted_row_sums(Y, block).T, Y.sum(axis=0))


def _projection_gram(block, _state, shared):
    """Gram matrix of ``(X_b - mean) Q`` and its first rows."""
    Y = _centred_times(block, *shared)
    return None, (weighted_row_sums(Y, Y), Y[: Y.shape[1]])


def _right_singular_vectors(gram, top):
    """The right singular vectors of a tall Y, as ``numpy.linalg.svd(Y)``
    gives them, from its Gram matrix and its first rows.

    LAPACK's SVD of a tall matrix first reduces it to the R of its
    Householder QR, and that R depends only on the first rows of Y and the
    Gram matrix of the others (the reflections see the other rows through
    their inner products): the QR of the first rows stacked on any matrix
    with that Gram matrix gives the same R, so the same singular vectors,
    signs included, up to rounding. The principal direction then has the
    orientation of the in-memory fit's, and so do the ``"pca"`` starts.
    """
    values, vectors = np.linalg.eigh(gram - top.T @ top)
    rest = (vectors * np.sqrt(np.maximum(values, 0.0))) @ vectors.T
    R = np.linalg.qr(np.vstack([top, rest]), mode="r")
    return np.linalg.svd(R, full_matrices=False)[2]


def _squared_projections(block, _state, shared):
    """Sum of squares of the centred projections on the principal direction,
    and the uncentred projections (those of the ``"pca"`` start)."""
    direction, intercept = shared
    centred = _decision(block, direction, intercept)
    return None, (float(np.square(centred).sum()), _decision(block, direction, 0.0))


def principal_component(blocks, x_mean, random_state):
    """Principal direction and the variance along it, as
    :func:`mmc._starts.principal_component` computes them (the same draws
    and iterations, the passes summed over the blocks; the SVD of the tall
    projections from small statistics, see :func:`_right_singular_vectors`)."""
    n_features = blocks.shape[1]
    block = min(1 + _PCA_OVERSAMPLING, n_features)
    Q = random_state.standard_normal((n_features, block))
    for _ in range(_PCA_POWER_ITERATIONS):
        results = blocks.map(_power_step, Q, x_mean)
        Q = sum(r[0] for r in results) - np.outer(x_mean, sum(r[1] for r in results))
        orthonormalise_columns(Q)
    results = blocks.map(_projection_gram, Q, x_mean)
    gram = sum(r[0] for r in results)
    top = np.concatenate([r[1] for r in results])[: Q.shape[1]]
    direction = Q @ _right_singular_vectors(gram, top)[0]
    norm = np.linalg.norm(direction)
    if norm > 0:
        direction /= norm
    results = blocks.map(_squared_projections, direction, -float(direction @ x_mean))
    variance = sum(r[0] for r in results) / blocks.shape[0]
    # Kept for the "pca" starts: 8 bytes a row on the driver.
    blocks.principal_projections = np.concatenate([r[1] for r in results])
    if not variance > 1e-20 * float(x_mean @ x_mean):
        variance = 1.0
    return direction, variance


def _projections(block, _state, shared):
    (direction,) = shared
    return None, _decision(block, direction, 0.0)


def initial_signs(blocks, method, random_state):
    """Initial signs of a restart (see :func:`mmc._starts.initial_signs`):
    ``(per-block int8 signs, number of positive signs)``."""
    if method == "kmeans":
        centres = best_kmeans_centres(blocks, 2, random_state, 1)
        rel = relative_rounding_bound(blocks.shape[1])
        labels = np.concatenate(blocks.map(_nearest_labels, centres, rel))
        signs = np.where(labels == 1, 1, -1).astype(np.int8)
    else:
        if method == "pca":
            projections = blocks.principal_projections
        else:
            direction = random_state.standard_normal(blocks.shape[1])
            projections = np.concatenate(blocks.map(_projections, direction))
        signs = median_split(projections)
    return blocks.states(signs), int(np.count_nonzero(signs > 0))


def _stored_rows(block, _state, local):
    return None, block[local]


def take_rows(blocks, indices):
    """Rows of X at sorted global ``indices`` as they are stored (CSR stays
    CSR), in one compute: the sample of :func:`mmc._balance.kmeans_cluster_sizes`."""
    owner = np.searchsorted(blocks.starts, indices, side="right") - 1
    tasks = [
        blocks.dask.delayed(_stored_rows, pure=True)(
            blocks.dask.delayed(prepare_block)(
                blocks.blocks[b], blocks.dtype, blocks.sparse
            ),
            None,
            indices[owner == b] - blocks.starts[b],
        )[1]
        for b in np.unique(owner)
    ]
    parts = compute(blocks.dask, tasks)
    return sp.vstack(parts, format="csr") if sp.issparse(parts[0]) else np.vstack(parts)


def dense_rows(blocks, indices):
    """Rows of X at ``indices`` (any order, repeats allowed), dense float64."""
    indices = np.asarray(indices, dtype=np.intp)
    unique, inverse = np.unique(indices, return_inverse=True)
    taken = take_rows(blocks, unique)
    taken = taken.toarray() if sp.issparse(taken) else taken
    return np.asarray(taken, dtype=np.float64)[inverse]


def _nearest_labels(block, _state, shared):
    """Nearest of the centres to each row (ties within rounding to the first)."""
    centres, rel = shared
    X, norms, _ = rounding_scale(block)
    return None, _nearest_centres(X, norms, centres, rel)[0]


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
    """A Lloyd step of several k-means runs on a block, the rows' norms
    computed once: for each run with centres (None: a run that has ended),
    the nearest centre of each row (ties within rounding to the first), the
    per-cluster sums and counts, the number of changed labels and the sum of
    ``|x|^2 + (|c|^2 - 2 x.c)`` at the nearest centre (the inertia). The
    state is each run's labels (None once it has ended)."""
    centres_of_runs, rel = shared
    X, norms, _ = rounding_scale(block)
    if labels is None:
        labels = [None] * len(centres_of_runs)
    new_labels, results = [], []
    for previous, centres in zip(labels, centres_of_runs):
        if centres is None:
            new_labels.append(None)
            results.append(None)
            continue
        k = centres.shape[0]
        sums = np.zeros((k, X.shape[1]))
        previous = None if previous is None else previous.copy()
        new, nearest, changed = _nearest_centres(X, norms, centres, rel, sums, previous)
        inertia = float(np.maximum(norms + nearest, 0.0).sum())
        new_labels.append(new)
        results.append((sums, np.bincount(new, minlength=k), changed, inertia))
    return new_labels, results


def _norm_summary(blocks):
    """The sum and the largest of the rows' squared norms, and the relative
    rounding bound of the squared distances; one pass."""
    stats = blocks.map(_norm_stats)
    norm_sum = sum(s[0] for s in stats)
    top_norm = max(s[1] for s in stats)
    return norm_sum, top_norm, relative_rounding_bound(blocks.shape[1])


def _seeded_centres(blocks, n_clusters, random_state, norm_sum, top_norm, rel):
    """The greedy k-means++ seeding of :func:`mmc._kmeans.stable_kmeans` on
    the blocks: the rows chosen, dense float64."""
    n_samples = blocks.shape[0]

    def distances_to(indices):  # (n_samples, len(indices))
        chosen_rows = dense_rows(blocks, indices)
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
    return dense_rows(blocks, chosen)


def kmeans_plusplus_centres(blocks, n_clusters, random_state):
    """:func:`mmc._kmeans.stable_kmeans` seeding only (``max_iter=0``) on the
    blocks."""
    return _seeded_centres(blocks, n_clusters, random_state, *_norm_summary(blocks))


def _lloyd_runs(blocks, centres, rel):
    """The Lloyd steps of :func:`mmc._kmeans.stable_kmeans` for each run of
    ``centres`` (seeded; updated in place), every run's step in the same
    pass over the blocks; returns the inertias.

    A run steps until no label changes, or ``_KMEANS_MAX_ITER`` times and
    once more for the inertia at its last centres, and then leaves the
    passes: each run makes its own steps, with its own labels, as one run
    alone would; only the passes are shared (the ten runs of CPM3C's start
    on 10^6 x 50 float32 rows persisted on two workers: 12.3 -> 7.8 s).
    """
    n_runs = len(centres)
    inertias = [None] * n_runs
    n_steps = [0] * n_runs
    states = None
    while any(inertia is None for inertia in inertias):
        stepping = [c if i is None else None for c, i in zip(centres, inertias)]
        states, results = blocks.step(_lloyd_block, states, stepping, rel)
        for run in range(n_runs):
            if inertias[run] is not None:
                continue
            parts = [result[run] for result in results]
            if n_steps[run] == _KMEANS_MAX_ITER or sum(p[2] for p in parts) == 0:
                inertias[run] = sum(p[3] for p in parts)
                continue
            sums = sum(p[0] for p in parts)
            counts = sum(p[1] for p in parts)
            filled = counts > 0
            centres[run][filled] = sums[filled] / counts[filled, None]
            n_steps[run] += 1
    return inertias


def best_kmeans_centres(blocks, n_clusters, random_state, n_runs):
    """:func:`mmc._kmeans.best_kmeans_centres` on the blocks.

    The runs draw their seeding from ``random_state`` one after the other,
    as in memory; their Lloyd steps draw nothing and share the passes
    (:func:`_lloyd_runs`)."""
    n_samples = blocks.shape[0]
    norm_sum, top_norm, rel = _norm_summary(blocks)
    runs = [
        _seeded_centres(blocks, n_clusters, random_state, norm_sum, top_norm, rel)
        for _ in range(n_runs)
    ]
    inertias = _lloyd_runs(blocks, runs, rel)
    bounds = [
        inertia_bound(rel, norm_sum, n_samples, centres, inertia)
        for centres, inertia in zip(runs, inertias)
    ]
    return best_run(runs, inertias, bounds)
