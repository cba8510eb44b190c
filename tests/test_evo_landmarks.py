"""FastEvoMMC's landmarks: k-means centres, random samples, singular
vectors of the linear kernel (dense, or stored on the used columns of
sparse rows) and landmarks given as an array, against their references.
"""

import warnings

import _reference
import numpy as np
import pytest
import scipy.sparse as sp
from _data import dense, two_blobs
from sklearn.exceptions import ConvergenceWarning

import mmc._evo
import mmc._evo_basis
from mmc import EvoMMC, FastEvoMMC
from mmc.datasets import make_sparse_clusters
from mmc.kernels import kernel_matrix
from mmc.metrics import clustering_error


def test_kmeans_landmarks_are_reproducible_centres():
    X, _ = two_blobs(n_per_cluster=60, distance=3.0, seed=11)
    a = FastEvoMMC(n_components=12, n_init=2, random_state=3).fit(X)
    b = FastEvoMMC(n_components=12, n_init=2, random_state=3).fit(X)
    np.testing.assert_array_equal(a.X_landmarks_, b.X_landmarks_)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    assert a.fitness_ == b.fitness_
    # Each centre is the mean of the samples nearest to it: not a sample, but
    # inside the data's bounding box.
    assert a.X_landmarks_.shape == (12, X.shape[1])
    assert np.unique(a.X_landmarks_, axis=0).shape[0] == 12
    assert np.all(a.X_landmarks_ >= X.min(axis=0) - 1e-12)
    assert np.all(a.X_landmarks_ <= X.max(axis=0) + 1e-12)
    other = FastEvoMMC(n_components=12, n_init=2, random_state=4).fit(X)
    assert not np.array_equal(other.X_landmarks_, a.X_landmarks_)


def test_kmeans_landmarks_fit_a_subsample_of_bounded_size(monkeypatch):
    seen = []
    original = mmc._evo_basis.stable_kmeans

    def recording_kmeans(X, n_clusters, random_state, max_iter):
        seen.append((X.shape[0], n_clusters, max_iter))
        return original(X, n_clusters, random_state, max_iter)

    monkeypatch.setattr(mmc._evo_basis, "stable_kmeans", recording_kmeans)
    X, _ = two_blobs(n_per_cluster=100, seed=12)
    FastEvoMMC(n_components=5, n_init=1, random_state=0).fit(X)
    per_landmark = mmc._evo_basis.SAMPLES_PER_LANDMARK
    assert seen == [(5 * per_landmark, 5, mmc._evo_basis.KMEANS_ITERATIONS)]
    seen.clear()
    FastEvoMMC(n_components=50, n_init=1, random_state=0).fit(X)
    assert seen == [(200, 50, mmc._evo_basis.KMEANS_ITERATIONS)]  # all the samples


def test_a_kernel_without_information_gives_one_cluster_and_says_so():
    # A constant kernel fits every labelling alike: the search's labelling
    # was random, unwarned, and predict put every sample on one side.
    X, _ = two_blobs(n_per_cluster=50, seed=3)
    with pytest.warns(ConvergenceWarning, match="in one cluster"):
        estimator = EvoMMC(kernel="poly", degree=0, random_state=0).fit(X)
    np.testing.assert_array_equal(estimator.labels_, 0)
    np.testing.assert_array_equal(estimator.predict(X), estimator.labels_)


def test_more_landmarks_than_samples_is_the_exact_kernel():
    # As the kernel maps of the other estimators: a value that fits a large
    # fold serves a small one (before: a ValueError).
    X, _ = two_blobs(n_per_cluster=30, seed=12)
    capped = FastEvoMMC(n_components=500, n_init=1, random_state=0).fit(X)
    exact = FastEvoMMC(n_components=60, n_init=1, random_state=0).fit(X)
    assert capped.n_components_ == exact.n_components_
    np.testing.assert_array_equal(capped.labels_, exact.labels_)
    np.testing.assert_array_equal(capped.dual_coef_, exact.dual_coef_)


def test_kmeans_landmarks_on_duplicated_samples():
    # Fewer distinct points than landmarks: coincident centres are one
    # landmark for the Nystroem map, and nothing warns.
    X = np.repeat(np.array([[0.0, 0.0], [0.1, 0.0], [3.0, 3.0], [3.1, 3.0]]), 10, 0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        est = FastEvoMMC(n_components=8, random_state=0).fit(X)
    assert est.n_components_ <= 4
    assert clustering_error(np.repeat([0, 0, 1, 1], 10), est.labels_) == 0.0


def _leading_right_singular_vectors(X, r, like):
    """NumPy reference: the r leading right singular vectors of X (rows),
    each with the sign of its row in ``like``."""
    _, _, Vt = np.linalg.svd(np.asarray(X, dtype=np.float64), full_matrices=False)
    Vt = Vt[:r]
    return Vt * np.sign(np.sum(Vt * like, axis=1))[:, None]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize(
    "shape", [(100, 200), (400, 30)], ids=["samples-gram", "features-gram"]
)
def test_singular_landmarks_are_the_leading_singular_vectors(shape, sparse, dtype):
    # 8 landmarks: a subsample of 80 samples, fewer than the 200 features
    # (the samples' Gram matrix) or more than the 30 (the features').
    rng = np.random.RandomState(0)
    n_samples, n_features = shape
    X = rng.standard_normal(shape) * np.geomspace(3.0, 0.1, n_features)
    X[rng.rand(*shape) < 0.5] = 0.0
    X = X.astype(dtype)
    directions = mmc._evo_basis.singular_landmarks(
        sp.csr_matrix(X) if sparse else X, 8, np.random.RandomState(1)
    )
    subsample = mmc._evo_basis.landmark_subsample(X, 8, np.random.RandomState(1))
    assert subsample.shape[0] == 80
    assert directions.dtype == dtype and directions.shape == (8, n_features)
    expected = _leading_right_singular_vectors(subsample, 8, directions)
    atol = 1e-6 if dtype == np.float32 else 1e-9
    np.testing.assert_allclose(directions, expected, atol=atol)
    # The signs are fixed: the other format gives the same rows.
    other = mmc._evo_basis.singular_landmarks(
        X if sparse else sp.csr_matrix(X), 8, np.random.RandomState(1)
    )
    np.testing.assert_allclose(other, directions, atol=atol)


def _wide_text(n_features=20_000, dtype=np.float64):
    """Sparse rows of many more features than a subsample of 80 rows uses."""
    X, y = make_sparse_clusters(
        n_samples=200,
        n_features=n_features,
        nnz_per_row=50,
        separation=0.5,
        random_state=3,
    )
    return X.astype(dtype), y


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_singular_landmarks_of_wide_sparse_rows_store_the_used_columns(dtype):
    # The directions lie in the span of the subsample's rows: zero on every
    # column it leaves empty, which the CSR matrix does not store.
    X, _ = _wide_text(dtype=dtype)
    directions = mmc._evo_basis.singular_landmarks(X, 8, np.random.RandomState(1))
    subsample = mmc._evo_basis.landmark_subsample(X, 8, np.random.RandomState(1))
    used = np.unique(subsample.indices)
    assert sp.issparse(directions) and directions.dtype == dtype
    assert directions.shape == (8, X.shape[1]) and directions.nnz == 8 * used.size
    assert used.size < X.shape[1] / 2
    dense = directions.toarray()
    np.testing.assert_array_equal(
        dense[:, np.setdiff1d(np.arange(X.shape[1]), used)], 0
    )
    expected = _leading_right_singular_vectors(subsample.toarray(), 8, dense)
    atol = 1e-6 if dtype == np.float32 else 1e-9
    np.testing.assert_allclose(dense, expected, atol=atol)
    # The values stored are those of the dense product of the same rows,
    # to the bit; rows that use most columns give that dense product.
    rng = np.random.default_rng(0)
    weights = rng.standard_normal((subsample.shape[0], 3))
    product = np.asarray(subsample.T @ weights).T.astype(dtype)
    span = mmc._evo_basis._span_of_rows(subsample, weights, dtype)
    assert sp.issparse(span)
    np.testing.assert_array_equal(span.toarray(), product)
    narrow = subsample[:, used]
    span = mmc._evo_basis._span_of_rows(narrow, weights, dtype)
    assert isinstance(span, np.ndarray) and span.dtype == dtype
    np.testing.assert_array_equal(span, np.asarray(narrow.T @ weights).T.astype(dtype))


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_column_selection_and_landmarks_on_columns(index_dtype):
    rng = np.random.default_rng(4)
    X = sp.random(30, 50, density=0.2, format="csr", random_state=4)
    X.data[::5] = 0.0  # explicit zeros stay stored
    X.indices, X.indptr = X.indices.astype(index_dtype), X.indptr.astype(index_dtype)
    for columns in (
        np.array([], dtype=np.intp),
        np.array([3, 7, 8, 49]),
        np.arange(50),
    ):
        got = mmc._evo_basis.select_columns(X, columns)
        assert got.shape == (30, columns.size)
        np.testing.assert_array_equal(got.toarray(), X.toarray()[:, columns])
        np.testing.assert_array_equal(
            mmc._evo_basis.select_columns(X.toarray(), columns),
            X.toarray()[:, columns],
        )
    values, columns = rng.standard_normal((4, 3)), np.array([2, 5, 11])
    landmarks = mmc._evo_basis.on_columns(values, columns, 20)
    expected = np.zeros((4, 20))
    expected[:, columns] = values
    np.testing.assert_array_equal(landmarks.toarray(), expected)
    back, back_columns = mmc._evo_basis.used_columns(landmarks)
    np.testing.assert_array_equal(back, values)
    np.testing.assert_array_equal(back_columns, columns)


def test_fastevommc_on_wide_sparse_rows_is_the_fit_with_dense_landmarks(monkeypatch):
    X, y = _wide_text()
    est = FastEvoMMC(n_components=20, random_state=0).fit(X)
    assert est.kernel_ == "linear" and sp.issparse(est.X_landmarks_)
    assert clustering_error(y, est.labels_) == 0.0
    # The same fit from the landmarks as a dense array (the map reading
    # every column): the same clusters and, to rounding, the same function.
    singular_landmarks = mmc._evo.singular_landmarks
    monkeypatch.setattr(
        mmc._evo, "singular_landmarks", lambda *a: singular_landmarks(*a).toarray()
    )
    dense = FastEvoMMC(n_components=20, random_state=0).fit(X)
    assert isinstance(dense.X_landmarks_, np.ndarray)
    np.testing.assert_array_equal(est.labels_, dense.labels_)
    np.testing.assert_array_equal(est.X_landmarks_.toarray(), dense.X_landmarks_)
    for rows in (X, X.toarray()):
        np.testing.assert_allclose(
            est.decision_function(rows), dense.decision_function(rows), atol=1e-10
        )
        np.testing.assert_array_equal(est.predict(rows), est.labels_)


def test_singular_landmarks_stop_at_the_rank():
    rng = np.random.RandomState(2)
    X = rng.standard_normal((50, 3)) @ rng.standard_normal((3, 40))  # rank 3
    directions = mmc._evo_basis.singular_landmarks(X, 10, np.random.RandomState(0))
    assert directions.shape == (3, 40)
    np.testing.assert_allclose(directions @ directions.T, np.eye(3), atol=1e-12)
    expected = _leading_right_singular_vectors(X, 3, directions)
    np.testing.assert_allclose(directions, expected, atol=1e-12)
    zero = mmc._evo_basis.singular_landmarks(
        np.zeros((20, 5)), 4, np.random.RandomState(0)
    )
    np.testing.assert_array_equal(zero, np.zeros((1, 5)))


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_fastevommc_svd_landmarks_match_the_formula(sparse):
    # 15 directions of 40 features: the Nystroem kernel of the linear kernel
    # is the projection X Z'Z X' on them.
    X, _ = two_blobs(n_per_cluster=40, n_features=40, distance=4.0, seed=6)
    if sparse:
        X = sp.csr_matrix(X)
    reg = 1e-2
    est = FastEvoMMC(
        n_components=15, kernel="linear", landmarks="svd", reg=reg, random_state=0
    ).fit(X)
    Z = est.X_landmarks_
    assert est.landmarks_ is None and isinstance(Z, np.ndarray)
    assert Z.shape == (15, 40)
    np.testing.assert_allclose(Z @ Z.T, np.eye(15), atol=1e-12)
    K_nR = dense(X) @ Z.T
    labels = 2 * est.labels_ - 1
    # reg relative to the mean squared norm of the rows (the linear kernel).
    assert est.reg_ == pytest.approx(reg * np.mean(dense(X) ** 2 @ np.ones(X.shape[1])))
    expected, c = _reference.subset_fitness(K_nR, Z @ Z.T, labels, est.reg_)
    assert est.fitness_ == pytest.approx(expected, rel=1e-8)
    np.testing.assert_allclose(
        est.decision_function(X) - est.intercept_, K_nR @ c, atol=1e-7
    )


def test_landmarks_auto_follow_the_kernel():
    text, _ = make_sparse_clusters(
        n_samples=300, n_features=2000, nnz_per_row=30, random_state=0
    )
    X, _ = two_blobs(n_per_cluster=50, seed=3)
    # Text-like rows take the linear kernel, hence the singular vectors; the
    # blobs the rbf kernel, hence the k-means centres.
    for data, kernel, rule in ((text, "linear", "svd"), (X, "rbf", "kmeans")):
        auto = FastEvoMMC(n_components=20, n_init=2, random_state=0).fit(data)
        assert auto.kernel_ == kernel
        named = FastEvoMMC(n_components=20, landmarks=rule, n_init=2, random_state=0)
        named.fit(data)
        np.testing.assert_array_equal(auto.X_landmarks_, named.X_landmarks_)
        np.testing.assert_array_equal(auto.labels_, named.labels_)
    for kernel in ("auto", "rbf", "poly"):
        with pytest.raises(ValueError, match="landmarks='svd' needs the linear"):
            FastEvoMMC(landmarks="svd", kernel=kernel).fit(X)


def test_fastevommc_with_every_sample_as_landmark_is_evommc():
    X, _ = two_blobs(n_per_cluster=20, distance=3.0, seed=7)
    exact = EvoMMC(random_state=0).fit(X)
    fast = FastEvoMMC(n_components=40, random_state=0).fit(X)
    assert fast.fitness_ == pytest.approx(
        _reference.least_squares_fitness(
            kernel_matrix(X, gamma=exact.gamma_), 2 * fast.labels_ - 1, exact.reg
        )[0],
        rel=1e-8,
    )
    assert fast.n_components_ == exact.n_components_


def test_landmarks_given_as_an_array():
    X, y = two_blobs(n_per_cluster=80, distance=3.0, seed=13)
    drawn = FastEvoMMC(n_components=20, landmarks="random", random_state=0).fit(X)
    given = FastEvoMMC(landmarks=X[drawn.landmarks_], random_state=0).fit(X)
    assert given.landmarks_ is None
    # The same rows, in the order of the map's permutation.
    np.testing.assert_array_equal(
        np.sort(given.X_landmarks_, axis=0), np.sort(X[drawn.landmarks_], axis=0)
    )
    # The same landmarks give the same Nystroem kernel, hence the same search.
    np.testing.assert_array_equal(given.labels_, drawn.labels_)
    assert given.fitness_ == pytest.approx(drawn.fitness_, rel=1e-9)
    np.testing.assert_array_equal(given.predict(X), given.labels_)
    with pytest.raises(ValueError, match="must have the 5 features of X"):
        FastEvoMMC(landmarks=X[:10, :3]).fit(X)
    with pytest.raises(ValueError, match="does not match the 10 landmarks"):
        FastEvoMMC(landmarks=X[:10], n_components=12).fit(X)
    with pytest.raises(ValueError, match="'landmarks' parameter"):
        FastEvoMMC(landmarks="farthest").fit(X)
