"""Tests of the bounds of mmc._core._kmeans.assign (Hamerly's, for Lloyd steps).

A pass with bounds must give the labels, changes and cluster sums of a pass
that compares every sample with every centre, to the last bit: on exact
inputs with ties (where a bound that forgets the rounding tolerance would
keep a label the tie rule changes) and on random ones, dense and CSR,
float32 and float64. The bounds themselves are checked against distances
computed by NumPy, and a pass whose centres did not move must skip samples
(or the bounds would be dead code).
"""

import numpy as np
import pytest
import scipy.sparse as sp
from _data import random_X
from test_core_kmeans import (
    CASES,
    N_VECTORS,
    NO_BOUNDS,
    SHAPES,
    _assign,
    _integer_X,
    _vectors,
)

from mmc._kmeans import LloydBounds, rounding_scale, stable_kmeans


def _pass(X, centres, labels, bounds):
    """sums, nearest (NaN where not computed) and n_changed of a pass."""
    _, nearest, sums, n_changed, _, _ = _assign(X, centres, labels, bounds=bounds)
    return sums, nearest, n_changed


def _moves(rng, centres, step, exact):
    """Centres of the next step: some fixed, some moved a little, one far
    (exact inputs move by multiples of 1/4, which keep the arithmetic exact)."""
    moved = centres.copy()
    k = len(centres)
    which = rng.random(k) < 0.6
    if exact:
        moved[which] += rng.integers(-1, 2, size=moved[which].shape) * 0.25
    else:
        moved[which] += rng.normal(size=moved[which].shape) * 0.05 * (1 + step)
    if step == 2:
        moved[k // 2] = -moved[k // 2]
    return moved


def _lloyd_both_ways(X, centres, rng, exact, n_steps=6):
    """Labels, changes and sums of passes with and without bounds."""
    X64 = rounding_scale(X)[0]
    X = X if sp.issparse(X) else np.ascontiguousarray(X)
    bounds = LloydBounds(X.shape[0], X.shape[1])
    plain = np.full(X.shape[0], -1, np.int32)
    bounded = plain.copy()
    for step in range(n_steps):
        expected = _pass(X, centres, plain, NO_BOUNDS)
        got = _pass(X, centres, bounded, bounds.arguments(centres))
        np.testing.assert_array_equal(bounded, plain)
        np.testing.assert_array_equal(got[0], expected[0])  # sums, every bit
        assert got[2] == expected[2]
        _check_bounds(X64, centres, bounded, bounds)
        centres = _moves(rng, centres, step, exact)


def _check_bounds(X, centres, labels, bounds):
    """upper >= the distance to the label's centre, lower <= the others'."""
    dense = X.toarray() if sp.issparse(X) else X
    D = np.sqrt(((dense[:, None, :] - centres[None, :, :]) ** 2).sum(axis=2))
    own = D[np.arange(len(D)), labels]
    D[np.arange(len(D)), labels] = np.inf
    slack = 1e-12 * (1.0 + np.abs(D).max(initial=0.0, where=np.isfinite(D)))
    assert (bounds.upper >= own - slack).all()
    assert (bounds.lower <= D.min(axis=1) + slack).all()


@pytest.mark.parametrize("dtype, sparse", CASES)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("k", N_VECTORS)
def test_bounded_passes_are_full_passes_on_exact_inputs(dtype, sparse, shape, k):
    rng = np.random.default_rng(shape[0] * 5 + k)
    X = _integer_X(rng, *shape, dtype, sparse)
    _lloyd_both_ways(X, _vectors(rng, X, k, exact=True), rng, exact=True)


@pytest.mark.parametrize("dtype, sparse", CASES)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("k", N_VECTORS)
def test_bounded_passes_are_full_passes_on_random_inputs(dtype, sparse, shape, k):
    rng = np.random.default_rng(shape[0] * 3 + k)
    X = random_X(rng, *shape, dtype, sparse, scales=(1.0,))
    _lloyd_both_ways(X, _vectors(rng, X, k, exact=False), rng, exact=False)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_a_pass_after_unmoved_centres_skips_the_samples_it_can(sparse):
    # Two far clusters: every sample's bounds prove its label once the
    # centres stop moving, so no sample is compared (nearest stays NaN).
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(size=(40, 3)), rng.normal(size=(41, 3)) + 50.0])
    X = sp.csr_matrix(X) if sparse else X
    centres = np.array([[0.0, 0.0, 0.0], [50.0, 50.0, 50.0]])
    bounds = LloydBounds(*X.shape)
    labels = np.full(X.shape[0], -1, np.int32)
    _, nearest, _ = _pass(X, centres, labels, bounds.arguments(centres))
    assert not np.isnan(nearest).any()
    expected = labels.copy()
    sums, nearest, n_changed = _pass(X, centres, labels, bounds.arguments(centres))
    assert np.isnan(nearest).all() and n_changed == 0
    np.testing.assert_array_equal(labels, expected)
    np.testing.assert_array_equal(sums, _pass(X, centres, labels, NO_BOUNDS)[0])


def test_stable_kmeans_is_lloyd_without_bounds():
    # The centres of stable_kmeans, against Lloyd steps that compare every
    # sample (the kernel's pass without bounds), from the same seeding.
    rng = np.random.default_rng(1)
    X = np.vstack([rng.normal(size=(300, 8)) + shift for shift in (0.0, 1.5, 3.0)])
    for variant in (X, sp.csr_matrix(X)):
        for k in (2, 3, 7):
            got = stable_kmeans(variant, k, np.random.RandomState(k), 300)
            seeded = stable_kmeans(variant, k, np.random.RandomState(k), 0)
            X64 = rounding_scale(variant)[0]
            labels = np.full(X.shape[0], -1, np.int32)
            centres = seeded
            for _ in range(300):
                sums, _, n_changed = _pass(X64, centres, labels, NO_BOUNDS)
                if n_changed == 0:
                    break
                counts = np.bincount(labels, minlength=k)[:, None]
                centres = np.where(counts > 0, sums / np.maximum(counts, 1), centres)
            np.testing.assert_array_equal(got, centres)


def test_assign_refuses_bounds_of_the_wrong_length():
    X = np.ones((5, 2))
    centres = np.zeros((2, 2))
    labels = np.full(5, -1, np.int32)
    with pytest.raises(ValueError, match="one bound per sample"):
        _pass(X, centres, labels, (np.zeros(4), np.zeros(4), np.zeros(0)))
    with pytest.raises(ValueError, match="one value per centre"):
        _pass(X, centres, labels, (np.zeros(5), np.zeros(5), np.zeros(3)))
    with pytest.raises(ValueError, match="one value per centre"):
        _pass(X, centres, labels, (np.zeros(0), np.zeros(0), np.zeros(2)))


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_bounds_allow_for_the_tie_rule_within_rounding(sparse):
    # x = (1, 0) is nearer to c1 = (2, 0) than to c0 = (-1e-12, 0) by far
    # more than the rounding bound (about 2e-14 here): label 1. Moving c0 to
    # (-2e-15, 0) leaves it nearer to c1 by less than the bound, so the tie
    # rule gives the first centre, 0, although the bounds still show c1 as
    # the nearer: a bound that proves only "c1 is nearer" keeps label 1.
    X = np.array([[1.0, 0.0], [3.0, 0.0]])
    X = sp.csr_matrix(X) if sparse else X
    bounds = LloydBounds(*X.shape)
    labels = np.full(2, -1, np.int32)
    for c0, expected in ((-1e-12, [1, 1]), (-2e-15, [0, 1])):
        centres = np.array([[c0, 0.0], [2.0, 0.0]])
        _pass(X, centres, labels, bounds.arguments(centres))
        np.testing.assert_array_equal(labels, expected)
