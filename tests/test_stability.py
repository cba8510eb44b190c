"""class_balance="stable": the rule of mmc/_stability.py and the estimators
that take it."""

import pickle
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_blobs
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import adjusted_rand_score
from sklearn.metrics.pairwise import pairwise_kernels
from sklearn.preprocessing import StandardScaler

import mmc._stability
from mmc import CPM3C, CPMMC, ODMC, EvoMMC, FastEvoMMC, MultivariateMMC
from mmc._balance import SAMPLE_ROWS
from mmc._stability import (
    STABILITY_LEVEL,
    STABLE_CANDIDATES,
    SUBSAMPLE_FRACTION,
    SUBSAMPLE_PAIRS,
    kernel_between,
    labelling_agreement,
    out_of_reach,
    stable_class_balance,
    subsample_pairs,
)
from mmc.datasets import make_sparse_clusters
from mmc.metrics import clustering_error

ESTIMATORS = (CPMMC, MultivariateMMC, CPM3C, ODMC, EvoMMC, FastEvoMMC)


def _unbalanced_standardised(ratio=9, n_large=1000):
    """Two blobs of 1000 and 1000 / ratio samples, standardised: k-means cuts
    the large one in two (its sizes are even), so "auto" keeps 0.03."""
    X, y = make_blobs(
        [n_large, n_large // ratio],
        centers=[[0.0] * 10, [4.0] + [0.0] * 9],
        random_state=0,
    )
    return StandardScaler().fit_transform(X), y


def _even_blobs(n=200):
    return make_blobs(n, centers=[[-3, 0], [3, 0]], random_state=0)


def test_labelling_agreement():
    rng = np.random.RandomState(0)
    labels = rng.randint(2, size=200)
    assert labelling_agreement(labels, labels) == 1.0
    assert labelling_agreement(labels, 1 - labels) == 1.0  # names do not count
    assert labelling_agreement(np.zeros(200), np.zeros(200)) == 0.0
    assert labelling_agreement(labels, np.zeros(200)) == 0.0
    other = rng.randint(2, size=200)
    assert labelling_agreement(labels, other) == pytest.approx(
        adjusted_rand_score(labels, other)
    )


def test_subsample_pairs_are_sorted_distinct_rows():
    pairs = subsample_pairs(50, 40, np.random.RandomState(0))
    assert len(pairs) == SUBSAMPLE_PAIRS
    for pair in pairs:
        assert len(pair) == 2
        for rows in pair:
            assert rows.size == 40 and np.unique(rows).size == 40
            assert np.all(np.diff(rows) > 0) and rows.max() < 50
        assert not np.array_equal(pair[0], pair[1])


def test_unstable_default_gives_way_to_the_most_stable_bound():
    X, y = _unbalanced_standardised()
    auto = CPMMC(class_balance="auto", random_state=0).fit(X)
    est = CPMMC(class_balance="stable", random_state=0).fit(X)
    stabilities = est.balance_stability_
    assert list(stabilities) == list(STABLE_CANDIDATES)
    assert stabilities["auto"] < STABILITY_LEVEL
    chosen = max(stabilities, key=stabilities.get)
    assert chosen != "auto" and est.class_balance_ == chosen
    # The clusters k-means and "auto" miss are found.
    assert clustering_error(y, auto.labels_) > 0.3
    assert clustering_error(y, est.labels_) < 0.05
    # The fit is the one at the bound chosen.
    fixed = CPMMC(class_balance=chosen, random_state=0).fit(X)
    np.testing.assert_array_equal(est.labels_, fixed.labels_)


@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_stable_default_keeps_the_fit_of_auto(Estimator):
    X, _ = _even_blobs()
    auto = Estimator(class_balance="auto", random_state=0).fit(X)
    est = Estimator(class_balance="stable", random_state=0).fit(X)
    assert set(est.balance_stability_) == {"auto"}
    assert est.balance_stability_["auto"] >= STABILITY_LEVEL
    assert auto.balance_stability_ is None
    assert est.class_balance_ == auto.class_balance_
    np.testing.assert_array_equal(est.labels_, auto.labels_)
    np.testing.assert_allclose(est.decision_function(X), auto.decision_function(X))


def test_cpmmc_default_is_stable():
    assert CPMMC().class_balance == "stable"
    for Estimator in (MultivariateMMC, CPM3C, ODMC, EvoMMC, FastEvoMMC):
        assert Estimator().class_balance == "auto"


def test_cpm3c_more_clusters_and_sparse_rows():
    X, y = make_blobs(240, centers=[[0, 0], [6, 0], [0, 6]], random_state=1)
    X -= X.min()
    for data in (X, sp.csr_matrix(X)):
        est = CPM3C(n_clusters=3, class_balance="stable", random_state=0).fit(data)
        assert est.balance_stability_["auto"] >= STABILITY_LEVEL
        assert clustering_error(y, est.labels_) < 0.02


def test_same_seed_same_choice_and_a_generator_is_not_drawn_from():
    X, _ = _unbalanced_standardised(ratio=19)
    first = CPMMC(class_balance="stable", random_state=3).fit(X)
    second = CPMMC(class_balance="stable", random_state=3).fit(X)
    assert first.balance_stability_ == second.balance_stability_
    np.testing.assert_array_equal(first.labels_, second.labels_)
    # A generator given as random_state: the fit after the choice draws
    # what a fit at the chosen bound would, from the same generator.
    chosen = max(first.balance_stability_, key=first.balance_stability_.get)
    state = np.random.RandomState(5)
    est = CPMMC(class_balance="stable", random_state=state).fit(X)
    fixed = CPMMC(class_balance=chosen, random_state=np.random.RandomState(5)).fit(X)
    np.testing.assert_array_equal(est.labels_, fixed.labels_)


def test_rule_on_subsamples_of_at_most_sample_rows(monkeypatch):
    # The fits on subsamples see SUBSAMPLE_FRACTION of at most SAMPLE_ROWS.
    X, _ = make_blobs(SAMPLE_ROWS + 500, centers=[[-3, 0], [3, 0]], random_state=0)
    seen = []
    original = CPMMC.fit

    def recording_fit(self, data, y=None):
        seen.append(data.shape[0])
        return original(self, data, y)

    monkeypatch.setattr(CPMMC, "fit", recording_fit)
    CPMMC(class_balance="stable", random_state=0).fit(X)
    assert seen[0] == X.shape[0]
    assert seen[1:] == [int(SUBSAMPLE_FRACTION * SAMPLE_ROWS)] * (2 * SUBSAMPLE_PAIRS)


def test_large_sparse_data_and_tiny_data_keep_auto():
    X, _ = make_blobs(SAMPLE_ROWS + 100, centers=[[-3, 0], [3, 0]], random_state=0)
    X = sp.csr_matrix(X - X.min())
    est = CPMMC(class_balance="stable", n_init=1, random_state=0).fit(X)
    auto = CPMMC(class_balance="auto", n_init=1, random_state=0).fit(X)
    assert est.balance_stability_ is None
    np.testing.assert_array_equal(est.labels_, auto.labels_)
    tiny = np.array([[0.0], [0.1], [5.0], [5.1]])
    assert stable_class_balance(CPMMC(), tiny, 0) == ("auto", None)


def test_initial_labels_estimate_the_balance_as_for_auto():
    X, _ = _even_blobs()
    init = (X[:, 0] > 0).astype(int)
    est = CPMMC(class_balance="stable", init=init, n_init=1, random_state=0).fit(X)
    auto = CPMMC(class_balance="auto", init=init, n_init=1, random_state=0)
    auto.fit(X)
    assert est.balance_stability_ is None
    np.testing.assert_array_equal(est.labels_, auto.labels_)


def test_precomputed_kernel_is_subsampled_as_its_samples():
    # The fits on subsamples take the kernel between the rows drawn, and
    # label the rows seen by the kernel between them and the rows drawn.
    X, _ = _unbalanced_standardised(n_large=300)
    named = CPMMC(kernel="rbf", gamma=0.1, class_balance="stable", random_state=0)
    named.fit(X)
    K = pairwise_kernels(X, metric="rbf", gamma=0.1)
    est = CPMMC(kernel="precomputed", class_balance="stable", random_state=0).fit(K)
    assert len(named.balance_stability_) == len(STABLE_CANDIDATES)
    assert est.balance_stability_.keys() == named.balance_stability_.keys()
    for key, value in named.balance_stability_.items():
        assert est.balance_stability_[key] == pytest.approx(value, abs=1e-9)
    np.testing.assert_array_equal(est.labels_, named.labels_)


def test_kernel_between_all_samples_is_the_kernel_itself():
    # With every sample drawn (at most SAMPLE_ROWS) the rule works on the
    # user's kernel, not on a copy of it; a subset gets the kernel between
    # its samples.
    K = pairwise_kernels(np.random.RandomState(0).normal(size=(30, 3)))
    assert kernel_between(K, np.arange(30)) is K
    rows = np.array([1, 4, 5, 20])
    np.testing.assert_array_equal(kernel_between(K, rows), K[np.ix_(rows, rows)])


def test_bad_value_names_the_options():
    with pytest.raises(ValueError, match="'stable'"):
        CPMMC(class_balance="stabel").fit(_even_blobs(20)[0])


def test_warnings_are_those_of_the_fit_asked_for():
    X, _ = _even_blobs()
    with warnings.catch_warnings(record=True) as auto_warnings:
        warnings.simplefilter("always")
        CPMMC(class_balance="auto", max_iter=1, random_state=0).fit(X)
    with warnings.catch_warnings(record=True) as stable_warnings:
        warnings.simplefilter("always")
        CPMMC(max_iter=1, class_balance="stable", random_state=0).fit(X)

    def converge(caught):
        return [w for w in caught if issubclass(w.category, ConvergenceWarning)]

    assert len(converge(auto_warnings)) == 1
    assert len(converge(stable_warnings)) == len(converge(auto_warnings))


def test_fitted_estimator_pickles():
    X, _ = _unbalanced_standardised()
    est = ODMC(class_balance="stable", random_state=0).fit(X)
    copy = pickle.loads(pickle.dumps(est))
    assert copy.balance_stability_ == est.balance_stability_
    np.testing.assert_array_equal(copy.predict(X), est.predict(X))


def test_out_of_reach_is_a_mean_that_cannot_reach_the_level():
    # On two pairs the level 0.7 is out of reach after a first pair below
    # 0.4 (the second agrees at most fully); at 0.4 the mean is computed.
    assert out_of_reach([2 * STABILITY_LEVEL - 1 - 0.01], 2)
    assert not out_of_reach([2 * STABILITY_LEVEL - 1], 2)
    assert not out_of_reach([1.0], 2)
    assert out_of_reach([-0.2], 2)
    assert out_of_reach([0.5, 0.5, 0.5], 4)
    assert not out_of_reach([0.5, 0.5], 4)


def _count_subsample_fits(monkeypatch):
    fits = []
    original = mmc._stability.refit

    def counting(model, X):
        fits.append(X.shape[0])
        return original(model, X)

    monkeypatch.setattr(mmc._stability, "refit", counting)
    return fits


def test_bounds_out_of_reach_skip_their_second_pair(monkeypatch):
    # Sparse rows without clusters: no bound is stable. A bound whose
    # first pair agrees below 0.4 is not fitted on its second pair, and
    # the choice is that of every pair fitted.
    X, _ = make_sparse_clusters(
        n_samples=120, n_features=2000, nnz_per_row=10, separation=0.0, random_state=0
    )
    fits = _count_subsample_fits(monkeypatch)
    est = CPMMC(class_balance="stable", random_state=0).fit(X)
    early = len(fits)
    monkeypatch.setattr(mmc._stability, "out_of_reach", lambda scores, n: False)
    fits.clear()
    full = CPMMC(class_balance="stable", random_state=0).fit(X)
    assert len(fits) == 2 * SUBSAMPLE_PAIRS * len(STABLE_CANDIDATES)
    stopped = [key for key, value in est.balance_stability_.items() if value < 0.4]
    assert stopped and early == len(fits) - 2 * len(stopped)
    assert est.balance_stability_.keys() == full.balance_stability_.keys()
    for key, value in est.balance_stability_.items():
        if key not in stopped:
            assert value == full.balance_stability_[key]
    assert max(full.balance_stability_.values()) < STABILITY_LEVEL
    assert est.class_balance_ == full.class_balance_
    np.testing.assert_array_equal(est.labels_, full.labels_)
