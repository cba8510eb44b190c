"""Tests of mmc._core._cpmmc against their NumPy twins in _reference.py.

The working set is stored as in mmc._cpmmc_constraints._SubsetConstraints: a
uint8 matrix
``constraints`` of shape (n_samples, capacity), statistics Z (capacity x
n_features), sign_sums, gram = Z Z' and Z_mean = Z x_mean, of which the first
``n_constraints`` rows/columns are in use. The kernels accumulate in float64
for both input dtypes, so float32 input is checked at float64 tolerances
against the reference computed from the same float32 values.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from _data import random_X
from _reference import (
    apply_flips,
    constraint_statistics,
    flip_signs,
    mean_margin_loss,
    most_violated,
    signs_of,
)

from mmc._core import _common, _cpmmc
from mmc._rows import rows

RTOL = 1e-10

SHAPES = [(1, 1), (1, 6), (12, 1), (40, 7), (150, 23)]


def _read_only(*arrays):
    for a in arrays:
        a.flags.writeable = False


def _csr_parts(X):
    return X.data, X.indices, X.indptr


# --------------------------------------------------------------------------
# flip_signs


def test_flip_signs_matches_reference():
    rng = np.random.default_rng(0)
    n = 500
    decision = rng.normal(size=n)
    decision[::17] = 0.0  # zero counts as negative
    decision[::23] = -0.0
    signs = rng.choice(np.array([-1, 1], dtype=np.int8), size=n)
    expected_signs, expected_flipped = flip_signs(decision, signs)
    flipped = np.full(n, -7, dtype=np.int32)
    _read_only(decision)
    n_flipped = _cpmmc.flip_signs(decision, signs, flipped)
    assert n_flipped == len(expected_flipped) > 0
    np.testing.assert_array_equal(signs, expected_signs)
    np.testing.assert_array_equal(flipped[:n_flipped], expected_flipped)
    # A second call at the same decision values flips nothing.
    assert _cpmmc.flip_signs(decision, signs, flipped) == 0
    np.testing.assert_array_equal(signs, expected_signs)


def test_flip_signs_edge_cases():
    signs = np.array([1, -1, 1], dtype=np.int8)
    flipped = np.empty(3, dtype=np.int32)
    decision = np.array([0.0, 1e-300, -1e-300])
    assert _cpmmc.flip_signs(decision, signs, flipped) == 3
    np.testing.assert_array_equal(signs, [-1, 1, -1])
    np.testing.assert_array_equal(flipped, [0, 1, 2])
    empty = np.empty(0)
    assert _cpmmc.flip_signs(empty, np.empty(0, np.int8), np.empty(0, np.int32)) == 0


# --------------------------------------------------------------------------
# apply_flips


class _State:
    """A working set whose statistics are consistent with ``signs``."""

    def __init__(self, rng, X, n_constraints, capacity, signs, membership=0.4):
        n_samples, n_features = X.shape
        self.X = X
        self.x_mean = np.asarray(X.mean(axis=0), dtype=np.float64).ravel()
        constraints = (rng.random((n_samples, capacity)) < membership).astype(np.uint8)
        # Some samples belong to no constraint in use (but may belong to the
        # unused columns, which the kernel must ignore).
        outsiders = rng.random(n_samples) < 0.25
        constraints[outsiders, :n_constraints] = 0
        constraints[0, 0] = 1  # sample 0 is a member, and tests flip it
        self.constraints = constraints
        self.n_constraints = n_constraints
        self.signs = signs
        k = n_constraints
        Z, sign_sums, gram, Z_mean = constraint_statistics(
            X, constraints, k, signs, self.x_mean
        )
        # The unused part of the buffers holds sentinels that must survive.
        self.Z = np.full((capacity, n_features), 7.0)
        self.Z[:k] = Z
        self.sign_sums = np.full(capacity, 7.0)
        self.sign_sums[:k] = sign_sums
        self.gram = np.full((capacity, capacity), 7.0)
        self.gram[:k, :k] = gram
        self.Z_mean = np.full(capacity, 7.0)
        self.Z_mean[:k] = Z_mean
        self.projections = np.zeros(capacity)

    def apply(self, flipped, n_flipped):
        return _cpmmc.apply_flips(
            *rows(self.X),
            flipped,
            n_flipped,
            self.signs,
            self.constraints,
            self.n_constraints,
            self.x_mean,
            self.Z,
            self.sign_sums,
            self.gram,
            self.Z_mean,
            self.projections,
        )

    def used(self):
        k = self.n_constraints
        return self.Z[:k], self.sign_sums[:k], self.gram[:k, :k], self.Z_mean[:k]

    def assert_sentinels_untouched(self):
        k = self.n_constraints
        assert np.all(self.Z[k:] == 7.0)
        assert np.all(self.sign_sums[k:] == 7.0)
        assert np.all(self.gram[k:] == 7.0) and np.all(self.gram[:, k:] == 7.0)
        assert np.all(self.Z_mean[k:] == 7.0)


def _assert_statistics_close(actual, expected, rtol=RTOL):
    """Compare (Z, sign_sums, gram, Z_mean) relative to the scale of each."""
    for name, a, e in zip(("Z", "sign_sums", "gram", "Z_mean"), actual, expected):
        scale = max(np.abs(e).max(initial=0.0), 1e-300)
        np.testing.assert_allclose(a, e, rtol=0, atol=rtol * scale, err_msg=name)


def _assert_within(actual, expected, bound):
    """``|actual - expected| <= bound`` elementwise (bound: an array)."""
    error = np.abs(np.asarray(actual) - expected)
    assert np.all(error <= bound), np.max(error - bound)


def _random_flips(rng, signs, fraction):
    """Decision values with the signs of ``signs`` except for about ``fraction``."""
    decision = signs * rng.uniform(0.1, 2.0, size=signs.shape)
    decision[rng.random(signs.shape) < fraction] *= -1.0
    return decision


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", SHAPES)
def test_apply_flips_one_call_matches_reference(shape, dtype, sparse):
    rng = np.random.default_rng(shape[0] * 31 + shape[1])
    n_samples, n_features = shape
    X = random_X(rng, n_samples, n_features, dtype, sparse)
    old_signs = rng.choice(np.array([-1, 1], dtype=np.int8), size=n_samples)
    state = _State(rng, X, n_constraints=5, capacity=8, signs=old_signs.copy())
    old = [a.copy() for a in state.used()]

    decision = _random_flips(rng, old_signs, 0.4)
    decision[0] = -old_signs[0]  # at least one flip
    flipped = np.full(n_samples, -1, dtype=np.int32)
    n_flipped = _cpmmc.flip_signs(decision, state.signs, flipped)
    _read_only(flipped, state.signs, state.constraints, state.x_mean)
    if sparse:
        _read_only(*_csr_parts(X))
    else:
        _read_only(X)
    n_updates = state.apply(flipped, n_flipped)

    *expected, expected_updates = apply_flips(
        X,
        flipped[:n_flipped],
        state.signs,
        state.constraints,
        5,
        state.x_mean,
        *old[:2],
    )
    assert n_updates == expected_updates > 0
    _assert_statistics_close(state.used(), expected)
    # The same state, recomputed from scratch at the new signs.
    scratch = constraint_statistics(X, state.constraints, 5, state.signs, state.x_mean)
    _assert_statistics_close(state.used(), scratch)
    state.assert_sentinels_untouched()


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_apply_flips_long_sequence_stays_exact(dtype, sparse):
    # Hundreds of incremental rank-one updates must not drift away from the
    # statistics recomputed from scratch, nor the gram from Z Z'.
    rng = np.random.default_rng(3)
    X = random_X(rng, 120, 9, dtype, sparse)
    signs = rng.choice(np.array([-1, 1], dtype=np.int8), size=120)
    state = _State(rng, X, n_constraints=6, capacity=6, signs=signs)
    flipped = np.empty(120, dtype=np.int32)
    total_flips = 0
    for _ in range(400):
        decision = _random_flips(rng, state.signs, rng.uniform(0.0, 0.3))
        n_flipped = _cpmmc.flip_signs(decision, state.signs, flipped)
        total_flips += n_flipped
        n_updates = state.apply(flipped, n_flipped)
        members = state.constraints[flipped[:n_flipped], :6]
        assert n_updates == members.sum()
    assert total_flips > 2000
    scratch = constraint_statistics(X, state.constraints, 6, state.signs, state.x_mean)
    _assert_statistics_close(state.used(), scratch, rtol=1e-11)
    # And the maintained products are those of the maintained Z.
    Z, sign_sums, gram, Z_mean = state.used()
    _assert_statistics_close(
        (Z, sign_sums, gram, Z_mean),
        (Z, sign_sums, Z @ Z.T, Z @ state.x_mean),
        rtol=1e-11,
    )


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_apply_flips_ignores_samples_outside_the_constraints(sparse):
    rng = np.random.default_rng(4)
    X = random_X(rng, 50, 4, np.float64, sparse)
    signs = rng.choice(np.array([-1, 1], dtype=np.int8), size=50)
    state = _State(rng, X, n_constraints=3, capacity=5, signs=signs)
    # Samples that belong to no constraint in use, though some of them belong
    # to the unused columns 3 and 4.
    outside = np.flatnonzero(state.constraints[:, :3].sum(axis=1) == 0)
    assert len(outside) > 3 and state.constraints[outside, 3:].any()
    before = [a.copy() for a in (state.Z, state.sign_sums, state.gram, state.Z_mean)]
    state.signs[outside] *= -1
    flipped = outside.astype(np.int32)
    assert state.apply(flipped, len(flipped)) == 0
    after = (state.Z, state.sign_sums, state.gram, state.Z_mean)
    for b, a in zip(before, after):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_apply_flips_reads_only_the_first_n_flipped(sparse):
    rng = np.random.default_rng(5)
    X = random_X(rng, 30, 5, np.float64, sparse)
    signs = rng.choice(np.array([-1, 1], dtype=np.int8), size=30)
    state = _State(rng, X, n_constraints=4, capacity=4, signs=signs, membership=0.9)
    old = [a.copy() for a in state.used()]
    state.signs[[2, 9]] *= -1
    # Stale entries after the first two (other valid indices) must be ignored.
    flipped = np.array([2, 9, 0, 1, 3, 4, 5], dtype=np.int32)
    n_updates = state.apply(flipped, 2)
    *expected, expected_updates = apply_flips(
        X, flipped[:2], state.signs, state.constraints, 4, state.x_mean, *old[:2]
    )
    assert n_updates == expected_updates > 0
    _assert_statistics_close(state.used(), expected)
    assert state.apply(flipped, 0) == 0
    _assert_statistics_close(state.used(), expected)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_apply_flips_no_samples(sparse):
    X = np.zeros((0, 3))
    X = sp.csr_matrix(X) if sparse else X
    buffers = dict(
        Z=np.zeros((2, 3)),
        sign_sums=np.zeros(2),
        gram=np.zeros((2, 2)),
        Z_mean=np.zeros(2),
        projections=np.zeros(2),
    )
    args = (
        np.empty(0, np.int32),
        0,
        np.empty(0, np.int8),
        np.zeros((0, 2), np.uint8),
        2,
        np.zeros(3),
        *buffers.values(),
    )
    assert _cpmmc.apply_flips(*rows(X), *args) == 0


# --------------------------------------------------------------------------
# most_violated


def _most_violated_kernel(X, decision, constraints, column, z):
    return _cpmmc.most_violated(*rows(X), decision, constraints, column, z)


def _decision_around_the_margin(rng, n_samples):
    decision = rng.normal(scale=1.2, size=n_samples)
    # Exactly on the margin (not selected), exactly zero (selected, sign -1).
    decision[rng.random(n_samples) < 0.1] = 1.0
    decision[rng.random(n_samples) < 0.1] = -1.0
    decision[rng.random(n_samples) < 0.1] = 0.0
    return decision


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", SHAPES)
def test_most_violated_matches_reference(shape, dtype, sparse):
    rng = np.random.default_rng(shape[0] * 7 + shape[1])
    n_samples, n_features = shape
    X = random_X(rng, n_samples, n_features, dtype, sparse)
    decision = _decision_around_the_margin(rng, n_samples)
    if n_samples == 1:
        decision[0] = -0.25
    constraints = rng.integers(0, 2, size=(n_samples, 5), dtype=np.uint8)
    before = constraints.copy()
    z = np.full(n_features, np.nan)  # overwritten entirely
    if sparse:
        _read_only(*_csr_parts(X))
    else:
        _read_only(X)
    _read_only(decision)
    violation, size, sign_sum = _most_violated_kernel(X, decision, constraints, 3, z)

    c, z_ref, violation_ref, size_ref, sign_sum_ref = most_violated(X, decision)
    np.testing.assert_array_equal(constraints[:, 3], c)
    others = [0, 1, 2, 4]
    np.testing.assert_array_equal(constraints[:, others], before[:, others])
    # Rounding is bounded relative to the sum of the absolute terms.
    bound = RTOL * np.abs(X.toarray() if sparse else X).astype(np.float64).sum(axis=0)
    bound /= n_samples
    _assert_within(z, z_ref, bound)
    assert violation == pytest.approx(violation_ref, rel=RTOL, abs=1e-15)
    assert size == pytest.approx(size_ref, rel=RTOL)
    assert sign_sum == pytest.approx(sign_sum_ref, rel=RTOL, abs=1e-15)
    # The column and z are the statistics of that constraint at the signs of
    # the decision values, as the working set keeps them.
    Z, sign_sums, _, _ = constraint_statistics(
        X, constraints[:, 3:4], 1, signs_of(decision), np.zeros(n_features)
    )
    _assert_within(z, Z[0], bound)
    assert sign_sum == pytest.approx(sign_sums[0], rel=RTOL, abs=1e-15)


def test_most_violated_hand_example():
    X = np.array([[1.0, 0.0], [0.0, 2.0], [3.0, 3.0], [1.0, 1.0]])
    decision = np.array([0.5, -0.25, 1.0, 0.0])
    constraints = np.full((4, 2), 9, dtype=np.uint8)
    z = np.zeros(2)
    for data in (X, sp.csr_matrix(X)):
        result = _most_violated_kernel(data, decision, constraints, 0, z)
        # Selected: samples 0 (s=+1), 1 (s=-1) and 3 (f=0, s=-1).
        np.testing.assert_array_equal(constraints[:, 0], [1, 1, 0, 1])
        np.testing.assert_array_equal(constraints[:, 1], 9)
        np.testing.assert_allclose(z, np.array([1.0 - 1.0, -2.0 - 1.0]) / 4)
        violation, size, sign_sum = result
        assert violation == pytest.approx((0.5 + 0.75 + 1.0) / 4, rel=1e-15)
        assert size == 3 / 4
        assert sign_sum == -1 / 4


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_most_violated_without_samples_inside_the_margin(sparse):
    rng = np.random.default_rng(6)
    X = random_X(rng, 20, 3, np.float64, sparse)
    decision = rng.choice([-1.0, 1.0], size=20) * rng.uniform(1.0, 3.0, size=20)
    constraints = np.ones((20, 2), dtype=np.uint8)
    z = np.full(3, np.nan)
    assert _most_violated_kernel(X, decision, constraints, 1, z) == (0.0, 0.0, 0.0)
    np.testing.assert_array_equal(constraints[:, 1], 0)
    np.testing.assert_array_equal(constraints[:, 0], 1)
    np.testing.assert_array_equal(z, 0.0)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_most_violated_no_samples(sparse):
    X = np.zeros((0, 3))
    X = sp.csr_matrix(X) if sparse else X
    constraints = np.zeros((0, 2), dtype=np.uint8)
    result = _most_violated_kernel(X, np.empty(0), constraints, 0, np.zeros(3))
    assert result == (0.0, 0.0, 0.0)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_most_violated_then_flips_keep_the_working_set_exact(sparse):
    # The cutting-plane driver's sequence: add the most violated constraint at
    # the current decision values (whose signs are the current signs), commit
    # its row of Z Z' and Z x_mean, move, flip, update incrementally.
    rng = np.random.default_rng(7)
    n_samples, n_features, capacity = 90, 6, 6
    X = random_X(rng, n_samples, n_features, np.float64, sparse)
    x_mean = np.asarray(X.mean(axis=0)).ravel()
    decision = rng.normal(scale=0.8, size=n_samples)
    signs = signs_of(decision)
    constraints = np.zeros((n_samples, capacity), dtype=np.uint8)
    Z = np.zeros((capacity, n_features))
    sign_sums, Z_mean = np.zeros(capacity), np.zeros(capacity)
    gram, projections = np.zeros((capacity, capacity)), np.zeros(capacity)
    flipped = np.empty(n_samples, dtype=np.int32)
    for k in range(capacity):
        _, _, sign_sums[k] = _most_violated_kernel(X, decision, constraints, k, Z[k])
        gram[k, : k + 1] = gram[: k + 1, k] = Z[: k + 1] @ Z[k]
        Z_mean[k] = Z[k] @ x_mean
        for _ in range(5):
            decision = decision + rng.normal(scale=0.3, size=n_samples)
            n_flipped = _cpmmc.flip_signs(decision, signs, flipped)
            args = (
                flipped,
                n_flipped,
                signs,
                constraints,
                k + 1,
                x_mean,
                Z,
                sign_sums,
                gram,
                Z_mean,
                projections,
            )
            _cpmmc.apply_flips(*rows(X), *args)
        expected = constraint_statistics(X, constraints, k + 1, signs, x_mean)
        _assert_statistics_close(
            (Z[: k + 1], sign_sums[: k + 1], gram[: k + 1, : k + 1], Z_mean[: k + 1]),
            expected,
        )


# --------------------------------------------------------------------------
# the mean hinge loss of two-cluster MMC (mmc._core._common)


def test_mean_margin_loss_matches_reference():
    rng = np.random.default_rng(8)
    for n_samples in (1, 2, 37, 1000):
        decision = _decision_around_the_margin(rng, n_samples)
        _read_only(decision)
        loss = _common.mean_hinge_loss(decision, absolute=True)
        assert loss == pytest.approx(mean_margin_loss(decision), rel=1e-12, abs=1e-300)
        # It is the violation of the most violated constraint.
        X = np.ones((n_samples, 1))
        violation, _, _ = _cpmmc.most_violated(
            *rows(X), decision, np.zeros((n_samples, 1), np.uint8), 0, np.zeros(1)
        )
        assert loss == pytest.approx(violation, rel=1e-12, abs=1e-300)
    assert _common.mean_hinge_loss(np.empty(0), absolute=True) == 0.0
    assert _common.mean_hinge_loss(
        np.array([0.0, 1.0, -3.0, 0.5]), absolute=True
    ) == pytest.approx(1.5 / 4)
