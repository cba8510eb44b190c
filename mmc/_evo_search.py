"""The search of the least-squares MMC methods: a (mu + lambda) evolution.

The fitness of a labelling y is ``F(y) = 1 - (1/n) sum_j w_j (V'y)_j^2`` on
the :class:`mmc._evo_basis.Basis` of the kernel matrix. A run keeps a
population of labellings within the class balance, each with its
coordinates ``u = V'y``; each generation draws children by flipping labels
(a flip that would break the balance is paired with the flip of a sample of
the opposite label), at O(r) per flipped label and per fitness, and keeps
the best. The loop itself runs in ``mmc._core._evo``; this module makes the
initial populations (random, or spectral starts improved by large moves,
:func:`ascend`), runs one evolution and reads the threshold of the
predictor off the winner.
"""

from collections import namedtuple

import numpy as np

from mmc._core._evo import evolve, fitness
from mmc._labelling import balanced_signs, median_split, random_balanced_labels
from mmc._threads import raise_if_stopped

RunResult = namedtuple(
    "RunResult", ["labels", "coordinates", "objective", "n_generations", "seed"]
)


def ascend(basis, Y, bound, max_steps=50):
    """Lower the fitness of labellings by steps ``y <- balanced_signs(G y)``.

    With ``G = V diag(w) V'`` the fitness is ``1 - y'Gy / n``, and ``y'Gy`` is
    convex: the labelling that maximises its linearisation ``y'(G y_old)``
    under the balance bound never has a worse fitness, so each step descends,
    and the steps stop at a labelling that is its own best response. Large
    moves, many labels at once: the evolution then fine-tunes.

    ``Y`` is one labelling (n_samples,) or several (k, n_samples), stepped
    together: a step costs two products with V, O(k n m), which read V once
    for all k.
    """
    V, weights = basis.V, basis.weights
    Y = np.array(Y, dtype=np.int8)
    single = Y.ndim == 1
    Y = np.atleast_2d(Y)
    active = np.arange(Y.shape[0])
    for _ in range(max_steps):
        if active.size == 0:
            break
        raise_if_stopped()
        scores = ((Y[active].astype(np.float64) @ V) * weights) @ V.T
        moved = []
        for k, i in enumerate(active):
            new = balanced_signs(scores[k], bound)
            if not np.array_equal(new, Y[i]):
                Y[i] = new
                moved.append(i)
        active = np.array(moved, dtype=np.intp)
    return Y[0] if single else Y


def initial_population(basis, size, rng, method, bound):
    """Initial labellings of one run, each with ``|sum y| <= bound``.

    ``"random"``: random balanced labellings (the paper). ``"spectral"``:
    median splits of random functions of the kernel's space (Gaussian
    coordinates on its eigenvectors, scaled by the square roots of the
    eigenvalues, so that the leading components dominate), each improved by
    :func:`ascend`.
    """
    n_samples = basis.V.shape[0]
    if method == "random":
        return np.stack([random_balanced_labels(n_samples, rng) for _ in range(size)])
    scale = np.sqrt(basis.sigma)
    directions = rng.standard_normal((basis.V.shape[1], size)) * scale[:, None]
    P = basis.V @ directions
    starts = np.stack([median_split(P[:, k]) for k in range(size)])
    return ascend(basis, starts, bound)


def evolution_run(
    basis,
    population,
    *,
    n_offspring,
    bound,
    first_size,
    max_generations,
    patience,
    seed,
):
    """One (mu + lambda) run from an initial population.

    Parameters
    ----------
    basis : Basis
        The kernel matrix, see :mod:`mmc._evo_basis`.

    population : ndarray of shape (mu, n_samples), dtype=int8
        Initial labellings, each with ``|sum y| <= bound``; overwritten.

    n_offspring, bound, first_size, max_generations, patience
        See :func:`mmc._core._evo.evolve`.

    seed : int
        Seed of the mutations.

    Returns
    -------
    result : RunResult
        The best individual, its coordinates ``V'y`` recomputed from scratch
        (no rounding accumulated over the flips) and its fitness.
    """
    V, weights = basis.V, basis.weights
    n_samples = V.shape[0]
    # Exact on the fixed-point basis, whatever the BLAS (see
    # mmc._evo_basis.fixed_point); the fitnesses come from the same kernel as
    # those of the children.
    U = np.ascontiguousarray(population @ V, dtype=np.float64)
    F = np.array([fitness(weights, u, n_samples) for u in U])
    n_generations = evolve(
        V,
        weights,
        population,
        U,
        F,
        n_offspring=n_offspring,
        bound=bound,
        first_size=first_size,
        max_generations=max_generations,
        patience=patience,
        tol=0.0,
        seed=seed,
    )
    if n_generations < 0:
        raise MemoryError("Could not allocate the scratch memory of the evolution.")
    best = int(np.argmin(F))
    labels = population[best].copy()
    u = labels @ V
    objective = fitness(weights, u, n_samples)
    return RunResult(labels, u, objective, n_generations, seed)


def fitted_threshold(decision, labels):
    """Threshold b on the least-squares predictions that best reproduces labels.

    Returns the midpoint of the widest gap among the thresholds that make
    ``sign(decision - b)`` disagree with the +1 / -1 ``labels`` on the fewest
    samples. At a labelling that no single flip or swap improves the
    predictions of the two clusters do not overlap, and the labels are
    reproduced exactly.
    """
    order = np.argsort(decision, kind="stable")
    f = decision[order]
    positive = labels[order] > 0
    # Threshold between f[k-1] and f[k]: samples before it are predicted -1.
    # Errors = positives before + negatives from k on.
    pos_before = np.concatenate([[0], np.cumsum(positive)])
    neg_after = np.concatenate([np.cumsum((~positive)[::-1])[::-1], [0]])
    errors = pos_before + neg_after
    lower = np.concatenate([[f[0] - 1.0], f])
    upper = np.concatenate([f, [f[-1] + 1.0]])
    candidates = np.flatnonzero(errors == errors.min())
    k = candidates[np.argmax(upper[candidates] - lower[candidates])]
    return 0.5 * (lower[k] + upper[k])


def repair_balance(y, bound, random_state):
    """Flip random samples of the majority label until ``|sum y| <= bound``."""
    y = y.copy()
    excess = int(y.sum(dtype=np.int64))
    if abs(excess) <= bound:
        return y
    majority = 1 if excess > 0 else -1
    n_flips = (abs(excess) - bound + 1) // 2
    candidates = np.flatnonzero(y == majority)
    y[random_state.choice(candidates, n_flips, replace=False)] = -majority
    return y
