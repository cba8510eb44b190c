"""ODMC's choice between the bound set from the data and the papers' 0.03 by
the normalised cut of the nearest-neighbour graph (mmc/_balance_cut.py)."""

import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_digits, make_blobs
from sklearn.preprocessing import StandardScaler

from mmc import ODMC
from mmc._balance import PAPER_CLASS_BALANCE, SAMPLE_ROWS
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
    monkeypatch.setattr("mmc._odmc.keep_the_better_cut", lambda estimator, X: None)
    data_bound = ODMC(random_state=0).fit(X)
    assert data_bound.class_balance_ > PAPER_CLASS_BALANCE
    assert clustering_error(y, data_bound.labels_) > 0.15
    affinity = neighbour_graph(SampleDistances(X))
    assert normalised_cut(affinity, odmc.labels_, 2) < normalised_cut(
        affinity, data_bound.labels_, 2
    )


def test_bound_from_the_data_kept_where_it_cuts_better():
    # Standardised blobs of 600 and 300 samples: the bound of k-means'
    # uneven clusters separates them; 0.03 cuts the large one.
    X, y = blobs([600, 300])
    odmc = ODMC(random_state=0).fit(X)
    assert odmc.class_balance_ > PAPER_CLASS_BALANCE
    assert not odmc.paper_bound_cut_
    assert clustering_error(y, odmc.labels_) < 0.05
    paper = ODMC(random_state=0, class_balance=PAPER_CLASS_BALANCE).fit(X)
    assert clustering_error(y, paper.labels_) > 0.1


@pytest.mark.parametrize(
    "params",
    [{"class_balance": 0.3}, {"class_balance": PAPER_CLASS_BALANCE}],
    ids=["fixed-0.3", "fixed-0.03"],
)
def test_fixed_bound_is_kept(params):
    X, _ = digit_pair(5, 9)
    odmc = ODMC(random_state=0, **params).fit(X)
    assert not odmc.paper_bound_cut_
    assert odmc.class_balance_ == params["class_balance"]


def test_initial_labels_keep_their_bound():
    X, y = digit_pair(5, 9)
    odmc = ODMC(random_state=0, n_init=1, init=(y == 5).astype(int)).fit(X)
    assert not odmc.paper_bound_cut_


@pytest.mark.parametrize("sparse", [False, True])
def test_data_beyond_the_sample_keep_the_bound_from_the_data(sparse, monkeypatch):
    # Beyond SAMPLE_ROWS rows no refit: it would cost a second fit of all.
    X, y = blobs([SAMPLE_ROWS, SAMPLE_ROWS // 2 + 1])
    if sparse:
        X = sp.csr_matrix(np.where(np.abs(X) > 1.0, X, 0.0))
    fits = []
    original = ODMC.fit
    monkeypatch.setattr(
        ODMC, "fit", lambda self, X, y=None: fits.append(1) or original(self, X)
    )
    odmc = ODMC(random_state=0).fit(X)
    assert len(fits) == 1
    assert not odmc.paper_bound_cut_
    # (Sparse data of more rows get no estimate: the papers' bound itself.)
    assert odmc.class_balance_ > PAPER_CLASS_BALANCE or sparse


def test_choice_is_the_same_for_the_same_seed_and_pickles():
    X, y = digit_pair(5, 9)
    first = ODMC(random_state=3).fit(X)
    second = ODMC(random_state=3).fit(X)
    assert first.paper_bound_cut_ == second.paper_bound_cut_
    np.testing.assert_array_equal(first.labels_, second.labels_)
    restored = pickle.loads(pickle.dumps(first))
    assert restored.paper_bound_cut_ == first.paper_bound_cut_
    np.testing.assert_array_equal(restored.predict(X), first.labels_)
