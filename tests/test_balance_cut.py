"""The choice between the bound set from the data and the papers' 0.03 by
the normalised cut of the nearest-neighbour graph (mmc/_balance_cut.py),
for every estimator whose bound is set from the data."""

import pickle
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import BaseEstimator, clone
from sklearn.datasets import load_digits, make_blobs
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import StandardScaler

from mmc import CPM3C, CPMMC, ODMC, EvoMMC, FastEvoMMC, MultivariateMMC
from mmc._balance import PAPER_CLASS_BALANCE, SAMPLE_ROWS
from mmc._balance_cut import even_by_both, keep_the_better_cut, meets_paper_bound
from mmc._graph_start import SampleDistances, neighbour_graph, normalised_cut
from mmc.metrics import clustering_error


def digit_pair(a, b):
    X, y = load_digits(return_X_y=True)
    mask = (y == a) | (y == b)
    return X[mask] / 16.0, y[mask]


def blobs(sizes, random_state=0):
    X, y = make_blobs(
        sizes,
        n_features=10,
        centers=[[0.0] * 10, [4.0] + [0.0] * 9],
        random_state=random_state,
    )
    return StandardScaler().fit_transform(X), y


def test_papers_bound_taken_where_it_cuts_better(monkeypatch):
    # 5v9: k-means errs 16 % (206:156, even within the noise); at the bound
    # admitting the noise ODMC errs 21 %, at the papers' 0.03 1.4 %, which
    # cuts the graph better.
    X, y = digit_pair(5, 9)
    odmc = ODMC(random_state=0).fit(X)
    paper = ODMC(random_state=0, class_balance=PAPER_CLASS_BALANCE).fit(X)
    assert odmc.paper_bound_cut_
    assert odmc.class_balance_ == PAPER_CLASS_BALANCE
    np.testing.assert_array_equal(odmc.labels_, paper.labels_)
    np.testing.assert_array_equal(odmc.coef_, paper.coef_)
    assert odmc.intercept_scaling_ == paper.intercept_scaling_ == 0.0
    assert clustering_error(y, odmc.labels_) < 0.05
    assert odmc.get_params()["class_balance"] == "auto"  # the user's setting
    # Without the rule: the bound of k-means' clusters, a worse cut.
    monkeypatch.setattr("mmc._odmc.keep_the_better_cut", lambda *args, **kw: None)
    data_bound = ODMC(random_state=0).fit(X)
    assert data_bound.class_balance_ > PAPER_CLASS_BALANCE
    assert clustering_error(y, data_bound.labels_) > 0.15
    affinity = neighbour_graph(SampleDistances(X))
    assert normalised_cut(affinity, odmc.labels_, 2) < normalised_cut(
        affinity, data_bound.labels_, 2
    )


ESTIMATORS = [CPMMC, CPM3C, MultivariateMMC, EvoMMC, FastEvoMMC, ODMC]


def topics(seed=0):
    """Documents of eight even topics (tf-idf rows): k-means' clusters are
    uneven (a topic split, two merged), the bound they admit loose."""
    from mmc.bench._robustness_data import topic_cases

    (case,) = [
        case
        for case in topic_cases()
        if case.name == f"topics {':'.join(['150'] * 8)} share 0.3 seed {seed}"
    ]
    return case.load()


@pytest.mark.parametrize("cls", [CPM3C, FastEvoMMC])
def test_papers_bound_taken_for_k_clusters(cls, monkeypatch):
    X, y = topics()
    fitted = cls(n_clusters=8, random_state=0).fit(X)
    assert fitted.paper_bound_cut_
    assert fitted.class_balance_ == PAPER_CLASS_BALANCE
    paper = cls(n_clusters=8, random_state=0, class_balance=PAPER_CLASS_BALANCE)
    np.testing.assert_array_equal(fitted.labels_, paper.fit(X).labels_)
    assert clustering_error(y, fitted.labels_) < 0.08
    # Without the rule: the bound of k-means' uneven clusters, a worse cut
    # and a worse clustering.
    module = "mmc._cutting_plane" if cls is CPM3C else "mmc._evo_base"
    monkeypatch.setattr(f"{module}.keep_the_better_cut", lambda *args, **kw: None)
    data_bound = cls(n_clusters=8, random_state=0).fit(X)
    assert data_bound.class_balance_ > PAPER_CLASS_BALANCE
    assert clustering_error(y, data_bound.labels_) > 0.12
    affinity = neighbour_graph(SampleDistances(X))
    assert normalised_cut(affinity, fitted.labels_, 8) < normalised_cut(
        affinity, data_bound.labels_, 8
    )


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_bound_from_the_data_kept_on_uneven_blobs(cls):
    # Standardised blobs of 600 and 300 samples: the bound of k-means'
    # uneven clusters separates them; 0.03 cuts the large one.
    X, y = blobs([600, 300])
    fitted = cls(random_state=0).fit(X)
    assert fitted.class_balance_ > PAPER_CLASS_BALANCE
    assert not fitted.paper_bound_cut_
    assert clustering_error(y, fitted.labels_) < 0.1  # KMeans's: 0.03


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_no_refit_where_both_clusterings_meet_the_papers_bound(cls, monkeypatch):
    # Even blobs: k-means' clusters a little uneven, so the bound is a
    # little above 0.03 (ODMC's linear fits admit the noise: far above);
    # where the fit's clusters meet 0.03 as well, no refit.
    X, y = blobs([300, 300])
    fitted = cls(random_state=0).fit(X)
    assert fitted.class_balance_ > PAPER_CLASS_BALANCE
    assert meets_paper_bound(fitted)
    if cls is ODMC:
        assert not even_by_both(fitted)
        return
    assert even_by_both(fitted)
    # (CPMMC's "stable" bound fits subsamples, each under the rule: only
    # the refits of the fit itself, of random_state 0, count.)
    refitted = []

    def refit(estimator):
        refitted.append(estimator.random_state)
        return clone(estimator)

    monkeypatch.setattr("mmc._balance_cut.clone", refit)
    again = cls(random_state=0).fit(X)
    assert 0 not in refitted
    assert not again.paper_bound_cut_
    np.testing.assert_array_equal(again.labels_, fitted.labels_)


class _Fitted:
    """What meets_paper_bound reads of a fitted estimator."""

    def __init__(self, labels, n_clusters=2, balance_of=None):
        self.labels_ = np.asarray(labels)
        self.n_clusters = n_clusters
        if balance_of is not None:
            self._balance_of = balance_of


def test_meets_paper_bound_reads_the_estimators_balance_term():
    # 102:98 -> |mean y| = 0.02: met; 104:96 -> 0.04: not.
    assert meets_paper_bound(_Fitted(np.repeat([0, 1], [102, 98])))
    assert not meets_paper_bound(_Fitted(np.repeat([0, 1], [104, 96])))
    # k clusters: 1 - k min_p pi_p, an empty cluster never meets it.
    assert meets_paper_bound(_Fitted(np.repeat([0, 1, 2], [101, 100, 99]), 3))
    assert not meets_paper_bound(_Fitted(np.repeat([0, 1], [200, 0]), 3))
    # Mean margins (CPM3C's cutting plane): twice the range of proportions.
    assert not meets_paper_bound(
        _Fitted(np.repeat([0, 1], [102, 98]), balance_of=lambda p: 2 * np.ptp(p))
    )


@pytest.mark.parametrize("cls", ESTIMATORS)
@pytest.mark.parametrize("class_balance", [0.3, PAPER_CLASS_BALANCE])
def test_fixed_bound_is_kept(cls, class_balance):
    X, _ = blobs([600, 300])
    fitted = cls(random_state=0, class_balance=class_balance).fit(X)
    assert not fitted.paper_bound_cut_
    assert fitted.class_balance_ == class_balance


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_initial_labels_keep_their_bound(cls):
    X, y = blobs([600, 100])
    one_run = {"n_init": 1} if "n_init" in cls().get_params() else {}
    fitted = cls(random_state=0, init=np.arange(len(y)) % 5 == 0, **one_run).fit(X)
    assert fitted.class_balance_ > PAPER_CLASS_BALANCE
    assert not fitted.paper_bound_cut_


@pytest.mark.parametrize("cls", [CPMMC, CPM3C, ODMC])
@pytest.mark.parametrize("sparse", [False, True])
def test_data_beyond_the_sample_keep_the_bound_from_the_data(cls, sparse, monkeypatch):
    # Beyond SAMPLE_ROWS rows no refit: it would cost a second fit of all.
    X, y = blobs([SAMPLE_ROWS, SAMPLE_ROWS // 2 + 1])
    if sparse:
        X = sp.csr_matrix(np.where(np.abs(X) > 1.0, X, 0.0))
    # (CPMMC's "stable" bound fits subsamples of at most SAMPLE_ROWS rows,
    # where the rule applies: only a graph of all rows would tell a refit.)
    graphs = []
    monkeypatch.setattr(
        "mmc._balance_cut.neighbour_graph",
        lambda distances: graphs.append(distances.n_rows) or neighbour_graph(distances),
    )
    fitted = cls(random_state=0).fit(X)
    assert all(n_rows <= SAMPLE_ROWS for n_rows in graphs)
    assert not fitted.paper_bound_cut_
    # (Sparse data of more rows get no estimate: the papers' bound itself.)
    assert fitted.class_balance_ > PAPER_CLASS_BALANCE or sparse


def test_choice_is_the_same_for_the_same_seed_and_pickles():
    X, y = digit_pair(5, 9)
    first = ODMC(random_state=3).fit(X)
    second = ODMC(random_state=3).fit(X)
    assert first.paper_bound_cut_ == second.paper_bound_cut_
    np.testing.assert_array_equal(first.labels_, second.labels_)
    restored = pickle.loads(pickle.dumps(first))
    assert restored.paper_bound_cut_ == first.paper_bound_cut_
    np.testing.assert_array_equal(restored.predict(X), first.labels_)


def test_choice_for_k_clusters_is_the_same_for_the_same_seed_and_pickles():
    X, _ = topics(seed=1)
    first = CPM3C(n_clusters=8, random_state=3).fit(X)
    second = CPM3C(n_clusters=8, random_state=3).fit(X)
    assert first.paper_bound_cut_ == second.paper_bound_cut_
    np.testing.assert_array_equal(first.labels_, second.labels_)
    restored = pickle.loads(pickle.dumps(first))
    np.testing.assert_array_equal(restored.predict(X), first.labels_)


@pytest.mark.parametrize("cls", [ODMC, CPM3C])
def test_refit_from_a_random_state_instance_draws_what_an_integer_draws(cls):
    # The refit starts from the state the fit started from: a RandomState
    # instance gives the fit of its integer seed, refit and all.
    if cls is ODMC:
        X, _ = digit_pair(5, 9)
        params = {}
    else:
        X, _ = topics()
        params = {"n_clusters": 8}
    by_seed = cls(random_state=0, **params).fit(X)
    by_instance = cls(random_state=np.random.RandomState(0), **params).fit(X)
    assert by_seed.paper_bound_cut_ and by_instance.paper_bound_cut_
    np.testing.assert_array_equal(by_seed.labels_, by_instance.labels_)
    assert by_seed.objective_ == by_instance.objective_


@pytest.mark.parametrize("random_state", [0, None])
def test_refit_takes_the_kmeans_runs_of_the_fit(random_state, monkeypatch):
    # The refit at the papers' bound draws the fit's seeds on the fit's data:
    # it starts from the fit's k-means runs instead of computing them again,
    # and the fitted estimator holds none of them (they hold the data).
    # With no seed, the refit draws its own and computes its own runs.
    from mmc._kmeans import KMeansRuns

    X, _ = topics()
    computed = []  # the runs on X (not those of the graph start's embedding)
    run = KMeansRuns._run

    def counted_run(self, draws):
        if self._X.shape == X.shape:
            computed.append(1)
        return run(self, draws)

    monkeypatch.setattr(KMeansRuns, "_run", counted_run)
    paper = CPM3C(n_clusters=8, random_state=random_state)
    paper.set_params(class_balance=PAPER_CLASS_BALANCE).fit(X)
    alone = len(computed)
    computed.clear()
    fitted = CPM3C(n_clusters=8, random_state=random_state).fit(X)
    assert fitted.paper_bound_cut_ or random_state is None
    assert alone > 0
    assert len(computed) == (alone if random_state == 0 else 2 * alone)
    assert not [name for name in vars(fitted) if "kmeans_runs" in name]
    if random_state == 0:
        np.testing.assert_array_equal(fitted.labels_, paper.labels_)


class _WarningFit(BaseEstimator):
    """A fit that warns about the data and does not converge, and whose
    labels are the blobs' at the papers' bound and a cut through the large
    blob at the bound set from the data (or the other way round with
    ``paper_cuts_worse``)."""

    def __init__(self, class_balance="auto", init="kmeans", paper_cuts_worse=False):
        self.class_balance = class_balance
        self.init = init
        self.paper_cuts_worse = paper_cuts_worse

    @property
    def _class_balance_setting(self):
        return self.class_balance

    def fit(self, X):
        X, y = blobs([300, 100])
        through_the_large_blob = (X[:, 1] > 0).astype(np.intp)
        at_paper_bound = self.class_balance == PAPER_CLASS_BALANCE
        self.labels_ = (
            y if at_paper_bound != self.paper_cuts_worse else through_the_large_blob
        )
        self.class_balance_ = PAPER_CLASS_BALANCE if at_paper_bound else 0.5
        warnings.warn(f"data warning at {self.class_balance}", UserWarning)
        warnings.warn(f"no convergence at {self.class_balance}", ConvergenceWarning)
        return self


@pytest.mark.parametrize("paper_cuts_worse", [False, True])
def test_a_refit_raises_its_convergence_warnings_only_where_it_is_kept(
    paper_cuts_worse,
):
    X, y = blobs([300, 100])
    with pytest.warns() as fit_warnings:
        estimator = _WarningFit(paper_cuts_worse=paper_cuts_worse).fit(X)
    assert len(fit_warnings) == 2
    with warnings.catch_warnings(record=True) as rule_warnings:
        warnings.simplefilter("always")
        keep_the_better_cut(estimator, X)
    assert estimator.paper_bound_cut_ is not paper_cuts_worse
    if paper_cuts_worse:
        # The fit the user gets is the first: the refit's warnings are not his.
        assert rule_warnings == []
        assert estimator.class_balance_ == 0.5
    else:
        # The refit's labels are kept: its ConvergenceWarning concerns them;
        # its warning about the data repeats the fit's and is not raised.
        messages = [str(caught.message) for caught in rule_warnings]
        assert messages == [f"no convergence at {PAPER_CLASS_BALANCE}"]
        assert rule_warnings[0].category is ConvergenceWarning
        np.testing.assert_array_equal(estimator.labels_, y)
        assert estimator.get_params()["class_balance"] == "auto"
