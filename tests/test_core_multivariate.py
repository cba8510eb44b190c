"""Kernels of MultivariateMMC against their twins in _reference.py."""

import itertools

import numpy as np
import pytest
from _reference import (
    contingency_tables,
    most_violated_labelling,
    table_loss,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from mmc._core import _multivariate as kernels

LOSSES = {
    "error": kernels.LOSS_ERROR,
    "nmi": kernels.LOSS_NMI,
    "rand": kernels.LOSS_RAND,
    "fbeta": kernels.LOSS_FBETA,
}


def _scan(decision, loss, beta=1.0, n_threads=1):
    """The estimator's use of the scan: sort each side by |f|, prefix sums."""
    decision = np.asarray(decision, dtype=np.float64)
    magnitude = np.abs(decision)
    positive = np.sort(magnitude[decision > 0])
    negative = np.sort(magnitude[decision <= 0])
    return kernels.most_violated_table(
        np.concatenate([[0.0], np.cumsum(positive)]),
        np.concatenate([[0.0], np.cumsum(negative)]),
        LOSSES[loss],
        beta,
        kernels.xlogx_table(decision.size),
        n_threads,
    )


def _all_tables(n):
    for a, b, c in itertools.product(range(n + 1), repeat=3):
        if a + b + c <= n:
            yield a, b, c, n - a - b - c


@pytest.mark.parametrize("beta", [0.5, 1.0, 2.0])
@pytest.mark.parametrize("loss", list(LOSSES))
@pytest.mark.parametrize("n", [1, 2, 3, 4, 7])
def test_table_loss_matches_metrics_on_every_table(n, loss, beta):
    for table in _all_tables(n):
        expected = table_loss(*table, loss, beta)
        got = kernels.table_loss(*table, LOSSES[loss], beta)
        assert got == pytest.approx(expected, abs=1e-12), table


@pytest.mark.parametrize("loss", list(LOSSES))
def test_table_loss_matches_metrics_on_large_tables(loss):
    rng = np.random.default_rng(0)
    for _ in range(200):
        table = rng.multinomial(rng.integers(2, 5000), rng.dirichlet(np.ones(4)))
        expected = table_loss(*map(int, table), loss, 1.5)
        got = kernels.table_loss(*table, LOSSES[loss], 1.5)
        assert got == pytest.approx(expected, abs=1e-9)


def test_table_loss_agrees_with_scikit_learn():
    from sklearn.metrics import normalized_mutual_info_score, rand_score

    rng = np.random.default_rng(1)
    for _ in range(50):
        s = rng.choice([-1, 1], size=40)
        y = rng.choice([-1, 1], size=40)
        table = contingency_tables((y > 0)[:, None], s)[0]
        assert kernels.table_loss(*table, kernels.LOSS_NMI) == pytest.approx(
            1 - normalized_mutual_info_score(s, y), abs=1e-12
        )
        assert kernels.table_loss(*table, kernels.LOSS_RAND) == pytest.approx(
            1 - rand_score(s, y), abs=1e-12
        )


@pytest.mark.parametrize("loss", list(LOSSES))
def test_table_losses_vectorised(loss):
    rng = np.random.default_rng(2)
    n = 37
    tables = np.array(
        [rng.multinomial(n, rng.dirichlet(np.ones(4))) for _ in range(30)]
    )
    out = np.empty(len(tables))
    kernels.table_losses(tables, LOSSES[loss], 2.0, kernels.xlogx_table(n), out)
    expected = [kernels.table_loss(*t, LOSSES[loss], 2.0) for t in tables]
    np.testing.assert_allclose(out, expected, rtol=0, atol=1e-15)


@pytest.mark.parametrize("loss", list(LOSSES))
@pytest.mark.parametrize("n", [1, 2, 5, 9, 12])
def test_scan_equals_brute_force_over_all_labellings(n, loss):
    rng = np.random.default_rng(n)
    for trial in range(3):
        scale = (0.3, 1.0, 3.0)[trial]
        decision = scale * rng.normal(size=n)
        if trial == 2 and n > 2:
            decision[:2] = 0.0  # zeros count as negative
        _, _, violation = _scan(decision, loss, beta=1.5)
        expected = most_violated_labelling(decision, loss, beta=1.5)
        assert violation == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("loss", list(LOSSES))
def test_scan_returns_a_table_that_attains_the_violation(loss):
    rng = np.random.default_rng(5)
    decision = rng.normal(size=60)
    c, b, violation = _scan(decision, loss)
    magnitude = np.abs(decision)
    positive = np.sort(magnitude[decision > 0])
    negative = np.sort(magnitude[decision <= 0])
    a, d = positive.size - c, negative.size - b
    value = kernels.table_loss(a, b, c, d, LOSSES[loss]) - 2.0 / 60 * (
        positive[:c].sum() + negative[:b].sum()
    )
    assert value == pytest.approx(violation, abs=1e-12)


@pytest.mark.parametrize("loss", list(LOSSES))
def test_scan_does_not_depend_on_threads(loss):
    rng = np.random.default_rng(6)
    decision = np.round(rng.normal(size=3001), 1)  # many ties
    assert _scan(decision, loss, n_threads=1) == _scan(decision, loss, n_threads=2)


def test_error_loss_scan_is_twice_the_hinge():
    # Theorem 2: with the error loss the most violated labelling flips
    # exactly the samples inside the margin, like CPMMC's constraint.
    rng = np.random.default_rng(7)
    decision = 1.5 * rng.normal(size=500)
    _, _, violation = _scan(decision, "error")
    assert violation == pytest.approx(
        2 * np.maximum(0, 1 - np.abs(decision)).mean(), abs=1e-12
    )


@given(
    st.lists(st.floats(-3, 3, allow_nan=False), min_size=1, max_size=9),
    st.sampled_from(list(LOSSES)),
)
@settings(max_examples=60, deadline=None, derandomize=True, database=None)
def test_scan_brute_force_property(values, loss):
    decision = np.array(values)
    _, _, violation = _scan(decision, loss)
    assert violation == pytest.approx(most_violated_labelling(decision, loss), abs=1e-9)
