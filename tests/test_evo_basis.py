"""FastEvoMMC's basis built a block of rows at a time (mmc._evo_basis).

The Nystroem features L and the basis V = L W S^-1 are formed in blocks of
``BASIS_BLOCK_ROWS`` rows in one n x r buffer, and the signs and the
fixed-point grid are taken a block at a time, so that a fit holds one n x r
array where the products of the whole made two. One block must give the
values of the whole products; several, the same basis to rounding.
"""

import tracemalloc

import numpy as np
import pytest
import scipy.linalg
import scipy.sparse as sp

import mmc._evo_basis as evo_basis
from mmc._evo_basis import canonical_signs, nystroem_basis
from mmc.kernels import nystroem


def _reference_signs(V):
    """canonical_signs written out on the whole of V."""
    magnitude = np.abs(V)
    first = np.argmax(magnitude >= (1.0 - 1e-8) * magnitude.max(axis=0), axis=0)
    return np.where(V[first, np.arange(V.shape[1])] < 0, -1.0, 1.0)


def _whole_products_basis(feature_map, X, reg):
    """The basis from the products of the whole (the formula of
    nystroem_basis, with every n x r temporary)."""
    L = np.asarray(feature_map.transform(X), dtype=np.float64)
    s2, W = scipy.linalg.eigh(L.T @ L, check_finite=False)
    order = np.argsort(-s2, kind="stable")
    s2, W = s2[order], W[:, order]
    keep = s2 > 1e-10 * max(float(s2[0]), 0.0)
    s2, W = s2[keep], W[:, keep]
    V = L @ (W / np.sqrt(s2))
    signs = _reference_signs(V)
    return evo_basis.spectral_basis(V * signs, s2, reg), (W * signs).T


def _data(n_samples, sparse, dtype, n_distinct=None):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((n_distinct or n_samples, 6))
    if n_distinct is not None:
        # Fewer distinct samples than landmarks: components are dropped.
        X = X[rng.integers(n_distinct, size=n_samples)]
    X = X.astype(dtype)
    return sp.csr_matrix(X) if sparse else X


# Fewer distinct samples (20) than landmarks: components dropped, V
# narrower than L. (In float32 the map of so singular a landmark kernel
# amplifies the rounding of the features beyond any tolerance, blocks or not.)
CASES = [
    (sparse, dtype, n_distinct)
    for sparse in (False, True)
    for dtype, n_distinct in ((np.float32, None), (np.float64, None), (np.float64, 20))
]


@pytest.mark.parametrize("sparse, dtype, n_distinct", CASES)
def test_basis_in_blocks_is_the_basis_of_the_whole(
    monkeypatch, sparse, dtype, n_distinct
):
    X = _data(700, sparse, dtype, n_distinct)
    feature_map = nystroem(X, 40, gamma=0.2, random_state=0)
    reg = 1e-3
    expected, expected_right = _whole_products_basis(feature_map, X, reg)
    if n_distinct is not None:
        assert expected.V.shape[1] < 40

    # One block: the products of the whole, to the bit.
    basis, right = nystroem_basis(feature_map, X, reg)
    for got, want in ((basis.V, expected.V), (basis.weights, expected.weights)):
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(right, expected_right)

    # Blocks of 64 rows (the last one short): the same kernel matrix
    # V diag(sigma) V' to rounding (eigenvectors of close eigenvalues may
    # rotate; float32 samples are mapped in float32).
    monkeypatch.setattr(evo_basis, "BASIS_BLOCK_ROWS", 64)
    basis, _ = nystroem_basis(feature_map, X, reg)
    assert basis.V.flags.c_contiguous and basis.V.shape == expected.V.shape
    atol = (1e-5 if dtype == np.float32 else 1e-11) * expected.sigma.max()
    np.testing.assert_allclose(
        (basis.V * basis.sigma) @ basis.V.T,
        (expected.V * expected.sigma) @ expected.V.T,
        rtol=0,
        atol=atol,
    )
    np.testing.assert_allclose(basis.V.T @ basis.V, np.eye(basis.V.shape[1]), atol=1e-5)


def test_basis_in_blocks_holds_one_n_by_r_array(monkeypatch):
    n_samples, n_landmarks = 60_000, 50
    X = _data(n_samples, False, np.float64)
    feature_map = nystroem(X, n_landmarks, gamma=0.2, random_state=0)
    monkeypatch.setattr(evo_basis, "BASIS_BLOCK_ROWS", 2_000)
    tracemalloc.start()
    try:
        nystroem_basis(feature_map, X, 1e-3)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    one_array = n_samples * n_landmarks * 8
    # Products of the whole hold two such arrays at once (and the signs a
    # third); blocks, one and a few blocks' temporaries.
    assert peak < 1.3 * one_array, peak / one_array


def test_canonical_signs_by_blocks_are_those_of_the_whole():
    rng = np.random.default_rng(1)
    V = rng.standard_normal((10_000, 7))
    # The largest magnitudes, of opposite signs, in different blocks of
    # 4096 rows, equal or within the tie tolerance; a zero column.
    V[4095, 0], V[4096, 0] = 9.0, -9.0
    V[100, 1], V[9000, 1] = -9.0, 9.0 * (1 + 1e-12)
    V[8191, 2], V[8192, 2] = 9.0 * (1 + 1e-12), -9.0
    V[:, 3] = 0.0
    expected = _reference_signs(V)
    np.testing.assert_array_equal(canonical_signs(V), expected)
    np.testing.assert_array_equal(expected[:4], [1.0, -1.0, 1.0, 1.0])
