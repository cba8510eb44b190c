"""Tf-idf documents of a topic model: text-like data of many kinds.

:func:`mmc.datasets.make_sparse_clusters` plants each cluster's words in a
block of columns of its own, with values drawn at random: every word of a
topic is as likely as any other and no word is common to all documents.
Real tf-idf rows are not like that: word frequencies follow Zipf's law, a
few hundred common words appear in most documents whatever their topic,
documents differ in length and in how much of them is about their topic.
:func:`topic_corpus` draws such documents from a small topic model (a
Zipfian background vocabulary shared by every cluster, one Zipfian topic
per cluster, a share of each document's words drawn from its topic that
varies from document to document, lognormal lengths) and weights the
counts as scikit-learn's ``TfidfTransformer(sublinear_tf=True)`` does,
rows scaled to unit norm.
"""

import numpy as np
import scipy.sparse as sp
from sklearn.feature_extraction.text import TfidfTransformer

# Zipf exponents of the background vocabulary and of each topic's words.
BACKGROUND_EXPONENT = 1.07
TOPIC_EXPONENT = 0.8

# Topic words are drawn outside the most frequent background words (a
# topic's words are not "the" and "of").
COMMON_WORDS = 200


def topic_corpus(
    sizes,
    n_words=5000,
    topic_words=300,
    topic_share=0.25,
    median_length=80,
    random_state=0,
):
    """Tf-idf rows of documents drawn from a topic model, one topic per cluster.

    Parameters
    ----------
    sizes : sequence of int
        Documents per cluster.

    n_words : int, default=5000
        Size of the vocabulary (words never drawn are dropped).

    topic_words : int, default=300
        Words of each topic, drawn among all but the ``COMMON_WORDS`` most
        frequent background words (topics may share words).

    topic_share : float, default=0.25
        Mean share of a document's words drawn from its topic: each
        document's share is drawn from a Beta law of that mean (shape
        ``(2, 2 / topic_share - 2)``), the rest from the background.

    median_length : float, default=80
        Median document length in words (lognormal, sigma 0.6, at least 5).

    random_state : int, default=0
        Seed of every draw.

    Returns
    -------
    X : CSR matrix of shape (sum(sizes), n_used_words), dtype=float64
        Sublinear tf-idf weights, rows of unit Euclidean norm.

    y : ndarray of shape (sum(sizes),)
        The cluster of each document, in blocks of ``sizes``.
    """
    if not 0.0 < topic_share < 1.0:
        raise ValueError(f"topic_share must be in (0, 1), got {topic_share!r}.")
    rng = np.random.RandomState(random_state)
    background = 1.0 / np.arange(1, n_words + 1) ** BACKGROUND_EXPONENT
    background = (background / background.sum())[rng.permutation(n_words)]
    common = np.argsort(-background, kind="stable")[:COMMON_WORDS]
    candidates = np.setdiff1d(np.arange(n_words), common)
    topics = []
    for _ in sizes:
        topic = np.zeros(n_words)
        words = rng.choice(candidates, topic_words, replace=False)
        topic[words] = 1.0 / np.arange(1, topic_words + 1) ** TOPIC_EXPONENT
        topics.append(topic / topic.sum())
    indptr, indices, counts = [0], [], []
    for cluster, size in enumerate(sizes):
        for _ in range(size):
            length = max(5, int(rng.lognormal(np.log(median_length), 0.6)))
            share = rng.beta(2.0, 2.0 / topic_share - 2.0)
            words = rng.multinomial(
                length, (1.0 - share) * background + share * topics[cluster]
            )
            present = np.flatnonzero(words)
            indices.extend(present)
            counts.extend(words[present])
            indptr.append(len(indices))
    y = np.repeat(np.arange(len(sizes)), sizes)
    counts = sp.csr_matrix(
        (np.asarray(counts, dtype=np.float64), indices, indptr),
        shape=(len(y), n_words),
    )
    counts = counts[:, np.flatnonzero(counts.getnnz(axis=0))]
    X = TfidfTransformer(sublinear_tf=True).fit_transform(counts)
    return sp.csr_matrix(X, dtype=np.float64), y


# (sizes, topic_share) of the study cases: two and more topics, even and
# uneven, documents mostly or little about their topic.
TOPIC_CORPUS_SETTINGS = (
    ((300, 300), 0.25),
    ((300, 300), 0.15),
    ((300, 100), 0.25),
    ((400, 100), 0.15),
    ((500, 60), 0.25),
    ((600, 50), 0.35),
    ((200, 200, 200, 200), 0.25),
    ((200, 200, 200, 200), 0.15),
    ((300, 200, 100, 50), 0.25),
    ((150,) * 8, 0.3),
    ((250, 200, 150, 100, 80, 60), 0.3),
)


# The seeds of the cases: two corpora of each setting.
TOPIC_CORPUS_SEEDS = (0, 1)


def topic_case_name(sizes, share, seed):
    """The name of the corpus of ``sizes``, topic share and seed."""
    return f"topics {':'.join(map(str, sizes))} share {share} seed {seed}"


def topic_corpus_cases(seeds=TOPIC_CORPUS_SEEDS):
    """``(name, X, y)`` of :func:`topic_corpus` at each setting of
    ``TOPIC_CORPUS_SETTINGS`` and seed."""
    for seed in seeds:
        for sizes, share in TOPIC_CORPUS_SETTINGS:
            X, y = topic_corpus(sizes, topic_share=share, random_state=seed)
            yield topic_case_name(sizes, share, seed), X, y
