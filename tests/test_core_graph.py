"""The kernels of the graph start (mmc/_core/_graph.pyx) against their NumPy
twins in _reference, on blocks of the distances of random rows, dense and
CSR, float32 and float64."""

import _reference
import numpy as np
import pytest
import scipy.sparse as sp

from mmc._core._graph import add_cluster_roots, grid_distances, nearest_rows
from mmc._graph_start import SampleDistances


def random_rows(sparse, dtype, n_rows=70, n_features=9, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.standard_normal((n_rows, n_features)).astype(dtype)
    X[rng.rand(*X.shape) < 0.4] = 0.0
    # Repeated and integer rows: tied distances, and exact zeros off the
    # diagonal.
    X[5] = X[3]
    X[10:20] = np.round(X[10:20])
    return sp.csr_matrix(X) if sparse else X


def product_blocks(distances, block_rows):
    """``(start, products)`` of each block of rows, before the grid."""
    S = distances.S
    for start in range(0, distances.n_rows, block_rows):
        products = S[start : start + block_rows] @ S.T
        if sp.issparse(products):
            products = products.toarray()
        yield start, np.ascontiguousarray(products, dtype=np.float64)


FORMS = [
    pytest.param(sparse, dtype, id=f"{'csr' if sparse else 'dense'}-{dtype.__name__}")
    for sparse in (False, True)
    for dtype in (np.float32, np.float64)
]


@pytest.mark.parametrize("sparse, dtype", FORMS)
def test_grid_distances_matches_reference(sparse, dtype):
    distances = SampleDistances(random_rows(sparse, dtype))
    units = distances._norm_units
    for start, products in product_blocks(distances, 16):
        expected = _reference.grid_distances(
            products, units, distances._product_units, start
        )
        grid_distances(products, units, distances._product_units, start)
        np.testing.assert_array_equal(products, expected)


@pytest.mark.parametrize("n_nearest", [1, 4, 10])
@pytest.mark.parametrize("sparse, dtype", FORMS)
def test_nearest_rows_matches_reference(sparse, dtype, n_nearest):
    distances = SampleDistances(random_rows(sparse, dtype))
    for start, block in distances.blocks():
        out = np.empty((block.shape[0], n_nearest), dtype=np.intp)
        nearest_rows(block, start, out)
        expected = _reference.nearest_rows(block, start, n_nearest)
        np.testing.assert_array_equal(out, expected)


def test_nearest_rows_breaks_ties_to_the_lower_row():
    block = np.array([[0.0, 2.0, 1.0, 1.0, 1.0, 2.0]])
    out = np.empty((1, 4), dtype=np.intp)
    nearest_rows(block, 0, out)
    np.testing.assert_array_equal(out, [[0, 2, 3, 4]])


def test_nearest_rows_refuses_more_rows_than_it_can_keep():
    block = np.zeros((2, 100))
    with pytest.raises(ValueError, match="at most 64"):
        nearest_rows(block, 0, np.empty((2, 65), dtype=np.intp))
    with pytest.raises(ValueError, match="more nearest rows"):
        nearest_rows(np.zeros((2, 3)), 0, np.empty((2, 4), dtype=np.intp))


@pytest.mark.parametrize("n_clusters", [2, 3, 7])
@pytest.mark.parametrize("sparse, dtype", FORMS)
def test_add_cluster_roots_matches_reference(sparse, dtype, n_clusters):
    distances = SampleDistances(random_rows(sparse, dtype))
    rng = np.random.RandomState(n_clusters)
    labels = rng.randint(0, n_clusters, size=(2, distances.n_rows)).astype(np.intp)
    for start, block in distances.blocks():
        totals = np.zeros((block.shape[0], 2 * n_clusters))
        add_cluster_roots(block, labels, n_clusters, totals)
        expected = _reference.add_cluster_roots(block, labels, n_clusters)
        np.testing.assert_allclose(totals, expected, rtol=1e-12, atol=0.0)
