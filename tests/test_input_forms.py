"""Every legal form of the same data gives the same clustering, and the data
of a form mmc cannot compute with are refused clearly.

CSR allows duplicate stored entries (which SciPy sums), unsorted indices and
explicit zeros; they describe the same matrix as its canonical form, and
every estimator must cluster them alike without modifying the caller's
matrix. Values too large or too small to square are refused with a
ValueError rather than clustered by rounding. A precomputed kernel may be
sparse; one that is not symmetric is refused, one that is clearly not
positive semi-definite is fitted with a warning, and a callable kernel that
does not return a number is refused by name.
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from _data import two_blobs

import mmc
from mmc.kernels import KernelFeatureMap

ESTIMATORS = [
    mmc.CPMMC,
    mmc.CPM3C,
    mmc.MultivariateMMC,
    mmc.EvoMMC,
    mmc.FastEvoMMC,
    mmc.ODMC,
]


def _duplicated(X):
    """X with every stored value split into two halves stored twice."""
    X = sp.csr_matrix(X)
    rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
    rows = np.concatenate([rows, rows])
    order = np.argsort(rows, kind="stable")  # each row: its values, twice
    data = np.concatenate([0.5 * X.data, 0.5 * X.data])[order]
    indices = np.concatenate([X.indices, X.indices])[order]
    return sp.csr_matrix((data, indices, _indptr(rows, X.shape[0])), shape=X.shape)


def _indptr(rows, n_rows):
    return np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=n_rows))])


def _unsorted(X):
    """X with the indices of every row in reverse order."""
    X = sp.csr_matrix(X, copy=True)
    for i in range(X.shape[0]):
        lo, hi = X.indptr[i], X.indptr[i + 1]
        X.indices[lo:hi] = X.indices[lo:hi][::-1]
        X.data[lo:hi] = X.data[lo:hi][::-1]
    X.has_sorted_indices = False
    return X


def _explicit_zeros(X):
    """X with an explicit zero stored in every row."""
    dense = X.toarray() if sp.issparse(X) else np.asarray(X)
    X = sp.csr_matrix(dense)
    rows, data, indices = [], [], []
    for i in range(X.shape[0]):
        lo, hi = X.indptr[i], X.indptr[i + 1]
        missing = np.setdiff1d(np.arange(X.shape[1]), X.indices[lo:hi])
        extra = missing[:1]
        idx = np.concatenate([X.indices[lo:hi], extra])
        order = np.argsort(idx)
        indices.append(idx[order])
        data.append(np.concatenate([X.data[lo:hi], np.zeros(extra.size)])[order])
        rows.append(np.full(idx.size, i))
    rows = np.concatenate(rows)
    return sp.csr_matrix(
        (np.concatenate(data), np.concatenate(indices), _indptr(rows, X.shape[0])),
        shape=X.shape,
    )


def _sparse_blobs():
    X, _ = two_blobs(n_per_cluster=40, n_features=6, distance=5.0, seed=21)
    X[np.abs(X) < 0.7] = 0.0  # a sparse matrix with some structure
    return X


@pytest.mark.parametrize("Estimator", ESTIMATORS, ids=lambda E: E.__name__)
@pytest.mark.parametrize(
    "form", [_duplicated, _unsorted, _explicit_zeros], ids=lambda f: f.__name__[1:]
)
def test_non_canonical_csr_is_clustered_as_its_canonical_form(Estimator, form):
    X = _sparse_blobs()
    canonical = sp.csr_matrix(X)
    other = form(X)
    assert np.allclose(other.toarray(), X)
    before = (other.data.copy(), other.indices.copy(), other.indptr.copy())
    expected = Estimator(random_state=0).fit(canonical).labels_
    labels = Estimator(random_state=0).fit(other).labels_
    np.testing.assert_array_equal(labels, expected)
    # The caller's matrix is left as it was.
    for array, copy in zip((other.data, other.indices, other.indptr), before):
        np.testing.assert_array_equal(array, copy)


@pytest.mark.parametrize("Estimator", ESTIMATORS, ids=lambda E: E.__name__)
@pytest.mark.parametrize(
    "scale, dtype",
    [(1e-300, np.float64), (1e200, np.float64), (1e-40, np.float32)],
    ids=["tiny", "huge", "tiny-float32"],
)
def test_values_of_extreme_magnitude_are_refused(Estimator, scale, dtype):
    X, _ = two_blobs(n_per_cluster=20, seed=22)
    X = (X * scale).astype(dtype)
    with pytest.raises(ValueError, match="Rescale X"):
        Estimator(random_state=0).fit(X)


def test_values_of_extreme_magnitude_are_refused_at_predict():
    X, _ = two_blobs(n_per_cluster=20, seed=23)
    est = mmc.CPMMC(random_state=0).fit(X)
    with pytest.raises(ValueError, match="Rescale X"):
        est.predict(X * 1e-300)


KERNEL_ESTIMATORS = [mmc.CPMMC, mmc.CPM3C, mmc.MultivariateMMC, mmc.ODMC]


def _linear_kernel():
    X, _ = two_blobs(n_per_cluster=15, distance=4.0, seed=2)
    return X, X @ X.T


@pytest.mark.parametrize("Estimator", KERNEL_ESTIMATORS, ids=lambda E: E.__name__)
def test_a_sparse_precomputed_kernel_is_clustered_as_its_dense_form(Estimator):
    _, K = _linear_kernel()
    dense = Estimator(kernel="precomputed", random_state=0).fit(K)
    sparse = Estimator(kernel="precomputed", random_state=0).fit(sp.csr_matrix(K))
    np.testing.assert_array_equal(sparse.labels_, dense.labels_)
    np.testing.assert_array_equal(sparse.predict(sp.csr_matrix(K)), dense.labels_)


@pytest.mark.parametrize("Estimator", KERNEL_ESTIMATORS, ids=lambda E: E.__name__)
def test_a_non_symmetric_precomputed_kernel_is_refused(Estimator):
    _, K = _linear_kernel()
    K[0, 1] += 1.0
    with pytest.raises(ValueError, match="symmetric kernel matrix"):
        Estimator(kernel="precomputed").fit(K)


@pytest.mark.parametrize("Estimator", KERNEL_ESTIMATORS, ids=lambda E: E.__name__)
def test_an_indefinite_precomputed_kernel_warns_once(Estimator):
    _, K = _linear_kernel()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        Estimator(kernel="precomputed", random_state=0).fit(K)
        Estimator(kernel="precomputed", random_state=0).fit(
            K - 5.0 * np.eye(K.shape[0])
        )
    messages = [str(w.message) for w in caught if w.category is UserWarning]
    assert len(messages) == 1 and "not positive semi-definite" in messages[0]


@pytest.mark.parametrize("Estimator", KERNEL_ESTIMATORS, ids=lambda E: E.__name__)
def test_a_callable_kernel_must_return_a_number(Estimator):
    X, _ = _linear_kernel()
    with pytest.raises(ValueError, match="callable kernel must .* return a number"):
        Estimator(kernel=lambda a, b: a * b).fit(X)


def test_the_feature_map_must_be_fitted_before_transform():
    from sklearn.exceptions import NotFittedError

    X, _ = _linear_kernel()
    with pytest.raises(NotFittedError, match="not fitted yet"):
        KernelFeatureMap("rbf").transform(X)


@pytest.mark.parametrize("sparse", [False, True])
def test_validation_makes_no_copy_of_canonical_data(sparse):
    # The checks of canonical form and magnitude read X without temporaries
    # of its size (np.abs(X) would double the memory of a large dense X).
    import tracemalloc

    rng = np.random.default_rng(0)
    X = rng.normal(size=(20_000, 50))
    if sparse:
        X[rng.random(X.shape) < 0.8] = 0.0
        X = sp.csr_matrix(X)
        X.indices, X.indptr = X.indices.astype(np.int32), X.indptr.astype(np.int32)
        size = X.data.nbytes + X.indices.nbytes + X.indptr.nbytes
    else:
        size = X.nbytes
    est = mmc.CPMMC()
    tracemalloc.start()
    try:
        validated = est._validate_X(X, reset=True)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert validated is X
    assert peak < 0.1 * size
