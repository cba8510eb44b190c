"""The graph start (mmc/_graph_start.py) against plain references, and its
use by the estimators."""

import pickle
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.linalg import eigh
from scipy.sparse.linalg import ArpackNoConvergence
from scipy.spatial.distance import cdist
from sklearn.datasets import load_digits, make_blobs
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import silhouette_samples
from sklearn.preprocessing import StandardScaler

import mmc
from mmc._balance import (
    PAPER_CLASS_BALANCE,
    SAMPLE_ROWS,
    kmeans_cluster_sizes,
    kmeans_estimate,
    resolve_class_balance,
    sample_rows,
    size_balance,
)
from mmc._graph_start import (
    GRAPH_NEIGHBOURS,
    KernelDistances,
    SampleDistances,
    balance_and_start,
    leading_eigenvectors,
    neighbour_graph,
    normalised_affinity,
    normalised_cut,
    paired_gain_is_real,
    silhouettes,
    spectral_labels,
)
from mmc._kmeans import nearest_centres
from mmc._starts import cluster_means
from mmc.metrics import clustering_error

ESTIMATORS = ("CPMMC", "CPM3C", "MultivariateMMC", "EvoMMC", "FastEvoMMC", "ODMC")


def unbalanced_blobs(n_large=500, ratio=9, random_state=0):
    """Standardised blobs of ``n_large`` and ``n_large / ratio`` samples,
    4 standard deviations apart along one of 10 features: k-means splits
    the large blob (the scaling shrinks the direction that separates
    them), the nearest-neighbour graph does not."""
    X, y = make_blobs(
        [n_large, n_large // ratio],
        n_features=10,
        centers=[[0.0] * 10, [4.0] + [0.0] * 9],
        random_state=random_state,
    )
    return StandardScaler().fit_transform(X), y


def squared_distance_matrix(S, block_rows=None):
    """The distances of :class:`SampleDistances`, every block stacked."""
    distances = SampleDistances(S)
    if block_rows is not None:
        distances.block_rows = block_rows
    return distances.step * np.vstack([block.copy() for _, block in distances.blocks()])


def graph_start(X, n_clusters, seed):
    """The graph start's labels of X, from its centres (None where k-means
    wins)."""
    centres = balance_and_start("auto", X, n_clusters, size_balance, seed)[1]
    return None if centres is None else nearest_centres(X, centres)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("sparse", [False, True])
def test_squared_distance_matrix_matches_cdist(sparse, dtype):
    rng = np.random.RandomState(0)
    X = rng.standard_normal((60, 7)).astype(dtype)
    X[rng.rand(*X.shape) < 0.4] = 0.0
    expected = cdist(X.astype(np.float64), X.astype(np.float64), "sqeuclidean")
    got = squared_distance_matrix(sp.csr_matrix(X) if sparse else X, block_rows=7)
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-9)
    assert np.all(np.diag(got) == 0.0)


def test_squared_distance_matrix_same_for_dense_and_csr():
    rng = np.random.RandomState(1)
    X = rng.standard_normal((80, 12))
    X[rng.rand(*X.shape) < 0.5] = 0.0
    np.testing.assert_array_equal(
        squared_distance_matrix(X), squared_distance_matrix(sp.csr_matrix(X))
    )


def test_neighbour_graph_matches_a_stable_sort():
    rng = np.random.RandomState(2)
    # Integer points: many exactly tied distances, which go to lower indices.
    X = rng.randint(0, 3, size=(50, 3)).astype(float)
    distances = squared_distance_matrix(X)
    graph = neighbour_graph(SampleDistances(X)).toarray()
    own = distances.copy()
    np.fill_diagonal(own, -1.0)
    directed = np.zeros_like(graph)
    for i, row in enumerate(own):
        directed[i, np.argsort(row, kind="stable")[:GRAPH_NEIGHBOURS]] = 1.0
    np.testing.assert_array_equal(graph, 0.5 * (directed + directed.T))
    assert np.all(np.diag(graph) == 1.0)  # each row its own neighbour


@pytest.mark.parametrize("distances_of", ["rows", "csr", "float32", "kernel"])
def test_passes_on_threads_give_the_passes_of_one(distances_of, monkeypatch):
    # The blocks of a pass are shared among threads, each writing the rows
    # of its blocks: the graph and the silhouettes of 1, 2 and 3 threads
    # (with blocks of 7 rows, so that every thread takes several) are the
    # same to the last bit.
    rng = np.random.RandomState(4)
    X = rng.standard_normal((61, 6))
    X[30:] += 2.0
    labellings = (np.repeat([0, 1], [30, 31]), rng.randint(0, 2, 61))
    dtype = np.float32 if distances_of == "float32" else np.float64

    def distances():
        if distances_of == "kernel":
            made = KernelDistances(np.exp(-0.1 * cdist(X, X, "sqeuclidean")))
        elif distances_of == "csr":
            made = SampleDistances(sp.csr_matrix(np.where(X > 0.5, X, 0.0)))
        else:
            made = SampleDistances(X.astype(dtype))
        made.block_rows = 7
        return made

    results = []
    for n_threads in (1, 2, 3):
        monkeypatch.setattr(
            "mmc._graph_start.fit_threads", lambda n_tasks, products: n_threads
        )
        graph = neighbour_graph(distances())
        values = silhouettes(distances(), labellings, 2)
        results.append((graph, values))
    (graph, values), others = results[0], results[1:]
    assert graph.nnz > 61
    for other_graph, other_values in others:
        assert (other_graph != graph).nnz == 0
        for got, expected in zip(other_values, values):
            np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("n_clusters", [2, 3, 4])
def test_silhouette_values_match_scikit_learn(n_clusters):
    rng = np.random.RandomState(n_clusters)
    X = rng.standard_normal((70, 5))
    labels = rng.randint(0, n_clusters, 70)
    labels[0] = n_clusters - 1  # no cluster empty
    labels[1:n_clusters] = np.arange(n_clusters - 1)
    np.testing.assert_allclose(
        silhouettes(SampleDistances(X), (labels,), n_clusters)[0],
        silhouette_samples(X, labels),
        rtol=1e-6,
        atol=1e-9,
    )


def test_silhouette_of_a_sample_alone_is_zero():
    X = np.array([[0.0], [0.1], [0.2], [5.0]])
    labels = np.array([0, 0, 0, 1])
    values = silhouettes(SampleDistances(X), (labels,), 2)[0]
    assert values[3] == 0.0
    assert np.all(values[:3] > 0.9)


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("n_clusters", [2, 3, 5])
def test_normalised_cut_matches_its_definition(n_clusters, sparse):
    rng = np.random.RandomState(n_clusters)
    X = rng.standard_normal((90, 4))
    X[rng.rand(*X.shape) < 0.3] = 0.0
    affinity = neighbour_graph(SampleDistances(sp.csr_matrix(X) if sparse else X))
    labels = rng.randint(0, n_clusters, 90)
    dense = affinity.toarray()
    expected = 0.0
    for cluster in range(n_clusters):
        members = labels == cluster
        if members.any():  # an empty cluster cuts nothing
            cut = dense[members][:, ~members].sum()
            expected += cut / dense[members].sum()
    assert normalised_cut(affinity, labels, n_clusters) == pytest.approx(expected)
    # One cluster, or a labelling along the graph's components, cuts nothing.
    assert normalised_cut(affinity, np.zeros(90, dtype=np.intp), n_clusters) == 0.0


def test_graph_start_keeps_kmeans_where_the_graph_cuts_no_better():
    # Digits 3 and 9: the graph's clustering puts the nines of one style
    # apart (higher silhouette than the classes' split, z = 23) but cuts its
    # own graph worse than k-means' labels; k-means stays (2.5 % error).
    X, y = load_digits(return_X_y=True)
    mask = (y == 3) | (y == 9)
    X = X[mask] / 16.0
    rows = SampleDistances(X)
    affinity = neighbour_graph(rows)
    graph = spectral_labels(affinity, 2, np.random.RandomState(0))
    kmeans = nearest_centres(X, kmeans_estimate(X, 2, np.random.RandomState(0))[0])
    gain = np.subtract(*silhouettes(rows, (graph, kmeans), 2))
    assert paired_gain_is_real(gain)
    assert normalised_cut(affinity, graph, 2) > normalised_cut(affinity, kmeans, 2)
    assert graph_start(X, 2, seed=0) is None
    for name in ("CPM3C", "EvoMMC", "FastEvoMMC", "ODMC"):
        estimator = getattr(mmc, name)(random_state=0).fit(X)
        assert not estimator.graph_start_, name
        assert clustering_error(y[mask], estimator.labels_) < 0.05, name


def test_paired_gain_is_real():
    rng = np.random.RandomState(0)
    noise = rng.standard_normal(400)
    assert not paired_gain_is_real(noise - noise.mean())
    assert paired_gain_is_real(noise + 1.0)
    assert not paired_gain_is_real(noise - 1.0)
    assert not paired_gain_is_real(np.zeros(10))
    assert paired_gain_is_real(np.full(10, 0.1))


def test_graph_start_finds_unbalanced_blobs_that_kmeans_splits():
    X, y = unbalanced_blobs()
    labels = graph_start(X, 2, seed=0)
    assert labels is not None
    assert clustering_error(y, labels) < 0.05


def test_graph_start_keeps_kmeans_where_it_fits_better():
    # Three even, well separated blobs: k-means is right, no start is taken.
    X, _ = make_blobs([100, 100, 100], n_features=5, random_state=0)
    assert graph_start(X, 3, seed=0) is None


def test_graph_start_is_the_same_for_dense_csr_and_float32():
    X, _ = unbalanced_blobs()
    X = X.astype(np.float32).astype(np.float64)  # float32 values, exactly
    X[np.abs(X) < 0.5] = 0.0  # a sparse matrix with zeros to skip
    dense = graph_start(X, 2, seed=3)
    assert dense is not None
    np.testing.assert_array_equal(dense, graph_start(sp.csr_matrix(X), 2, seed=3))
    np.testing.assert_array_equal(dense, graph_start(X.astype(np.float32), 2, seed=3))
    csr32 = sp.csr_matrix(X.astype(np.float32))
    np.testing.assert_array_equal(dense, graph_start(csr32, 2, seed=3))


def test_graph_start_beyond_the_sample_from_its_centres():
    X, y = unbalanced_blobs(4000, ratio=9)
    assert X.shape[0] > SAMPLE_ROWS
    _, centres = balance_and_start("auto", X, 2, size_balance, 0)
    assert centres is not None and centres.shape == (2, X.shape[1])
    labels = nearest_centres(X, centres)
    assert clustering_error(y, labels) < 0.05
    # The centres are the means of the graph's clusters of the sampled rows.
    sampled = X[sample_rows(X.shape[0], np.random.RandomState(0))]
    graph = spectral_labels(
        neighbour_graph(SampleDistances(sampled)), 2, np.random.RandomState(0)
    )
    np.testing.assert_array_equal(centres, cluster_means(sampled, graph, 2))


def _arpack_fails(*args, **kwargs):
    raise ArpackNoConvergence("forced", np.empty(0), np.empty((0, 0)))


@pytest.mark.parametrize("arpack", ["converges", "fails"])
def test_leading_eigenvectors_span_the_dense_solvers_leading_space(arpack, monkeypatch):
    if arpack == "fails":
        monkeypatch.setattr("mmc._graph_start.eigsh", _arpack_fails)
    affinity = neighbour_graph(SampleDistances(unbalanced_blobs()[0]))
    normalised, _ = normalised_affinity(affinity)
    vectors = leading_eigenvectors(normalised, 3)
    values, expected = eigh(normalised.toarray())
    assert values[-3] - values[-4] > 1e-3  # a space well defined
    # The same space: the projector on it, whatever its basis and signs.
    np.testing.assert_allclose(
        vectors @ vectors.T, expected[:, -3:] @ expected[:, -3:].T, atol=1e-8
    )


def test_spectral_labels_are_the_same_where_arpack_fails(monkeypatch):
    X, y = unbalanced_blobs()
    affinity = neighbour_graph(SampleDistances(X))
    by_arpack = spectral_labels(affinity, 2, np.random.RandomState(0))
    monkeypatch.setattr("mmc._graph_start.eigsh", _arpack_fails)
    by_lapack = spectral_labels(affinity, 2, np.random.RandomState(0))
    np.testing.assert_array_equal(by_lapack, by_arpack)
    assert clustering_error(y, by_lapack) < 0.05


@pytest.mark.parametrize("name", ["EvoMMC", "FastEvoMMC", "CPM3C"])
def test_duplicated_rows_cluster_the_same_whether_arpack_converges_or_not(
    name, monkeypatch
):
    # Five distinct rows six times each: the graph's spectrum has 25 equal
    # eigenvalues, across the eight vectors of the embedding, where ARPACK
    # stopped (error 3, or no convergence) at some thread counts.
    groups = np.repeat(np.arange(5), 6)
    X = np.random.default_rng(0).standard_normal((5, 3))[groups]
    labellings = []
    for arpack in ("as it goes", "fails"):
        if arpack == "fails":
            monkeypatch.setattr("mmc._graph_start.eigsh", _arpack_fails)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            estimator = getattr(mmc, name)(n_clusters=8, random_state=0).fit(X)
        labellings.append(estimator.labels_)
    np.testing.assert_array_equal(*labellings)
    for group in range(5):
        assert np.unique(labellings[0][groups == group]).size == 1


def test_graph_start_needs_enough_rows():
    X = np.random.RandomState(0).standard_normal((2 * GRAPH_NEIGHBOURS, 3))
    assert graph_start(X, 2, seed=0) is None


def test_balance_where_kmeans_wins_is_the_estimate_of_kmeans():
    # Where the graph loses, the bound is that of the k-means estimate alone
    # (the same runs): the fits of a fixed class_balance and of "auto"
    # without the graph start are unchanged.
    X, _ = make_blobs([300, 120], n_features=4, random_state=2)
    for seed in range(3):
        (bound, floors, uneven), labels = balance_and_start(
            "auto", X, 2, size_balance, seed, with_floors=True, with_uneven=True
        )
        assert labels is None
        expected = resolve_class_balance(
            "auto", X, 2, size_balance, seed=seed, with_floors=True, with_uneven=True
        )
        assert (bound, uneven) == (expected[0], expected[2])
        np.testing.assert_array_equal(floors, expected[1])
        assert balance_and_start("auto", X, 2, size_balance, seed, graph=False)[
            0
        ] == resolve_class_balance("auto", X, 2, size_balance, seed=seed)


def test_balance_where_the_graph_wins_follows_its_sizes():
    X, _ = unbalanced_blobs()
    bound, centres = balance_and_start("auto", X, 2, size_balance, 0)
    assert centres is not None
    sizes = np.bincount(nearest_centres(X, centres))
    assert bound == pytest.approx(1 - 2 * sizes.min() / sizes.sum() + 0.03)
    assert kmeans_cluster_sizes(X, 2, 0).min() > sizes.min()  # k-means: even


# The estimators whose runs bound the clusters' sizes take the graph start;
# CPMMC and MultivariateMMC bound the mean of their decision values.
TAKERS = ("CPM3C", "EvoMMC", "FastEvoMMC", "ODMC")


@pytest.mark.parametrize("name", TAKERS)
def test_estimators_start_from_the_graph_on_unbalanced_blobs(name):
    X, y = unbalanced_blobs()
    model = getattr(mmc, name)(random_state=0).fit(X)
    assert model.graph_start_ is True
    assert clustering_error(y, model.labels_) < 0.05
    again = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(again.predict(X), model.predict(X))


@pytest.mark.parametrize("name", ["CPMMC", "MultivariateMMC"])
def test_bounds_on_the_decision_values_take_no_graph_start(name):
    X, _ = unbalanced_blobs()
    assert getattr(mmc, name)(random_state=0).fit(X).graph_start_ is False
    rbf = mmc.CPM3C(kernel="rbf", random_state=0).fit(X)  # its cutting plane
    assert rbf.solver_ == "cutting-plane" and rbf.graph_start_ is False


def test_a_graph_start_that_empties_a_cluster_is_dropped(monkeypatch):
    # MultivariateMMC made to take the start: its relaxed balance at the
    # bound of the graph's 500:55 admits w = 0, every sample in one
    # cluster; the fit goes on from its named starts, at the bound of
    # k-means' sizes, and keeps two clusters.
    monkeypatch.setattr(mmc.MultivariateMMC, "_graph_start_applies", lambda self: True)
    X, _ = unbalanced_blobs()
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        model = mmc.MultivariateMMC(random_state=0).fit(X)
    assert model.graph_start_ is False
    assert np.unique(model.labels_).size == 2
    # The bound of k-means' sizes, nearly even (it splits the large blob),
    # or the papers' where the refit at it cuts better; not the graph's
    # 500:55 (0.83).
    assert PAPER_CLASS_BALANCE <= model.class_balance_ < 0.1


@pytest.mark.parametrize("name", TAKERS)
def test_a_fixed_balance_or_another_init_turns_the_graph_start_off(name):
    X, _ = unbalanced_blobs()
    cls = getattr(mmc, name)
    fixed = cls(random_state=0, class_balance=0.03).fit(X)
    assert fixed.graph_start_ is False
    other_init = "random" if name in ("EvoMMC", "FastEvoMMC") else "pca"
    assert cls(random_state=0, init=other_init).fit(X).graph_start_ is False


@pytest.mark.parametrize("name", ESTIMATORS)
def test_no_graph_start_on_even_blobs(name):
    X, _ = make_blobs([150, 150], n_features=5, random_state=1)
    assert getattr(mmc, name)(random_state=0).fit(X).graph_start_ is False


def test_kernel_distances_are_those_of_the_feature_space():
    """A precomputed kernel's distances, K_ii + K_jj - 2 K_ij, block by
    block, 0 on the diagonal; with the linear kernel the neighbour graph
    is that of the rows themselves."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 5))
    K = X @ X.T
    distances = KernelDistances(K)
    blocks = [block.copy() for _, block in distances.blocks()]
    full = np.vstack(blocks)
    expected = np.diag(K)[:, None] + np.diag(K)[None, :] - 2.0 * K
    np.fill_diagonal(expected, 0.0)
    np.testing.assert_allclose(full, expected, rtol=0, atol=1e-12)
    assert len(blocks) == -(-300 // KernelDistances.block_rows)
    by_kernel = neighbour_graph(distances)
    by_rows = neighbour_graph(SampleDistances(X))
    assert (by_kernel != by_rows).nnz == 0
    # A sparse K (scikit-learn's checks pass one): its dense values.
    sparse_blocks = [b.copy() for _, b in KernelDistances(sp.csr_array(K)).blocks()]
    np.testing.assert_array_equal(np.vstack(sparse_blocks), full)
