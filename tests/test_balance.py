"""class_balance="auto": the rule of mmc/_balance.py and the estimators
that use it (CPMMC, MultivariateMMC, CPM3C, EvoMMC, FastEvoMMC)."""

import itertools
import math
import pickle
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_blobs
from sklearn.exceptions import ConvergenceWarning

from mmc import CPM3C, CPMMC, ODMC, EvoMMC, FastEvoMMC, MultivariateMMC
from mmc._balance import (
    NOISE_STANDARD_ERRORS,
    PAPER_CLASS_BALANCE,
    auto_class_balance,
    bound_prices,
    estimated_proportions,
    floor_of,
    kmeans_cluster_sizes,
    margin_balance,
    resolve_class_balance,
    size_balance,
    size_floors,
    uneven_proportions,
)
from mmc._balance_paths import fill_floors
from mmc._core._balance import bound_prices as auction
from mmc.metrics import clustering_error

TWO_CLUSTER = (CPMMC, MultivariateMMC, EvoMMC, FastEvoMMC)
ALL = (*TWO_CLUSTER, CPM3C)


def _blobs(sizes, n_features=10, separation=4.0, random_state=0):
    centres = np.zeros((len(sizes), n_features))
    for p in range(1, len(sizes)):
        centres[p, p - 1] = separation
    return make_blobs(list(sizes), centers=centres, random_state=random_state)


def _reference_auto(sizes, form):
    """The rule written out for two to k clusters, sample counts in, bound
    out: the sizes' own balance plus 0.03, even within the noise or not."""
    n, k = sum(sizes), len(sizes)
    largest, smallest = max(sizes) / n, min(sizes) / n
    # No empty cluster: at most the balance of one sample in the smallest
    # cluster and the others even (or that of the sizes themselves).
    one = 1.0 / n
    if form == "size":
        own, empty_excluded = 1.0 - k * smallest, 1.0 - k * one
    else:
        own = 2.0 * (largest - smallest)
        empty_excluded = 2.0 * ((1.0 - one) / (k - 1) - one)
    return min(own + 0.03, max(own, empty_excluded))


@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize("form", ["size", "margin"])
def test_auto_class_balance_matches_the_rule_written_out(seed, form):
    rng = np.random.default_rng(seed)
    k = int(rng.integers(2, 6))
    sizes = rng.integers(1, 400, size=k)
    balance_of = size_balance if form == "size" else margin_balance
    assert auto_class_balance(sizes, balance_of) == pytest.approx(
        _reference_auto(list(sizes), form), abs=1e-12
    )


def test_auto_never_admits_an_empty_cluster():
    # k-means cut off one sample of 1000 (an outlier): the papers' slack
    # would admit every sample in one cluster.
    sizes = [999, 1]
    assert auto_class_balance(sizes, size_balance) == pytest.approx(1.0 - 2 / 1000)
    assert auto_class_balance(sizes, margin_balance) == pytest.approx(
        2.0 * (0.999 - 0.001)
    )
    # Sampled estimate (1000 rows of 10,000): one sample of it, 10 rows.
    assert size_floors(sizes, 10_000, 2, "auto")[0] == pytest.approx(10.0)
    floors = size_floors([996, 1, 2, 1], 10_000, 4, "auto")
    np.testing.assert_allclose(floors, [10.0, 20.0, 30.0])


@pytest.mark.parametrize("cls", (*ALL, ODMC))
def test_one_outlier_does_not_make_auto_put_every_sample_in_one_cluster(cls):
    # k-means isolates the outlier; before, CPMMC and ODMC then put every
    # sample in one cluster (with the bound at 1) and warned of data with
    # no direction to split.
    X, _ = make_blobs(300, n_features=5, centers=2, random_state=0)
    X[0] *= 30.0
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        estimator = cls(random_state=0).fit(X)
    assert np.unique(estimator.labels_).size == 2
    assert estimator.class_balance_ < 1.0


def test_even_sizes_within_noise_keep_their_own_imbalance():
    n = 400
    # 3 / sqrt(400) = 0.15: proportions 0.575 / 0.425 are within the noise,
    # and admitted as they are, as uneven ones are: no jump at the test.
    assert NOISE_STANDARD_ERRORS / math.sqrt(n) == pytest.approx(0.15)
    assert uneven_proportions([230, 170]) is None
    assert auto_class_balance([230, 170], size_balance) == pytest.approx(0.15 + 0.03)
    assert auto_class_balance([200, 200], size_balance) == PAPER_CLASS_BALANCE
    assert auto_class_balance([200, 200, 200], margin_balance) == PAPER_CLASS_BALANCE
    assert auto_class_balance([241, 159], size_balance) == pytest.approx(0.205 + 0.03)
    assert auto_class_balance([241, 159], margin_balance) == pytest.approx(0.44)
    # Three clusters: the smallest one sets the size form.
    assert auto_class_balance([300, 300, 100], size_balance) == pytest.approx(
        1 - 3 * 100 / 700 + 0.03
    )
    # A cluster of one sample: the bound stops short of an empty one.
    assert auto_class_balance([1000, 1], size_balance) == pytest.approx(1 - 2 / 1001)


def test_two_cluster_noise_test_is_three_standard_errors_of_the_difference():
    # With two clusters the chi-square test is the proportions' difference
    # against 3 / sqrt(n), on every split of up to 600 samples near the
    # bound (and the even and one-cluster splits) but those exactly at it,
    # where the difference of two float proportions rounds either way.
    for n in range(2, 601):
        at_bound = (n + 3 * math.sqrt(n)) / 2
        near = range(max(0, int(at_bound) - 3), min(n, int(at_bound) + 4) + 1)
        for n_1 in sorted({0, n // 2, n, *near, *(n - m for m in near)}):
            n_2 = n - n_1
            if (n_1 - n_2) ** 2 == 9 * n:
                assert uneven_proportions([n_1, n_2]) is None
                continue
            even = abs(n_1 - n_2) / n <= NOISE_STANDARD_ERRORS / math.sqrt(n)
            assert (uneven_proportions([n_1, n_2]) is None) == even, (n_1, n_2)


@pytest.mark.parametrize("n_clusters", [3, 4, 10])
def test_even_multinomial_sizes_are_called_uneven_at_the_tests_level(n_clusters):
    # Sizes of an even split drawn at random: called uneven about 0.27 % of
    # the time for every k (the range of the proportions against
    # 3 / sqrt(n), the rule before, did so 0.09 % of the time at k = 3 and
    # never in 20,000 draws at k = 10: far more uneven sizes passed as even).
    rng = np.random.default_rng(n_clusters)
    draws = rng.multinomial(1000, np.full(n_clusters, 1.0 / n_clusters), size=20000)
    uneven = np.mean([uneven_proportions(sizes) is not None for sizes in draws])
    assert 0.0015 < uneven < 0.0045
    # The sizes k-means found on the digits {1, 2, 7, 9} (classes even):
    # the range rule called them even, the test does not.
    sizes = [136, 184, 196, 202]
    assert max(sizes) - min(sizes) <= 3 * math.sqrt(sum(sizes))
    assert uneven_proportions(sizes) is not None


def test_admit_noise_gives_even_sizes_the_noise_as_bound():
    n = 400  # noise spread 3 / sqrt(400) = 0.15
    # Even within the noise: the most uneven proportions still called even.
    np.testing.assert_allclose(
        estimated_proportions([230, 170], admit_noise=True), [0.425, 0.575]
    )
    np.testing.assert_allclose(
        estimated_proportions([230, 170], admit_noise=False), [0.575, 0.425]
    )
    assert auto_class_balance([230, 170], size_balance, admit_noise=True) == (
        pytest.approx(0.15 + PAPER_CLASS_BALANCE)
    )
    assert auto_class_balance([200, 200], margin_balance, admit_noise=True) == (
        pytest.approx(0.30 + PAPER_CLASS_BALANCE)
    )
    # Uneven sizes: their own proportions, with or without it.
    for admit in (False, True):
        assert auto_class_balance([241, 159], size_balance, admit_noise=admit) == (
            pytest.approx(0.205 + 0.03)
        )
    # No estimate (large sparse data): the papers' bound.
    assert auto_class_balance(None, size_balance, admit_noise=True) == 0.03
    # k clusters: one cluster half the spread below 1/k, one above; on few
    # samples the smallest keeps half its even share.
    k_even = estimated_proportions([n // 4] * 4, admit_noise=True)
    np.testing.assert_allclose(k_even, [0.25 - 0.075, 0.25, 0.25, 0.25 + 0.075])
    np.testing.assert_allclose(
        estimated_proportions([2, 2, 2], admit_noise=True), [1 / 6, 1 / 3, 1 / 2]
    )
    floors = size_floors([100] * 4, n, 4, "auto", admit_noise=True)
    assert floors[0] == pytest.approx(n * (0.175 - PAPER_CLASS_BALANCE / 4))
    assert n == sum([230, 170])


def test_resolve_class_balance_says_whether_the_estimate_is_uneven():
    X, _ = _blobs([300, 100])
    bound, uneven = resolve_class_balance(
        "auto", X, 2, size_balance, seed=0, with_uneven=True, admit_noise=True
    )
    assert uneven and bound == pytest.approx(1 - 2 * 100 / 400 + 0.03, abs=0.05)
    X, _ = _blobs([200, 200])
    bound, floors, uneven = resolve_class_balance(
        "auto",
        X,
        2,
        size_balance,
        seed=0,
        with_floors=True,
        with_uneven=True,
        admit_noise=True,
    )
    assert not uneven
    assert bound == pytest.approx(0.03 + 0.15)
    assert floors[0] == pytest.approx((1 - bound) * 400 / 2)
    assert resolve_class_balance(0.2, X, 2, size_balance, with_uneven=True) == (
        0.2,
        False,
    )


def test_kmeans_cluster_sizes_are_the_same_for_dense_csr_and_float32():
    X, _ = _blobs([300, 60])
    X -= X.min()  # non-negative, like counts: CSR keeps every entry
    sizes = kmeans_cluster_sizes(X, 2, seed=3)
    assert abs(min(sizes) - 60) <= 10  # k-means errs near the boundary
    np.testing.assert_array_equal(kmeans_cluster_sizes(sp.csr_matrix(X), 2, 3), sizes)
    X32 = X.astype(np.float32).astype(np.float64)
    np.testing.assert_array_equal(
        kmeans_cluster_sizes(X32.astype(np.float32), 2, 3),
        kmeans_cluster_sizes(X32, 2, 3),
    )


def _standardised_one_to_two_blobs():
    """The robustness suite's standardised 1000:500 blobs, on which two
    k-means optima of close inertia split the data 1:2 or near-evenly."""
    from mmc.bench._robustness_data import two_class_cases

    (case,) = [c for c in two_class_cases() if c.name == "blobs 1:2 std"]
    return case.load()


def test_the_estimate_is_the_clustering_of_ten_kmeans_runs():
    # The best of KMeans(n_init=10)'s number of runs finds the 1:2 split for
    # every seed; the best of 3 found a near-even split for 5 of 20 seeds
    # (bench/studies/balance_runs.md).
    X, _ = _standardised_one_to_two_blobs()
    for seed in range(20):
        sizes = kmeans_cluster_sizes(X, 2, seed=seed)
        assert abs(min(sizes) - 500) <= 30, (seed, sizes)


@pytest.mark.parametrize("cls", (CPMMC, CPM3C, MultivariateMMC, FastEvoMMC))
def test_auto_follows_the_unequal_split_of_standardised_blobs(cls):
    # With the estimate of 3 k-means runs these erred 5.7-27.4 %.
    X, y = _standardised_one_to_two_blobs()
    est = cls(random_state=0).fit(X)
    assert est.class_balance_ > 0.3
    assert clustering_error(y, est.labels_) < 0.05


def test_large_sparse_data_give_no_estimate(monkeypatch):
    monkeypatch.setattr("mmc._balance.SAMPLE_ROWS", 100)
    X, _ = _blobs([150, 50])
    X -= X.min()
    assert kmeans_cluster_sizes(sp.csr_matrix(X), 2, seed=0) is None
    assert kmeans_cluster_sizes(X, 2, seed=0).sum() == 100  # a dense sample
    assert auto_class_balance(None, size_balance) == PAPER_CLASS_BALANCE
    assert CPMMC(random_state=0).fit(sp.csr_matrix(X)).class_balance_ == 0.03
    assert CPMMC(random_state=0).fit(X).class_balance_ > 0.3


@pytest.mark.parametrize("cls", ALL)
def test_auto_on_even_clusters_admits_their_imbalance_or_takes_the_papers(cls):
    # k-means' clusters 143:157, even within the noise (3 / sqrt(300) =
    # 0.17): the bound admits their imbalance, or the papers' bound cuts
    # the graph better and its fit is taken (mmc/_balance_cut.py).
    X, y = _blobs([150, 150], n_features=4)
    auto = cls(random_state=0).fit(X)
    fixed = cls(random_state=0, class_balance=0.03).fit(X)
    if auto.paper_bound_cut_:
        assert auto.class_balance_ == fixed.class_balance_ == 0.03
        np.testing.assert_array_equal(auto.labels_, fixed.labels_)
        assert auto.objective_ == fixed.objective_
    else:
        margins = getattr(auto, "solver_", None) == "cutting-plane"
        noise = NOISE_STANDARD_ERRORS / math.sqrt(300) * (2 if margins else 1)
        assert 0.03 < auto.class_balance_ <= 0.03 + noise
    assert clustering_error(y, auto.labels_) < 0.05


# Gaussian blobs keep samples near the boundary changing side: the cutting
# plane of CPMMC and MultivariateMMC may stop at max_iter (the labels count).
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("cls", ALL)
def test_auto_admits_the_unequal_clusters_the_fixed_bound_splits(cls):
    X, y = _blobs([600, 150])
    auto = cls(random_state=0).fit(X)
    fixed = cls(random_state=0, class_balance=0.03).fit(X)
    # CPM3C's cutting plane bounds the mean margins (margin_balance), its
    # coordinate descent and the others the sizes (size_balance).
    margins = getattr(auto, "solver_", None) == "cutting-plane"
    expected = 2 * 0.6 + 0.03 if margins else 0.6 + 0.03
    assert auto.class_balance_ == pytest.approx(expected, abs=0.02)
    assert fixed.class_balance_ == 0.03
    auto_error = clustering_error(y, auto.labels_)
    assert auto_error < 0.08
    assert clustering_error(y, fixed.labels_) > auto_error + 0.1


@pytest.mark.parametrize("cls", (EvoMMC, FastEvoMMC, CPM3C))
def test_auto_with_k_clusters_lets_the_small_ones_keep_their_size(cls):
    X, y = _blobs([300, 150, 60], n_features=6, separation=6.0)
    est = cls(n_clusters=3, random_state=0).fit(X)
    assert est.class_balance_ > 0.03
    assert clustering_error(y, est.labels_) < 0.05


@pytest.mark.parametrize("cls", (CPMMC, EvoMMC))
def test_auto_takes_the_proportions_of_init_labels(cls):
    X, _ = _blobs([150, 150], n_features=4)
    init = np.r_[np.zeros(240, dtype=int), np.ones(60, dtype=int)]
    est = cls(init=init, n_init=1, random_state=0).fit(X)
    assert est.class_balance_ == pytest.approx(0.6 + 0.03)


@pytest.mark.parametrize("cls", ALL)
def test_fitted_auto_estimator_pickles_with_its_bound(cls):
    X, _ = _blobs([200, 50], n_features=4)
    est = cls(random_state=0).fit(X)
    clone = pickle.loads(pickle.dumps(est))
    assert clone.class_balance_ == est.class_balance_
    np.testing.assert_array_equal(clone.predict(X), est.predict(X))


@pytest.mark.parametrize("cls", ALL)
def test_class_balance_rejects_other_strings(cls):
    X, _ = _blobs([20, 20], n_features=2)
    with pytest.raises(ValueError, match="class_balance"):
        cls(class_balance="even").fit(X)


@pytest.mark.parametrize("cls", (CPMMC, MultivariateMMC))
def test_hyperplanes_reject_a_bound_that_admits_one_cluster(cls):
    # |mean_i f(x_i)| <= 1 admits w = 0, b = 1 at no cost: one cluster on
    # any data, so the bound is refused.
    X, _ = _blobs([20, 20], n_features=2)
    with pytest.raises(ValueError, match=r"'class_balance' .* \[0.0, 1.0\)"):
        cls(class_balance=1.0).fit(X)


def test_one_cluster_warning_names_a_loose_bound():
    X = np.random.default_rng(0).normal(size=(50, 3))
    with pytest.warns(ConvergenceWarning, match="class_balance_=0.99 lets"):
        CPMMC(class_balance=0.99, random_state=0).fit(X)


# --------------------------------------------------------------------------
# Floors on the cluster sizes (CPM3C with solver="coordinate-descent")


@pytest.mark.parametrize("seed", range(12))
def test_bound_prices_give_the_best_assignment_within_bounds(seed):
    """The priced assignment is the assignment of largest total score in
    which every cluster's size is within the bounds (all of them searched)."""
    rng = np.random.default_rng(seed)
    n, k = 8, 3
    scores = rng.normal(size=(n, k)) * rng.choice([0.1, 1.0, 5.0], size=(n, k))
    lower = float(rng.integers(0, n // k + 1))
    upper = float(rng.integers(-(-n // k), n + 1)) if seed % 2 else float(n)
    prices = bound_prices(scores, lower, upper)
    assignment = np.argmax(scores + prices, axis=1)
    counts = np.bincount(assignment, minlength=k)
    assert counts.min() >= lower and counts.max() <= upper
    best = max(
        scores[np.arange(n), list(labels)].sum()
        for labels in itertools.product(range(k), repeat=n)
        if lower <= np.bincount(labels, minlength=k).min()
        and np.bincount(labels, minlength=k).max() <= upper
    )
    assert scores[np.arange(n), assignment].sum() == pytest.approx(best, abs=1e-9)


@pytest.mark.parametrize("seed", range(12))
def test_bound_prices_keep_sizes_within_bounds(seed):
    rng = np.random.default_rng(seed)
    n, k = 500, int(rng.integers(2, 9))
    scores = rng.normal(size=(n, k)) + rng.normal(size=k) * 2.0
    lower, upper = 0.8 * n / k, 1.3 * n / k
    prices = bound_prices(scores, lower, upper)
    counts = np.bincount(np.argmax(scores + prices, axis=1), minlength=k)
    assert counts.min() >= lower and counts.max() <= upper
    # Within the bounds already: no price.
    assert not bound_prices(scores, 0.0, float(n)).any()


def _clusters_in_the_plane(seed, n=2000, k=20):
    """Scores of points for k clusters in the plane (minus squared
    distances): short clusters push each other below their floors, a few
    samples a round of the auction."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(k, 2)) * 2.0
    points = rng.normal(size=(n, 2))
    return -0.3 * ((points[:, None, :] - centres[None]) ** 2).sum(axis=2)


@pytest.mark.parametrize("seed", [0, 5, 8])  # 1596, 38464, 57875 rounds
def test_bound_prices_fill_the_floors_where_the_auction_stalls(seed):
    """Past the auction's cap (50 rounds per cluster), shortest augmenting
    paths fill the floors: the same assignment as the auction run to the
    end, every preference strict."""
    scores = _clusters_in_the_plane(seed)
    n, k = scores.shape
    lower = 0.8 * n / k
    prices = bound_prices(scores, lower, float(n))
    shifted = scores + prices
    assignment = np.argmax(shifted, axis=1)
    assert np.bincount(assignment, minlength=k).min() >= lower
    to_the_end = np.zeros(k)
    rounds = auction(scores, lower, float(n), to_the_end, 10**6)
    assert rounds > 50 * k  # the cap was reached
    np.testing.assert_array_equal(assignment, np.argmax(scores + to_the_end, axis=1))
    top_two = np.sort(shifted, axis=1)[:, -2:]
    assert (top_two[:, 1] - top_two[:, 0]).min() > 0


@pytest.mark.parametrize("seed", range(40))
@pytest.mark.parametrize("rounds", [0, 1, 3])
def test_fill_floors_gives_the_best_assignment_from_any_auction_state(seed, rounds):
    """From zero prices or from the auction stopped after a few rounds, the
    filled floors hold and the total score is the best of all assignments
    that meet them (all searched)."""
    rng = np.random.default_rng(seed)
    n, k = 8, 3
    scores = rng.normal(size=(n, k)) * rng.choice([0.1, 1.0, 5.0], size=(n, k))
    lower = float(rng.integers(1, n // k + 1)) - rng.choice([0.0, 0.5])
    prices = np.zeros(k)
    auction(scores, lower, float(n), prices, rounds)
    prices = fill_floors(scores, lower, prices)
    assignment = np.argmax(scores + prices, axis=1)
    assert np.bincount(assignment, minlength=k).min() >= lower
    best = max(
        scores[np.arange(n), list(labels)].sum()
        for labels in itertools.product(range(k), repeat=n)
        if np.bincount(labels, minlength=k).min() >= lower
    )
    assert scores[np.arange(n), assignment].sum() == pytest.approx(best, abs=1e-9)


def test_floor_of_the_smallest_clusters():
    floors = np.array([100.0, 250.0, 450.0])  # k = 4, shares 0.1, 0.15, 0.2
    assert floor_of(np.array([400, 120, 200, 280]), floors) == 0.0
    # The two smallest hold 210 < 250; the three smallest 460 >= 450.
    counts = np.array([430, 100, 110, 360])
    assert floor_of(counts, floors) == pytest.approx(125.0)
    # Raising the clusters below that floor (from larger ones) meets them all.
    raised = np.array([405, 125, 125, 345])
    assert (np.cumsum(np.sort(raised))[:-1] >= floors).all()


def test_size_floors():
    n, k = 1000, 4
    steps = np.arange(1, k)
    # A number: every cluster keeps (1 - class_balance) n / k.
    np.testing.assert_allclose(size_floors(None, n, k, 0.2), 0.8 * n / k * steps)
    # "auto" without an estimate: even shares less the papers' slack; on
    # k-means clusters even within the noise, their own shares less it.
    even = n * (steps / k - PAPER_CLASS_BALANCE * steps / k)
    np.testing.assert_allclose(size_floors(None, n, k, "auto"), even)
    noisy = n * (np.array([0.249, 0.499, 0.749]) - PAPER_CLASS_BALANCE * steps / k)
    assert uneven_proportions([251, 249, 250, 250]) is None
    np.testing.assert_allclose(size_floors([251, 249, 250, 250], n, k, "auto"), noisy)
    # "auto" on clearly uneven clusters: the shares of the smallest ones.
    sizes = [500, 100, 300, 100]
    expected = n * (np.array([0.1, 0.2, 0.5]) - PAPER_CLASS_BALANCE * steps / k)
    np.testing.assert_allclose(size_floors(sizes, n, k, "auto"), expected)
    # With two clusters: the floor of the smaller one, as for the bound of
    # the two-cluster estimators (|n_1 - n_2| <= class_balance n).
    balance = auto_class_balance([700, 300], size_balance)
    assert size_floors([700, 300], n, 2, "auto")[0] == pytest.approx(
        (1 - balance) * n / 2
    )
