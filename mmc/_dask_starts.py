"""The statistics and starts of a cutting-plane fit on blocks of rows.

The counterparts, for :class:`mmc._dask.RowBlocks`, of ``column_means``,
:func:`mmc._starts.principal_component` and :func:`mmc._starts.initial_signs`:
the same computations, each pass over the rows mapped over the blocks and
summed in their order. Two steps need every sample at once and bring one
float per sample to the driver (8 bytes a row, never the data): the median
split of the ``"pca"`` and ``"random"`` starts, and the k-means++ seeding
of the ``"kmeans"`` start.
"""

import numpy as np
import scipy.sparse as sp

from mmc._base import rows
from mmc._core import _linear
from mmc._core._common import column_sums
from mmc._dask import compute
from mmc._labelling import median_split
from mmc._starts import _PCA_OVERSAMPLING, _PCA_POWER_ITERATIONS
from mmc._starts import _orthonormalise_columns as orthonormalise_columns

# Lloyd iterations and relative tolerance of the "kmeans" start, as in
# scikit-learn's KMeans (which the in-memory start runs).
_KMEANS_MAX_ITER = 300
_KMEANS_TOL = 1e-4


def _decision(block, coef, intercept):
    out = np.empty(block.shape[0])
    _linear.decision_values(*rows(block), coef, intercept, out)
    return out


def _column_stats(block, _state, _shared):
    """Column sums and sums of squares of a block."""
    sums = np.zeros(block.shape[1])
    column_sums(*rows(block), sums)
    squares = block.multiply(block) if sp.issparse(block) else np.square(block)
    return None, (sums, np.asarray(squares.sum(axis=0), dtype=np.float64).ravel())


def column_statistics(blocks):
    """Mean of the rows and mean variance of the columns (two moments, one pass)."""
    results = blocks.map(_column_stats)
    n_samples = blocks.shape[0]
    x_mean = sum(r[0] for r in results) / n_samples
    squares = sum(r[1] for r in results) / n_samples
    variance = float(np.mean(np.maximum(squares - x_mean**2, 0.0)))
    return x_mean, variance


def _power_step(block, _state, shared):
    """``(X_b - mean)' (X_b - mean) Q`` and the column sums of ``(X_b - mean) Q``."""
    Q, mean = shared
    Y = np.asarray(block @ Q, dtype=np.float64)
    Y -= mean @ Q
    return None, (np.asarray(block.T @ Y, dtype=np.float64), Y.sum(axis=0))


def _projection_gram(block, _state, shared):
    Q, mean = shared
    Y = np.asarray(block @ Q, dtype=np.float64)
    Y -= mean @ Q
    return None, Y.T @ Y


def _squared_projections(block, _state, shared):
    direction, intercept = shared
    projections = _decision(block, direction, intercept)
    return None, float(projections @ projections)


def principal_component(blocks, x_mean, random_state):
    """Principal direction and the variance along it, as
    :func:`mmc._starts.principal_component` computes them (the same draws
    and iterations; the tall SVD becomes the eigenvectors of its small Gram
    matrix, and a direction may come out negated)."""
    n_features = blocks.shape[1]
    block = min(1 + _PCA_OVERSAMPLING, n_features)
    Q = random_state.standard_normal((n_features, block))
    for _ in range(_PCA_POWER_ITERATIONS):
        results = blocks.map(_power_step, Q, x_mean)
        Q = sum(r[0] for r in results) - np.outer(x_mean, sum(r[1] for r in results))
        orthonormalise_columns(Q)
    gram = sum(blocks.map(_projection_gram, Q, x_mean))
    _, vectors = np.linalg.eigh(gram)
    direction = Q @ vectors[:, -1]
    norm = np.linalg.norm(direction)
    if norm > 0:
        direction /= norm
    total = sum(blocks.map(_squared_projections, direction, -float(direction @ x_mean)))
    variance = total / blocks.shape[0]
    if not variance > 1e-20 * float(x_mean @ x_mean):
        variance = 1.0
    return direction, variance


def _projections(block, _state, shared):
    (direction,) = shared
    return None, _decision(block, direction, 0.0)


def initial_signs(blocks, method, random_state, principal, x_mean, variance):
    """Per-block initial signs (+1 / -1, int8) of a restart; see
    :func:`mmc._starts.initial_signs`."""
    if method == "kmeans":
        labels = kmeans_labels(blocks, 2, random_state, x_mean, variance)
        return blocks.states(np.where(labels == 1, 1, -1).astype(np.int8))
    if method == "pca":
        direction = principal
    else:
        direction = random_state.standard_normal(blocks.shape[1])
    projections = np.concatenate(blocks.map(_projections, direction))
    return blocks.states(median_split(projections))


# k-means: the "kmeans" start. scikit-learn's KMeans (greedy k-means++
# seeding, then Lloyd iterations until the labels or, within tol, the centres
# stop moving) run on the blocks: the same draws from the random state, the
# same rules, other rounding.


def _centred(block, x_mean):
    """Dense blocks centred (as KMeans does), sparse ones as they are."""
    if sp.issparse(block):
        return block
    return np.asarray(block, dtype=np.float64) - x_mean


def _squared_distances(block, centres, x_mean):
    X = _centred(block, x_mean)
    if sp.issparse(X):
        norms = np.asarray(X.multiply(X).sum(axis=1), dtype=np.float64).ravel()
    else:
        norms = np.einsum("ij,ij->i", X, X)
    products = np.asarray(X @ centres.T, dtype=np.float64)
    D = norms[:, None] - 2.0 * products + np.einsum("ij,ij->i", centres, centres)
    return np.maximum(D, 0.0)


def _distances(block, _state, shared):
    centres, x_mean = shared
    return None, _squared_distances(block, centres, x_mean)


def _rows_of(block, _state, shared):
    (local,) = shared
    X = block[local]
    return None, X.toarray() if sp.issparse(X) else np.asarray(X)


def _fetch_rows(blocks, indices, x_mean):
    """Rows of X at global ``indices`` (centred as the k-means sees them)."""
    indices = np.asarray(indices)
    out = np.empty((len(indices), blocks.shape[1]))
    owner = np.searchsorted(blocks.starts, indices, side="right") - 1
    for b in np.unique(owner):
        wanted = np.flatnonzero(owner == b)
        local = indices[wanted] - blocks.starts[b]
        task = blocks.dask.delayed(_rows_of, pure=True)(
            blocks.blocks[b], None, (local,)
        )
        out[wanted] = compute(blocks.dask, [task[1]])[0]
    if not blocks.sparse:
        out -= x_mean
    return out


def _seed(blocks, n_clusters, random_state, x_mean):
    """Greedy k-means++ seeding (scikit-learn's ``_kmeans_plusplus``)."""
    n_samples = blocks.shape[0]
    n_trials = 2 + int(np.log(n_clusters))
    weights = np.ones(n_samples)
    first = random_state.choice(n_samples, p=weights / weights.sum())
    centres = np.empty((n_clusters, blocks.shape[1]))
    centres[0] = _fetch_rows(blocks, [first], x_mean)[0]
    closest = np.concatenate(blocks.map(_distances, centres[:1], x_mean))[:, 0]
    potential = closest.sum()
    for c in range(1, n_clusters):
        draws = random_state.uniform(size=n_trials) * potential
        candidates = np.searchsorted(np.cumsum(closest), draws)
        np.clip(candidates, None, n_samples - 1, out=candidates)
        trial_centres = _fetch_rows(blocks, candidates, x_mean)
        D = np.concatenate(blocks.map(_distances, trial_centres, x_mean)).T
        np.minimum(closest, D, out=D)
        best = int(np.argmin(D.sum(axis=1)))
        centres[c] = trial_centres[best]
        closest = D[best]
        potential = closest.sum()
    return centres


def _lloyd_step(block, labels, shared):
    """Nearest centre of each row, and the per-cluster sums and counts."""
    centres, x_mean = shared
    new = np.argmin(_squared_distances(block, centres, x_mean), axis=1)
    X = _centred(block, x_mean)
    k = centres.shape[0]
    onehot = sp.csr_matrix(
        (np.ones(len(new)), (new, np.arange(len(new)))), shape=(k, len(new))
    )
    sums = onehot @ X
    sums = sums.toarray() if sp.issparse(sums) else np.asarray(sums)
    changed = len(new) if labels is None else int(np.count_nonzero(new != labels))
    return new, (sums, np.bincount(new, minlength=k), changed)


def kmeans_labels(blocks, n_clusters, random_state, x_mean, variance):
    """Labels (on the driver) of one k-means run on the blocks."""
    centres = _seed(blocks, n_clusters, random_state, x_mean)
    tol = variance * _KMEANS_TOL
    states = None
    converged = False
    for _ in range(_KMEANS_MAX_ITER):
        states, results = blocks.step(_lloyd_step, states, centres, x_mean)
        sums = sum(r[0] for r in results)
        counts = sum(r[1] for r in results)
        changed = sum(r[2] for r in results)
        new_centres = centres.copy()
        filled = counts > 0
        new_centres[filled] = sums[filled] / counts[filled, None]
        shift = float(((new_centres - centres) ** 2).sum())
        centres = new_centres
        if changed == 0:
            converged = True
            break
        if shift <= tol:
            break
    if not converged:
        states, _ = blocks.step(_lloyd_step, states, centres, x_mean)
    return blocks.gather(states)
