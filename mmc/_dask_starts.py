"""The statistics and starts of a cutting-plane fit on blocks of rows.

The counterparts, for :class:`mmc._dask.RowBlocks`, of ``column_means``,
:func:`mmc._starts.principal_component` and :func:`mmc._starts.initial_signs`:
the same computations, each pass over the rows mapped over the blocks and
summed in their order. One step needs every sample at once and brings one
float per sample to the driver (8 bytes a row, never the data): the median
split of the ``"pca"`` and ``"random"`` starts. The estimate of
``class_balance="auto"`` brings a sample of rows (:func:`take_rows`).

The k-means runs (:func:`best_kmeans_centres`, the ``"kmeans"`` start here
and CPM3C's in :mod:`mmc._dask_centres`) are those of
:func:`mmc._kmeans.best_kmeans_centres`: the same draws from the random
state and the same rules (ties within rounding to the first), so the same
centres as in memory (to the last bit on float32 data; the sums of float64
rows, taken block by block, may round otherwise in the last bits; so may,
in principle, a draw of the seeding that falls within rounding of a
boundary, see :func:`_seeded_runs`). The runs' seedings and their Lloyd
steps share the passes (:func:`_seeded_runs`, :func:`_lloyd_runs`).
"""

import copy
import math

import numpy as np
import scipy.sparse as sp

from mmc._core import _linear
from mmc._core._common import column_sums, row_sq_norms
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
    LloydBounds,
    _nearest_centres,
    best_run,
    first_near_minimum,
    inertia_bound,
    kernel_rows,
    relative_rounding_bound,
    rounding_scale,
    seeding_draws,
    seeding_tolerance,
)
from mmc._labelling import median_split
from mmc._rows import far_from_origin, rows
from mmc._starts import _PCA_OVERSAMPLING, _PCA_POWER_ITERATIONS
from mmc._starts import _orthonormalise_columns as orthonormalise_columns

# The largest number of Lloyd iterations of a k-means run, as in memory.
_KMEANS_MAX_ITER = 300


def _decision(block, coef, intercept):
    out = np.empty(block.shape[0])
    _linear.decision_values(*rows(block), coef, intercept, out)
    return out


def _column_stats(block, _state, _shared):
    """Column sums of a block, the sum of its rows' squared norms and its
    extreme values."""
    sums = np.zeros(block.shape[1])
    column_sums(*rows(block), sums)
    sq_norms = np.empty(block.shape[0])
    row_sq_norms(*rows(block), sq_norms)
    return None, (sums, math.fsum(sq_norms), value_range(block))


def checked_column_means(blocks):
    """Check the values of X (as ``_validate_X`` does) and return the mean
    of the rows; one pass.

    Dense data far from the origin (:func:`mmc._rows.origin_shift`), which
    an in-memory fit centres first, are refused: the blocks are not
    centred, and the fit would lose the clusters to rounding.
    """
    results = blocks.map(_column_stats)
    check_values([r[2] for r in results], blocks.dtype)
    n_samples = blocks.shape[0]
    mean = sum(r[0] for r in results) / n_samples
    if not blocks.sparse and far_from_origin(
        mean, math.fsum(r[1] for r in results) / n_samples
    ):
        raise ValueError(
            "The rows of the Dask array X lie far from the origin: their mean "
            "is more than 10^4 times their spread away from it, where the fit "
            "would lose the clusters to rounding. Centre X first (X - "
            "X.mean(axis=0)), which does not change the clustering; in-memory "
            "fits do so themselves."
        )
    return mean


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
        return nearest_centre_signs(
            blocks, best_kmeans_centres(blocks, 2, random_state, 1)
        )
    if method == "pca":
        projections = blocks.principal_projections
    else:
        direction = random_state.standard_normal(blocks.shape[1])
        projections = np.concatenate(blocks.map(_projections, direction))
    signs = median_split(projections)
    return blocks.states(signs), int(np.count_nonzero(signs > 0))


def nearest_centre_signs(blocks, centres):
    """The signs of :func:`initial_signs` from two centres: +1 where the
    second is nearer (see :func:`mmc._starts.nearest_signs`); one pass."""
    rel = relative_rounding_bound(blocks.shape[1])
    labels = np.concatenate(blocks.map(_nearest_labels, centres, rel))
    signs = np.where(labels == 1, 1, -1).astype(np.int8)
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
    """Sum and largest of the squared norms of a block's rows (float64);
    the norms become the state the k-means passes start from
    (:func:`_kernel_block`)."""
    _, norms, _ = rounding_scale(block)
    return (norms, None), (float(norms.sum()), float(norms.max(initial=0.0)))


def _kernel_block(block, state):
    """The block as the kernels read it, its rows' squared norms and the
    rest of a state ``(norms, rest)``: the norms are kept in the states of
    the passes of the k-means runs, computed once by :func:`_norm_summary`
    (their float64 conversion took 47 ms a pass on 262,144 float32 rows of
    50 features, the distances to ten centres 95 ms)."""
    if state is None:
        X, norms, _ = rounding_scale(block)
        return X, norms, None
    norms, rest = state
    return kernel_rows(block), norms, rest


def _fold_distances(block, state, shared):
    """The state of the seeding of several runs on a block (runs by rows):
    each row's squared distance to the nearest centre of each run so far,
    that of its newest centre (one row per run) folded in, as the
    in-memory seeding's kernel computes it; and each run's sum of the
    block's distances in the order of the rows (the last of their
    cumulative sums, see :func:`_seeded_runs`). The state keeps the rows'
    norms (:func:`_kernel_block`)."""
    newest, newest_norms, rel = shared  # runs by features
    X, norms, closest = _kernel_block(block, state)
    if closest is None:
        closest = np.full((newest.shape[0], X.shape[0]), np.inf)
    folded = np.empty_like(closest)
    for run in range(closest.shape[0]):
        seed_distances(
            *rows(X),
            norms,
            newest[run].reshape(-1, 1),
            newest_norms[run : run + 1],
            rel,
            closest[run],
            folded[run : run + 1],
        )
    if not folded.shape[1]:  # an empty block (sparse chunks are kept as given)
        return (norms, folded), np.zeros(folded.shape[0])
    return (norms, folded), np.cumsum(folded, axis=1)[:, -1]


def _rows_at_draws(block, state, offsets, runs, draws):
    """The rows of a block where the draws fall, dense float64: for each
    ``(run, draw)``, the first row whose cumulative distance (the run's
    ``offset`` plus its cumulative sum in the block) reaches the draw."""
    _, closest = state
    found = np.empty(len(runs), dtype=np.intp)
    for run in np.unique(runs):
        cumulative = offsets[run] + np.cumsum(closest[run])
        of_run = runs == run
        found[of_run] = np.searchsorted(cumulative, draws[of_run])
    taken = block[found]
    taken = taken.toarray() if sp.issparse(taken) else taken
    return np.asarray(taken, dtype=np.float64)


def _candidate_potentials(block, state, shared):
    """For each run and each of its candidates, the block's sum of the
    squared distances to the nearest centre once the candidate is added."""
    candidates_T, candidate_norms, rel = shared  # runs by candidates
    X, norms, closest = _kernel_block(block, state)
    n_runs, n_candidates = candidate_norms.shape
    sums = np.empty((n_runs, n_candidates))
    D = np.empty((n_candidates, X.shape[0]))
    for run in range(n_runs):
        seed_distances(
            *rows(X),
            norms,
            np.ascontiguousarray(candidates_T[:, run]),
            candidate_norms[run],
            rel,
            closest[run],
            D,
        )
        sums[run] = D.sum(axis=1)
    return None, sums


def _lloyd_block(block, states, shared):
    """A Lloyd step of several k-means runs on a block, the rows' norms
    computed once. For each run with centres (None: a run that has ended),
    the nearest centre of each row (ties within rounding to the first),
    the per-cluster sums and counts, the number of changed labels and the
    sum of ``|x|^2 + (|c|^2 - 2 x.c)`` at the nearest centre (the inertia).

    A stepping run keeps Hamerly's bounds (:class:`mmc._kmeans.LloydBounds`,
    16 bytes a row) with its labels in its state, and rows they prove to
    keep their label are not compared with the centres: the same labels and
    sums, but the inertia of those rows is stale. A run's last pass
    (``final``) compares every row, for its inertia. The state is each
    run's labels and bounds (None once it has ended), with the rows' norms
    (:func:`_kernel_block`)."""
    centres_of_runs, rel = shared
    X, norms, states = _kernel_block(block, states)
    if states is None:
        states = [None] * len(centres_of_runs)
    new_states, results = [], []
    for state, run in zip(states, centres_of_runs):
        if run is None:
            new_states.append(None)
            results.append(None)
            continue
        centres, final = run
        k = centres.shape[0]
        if state is None:
            labels, bounds = None, LloydBounds(*X.shape)
        else:
            # (Copies: a task must not change its inputs, which Dask may
            # hand to it again.)
            labels, bounds = state[0].copy(), copy.deepcopy(state[1])
        sums = np.zeros((k, X.shape[1]))
        new, nearest, changed = _nearest_centres(
            X, norms, centres, rel, sums, labels, bounds=None if final else bounds
        )
        inertia = float(np.maximum(norms + nearest, 0.0).sum()) if final else None
        new_states.append(None if final else (new, bounds))
        results.append((sums, np.bincount(new, minlength=k), changed, inertia))
    return (norms, new_states), results


def _norm_summary(blocks):
    """The per-block states holding the rows' squared norms (those the
    k-means passes start from), the sum and the largest of the norms, and
    the relative rounding bound of the squared distances; one pass."""
    states, stats = blocks.step(_norm_stats, None)
    norm_sum = sum(s[0] for s in stats)
    top_norm = max(s[1] for s in stats)
    return states, norm_sum, top_norm, relative_rounding_bound(blocks.shape[1])


def _draw_rows(blocks, states, ends, targets):
    """The rows where each run's draws fall in the cumulative sum of its
    distances over all rows (runs by draws by features, dense float64), in
    one compute that reads only the blocks the draws fall in.

    ``states`` are the seeding's (:func:`_fold_distances`), ``ends``
    the ends of each block's share of the cumulative sums (blocks by runs),
    ``targets`` the draws (runs by draws) in units of the distances. A
    run's cumulative sum is taken block by block, each block's from the end
    of the block before it (the blocks' sums added in their order), so
    that it never decreases and ends at the run's potential.
    """
    offsets = np.vstack([np.zeros((1, ends.shape[1])), ends[:-1]])
    runs = np.repeat(np.arange(targets.shape[0]), targets.shape[1])
    draws = targets.ravel()
    # The first block whose share ends at or beyond the draw; empty blocks,
    # whose share ends where the one before ends, are passed over.
    filled = np.flatnonzero(np.asarray(blocks.sizes) > 0)
    owner = filled[
        [np.searchsorted(ends[filled, run], draw) for run, draw in zip(runs, draws)]
    ]
    call = blocks.dask.delayed(_rows_at_draws, pure=True)
    tasks = [
        call(
            blocks.dask.delayed(prepare_block)(
                blocks.blocks[b], blocks.dtype, blocks.sparse
            ),
            states[b],
            offsets[b],
            runs[owner == b],
            draws[owner == b],
        )
        for b in np.unique(owner)
    ]
    taken = np.empty((len(draws), blocks.shape[1]))
    for b, block_rows in zip(np.unique(owner), compute(blocks.dask, tasks)):
        taken[owner == b] = block_rows
    return taken.reshape(targets.shape + (blocks.shape[1],))


def _seeded_runs(blocks, n_clusters, draws, states, norm_sum, top_norm, rel):
    """The greedy k-means++ seedings of :func:`mmc._kmeans.stable_kmeans`
    drawn as ``draws`` (one :func:`mmc._kmeans.seeding_draws` per run), all
    runs in the same passes over the blocks, from the ``states`` and the
    statistics of :func:`_norm_summary`: the centres of each run, rows of X
    dense float64.

    Three computes a centre after the first, whatever the number of runs
    (one run alone took four, and brought ``3 + log k`` floats a row to the
    driver): the distances to each run's newest centre folded into the
    state (one float a row per run, on the workers), the rows at the
    draws, and the candidates' potentials. The draws fall in the
    cumulative distances taken block by block and the potentials are sums
    of the blocks' sums (:func:`_draw_rows`), which round otherwise than
    the sums over all rows in memory: a draw or a tie of the candidates
    within rounding of a boundary could go the other way, as between CPUs
    in memory.
    """
    n_samples = blocks.shape[0]
    centres = [[row] for row in dense_rows(blocks, [first for first, _ in draws])]
    for c in range(1, n_clusters):
        newest = np.array([run[-1] for run in centres])
        newest_norms = np.einsum("ij,ij->i", newest, newest)
        states, totals = blocks.step(_fold_distances, states, newest, newest_norms, rel)
        ends = np.cumsum(np.array(totals), axis=0)  # (blocks, runs)
        targets = np.array([u[c - 1] for _, u in draws]) * ends[-1][:, None]
        candidates = _draw_rows(blocks, states, ends, targets)
        candidate_norms = np.einsum("ijk,ijk->ij", candidates, candidates)
        candidates_T = np.ascontiguousarray(candidates.transpose(2, 0, 1))
        sums = blocks.map(
            _candidate_potentials, candidates_T, candidate_norms, rel, states=states
        )
        for run, run_potentials in enumerate(sum(sums)):
            tol = seeding_tolerance(rel, norm_sum, n_samples, top_norm, run_potentials)
            best = int(first_near_minimum(run_potentials, tol, axis=0))
            centres[run].append(candidates[run, best])
    return [np.array(run) for run in centres]


def kmeans_plusplus_centres(blocks, n_clusters, random_state):
    """:func:`mmc._kmeans.stable_kmeans` seeding only (``max_iter=0``) on the
    blocks."""
    draws = [seeding_draws(random_state, blocks.shape[0], n_clusters)]
    return _seeded_runs(blocks, n_clusters, draws, *_norm_summary(blocks))[0]


def _lloyd_runs(blocks, centres, rel, states=None):
    """The Lloyd steps of :func:`mmc._kmeans.stable_kmeans` for each run of
    ``centres`` (seeded; updated in place), every run's step in the same
    pass over the blocks, from the ``states`` of :func:`_norm_summary` if
    given; returns the inertias.

    A run steps until no label changes, or ``_KMEANS_MAX_ITER`` times,
    with Hamerly's bounds as in memory, then makes one pass comparing every
    row for the inertia at its last centres (as in memory) and leaves the
    passes: each run makes its own steps, with its own labels, as one run
    alone would; only the passes are shared. The Lloyd steps of the ten runs
    of CPM3C's start on 10^6 x 50 float32 rows persisted on two workers took
    2.5-2.9 s with shared passes, 1.8 s with the bounds and the norms kept
    in the states (k = 10: 264 -> 190 s, where the whole ten runs take
    86-94 s in memory on two threads; bench/dask/kmeans_start.md).
    """
    n_runs = len(centres)
    inertias = [None] * n_runs
    n_steps = [0] * n_runs
    final = [False] * n_runs
    while any(inertia is None for inertia in inertias):
        stepping = [
            (c, f) if i is None else None for c, f, i in zip(centres, final, inertias)
        ]
        states, results = blocks.step(_lloyd_block, states, stepping, rel)
        for run in range(n_runs):
            if inertias[run] is not None:
                continue
            parts = [result[run] for result in results]
            if final[run]:
                inertias[run] = sum(p[3] for p in parts)
                continue
            if sum(p[2] for p in parts) == 0:
                final[run] = True
                continue
            sums = sum(p[0] for p in parts)
            counts = sum(p[1] for p in parts)
            filled = counts > 0
            centres[run][filled] = sums[filled] / counts[filled, None]
            n_steps[run] += 1
            final[run] = n_steps[run] == _KMEANS_MAX_ITER
    return inertias


def best_kmeans_centres(blocks, n_clusters, random_state, n_runs):
    """:func:`mmc._kmeans.best_kmeans_centres` on the blocks.

    The runs draw their seeding from ``random_state`` one after the other,
    as in memory; their Lloyd steps draw nothing and share the passes
    (:func:`_lloyd_runs`)."""
    n_samples = blocks.shape[0]
    states, norm_sum, top_norm, rel = _norm_summary(blocks)
    draws = [seeding_draws(random_state, n_samples, n_clusters) for _ in range(n_runs)]
    runs = _seeded_runs(blocks, n_clusters, draws, states, norm_sum, top_norm, rel)
    inertias = _lloyd_runs(blocks, runs, rel, states)
    bounds = [
        inertia_bound(rel, norm_sum, n_samples, centres, inertia)
        for centres, inertia in zip(runs, inertias)
    ]
    return best_run(runs, inertias, bounds)
