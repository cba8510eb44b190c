"""Tests of mmc._core._crammer_singer against the NumPy twin in _reference.

The kernel keeps the weights on the centred samples implicitly (``w'`` on
the raw rows, the coefficients ``a`` of the mean, ``w'.mean`` and the
constant feature's weights ``v``); the twin keeps them explicitly, on
``z_i = (x_i - mean(x), s)``, and solves each sample's problem by bisection
instead of sorting. Both visit the samples in the same seeded orders.
"""

import numpy as np
import pytest
from _data import random_X
from _reference import crammer_singer_epochs, crammer_singer_sample

from mmc._core._crammer_singer import (
    dual_epochs,
    dual_round,
    epoch_offsets,
    remove_samples,
    seed_segments,
)
from mmc._rows import rows

CASES = [
    pytest.param(dtype, sparse, id=f"{np.dtype(dtype).name}-{('dense', 'csr')[sparse]}")
    for dtype in (np.float32, np.float64)
    for sparse in (False, True)
]


def _dense(X):
    return np.asarray(X.toarray() if hasattr(X, "toarray") else X, dtype=np.float64)


def _feasible_alpha(rng, labels, k, cap):
    """Random dual variables: alpha_ip <= 0 off the label, summing to zero,
    the label's at most cap."""
    n = labels.size
    alpha = -rng.random((n, k)) * (rng.random((n, k)) < 0.5)
    alpha[np.arange(n), labels] = 0.0
    total = -alpha.sum(axis=1)
    scale = np.where(total > cap, cap / np.maximum(total, 1e-300), 1.0)
    alpha *= scale[:, None]
    alpha[np.arange(n), labels] = -alpha.sum(axis=1)
    return alpha


class _State:
    """The kernel's weights, consistent with alpha."""

    def __init__(self, X, alpha, s):
        Xd = _dense(X)
        self.mean = Xd.mean(axis=0)
        self.x_dot_mean = Xd @ self.mean
        self.sq_norms = ((Xd - self.mean) ** 2).sum(axis=1) + s**2
        self.alpha = alpha.copy()
        self.W_T = np.ascontiguousarray((alpha.T @ Xd).T)
        self.mean_coef = alpha.sum(axis=0)
        self.W_dot_mean = self.W_T.T @ self.mean
        self.v = s * self.mean_coef
        self.s = s

    def centred_U(self):
        W = self.W_T.T - np.outer(self.mean_coef, self.mean)
        return np.hstack([W, self.v[:, None]])

    def epochs(
        self, X, labels, cap, seed, max_epochs, tol, segment_rows=1 << 16, n_rounds=1
    ):
        return dual_epochs(
            *rows(X),
            self.x_dot_mean,
            self.sq_norms,
            labels,
            self.alpha,
            self.W_T,
            self.mean_coef,
            self.W_dot_mean,
            self.v,
            self.s,
            float(self.mean @ self.mean),
            cap,
            seed,
            max_epochs,
            tol,
            segment_rows,
            n_rounds,
        )


@pytest.mark.parametrize("dtype, sparse", CASES)
@pytest.mark.parametrize("shape", [(1, 3), (7, 1), (40, 6), (90, 15)])
@pytest.mark.parametrize("k", [2, 3, 6])
@pytest.mark.parametrize("warm", [False, True])
@pytest.mark.parametrize(
    "segment_rows, n_rounds", [(1 << 16, 1), (8, 1), (8, 3), (1 << 16, 4)]
)
def test_dual_epochs_match_reference(
    dtype, sparse, shape, k, warm, segment_rows, n_rounds
):
    rng = np.random.default_rng(shape[0] * 100 + k + 7 * warm)
    X = random_X(rng, *shape, dtype, sparse, scales=(0.1, 1.0, 3.0))
    labels = rng.integers(k, size=shape[0]).astype(np.uint8)
    cap, s = 0.7, float(rng.choice([0.0, 1.3]))
    alpha = _feasible_alpha(rng, labels, k, cap) if warm else np.zeros((shape[0], k))
    state = _State(X, alpha, s)
    U0 = state.centred_U()
    n_epochs, violation = state.epochs(
        X, labels, cap, 12345, 4, -1.0, segment_rows, n_rounds
    )
    ref_alpha, ref_U, ref_epochs, ref_violation = crammer_singer_epochs(
        X, labels, alpha, U0, s, cap, 12345, 4, -1.0, segment_rows, n_rounds
    )
    assert n_epochs == ref_epochs
    np.testing.assert_allclose(state.alpha, ref_alpha, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(state.centred_U(), ref_U, rtol=1e-7, atol=1e-8)
    assert violation == pytest.approx(ref_violation, rel=1e-6, abs=1e-8)
    # The dual variables stay feasible.
    assert np.allclose(state.alpha.sum(axis=1), 0.0, atol=1e-9)
    off_label = np.ones_like(state.alpha, dtype=bool)
    off_label[np.arange(shape[0]), labels] = False
    assert (state.alpha[off_label] <= 1e-12).all()
    assert (state.alpha[~off_label] <= cap + 1e-12).all()


@pytest.mark.parametrize("dtype, sparse", CASES)
def test_dual_epochs_reach_the_svm(dtype, sparse):
    """At convergence the primal and dual objectives meet, and the KKT
    violation is below tol."""
    rng = np.random.default_rng(3)
    n, d, k = 60, 5, 3
    X = random_X(rng, n, d, dtype, sparse, density=1.0, scales=(1.0,))
    labels = rng.integers(k, size=n).astype(np.uint8)
    cap, s = 2.0 / n, 0.8
    state = _State(X, np.zeros((n, k)), s)
    n_epochs, violation = state.epochs(X, labels, cap, 1, 5000, 1e-9)
    assert violation <= 1e-9 and n_epochs < 5000
    U = state.centred_U()
    Z = np.hstack([_dense(X) - state.mean, np.full((n, 1), s)])
    scores = Z @ U.T
    e = np.ones((n, k))
    e[np.arange(n), labels] = 0.0
    hinge = (e + scores - scores[np.arange(n), labels][:, None]).max(axis=1)
    primal = 0.5 * (U**2).sum() + cap * hinge.sum()
    dual = -0.5 * (U**2).sum() - (e * state.alpha).sum()
    assert primal == pytest.approx(dual, rel=1e-7)


def test_sample_problem_sort_and_bisection_agree():
    """The kernel's closed form (through dual_epochs on one sample) and the
    bisection of the twin solve the same problem."""
    rng = np.random.default_rng(0)
    for _ in range(50):
        k = int(rng.integers(2, 8))
        gradient = rng.normal(size=k)
        label = int(rng.integers(k))
        A, cap = float(rng.uniform(0.1, 3)), float(rng.uniform(0.1, 2))
        alpha = np.zeros(k)
        expected = crammer_singer_sample(gradient, alpha, label, A, cap)
        # One sample x with |x - mean|^2 + s^2 = A: a single row, s = sqrt(A),
        # whose scores are the gradient minus the e_p (set through v).
        X = np.zeros((1, 1))
        labels = np.array([label], dtype=np.uint8)
        e = (np.arange(k) != label).astype(float)
        state = _State(X, alpha[None, :], np.sqrt(A))
        state.v = (gradient - e) / np.sqrt(A)
        state.epochs(X, labels, cap, 0, 1, 0.0)
        np.testing.assert_allclose(state.alpha[0], expected, atol=1e-9)


@pytest.mark.parametrize("dtype, sparse", CASES)
def test_remove_samples_keeps_the_weights_consistent(dtype, sparse):
    rng = np.random.default_rng(5)
    n, d, k, cap, s = 50, 7, 4, 0.5, 1.1
    X = random_X(rng, n, d, dtype, sparse)
    labels = rng.integers(k, size=n).astype(np.uint8)
    state = _State(X, _feasible_alpha(rng, labels, k, cap), s)
    removed = np.array([0, 3, 17, 49], dtype=np.int32)
    remove_samples(
        *rows(X),
        state.x_dot_mean,
        removed,
        state.alpha,
        state.W_T,
        state.mean_coef,
        state.W_dot_mean,
        state.v,
        s,
    )
    assert not state.alpha[removed].any()
    fresh = _State(X, state.alpha, s)
    np.testing.assert_allclose(state.W_T, fresh.W_T, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(state.mean_coef, fresh.mean_coef, atol=1e-12)
    np.testing.assert_allclose(state.W_dot_mean, fresh.W_dot_mean, atol=1e-8)
    np.testing.assert_allclose(state.v, fresh.v, atol=1e-12)


def test_dual_epochs_depend_on_the_seed_only_through_the_order():
    """The same seed gives the same result; another seed the same optimum."""
    rng = np.random.default_rng(8)
    X = random_X(rng, 40, 4, np.float64, False, density=1.0, scales=(1.0,))
    labels = rng.integers(3, size=40).astype(np.uint8)
    results = []
    for seed in (1, 1, 2):
        state = _State(X, np.zeros((40, 3)), 1.0)
        state.epochs(X, labels, 0.05, seed, 3000, 1e-10)
        results.append(state.centred_U())
    np.testing.assert_array_equal(results[0], results[1])
    np.testing.assert_allclose(results[0], results[2], atol=1e-7)


@pytest.mark.parametrize("dtype, sparse", CASES)
@pytest.mark.parametrize("block_segments", [(1, 2, 1), (4,), (2, 2)])
@pytest.mark.parametrize("n_rounds", [1, 3])
def test_dual_round_on_blocks_equals_dual_epochs(
    dtype, sparse, block_segments, n_rounds
):
    """Epochs run round after round, each block after block (whole segments
    each, the weights and offsets carried), give the in-memory epochs to
    the last bit."""
    rng = np.random.default_rng(len(block_segments))
    segment_rows, n, k, cap, s = 7, 27, 3, 0.4, 0.9
    X = random_X(rng, n, 5, dtype, sparse, scales=(0.3, 2.0))
    labels = rng.integers(k, size=n).astype(np.uint8)
    alpha = _feasible_alpha(rng, labels, k, cap)
    expected = _State(X, alpha, s)
    n_epochs, violation = expected.epochs(
        X, labels, cap, 99, 3, -1.0, segment_rows, n_rounds
    )
    state = _State(X, alpha, s)
    mean_sq_norm = float(state.mean @ state.mean)
    bounds = np.minimum(np.cumsum((0,) + block_segments) * segment_rows, n)
    blocks = list(zip(bounds[:-1], bounds[1:]))
    orders, states = [], []
    for a, b in blocks:
        orders.append(np.arange(b - a, dtype=np.intp))
        states.append(np.empty(-(-(b - a) // segment_rows), dtype=np.uint32))
        seed_segments(99, a // segment_rows, states[-1])
    offsets = np.empty(k)
    for _ in range(n_epochs):
        epoch_offsets(state.mean_coef, state.W_dot_mean, state.v, s, mean_sq_norm,
                      offsets)  # fmt: skip
        violations = []
        for round_ in range(n_rounds):
            for (a, b), order, generators in zip(blocks, orders, states):
                violations.append(
                    dual_round(
                        *rows(X[a:b]),
                        state.x_dot_mean[a:b],
                        state.sq_norms[a:b],
                        labels[a:b],
                        state.alpha[a:b],
                        state.W_T,
                        state.mean_coef,
                        state.W_dot_mean,
                        state.v,
                        offsets,
                        s,
                        mean_sq_norm,
                        cap,
                        order,
                        generators,
                        segment_rows,
                        round_,
                        n_rounds,
                    )
                )
    assert max(violations) == violation
    np.testing.assert_array_equal(state.alpha, expected.alpha)
    np.testing.assert_array_equal(state.W_T, expected.W_T)
    np.testing.assert_array_equal(state.v, expected.v)


def test_rounds_of_one_segment_are_one_shuffle():
    """Rounds cut each segment's shuffle into parts: one segment visited in
    rounds is visited as in one round."""
    rng = np.random.default_rng(4)
    X = random_X(rng, 50, 4, np.float64, False, scales=(1.0,))
    labels = rng.integers(3, size=50).astype(np.uint8)
    results = []
    for n_rounds in (1, 4):
        state = _State(X, np.zeros((50, 3)), 0.5)
        state.epochs(X, labels, 0.3, 7, 3, -1.0, 1 << 16, n_rounds)
        results.append(state.alpha)
    np.testing.assert_array_equal(results[0], results[1])


@pytest.mark.parametrize(
    "segment_rows, n_rounds, round_, match",
    [
        (0, 1, 0, "segment_rows and n_rounds"),
        (4, 0, 0, "segment_rows and n_rounds"),
        (4, 2, 2, "round_ must be in"),
        (4, 2, -1, "round_ must be in"),
    ],
)
def test_visiting_order_parameters_are_checked(segment_rows, n_rounds, round_, match):
    rng = np.random.default_rng(5)
    n, k = 8, 2
    X = random_X(rng, n, 3, np.float64, False, scales=(1.0,))
    labels = rng.integers(k, size=n).astype(np.uint8)
    state = _State(X, np.zeros((n, k)), 1.0)
    if round_ == 0:
        with pytest.raises(ValueError, match=match):
            state.epochs(X, labels, 0.5, 1, 2, -1.0, segment_rows, n_rounds)
    with pytest.raises(ValueError, match=match):
        dual_round(
            *rows(X), state.x_dot_mean, state.sq_norms, labels, state.alpha,
            state.W_T, state.mean_coef, state.W_dot_mean, state.v, np.zeros(k),
            1.0, 0.0, 0.5, np.arange(n, dtype=np.intp),
            np.ones(max(-(-n // max(segment_rows, 1)), 1), dtype=np.uint32),
            segment_rows, round_, n_rounds,
        )  # fmt: skip
