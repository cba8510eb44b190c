"""Slow, obviously correct NumPy twins of the mmc._core kernels.

Each kernel in mmc/_core/_*.pyx has a function here computing the same result
with NumPy/SciPy (its docstring names the kernel); the kernel tests compare
the two. Functions marked "Helper" are shared building blocks, not twins.
Test modules import it as ``_reference`` (pyproject.toml puts tests/ on
pytest's pythonpath).
"""

import functools

import numpy as np
import scipy.sparse as sp

# The twins of mmc._core._kmeans live in their own module (this one is long).
from _reference_cpm3c import (  # noqa: F401
    bound_prices,
    crammer_singer_epochs,
    crammer_singer_sample,
    xorshift_orders,
)
from _reference_evo import (  # noqa: F401
    best_moves,
    multiclass_fitness,
    multiclass_local_search,
    spectral_fitness,
)
from _reference_kmeans import kmeans_assign, kmeans_seed_distances  # noqa: F401


def column_sums(X):
    """Column sums of a dense or sparse X, accumulated in float64.

    Twin of ``mmc._core._common.column_sums``.
    """
    if sp.issparse(X):
        return np.asarray(X.astype(np.float64).sum(axis=0)).ravel()
    return np.asarray(X, dtype=np.float64).sum(axis=0)


def _dense64(X):
    """X as a dense float64 ndarray (the references never mind the cost)."""
    if sp.issparse(X):
        return X.toarray().astype(np.float64)
    return np.asarray(X, dtype=np.float64)


# --------------------------------------------------------------------------
# mmc._core._linear


def decision_values(X, coef, intercept):
    """Decision values ``X @ coef + intercept`` in float64.

    Twin of ``mmc._core._linear.decision_values``.
    """
    return _dense64(X) @ np.asarray(coef, dtype=np.float64) + intercept


# --------------------------------------------------------------------------
# mmc._core._cpmmc


def signs_of(decision):
    """Helper: ``+1 if f_i > 0 else -1`` (zero goes to -1), as int8."""
    return np.where(np.asarray(decision) > 0, 1, -1).astype(np.int8)


def flip_signs(decision, signs):
    """New signs of ``decision`` and the sorted indices of the samples that flipped.

    Twin of ``mmc._core._cpmmc.flip_signs`` (which works in place).
    """
    new = signs_of(decision)
    return new, np.flatnonzero(new != np.asarray(signs)).astype(np.int32)


def constraint_statistics(X, constraints, n_constraints, signs, x_mean):
    """Statistics of the working set computed from scratch.

    For the first ``n_constraints`` columns c_k of the uint8 matrix
    ``constraints`` (shape (n_samples, capacity)) and the signs s, returns

        Z[k] = (1/n) sum_i c_ki s_i x_i,  sign_sums[k] = (1/n) sum_i c_ki s_i,
        gram = Z Z',                      Z_mean = Z x_mean.

    This is the state that ``mmc._core._cpmmc.apply_flips``
    must maintain incrementally (and that ``most_violated_*`` starts for one
    column); the tests check the kernels against it.
    """
    X = _dense64(X)
    n_samples = X.shape[0]
    C = np.asarray(constraints[:, :n_constraints], dtype=np.float64)
    weights = C * np.asarray(signs, dtype=np.float64)[:, None]  # (n, k)
    Z = weights.T @ X / n_samples
    sign_sums = weights.sum(axis=0) / n_samples
    return Z, sign_sums, Z @ Z.T, Z @ np.asarray(x_mean, dtype=np.float64)


def apply_flips(X, flipped, signs, constraints, n_constraints, x_mean, Z, sign_sums):
    """Statistics after the samples ``flipped`` took their new ``signs``.

    Twin of ``mmc._core._cpmmc.apply_flips``: each flipped
    sample i adds ``(2/n) s_i x_i`` to ``Z[k]`` and ``(2/n) s_i`` to
    ``sign_sums[k]`` for every constraint k (among the first
    ``n_constraints``) that contains it; ``gram`` and ``Z_mean`` are then
    recomputed as ``Z Z'`` and ``Z x_mean`` from the updated Z. Returns
    ``(Z, sign_sums, gram, Z_mean, n_updates)`` restricted to the first
    ``n_constraints`` constraints, where n_updates counts the (flipped sample,
    constraint) memberships.
    """
    X = _dense64(X)
    n_samples = X.shape[0]
    flipped = np.asarray(flipped, dtype=np.intp)
    Z = np.array(Z[:n_constraints], dtype=np.float64)
    sign_sums = np.array(sign_sums[:n_constraints], dtype=np.float64)
    members = np.asarray(constraints[flipped, :n_constraints], dtype=np.float64)
    steps = 2.0 * np.asarray(signs, dtype=np.float64)[flipped] / n_samples
    Z += (members * steps[:, None]).T @ X[flipped]
    sign_sums += members.T @ steps
    n_updates = int(members.sum())
    return Z, sign_sums, Z @ Z.T, Z @ np.asarray(x_mean, dtype=np.float64), n_updates


def most_violated(X, decision):
    """Most violated constraint at ``decision`` and its statistics.

    Twin of ``mmc._core._cpmmc.most_violated``: returns
    ``(c, z, violation, size, sign_sum)`` with ``c_i = |f_i| < 1`` (uint8),
    ``z = (1/n) sum_i c_i s_i x_i``, ``violation = (1/n) sum_i c_i (1 - |f_i|)``,
    ``size = (1/n) sum_i c_i`` and ``sign_sum = (1/n) sum_i c_i s_i``.
    """
    X = _dense64(X)
    decision = np.asarray(decision, dtype=np.float64)
    n_samples = X.shape[0]
    c = (np.abs(decision) < 1.0).astype(np.uint8)
    s = signs_of(decision).astype(np.float64)
    z = (c * s) @ X / n_samples
    violation = np.sum(c * (1.0 - np.abs(decision))) / n_samples
    return c, z, violation, c.sum() / n_samples, np.sum(c * s) / n_samples


def mean_margin_loss(decision):
    """Mean hinge loss ``(1/n) sum_i max(0, 1 - |f_i|)`` (0 for no samples).

    Twin of ``mmc._core._cpmmc.mean_margin_loss``.
    """
    decision = np.asarray(decision, dtype=np.float64)
    if decision.size == 0:
        return 0.0
    return float(np.maximum(0.0, 1.0 - np.abs(decision)).mean())


# --------------------------------------------------------------------------
# mmc._core._common


def max_affine(offsets, slopes, b):
    """Helper: ``g(b) = max(0, max_k offsets[k] - slopes[k] * b)`` (vectorised in b).

    The function that ``mmc._core._common.minimize_max_affine`` minimises.
    """
    b = np.asarray(b, dtype=np.float64)
    offsets = np.asarray(offsets, dtype=np.float64).reshape((-1,) + (1,) * b.ndim)
    slopes = np.asarray(slopes, dtype=np.float64).reshape(offsets.shape)
    return np.maximum(0.0, (offsets - slopes * b).max(axis=0, initial=-np.inf))


def minimize_max_affine(offsets, slopes, lower, upper, rtol=1e-12):
    """Minimise ``g(b) = max(0, max_k offsets[k] - slopes[k] * b)`` on [lower, upper].

    Twin of ``mmc._core._common.minimize_max_affine``; returns ``(b, g(b))``
    with b the midpoint of the set of minimisers. g is convex and piecewise
    linear, so its minimum on the interval is attained at a breakpoint (where
    two lines cross, or a line crosses zero) or at an end, and the set of
    minimisers is an interval whose ends are such points: evaluate g at all of
    them (O(n_lines^2) points). ``rtol`` decides which candidates tie with the
    minimum.
    """
    offsets = np.asarray(offsets, dtype=np.float64)
    slopes = np.asarray(slopes, dtype=np.float64)
    if offsets.size == 0:
        return 0.5 * (lower + upper), 0.0
    # Lines a_k - s_k b, plus the zero line of the outer max(0, .).
    a = np.append(offsets, 0.0)
    s = np.append(slopes, 0.0)
    candidates = [lower, upper]
    with np.errstate(divide="ignore", invalid="ignore"):
        ds = np.subtract.outer(s, s)
        crossings = np.subtract.outer(a, a) / ds  # a_k - s_k b = a_l - s_l b
    candidates.extend(crossings[np.isfinite(crossings)])
    candidates = np.asarray(candidates)
    candidates = candidates[(candidates >= lower) & (candidates <= upper)]
    values = max_affine(offsets, slopes, candidates)
    best = values.min()
    tie = values <= best + rtol * (1.0 + abs(best))
    left, right = candidates[tie].min(), candidates[tie].max()
    b = 0.5 * (left + right)
    return b, float(max_affine(offsets, slopes, b))


# --------------------------------------------------------------------------
# MultivariateMMC (mmc/_core/_multivariate.pyx)


def _table_labels(a, b, c, d):
    """Labellings (s, y') of n = a + b + c + d samples with the given table.

    Rows of the table are y' (+1 then -1), columns s (+1 then -1).
    """
    s = np.concatenate([np.ones(a), -np.ones(b), np.ones(c), -np.ones(d)])
    y = np.concatenate([np.ones(a + b), -np.ones(c + d)])
    return s, y


@functools.lru_cache(maxsize=None)
def table_loss(a, b, c, d, loss, beta=1.0):
    """Loss of a contingency table, through the public scores of mmc.metrics.

    Twin of ``mmc._core._multivariate.table_loss``: s is the reference
    labelling, y' the prediction.
    """
    from mmc import metrics

    s, y = _table_labels(a, b, c, d)
    if loss == "error":
        return 2.0 * (b + c) / (a + b + c + d)
    if loss == "nmi":
        return 1.0 - metrics.normalized_mutual_info(s, y)
    if loss == "rand":
        return 1.0 - metrics.rand_index(s, y)
    return 1.0 - metrics.pairwise_fbeta(s, y, beta=beta)


def most_violated_labelling(decision, loss, beta=1.0):
    """Brute force over all 2**n labellings y' (eq. 18), for small n.

    Twin of ``mmc._core._multivariate.most_violated_table`` (with the
    sorting done by the estimator): returns the largest
    ``loss(y', s) - (1/n) sum_i (|f_i| - y'_i f_i)`` with s = signs of f.
    """
    import itertools

    decision = np.asarray(decision, dtype=np.float64)
    n = decision.size
    s = np.where(decision > 0, 1, -1)
    best = -np.inf
    for bits in itertools.product([1, -1], repeat=n):
        y = np.array(bits)
        a = int(np.sum((y == 1) & (s == 1)))
        b = int(np.sum((y == 1) & (s == -1)))
        c = int(np.sum((y == -1) & (s == 1)))
        d = n - a - b - c
        value = table_loss(a, b, c, d, loss, float(beta)) - np.mean(
            np.abs(decision) - y * decision
        )
        best = max(best, value)
    return best


def most_violated_table(pos_prefix, neg_prefix, loss, beta=1.0):
    """Full scan of every contingency table (c, b), row by row.

    Twin of ``mmc._core._multivariate.most_violated_table``: returns the
    first (smallest c, then b) maximiser of ``loss(a, b, c, d) - (2/n)
    (pos_prefix[c] + neg_prefix[b])`` and its value. For NMI (both sides
    non-empty) and F-beta (n > 3) the loss is evaluated with the kernel's
    operations in the kernel's order, so the result must agree to the bit;
    elsewhere it comes from :func:`table_loss` (agrees to rounding).
    """
    pos_prefix = np.asarray(pos_prefix, dtype=np.float64)
    neg_prefix = np.asarray(neg_prefix, dtype=np.float64)
    n_pos, n_neg = pos_prefix.size - 1, neg_prefix.size - 1
    n = n_pos + n_neg
    scale = 2.0 / n
    k = np.arange(n + 1, dtype=np.float64)
    xl = np.zeros(n + 1)
    xl[1:] = k[1:] * np.log(k[1:])
    b = np.arange(n_neg + 1)
    exact = (loss == "nmi" and n_pos > 0 and n_neg > 0) or (loss == "fbeta" and n > 3)
    if loss == "nmi" and exact:
        side = xl[: n_neg + 1] + xl[n_neg::-1]
        row = xl + xl[::-1]
        h_true = np.log(n) - (xl[n_pos] + xl[n_neg]) / n
        normalisation = 1.0 / (0.5 * n * (h_true + (np.log(n) - row / n)))
    elif exact:
        rf = np.arange(n + 1, dtype=np.float64)
        bf = rf[: n_neg + 1]
        side = 0.5 * bf * (bf - 1) + 0.5 * bf[::-1] * (bf[::-1] - 1)
        row = 0.5 * rf * (rf - 1) + 0.5 * rf[::-1] * (rf[::-1] - 1)
        beta2 = beta * beta
        true_pairs = 0.5 * n_pos * (n_pos - 1.0) + 0.5 * n_neg * (n_neg - 1.0)
    best = (-np.inf, 0, 0)
    for c in range(n_pos + 1):
        a = n_pos - c
        base = scale * pos_prefix[c]
        if loss == "nmi" and exact:
            constant = xl[a] + xl[c] + xl[n] - xl[n_pos] - xl[n_neg]
            nmi = (constant + side - row[a + b]) * normalisation[a + b]
            nmi = np.minimum(np.maximum(nmi, 0.0), 1.0)
            values = 1.0 - nmi - base - scale * neg_prefix
        elif exact:
            both = 0.5 * a * (a - 1.0) + 0.5 * c * (c - 1.0) + side
            values = 1.0 - (1.0 + beta2) * both / (beta2 * true_pairs + row[a + b])
            values = values - base - scale * neg_prefix
        else:
            losses = [table_loss(a, int(j), c, n_neg - int(j), loss, beta) for j in b]
            values = np.array(losses) - base - scale * neg_prefix
        j = int(np.argmax(values))  # first maximum
        if values[j] > best[0]:
            best = (float(values[j]), c, j)
    return best[1], best[2], best[0]


def signed_row_sum(X, labels):
    """``(1/n) sum_i labels[i] x_i``.

    Twin of ``mmc._core._common.signed_row_sum``.
    """
    X = _dense64(X)
    return (np.asarray(labels, dtype=np.float64) @ X) / X.shape[0]


def weighted_row_sums(X, selected, weights):
    """``weights.T @ X[selected]``, in float64.

    Twin of ``mmc._core._common.weighted_row_sums``.
    """
    return np.asarray(weights, dtype=np.float64).T @ _dense64(X)[selected]


def contingency_tables(labellings, signs):
    """Helper: table (a, b, c, d) of each labelling column against the signs.

    ``labellings`` holds 1 for +1 and 0 for -1.
    """
    y = np.where(np.asarray(labellings) > 0, 1, -1)
    s = np.asarray(signs)[:, None]
    return np.stack(
        [
            np.sum((y == 1) & (s == 1), axis=0),
            np.sum((y == 1) & (s == -1), axis=0),
            np.sum((y == -1) & (s == 1), axis=0),
            np.sum((y == -1) & (s == -1), axis=0),
        ],
        axis=1,
    )


# --------------------------------------------------------------------------
# mmc._core._odmc


def odm_sample_maximiser(r_minus, q, c1, c2, theta, tau):
    """Maximiser over [0, tau]^2 of the one-sample dual, by enumeration.

    Twin of ``mmc._core._odmc.solve_sample_wrapper``. Every combination of
    active bounds is tried (each variable at 0, at tau or at the stationary
    point of the rest) and the best feasible point is kept.
    """

    def value(a1, a2):
        b = a1 - a2
        return (
            -r_minus * b
            - 0.5 * q * b * b
            - 0.5 * c1 * a1 * a1
            - 0.5 * c2 * a2 * a2
            + (1 - theta) * a1
            - (1 + theta) * a2
        )

    g = np.array([1 - theta - r_minus, -(1 + theta) + r_minus])
    H = np.array([[q + c1, -q], [-q, q + c2]])  # minus the Hessian
    candidates = []
    bounds = (0.0, tau) if np.isfinite(tau) else (0.0,)
    for a1 in bounds:
        for a2 in bounds:
            candidates.append((a1, a2))
        candidates.append((a1, (g[1] + q * a1) / (q + c2)))
    for a2 in bounds:
        candidates.append(((g[0] + q * a2) / (q + c1), a2))
    candidates.append(tuple(np.linalg.solve(H, g)))
    feasible = [
        (a1, a2)
        for a1, a2 in candidates
        if -1e-12 <= a1 <= tau * (1 + 1e-12) and -1e-12 <= a2 <= tau * (1 + 1e-12)
    ]
    return max(feasible, key=lambda a: value(*a))


def odm_statistics(X, weights, Y, n_labellings):
    """``U[k] = (1/n) X'(weights o y_k)`` and ``sigma[k] = (1/n) weights . y_k``.

    Twin of ``mmc._core._odmc.labelling_sums``.
    """
    X = _dense64(X)
    W = np.asarray(Y[:, :n_labellings], dtype=np.float64) * np.asarray(weights)[:, None]
    return W.T @ X / X.shape[0], W.sum(axis=0) / X.shape[0]


def odm_mixture_margins(X, Y, n_labellings, mu, lam, a1, a2):
    """``r_i = lam sum_k mu_k y_ik xc_i . z_k`` from scratch, xc centred rows.

    Twin of ``mmc._core._odmc.mixture_margins`` (which reads
    z_k from statistics kept up to date; here they come from a1 - a2).
    """
    X = _dense64(X)
    Xc = X - X.mean(axis=0)
    n = X.shape[0]
    Yk = np.asarray(Y[:, :n_labellings], dtype=np.float64)
    b = np.asarray(a1) - np.asarray(a2)
    Z = (Yk * b[:, None]).T @ Xc / n  # (K, d)
    return lam * ((Xc @ Z.T) * Yk) @ np.asarray(mu[:n_labellings])


def odm_margin_spread(X, Y, n_labellings, mu, lam, a1, a2, weights):
    """``spread[k] = sum_i weights_i (m_ik - r_i)^2``, from scratch.

    ``m_ik`` are the margins of labelling k alone and ``r_i`` those of the
    mixture, both from :func:`odm_mixture_margins`. Twin of the ``spread``
    output of ``mmc._core._odmc.mixture_margins``.
    """
    mixture = odm_mixture_margins(X, Y, n_labellings, mu, lam, a1, a2)
    alone = [
        odm_mixture_margins(X, Y[:, [k]], 1, [1.0], lam, a1, a2)
        for k in range(n_labellings)
    ]
    weights = np.asarray(weights, dtype=np.float64)
    return np.array([weights @ (m - mixture) ** 2 for m in alone])


def row_sq_norms(X):
    """``|x_i|^2`` of every row (not centred), in float64.

    Twin of ``mmc._core._common.row_sq_norms``.
    """
    return np.einsum("ij,ij->i", _dense64(X), _dense64(X))


def odm_coordinate_epoch(X, Y, n_labellings, mu, order, lam, theta, nu, tau, a1, a2):
    """One epoch of exact coordinate maximisation of ``sum_k mu_k G_k``.

    Twin of ``mmc._core._odmc.coordinate_epoch``: recomputes
    every ``z_k`` from scratch before each sample. Returns the new a1, a2.
    """
    X = _dense64(X)
    Xc = X - X.mean(axis=0)
    n = X.shape[0]
    a1 = np.array(a1, dtype=np.float64)
    a2 = np.array(a2, dtype=np.float64)
    c1 = 0.5 * (1 - theta) ** 2
    for i in order:
        r = odm_mixture_margins(X, Y, n_labellings, mu, lam, a1, a2)[i]
        q = lam * (Xc[i] @ Xc[i]) / n
        b = a1[i] - a2[i]
        a1[i], a2[i] = odm_sample_maximiser(r - q * b, q, c1, c1 / nu, theta, tau)
    return a1, a2


def odm_dual(X, y, alpha, lam, nu, theta):
    """The ODM dual objective G(alpha, y) of the paper (eq. 3), with K = Xc Xc'.

    ``alpha`` stacks (alpha_1, alpha_2) in the paper's units. Helper for the
    estimator tests.
    """
    X = _dense64(X)
    Xc = X - X.mean(axis=0)
    m = X.shape[0]
    y = np.asarray(y, dtype=np.float64)
    Q = (Xc @ Xc.T) * np.outer(y, y)
    H = np.block([[Q, -Q], [-Q, Q]])
    D = np.concatenate([np.ones(m), np.full(m, 1.0 / nu)])
    linear = np.concatenate([np.full(m, theta - 1.0), np.full(m, theta + 1.0)])
    return (
        -0.5 * alpha @ H @ alpha
        - m * (1 - theta) ** 2 / (4 * lam) * alpha @ (D * alpha)
        - linear @ alpha
    )


def balanced_signs(keys, ties, bound):
    """Best labelling for ``sum_i y_i keys_i`` under ``|sum y| <= bound``, brute force.

    Twin of ``mmc._core._odmc.balanced_signs`` for small n: returns the best
    objective value (the labelling itself is not unique when keys tie).
    """
    keys = np.asarray(keys, dtype=np.float64)
    n = keys.shape[0]
    best = -np.inf
    for code in range(2**n):
        y = np.array([1 if code >> i & 1 else -1 for i in range(n)])
        if abs(y.sum()) <= bound:
            best = max(best, float(y @ keys))
    return best


# --------------------------------------------------------------------------
# mmc._core._evo


def least_squares_fitness(K, y, reg):
    """Optimal value of ``min_c (1/n)|y - Kc|^2 + reg c'Kc`` by a direct solve.

    Twin of ``mmc._core._evo.fitness`` (which gets the same value from the
    coordinates of y in the eigenbasis of K): the minimiser is
    ``c = (K + n reg I)^{-1} y``.
    """
    K = np.asarray(K, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    n = y.shape[0]
    c = np.linalg.solve(K + n * reg * np.eye(n), y)
    residual = y - K @ c
    return float(residual @ residual / n + reg * c @ K @ c), c


def subset_fitness(K_nR, K_RR, y, reg):
    """Optimal value of ``min_c (1/n)|y - K_nR c|^2 + reg c'K_RR c``, c in R^r.

    The fitness of FastEvoMMC (the paper's subset of regressors, eq. 12),
    solved directly from the normal equations
    ``(K_Rn K_nR + n reg K_RR) c = K_Rn y`` by least squares (K_RR may be
    singular). Returns the value and c.
    """
    y = np.asarray(y, dtype=np.float64)
    n = y.shape[0]
    A = K_nR.T @ K_nR + n * reg * K_RR
    c = np.linalg.lstsq(A, K_nR.T @ y, rcond=1e-13)[0]
    residual = y - K_nR @ c
    return float(residual @ residual / n + reg * c @ K_RR @ c), c


def flip_labels(V, flips, y):
    """Flip ``y[flips]`` in turn and return (y, V'y) recomputed from scratch.

    Twin of ``mmc._core._evo.flip_labels``.
    """
    y = np.array(y, dtype=np.int8)
    for i in flips:
        y[i] = -y[i]
    return y, np.asarray(V, dtype=np.float64).T @ y.astype(np.float64)


def satisfies_kkt(hessian, linear, constraints, bounds, n_equalities, x, m, tol):
    """Whether ``(x, m)`` solves ``min 1/2 x'Hx - linear'x`` s.t.
    ``constraints.T @ x >= bounds`` (the first ``n_equalities`` equalities)
    to the relative tolerance ``tol``, each condition relative to its terms.

    Twin of ``mmc._core._kkt.satisfies_kkt``.
    """
    product = constraints.T @ x
    slack = product - bounds
    size = 1.0 + np.abs(bounds).max(initial=0.0) + np.abs(product).max(initial=0.0)
    if np.any(slack[n_equalities:] < -tol * size):
        return False
    if np.any(np.abs(slack[:n_equalities]) > tol * size):
        return False
    inequality = m[n_equalities:]
    m_size = 1.0 + np.abs(m).max(initial=0.0)
    if np.any(inequality < -tol * m_size):
        return False
    if np.any(np.abs(inequality * slack[n_equalities:]) > tol * size * m_size):
        return False
    hx = hessian @ x
    residual = (hx - linear) - constraints @ m
    scale = 1.0 + np.abs(linear).max() + np.abs(hx).max()
    return bool(np.abs(residual).max() <= tol * scale)


def grid_distances(products, norm_units, product_units, start):
    """Squared distances in grid units from the products of a block of rows
    with every row: ``rint(max(products * product_units + |s_i|^2 +
    |s_j|^2, 0))`` in units, 0 on the diagonal.

    Twin of ``mmc._core._graph.grid_distances``.
    """
    block = products * product_units
    block += norm_units[start : start + block.shape[0], None]
    block += norm_units[None, :]
    np.maximum(block, 0.0, out=block)
    block[np.arange(block.shape[0]), np.arange(start, start + block.shape[0])] = 0.0
    return np.rint(block)


def nearest_rows(block, start, n_nearest):
    """Each row's ``n_nearest`` nearest rows, itself first, then by distance
    with ties to the lower index (a stable sort).

    Twin of ``mmc._core._graph.nearest_rows``.
    """
    own = block.copy()
    own[np.arange(block.shape[0]), np.arange(start, start + block.shape[0])] = -np.inf
    return np.argsort(own, axis=1, kind="stable")[:, :n_nearest]


def add_cluster_roots(block, labels, n_clusters):
    """Each row's sums of the square roots of its distances to the samples
    of every cluster of every labelling (``labels[t]``, columns
    ``t * n_clusters + c``).

    Twin of ``mmc._core._graph.add_cluster_roots``.
    """
    one_hot = np.zeros((block.shape[1], n_clusters * len(labels)))
    for t, labelling in enumerate(labels):
        one_hot[np.arange(block.shape[1]), t * n_clusters + labelling] = 1.0
    return np.sqrt(block) @ one_hot
