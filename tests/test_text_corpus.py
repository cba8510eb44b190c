"""The topic-model tf-idf corpora of the studies (mmc.bench._text_corpus)."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.cluster import KMeans

from mmc.bench._text_corpus import (
    COMMON_WORDS,
    TOPIC_CORPUS_SETTINGS,
    topic_corpus,
    topic_corpus_cases,
)
from mmc.metrics import clustering_error


def test_rows_are_unit_tf_idf_documents_in_blocks_of_their_clusters():
    X, y = topic_corpus((30, 20, 10), n_words=800, topic_words=50, random_state=3)
    assert sp.isspmatrix_csr(X) and X.dtype == np.float64
    assert X.shape[0] == 60 and X.shape[1] <= 800
    np.testing.assert_array_equal(y, np.repeat([0, 1, 2], [30, 20, 10]))
    np.testing.assert_allclose(np.sqrt(X.multiply(X).sum(axis=1)).A1, 1.0)
    assert X.data.min() > 0.0
    assert np.all(X.getnnz(axis=0) > 0)  # words never drawn are dropped
    assert np.all(X.getnnz(axis=1) >= 1)


def test_same_seed_same_corpus_other_seed_other_corpus():
    X1, y1 = topic_corpus((40, 40), n_words=500, random_state=7)
    X2, y2 = topic_corpus((40, 40), n_words=500, random_state=7)
    X3, _ = topic_corpus((40, 40), n_words=500, random_state=8)
    assert (X1 != X2).nnz == 0 and np.array_equal(y1, y2)
    assert X1.shape != X3.shape or (X1 != X3).nnz > 0


@pytest.mark.parametrize("share, most", [(0.6, 5.0), (0.02, None)])
def test_the_topic_share_sets_how_separable_the_clusters_are(share, most):
    # Documents mostly about their topic are clustered by k-means; with
    # almost nothing of their topic, about as well as a coin.
    X, y = topic_corpus((80, 80), topic_share=share, random_state=0)
    labels = KMeans(2, n_init=10, random_state=0).fit_predict(X)
    error = 100 * clustering_error(y, labels)
    if most is not None:
        assert error <= most
    else:
        assert error >= 25.0


def test_the_most_common_words_occur_in_every_cluster():
    # As in real text, and unlike the planted topics of
    # make_sparse_clusters: the most frequent words are background words,
    # in more than a tenth of the documents of each cluster.
    X, y = topic_corpus((100, 100), n_words=1000, topic_share=0.25, random_state=1)
    df = [np.asarray((X[y == c] > 0).mean(axis=0)).ravel() for c in (0, 1)]
    common = np.argsort(-(df[0] + df[1]))[: COMMON_WORDS // 20]
    assert np.all(df[0][common] > 0.1) and np.all(df[1][common] > 0.1)


def test_cases_cover_every_setting_and_seed():
    cases = list(topic_corpus_cases(seeds=(0,)))
    assert len(cases) == len(TOPIC_CORPUS_SETTINGS)
    for (name, X, y), (sizes, share) in zip(cases, TOPIC_CORPUS_SETTINGS):
        assert f"share {share}" in name and X.shape[0] == sum(sizes)
        np.testing.assert_array_equal(np.bincount(y), sizes)


@pytest.mark.parametrize("share", [0.0, 1.0, 1.5])
def test_a_topic_share_outside_0_1_is_refused(share):
    with pytest.raises(ValueError, match="topic_share must be in"):
        topic_corpus((10, 10), topic_share=share)
