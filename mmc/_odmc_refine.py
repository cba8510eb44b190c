"""ODMC's descent on the unrelaxed problem from several starts.

The minimax relaxation of :mod:`mmc._odmc_relaxed` is loose (a mixture of
labellings fits better than any one of them, far better on kernel
features), so ODMC solves the paper's ``min_y min_w`` itself:
:func:`refine_labelling` descends from a start by alternating ODM on a
labelling with the labelling of lowest loss at the fitted margins, and
:func:`refine_search` runs it from several starts and keeps the lowest
objective (see :mod:`mmc._odmc`).
"""

import numpy as np

from mmc._labelling import balance_bound, balanced_signs, median_split
from mmc._odmc_relaxed import (
    MAX_STEPS_PER_SET,
    LabellingWorkingSet,
    hyperplane,
    relaxed_solution,
    visiting_order,
)
from mmc._rows import column_means, decision_values
from mmc._seeds import draw_seeds
from mmc._starts import principal_directions

# The starts of the search: the relaxed solution, splits along this many
# principal directions of the (mapped) data and, with a kernel, the relaxed
# solutions under the kernel raised to these powers (the best of runs from
# these initialisations); each start is refined by at most MAX_REFINE_ROUNDS
# relabellings, on at most SEARCH_SAMPLES samples.
N_SPECTRAL_SPLITS = 4
SHARPENING_POWERS = (3, 5)
MAX_REFINE_ROUNDS = 30
SHARP_METHODS = ("pca", "kmeans", "random", "random")
SEARCH_SAMPLES = 2000


def huber_losses(deviations, curvature, tau):
    """``max_{0 <= a <= tau} a d - curvature a^2 / 2`` for each deviation d.

    The conjugate of the dual's box: ``d^2 / (2 curvature)`` up to the knee
    ``d = curvature tau``, linear beyond it, 0 for ``d <= 0``.
    """
    d = np.maximum(deviations, 0.0)
    if not np.isfinite(tau):
        return d * d / (2 * curvature)
    knee = curvature * tau
    return np.where(
        d <= knee, d * d / (2 * curvature), tau * (d - knee) + 0.5 * curvature * tau**2
    )


def margin_losses(margins, theta, nu, tau):
    """Loss of ODM at each margin ``y_i f(x_i)`` (per sample, in units of lam / n)."""
    c1 = 0.5 * (1 - theta) ** 2
    return huber_losses(1 - theta - margins, c1, tau) + huber_losses(
        margins - 1 - theta, c1 / nu, tau
    )


def solve_labelling(ws, *, tol, rng):
    """Coordinate epochs on alpha for the single labelling of ``ws``.

    Stops when the duality gap falls below ``tol`` (relative to the value)
    or after ``MAX_STEPS_PER_SET`` epochs. Returns the number of epochs,
    the value ``G(alpha, y) / lam`` and the gap.
    """
    n_samples = ws.X.shape[0]
    for n_steps in range(1, MAX_STEPS_PER_SET + 1):
        ws.epoch(visiting_order(n_samples, rng))
        values = ws.values()
        upper, lower = ws.gap(values)
        if upper - lower <= tol * max(abs(float(values[0])), 1e-12):
            break
    return n_steps, float(values[0]), max(upper - lower, 0.0)


def refine_labelling(ws, y, *, bound, tol, rng):
    """Descent on the unrelaxed objective from labelling ``y``.

    Alternates the two minimisations of ``min_y min_w``: ODM on the current
    labelling (``ws`` holds it alone, with weight 1), then the labelling of
    lowest loss at the fitted margins, ``y_i = argmin_s loss(s f(x_i))`` with
    the class balance repaired at the least cost. Neither step increases the
    objective; it stops when the labelling repeats, or after
    ``MAX_REFINE_ROUNDS`` relabellings. The dual variables are kept from one
    labelling to the next as a warm start.

    Out of rounds, the descent counts as settled when its last round lowered
    the objective by less than ``tol`` (relative): each ODM is solved to a
    duality gap of ``tol`` relative to its value, so smaller changes cannot
    be told from the solver's error. From starts far from a cluster
    boundary the labelling can drift by a few samples a round through all
    the rounds, the objective moving by 0.1-0.5 % up and down (the linear
    kernel on even min-max scaled blobs); stopping such drifts at the first
    round that gained less than ``tol`` lost accuracy on generated tabular
    data (``bench/studies/odmc_refine.md``).

    Returns
    -------
    result : dict
        As :func:`mmc._odmc_relaxed.relaxed_run`.
    """
    ws.add(y, 1.0)
    signs = np.empty_like(y)
    n_iter = 0
    previous = np.inf
    for n_rounds in range(1, MAX_REFINE_ROUNDS + 1):
        n_steps, value, gap = solve_labelling(ws, tol=tol, rng=rng)
        n_iter += n_steps
        stalled = value > previous - tol * abs(previous)
        previous = value
        decision = ws.decision()
        gains = margin_losses(-decision, ws.theta, ws.nu, ws.tau) - margin_losses(
            decision, ws.theta, ws.nu, ws.tau
        )
        balanced_signs(gains, bound, ties=decision, out=signs)
        converged = np.array_equal(signs, ws.Y[:, 0])
        if converged or n_rounds == MAX_REFINE_ROUNDS:
            # Out of rounds, ws keeps the labelling that value belongs to.
            converged = converged or stalled
            break
        ws.Y[:, 0] = signs
        ws.refresh()
    return {"objective": value, "gap": gap, "n_iter": n_iter, "converged": converged}


def refine_search(X, ws, result, *, kernel_map, lam, bound, settings, random_state):
    """The best labelling of the unrelaxed problem found by descent from
    several starts (see :mod:`mmc._odmc`).

    Parameters
    ----------
    X : {ndarray, CSR matrix}
        The validated training samples (their kernel matrix if the kernel is
        precomputed), from which the sharpened features are computed.

    ws, result
        The relaxed solution on the kernel's features of X, and its result.

    kernel_map : KernelFeatureMap or None
        The fitted feature map; None for the linear kernel, which has no
        sharpened runs (its powers are not linear kernels).

    lam : float
        The estimator's lam (not yet divided by the spread of the data).

    bound : int
        The balance bound on all samples.

    settings : Settings
        The estimator's settings of the runs.

    random_state : numpy.random.RandomState
        The search's generator; it draws one seed per stage of the search.

    Returns
    -------
    ws, result
        The working set holding the best labelling alone, and its result.
    """
    features = ws.X
    n_samples = features.shape[0]
    powers = SHARPENING_POWERS if kernel_map is not None else ()
    n_starts = 1 + N_SPECTRAL_SPLITS + len(powers)
    # Every stage draws from a generator of its own, so that rounding
    # differences in one (sparse against dense input) cannot change the
    # random draws of the others: the subsample, the principal
    # directions, each sharpened run and its refinement, the refinement
    # of each start and the last one on all samples.
    n_sharp_runs = len(SHARP_METHODS) * len(powers)
    n_seeds = 3 + 2 * n_sharp_runs + n_starts
    seeds = iter(draw_seeds(random_state, n_seeds))
    n_iter = result["n_iter"]

    def refine(X, x_mean, lam, offset_sq, start, bound):
        candidate = LabellingWorkingSet(
            X,
            x_mean,
            lam,
            settings.nu,
            settings.theta,
            settings.tau,
            capacity=1,
            offset_sq=offset_sq,
        )
        refined = refine_labelling(
            candidate,
            start,
            bound=bound,
            tol=settings.tol,
            rng=np.random.RandomState(next(seeds)),
        )
        return candidate, refined

    def signs(working_set, bound, X=None):
        decision = hyperplane(working_set, bound, X)[2]
        return np.where(decision > 0, 1, -1).astype(np.int8)

    # The search runs on at most SEARCH_SAMPLES samples; on more, its winner
    # is extended to every sample by its hyperplane and refined once more on
    # all of them.
    rows = np.random.RandomState(next(seeds)).permutation(n_samples)
    rows = np.sort(rows[:SEARCH_SAMPLES])
    subsample = rows.size < n_samples
    search = features[rows] if subsample else features
    search_mean = column_means(search)
    search_bound = balance_bound(settings.class_balance, rows.size)

    starts = [signs(ws, bound)[rows]]
    directions = principal_directions(
        search, search_mean, N_SPECTRAL_SPLITS, np.random.RandomState(next(seeds))
    )
    starts += [
        median_split(decision_values(search, direction, 0.0))
        for direction in directions
    ]
    for power in powers:
        # Under the sharper kernel the clusters that follow the shape of the
        # data have a wider basin. The runs there are less regularised
        # (lam / power: the sharper kernel spreads the data over more
        # directions); the best of them, refined there, is refined again
        # below under the kernel itself.
        sharpened = kernel_map.sharpened_features(X, power, rows)
        best_sharp = None
        for method in SHARP_METHODS:
            sharp_ws, sharp_result = relaxed_solution(
                sharpened,
                lam=lam / power,
                bound=search_bound,
                settings=settings,
                random_state=np.random.RandomState(next(seeds)),
                methods=[method],
            )
            refined_ws, refined = refine(
                sharpened,
                sharp_ws.x_mean,
                sharp_ws.lam,
                sharp_ws.offset_sq,
                signs(sharp_ws, search_bound),
                search_bound,
            )
            n_iter += sharp_result["n_iter"] + refined["n_iter"]
            if best_sharp is None or refined["objective"] < best_sharp[1]:
                best_sharp = refined_ws.Y[:, 0].copy(), refined["objective"]
        starts.append(best_sharp[0])

    best = None
    for start in starts:
        candidate, refined = refine(
            search, search_mean, ws.lam, ws.offset_sq, start, search_bound
        )
        n_iter += refined["n_iter"]
        # Ties go to the earlier start.
        if best is None or refined["objective"] < best[1]["objective"]:
            best = candidate, refined
    if subsample:
        start = signs(best[0], bound, features)
        best = refine(features, ws.x_mean, ws.lam, ws.offset_sq, start, bound)
        n_iter += best[1]["n_iter"]
    if settings.verbose:
        print(
            f"[ODMC] refined {len(starts)} labellings; objective "
            f"{best[1]['objective']:.6g}"
        )
    best[1]["n_iter"] = n_iter
    return best
