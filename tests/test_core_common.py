"""Tests of mmc._core._common against their NumPy twins in _reference.py.

Each kernel is called on dense and CSR X as the estimators call it, bound to
the rows of X by :func:`mmc._rows.row_kernel`.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from _data import random_X
from _reference import balanced_signs, column_sums, signed_row_sum, weighted_row_sums

from mmc._core import _common
from mmc._core._common import balanced_signs as balanced_signs_kernel
from mmc._rows import row_kernel, rows


def _column_sums_kernel(X, out):
    row_kernel(X, _common.column_sums)(out)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(1, 1), (7, 3), (200, 17)])
def test_column_sums_matches_reference(shape, dtype, sparse):
    rng = np.random.default_rng(0)
    X = random_X(rng, *shape, dtype, sparse)
    out = np.zeros(shape[1])
    _column_sums_kernel(X, out)
    # Accumulation is in float64 for both input dtypes.
    np.testing.assert_allclose(out, column_sums(X), rtol=1e-7, atol=1e-12)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_column_sums_accumulates_into_out(sparse):
    rng = np.random.default_rng(1)
    X = random_X(rng, 30, 5, np.float64, sparse)
    start = rng.normal(size=5)
    out = start.copy()
    _column_sums_kernel(X, out)
    np.testing.assert_allclose(out, start + column_sums(X), rtol=1e-7)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_column_sums_no_samples_leaves_out_alone(sparse):
    X = np.zeros((0, 4))
    X = sp.csr_matrix(X) if sparse else X
    out = np.arange(4.0)
    _column_sums_kernel(X, out)
    np.testing.assert_array_equal(out, np.arange(4.0))


def test_column_sums_read_only_input():
    rng = np.random.default_rng(2)
    X = random_X(rng, 20, 6, np.float32, sparse=False)
    X_csr = sp.csr_matrix(X)
    for a in (X, X_csr.data, X_csr.indices, X_csr.indptr):
        a.setflags(write=False)
    out_dense, out_sparse = np.zeros(6), np.zeros(6)
    _common.column_sums(*rows(X), out_dense)
    _common.column_sums(*rows(X_csr), out_sparse)
    np.testing.assert_allclose(out_dense, column_sums(X), rtol=1e-7)
    np.testing.assert_allclose(out_sparse, column_sums(X), rtol=1e-7)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_row_sq_norms_match_reference(dtype, sparse):
    rng = np.random.default_rng(1)
    X = random_X(rng, 20, 9, dtype, sparse, scales=(0.5, 1.0, 2.0))
    out = np.full(20, np.nan)
    row_kernel(X, _common.row_sq_norms)(out)
    dense = (X.toarray() if sparse else X).astype(np.float64)
    np.testing.assert_allclose(out, (dense**2).sum(axis=1), rtol=1e-12)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(1, 1), (9, 4), (120, 23)])
def test_weighted_row_sums_match_reference(shape, dtype, sparse):
    rng = np.random.default_rng(3)
    X = random_X(rng, *shape, dtype, sparse)
    # Rows out of order and repeated; some weights zero.
    selected = rng.integers(shape[0], size=2 * shape[0]).astype(np.int32)
    weights = rng.normal(size=(selected.size, 3))
    weights[rng.random(weights.shape) < 0.3] = 0.0
    start = rng.normal(size=(3, shape[1]))
    out = start.copy()
    row_kernel(X, _common.weighted_row_sums)(selected, weights, out)
    expected = start + weighted_row_sums(X, selected, weights)
    np.testing.assert_allclose(out, expected, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_weighted_row_sums_are_scipys_product_to_the_last_bit(dtype, sparse):
    # The Dask passes replaced SciPy's product of the CSR matrix of the
    # weights with a float64 copy of the rows by this kernel: the same sums
    # in the same order, so the same fits.
    rng = np.random.default_rng(4)
    X = random_X(rng, 300, 17, dtype, sparse)
    selected = np.sort(rng.choice(300, size=120, replace=False)).astype(np.int32)
    weights = rng.normal(size=(120, 4))
    weights[rng.random(weights.shape) < 0.3] = 0.0
    out = np.zeros((4, 17))
    row_kernel(X, _common.weighted_row_sums)(selected, weights, out)
    product = sp.csr_matrix(weights.T) @ X[selected].astype(np.float64)
    product = product.toarray() if sp.issparse(product) else product
    np.testing.assert_array_equal(out, product)


def test_weighted_row_sums_without_rows_or_features_leave_out_alone():
    out = np.arange(6.0).reshape(2, 3)
    none = np.zeros(0, dtype=np.int32)
    _common.weighted_row_sums(*rows(np.ones((4, 3))), none, np.zeros((0, 2)), out)
    np.testing.assert_array_equal(out, np.arange(6.0).reshape(2, 3))
    empty = np.zeros((2, 0))
    selected = np.array([1, 0], dtype=np.int32)
    _common.weighted_row_sums(*rows(np.ones((4, 0))), selected, np.ones((2, 2)), empty)
    assert empty.shape == (2, 0)


@pytest.mark.parametrize("bound", [0, 1, 2, 4, 9])
def test_balanced_signs_is_optimal_and_balanced(bound):
    rng = np.random.default_rng(6)
    for trial in range(40):
        n = int(rng.integers(1, 10))
        keys = rng.normal(size=n) + rng.choice([0.0, 2.0, -2.0])
        keys[rng.random(n) < 0.3] = 0.0
        ties = rng.normal(size=n)
        bound_n = max(bound, n % 2)
        out = np.zeros(n, dtype=np.int8)
        balanced_signs_kernel(keys, ties, bound_n, out)
        assert set(np.unique(out)) <= {-1, 1}
        assert abs(int(out.sum())) <= bound_n
        assert float(out @ keys) == pytest.approx(
            balanced_signs(keys, ties, bound_n), abs=1e-12
        )


def test_balanced_signs_free_samples_follow_ties():
    keys = np.array([0.0, 0.0, 1.0, -1.0, 0.0, 0.0])
    ties = np.array([1.0, -2.0, 0.0, 0.0, 3.0, -0.5])
    out = np.zeros(6, dtype=np.int8)
    assert balanced_signs_kernel(keys, ties, 6, out) == 0
    np.testing.assert_array_equal(out, [1, -1, 1, -1, 1, -1])
    # With too many +1 the free sample with the smallest tie moves first.
    keys = np.array([0.0, 0.0, 1.0, 2.0])
    ties = np.array([0.5, 0.1, 0.0, 0.0])
    assert balanced_signs_kernel(keys, ties, 0, out[:4]) == 2
    np.testing.assert_array_equal(out[:4], [-1, -1, 1, 1])


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(1, 1), (9, 1), (40, 7)])
def test_signed_row_sum(shape, dtype, sparse):
    rng = np.random.default_rng(8)
    X = random_X(rng, *shape, dtype, sparse)
    # -1, 0 and +1: the estimator weighs only the relabelled samples.
    labels = rng.choice([-1, 0, 1], size=shape[0]).astype(np.int8)
    out = np.full(shape[1], np.nan)
    row_kernel(X, _common.signed_row_sum)(labels, out)
    np.testing.assert_allclose(out, signed_row_sum(X, labels), rtol=1e-12, atol=1e-14)
