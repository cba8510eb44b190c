"""Kernels of MultivariateMMC against their twins in _reference.py."""

import itertools

import numpy as np
import pytest
from _reference import (
    contingency_tables,
    most_violated_labelling,
    most_violated_table,
    table_loss,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from mmc._core import _multivariate as kernels
from mmc._core import _table_search as search

LOSSES = {
    "error": kernels.LOSS_ERROR,
    "nmi": kernels.LOSS_NMI,
    "rand": kernels.LOSS_RAND,
    "fbeta": kernels.LOSS_FBETA,
}


def _prefixes(decision):
    """The estimator's sorting: each side by |f|, prefix sums from 0."""
    decision = np.asarray(decision, dtype=np.float64)
    magnitude = np.abs(decision)
    positive = np.sort(magnitude[decision > 0])
    negative = np.sort(magnitude[decision <= 0])
    return (
        np.concatenate([[0.0], np.cumsum(positive)]),
        np.concatenate([[0.0], np.cumsum(negative)]),
    )


def _scan(decision, loss, beta=1.0, n_threads=1, exhaustive=False):
    """The estimator's use of the scan."""
    pos_prefix, neg_prefix = _prefixes(decision)
    return search.most_violated_table(
        pos_prefix,
        neg_prefix,
        LOSSES[loss],
        beta,
        kernels.xlogx_table(np.size(decision)),
        n_threads,
        exhaustive,
    )


def _decisions(rng, n):
    """Decision values of several kinds: spread, tied, zeros, one-sided."""
    kind = rng.integers(6)
    if kind == 0:
        return rng.normal(scale=rng.choice([0.01, 0.3, 1.0, 5.0]), size=n)
    if kind == 1:  # many ties in |f| on both sides
        return rng.choice([-2, -1, -0.5, 0.5, 1, 2], size=n) * 1.0
    if kind == 2:  # ties and zeros (zeros count as negative)
        return rng.integers(-2, 3, size=n) * 0.25
    if kind == 3:  # unbalanced sides
        return rng.normal(loc=rng.choice([-1.5, 1.5]), size=n)
    if kind == 4:  # one side only
        return rng.choice([-1, 1]) * (rng.random(n) + 0.1)
    return np.round(rng.normal(size=n), 1)  # margins of a fit, rounded


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


@pytest.mark.parametrize("beta", [0.5, 1.0, 2.0])
@pytest.mark.parametrize("loss", ["nmi", "fbeta"])
def test_search_equals_numpy_full_scan(loss, beta):
    # The branch and bound must return the full scan's maximiser, ties
    # broken the same way, to the bit: many seeds, kinds and sizes.
    rng = np.random.default_rng(11)
    for n in [1, 2, 3, 4, 5, 8, 13, 40, 97, 300]:
        for _ in range(12):
            decision = _decisions(rng, n)
            expected = most_violated_table(*_prefixes(decision), loss, beta)
            got = _scan(decision, loss, beta=beta)
            pos_prefix, neg_prefix = _prefixes(decision)
            exact = (
                min(pos_prefix.size, neg_prefix.size) > 1 if loss == "nmi" else n > 3
            )
            if exact:
                assert got == expected, (n, decision.tolist())
            else:
                assert got[2] == pytest.approx(expected[2], abs=1e-12)


@pytest.mark.parametrize("loss", ["nmi", "fbeta"])
def test_exhaustive_scan_equals_numpy_full_scan(loss):
    rng = np.random.default_rng(12)
    for n in [4, 9, 50, 200]:
        for _ in range(6):
            decision = _decisions(rng, n)
            if min(map(np.size, _prefixes(decision))) == 1:
                continue
            expected = most_violated_table(*_prefixes(decision), loss, 1.5)
            assert _scan(decision, loss, beta=1.5, exhaustive=True) == expected


@pytest.mark.parametrize("loss", list(LOSSES))
def test_search_equals_exhaustive_scan_on_larger_inputs(loss):
    rng = np.random.default_rng(13)
    for n in [1000, 2001, 4000]:
        for _ in range(4):
            decision = _decisions(rng, n)
            assert _scan(decision, loss) == _scan(decision, loss, exhaustive=True)


@pytest.mark.parametrize("loss", ["nmi", "fbeta"])
def test_search_on_the_scans_of_a_fit(loss, monkeypatch):
    # The decision values the solver meets: every scan of a small fit.
    from sklearn.datasets import make_blobs

    import mmc._multivariate_constraints as constraints
    from mmc import MultivariateMMC

    scans = []

    def record(pos_prefix, neg_prefix, *args):
        scans.append((pos_prefix.copy(), neg_prefix.copy(), args))
        return search.most_violated_table(pos_prefix, neg_prefix, *args)

    X, _ = make_blobs(600, n_features=5, centers=2, cluster_std=3.0, random_state=0)
    monkeypatch.setattr(constraints, "most_violated_table", record)
    MultivariateMMC(loss=loss, n_init=1, random_state=0).fit(X)
    assert scans
    for pos_prefix, neg_prefix, (code, beta, xlogx, _) in scans:
        expected = most_violated_table(pos_prefix, neg_prefix, loss, beta)
        got = search.most_violated_table(pos_prefix, neg_prefix, code, beta, xlogx, 1)
        assert got == expected
