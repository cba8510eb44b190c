"""Property tests of the ODMC and EvoMMC / FastEvoMMC kernels.

The kernel tests of mmc._core._odmc (test_core_odmc.py) and of
mmc._core._evo (test_evo.py) compare each kernel with its NumPy twin in
_reference.py on a few fixed shapes and seeds. Here Hypothesis draws the shape
(n = 1 and d = 1 included), the dtype, the density of X, dense or CSR storage,
the signs of the weights and labels and the parameters of each kernel. The
random kernels (mutate, evolve) cannot be replayed by a reference, so they are
held to what they promise instead: valid, balanced labellings whose
coordinates and fitness match a recomputation from the labels.

Float32 input widens exactly to float64, in which the kernels accumulate, so
most tolerances do not depend on the dtype: they bound the rounding by the sum
of the absolute values of the terms (which the implicit centring of the ODMC
kernels may cancel). The one dtype-aware tolerance is the fitness of evolve
against the direct solve, since a float32 basis is orthonormal only to float32
precision.
"""

import numpy as np
import pytest
import scipy.sparse as sp
import test_core_odmc as odmc_tests
from _data import X_cases, draw_X, random_X
from _reference import (
    balanced_signs,
    flip_labels,
    least_squares_fitness,
    odm_coordinate_epoch,
    odm_margin_spread,
    odm_mixture_margins,
    odm_sample_maximiser,
    odm_statistics,
    row_sq_norms,
    spectral_fitness,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from mmc._core import _common, _evo, _odmc
from mmc._rows import rows

SETTINGS = settings(max_examples=60, deadline=None, derandomize=True, database=None)

# Number of labellings in use and of spare columns of the working set.
working_sets = st.tuples(st.integers(1, 4), st.integers(0, 2))

evo_cases = st.fixed_dictionaries(
    {
        "n_samples": st.integers(1, 24),
        "n_components": st.integers(1, 6),
        "density": st.sampled_from([0.0, 0.2, 0.7, 1.0]),
        "dtype": st.sampled_from([np.float32, np.float64]),
        "reg": st.floats(1e-3, 1.0),
        "seed": st.integers(0, 2**32 - 1),
    }
)

# Sentinel of the output entries a kernel must leave alone.
UNTOUCHED = 7.0


def _run(kernel, X, *args):
    """Call a kernel on the rows of X, dense or CSR."""
    return kernel(*rows(X), *args)


def _dense(X):
    return (X.toarray() if sp.issparse(X) else X).astype(np.float64)


def _labellings(rng, n_samples, working_set):
    """(n_labellings, capacity, Y): random labellings in every column of Y."""
    n_labellings, n_spare = working_set
    capacity = n_labellings + n_spare
    Y = np.where(rng.random((n_samples, capacity)) < 0.5, 1, -1).astype(np.int8)
    return n_labellings, capacity, Y


def _signed_weights(rng, n_samples):
    """Weights of both signs and mixed magnitudes, some exactly (minus) zero."""
    weights = rng.normal(size=n_samples) * rng.choice([1e-3, 1.0, 10.0], n_samples)
    zero = rng.random(n_samples) < 0.3
    weights[zero] = rng.choice([0.0, -0.0], size=zero.sum())
    return weights


def _mixture(rng, n_labellings, capacity):
    """Weights on the simplex, some zero; NaN beyond the labellings in use,
    so that reading them would show."""
    mu = np.full(capacity, np.nan)
    mu[:n_labellings] = rng.exponential(size=n_labellings)
    mu[:n_labellings] *= rng.random(n_labellings) < 0.8
    if not mu[:n_labellings].any():
        mu[rng.integers(n_labellings)] = 1.0
    mu[:n_labellings] /= mu[:n_labellings].sum()
    return mu


def _margin_terms(X, b):
    """Per sample, a bound on the summed absolute terms of ``xc_i . z_k``, any k.

    With ``a = |X|`` and ``m = |x_mean|``, the absolute values of the terms of
    ``x_i . U[k]``, ``ubar[k]`` and ``sigma[k] (x_i . x_mean - |x_mean|^2)``
    (the kernels' uncentred form) and of ``xc_i . z_k`` (the centred
    reference) each sum to at most ``(a_i + m) . s`` with
    ``s = (1/n) |b|' (a + m)``.
    """
    dense = _dense(X)
    span = np.abs(dense) + np.abs(dense.mean(axis=0))
    return span @ (np.abs(b) @ span / dense.shape[0])


def _balanced_labels(rng, n_samples, bound):
    """Random +1 / -1 labels with ``|sum y| <= bound``, often at the bound."""
    n_positive = np.arange(n_samples + 1)
    allowed = n_positive[np.abs(2 * n_positive - n_samples) <= bound]
    if rng.random() < 0.5:
        allowed = allowed[[0, -1]]
    y = np.full(n_samples, -1, dtype=np.int8)
    y[rng.permutation(n_samples)[: rng.choice(allowed)]] = 1
    return y


def _orthonormal_basis(rng, case):
    """Basis V (float64, orthonormal columns), eigenvalues and weights."""
    n_samples = case["n_samples"]
    n_components = min(case["n_components"], n_samples)
    V, _ = np.linalg.qr(rng.normal(size=(n_samples, n_components)))
    sigma = 10.0 ** rng.uniform(-3, 2, size=n_components)
    weights = sigma / (sigma + n_samples * case["reg"])
    return np.ascontiguousarray(V), sigma, weights


# --------------------------------------------------------------------------
# mmc._core._odmc


@SETTINGS
@given(case=X_cases, working_set=working_sets)
def test_labelling_sums(case, working_set):
    rng, X = draw_X(case)
    n_samples, n_features = X.shape
    n_labellings, capacity, Y = _labellings(rng, n_samples, working_set)
    weights = _signed_weights(rng, n_samples)
    U = np.full((capacity, n_features), UNTOUCHED)
    sigma = np.full(capacity, UNTOUCHED)
    _run(
        _odmc.labelling_sums,
        X,
        weights,
        Y,
        n_labellings,
        U,
        sigma,
    )
    U_ref, sigma_ref = odm_statistics(X, weights, Y, n_labellings)
    terms = np.abs(weights) @ np.abs(_dense(X)) / n_samples
    assert np.all(np.abs(U[:n_labellings] - U_ref) <= 1e-12 * terms + 1e-300)
    sigma_terms = np.abs(weights).sum() / n_samples
    assert np.all(np.abs(sigma[:n_labellings] - sigma_ref) <= 1e-12 * sigma_terms)
    assert np.all(U[n_labellings:] == UNTOUCHED)
    assert np.all(sigma[n_labellings:] == UNTOUCHED)


@SETTINGS
@given(case=X_cases)
def test_row_sq_norms(case):
    _, X = draw_X(case)
    out = np.full(X.shape[0], np.nan)
    _run(_common.row_sq_norms, X, out)
    # Sums of non-negative terms: a relative bound, and empty rows exactly 0.
    np.testing.assert_allclose(out, row_sq_norms(X), rtol=1e-13, atol=0)


@SETTINGS
@given(case=X_cases, working_set=working_sets, lam=st.floats(1e-2, 1e2))
def test_mixture_margins(case, working_set, lam):
    rng, X = draw_X(case)
    n_samples, n_features = X.shape
    n_labellings, capacity, Y = _labellings(rng, n_samples, working_set)
    b = _signed_weights(rng, n_samples)
    mu = _mixture(rng, n_labellings, capacity)
    x_mean, row_mean_dot, mean_sq, _ = odmc_tests._row_terms(X)
    # The statistics of b from the reference, NaN in the spare rows.
    U = np.full((capacity, n_features), np.nan)
    sigma = np.full(capacity, np.nan)
    U[:n_labellings], sigma[:n_labellings] = odm_statistics(X, b, Y, n_labellings)
    ubar = U @ x_mean
    weights = np.where(rng.random(n_samples) < 0.7, rng.random(n_samples), 0.0)
    out = np.full(n_samples, np.nan)
    spread = np.full(capacity, UNTOUCHED)
    _run(
        _odmc.mixture_margins,
        X,
        row_mean_dot,
        mean_sq,
        Y,
        n_labellings,
        mu,
        lam,
        U,
        sigma,
        ubar,
        weights,
        out,
        spread,
        np.full(capacity, np.nan),
    )
    zeros = np.zeros(n_samples)
    expected = odm_mixture_margins(X, Y, n_labellings, mu, lam, b, zeros)
    # mu sums to 1, so lam * terms bounds every margin, alone or mixed.
    terms = lam * _margin_terms(X, b)
    assert np.all(np.abs(out - expected) <= 1e-12 * terms + 1e-300)
    # Each squared distance is at most (2 terms)^2, known to 2e-12 terms.
    spread_ref = odm_margin_spread(X, Y, n_labellings, mu, lam, b, zeros, weights)
    spread_tol = 1e-11 * weights @ terms**2 + 1e-300
    assert np.all(np.abs(spread[:n_labellings] - spread_ref) <= spread_tol)
    assert np.all(spread[n_labellings:] == UNTOUCHED)


@SETTINGS
@given(
    r_minus=st.floats(-20.0, 20.0),
    q=st.just(0.0) | st.floats(1e-6, 1e3),
    theta=st.floats(0.0, 0.9),
    nu=st.floats(0.05, 20.0),
    tau=st.just(np.inf) | st.floats(1e-3, 10.0),
)
def test_sample_maximiser(r_minus, q, theta, nu, tau):
    c1 = 0.5 * (1.0 - theta) ** 2
    c2 = c1 / nu
    got = _odmc.solve_sample_wrapper(r_minus, q, c1, c2, theta, tau)
    expected = odm_sample_maximiser(r_minus, q, c1, c2, theta, tau)
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-12)
    assert 0.0 <= got[0] <= tau and 0.0 <= got[1] <= tau
    assert got[0] == 0.0 or got[1] == 0.0


@SETTINGS
@given(
    case=X_cases,
    working_set=working_sets,
    lam=st.floats(0.1, 10.0),
    theta=st.floats(0.0, 0.8),
    nu=st.floats(0.1, 10.0),
    tau=st.just(np.inf) | st.floats(0.05, 5.0),
)
def test_coordinate_epoch(case, working_set, lam, theta, nu, tau):
    # Moderate scales, as in test_core_odmc: each step divides by the
    # curvature of one sample, so large, nearly cancelling terms would only
    # measure how rounding propagates along the epoch.
    rng, X = draw_X(case, scales=(0.5, 1.0, 2.0))
    n_samples, n_features = X.shape
    n_labellings, capacity, Y = _labellings(rng, n_samples, working_set)
    mu = _mixture(rng, n_labellings, capacity)
    # A point of the box where b takes both signs, some a at a bound.
    a1 = np.minimum(rng.exponential(size=n_samples), tau)
    a2 = np.minimum(rng.exponential(size=n_samples), tau)
    a1[rng.random(n_samples) < 0.4] = 0.0
    a2[rng.random(n_samples) < 0.6] = 0.0
    # Any visiting order: empty, partial, with repeats.
    n_visits = rng.integers(0, 2 * n_samples + 1)
    order = rng.integers(0, n_samples, size=n_visits).astype(np.int32)
    x_mean, row_mean_dot, mean_sq, row_sq_norm = odmc_tests._row_terms(X)
    U = np.full((capacity, n_features), UNTOUCHED)
    sigma = np.full(capacity, UNTOUCHED)
    ubar = np.full(capacity, UNTOUCHED)
    U[:n_labellings], sigma[:n_labellings] = odm_statistics(X, a1 - a2, Y, n_labellings)
    ubar[:n_labellings] = U[:n_labellings] @ x_mean
    new_a1, new_a2 = a1.copy(), a2.copy()
    change = _run(
        _odmc.coordinate_epoch,
        X,
        row_mean_dot,
        mean_sq,
        row_sq_norm,
        Y,
        n_labellings,
        mu,
        order,
        lam,
        theta,
        nu,
        tau,
        new_a1,
        new_a2,
        U,
        sigma,
        ubar,
    )
    # The reference one visit at a time, for the largest change of a b_i.
    ref_a1, ref_a2, ref_change = a1, a2, 0.0
    for i in order:
        b_old = ref_a1[i] - ref_a2[i]
        ref_a1, ref_a2 = odm_coordinate_epoch(
            X, Y, n_labellings, mu, [i], lam, theta, nu, tau, ref_a1, ref_a2
        )
        ref_change = max(ref_change, abs(ref_a1[i] - ref_a2[i] - b_old))
    size = 1.0 + max(np.abs(ref_a1).max(), np.abs(ref_a2).max())
    np.testing.assert_allclose(new_a1, ref_a1, rtol=0, atol=1e-11 * size)
    np.testing.assert_allclose(new_a2, ref_a2, rtol=0, atol=1e-11 * size)
    assert change == pytest.approx(ref_change, rel=0, abs=1e-11 * size)
    unvisited = np.setdiff1d(np.arange(n_samples), order)
    np.testing.assert_array_equal(new_a1[unvisited], a1[unvisited])
    np.testing.assert_array_equal(new_a2[unvisited], a2[unvisited])
    assert np.all((new_a1 >= 0) & (new_a1 <= tau) & (new_a2 >= 0) & (new_a2 <= tau))

    # The statistics follow the kernel's own b: each visit adds a step of at
    # most the size of the a's, so the rounding grows with the visits.
    b = new_a1 - new_a2
    U_ref, sigma_ref = odm_statistics(X, b, Y, n_labellings)
    steps = 1e-13 * (1 + n_visits) * size
    dense = _dense(X)
    U_tol = steps * np.abs(dense).sum(axis=0)
    assert np.all(np.abs(U[:n_labellings] - U_ref) <= U_tol + 1e-300)
    assert np.all(np.abs(sigma[:n_labellings] - sigma_ref) <= steps)
    ubar_tol = steps * (np.abs(dense) @ np.abs(x_mean)).sum() + 1e-300
    assert np.all(np.abs(ubar[:n_labellings] - U_ref @ x_mean) <= ubar_tol)
    assert np.all(U[n_labellings:] == UNTOUCHED)
    assert np.all(sigma[n_labellings:] == UNTOUCHED)
    assert np.all(ubar[n_labellings:] == UNTOUCHED)


@SETTINGS
@given(
    n_samples=st.integers(1, 10),
    bound=st.integers(0, 11),
    seed=st.integers(0, 2**32 - 1),
)
def test_balanced_signs(n_samples, bound, seed):
    rng = np.random.default_rng(seed)
    bound = max(bound, n_samples % 2)
    # An offset makes one sign dominate; repeated values and (minus) zeros
    # exercise the order by tie, then by index.
    keys = rng.normal(size=n_samples) + rng.choice([-2.0, 0.0, 2.0])
    tied = rng.random(n_samples) < 0.4
    keys[tied] = rng.choice([0.0, -0.0, 0.5, -1.0], size=tied.sum())
    ties = rng.normal(size=n_samples)
    ties[rng.random(n_samples) < 0.3] = rng.choice([0.0, 1.0])
    out = np.full(n_samples, 5, dtype=np.int8)
    n_moved = _common.balanced_signs(keys, ties, bound, out)
    assert set(np.unique(out)) <= {-1, 1}
    assert abs(int(out.sum())) <= bound
    assert float(out @ keys) == pytest.approx(
        balanced_signs(keys, ties, bound), rel=1e-12, abs=1e-12
    )
    # Without the bound: the sign of the key, of the tie for a zero key. The
    # repair moves as few samples as the bound needs, and counts them.
    free = np.where((keys > 0) | ((keys == 0) & (ties > 0)), 1, -1)
    limit = (n_samples + bound) // 2
    n_positive = int((free == 1).sum())
    assert n_moved == max(0, n_positive - limit, n_samples - n_positive - limit)
    assert int((out != free).sum()) == n_moved


# --------------------------------------------------------------------------
# mmc._core._evo


@SETTINGS
@given(case=evo_cases)
def test_fitness(case):
    rng = np.random.default_rng(case["seed"])
    n_samples = case["n_samples"]
    V, sigma, weights = _orthonormal_basis(rng, case)
    y = np.where(rng.random(n_samples) < 0.5, 1.0, -1.0)
    got = _evo.fitness(weights, V.T @ y, n_samples)
    expected, _ = least_squares_fitness((V * sigma) @ V.T, y, case["reg"])
    assert got == pytest.approx(expected, rel=1e-9, abs=1e-12)


@SETTINGS
@given(case=evo_cases)
def test_flip_labels(case):
    rng = np.random.default_rng(case["seed"])
    n_samples = case["n_samples"]
    # Any V, not only an orthonormal basis: more components than samples too.
    V = random_X(
        rng, n_samples, case["n_components"], case["dtype"], False, case["density"]
    )
    V64 = V.astype(np.float64)
    y = np.where(rng.random(n_samples) < 0.5, 1, -1).astype(np.int8)
    u = V64.T @ y
    # Repeats flip twice; the entries past n_flips are valid samples that
    # must not be flipped.
    flips = rng.integers(0, n_samples, size=rng.integers(0, 2 * n_samples + 2))
    flips = flips.astype(np.int32)
    n_flips = int(rng.integers(0, flips.size + 1))
    y_ref, u_ref = flip_labels(V, flips[:n_flips], y)
    _evo.flip_labels(V, flips, n_flips, y, u)
    np.testing.assert_array_equal(y, y_ref)
    terms = np.abs(V64).sum(axis=0) + 2 * np.abs(V64[flips[:n_flips]]).sum(axis=0)
    assert np.all(np.abs(u - u_ref) <= 1e-12 * terms + 1e-300)


@SETTINGS
@given(
    n_samples=st.integers(1, 30),
    bound=st.integers(0, 32),
    n_wanted=st.integers(0, 34),
    seed=st.integers(0, 2**32 - 1),
    stamp=st.integers(1, 2**31 - 2),
)
def test_mutate(n_samples, bound, n_wanted, seed, stamp):
    rng = np.random.default_rng(seed)
    bound = max(bound, n_samples % 2)
    y = _balanced_labels(rng, n_samples, bound)
    parent = y.copy()
    # Marks of earlier mutations (stamp - 1) and others, never this stamp.
    marks = rng.choice([0, stamp - 1, -stamp], size=n_samples).astype(np.int32)
    old_marks = marks.copy()
    flips = np.full(n_samples, -1, dtype=np.int32)
    n_flips, label_sum = _evo.mutate(y, n_wanted, bound, marks, stamp, seed, flips)

    np.testing.assert_array_equal(y, parent)
    chosen = flips[:n_flips]
    assert 0 <= n_flips <= min(n_samples, 2 * n_wanted)
    assert np.all((chosen >= 0) & (chosen < n_samples))
    assert np.unique(chosen).size == n_flips
    assert np.all(flips[n_flips:] == -1)
    # Exactly the flipped samples carry the stamp.
    expected_marks = old_marks.copy()
    expected_marks[chosen] = stamp
    np.testing.assert_array_equal(marks, expected_marks)
    child = parent.astype(np.int64)
    child[chosen] *= -1
    assert label_sum == child.sum()
    assert abs(label_sum) <= bound
    # No flip can break a bound of n: then there are no swaps and no give-ups.
    if bound >= n_samples:
        assert n_flips == min(n_wanted, n_samples)
    if n_wanted > 0:
        assert n_flips >= 1

    # The draws depend on the seed only (marks of another stamp do not count).
    again = np.full(n_samples, -1, dtype=np.int32)
    result = _evo.mutate(y, n_wanted, bound, marks, stamp + 1, seed, again)
    assert result == (n_flips, label_sum)
    np.testing.assert_array_equal(again, flips)


@SETTINGS
@given(
    case=evo_cases,
    population=st.tuples(st.integers(1, 5), st.integers(1, 5)),
    bound=st.integers(0, 24),
    first_size=st.integers(1, 26),
    max_generations=st.integers(0, 40),
    patience=st.integers(1, 40),
    tol=st.sampled_from([0.0, 1e-3]),
    seed=st.integers(0, 2**32 - 1),
)
def test_evolve(
    case, population, bound, first_size, max_generations, patience, tol, seed
):
    rng = np.random.default_rng(case["seed"])
    n_samples = case["n_samples"]
    n_parents, n_offspring = population
    bound = max(bound, n_samples % 2)
    V64, sigma, weights = _orthonormal_basis(rng, case)
    V = V64.astype(case["dtype"])
    # The kernel's coordinates are those of the basis it is given.
    V_used = V.astype(np.float64)
    Y = np.stack([_balanced_labels(rng, n_samples, bound) for _ in range(n_parents)])
    U = Y @ V_used
    F = spectral_fitness(V_used, weights, Y)
    start = (Y.copy(), U.copy(), F.copy())
    args = (n_offspring, bound, first_size, max_generations, patience, tol, seed)
    n_generations = _evo.evolve(V, weights, Y, U, F, *args)

    assert 0 <= n_generations <= max_generations
    if n_generations < max_generations:
        assert n_generations >= patience
    if n_generations == 0:
        np.testing.assert_array_equal(Y, start[0])
    assert set(np.unique(Y)) <= {-1, 1}
    assert np.abs(Y.sum(axis=1, dtype=np.int64)).max() <= bound
    # (mu + lambda) selection keeps the best so far: the k-th best fitness
    # never gets worse (the values are compared as stored, exactly).
    assert np.all(np.sort(F) <= np.sort(start[2]))

    # Coordinates and fitness kept along the run match a recomputation.
    U_ref = Y @ V_used
    U_tol = 1e-14 * (1 + n_generations) * np.abs(V_used).sum(axis=0)
    assert np.all(np.abs(U - U_ref) <= U_tol + 1e-300)
    F_ref = spectral_fitness(V_used, weights, Y)
    F_tol = 2 * (weights * (np.abs(U_ref) + U_tol)) @ U_tol / n_samples + 1e-14
    assert np.all(np.abs(F - F_ref) <= F_tol)
    # ... and the direct solve on the kernel matrix of the float64 basis.
    K = (V64 * sigma) @ V64.T
    rtol = 1e-5 if case["dtype"] == np.float32 else 1e-9
    for y, fitness in zip(Y, F):
        expected, _ = least_squares_fitness(K, y, case["reg"])
        assert fitness == pytest.approx(expected, rel=rtol, abs=rtol)

    # A run is reproducible from its seed.
    Y2, U2, F2 = (a.copy() for a in start)
    assert _evo.evolve(V, weights, Y2, U2, F2, *args) == n_generations
    np.testing.assert_array_equal(Y2, Y)
    np.testing.assert_array_equal(U2, U)
    np.testing.assert_array_equal(F2, F)
