"""The size floors of EvoMMC and FastEvoMMC with more than two clusters: one
floor on every cluster from a number, the floors of the j smallest clusters
from uneven k-means clusters (as CPM3C's), and the starts that meet them."""

import numpy as np
import pytest
from sklearn.datasets import load_digits, make_blobs

from mmc import EvoMMC, FastEvoMMC
from mmc._balance import min_cluster_size
from mmc._evo_multiclass import (
    kmeans_start,
    random_start,
    search_floors,
    uniform_floor,
)
from mmc.metrics import clustering_error

ESTIMATORS = (EvoMMC, FastEvoMMC)


def _smallest_sums(labels, n_clusters):
    """Sizes of the j smallest clusters together, j = 1 .. k - 1."""
    return np.cumsum(np.sort(np.bincount(labels, minlength=n_clusters)))[:-1]


def test_search_floors_from_a_bound_or_from_kmeans_shares():
    np.testing.assert_array_equal(
        search_floors(100, 4, 0.2), min_cluster_size(100, 4, 0.2) * np.arange(1, 4)
    )
    # The floors of "auto" rounded up, but not past an integer they are
    # within rounding of, and at least one sample a cluster.
    shares = np.array([10.2, 45.0 + 1e-12])
    np.testing.assert_array_equal(search_floors(100, 3, 0.03, shares), [11, 45])
    np.testing.assert_array_equal(search_floors(100, 3, 0.03, [0.2, 0.5]), [1, 2])
    assert search_floors(100, 3, 0.03, shares).dtype == np.intp
    # Never past the most even clusters' j smallest, floor(j n / k).
    np.testing.assert_array_equal(search_floors(26, 3, 0.03, [8.9, 17.4]), [8, 17])
    assert uniform_floor(np.array([20, 40, 60])) == 20
    assert uniform_floor(np.array([11, 45])) == 23


def test_kmeans_start_meets_floors_of_the_smallest_clusters():
    # Three groups of 4, 6 and 30 samples; k-means finds them, and the
    # floors ask for 8 in the smallest cluster and 25 in the two smallest.
    rng = np.random.RandomState(0)
    coordinates = np.concatenate(
        [rng.normal(c, 0.1, size=(m, 1)) for c, m in ((0, 4), (5, 6), (10, 30))]
    )
    floors = np.array([8, 25], dtype=np.intp)
    labels = kmeans_start(coordinates, 3, floors, 0)
    assert np.all(_smallest_sums(labels, 3) >= floors)
    # Floors the k-means clusters meet leave them as they are.
    met = kmeans_start(coordinates, 3, np.array([4, 10], dtype=np.intp), 0)
    np.testing.assert_array_equal(np.sort(np.bincount(met)), [4, 6, 30])


@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_uneven_kmeans_clusters_bound_the_smallest_clusters_together(Estimator):
    X, y = make_blobs(
        [400, 200, 100, 50], centers=[[0, 0], [8, 0], [0, 8], [8, 8]], random_state=0
    )
    est = Estimator(n_clusters=4, random_state=0).fit(X)
    floors = est.size_floors_
    # From the k-means shares (350 / 750 of the data in the three smallest
    # clusters, less 0.03 * 3 / 4), not one floor for every cluster.
    assert floors.shape == (3,)
    assert not np.all(floors == floors[0] * np.arange(1, 4))
    assert floors[2] == pytest.approx(350 - 0.0225 * 750, abs=1)
    assert np.all(_smallest_sums(est.labels_, 4) >= floors)
    assert clustering_error(y, est.labels_) < 0.01
    # A number keeps one floor on every cluster; two clusters have none.
    fixed = Estimator(n_clusters=4, class_balance=0.3, random_state=0).fit(X)
    step = min_cluster_size(X.shape[0], 4, 0.3)
    np.testing.assert_array_equal(fixed.size_floors_, step * np.arange(1, 4))
    assert Estimator(random_state=0).fit(X[y < 2]).size_floors_ is None


def test_the_floors_hold_two_small_clusters_apart():
    # On the ten digits k-means' smallest cluster has 90 samples of 1,797:
    # one floor of that size on every cluster let the search keep two
    # clusters of 83 and 98 samples (two digits merged, 20 % error). The
    # floors of the two smallest clusters together ask for about 230.
    X, _ = load_digits(return_X_y=True)
    est = FastEvoMMC(n_clusters=10, random_state=0).fit(X / 16.0)
    floors = est.size_floors_
    assert floors[1] > 2 * floors[0] + 30
    # labels_ are the classifier's clusters, which may hold a sample or two
    # of the search's labelling elsewhere (see labels_).
    assert np.all(_smallest_sums(est.labels_, 10) >= floors - 2)


def test_random_starts_meet_floors_that_one_equal_floor_cannot():
    # 26 samples, 9 clusters: the floors of the two smallest (5) ask for 3
    # in every cluster, 27 samples; the most even sizes (2, and 3 for 8
    # clusters) meet them.
    floors = np.array([2, 5, 8, 11, 14, 17, 20, 23], dtype=np.intp)
    labels = random_start(26, 9, floors, np.random.RandomState(0))
    assert np.all(_smallest_sums(labels, 9) >= floors)
    # Floors one equal size meets: every cluster gets it, the rest at random.
    labels = random_start(40, 4, np.array([5, 10, 15]), np.random.RandomState(0))
    assert np.bincount(labels, minlength=4).min() >= 5


@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_random_starts_on_a_few_samples_of_uneven_clusters(Estimator, monkeypatch):
    # Found by a fuzz: the floors of these 26 samples ask for more than 9
    # clusters of one equal size hold (filling them raised a ValueError of
    # NumPy shapes). (The fit at the papers' bound, which cuts these
    # samples' graph better, is kept out: its floors are equal.)
    monkeypatch.setattr("mmc._evo_base.keep_the_better_cut", lambda *args, **kw: None)
    X, _ = make_blobs([6, 1, 1, 1, 1, 1, 5, 9, 1], n_features=4, random_state=6)
    est = Estimator(n_clusters=9, init="random", random_state=6).fit(X)
    assert uniform_floor(est.size_floors_) * 9 > X.shape[0]
    assert est.labels_.shape == (26,)
