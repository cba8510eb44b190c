"""Tests of mmc.metrics against scikit-learn and brute-force references."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import normalized_mutual_info_score, rand_score
from sklearn.metrics.cluster import contingency_matrix

from mmc.metrics import (
    _accuracy_from_table,
    _fbeta_from_table,
    _nmi_from_table,
    _rand_from_table,
    clustering_accuracy,
    clustering_error,
    contingency_table,
    normalized_mutual_info,
    pairwise_fbeta,
    rand_index,
)

SCORES = [clustering_accuracy, normalized_mutual_info, rand_index, pairwise_fbeta]
SYMMETRIC_SCORES = [clustering_accuracy, normalized_mutual_info, rand_index]


# --------------------------------------------------------------------------
# Independent references


def _brute_force_accuracy(labels_true, labels_pred):
    """Best agreement over all one-to-one relabelings of the classes."""
    _, t = np.unique(labels_true, return_inverse=True)
    _, p = np.unique(labels_pred, return_inverse=True)
    m = max(t.max(), p.max()) + 1
    best = 0
    for perm in itertools.permutations(range(m)):
        best = max(best, int(np.sum(np.asarray(perm)[t] == p)))
    return best / len(t)


def _brute_force_fbeta(labels_true, labels_pred, beta):
    """Pair-counting F_beta by looping over all pairs of samples."""
    n = len(labels_true)
    same_true = same_pred = same_both = 0
    for i in range(n):
        for j in range(i + 1, n):
            st_ = labels_true[i] == labels_true[j]
            sp_ = labels_pred[i] == labels_pred[j]
            same_true += st_
            same_pred += sp_
            same_both += st_ and sp_
    # Documented conventions: 0/0 precision or recall is 1; F is 0 if P = R = 0.
    precision = same_both / same_pred if same_pred > 0 else 1.0
    recall = same_both / same_true if same_true > 0 else 1.0
    if precision == 0 and recall == 0:
        return 0.0
    return (1 + beta**2) * precision * recall / (beta**2 * precision + recall)


def _random_labelings(n_draws, seed, max_n=40):
    """Pairs of random labelings, many shapes, with the corner cases included."""
    rng = np.random.default_rng(seed)
    for _ in range(n_draws):
        n = int(rng.integers(1, max_n + 1))
        k_true = int(rng.integers(1, n + 1))
        k_pred = int(rng.integers(1, n + 1))
        yield rng.integers(k_true, size=n), rng.integers(k_pred, size=n)
    for n in (1, 2, 5, 17):
        ones, singletons = np.zeros(n, dtype=int), np.arange(n)
        yield ones, ones
        yield ones, singletons
        yield singletons, ones
        yield singletons, singletons
        yield rng.integers(3, size=n), ones
        yield singletons, rng.integers(2, size=n)


RANDOM_LABELINGS = list(_random_labelings(300, seed=0))


def _small_random_labelings(n_draws, seed):
    """Labelings with at most 6 groups (the brute-force accuracy is factorial)."""
    rng = np.random.default_rng(seed)
    for _ in range(n_draws):
        n = int(rng.integers(1, 25))
        yield (
            rng.integers(int(rng.integers(1, 7)), size=n),
            rng.integers(int(rng.integers(1, 7)), size=n),
        )


# --------------------------------------------------------------------------
# Known values


def test_contingency_table_example():
    table = contingency_table([0, 0, 1, 1, 1, 2], ["b", "a", "a", "a", "c", "c"])
    assert table.dtype == np.int64
    np.testing.assert_array_equal(table, [[1, 1, 0], [2, 0, 1], [0, 0, 1]])


def test_contingency_table_matches_sklearn():
    for labels_true, labels_pred in RANDOM_LABELINGS:
        np.testing.assert_array_equal(
            contingency_table(labels_true, labels_pred),
            contingency_matrix(labels_true, labels_pred),
        )


def test_known_values():
    y = [0, 0, 0, 0, 1, 1, 1, 1]
    c = [0, 0, 0, 1, 1, 1, 1, 1]
    assert clustering_accuracy(y, c) == 7 / 8
    assert clustering_error(y, c) == pytest.approx(1 / 8)
    # Pairs together: truth 6 + 6 = 12, prediction 3 + 10 = 13, both 3 + 6 = 9.
    # Agreements: 9 together in both + (28 - 12 - 13 + 9) apart in both = 21.
    assert rand_index(y, c) == pytest.approx(21 / 28)
    precision, recall = 9 / 13, 9 / 12
    assert pairwise_fbeta(y, c) == pytest.approx(
        2 * precision * recall / (precision + recall)
    )
    assert pairwise_fbeta(y, c, beta=2.0) == pytest.approx(
        5 * precision * recall / (4 * precision + recall)
    )
    # NMI by hand: H(y) = log 2, H(c) = -(3/8 log 3/8 + 5/8 log 5/8).
    p = np.array([[3, 1], [0, 4]]) / 8
    mi = sum(
        p[i, j] * np.log(p[i, j] / (p[i].sum() * p[:, j].sum()))
        for i in range(2)
        for j in range(2)
        if p[i, j] > 0
    )
    h_c = -(3 / 8 * np.log(3 / 8) + 5 / 8 * np.log(5 / 8))
    assert normalized_mutual_info(y, c) == pytest.approx(mi / ((np.log(2) + h_c) / 2))


def test_accuracy_non_square_tables():
    # 2 classes, 4 clusters: only two clusters can be matched.
    assert clustering_accuracy([0, 0, 0, 1, 1, 1], [0, 1, 1, 2, 2, 3]) == 4 / 6
    # 3 classes, 1 cluster: the largest class is matched.
    assert clustering_accuracy([0, 1, 1, 2, 2, 2], [5, 5, 5, 5, 5, 5]) == 3 / 6


@pytest.mark.parametrize(
    "labels_true, labels_pred, expected",
    [
        ([0, 0, 0], [0, 0, 0], 1.0),  # no pair apart anywhere
        ([0, 1, 2], [0, 1, 2], 1.0),  # no pair together anywhere: P = R = 0/0
        ([7], [3], 1.0),  # a single sample: no pairs at all
        ([0, 0, 0], [0, 1, 2], 0.0),  # prediction all singletons: R = 0
        ([0, 1, 2], [0, 0, 0], 0.0),  # truth all singletons: P = 0
        ([0, 0, 1, 1], [0, 1, 0, 1], 0.0),  # P = R = 0
    ],
)
def test_fbeta_degenerate_cases(labels_true, labels_pred, expected):
    for beta in (0.5, 1.0, 2.0):
        assert pairwise_fbeta(labels_true, labels_pred, beta=beta) == expected


def test_single_sample():
    assert clustering_accuracy([1], [0]) == 1.0
    assert normalized_mutual_info([1], [0]) == 1.0
    assert rand_index([1], [0]) == 1.0


# --------------------------------------------------------------------------
# Against scikit-learn and brute force


def test_nmi_matches_sklearn():
    for labels_true, labels_pred in RANDOM_LABELINGS:
        expected = normalized_mutual_info_score(labels_true, labels_pred)
        got = normalized_mutual_info(labels_true, labels_pred)
        assert got == pytest.approx(expected, rel=1e-10, abs=1e-12)


def test_nmi_degenerate_cases_match_sklearn():
    ones, singletons = np.zeros(6, dtype=int), np.arange(6)
    cases = [(ones, ones), (ones, singletons), (singletons, ones), ([3], [4])]
    for labels_true, labels_pred in cases:
        expected = normalized_mutual_info_score(labels_true, labels_pred)
        assert normalized_mutual_info(labels_true, labels_pred) == expected


def test_rand_matches_sklearn():
    for labels_true, labels_pred in RANDOM_LABELINGS:
        expected = rand_score(labels_true, labels_pred)
        assert rand_index(labels_true, labels_pred) == pytest.approx(
            expected, rel=1e-12
        )


@pytest.mark.parametrize("beta", [0.25, 1.0, 3.0])
def test_fbeta_matches_brute_force(beta):
    for labels_true, labels_pred in RANDOM_LABELINGS:
        expected = _brute_force_fbeta(labels_true, labels_pred, beta)
        assert pairwise_fbeta(labels_true, labels_pred, beta=beta) == pytest.approx(
            expected, rel=1e-12, abs=1e-15
        )


def test_accuracy_matches_brute_force():
    for labels_true, labels_pred in _small_random_labelings(200, seed=1):
        expected = _brute_force_accuracy(labels_true, labels_pred)
        assert clustering_accuracy(labels_true, labels_pred) == pytest.approx(
            expected, rel=1e-12
        )
        assert clustering_error(labels_true, labels_pred) == pytest.approx(
            1 - expected, abs=1e-12
        )


# --------------------------------------------------------------------------
# Properties


@pytest.mark.parametrize("score", SCORES)
def test_bounds(score):
    for labels_true, labels_pred in RANDOM_LABELINGS:
        assert 0.0 <= score(labels_true, labels_pred) <= 1.0


@pytest.mark.parametrize("score", SCORES)
def test_identical_partitions_score_one(score):
    rng = np.random.default_rng(3)
    for labels_true, _ in RANDOM_LABELINGS:
        # Same partition, other cluster names.
        names = rng.permutation(100)[: labels_true.max() + 1] + 1000
        assert score(labels_true, names[labels_true]) == pytest.approx(1.0)


@pytest.mark.parametrize("score", SCORES)
def test_invariant_to_renaming(score):
    rng = np.random.default_rng(4)
    for labels_true, labels_pred in RANDOM_LABELINGS:
        expected = score(labels_true, labels_pred)
        cluster_names = np.array([f"c{i}" for i in rng.permutation(50)])
        class_names = -rng.permutation(50)
        got = score(class_names[labels_true], cluster_names[labels_pred])
        assert got == pytest.approx(expected, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("score", SYMMETRIC_SCORES)
def test_symmetric(score):
    for labels_true, labels_pred in RANDOM_LABELINGS:
        assert score(labels_true, labels_pred) == pytest.approx(
            score(labels_pred, labels_true), rel=1e-12, abs=1e-15
        )


@pytest.mark.parametrize("beta", [0.3, 1.0, 2.5])
def test_fbeta_swap_arguments_inverts_beta(beta):
    # Swapping the labelings swaps pair precision and recall.
    for labels_true, labels_pred in RANDOM_LABELINGS:
        assert pairwise_fbeta(labels_true, labels_pred, beta=beta) == pytest.approx(
            pairwise_fbeta(labels_pred, labels_true, beta=1 / beta),
            rel=1e-12,
            abs=1e-15,
        )


def test_fbeta_not_symmetric_for_beta_not_one():
    labels_true, labels_pred = [0, 0, 0, 0, 1, 1], [0, 0, 1, 1, 2, 2]
    assert pairwise_fbeta(labels_true, labels_pred, beta=2.0) != pytest.approx(
        pairwise_fbeta(labels_pred, labels_true, beta=2.0)
    )


@pytest.mark.parametrize(
    "from_table",
    [
        _accuracy_from_table,
        _nmi_from_table,
        _rand_from_table,
        lambda table: _fbeta_from_table(table, 0.5),
    ],
    ids=["accuracy", "nmi", "rand", "fbeta"],
)
def test_from_table_ignores_empty_rows_and_columns(from_table):
    # A scan over fixed-shape (e.g. 2 x 2) tables meets empty rows/columns.
    for labels_true, labels_pred in RANDOM_LABELINGS[:100]:
        table = contingency_table(labels_true, labels_pred)
        padded = np.zeros((table.shape[0] + 1, table.shape[1] + 2), dtype=np.int64)
        padded[1:, 1:-1] = table
        assert from_table(padded) == pytest.approx(
            from_table(table), rel=1e-12, abs=1e-15
        )


labelings = st.integers(min_value=1, max_value=30).flatmap(
    lambda n: st.tuples(
        st.lists(st.integers(0, 4), min_size=n, max_size=n),
        st.lists(st.integers(0, n), min_size=n, max_size=n),
    )
)


@settings(max_examples=60, deadline=None)
@given(labelings)
def test_hypothesis_matches_sklearn(pair):
    labels_true, labels_pred = pair
    assert normalized_mutual_info(labels_true, labels_pred) == pytest.approx(
        normalized_mutual_info_score(labels_true, labels_pred), rel=1e-10, abs=1e-12
    )
    assert rand_index(labels_true, labels_pred) == pytest.approx(
        rand_score(labels_true, labels_pred), rel=1e-12
    )


@settings(max_examples=60, deadline=None)
@given(labelings, st.floats(min_value=0.05, max_value=20.0))
def test_hypothesis_fbeta_and_error(pair, beta):
    labels_true, labels_pred = pair
    f = pairwise_fbeta(labels_true, labels_pred, beta=beta)
    assert f == pytest.approx(
        _brute_force_fbeta(labels_true, labels_pred, beta), rel=1e-12, abs=1e-15
    )
    error = clustering_error(labels_true, labels_pred)
    assert 0.0 <= error < 1.0
    # Perfect scores go together: all mean "same partition".
    same = error == 0.0
    assert (f == pytest.approx(1.0)) == same
    assert (rand_index(labels_true, labels_pred) == 1.0) == same


# --------------------------------------------------------------------------
# Bad input


@pytest.mark.parametrize("score", SCORES + [clustering_error, contingency_table])
def test_empty_input_raises(score):
    with pytest.raises(ValueError, match="empty"):
        score([], [])


@pytest.mark.parametrize("score", SCORES + [clustering_error, contingency_table])
def test_mismatched_lengths_raise(score):
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        score([0, 1, 1], [0, 1])


@pytest.mark.parametrize("score", SCORES + [clustering_error, contingency_table])
def test_2d_labels_raise(score):
    with pytest.raises(ValueError, match="1d"):
        score([[0, 1], [1, 0]], [[0, 1], [1, 0]])


@pytest.mark.parametrize("beta", [0, 0.0, -1.0, np.nan, np.inf, "1"])
def test_fbeta_bad_beta_raises(beta):
    with pytest.raises(ValueError, match="beta must be a finite positive number"):
        pairwise_fbeta([0, 0, 1], [0, 1, 1], beta=beta)


@pytest.mark.parametrize(
    "labels_true, labels_pred",
    [
        ([0.0, 1.0, np.nan], [0, 1, 1]),
        ([0, 1, 1], [0.0, np.inf, 1.0]),
        (np.array([0, 1, float("nan")], dtype=object), [0, 1, 1]),
    ],
    ids=["nan-true", "inf-pred", "nan-object"],
)
def test_non_finite_labels_are_rejected(labels_true, labels_pred):
    # NaN != NaN: a NaN label would silently count as a class of its own.
    for score in (clustering_error, normalized_mutual_info, rand_index):
        with pytest.raises(ValueError, match="NaN"):
            score(labels_true, labels_pred)


def test_labels_that_cannot_be_ordered_are_rejected_clearly():
    with pytest.raises(TypeError, match="comparable"):
        clustering_error(np.array([0, 1, None], dtype=object), [0, 1, 1])
