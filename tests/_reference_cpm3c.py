"""NumPy twins of the kernels of CPM3C's coordinate descent
(``mmc._core._crammer_singer``) and of the size floors' auction
(``mmc._core._balance``); re-exported by ``_reference``."""

import numpy as np


def _dense64(X):
    return np.asarray(X.toarray() if hasattr(X, "toarray") else X, dtype=np.float64)


def xorshift_orders(seed, n_samples, n_epochs, segment_rows=1 << 16, n_rounds=1):
    """Helper: the visiting orders of ``_crammer_singer.dual_epochs``, one per
    epoch: the rows in segments of ``segment_rows``, each shuffled by
    Fisher-Yates driven by Marsaglia's xorshift32 of its own (segment j
    seeded with ``seed + j * 2654435769``, as ``_seed_state`` seeds it);
    each epoch shuffles the previous order, then visits round r of
    ``n_rounds``: the r-th equal part of every segment's order, segment
    after segment."""
    mask = 0xFFFFFFFF
    segments = [
        list(range(first, min(first + segment_rows, n_samples)))
        for first in range(0, n_samples, segment_rows)
    ]
    states = []
    for j in range(len(segments)):
        state = (seed + j * 2654435769) & mask
        states.append(state if state != 0 else 2463534242)
    orders = []
    for _ in range(n_epochs):
        for j, order in enumerate(segments):
            state = states[j]
            for position in range(len(order) - 1, 0, -1):
                state ^= (state << 13) & mask
                state ^= state >> 17
                state ^= (state << 5) & mask
                other = (state * (position + 1)) >> 32
                order[position], order[other] = order[other], order[position]
            states[j] = state
        orders.append(
            [
                i
                for r in range(n_rounds)
                for order in segments
                for i in order[
                    len(order) * r // n_rounds : len(order) * (r + 1) // n_rounds
                ]
            ]
        )
    return orders


def crammer_singer_sample(gradient, alpha, label, A, cap):
    """Helper: the minimiser of ``A/2 |a|^2 + sum_p (g_p - A alpha_p) a_p``
    over ``a_p <= cap [p = label]``, ``sum_p a_p = 0``, by bisection on the
    multiplier beta of the sum (``a_p = min(c_p, (beta - b_p) / A)`` is
    non-decreasing in beta), not by sorting as the kernel does."""
    b = gradient - A * alpha
    bound = np.zeros_like(b)
    bound[label] = cap

    def total(beta):
        return np.minimum(bound, (beta - b) / A).sum()

    low, high = b.min() - 1.0, b.max() + A * cap + 1.0
    while total(low) > 0:
        low -= 2 * (high - low)
    for _ in range(200):
        middle = 0.5 * (low + high)
        if total(middle) > 0:
            high = middle
        else:
            low = middle
    return np.minimum(bound, (0.5 * (low + high) - b) / A)


def crammer_singer_epochs(
    X,
    labels,
    alpha,
    U,
    s,
    cap,
    seed,
    max_epochs,
    tol,
    segment_rows=1 << 16,
    n_rounds=1,
):
    """Twin of ``_crammer_singer.dual_epochs`` on explicit centred samples.

    ``U`` (k, d + 1) holds the weights on ``z_i = (x_i - mean(x), s)`` (the
    kernel keeps them implicitly); samples are visited in the kernel's
    orders and each sample's problem is solved by
    :func:`crammer_singer_sample`. Returns (alpha, U, n_epochs, violation).
    """
    X = _dense64(X)
    n, k = alpha.shape
    Z = np.hstack([X - X.mean(axis=0), np.full((n, 1), s)])
    alpha, U = alpha.copy(), U.copy()
    violation, n_epochs = 0.0, 0
    for order in xorshift_orders(seed, n, max_epochs, segment_rows, n_rounds):
        violation = 0.0
        for i in order:
            A = Z[i] @ Z[i]
            if A <= 0:
                continue
            gradient = U @ Z[i] + (np.arange(k) != labels[i])
            free = (alpha[i] < 0) | ((np.arange(k) == labels[i]) & (alpha[i] < cap))
            if free.any():
                violation = max(violation, gradient.max() - gradient[free].min())
            if not free.any() or gradient.max() - gradient[free].min() <= 1e-12:
                continue
            new = crammer_singer_sample(gradient, alpha[i], labels[i], A, cap)
            U += np.outer(new - alpha[i], Z[i])
            alpha[i] = new
        n_epochs += 1
        if violation <= tol:
            break
    return alpha, U, n_epochs, violation


def bound_prices(scores, lower, upper, max_rounds):
    """Twin of ``_balance.bound_prices`` in NumPy: the auction of
    :func:`mmc._balance.bound_prices`, with full sorts' order statistics
    taken by ``np.partition``; returns the prices."""
    n_samples, n_clusters = scores.shape
    prices = np.zeros(n_clusters)
    rows = np.arange(n_samples)
    others = ~np.eye(n_clusters, dtype=bool)
    for _ in range(max_rounds):
        shifted = scores + prices
        assignment = np.argmax(shifted, axis=1)
        counts = np.bincount(assignment, minlength=n_clusters)
        short, over = lower - counts, counts - upper
        if short.max() <= 0 and over.max() <= 0:
            break
        if short.max() >= over.max():
            cluster = int(np.argmax(short))
            m = int(np.ceil(short[cluster]))
            outside = assignment != cluster
            # How far each other sample's best shifted score is above its
            # score for the cluster: the rise that brings it in.
            steps = shifted[rows, assignment][outside] - shifted[outside, cluster]
            sign = 1.0
        else:
            cluster = int(np.argmax(over))
            m = int(np.ceil(over[cluster]))
            inside = assignment == cluster
            runner_up = shifted[inside][:, others[cluster]].max(axis=1)
            steps = shifted[inside, cluster] - runner_up
            sign = -1.0
        # The m-th and (m + 1)-th smallest steps (a partial sort).
        if m < steps.size:
            steps = np.partition(steps, (m - 1, m))
            beyond = steps[m]
        else:
            steps = np.partition(steps, m - 1)
            beyond = steps[m - 1] + 1.0
        if steps[m - 1] + beyond == 0.0:  # tied samples: no price moves them
            break
        prices[cluster] += sign * 0.5 * (steps[m - 1] + beyond)
    return prices
