"""Property tests of the row kernels shared by the cutting-plane estimators.

Hypothesis draws the shape (n = 1 and d = 1 included, and n = 0 where the
kernel allows it), the dtype, the density of X, dense or CSR storage and the
decision values, whose special values (exactly on the margin, exactly zero)
decide membership; every kernel is compared with its NumPy twin in
_reference.py. The tolerances bound the rounding by the sum of the absolute
terms, which the kernels accumulate in float64.
"""

import numpy as np
import pytest
from _data import X_cases, draw_X
from _reference import (
    column_sums,
    mean_margin_loss,
    most_violated,
    signed_row_sum,
)
from hypothesis import given, settings

from mmc._core import _common, _cpmmc
from mmc._rows import rows

SETTINGS = settings(max_examples=60, deadline=None, derandomize=True, database=None)


def _decision(rng, n_samples):
    decision = rng.normal(scale=1.5, size=n_samples)
    special = rng.choice([1.0, -1.0, 0.0, -0.0, 1 - 1e-16, np.nan], size=n_samples)
    use = rng.random(n_samples) < 0.3
    decision[use] = special[use]
    return np.nan_to_num(decision, nan=0.5)


def _abs_bound(X):
    """Bound on the rounding of a weighted column sum of X."""
    dense = np.abs(X.toarray() if hasattr(X, "toarray") else X).astype(np.float64)
    return 1e-12 * dense.sum(axis=0) + 1e-300


@SETTINGS
@given(case=X_cases)
def test_column_sums(case):
    _, X = draw_X(case)
    out = np.zeros(X.shape[1])
    _common.column_sums(*rows(X), out)
    assert np.all(np.abs(out - column_sums(X)) <= _abs_bound(X))


@SETTINGS
@given(case=X_cases)
def test_most_violated_constraint(case):
    rng, X = draw_X(case)
    n_samples = X.shape[0]
    decision = _decision(rng, n_samples)
    constraints = np.full((n_samples, 3), 7, dtype=np.uint8)
    z = np.full(X.shape[1], np.nan)
    result = _cpmmc.most_violated(*rows(X), decision, constraints, 1, z)
    c, z_ref, violation, size, sign_sum = most_violated(X, decision)
    np.testing.assert_array_equal(constraints[:, 1], c)
    np.testing.assert_array_equal(constraints[:, [0, 2]], 7)
    assert np.all(np.abs(z - z_ref) <= _abs_bound(X) / n_samples)
    expected = (violation, size, sign_sum)
    np.testing.assert_allclose(result, expected, rtol=1e-12, atol=1e-15)
    # The violation is the mean hinge loss of MMC at the same decision values.
    hinge = mean_margin_loss(decision)
    assert _common.mean_hinge_loss(decision, absolute=True) == pytest.approx(
        hinge, rel=1e-12
    )
    assert result[0] == pytest.approx(hinge, rel=1e-12, abs=1e-15)


@SETTINGS
@given(case=X_cases)
def test_signed_row_sum(case):
    rng, X = draw_X(case)
    labels = rng.choice([-1, 0, 1], size=X.shape[0]).astype(np.int8)
    out = np.full(X.shape[1], np.nan)
    _common.signed_row_sum(*rows(X), labels, out)
    reference = signed_row_sum(X, labels)
    assert np.all(np.abs(out - reference) <= _abs_bound(X) / X.shape[0])
