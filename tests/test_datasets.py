"""mmc.datasets: the synthetic sparse clusters."""

import numpy as np
import pytest

from mmc.datasets import make_sparse_clusters


@pytest.mark.parametrize(
    "n_samples, weights, sizes",
    [
        (100, [1, 4], [20, 80]),
        (1300, [1, 12], [100, 1200]),
        (10, [1, 1, 1], [4, 3, 3]),  # the remainder to the lowest index
        (10, [0.5, 0.25, 0.25], [5, 3, 2]),
        (7, [3, 3, 1], [3, 3, 1]),
    ],
)
def test_weights_give_the_cluster_sizes(n_samples, weights, sizes):
    X, y = make_sparse_clusters(
        n_samples=n_samples,
        n_features=300,
        n_clusters=len(weights),
        weights=weights,
        random_state=0,
    )
    assert np.bincount(y, minlength=len(weights)).tolist() == sizes
    assert X.shape == (n_samples, 300)
    # Rows keep unit norm.
    np.testing.assert_allclose(np.sqrt(X.multiply(X).sum(axis=1)).ravel(), 1.0)


def test_weights_keep_the_rows_of_each_cluster_in_its_topic():
    X, y = make_sparse_clusters(
        n_samples=600,
        n_features=1000,
        nnz_per_row=20,
        separation=1.0,
        weights=[1, 5],
        random_state=0,
    )
    # With separation 1 every value of a row falls in its cluster's topic.
    block = 1000 // 2
    rows = np.repeat(np.arange(600), np.diff(X.indptr))
    assert np.array_equal(X.indices // block, y[rows])
    assert np.bincount(y).tolist() == [100, 500]


def test_equal_weights_match_the_default_proportions():
    _, y_default = make_sparse_clusters(
        n_samples=90, n_features=300, n_clusters=3, random_state=0
    )
    _, y_weights = make_sparse_clusters(
        n_samples=90, n_features=300, n_clusters=3, weights=[2, 2, 2], random_state=0
    )
    assert np.bincount(y_default).tolist() == np.bincount(y_weights).tolist()


EXPECTED_INDICES = [14, 19, 0, 1, 7, 0, 9, 10, 11, 14, 18, 0, 2, 4, 5, 6]
EXPECTED_DATA = [
    0.11006850018240201,
    0.9939240037686969,
    0.9004192368830455,
    0.04675983828785424,
    0.432502850134248,
    0.7028493923889116,
    0.6954544875961882,
    0.14948507383970205,
    0.7462214686192189,
    0.6254993777434253,
    0.22782459966905177,
    0.9862092563194331,
    0.16550318048264392,
    0.34483541469992496,
    0.7506422245029133,
    0.5635821036566443,
]


def test_default_output_is_unchanged():
    # Recorded before ``weights`` was added: the default path must draw the
    # same labels and values as before.
    X, y = make_sparse_clusters(
        n_samples=6, n_features=20, nnz_per_row=3, random_state=0
    )
    assert y.tolist() == [1, 0, 1, 1, 0, 0]
    assert X.indices.tolist() == EXPECTED_INDICES
    np.testing.assert_allclose(X.data, EXPECTED_DATA, rtol=1e-12)


@pytest.mark.parametrize(
    "weights, message",
    [
        ([1, 2, 3], r"weights must have shape \(2,\)"),
        ([[1, 2]], r"weights must have shape \(2,\)"),
        ([1, 0], "finite and positive"),
        ([1, -1], "finite and positive"),
        ([1, np.nan], "finite and positive"),
        ([1, np.inf], "finite and positive"),
    ],
)
def test_bad_weights_are_rejected(weights, message):
    with pytest.raises(ValueError, match=message):
        make_sparse_clusters(
            n_samples=10,
            n_features=20,
            nnz_per_row=5,
            weights=weights,
            random_state=0,
        )


def test_weights_must_be_array_like():
    with pytest.raises(ValueError, match="weights"):
        make_sparse_clusters(
            n_samples=10, n_features=20, nnz_per_row=5, weights="a", random_state=0
        )
