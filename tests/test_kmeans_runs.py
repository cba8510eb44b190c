"""KMeansRuns: the runs of best_kmeans_centres kept for a second use, and
the fit that shares them (CPM3C's class-balance estimate and k-means start)."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_digits

import mmc._kmeans as kmeans
from mmc import CPM3C
from mmc._balance import KMEANS_RUNS, SAMPLE_ROWS
from mmc._kmeans import KMeansRuns, best_kmeans_centres
from mmc._starts import MULTICLASS_KMEANS_RUNS


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_runs_are_those_of_best_kmeans_centres_for_every_count(sparse):
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(size=(60, 4)) + shift for shift in (0.0, 2.0, 4.0)])
    X = sp.csr_matrix(X) if sparse else X
    runs = KMeansRuns(X, 3, np.random.RandomState(7))
    for n_runs in (1, 3, 2, 6, 10):  # out of order: kept runs are reused
        expected = best_kmeans_centres(X, 3, np.random.RandomState(7), n_runs)
        np.testing.assert_array_equal(runs.best(n_runs), expected)


def _count_runs(monkeypatch):
    calls = []
    run = kmeans._stable_kmeans

    def counted(*args):
        calls.append(args[3])
        return run(*args)

    monkeypatch.setattr(kmeans, "_stable_kmeans", counted)
    return calls


def test_cpm3c_shares_the_estimates_runs_with_its_kmeans_start(monkeypatch):
    X, _ = load_digits(n_class=4, return_X_y=True)
    assert X.shape[0] <= SAMPLE_ROWS
    expected = CPM3C(n_clusters=4, random_state=0).fit(X)
    calls = _count_runs(monkeypatch)
    # Without sharing, 3 runs for the estimate and 10 for the start.
    monkeypatch.setattr(CPM3C, "_shared_kmeans_runs", lambda *args: None)
    unshared = CPM3C(n_clusters=4, random_state=0).fit(X)
    assert len(calls) == KMEANS_RUNS + MULTICLASS_KMEANS_RUNS
    monkeypatch.undo()
    calls = _count_runs(monkeypatch)
    shared = CPM3C(n_clusters=4, random_state=0).fit(X)
    assert len(calls) == MULTICLASS_KMEANS_RUNS
    for fitted in (unshared, shared):
        np.testing.assert_array_equal(fitted.labels_, expected.labels_)
        np.testing.assert_array_equal(fitted.coef_, expected.coef_)
        assert fitted.class_balance_ == expected.class_balance_
