"""The size floors met where their auction stalls: shortest augmenting paths.

The auction of :func:`mmc._balance.bound_prices` raises one short
cluster's price at a time. Where several clusters below their floor take
samples from each other, each round moves a sample or two: 47,151 rounds
for three clusters of 400 samples, 14,328 for eight topics of documents
(``bench/studies/balance_paths.md``); at its cap of 50 rounds per cluster
the floors were left unmet by a sample or more. The same assignment (the
best total score with every cluster at its floor) is reached from where the
auction stopped by the successive shortest paths of minimum-cost flow:
while a cluster is short, the cheapest chain of moves that brings it one
sample from a cluster above its floor (a shortest path over the k
clusters, by Dijkstra's method, the cost of a move being how much of the
sample's shifted score it gives up), with the prices raised so that every
move's cost stays non-negative. Each path fills one sample, one pass over
the scores each: the auction's remaining shortfall, a few samples.

Both keep the conditions of the best assignment: every cluster whose price
rose holds exactly its floor (rounded up), every other keeps price 0 and at
least its floor. The prices returned are then taken strictly inside the
range that reproduces the assignment (each price of a cluster at its
floor moved in turn to the middle of its own range, a few sweeps over the
clusters: :func:`interior_prices`), so that the best shifted score of
every sample is unique and the estimator's own assignment, the first of
equal maxima, gives the same clusters.
"""

import math

import numpy as np

# Sweeps of the centring of the prices (interior_prices): each moves every
# price to the middle of its range given the others'.
CENTRING_SWEEPS = 20


def fill_floors(scores, lower, prices):
    """Prices (from the auction's ``prices``) under which the best shifted
    scores give every cluster at least ``lower`` samples, at the best total
    score.

    Parameters
    ----------
    scores : ndarray of shape (n_samples, n_clusters), dtype=float64

    lower : float
        Floor of every cluster's size, at most ``n_samples / n_clusters``.

    prices : ndarray of shape (n_clusters,)
        Prices from which the best shifted scores are the best assignment
        for their own sizes (those of the auction, or zeros), no price of a
        cluster above its floor raised.

    Returns
    -------
    prices : ndarray of shape (n_clusters,)
    """
    n_samples, n_clusters = scores.shape
    floor = math.ceil(lower)  # the auction's: a count below lower is short
    prices = np.array(prices, dtype=np.float64)
    assignment = np.argmax(scores + prices, axis=1)
    counts = np.bincount(assignment, minlength=n_clusters)
    rows = np.arange(n_samples)
    for _ in range(n_samples):
        short = np.flatnonzero(counts < floor)
        if short.size == 0:
            break
        givers = np.flatnonzero(counts > floor)
        if givers.size == 0:  # the floors rounded up ask for more samples
            break
        shifted = scores + prices
        # What moving each sample to each cluster costs (>= 0; a sample
        # moved onto a tie may differ from it by a rounding).
        costs = np.maximum(shifted[rows, assignment][:, None] - shifted, 0.0)
        weights, movers = cheapest_moves(costs, assignment, n_clusters)
        target = int(short[np.argmin(counts[short])])
        distances, successors = paths_to(weights, target)
        giver = int(givers[np.argmin(distances[givers])])
        reach = distances[giver]
        raised = distances < reach
        prices[raised] += reach - distances[raised]
        cluster = giver
        while cluster != target:
            following = successors[cluster]
            assignment[movers[cluster, following]] = following
            cluster = following
        counts[giver] -= 1
        counts[target] += 1
    return interior_prices(scores, assignment, counts, floor, prices)


def cheapest_moves(costs, assignment, n_clusters):
    """For each pair of clusters (p, q), the least cost of moving a sample
    of p to q and that sample (the first of equal costs); inf and -1 where
    p is empty or p == q."""
    weights = np.full((n_clusters, n_clusters), np.inf)
    movers = np.full((n_clusters, n_clusters), -1, dtype=np.intp)
    for cluster in range(n_clusters):
        members = np.flatnonzero(assignment == cluster)
        if members.size == 0:
            continue
        first = np.argmin(costs[members], axis=0)
        weights[cluster] = costs[members[first], np.arange(n_clusters)]
        movers[cluster] = members[first]
    np.fill_diagonal(weights, np.inf)
    np.fill_diagonal(movers, -1)
    return weights, movers


def paths_to(weights, target):
    """Dijkstra's shortest paths of every cluster to ``target`` over the
    non-negative ``weights[p, q]`` of a move from p to q: the distances and
    each cluster's next cluster on its path (-1 for the target and the
    unreachable). Ties go to the lower index."""
    n_clusters = weights.shape[0]
    distances = np.full(n_clusters, np.inf)
    successors = np.full(n_clusters, -1, dtype=np.intp)
    settled = np.zeros(n_clusters, dtype=bool)
    distances[target] = 0.0
    for _ in range(n_clusters):
        open_distances = np.where(settled, np.inf, distances)
        nearest = int(np.argmin(open_distances))
        if not np.isfinite(open_distances[nearest]):
            break
        settled[nearest] = True
        through = weights[:, nearest] + distances[nearest]
        better = ~settled & (through < distances)
        distances[better] = through[better]
        successors[better] = nearest
    return distances, successors


def interior_prices(scores, assignment, counts, floor, prices):
    """Prices that reproduce ``assignment`` as the best shifted scores with
    every preference strict where the data allow: from the feasible
    ``prices``, each price of a cluster at its floor is moved, in turn, to
    the middle of the range that keeps every sample where it is given the
    others' (at least 0, the price of the clusters above their floors,
    which stay), ``CENTRING_SWEEPS`` times over the clusters."""
    n_clusters = scores.shape[1]
    # margins[p, q]: the least score advantage of a sample of p over q;
    # the assignment holds while prices[q] - prices[p] <= margins[p, q].
    margins = np.full((n_clusters, n_clusters), np.inf)
    for cluster in range(n_clusters):
        members = assignment == cluster
        if members.any():
            own = scores[members, cluster][:, None]
            margins[cluster] = (own - scores[members]).min(axis=0)
    np.fill_diagonal(margins, np.inf)
    prices = np.array(prices, dtype=np.float64)
    moving = np.flatnonzero(counts <= floor)
    if moving.size == n_clusters:  # every cluster at its floor: relative
        moving = moving[moving != np.argmin(prices)]
    base = 0.0 if moving.size < n_clusters else -np.inf
    for _ in range(CENTRING_SWEEPS):
        for cluster in moving:
            low = max(base, float(np.max(prices - margins[cluster])))
            high = float(np.min(prices + margins[:, cluster]))
            prices[cluster] = 0.5 * (low + high) if np.isfinite(high) else low + 1.0
    return prices
