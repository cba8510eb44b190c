"""Tests of mmc._core._common against their NumPy twins in _reference.py."""

import numpy as np
import pytest
import scipy.sparse as sp
from _data import random_X
from _reference import column_sums

from mmc._core._common import column_sums_dense, column_sums_sparse


def _column_sums_kernel(X, out):
    """Call the dense or the CSR kernel, as an estimator driver would."""
    if sp.issparse(X):
        column_sums_sparse(X.data, X.indices, X.indptr, out)
    else:
        column_sums_dense(X, out)


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
    column_sums_dense(X, out_dense)
    column_sums_sparse(X_csr.data, X_csr.indices, X_csr.indptr, out_sparse)
    np.testing.assert_allclose(out_dense, column_sums(X), rtol=1e-7)
    np.testing.assert_allclose(out_sparse, column_sums(X), rtol=1e-7)
