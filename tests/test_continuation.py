"""The continuation in C of CPMMC and MultivariateMMC (``continuation``):
every value of C in turn, a value that empties a cluster not carried on,
and what it is for (one-hot categorical data)."""

import numpy as np
import pytest
from sklearn.cluster import KMeans
from sklearn.datasets import make_blobs

import mmc._cutting_plane
from mmc import CPMMC, MultivariateMMC
from mmc._cutting_plane_run import N_LEVELS
from mmc.bench._robustness_data import one_hot_clusters
from mmc.metrics import clustering_error

ESTIMATORS = [CPMMC, MultivariateMMC]


@pytest.fixture
def run_values(monkeypatch):
    """The value of C of every cutting-plane run, in order."""
    values = []
    run = mmc._cutting_plane.cutting_plane_run

    def recorded(working_set, **params):
        values.append(params["C"])
        return run(working_set, **params)

    monkeypatch.setattr(mmc._cutting_plane, "cutting_plane_run", recorded)
    return values


@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_each_run_goes_through_every_value_of_c(Estimator, run_values):
    X, _ = make_blobs(200, centers=2, n_features=4, random_state=0)
    # (class_balance="auto": "stable" would fit subsamples first.)
    params = dict(init="pca", n_init=1, class_balance="auto", random_state=0)
    Estimator(continuation=False, **params).fit(X)
    (C,) = run_values
    run_values.clear()
    Estimator(continuation=True, **params).fit(X)
    expected = [C / 2.0 ** (N_LEVELS - 1 - level) for level in range(N_LEVELS)]
    np.testing.assert_allclose(run_values, expected, rtol=1e-12)


def test_a_value_that_empties_a_cluster_is_not_carried_on(monkeypatch):
    # Blobs of 1000 and 111 samples: at C / 8 the balance constraint bounds
    # the mean of decision values inside the margin, and the run from the
    # principal direction puts every sample in one cluster; carried on, the
    # continuation ended with one cluster (10 % error).
    X, y = make_blobs(
        [1000, 111], centers=[[0.0] * 10, [4.0] + [0.0] * 9], random_state=0
    )
    params = dict(init="pca", n_init=1, random_state=0)
    starts = []
    make = CPMMC._make_working_set

    def counted(self, *args, **kwargs):
        starts.append(args[3])
        return make(self, *args, **kwargs)

    monkeypatch.setattr(CPMMC, "_make_working_set", counted)
    # (The runs of one fit: no refit at the papers' bound.)
    monkeypatch.setattr("mmc._cutting_plane.keep_the_better_cut", lambda *a, **kw: None)
    est = CPMMC(continuation=True, **params).fit(X)
    # The first value started from the labelling, and again after it.
    assert len(starts) > 1 and starts[1] > starts[0]
    assert np.unique(est.labels_).size == 2
    assert clustering_error(y, est.labels_) <= 0.05


def test_one_hot_categorical_clusters_with_the_continuation():
    # The run at C cuts along one binary column (no sample in the margin);
    # the continuation follows the clusters (on 10 of 12 such data sets in
    # bench/studies/cpmmc_continuation.md, this one among them).
    X, y = one_hot_clusters((150, 150), random_state=1)
    kmeans = clustering_error(y, KMeans(2, n_init=10, random_state=0).fit(X).labels_)
    at_c = MultivariateMMC(random_state=0).fit(X)
    continued = MultivariateMMC(continuation=True, random_state=0).fit(X)
    assert clustering_error(y, at_c.labels_) > kmeans + 0.05
    assert clustering_error(y, continued.labels_) <= kmeans + 0.01


@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_continuation_is_reproducible_and_reported(Estimator):
    X, _ = make_blobs(
        [300, 100], centers=[[0.0] * 5, [3.0] * 5], cluster_std=2.0, random_state=2
    )
    first = Estimator(continuation=True, random_state=0).fit(X)
    again = Estimator(continuation=True, random_state=0).fit(X)
    np.testing.assert_array_equal(first.labels_, again.labels_)
    assert first.objective_ == again.objective_
    # n_iter_ counts the iterations at every value of C: at least two each.
    assert first.n_iter_ >= 2 * N_LEVELS
    np.testing.assert_array_equal(
        first.labels_, (first.decision_function(X) > 0).astype(int)
    )
