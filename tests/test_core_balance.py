"""Tests of mmc._core._balance against the NumPy twin in _reference.

The kernel takes a float64 matrix of scores (samples by clusters), not the
samples, so there are no dense/CSR or float32 forms to compare; it must
give the twin's prices exactly (same shifted scores, same order
statistics), and the test of the assignment it yields against exhaustive
search is in test_balance.py.
"""

import numpy as np
import pytest
from _reference import bound_prices as ref_bound_prices

from mmc._core._balance import bound_prices


def _scores(rng, n, k, ties):
    scores = rng.normal(size=(n, k)) + rng.normal(size=k) * 2.0
    if ties:
        # Repeated rows and rounded values: many equal steps.
        scores = np.round(scores[rng.integers(0, max(1, n // 4), size=n)], 1)
    return np.ascontiguousarray(scores)


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("k", [2, 3, 7])
@pytest.mark.parametrize("ties", [False, True])
def test_bound_prices_match_reference(seed, k, ties):
    rng = np.random.default_rng(seed * 31 + k)
    n = int(rng.integers(k, 300))
    scores = _scores(rng, n, k, ties)
    # Feasible bounds: k clusters of at least lower and at most upper.
    lower = float(rng.integers(0, n // k + 1))
    upper = float(n if seed % 2 else rng.integers(-(-n // k), n + 1))
    scores.setflags(write=False)
    prices = np.zeros(k)
    n_rounds = bound_prices(scores, lower, upper, prices, 50 * k)
    expected = ref_bound_prices(scores, lower, upper, 50 * k)
    np.testing.assert_array_equal(prices, expected)
    assert 0 <= n_rounds <= 50 * k
    if not ties:
        counts = np.bincount(np.argmax(scores + prices, axis=1), minlength=k)
        assert counts.min() >= lower and counts.max() <= upper


def test_bound_prices_within_bounds_do_nothing():
    rng = np.random.default_rng(0)
    scores = _scores(rng, 100, 4, False)
    prices = np.zeros(4)
    assert bound_prices(scores, 0.0, 100.0, prices, 200) == 0
    assert not prices.any()


def test_bound_prices_stop_at_max_rounds():
    rng = np.random.default_rng(1)
    scores = _scores(rng, 200, 5, False)
    prices = np.zeros(5)
    n_rounds = bound_prices(scores, 40.0, 40.0, prices, 1)
    assert n_rounds == 1
    np.testing.assert_array_equal(
        prices, ref_bound_prices(scores, 40.0, 40.0, max_rounds=1)
    )


def test_bound_prices_empty_and_degenerate_inputs():
    prices = np.zeros(3)
    assert bound_prices(np.zeros((0, 3)), 0.0, 0.0, prices, 10) == 0
    # All scores equal: no price separates tied samples, and the auction
    # stops at once rather than run out its rounds; the prices are the
    # twin's.
    scores = np.zeros((9, 3))
    prices = np.zeros(3)
    assert bound_prices(scores, 3.0, 9.0, prices, 150) == 0
    np.testing.assert_array_equal(prices, ref_bound_prices(scores, 3.0, 9.0, 150))
