"""The kernel functions of mmc.kernels against NumPy formulas.

``resolve_gamma``, ``kernel_matrix`` and ``nystroem`` delegate to
scikit-learn; these tests pin down the formulas the estimators rely on
(EvoMMC and FastEvoMMC build their fitness from them), on dense and CSR,
float32 and float64 input.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from _data import random_X

from mmc.kernels import KERNELS, kernel_matrix, nystroem, resolve_gamma


def _dense(X):
    return X.toarray().astype(np.float64) if sp.issparse(X) else X.astype(np.float64)


def _reference_kernel(X, Y, kernel, gamma, degree, coef0):
    X, Y = _dense(X), _dense(Y)
    if kernel == "linear":
        return X @ Y.T
    if kernel == "poly":
        return (gamma * X @ Y.T + coef0) ** degree
    squared = ((X[:, None, :] - Y[None, :, :]) ** 2).sum(axis=2)
    return np.exp(-gamma * squared)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_resolve_gamma(sparse, dtype):
    rng = np.random.default_rng(0)
    X = random_X(rng, 40, 7, dtype=dtype, sparse=sparse, scales=(0.5, 2.0))
    expected = 1.0 / (7 * _dense(X).var())
    assert resolve_gamma(X, "scale") == pytest.approx(expected, rel=1e-5)
    assert resolve_gamma(X, 0.25) == 0.25
    assert isinstance(resolve_gamma(X, 2), float)
    # Constant data has no variance: gamma falls back to 1.
    assert resolve_gamma(np.ones((5, 3), dtype=dtype), "scale") == 1.0


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_kernel_matrix_matches_the_formula(kernel, sparse, dtype):
    rng = np.random.default_rng(1)
    X = random_X(rng, 25, 6, dtype=dtype, sparse=sparse, scales=(0.3, 1.0))
    Y = random_X(rng, 9, 6, dtype=dtype, sparse=sparse, scales=(0.3, 1.0))
    params = {"gamma": 0.4, "degree": 2, "coef0": 0.5}
    rtol = 1e-4 if dtype == np.float32 else 1e-10
    K = kernel_matrix(X, Y, kernel=kernel, **params)
    assert isinstance(K, np.ndarray) and K.shape == (25, 9)
    np.testing.assert_allclose(
        K, _reference_kernel(X, Y, kernel, **params), rtol=rtol, atol=rtol
    )
    square = kernel_matrix(X, kernel=kernel, **params)
    np.testing.assert_allclose(
        square, _reference_kernel(X, X, kernel, **params), rtol=rtol, atol=rtol
    )


def test_kernel_matrix_rejects_an_unknown_kernel():
    with pytest.raises(ValueError, match="Unknown kernel 'sigmoid'"):
        kernel_matrix(np.ones((2, 2)), kernel="sigmoid")


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_nystroem_is_the_landmark_formula(kernel, sparse):
    rng = np.random.default_rng(2)
    X = random_X(rng, 60, 5, dtype=np.float64, sparse=sparse, scales=(0.3, 1.0))
    params = {"gamma": 0.3, "degree": 2, "coef0": 1.0}
    feature_map = nystroem(X, 12, kernel=kernel, random_state=0, **params)
    R = np.sort(feature_map.component_indices_)
    assert R.size == 12 and np.unique(R).size == 12
    K = _reference_kernel(X, X, kernel, **params)
    L = feature_map.transform(X)
    # phi(x).phi(z) = k(x, R) K_RR^+ k(R, z), exact on the landmarks.
    approx = K[:, R] @ np.linalg.pinv(K[np.ix_(R, R)], hermitian=True) @ K[R, :]
    np.testing.assert_allclose(L @ L.T, approx, atol=1e-8 * np.abs(K).max())
    np.testing.assert_allclose(
        (L @ L.T)[np.ix_(R, R)], K[np.ix_(R, R)], atol=1e-8 * np.abs(K).max()
    )
    # Same landmarks for the same seed.
    again = nystroem(X, 12, kernel=kernel, random_state=0, **params)
    np.testing.assert_array_equal(
        again.component_indices_, feature_map.component_indices_
    )


def test_nystroem_with_every_sample_is_exact():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(30, 4))
    L = nystroem(X, 30, gamma=0.2, random_state=1).transform(X)
    np.testing.assert_allclose(
        L @ L.T, _reference_kernel(X, X, "rbf", 0.2, 3, 1.0), atol=1e-10
    )
