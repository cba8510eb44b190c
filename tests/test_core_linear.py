"""Tests of mmc._core._linear against their NumPy twin in _reference.py.

The kernels accumulate in float64 whatever the dtype of X (STYLE.md 4.1), so
float32 input is compared with the float64 reference (computed from the same
float32 values) at the same tight tolerance as float64 input: only the order
of the float64 additions differs. The tolerance is relative to the sum of the
absolute terms, ``|X| |coef| + |intercept|``, which bounds the rounding of any
summation order; a plain rtol would be meaningless where the terms cancel.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from _data import random_X
from _reference import decision_values
from hypothesis import given, settings
from hypothesis import strategies as st

from mmc._core import _linear
from mmc._rows import row_kernel


def _kernel(X, coef, intercept, out):
    """Call the kernel on the rows of X, as mmc._rows.decision_values does."""
    row_kernel(X, _linear.decision_values)(coef, intercept, out)


def _assert_matches_reference(out, X, coef, intercept, rtol=1e-12):
    dense = X.toarray() if sp.issparse(X) else X
    bound = np.abs(dense.astype(np.float64)) @ np.abs(coef) + abs(intercept)
    expected = decision_values(X, coef, intercept)
    assert out.shape == expected.shape
    assert np.all(np.abs(out - expected) <= rtol * bound + 1e-300), np.max(
        np.abs(out - expected) / (bound + 1e-300)
    )


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(
    "shape",
    # n_features 1, 3, 4, 5, 8 and 13 cover the four-way unrolled loop of the
    # dense kernel with and without a remainder.
    [(1, 1), (1, 7), (9, 1), (6, 3), (11, 4), (40, 5), (25, 8), (200, 13)],
)
def test_decision_values_match_reference(shape, dtype, sparse):
    rng = np.random.default_rng(sum(shape))
    X = random_X(rng, *shape, dtype, sparse)
    coef = rng.normal(size=shape[1]) * rng.choice([1e-3, 1.0, 1e2], size=shape[1])
    intercept = float(rng.normal())
    out = np.full(shape[0], np.nan)  # every entry must be overwritten
    _kernel(X, coef, intercept, out)
    _assert_matches_reference(out, X, coef, intercept)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_dense_and_sparse_agree(dtype):
    rng = np.random.default_rng(1)
    X = random_X(rng, 70, 9, dtype, sparse=True)
    coef = rng.normal(size=9)
    out_dense, out_sparse = np.empty(70), np.empty(70)
    _kernel(X.toarray(), coef, -0.25, out_dense)
    _kernel(X, coef, -0.25, out_sparse)
    np.testing.assert_allclose(out_sparse, out_dense, rtol=1e-12, atol=1e-9)
    _assert_matches_reference(out_dense, X, coef, -0.25)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_float32_input_is_accumulated_in_float64(sparse):
    # 0.1f added 100000 times: a float32 running sum is off by about 1e-3
    # relative, a float64 one by about 1e-12.
    n_features = 100_000
    X = np.full((1, n_features), 0.1, dtype=np.float32)
    X = sp.csr_matrix(X) if sparse else X
    coef = np.ones(n_features)
    out = np.empty(1)
    _kernel(X, coef, 0.0, out)
    exact = n_features * float(np.float32(0.1))
    assert out[0] == pytest.approx(exact, rel=1e-11)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_rows_without_stored_values_give_the_intercept(sparse):
    X = np.zeros((4, 3))
    X[2, 1] = 2.0
    X = sp.csr_matrix(X) if sparse else X
    if sparse:
        X.data[:] = 0.0  # the one stored value becomes an explicit zero
        assert X.nnz == 1
    out = np.empty(4)
    _kernel(X, np.array([1.0, 5.0, -1.0]), 0.75, out)
    expected = [0.75, 0.75, 0.75 if sparse else 10.75, 0.75]
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_no_samples(sparse):
    X = np.zeros((0, 3))
    X = sp.csr_matrix(X) if sparse else X
    out = np.empty(0)
    _kernel(X, np.ones(3), 1.0, out)
    assert out.shape == (0,)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_read_only_inputs(dtype):
    rng = np.random.default_rng(2)
    X = random_X(rng, 30, 6, dtype, sparse=False)
    X_csr = random_X(rng, 30, 6, dtype, sparse=True)
    coef = rng.normal(size=6)
    for a in (X, X_csr.data, X_csr.indices, X_csr.indptr, coef):
        a.flags.writeable = False
    for data in (X, X_csr):
        out = np.empty(30)
        _kernel(data, coef, 0.5, out)
        _assert_matches_reference(out, data, coef, 0.5)


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(
    n_samples=st.integers(0, 40),
    n_features=st.integers(1, 17),
    density=st.sampled_from([0.0, 0.1, 0.5, 1.0]),
    dtype=st.sampled_from([np.float32, np.float64]),
    sparse=st.booleans(),
    intercept=st.floats(-1e3, 1e3, allow_nan=False, allow_subnormal=False),
    seed=st.integers(0, 2**32 - 1),
)
def test_decision_values_property(
    n_samples, n_features, density, dtype, sparse, intercept, seed
):
    rng = np.random.default_rng(seed)
    X = random_X(rng, n_samples, n_features, dtype, sparse, density)
    coef = rng.normal(size=n_features)
    out = np.full(n_samples, np.nan)
    _kernel(X, coef, intercept, out)
    _assert_matches_reference(out, X, coef, intercept)
    # Linear in (coef, intercept): doubling both doubles the output.
    out2 = np.empty(n_samples)
    _kernel(X, 2.0 * coef, 2.0 * intercept, out2)
    np.testing.assert_allclose(out2, 2.0 * out, rtol=1e-15, atol=0)
