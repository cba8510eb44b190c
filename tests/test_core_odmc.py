"""Tests of mmc._core._odmc against their NumPy twins in _reference.py.

Each kernel is run on dense and CSR input in float32 and float64 and
compared with the float64 reference computed from the same values (the
kernels accumulate in float64, so only the order of the additions differs).
"""

import numpy as np
import pytest
import scipy.sparse as sp
from _data import random_X
from _reference import (
    odm_coordinate_epoch,
    odm_mixture_margins,
    odm_sample_maximiser,
    odm_statistics,
)

from mmc._core._odmc import (
    coordinate_epoch,
    labelling_sums,
    mixture_margins,
    solve_sample_wrapper,
)
from mmc._rows import rows

CASES = [
    pytest.param(
        dtype, sparse, id=f"{np.dtype(dtype).name}-{'csr' if sparse else 'dense'}"
    )
    for dtype in (np.float32, np.float64)
    for sparse in (False, True)
]


def _X(rng, n, d, dtype, sparse):
    # Moderate scales: the centring of the kernels is implicit, and large
    # offsets would only measure cancellation.
    return random_X(rng, n, d, dtype, sparse, scales=(0.5, 1.0, 2.0))


def _statistics(X, b, Y, k, capacity):
    """U, sigma (via the kernel under test) and ubar for the columns of Y."""
    U = np.zeros((capacity, X.shape[1]))
    sigma = np.zeros(capacity)
    labelling_sums(*rows(X), b, Y, k, U, sigma)
    return U, sigma


def _row_terms(X):
    dense = X.toarray() if sp.issparse(X) else X
    dense = dense.astype(np.float64)
    x_mean = dense.mean(axis=0)
    row_mean_dot = dense @ x_mean
    row_sq_norm = ((dense - x_mean) ** 2).sum(axis=1)
    return x_mean, row_mean_dot, float(x_mean @ x_mean), row_sq_norm


@pytest.mark.parametrize("dtype, sparse", CASES)
def test_labelling_sums_match_reference(dtype, sparse):
    rng = np.random.default_rng(0)
    X = _X(rng, 30, 7, dtype, sparse)
    Y = np.where(rng.random((30, 5)) < 0.5, 1, -1).astype(np.int8)
    b = rng.normal(size=30)
    b[::4] = 0.0
    U, sigma = _statistics(X, b, Y, 3, 5)
    U_ref, sigma_ref = odm_statistics(X, b, Y, 3)
    np.testing.assert_allclose(U[:3], U_ref, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(sigma[:3], sigma_ref, rtol=1e-10, atol=1e-14)
    assert not U[3:].any() and not sigma[3:].any()


@pytest.mark.parametrize("dtype, sparse", CASES)
def test_mixture_margins_match_reference(dtype, sparse):
    rng = np.random.default_rng(2)
    n, d, k = 25, 6, 3
    X = _X(rng, n, d, dtype, sparse)
    Y = np.where(rng.random((n, 4)) < 0.5, 1, -1).astype(np.int8)
    a1 = np.abs(rng.normal(size=n))
    a2 = np.where(rng.random(n) < 0.3, np.abs(rng.normal(size=n)), 0.0)
    mu = np.array([0.5, 0.3, 0.2, 0.0])
    lam = 0.7
    x_mean, row_mean_dot, mean_sq, _ = _row_terms(X)
    U, sigma = _statistics(X, a1 - a2, Y, k, 4)
    ubar = U @ x_mean
    weights = np.where(rng.random(n) < 0.7, rng.random(n), 0.0)
    out = np.full(n, np.nan)
    spread = np.full(4, np.nan)
    mixture_margins(
        *rows(X),
        row_mean_dot,
        mean_sq,
        Y,
        k,
        mu,
        lam,
        U,
        sigma,
        ubar,
        weights,
        out,
        spread,
        np.zeros(4),
    )
    expected = odm_mixture_margins(X, Y, k, mu, lam, a1, a2)
    np.testing.assert_allclose(out, expected, rtol=1e-9, atol=1e-12)
    # Each labelling alone, and its weighted squared distance to the mixture.
    for j in range(k):
        alone = odm_mixture_margins(X, Y[:, j : j + 1], 1, [1.0], lam, a1, a2)
        assert spread[j] == pytest.approx(weights @ (alone - expected) ** 2, rel=1e-9)


@pytest.mark.parametrize("tau", [0.3, 2.0, np.inf])
@pytest.mark.parametrize("theta", [0.0, 0.4])
def test_sample_maximiser_matches_enumeration(theta, tau):
    rng = np.random.default_rng(3)
    for _ in range(200):
        r_minus = rng.normal(scale=2.0)
        q = abs(rng.normal()) * rng.choice([0.0, 0.1, 10.0])
        c1 = 0.5 * (1 - theta) ** 2
        c2 = c1 / rng.choice([0.2, 1.0, 5.0])
        got = solve_sample_wrapper(r_minus, q, c1, c2, theta, tau)
        expected = odm_sample_maximiser(r_minus, q, c1, c2, theta, tau)
        np.testing.assert_allclose(got, expected, atol=1e-10)
        # Box projection: inside [0, tau], at most one positive.
        assert 0.0 <= got[0] <= tau and 0.0 <= got[1] <= tau
        assert got[0] == 0.0 or got[1] == 0.0


@pytest.mark.parametrize("dtype, sparse", CASES)
@pytest.mark.parametrize("tau", [0.5, np.inf])
def test_coordinate_epoch_matches_reference(dtype, sparse, tau):
    rng = np.random.default_rng(4)
    n, d, k = 18, 5, 3
    X = _X(rng, n, d, dtype, sparse)
    Y = np.where(rng.random((n, 4)) < 0.5, 1, -1).astype(np.int8)
    a1 = np.where(rng.random(n) < 0.5, np.abs(rng.normal(size=n)), 0.0)
    a2 = np.where(a1 == 0, np.abs(rng.normal(size=n)) * (rng.random(n) < 0.5), 0.0)
    a1 = np.minimum(a1, tau)
    a2 = np.minimum(a2, tau)
    mu = np.array([0.6, 0.1, 0.3, 0.0])
    lam, theta, nu = 3.0, 0.2, 0.7
    order = rng.permutation(n).astype(np.int32)[:-2]  # a partial visit too
    x_mean, row_mean_dot, mean_sq, row_sq_norm = _row_terms(X)
    U, sigma = _statistics(X, a1 - a2, Y, k, 4)
    ubar = U @ x_mean
    new_a1, new_a2 = a1.copy(), a2.copy()
    change = coordinate_epoch(
        *rows(X),
        row_mean_dot,
        mean_sq,
        row_sq_norm,
        Y,
        k,
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
    ref_a1, ref_a2 = odm_coordinate_epoch(
        X, Y, k, mu, order, lam, theta, nu, tau, a1, a2
    )
    np.testing.assert_allclose(new_a1, ref_a1, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(new_a2, ref_a2, rtol=1e-9, atol=1e-12)
    assert change == pytest.approx(np.max(np.abs((ref_a1 - ref_a2) - (a1 - a2))))
    # The statistics were kept up to date along the way.
    U_ref, sigma_ref = odm_statistics(X, new_a1 - new_a2, Y, k)
    np.testing.assert_allclose(U[:k], U_ref, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(sigma[:k], sigma_ref, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(ubar[:k], U_ref @ x_mean, rtol=1e-9, atol=1e-12)


def test_coordinate_epoch_dense_and_sparse_agree():
    rng = np.random.default_rng(5)
    X = _X(rng, 40, 6, np.float64, False)
    Xs = sp.csr_matrix(X)
    Xs.indices = Xs.indices.astype(np.int32)
    Xs.indptr = Xs.indptr.astype(np.int32)
    Y = np.where(rng.random((40, 2)) < 0.5, 1, -1).astype(np.int8)
    x_mean, row_mean_dot, mean_sq, row_sq_norm = _row_terms(X)
    results = []
    for data in (X, Xs):
        a1, a2 = np.zeros(40), np.zeros(40)
        U, sigma, ubar = np.zeros((2, 6)), np.zeros(2), np.zeros(2)
        for seed in range(3):
            order = np.random.default_rng(seed).permutation(40).astype(np.int32)
            coordinate_epoch(
                *rows(data),
                row_mean_dot,
                mean_sq,
                row_sq_norm,
                Y,
                2,
                np.array([0.5, 0.5]),
                order,
                2.0,
                0.1,
                0.5,
                4.0,
                a1,
                a2,
                U,
                sigma,
                ubar,
            )
        results.append((a1, a2, U))
    for dense, sparse in zip(*results):
        np.testing.assert_allclose(dense, sparse, rtol=1e-12, atol=1e-14)
