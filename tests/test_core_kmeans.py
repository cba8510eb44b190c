"""Tests of mmc._core._kmeans against their NumPy twins in _reference.py.

Two kinds of input. On small integers (and centres with few binary digits)
every product and sum is exact whatever its order, so the kernels must give
the twins' numbers exactly, exact ties included: these catch a wrong index,
the wrong tie rule or a sum in the wrong row. On random real values the
kernels sum in another order than BLAS, so values are compared at float64
tolerances and the labels exactly (no random sample falls within rounding of
a tie). Dense and CSR X, float32 and float64, must give the same numbers to
the last bit: the kernel sums each product in the order of the features.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from _data import random_X
from _reference import kmeans_assign, kmeans_seed_distances

from mmc._core import _kmeans
from mmc._kmeans import rounding_scale
from mmc._rows import rows

CASES = [
    pytest.param(dtype, sparse, id=f"{np.dtype(dtype).name}-{('dense', 'csr')[sparse]}")
    for dtype in (np.float32, np.float64)
    for sparse in (False, True)
]
# Shapes around the kernel's blocks of four rows and four vectors.
SHAPES = [(1, 1), (3, 2), (4, 5), (9, 7), (150, 23)]
N_VECTORS = [1, 2, 3, 4, 6, 10]


def _integer_X(rng, n, d, dtype, sparse):
    """Small integers, with zeros and repeated rows: exact arithmetic and ties."""
    X = rng.integers(-3, 4, size=(n, d)).astype(dtype)
    X[rng.random((n, d)) < 0.3] = 0
    if n > 3:
        X[1] = X[0]
    if not sparse:
        return X
    X = sp.csr_matrix(X)
    X.indices = X.indices.astype(np.int32)
    X.indptr = X.indptr.astype(np.int32)
    return X


def _vectors(rng, X, n_vectors, exact):
    """Centres: some rows of X (exact ties with them), some others."""
    dense = X.toarray() if sp.issparse(X) else X
    n, d = dense.shape
    V = rng.integers(-2, 3, size=(n_vectors, d)) * 0.5 if exact else None
    if V is None:
        V = rng.normal(size=(n_vectors, d)) * dense.std()
    V[: min(n_vectors, n) // 2] = dense[rng.integers(0, n, min(n_vectors, n) // 2)]
    if n_vectors > 2:
        V[-1] = V[0]  # a duplicate centre: the first of the two wins
    return V.astype(np.float64)


# The bounds arguments of _kmeans.assign for a pass without them (their
# tests are in test_core_kmeans_bounds.py).
NO_BOUNDS = (np.zeros(0), np.zeros(0), np.zeros(0))


def _assign(X, centres, labels=None, with_sums=True, bounds=NO_BOUNDS):
    X64, norms, rel = rounding_scale(X)
    n, d = X.shape
    labels = np.full(n, -1, np.int32) if labels is None else labels
    nearest = np.full(n, np.nan)
    sums = np.zeros((len(centres), d)) if with_sums else np.zeros((0, 0))
    n_changed = _kmeans.assign(
        *rows(X),
        norms,
        np.ascontiguousarray(centres.T),
        np.einsum("ij,ij->i", centres, centres),
        rel,
        labels,
        nearest,
        sums,
        *bounds,
    )
    return labels, nearest, sums, n_changed, norms, rel


def _seed(X, candidates, closest, norms=None):
    # rounding_scale sums the norms of dense and CSR X in different orders.
    _, own_norms, rel = rounding_scale(X)
    norms = own_norms if norms is None else norms
    out = np.empty((len(candidates), X.shape[0]))
    _kmeans.seed_distances(
        *rows(X),
        norms,
        np.ascontiguousarray(candidates.T),
        np.einsum("ij,ij->i", candidates, candidates),
        rel,
        closest,
        out,
    )
    return out, norms, rel


def _flat(X):
    """X as the kernels read it: C-contiguous dense, or CSR."""
    return X if sp.issparse(X) else np.ascontiguousarray(X)


@pytest.mark.parametrize("dtype, sparse", CASES)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("k", N_VECTORS)
def test_assign_matches_reference_exactly_on_exact_inputs(dtype, sparse, shape, k):
    rng = np.random.default_rng(shape[0] * 7 + k)
    X = _integer_X(rng, *shape, dtype, sparse)
    centres = _vectors(rng, X, k, exact=True)
    labels, nearest, sums, n_changed, norms, rel = _assign(X, centres)
    expected_sums = np.zeros_like(sums)
    ref_labels, ref_nearest = kmeans_assign(X, norms, centres, rel, expected_sums)
    np.testing.assert_array_equal(labels, ref_labels)
    np.testing.assert_array_equal(nearest, ref_nearest)
    np.testing.assert_array_equal(sums, expected_sums)
    assert n_changed == shape[0]


@pytest.mark.parametrize("dtype, sparse", CASES)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("k", N_VECTORS)
def test_assign_matches_reference_on_random_inputs(dtype, sparse, shape, k):
    rng = np.random.default_rng(shape[0] * 11 + k)
    X = random_X(rng, *shape, dtype, sparse)
    centres = _vectors(rng, X, k, exact=False)
    labels, nearest, sums, _, norms, rel = _assign(X, centres)
    expected_sums = np.zeros_like(sums)
    ref_labels, ref_nearest = kmeans_assign(X, norms, centres, rel, expected_sums)
    np.testing.assert_array_equal(labels, ref_labels)
    scale = norms + np.einsum("ij,ij->i", centres, centres).max()
    np.testing.assert_array_less(np.abs(nearest - ref_nearest), rel * scale + 1e-300)
    # The sums are of the same labels in the same order: the same bits.
    np.testing.assert_array_equal(sums, expected_sums)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("k", N_VECTORS)
def test_assign_is_the_same_for_every_input_format(shape, k):
    rng = np.random.default_rng(shape[0] + 100 * k)
    X = random_X(rng, *shape, np.float32, False)
    centres = _vectors(rng, X, k, exact=False)
    expected = _assign(X, centres)
    for variant in (
        X.astype(np.float64),
        sp.csr_matrix(X),
        sp.csr_matrix(X, dtype=np.float64),
    ):
        got = _assign(_flat(variant), centres)
        for a, b in zip(got[:3], expected[:3]):
            np.testing.assert_array_equal(a, b)


def _assign_columns(X, centres, labels=None, with_sums=True):
    """assign_columns on the CSC form of X, with the norms of its CSR form."""
    X = sp.csr_matrix(X)
    _, norms, rel = rounding_scale(X)
    C = sp.csc_matrix(X)
    n, d = X.shape
    labels = np.full(n, -1, np.int32) if labels is None else labels
    nearest = np.empty(n)
    sums = np.zeros((len(centres), d)) if with_sums else np.zeros((0, 0))
    n_changed = _kmeans.assign_columns(
        C.data,
        C.indices.astype(np.int32),
        C.indptr.astype(np.int32),
        n,
        norms,
        np.ascontiguousarray(centres.T),
        np.einsum("ij,ij->i", centres, centres),
        rel,
        labels,
        nearest,
        sums,
        np.empty((n, len(centres))),
    )
    return labels, nearest, sums, n_changed


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", SHAPES + [(5, 40)])
@pytest.mark.parametrize("k", N_VECTORS)
def test_assign_columns_is_assign_to_the_last_bit(dtype, shape, k):
    rng = np.random.default_rng(shape[0] * 17 + k)
    X = random_X(rng, *shape, dtype, sparse=True)
    centres = _vectors(rng, X, k, exact=False)
    expected = _assign(X, centres)
    got = _assign_columns(X, centres)
    for a, b in zip(got, expected[:4]):
        np.testing.assert_array_equal(a, b)
    # And on exact inputs, the twin's numbers and ties.
    X = _integer_X(rng, *shape, dtype, sparse=True)
    centres = _vectors(rng, X, k, exact=True)
    labels, nearest, sums, _ = _assign_columns(X, centres)
    _, norms, rel = rounding_scale(X)
    expected_sums = np.zeros_like(sums)
    ref_labels, ref_nearest = kmeans_assign(X, norms, centres, rel, expected_sums)
    np.testing.assert_array_equal(labels, ref_labels)
    np.testing.assert_array_equal(nearest, ref_nearest)
    np.testing.assert_array_equal(sums, expected_sums)


def test_assign_columns_counts_changes_and_skips_sums():
    rng = np.random.default_rng(4)
    X = random_X(rng, 30, 50, np.float64, sparse=True)
    centres = _vectors(rng, X, 4, exact=False)
    labels = _assign_columns(X, centres)[0]
    previous = labels.copy()
    previous[[2, 29]] = (previous[[2, 29]] + 1) % 4
    again, _, sums, n_changed = _assign_columns(X, centres, previous, with_sums=False)
    assert n_changed == 2
    np.testing.assert_array_equal(again, labels)
    assert sums.shape == (0, 0)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_assign_counts_changes_and_skips_sums(sparse):
    rng = np.random.default_rng(3)
    X = random_X(rng, 60, 5, np.float64, sparse)
    centres = _vectors(rng, X, 4, exact=False)
    labels, nearest, _, n_changed, _, _ = _assign(X, centres)
    assert n_changed == 60
    previous = labels.copy()
    previous[[0, 7, 59]] = (previous[[0, 7, 59]] + 1) % 4
    again, nearest_again, sums, n_changed, _, _ = _assign(
        X, centres, previous, with_sums=False
    )
    assert n_changed == 3
    assert again is previous
    np.testing.assert_array_equal(again, labels)
    np.testing.assert_array_equal(nearest_again, nearest)
    assert sums.shape == (0, 0)


def test_assign_breaks_exact_ties_to_the_first_centre():
    # Every sample is equidistant from the two centres (the origin and 2 e1
    # are both at squared distance 1 + |x_2..|^2 from points with x1 = 1).
    X = np.array([[1.0, 0.0], [1.0, 3.0], [1.0, -2.0]])
    centres = np.array([[2.0, 0.0], [0.0, 0.0], [2.0, 0.0]])
    labels = _assign(X, centres)[0]
    np.testing.assert_array_equal(labels, [0, 0, 0])
    labels = _assign(X, centres[1:])[0]
    np.testing.assert_array_equal(labels, [0, 0, 0])


@pytest.mark.parametrize("dtype, sparse", CASES)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("t", [1, 2, 4, 5])
def test_seed_distances_match_reference(dtype, sparse, shape, t):
    for exact in (True, False):
        rng = np.random.default_rng(shape[0] * 13 + t)
        make = _integer_X if exact else random_X
        X = make(rng, *shape, dtype, sparse)
        candidates = _vectors(rng, X, t, exact)
        closest = np.full(shape[0], np.inf)
        closest[::2] = rng.random(closest[::2].size) * (1.0 if exact else 1e3)
        got, norms, rel = _seed(X, candidates, closest)
        expected = kmeans_seed_distances(X, norms, candidates, rel, closest)
        if exact:
            np.testing.assert_array_equal(got, expected)
        else:
            scale = (
                norms[None, :] + np.einsum("ij,ij->i", candidates, candidates)[:, None]
            )
            np.testing.assert_array_less(np.abs(got - expected), rel * scale + 1e-300)
        # A candidate's own rows and their duplicates are at distance zero.
        dense = X.toarray() if sp.issparse(X) else X
        same = (dense[None, :, :] == candidates[:, None, :]).all(axis=2)
        assert (got[same] == 0.0).all()


@pytest.mark.parametrize("shape", SHAPES)
def test_seed_distances_are_the_same_for_every_input_format(shape):
    rng = np.random.default_rng(shape[0])
    X = random_X(rng, *shape, np.float32, False)
    candidates = _vectors(rng, X, 4, exact=False)
    closest = np.full(shape[0], np.inf)
    expected, norms, _ = _seed(X, candidates, closest)
    for variant in (X.astype(np.float64), sp.csr_matrix(X)):
        got = _seed(_flat(variant), candidates, closest, norms)[0]
        np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", SHAPES)
def test_csr_storing_no_value_is_read_as_rows_of_zeros(dtype, shape):
    # Empty index arrays mark dense rows in the kernels; rows() must not
    # hand them a CSR matrix's (their dense blocks of four rows read values
    # that a CSR matrix of zeros does not have).
    X = sp.csr_matrix(shape, dtype=dtype)
    assert X.nnz == 0 and rows(X)[1].size > 0
    rng = np.random.default_rng(shape[0])
    candidates = rng.normal(size=(3, shape[1]))
    closest = np.full(shape[0], np.inf)
    got, norms, rel = _seed(X, candidates, closest)
    np.testing.assert_array_equal(norms, 0.0)
    np.testing.assert_array_equal(
        got, kmeans_seed_distances(X, norms, candidates, rel, closest)
    )
    labels, nearest, sums, _, _, _ = _assign(X, candidates)
    expected = kmeans_assign(X.toarray(), norms, candidates, rel)
    np.testing.assert_array_equal(labels, expected[0])
    np.testing.assert_array_equal(sums, 0.0)


def test_stable_kmeans_takes_the_same_choices_by_columns_and_by_rows():
    # Wide sparse X is read by columns (assign_columns), its dense twin and
    # a tall stack of it by rows: the same centres.
    from mmc._kmeans import _column_form, best_kmeans_centres, stable_kmeans

    rng = np.random.default_rng(5)
    X = sp.random(60, 200, density=0.05, random_state=5, format="csr")
    X.data = np.round(X.data * 8) / 8  # exact ties between rows
    assert _column_form(X) is not None and _column_form(X.toarray()) is None
    for k in (2, 5):
        seed = int(rng.integers(1000))
        by_columns = stable_kmeans(X, k, np.random.RandomState(seed), 50)
        by_rows = stable_kmeans(X.toarray(), k, np.random.RandomState(seed), 50)
        np.testing.assert_array_equal(by_columns, by_rows)
        best = best_kmeans_centres(X, k, np.random.RandomState(seed), 3)
        dense_best = best_kmeans_centres(X.toarray(), k, np.random.RandomState(seed), 3)
        np.testing.assert_array_equal(best, dense_best)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_squared_distances_match_numpy(dtype, sparse):
    from mmc._kmeans import squared_distances

    rng = np.random.default_rng(7)
    X = random_X(rng, 40, 9, dtype, sparse)
    centre = rng.normal(size=9)
    dense = X.toarray() if sparse else X
    expected = ((dense.astype(np.float64) - centre) ** 2).sum(axis=1)
    distances = squared_distances(X, centre)
    assert distances.dtype == np.float64 and distances.shape == (40,)
    np.testing.assert_allclose(distances, expected, rtol=1e-12, atol=1e-9)
    # The other format: the same products x.c; the norms |x|^2 may round
    # differently (NumPy's and SciPy's sums).
    other = sp.csr_matrix(dense) if not sparse else dense
    np.testing.assert_allclose(squared_distances(other, centre), distances, rtol=1e-15)
