"""The cases of the robustness suite: what every default must survive.

Each case is a named data set with its classes, built from scikit-learn's
bundled data and generators and from :func:`mmc.datasets.make_sparse_clusters`
(no download): digit pairs, the small tabular data sets under three
scalings, Gaussian blobs that are unbalanced, uncentred, anisotropic or of
unequal spread, the non-linear toy data, Breiman's twonorm and ringnorm,
sparse text-like data with unbalanced topics, and one-hot categorical
features; and apart, tf-idf documents of a topic model
(:mod:`mmc.bench._text_corpus`), whose topics share the common words as
real text does. Every generator has a fixed seed of its own, so the cases
do not change with the estimators' seed.

Scalings: ``"raw"`` (as loaded or drawn), ``"minmax"``
(:class:`~sklearn.preprocessing.MinMaxScaler`, each feature to [0, 1]),
``"standardised"`` (:class:`~sklearn.preprocessing.StandardScaler`),
``"/16"`` (the digits' pixels divided by 16) and ``"unit-norm rows"``
(the tf-idf-like rows of the sparse data, and the tf-idf rows of the
topic corpora). A scaling uses the features
only, never the classes; it is applied to the samples of the case (a class
pair is selected first, then scaled).

No case has more than 2,000 samples: EvoMMC builds the n x n kernel
matrix and its eigendecomposition, O(n^3).
"""

from collections import namedtuple

import numpy as np
from sklearn.datasets import (
    load_breast_cancer,
    load_iris,
    load_wine,
    make_blobs,
    make_circles,
    make_moons,
)
from sklearn.preprocessing import MinMaxScaler, StandardScaler

from mmc.bench._data import digits
from mmc.bench._text_corpus import (
    TOPIC_CORPUS_SEEDS,
    TOPIC_CORPUS_SETTINGS,
    topic_case_name,
    topic_corpus,
)
from mmc.datasets import make_sparse_clusters

Case = namedtuple("Case", ["name", "kind", "scaling", "nonlinear", "load"])
Case.__doc__ = """A named data set: ``load()`` returns ``(X, y)``.

``kind`` is ``"digits"``, ``"tabular"``, ``"toy"``, ``"text"`` or
``"categorical"``; on the ``nonlinear`` cases the estimators that take
``kernel=`` get ``kernel="rbf"``.
"""

SCALINGS = {"raw": "raw", "minmax": "minmax", "std": "standardised"}
N_FEATURES_BLOBS = 10
# Two blobs 4 standard deviations apart along the first axis.
TWO_CENTRES = [[0.0] * N_FEATURES_BLOBS, [4.0] + [0.0] * (N_FEATURES_BLOBS - 1)]
BLOB_RATIOS = (1, 2, 4, 9, 19)
SHIFT = 10.0
# Sparse text-like data: 5,000 features, 50 values per row, topics of 300
# features; the fraction of a row's values in its topic (separation) is 0.3
# for two and four topics and 0.4 for ten (at 0.3, ten topics of 200 rows
# are found by no method).
TEXT = {"n_features": 5000, "nnz_per_row": 50, "topic_size": 300}


def _scale(X, scaling):
    X = np.asarray(X, dtype=np.float64)
    if scaling == "minmax":
        return MinMaxScaler().fit_transform(X)
    if scaling == "standardised":
        return StandardScaler().fit_transform(X)
    return X.copy()


def _classes(loader, classes, scaling):
    """The samples of ``classes`` of a bundled data set, scaled, y = 0..k-1."""

    def load():
        X, y = loader(return_X_y=True)
        mask = np.isin(y, classes)
        return _scale(X[mask], scaling), np.searchsorted(classes, y[mask])

    return load


def _digits(classes):
    def load():
        X, y = digits(classes)
        return X, np.searchsorted(classes, y)

    return load


def _blobs(
    sizes, centres, cluster_std=1.0, shift=0.0, transform=None, scaling="raw", seed=0
):
    def load():
        X, y = make_blobs(
            list(sizes), centers=centres, cluster_std=cluster_std, random_state=seed
        )
        if transform is not None:
            X = X @ transform
        return _scale(X + shift, scaling), y

    return load


def _anisotropic_transform():
    """A fixed random linear map of the blobs (condition number about 14)."""
    rng = np.random.RandomState(1)
    return np.eye(N_FEATURES_BLOBS) + rng.normal(size=(N_FEATURES_BLOBS,) * 2)


def twonorm(n_samples=1000, n_features=20, random_state=0):
    """Breiman's twonorm: N(a 1, I) against N(-a 1, I), a = 2 / sqrt(d).

    The classes alternate (0, 1, 0, ...); the Bayes error is about 2.3%.
    """
    rng = np.random.RandomState(random_state)
    y = np.arange(n_samples) % 2
    a = 2.0 / np.sqrt(n_features)
    X = rng.standard_normal((n_samples, n_features)) + np.where(y == 0, a, -a)[:, None]
    return X, y


def ringnorm(n_samples=1000, n_features=20, random_state=0):
    """Breiman's ringnorm: N(0, 4 I) against N(a 1, I), a = 1 / sqrt(d).

    The classes have nearly the same mean and differ in their covariance:
    no hyperplane separates them (a quadratic boundary does).
    """
    rng = np.random.RandomState(random_state)
    y = np.arange(n_samples) % 2
    a = 1.0 / np.sqrt(n_features)
    Z = rng.standard_normal((n_samples, n_features))
    X = np.where(y[:, None] == 0, 2.0 * Z, Z + a)
    return X, y


def one_hot_clusters(sizes, n_features=4, n_levels=3, noise=0.3, random_state=0):
    """Clusters of categorical features, one-hot encoded.

    Cluster g has ``sizes[g]`` samples; its feature f takes level
    ``(g + f) mod n_levels``, or, with probability ``noise``, a level drawn
    uniformly. X has ``n_features * n_levels`` binary columns, one 1 per
    feature in each row: a gap lies along every single column, which the
    clusters do not follow.
    """
    rng = np.random.RandomState(random_state)
    y = np.repeat(np.arange(len(sizes)), sizes)
    levels = (y[:, None] + np.arange(n_features)) % n_levels
    noisy = rng.random_sample(levels.shape) < noise
    levels = np.where(noisy, rng.randint(0, n_levels, levels.shape), levels)
    X = np.zeros((y.size, n_features * n_levels))
    rows = np.repeat(np.arange(y.size), n_features)
    X[rows, (n_levels * np.arange(n_features) + levels).ravel()] = 1.0
    return X, y


def _one_hot(sizes, scaling):
    def load():
        X, y = one_hot_clusters(sizes)
        return _scale(X, scaling), y

    return load


def _text(n_samples, weights=None, n_clusters=2, separation=0.3):
    def load():
        return make_sparse_clusters(
            n_samples=n_samples,
            n_clusters=n_clusters,
            separation=separation,
            weights=weights,
            random_state=0,
            **TEXT,
        )

    return load


def _ratio(r):
    return f"1:{r}"


def two_class_cases():
    """The two-class cases, in report order (60 cases)."""
    cases = [
        Case(f"digits {a}v{b}", "digits", "/16", False, _digits((a, b)))
        for a, b in ((3, 8), (1, 7), (2, 7), (8, 9), (4, 9), (1, 8), (7, 9), (1, 9))
    ]
    for short, scaling in SCALINGS.items():
        cases.append(
            Case(
                f"breast_cancer {short}",
                "tabular",
                scaling,
                False,
                _classes(load_breast_cancer, (0, 1), scaling),
            )
        )
    for name, loader, pairs in (
        ("wine", load_wine, ((0, 1), (0, 2), (1, 2))),
        ("iris", load_iris, ((1, 2), (0, 1))),
    ):
        for a, b in pairs:
            for short, scaling in SCALINGS.items():
                cases.append(
                    Case(
                        f"{name} {a}v{b} {short}",
                        "tabular",
                        scaling,
                        False,
                        _classes(loader, (a, b), scaling),
                    )
                )
    # Blobs: 1000 samples against 1000 // r.
    for r in BLOB_RATIOS:
        for short, scaling in SCALINGS.items():
            cases.append(
                Case(
                    f"blobs {_ratio(r)} {short}",
                    "toy",
                    scaling,
                    False,
                    _blobs((1000, 1000 // r), TWO_CENTRES, scaling=scaling),
                )
            )
    for r in (1, 4, 9):
        cases.append(
            Case(
                f"blobs +10 {_ratio(r)} raw",
                "toy",
                "raw",
                False,
                _blobs((1000, 1000 // r), TWO_CENTRES, shift=SHIFT),
            )
        )
    transform = _anisotropic_transform()
    for r, short in ((1, "raw"), (4, "raw"), (4, "std")):
        cases.append(
            Case(
                f"blobs aniso {_ratio(r)} {short}",
                "toy",
                SCALINGS[short],
                False,
                _blobs(
                    (1000, 1000 // r),
                    TWO_CENTRES,
                    transform=transform,
                    scaling=SCALINGS[short],
                ),
            )
        )
    # Unequal spread (cluster std 1 and 2.5): balanced, the small cluster
    # wide, the large cluster wide.
    for label, sizes, std in (
        ("1:1", (1000, 1000), (1.0, 2.5)),
        ("1:4 small wide", (1000, 250), (1.0, 2.5)),
        ("1:4 large wide", (1000, 250), (2.5, 1.0)),
    ):
        cases.append(
            Case(
                f"blobs spread {label} raw",
                "toy",
                "raw",
                False,
                _blobs(sizes, TWO_CENTRES, cluster_std=list(std)),
            )
        )
    cases += [
        Case(
            "moons",
            "toy",
            "raw",
            True,
            lambda: make_moons(1000, noise=0.05, random_state=0),
        ),
        Case(
            "circles",
            "toy",
            "raw",
            True,
            lambda: make_circles(1000, factor=0.4, noise=0.05, random_state=0),
        ),
        Case("twonorm", "toy", "raw", False, twonorm),
        # No hyperplane separates ringnorm; it runs with the linear defaults
        # like every other case that is not explicitly non-linear.
        Case("ringnorm", "toy", "raw", False, ringnorm),
    ]
    for label, weights in (("1:1", None), ("1:4", (1, 4)), ("1:12", (1, 12))):
        cases.append(
            Case(f"text {label}", "text", "unit-norm rows", False, _text(1300, weights))
        )
    # One-hot categorical features, as they come and standardised (min-max
    # scaling leaves binary columns as they are).
    for label, sizes, short in (
        ("1:1", (150, 150), "raw"),
        ("1:1", (150, 150), "std"),
        ("1:3", (300, 100), "raw"),
    ):
        cases.append(
            Case(
                f"one-hot {label} {short}",
                "categorical",
                SCALINGS[short],
                False,
                _one_hot(sizes, SCALINGS[short]),
            )
        )
    return cases


def _geometric_sizes(n_clusters, largest=400, ratio=5.0):
    """Cluster sizes from ``largest`` down to ``largest / ratio``, geometrically."""
    steps = np.arange(n_clusters) / (n_clusters - 1)
    return tuple(int(s) for s in np.round(largest * ratio**-steps))


def multiclass_cases():
    """The cases with more than two classes, in report order (16 cases)."""
    cases = [
        Case("digits (10 classes)", "digits", "/16", False, _digits(tuple(range(10)))),
        Case("digits {0,6,8,9}", "digits", "/16", False, _digits((0, 6, 8, 9))),
        Case("digits {1,2,7,9}", "digits", "/16", False, _digits((1, 2, 7, 9))),
        Case(
            "wine std",
            "tabular",
            "standardised",
            False,
            _classes(load_wine, (0, 1, 2), "standardised"),
        ),
        Case(
            "iris std",
            "tabular",
            "standardised",
            False,
            _classes(load_iris, (0, 1, 2), "standardised"),
        ),
    ]
    # k blobs at 4 e_j (pairwise distance 5.7 standard deviations).
    for k in (3, 5, 10):
        centres = 4.0 * np.eye(N_FEATURES_BLOBS)[:k]
        balanced = (1500 // k,) * k
        cases += [
            Case(f"blobs k={k}", "toy", "raw", False, _blobs(balanced, centres)),
            Case(
                f"blobs k={k} 1:5",
                "toy",
                "raw",
                False,
                _blobs(_geometric_sizes(k), centres),
            ),
            Case(
                f"blobs k={k} +10",
                "toy",
                "raw",
                False,
                _blobs(balanced, centres, shift=SHIFT),
            ),
        ]
    cases += [
        Case("text k=4", "text", "unit-norm rows", False, _text(2000, n_clusters=4)),
        Case(
            "text k=10",
            "text",
            "unit-norm rows",
            False,
            _text(2000, n_clusters=10, separation=0.4),
        ),
    ]
    return cases


def _topics(sizes, share, seed):
    def load():
        return topic_corpus(sizes, topic_share=share, random_state=seed)

    return load


def topic_cases():
    """Tf-idf documents of a topic model, 2 to 8 topics, even and uneven
    (:data:`mmc.bench._text_corpus.TOPIC_CORPUS_SETTINGS`, two seeds): 22
    cases, of two classes and more."""
    return [
        Case(
            topic_case_name(sizes, share, seed),
            "text",
            "unit-norm rows",
            False,
            _topics(sizes, share, seed),
        )
        for seed in TOPIC_CORPUS_SEEDS
        for sizes, share in TOPIC_CORPUS_SETTINGS
    ]


# A handful of small cases of every kind for --quick (under a minute).
QUICK_TWO_CLASS = (
    "digits 3v8",
    "wine 0v1 std",
    "breast_cancer raw",
    "iris 1v2 std",
    "moons",
    "text 1:4",
    "one-hot 1:1 raw",
)
QUICK_MULTICLASS = ("iris std", "blobs k=3 1:5")
QUICK_TOPICS = ("topics 300:100 share 0.25 seed 0",)
