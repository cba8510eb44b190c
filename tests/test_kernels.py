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

import mmc.kernels
from mmc.kernels import (
    KERNELS,
    distance_spread,
    kernel_diagonal_mean,
    kernel_matrix,
    nystroem,
    resolve_gamma,
    resolve_kernel,
)


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


def _reference_spread(X):
    """std / mean of the squared distances of all distinct pairs, by loops."""
    X = _dense(X)
    n = X.shape[0]
    squared = [((X[i] - X[j]) ** 2).sum() for i in range(n) for j in range(i + 1, n)]
    return np.std(squared) / np.mean(squared)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_distance_spread_matches_all_pairs(sparse, dtype, seed):
    rng = np.random.default_rng(seed)
    X = random_X(rng, 60, 9, dtype=dtype, sparse=sparse, scales=(0.5, 2.0))
    assert distance_spread(X) == pytest.approx(_reference_spread(X), rel=1e-6)


def test_distance_spread_of_many_rows_takes_evenly_spaced_rows(monkeypatch):
    monkeypatch.setattr(mmc.kernels, "SPREAD_ROWS", 11)
    X = np.random.default_rng(3).standard_normal((101, 4))
    # Rows 0, 10, ..., 100: no draw, the same rows at every call.
    assert distance_spread(X) == pytest.approx(_reference_spread(X[::10]), rel=1e-9)
    assert distance_spread(np.ones((6, 3))) == 0.0
    assert distance_spread(np.ones((1, 3))) == 0.0


@pytest.mark.parametrize("n_features", [20, 200, 2000])
def test_distance_spread_is_two_over_the_effective_dimension(n_features):
    """Gaussian rows of covariance diag(l): spread**2 = 2 (sum l^2) / (sum l)^2."""
    rng = np.random.default_rng(0)
    scales = rng.uniform(0.5, 1.5, n_features)
    X = rng.standard_normal((500, n_features)) * scales
    eigenvalues = scales**2
    dimension = eigenvalues.sum() ** 2 / (eigenvalues**2).sum()
    assert distance_spread(X) ** 2 == pytest.approx(2 / dimension, rel=0.1)


def test_resolve_kernel():
    from sklearn.datasets import load_digits

    from mmc.datasets import make_sparse_clusters

    digits = load_digits().data / 16
    text, _ = make_sparse_clusters(n_samples=300, random_state=0)
    assert resolve_kernel(digits, "auto") == "rbf"
    assert resolve_kernel(text, "auto") == "linear"
    # Gaussian rows in 100 dimensions: spread 0.14, effective dimension 100.
    gaussian = np.random.default_rng(0).standard_normal((400, 1000))
    assert resolve_kernel(gaussian[:, :100], "auto") == "rbf"
    # In 1000 dimensions: spread 0.045, effective dimension 1000.
    assert resolve_kernel(gaussian, "auto") == "linear"
    for kernel in KERNELS:
        assert resolve_kernel(text, kernel) == kernel


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


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_kernel_diagonal_mean_is_the_mean_of_the_kernel_matrix_diagonal(
    kernel, sparse, dtype
):
    rng = np.random.default_rng(2)
    X = random_X(rng, 30, 5, dtype=dtype, sparse=sparse, scales=(0.3, 1.0, 4.0))
    params = {"gamma": 0.2, "degree": 3, "coef0": 1.5}
    expected = np.diag(_reference_kernel(X, X, kernel, **params)).mean()
    mean = kernel_diagonal_mean(X, kernel=kernel, **params)
    assert isinstance(mean, float)
    # float32 rows: their float64 norms, not float32 sums.
    assert mean == pytest.approx(expected, rel=1e-11)
    assert mean == float(f"{mean:.12g}")  # 12 significant digits
    assert kernel_diagonal_mean(X[:0], kernel=kernel, **params) == 0.0


def test_kernel_diagonal_mean_is_exactly_one_for_rbf_and_unit_rows():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(50, 40)) * rng.choice([1e-3, 1.0, 1e3], size=(50, 40))
    assert kernel_diagonal_mean(X, kernel="rbf", gamma=7.0) == 1.0
    # Unit rows (tf-idf): the rounding of their norms does not show.
    unit = X / np.linalg.norm(X, axis=1, keepdims=True)
    assert kernel_diagonal_mean(unit, kernel="linear") == 1.0
    assert kernel_diagonal_mean(sp.csr_matrix(unit), kernel="linear") == 1.0
    assert kernel_diagonal_mean(3.0 * unit, kernel="linear") == 9.0


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
