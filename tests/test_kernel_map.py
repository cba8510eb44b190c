"""Non-linear kernels through explicit feature maps (``kernel=``).

The map is checked against the kernel matrix it stands for, and the
estimators that learn a hyperplane are checked to use it at fit and at
predict time alike.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from _data import random_X
from sklearn.cluster import KMeans
from sklearn.datasets import make_circles, make_moons
from sklearn.metrics.pairwise import pairwise_kernels
from sklearn.utils.estimator_checks import parametrize_with_checks
from threadpoolctl import threadpool_limits

from mmc import CPM3C, CPMMC, ODMC, MultivariateMMC
from mmc.kernels import KernelFeatureMap
from mmc.metrics import clustering_error

# The estimators that learn a linear model and so accept any kernel.
LINEAR_MODEL_ESTIMATORS = [CPMMC, MultivariateMMC, ODMC, CPM3C]


@pytest.fixture(params=LINEAR_MODEL_ESTIMATORS, ids=lambda E: E.__name__)
def Estimator(request):
    return request.param


KERNEL_PARAMS = {
    "rbf": {"gamma": 0.3},
    "poly": {"gamma": 0.5, "degree": 2, "coef0": 1.0},
    "cosine": {},
}


@pytest.mark.parametrize("kernel", sorted(KERNEL_PARAMS))
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_exact_map_reproduces_the_kernel(kernel, sparse, dtype):
    rng = np.random.default_rng(0)
    X = random_X(rng, 30, 6, sparse=sparse, dtype=dtype, scales=(0.3, 1.0))
    params = KERNEL_PARAMS[kernel]
    feature_map = KernelFeatureMap(kernel, n_components=30, **params).fit(X)
    Y = random_X(rng, 7, 6, sparse=sparse, dtype=dtype, scales=(0.3, 1.0))
    features, new = feature_map.transform(X), feature_map.transform(Y)
    assert features.shape == (30, 30) and features.flags.c_contiguous
    tol = 1e-4 if dtype == np.float32 else 1e-8
    np.testing.assert_allclose(
        features @ features.T, pairwise_kernels(X, metric=kernel, **params), atol=tol
    )
    # New points: phi(y).phi(x) = k(y, x) as the training points span the map.
    np.testing.assert_allclose(
        new @ features.T, pairwise_kernels(Y, X, metric=kernel, **params), atol=tol
    )


def test_low_rank_map_is_exact_on_its_landmarks():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(200, 4))
    feature_map = KernelFeatureMap("rbf", n_components=40, random_state=0).fit(X)
    landmarks = feature_map.landmarks_
    assert landmarks.shape == (40,) and np.all(np.diff(landmarks) > 0)
    features = feature_map.transform(X)
    assert features.shape == (200, 40)
    gamma = 1.0 / (4 * X.var())
    assert feature_map.gamma_ == pytest.approx(gamma)
    K = pairwise_kernels(X, X[landmarks], metric="rbf", gamma=gamma)
    # phi(x).phi(l) = k(x, l) for every landmark l.
    np.testing.assert_allclose(features @ features[landmarks].T, K, atol=1e-8)
    again = KernelFeatureMap("rbf", n_components=40, random_state=0).fit(X)
    np.testing.assert_array_equal(again.landmarks_, landmarks)


def test_precomputed_and_callable_kernels_give_the_named_kernels_map():
    rng = np.random.default_rng(2)
    X, Y = rng.normal(size=(50, 3)), rng.normal(size=(8, 3))
    named = KernelFeatureMap("rbf", gamma=0.5, n_components=20, random_state=0)
    named.fit(X)
    precomputed = KernelFeatureMap("precomputed", n_components=20, random_state=0)
    precomputed.fit(pairwise_kernels(X, metric="rbf", gamma=0.5))
    np.testing.assert_array_equal(precomputed.landmarks_, named.landmarks_)
    K_new = pairwise_kernels(Y, X, metric="rbf", gamma=0.5)
    reference = named.transform(Y) @ named.transform(X).T
    np.testing.assert_allclose(
        precomputed.transform(K_new) @ precomputed.transform(K_new).T,
        named.transform(Y) @ named.transform(Y).T,
        atol=1e-10,
    )
    np.testing.assert_allclose(
        precomputed.transform(K_new)
        @ precomputed.transform(pairwise_kernels(X, metric="rbf", gamma=0.5)).T,
        reference,
        atol=1e-10,
    )

    def rbf(x, z):
        return np.exp(-0.5 * np.sum((x - z) ** 2))

    called = KernelFeatureMap(rbf, n_components=20, random_state=0).fit(X)
    np.testing.assert_allclose(
        called.transform(Y) @ called.transform(X).T, reference, atol=1e-10
    )


def test_precomputed_kernel_must_be_square_at_fit():
    with pytest.raises(ValueError, match="square kernel matrix"):
        KernelFeatureMap("precomputed").fit(np.ones((5, 4)))


def test_a_kernel_giving_nan_is_reported(Estimator):
    X = np.random.default_rng(3).normal(size=(20, 2))

    def broken(x, z):
        return np.nan if x[0] > 1.0 else float(x @ z)

    with pytest.raises(ValueError, match="NaN or infinite"):
        Estimator(kernel=broken, random_state=0).fit(X)


def _moons_and_circles():
    return {
        "moons": make_moons(1000, noise=0.05, random_state=0),
        "circles": make_circles(1000, factor=0.4, noise=0.05, random_state=0),
    }


@pytest.mark.parametrize("name", ["moons", "circles"])
def test_rbf_kernel_separates_what_no_hyperplane_can(request, Estimator, name):
    if Estimator is CPM3C and name == "moons":
        # Its restarts reach the moons (objective 3.0-3.2) from 2 of the
        # seeds 0-5 and otherwise end at a split of objective 5.4-6.3 (13.7
        # to 28.4 % error), with scikit-learn's k-means++ seeding as with
        # mmc's (bench/studies/kmeans_starts.md); seed 0 had been one of the
        # two.
        request.applymarker(
            pytest.mark.xfail(reason="CPM3C's rbf restarts miss the moons")
        )
    X, y = _moons_and_circles()[name]
    est = Estimator(kernel="rbf", random_state=0).fit(X)
    assert clustering_error(y, est.labels_) <= 0.02
    np.testing.assert_array_equal(est.predict(X), est.labels_)
    assert est.coef_.shape[-1] == est.kernel_map_.landmarks_.size
    # The same data defeats the linear kernel and k-means.
    linear = Estimator(random_state=0).fit(X)
    assert clustering_error(y, linear.labels_) > 0.10
    kmeans = KMeans(n_clusters=2, n_init=10, random_state=0).fit(X)
    assert clustering_error(y, kmeans.labels_) > 0.10


def test_a_linear_refit_drops_the_map_of_a_kernel_fit(Estimator):
    X, _ = make_moons(100, noise=0.05, random_state=0)
    estimator = Estimator(kernel="rbf", random_state=0).fit(X)
    assert hasattr(estimator, "kernel_map_")
    estimator.set_params(kernel="linear").fit(X)
    # kernel_map_ is documented for kernels other than "linear" only.
    assert not hasattr(estimator, "kernel_map_")


def test_new_points_are_mapped_with_the_fitted_map(Estimator):
    X, y = make_circles(400, factor=0.4, noise=0.05, random_state=1)
    X_new, y_new = make_circles(200, factor=0.4, noise=0.05, random_state=2)
    est = Estimator(kernel="rbf", random_state=0).fit(X)
    # The new points land in the cluster of the ring they lie on.
    names = {c: np.bincount(est.labels_[y == c]).argmax() for c in (0, 1)}
    assert names[0] != names[1]
    agree = np.mean(est.predict(X_new) == np.array([names[c] for c in y_new]))
    assert agree >= 0.98


def test_precomputed_kernel_gives_the_rbf_result(Estimator):
    X, _ = make_moons(300, noise=0.05, random_state=3)
    X_new, _ = make_moons(50, noise=0.05, random_state=4)
    named = Estimator(kernel="rbf", gamma=2.0, random_state=0).fit(X)
    K = pairwise_kernels(X, metric="rbf", gamma=2.0)
    est = Estimator(kernel="precomputed", random_state=0).fit(K)
    np.testing.assert_array_equal(est.labels_, named.labels_)
    K_new = pairwise_kernels(X_new, X, metric="rbf", gamma=2.0)
    np.testing.assert_array_equal(est.predict(K_new), named.predict(X_new))
    np.testing.assert_array_equal(est.predict(K), est.labels_)
    with pytest.raises(ValueError, match=r"kernel between the samples and the 300"):
        est.predict(K_new[:, :-1])
    with pytest.raises(ValueError, match="square kernel matrix"):
        Estimator(kernel="precomputed").fit(K[:, :-1])


# Whether a run converges is not the point here (CPM3C's best run on these
# rings can stop at max_iter), only that sparse and dense runs are the same.
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_sparse_input_with_a_kernel_matches_dense(Estimator):
    X, _ = make_circles(300, factor=0.4, noise=0.05, random_state=5)
    X = X + 2.0  # no zero entries lost in the conversion
    dense = Estimator(kernel="rbf", random_state=0).fit(X)
    sparse = Estimator(kernel="rbf", random_state=0).fit(sp.csr_matrix(X))
    np.testing.assert_array_equal(sparse.labels_, dense.labels_)
    np.testing.assert_allclose(sparse.coef_, dense.coef_, rtol=1e-6, atol=1e-8)


def test_same_random_state_same_landmarks_and_labels(Estimator):
    X, _ = make_moons(600, noise=0.05, random_state=6)
    a = Estimator(kernel="rbf", n_components=100, random_state=3).fit(X)
    b = Estimator(kernel="rbf", n_components=100, random_state=3).fit(X)
    np.testing.assert_array_equal(a.kernel_map_.landmarks_, b.kernel_map_.landmarks_)
    np.testing.assert_array_equal(a.labels_, b.labels_)


def test_features_and_fits_do_not_depend_on_the_blas_threads(Estimator):
    # Threaded BLAS rounds products differently with the number of threads
    # (measured on these sizes: the map's features moved by up to 2e-15);
    # the map runs BLAS on one thread, so every attribute is the same bits.
    X, _ = make_moons(900, noise=0.05, random_state=6)
    X = np.hstack([X, np.random.RandomState(0).normal(scale=0.1, size=(900, 18))])
    results = []
    for n_threads in (1, 2):
        with threadpool_limits(n_threads, user_api="blas"):
            feature_map = KernelFeatureMap("rbf", n_components=500, random_state=0)
            features = feature_map.fit(X).transform(X)
            est = Estimator(kernel="rbf", n_components=500, random_state=0).fit(X)
            results.append(
                (features, est.labels_, est.objective_, est.decision_function(X))
            )
    for first, second in zip(*results):
        np.testing.assert_array_equal(first, second)


@pytest.mark.parametrize(
    "params, match",
    [
        ({"kernel": "laplacian"}, "'kernel' parameter"),
        ({"kernel": 3}, "'kernel' parameter"),
        ({"kernel": "rbf", "gamma": -1.0}, "'gamma' parameter"),
        ({"kernel": "rbf", "gamma": 0.0}, "'gamma' parameter"),
        ({"kernel": "rbf", "gamma": "auto"}, "'gamma' parameter"),
        ({"kernel": "rbf", "n_components": 0}, "'n_components' parameter"),
        ({"kernel": "poly", "degree": -1}, "'degree' parameter"),
        ({"kernel": "poly", "coef0": "one"}, "'coef0' parameter"),
    ],
)
def test_bad_kernel_parameters_are_rejected(Estimator, params, match):
    X = np.random.default_rng(4).normal(size=(10, 2))
    with pytest.raises(ValueError, match=match):
        Estimator(**params).fit(X)


@parametrize_with_checks(
    # CPM3C's checks (some with n_clusters=1, which it rejects) are in
    # test_common.py.
    [
        E(kernel="rbf", n_components=20, random_state=0)
        for E in LINEAR_MODEL_ESTIMATORS
        if E is not CPM3C
    ]
)
def test_sklearn_compatible_with_a_kernel(estimator, check):
    check(estimator)
