"""Tests of mmc._core._cpm3c against NumPy references written here.

The working set is stored as in mmc._cpm3c_constraints.MulticlassConstraints: a uint8
matrix ``constraints`` of shape (n_samples, capacity) holding 0 (sample not
in the constraint) or r + 1 (its competing class r), the statistics B
(capacity, k, d), the offsets A (capacity,) and the Frobenius Gram matrix of
the B_c, of which the first ``n_constraints`` entries are in use. The kernels
accumulate in float64 for both input dtypes, so float32 input is checked at
float64 tolerances against the reference computed from the same values.
"""

import numpy as np
import pytest
from _data import dense, random_X

from mmc._core import _common, _cpm3c
from mmc._rows import rows

RTOL = 1e-10

SHAPES = [(1, 1), (1, 6), (12, 1), (40, 7), (150, 23)]
CASES = [
    pytest.param(dtype, sparse, id=f"{np.dtype(dtype).name}-{('dense', 'csr')[sparse]}")
    for dtype in (np.float32, np.float64)
    for sparse in (False, True)
]


def _call(name, X, *args, **kwargs):
    """Call a kernel on the rows of X, dense or CSR."""
    return getattr(_cpm3c, name)(*rows(X), *args, **kwargs)


def _read_only(*arrays):
    for a in arrays:
        a.flags.writeable = False


# --------------------------------------------------------------------------
# NumPy references


def ref_top_two(scores, pinned_to=None):
    """Best class (lowest index among ties), best other class, and the gap."""
    n, k = scores.shape
    if pinned_to is None:
        order = np.argsort(-scores, axis=1, kind="stable")
        best, runner = order[:, 0], order[:, 1]
    else:
        best = np.asarray(pinned_to, dtype=np.intp)
        others = scores.copy()
        others[np.arange(n), best] = -np.inf
        runner = np.argmax(others, axis=1)
    rows = np.arange(n)
    return best, runner, scores[rows, best] - scores[rows, runner]


def ref_statistics(X, assignment, constraints, n_constraints, k):
    """B_c, A_c and the Frobenius Gram matrix of the B_c, from scratch."""
    X = dense(X).astype(np.float64)
    n, d = X.shape
    B = np.zeros((n_constraints, k, d))
    A = np.zeros(n_constraints)
    for c in range(n_constraints):
        members = np.flatnonzero(constraints[:, c])
        competitor = constraints[members, c].astype(np.intp) - 1
        np.add.at(B[c], assignment[members], X[members])
        np.add.at(B[c], competitor, -X[members])
        A[c] = np.sum(competitor != assignment[members])
    B /= n
    A /= n
    flat = B.reshape(n_constraints, -1)
    return B, A, flat @ flat.T


# --------------------------------------------------------------------------
# assign


@pytest.mark.parametrize("dtype, sparse", CASES)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("k", [2, 3, 7])
def test_assign_matches_reference(dtype, sparse, shape, k):
    rng = np.random.default_rng(shape[0] * 31 + k)
    X = random_X(rng, *shape, dtype, sparse)
    n = shape[0]
    W_T = rng.normal(size=(shape[1], k))
    intercepts = rng.normal(size=k)
    scores = dense(X).astype(np.float64) @ W_T + intercepts
    best, runner_ref, gap_ref = ref_top_two(scores)
    old = rng.integers(k, size=n).astype(np.uint8)
    assignment = old.copy()
    runner = np.full(n, 255, dtype=np.uint8)
    gap = np.full(n, np.nan)
    changed = np.full(n, -1, dtype=np.int32)
    previous = np.full(n, 255, dtype=np.uint8)
    _read_only(W_T, intercepts)
    n_changed = _call(
        "assign", X, W_T, intercepts, assignment, runner, gap, changed, previous
    )
    np.testing.assert_array_equal(assignment, best)
    np.testing.assert_array_equal(runner, runner_ref)
    np.testing.assert_allclose(gap, gap_ref, rtol=RTOL, atol=1e-12)
    moved = np.flatnonzero(best != old)
    assert n_changed == moved.size
    np.testing.assert_array_equal(changed[:n_changed], moved)
    np.testing.assert_array_equal(previous[:n_changed], old[moved])
    # A second pass at the same W changes nothing.
    assert (
        _call("assign", X, W_T, intercepts, assignment, runner, gap, changed, previous)
        == 0
    )


@pytest.mark.parametrize("dtype, sparse", CASES)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("k", [2, 3, 7])
def test_score_matrix_matches_reference(dtype, sparse, shape, k):
    rng = np.random.default_rng(shape[0] * 17 + k)
    X = random_X(rng, *shape, dtype, sparse)
    W_T = rng.normal(size=(shape[1], k))
    intercepts = rng.normal(size=k)
    _read_only(W_T, intercepts)
    scores = np.full((shape[0], k), np.nan)
    _call("score_matrix", X, W_T, intercepts, scores)
    expected = dense(X).astype(np.float64) @ W_T + intercepts
    np.testing.assert_allclose(scores, expected, rtol=RTOL, atol=1e-9)
    # The scores are those assign ranks: the same best class and gap.
    assignment = np.zeros(shape[0], dtype=np.uint8)
    runner = np.empty(shape[0], dtype=np.uint8)
    gap = np.empty(shape[0])
    changed = np.empty(shape[0], dtype=np.int32)
    previous = np.empty(shape[0], dtype=np.uint8)
    _call("assign", X, W_T, intercepts, assignment, runner, gap, changed, previous)
    best, _, gap_ref = ref_top_two(scores)
    np.testing.assert_array_equal(assignment, best)
    np.testing.assert_array_equal(gap, gap_ref)


@pytest.mark.parametrize("dtype, sparse", CASES)
@pytest.mark.parametrize("k", [2, 5])
def test_assign_pinned_keeps_the_classes(dtype, sparse, k):
    rng = np.random.default_rng(k)
    X = random_X(rng, 60, 9, dtype, sparse)
    W_T = rng.normal(size=(9, k))
    intercepts = np.zeros(k)
    pinned = rng.integers(k, size=60).astype(np.uint8)
    assignment = pinned.copy()
    runner = np.empty(60, dtype=np.uint8)
    gap = np.empty(60)
    changed = np.empty(60, dtype=np.int32)
    previous = np.empty(60, dtype=np.uint8)
    n_changed = _call(
        "assign",
        X,
        W_T,
        intercepts,
        assignment,
        runner,
        gap,
        changed,
        previous,
        True,
    )
    assert n_changed == 0
    np.testing.assert_array_equal(assignment, pinned)
    scores = dense(X).astype(np.float64) @ W_T
    _, runner_ref, gap_ref = ref_top_two(scores, pinned_to=pinned)
    np.testing.assert_array_equal(runner, runner_ref)
    np.testing.assert_allclose(gap, gap_ref, rtol=RTOL, atol=1e-12)
    assert (gap < 0).any()  # a pinned class need not be the best


def test_assign_ties_go_to_the_lowest_index():
    X = np.zeros((3, 2))
    for k in (2, 4):
        assignment = np.full(3, k - 1, dtype=np.uint8)
        runner = np.empty(3, dtype=np.uint8)
        gap = np.empty(3)
        _call(
            "assign",
            X,
            np.ones((2, k)),
            np.zeros(k),
            assignment,
            runner,
            gap,
            np.empty(3, np.int32),
            np.empty(3, np.uint8),
        )
        np.testing.assert_array_equal(assignment, 0)
        np.testing.assert_array_equal(runner, 1)
        np.testing.assert_array_equal(gap, 0.0)


# --------------------------------------------------------------------------
# most_violated and the loss


@pytest.mark.parametrize("dtype, sparse", CASES)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("k", [2, 4])
def test_most_violated_matches_reference(dtype, sparse, shape, k):
    rng = np.random.default_rng(shape[0] + 100 * k)
    X = random_X(rng, *shape, dtype, sparse)
    n = shape[0]
    assignment = rng.integers(k, size=n).astype(np.uint8)
    runner = ((assignment + rng.integers(1, k, size=n)) % k).astype(np.uint8)
    gap = rng.uniform(-0.5, 2.0, size=n)
    capacity, column = 5, 2
    constraints = rng.integers(0, k + 1, size=(n, capacity)).astype(np.uint8)
    before = constraints.copy()
    B = np.full((k, shape[1]), np.nan)
    _read_only(assignment, runner, gap)
    violation, size = _call(
        "most_violated", X, assignment, runner, gap, constraints, column, B
    )
    inside = gap < 1.0
    expected_column = np.where(inside, runner.astype(np.intp) + 1, 0)
    np.testing.assert_array_equal(constraints[:, column], expected_column)
    others = np.arange(capacity) != column
    np.testing.assert_array_equal(constraints[:, others], before[:, others])
    B_ref, A_ref, _ = ref_statistics(X, assignment, constraints[:, [column]], 1, k)
    np.testing.assert_allclose(B, B_ref[0], rtol=RTOL, atol=1e-12)
    assert size == pytest.approx(inside.mean(), rel=RTOL)
    assert size == pytest.approx(A_ref[0], rel=RTOL)
    expected = np.maximum(0.0, 1.0 - gap).mean()
    assert violation == pytest.approx(expected, rel=RTOL)
    assert _common.mean_hinge_loss(gap) == pytest.approx(expected, rel=RTOL)


def test_loss_of_no_samples_is_zero():
    assert _common.mean_hinge_loss(np.empty(0)) == 0.0


# --------------------------------------------------------------------------
# apply_changes


@pytest.mark.parametrize("dtype, sparse", CASES)
@pytest.mark.parametrize("shape", [(1, 3), (30, 1), (80, 11)])
@pytest.mark.parametrize("k", [2, 3, 6])
def test_apply_changes_matches_recomputation(dtype, sparse, shape, k):
    rng = np.random.default_rng(7 * shape[0] + k)
    X = random_X(rng, *shape, dtype, sparse)
    n = shape[0]
    capacity, n_constraints = 6, 4
    constraints = rng.integers(0, k + 1, size=(n, capacity)).astype(np.uint8)
    constraints[rng.random((n, capacity)) < 0.3] = 0
    old = rng.integers(k, size=n).astype(np.uint8)
    B0, A0, G0 = ref_statistics(X, old, constraints, n_constraints, k)
    B = np.full((capacity, k, shape[1]), 5.0)
    offsets = np.full(capacity, 5.0)
    gram = np.full((capacity, capacity), 5.0)
    B[:n_constraints], offsets[:n_constraints] = B0, A0
    gram[:n_constraints, :n_constraints] = G0

    new = old.copy()
    moving = rng.random(n) < 0.4
    new[moving] = (old[moving] + rng.integers(1, k, size=moving.sum())) % k
    changed = np.flatnonzero(new != old).astype(np.int32)
    previous = old[changed]
    _read_only(constraints, new, previous, changed)
    n_updates = _call(
        "apply_changes",
        X,
        changed,
        previous,
        changed.size,
        new,
        constraints,
        n_constraints,
        B,
        offsets,
        gram,
        np.empty(capacity),
    )
    B1, A1, G1 = ref_statistics(X, new, constraints, n_constraints, k)
    scale = 1.0 + np.abs(B1).max()
    np.testing.assert_allclose(B[:n_constraints], B1, rtol=RTOL, atol=1e-12 * scale)
    np.testing.assert_allclose(offsets[:n_constraints], A1, rtol=RTOL, atol=1e-14)
    np.testing.assert_allclose(
        gram[:n_constraints, :n_constraints], G1, rtol=1e-9, atol=1e-10 * scale**2
    )
    # Slots beyond n_constraints are left alone.
    assert np.all(B[n_constraints:] == 5.0)
    assert np.all(offsets[n_constraints:] == 5.0)
    assert np.all(gram[n_constraints:] == 5.0)
    assert np.all(gram[:, n_constraints:] == 5.0)
    expected = (constraints[changed, :n_constraints] != 0).sum()
    assert n_updates == expected


# --------------------------------------------------------------------------
# class_sums


@pytest.mark.parametrize("dtype, sparse", CASES)
@pytest.mark.parametrize("k", [2, 5])
def test_class_sums_match_reference(dtype, sparse, k):
    rng = np.random.default_rng(k + 11)
    X = random_X(rng, 70, 8, dtype, sparse)
    assignment = rng.integers(k, size=70).astype(np.uint8)
    runner = ((assignment + rng.integers(1, k, size=70)) % k).astype(np.uint8)
    sums = np.full((k, 8), np.nan)
    runner_sums = np.full((k, k, 8), np.nan)
    _call("class_sums", X, assignment, runner, sums, runner_sums)
    Xd = dense(X).astype(np.float64)
    expected = np.zeros((k, 8))
    np.add.at(expected, assignment, Xd)
    expected_pairs = np.zeros((k, k, 8))
    np.add.at(expected_pairs, (assignment, runner), Xd)
    np.testing.assert_allclose(sums, expected, rtol=RTOL, atol=1e-12)
    np.testing.assert_allclose(runner_sums, expected_pairs, rtol=RTOL, atol=1e-12)
