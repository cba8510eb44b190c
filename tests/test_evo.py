"""EvoMMC and FastEvoMMC: the fitness shortcut, the incremental coordinates,
the balance repair and the estimators' own parameters.

The Cython kernels of mmc._core._evo are compared with the direct solutions
in tests/_reference.py.
"""

import _reference
import numpy as np
import pytest
import scipy.linalg
import scipy.sparse as sp
from _data import dense, two_blobs
from sklearn.exceptions import ConvergenceWarning

import mmc._evo
import mmc._evo_basis
import mmc._starts
from mmc import EvoMMC, FastEvoMMC
from mmc._core._evo import evolve, fitness, flip_labels, mutate
from mmc._evo_basis import spectral_basis
from mmc._evo_search import ascend
from mmc._labelling import balance_bound, balanced_signs, random_balanced_labels
from mmc.datasets import make_sparse_clusters
from mmc.kernels import kernel_matrix
from mmc.metrics import clustering_error


def _basis(K, reg):
    sigma, V = scipy.linalg.eigh(K)
    return spectral_basis(V, sigma, reg)


def _random_labels(rng, n, bound=None):
    y = rng.choice(np.array([-1, 1], dtype=np.int8), size=n)
    if bound is not None:
        y = random_balanced_labels(n, np.random.RandomState(rng.integers(2**31)))
    return y


@pytest.mark.parametrize("kernel", ["rbf", "linear", "poly"])
@pytest.mark.parametrize("reg", [1e-4, 1e-2, 1.0])
def test_fitness_shortcut_equals_the_direct_solve(kernel, reg):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 5))
    # The linear kernel has rank 5 < n: its complement counts in full.
    K = kernel_matrix(X, kernel=kernel, gamma=0.2, degree=2, coef0=1.0)
    basis = _basis(K, reg)
    assert basis.V.shape[1] <= (5 if kernel == "linear" else 40)
    for _ in range(20):
        y = _random_labels(rng, 40)
        expected, _ = _reference.least_squares_fitness(K, y, reg)
        u = basis.V.T @ y
        assert fitness(basis.weights, u, 40) == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_incremental_coordinates_match_a_recomputation(dtype):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(60, 3))
    basis = _basis(kernel_matrix(X, gamma=0.5), 1e-3)
    V = basis.V.astype(dtype)
    y = _random_labels(rng, 60)
    u = V.T.astype(np.float64) @ y
    y_ref = y.copy()
    for _ in range(500):
        flips = rng.integers(0, 60, size=rng.integers(1, 8)).astype(np.int32)
        flip_labels(V, flips, flips.size, y, u)
        y_ref, u_ref = _reference.flip_labels(V, flips, y_ref)
        np.testing.assert_array_equal(y, y_ref)
    np.testing.assert_allclose(u, u_ref, atol=1e-9)


@pytest.mark.parametrize("mu, n_offspring", [(1, 1), (10, 10), (3, 7)])
def test_evolution_keeps_coordinates_fitness_and_balance_consistent(mu, n_offspring):
    rng = np.random.default_rng(2)
    n = 81
    X = rng.normal(size=(n, 4))
    basis = _basis(kernel_matrix(X, gamma=0.3), 1e-3)
    bound = balance_bound(0.03, n)
    Y = np.stack([_random_labels(rng, n, bound) for _ in range(mu)])
    U = Y @ basis.V
    F = 1.0 - (U * U) @ basis.weights / n
    start = F.min()
    generations = evolve(
        basis.V, basis.weights, Y, U, F, n_offspring, bound, n, 3000, 3000, 0.0, 12345
    )
    assert generations == 3000
    assert F.min() < start
    np.testing.assert_allclose(U, Y @ basis.V, atol=1e-9)
    for p in range(mu):
        expected, _ = _reference.least_squares_fitness(
            basis.V @ np.diag(basis.sigma) @ basis.V.T, Y[p], 1e-3
        )
        assert F[p] == pytest.approx(expected, rel=1e-8)
    assert np.abs(Y.sum(axis=1, dtype=np.int64)).max() <= bound


def test_evolution_is_reproducible_from_its_seed():
    rng = np.random.default_rng(3)
    n = 50
    basis = _basis(kernel_matrix(rng.normal(size=(n, 3)), gamma=0.3), 1e-2)
    Y0 = np.stack([_random_labels(rng, n, 1) for _ in range(4)])
    runs = []
    for _ in range(2):
        Y = Y0.copy()
        U = Y @ basis.V
        F = 1.0 - (U * U) @ basis.weights / n
        evolve(basis.V, basis.weights, Y, U, F, 4, 1, n, 500, 100, 0.0, 7)
        runs.append((Y, F))
    np.testing.assert_array_equal(runs[0][0], runs[1][0])
    np.testing.assert_array_equal(runs[0][1], runs[1][1])


@pytest.mark.parametrize("n", [30, 31])
@pytest.mark.parametrize("bound_fraction", [0.0, 0.03, 0.2, 1.0])
def test_mutation_keeps_the_balance(n, bound_fraction):
    rng = np.random.default_rng(4)
    bound = balance_bound(bound_fraction, n)
    marks = np.zeros(n, dtype=np.int32)
    flips = np.empty(n, dtype=np.int32)
    for stamp in range(1, 400):
        y = random_balanced_labels(n, np.random.RandomState(stamp))
        # Walk to an unbalanced-as-allowed labelling first.
        while abs(int(y.sum())) + 2 <= bound:
            y[np.flatnonzero(y < 0)[0]] = 1
        wanted = int(rng.integers(1, n + 1))
        n_flips, label_sum = mutate(y, wanted, bound, marks, stamp, stamp, flips)
        chosen = flips[:n_flips]
        assert 1 <= n_flips <= n
        assert np.unique(chosen).size == n_flips
        child = y.copy()
        child[chosen] = -child[chosen]
        assert int(child.sum()) == label_sum
        assert abs(label_sum) <= bound


@pytest.mark.parametrize("Estimator", [EvoMMC, FastEvoMMC])
@pytest.mark.parametrize("class_balance", [0.0, 0.1, 0.4])
def test_fitted_labels_keep_the_balance(Estimator, class_balance):
    X, _ = two_blobs(n_per_cluster=35, distance=1.0, seed=3)
    X = X[:-1]  # odd n
    est = Estimator(class_balance=class_balance, n_init=2, random_state=0).fit(X)
    signs = 2 * est.labels_ - 1
    assert abs(signs.sum()) <= balance_bound(class_balance, X.shape[0])


def test_evommc_fitness_and_model_are_the_direct_solution():
    X, _ = two_blobs(n_per_cluster=30, distance=4.0, seed=5)
    est = EvoMMC(reg=1e-2, random_state=0).fit(X)
    K = kernel_matrix(X, gamma=est.gamma_)
    expected, c = _reference.least_squares_fitness(K, 2 * est.labels_ - 1, 1e-2)
    assert est.fitness_ == pytest.approx(expected, rel=1e-9)
    np.testing.assert_allclose(est.dual_coef_, c, atol=1e-8)
    np.testing.assert_allclose(
        est.decision_function(X) - est.intercept_, K @ c, atol=1e-8
    )


@pytest.mark.parametrize("landmarks", ["kmeans", "random"])
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_fastevommc_matches_the_formula_with_the_nystroem_kernel(sparse, landmarks):
    X, _ = two_blobs(n_per_cluster=40, distance=4.0, seed=6)
    if sparse:
        X = sp.csr_matrix(X)
    reg = 1e-2
    est = FastEvoMMC(n_components=15, landmarks=landmarks, reg=reg, random_state=0)
    est.fit(X)
    Z = est.X_landmarks_
    assert Z.shape == (15, X.shape[1])
    if landmarks == "random":
        assert est.landmarks_.shape == (15,) and np.unique(est.landmarks_).size == 15
        np.testing.assert_array_equal(dense(Z), dense(X[est.landmarks_]))
    else:
        assert est.landmarks_ is None
        assert isinstance(Z, np.ndarray)  # centres: dense even for sparse X
    params = {"kernel": est.kernel_, "gamma": est.gamma_}
    K_nR = kernel_matrix(X, Z, **params)
    K_RR = kernel_matrix(Z, **params)
    labels = 2 * est.labels_ - 1
    expected, c = _reference.subset_fitness(K_nR, K_RR, labels, reg)
    assert est.fitness_ == pytest.approx(expected, rel=1e-8)
    np.testing.assert_allclose(
        est.decision_function(X) - est.intercept_, K_nR @ c, atol=1e-7
    )
    # The same value from the explicit Nystroem kernel L L' = K_nR K_RR^-1 K_Rn.
    K_nystroem = K_nR @ np.linalg.pinv(K_RR) @ K_nR.T
    direct, _ = _reference.least_squares_fitness(K_nystroem, labels, reg)
    assert est.fitness_ == pytest.approx(direct, rel=1e-6)


def test_n_components_as_a_fraction():
    X, _ = two_blobs(n_per_cluster=50)
    est = FastEvoMMC(n_components=0.25, n_init=1, random_state=0).fit(X)
    assert est.X_landmarks_.shape == (25, X.shape[1])
    est = FastEvoMMC(n_components=0.25, landmarks="random", n_init=1).fit(X)
    assert est.landmarks_.shape == (25,)


def test_generation_limit_warns_and_still_labels():
    X, _ = two_blobs(distance=1.0, seed=10)
    for Estimator in (EvoMMC, FastEvoMMC):
        with pytest.warns(ConvergenceWarning, match="max_generations=3"):
            est = Estimator(max_generations=3, random_state=0).fit(X)
        assert est.n_generations_ == 3
        assert set(np.unique(est.labels_)) == {0, 1}


@pytest.mark.parametrize(
    "Estimator, params, match",
    [
        (EvoMMC, {"reg": 0}, "'reg' parameter"),
        (EvoMMC, {"reg": -1.0}, "'reg' parameter"),
        (EvoMMC, {"gamma": 0}, "'gamma' parameter"),
        (EvoMMC, {"gamma": -0.5}, "'gamma' parameter"),
        (EvoMMC, {"gamma": "auto"}, "'gamma' parameter"),
        (EvoMMC, {"kernel": "sigmoid"}, "'kernel' parameter"),
        (EvoMMC, {"population_size": 0}, "'population_size' parameter"),
        (EvoMMC, {"offspring": 0}, "'offspring' parameter"),
        (EvoMMC, {"patience": 0}, "'patience' parameter"),
        (EvoMMC, {"max_generations": 0}, "'max_generations' parameter"),
        (EvoMMC, {"class_balance": 1.5}, "'class_balance' parameter"),
        (FastEvoMMC, {"n_components": 0}, "'n_components' parameter"),
        (FastEvoMMC, {"n_components": 1.5}, "'n_components' parameter"),
        (FastEvoMMC, {"landmarks": "kmeans++"}, "'landmarks' parameter"),
        (FastEvoMMC, {"population_size": 0}, "'population_size' parameter"),
    ],
)
def test_bad_parameters(Estimator, params, match):
    X, _ = two_blobs(n_per_cluster=20)
    with pytest.raises(ValueError, match=match):
        Estimator(**params).fit(X)


def test_kernel_matrix_over_the_memory_limit_points_to_fastevommc(monkeypatch):
    X, _ = two_blobs(n_per_cluster=20)
    monkeypatch.setattr(mmc._evo, "MAX_KERNEL_BYTES", 8 * 39 * 39)
    with pytest.raises(ValueError, match="40 x 40 kernel matrix.*FastEvoMMC"):
        EvoMMC().fit(X)
    FastEvoMMC(n_components=10, n_init=1, random_state=0).fit(X)


def test_default_memory_limit_is_documented():
    assert mmc._evo.MAX_KERNEL_BYTES == 2**30
    assert "MAX_KERNEL_BYTES" in EvoMMC.__doc__
    with pytest.raises(ValueError, match="FastEvoMMC"):
        EvoMMC()._check_params_vs_input(np.empty((11586, 1)))
    EvoMMC()._check_params_vs_input(np.empty((11585, 1)))


def test_linear_kernel_on_separated_blobs():
    X, y = two_blobs(distance=6.0, seed=8)
    for Estimator in (EvoMMC, FastEvoMMC):
        est = Estimator(kernel="linear", random_state=0).fit(X)
        assert clustering_error(y, est.labels_) == 0.0
        assert est.n_components_ <= X.shape[1]


@pytest.mark.parametrize("Estimator", [EvoMMC, FastEvoMMC])
def test_invariances_on_separated_clusters(Estimator):
    X, y = two_blobs(distance=7.0, seed=9)
    reference = Estimator(random_state=0).fit(X)
    assert clustering_error(y, reference.labels_) == 0.0
    for transformed in (1e3 * X, 1e-3 * X, X + 50.0, sp.csr_matrix(X)):
        est = Estimator(random_state=0).fit(transformed)
        np.testing.assert_array_equal(est.labels_, reference.labels_)
        assert est.fitness_ == pytest.approx(reference.fitness_, rel=1e-6)


@pytest.mark.parametrize("Estimator", [EvoMMC, FastEvoMMC])
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("n_clusters", [2, 3])
def test_linear_kernel_does_not_depend_on_the_scale_of_X(Estimator, sparse, n_clusters):
    # reg is relative to the mean of k(x, x): with the linear kernel the
    # problem for c X is that for X, c times smaller coefficients. With reg
    # absolute the fitness of X times 10 was 0.002 against 0.157 (tf-idf
    # rows), and FastEvoMMC split them differently.
    X, _ = make_sparse_clusters(
        n_samples=150,
        n_features=600,
        nnz_per_row=20,
        n_clusters=n_clusters,
        random_state=0,
    )
    X = X if sparse else X.toarray()
    reference = Estimator(
        n_clusters=n_clusters, kernel="linear", n_init=2, random_state=0
    ).fit(X)
    assert reference.reg_ == reference.reg  # unit rows: exactly
    for scale in (0.1, 10.0):
        est = Estimator(
            n_clusters=n_clusters, kernel="linear", n_init=2, random_state=0
        ).fit(scale * X)
        assert est.reg_ == pytest.approx(reference.reg * scale**2, rel=1e-11)
        assert est.fitness_ == pytest.approx(reference.fitness_, rel=1e-6)
        np.testing.assert_array_equal(est.labels_, reference.labels_)


@pytest.mark.parametrize("Estimator", [EvoMMC, FastEvoMMC])
def test_rbf_and_a_kernel_zero_on_every_sample_keep_reg_as_given(Estimator):
    X, _ = two_blobs(n_per_cluster=20, seed=4)
    est = Estimator(kernel="rbf", reg=3e-3, n_init=1, random_state=0).fit(X)
    assert est.reg_ == 3e-3
    # The linear kernel of zero rows has no scale to measure reg against.
    zeros = np.zeros((12, 3))
    for n_clusters in (2, 3):
        est = Estimator(n_clusters=n_clusters, kernel="linear", reg=3e-3)
        with pytest.warns(ConvergenceWarning):
            est.fit(zeros)
        assert est.reg_ == 3e-3
        assert np.isfinite(est.decision_function(zeros)).all()


@pytest.mark.parametrize("n", [9, 10])
@pytest.mark.parametrize("bound", [0, 1, 2, 4, 10])
def test_balanced_signs_maximise_the_scores_under_the_bound(n, bound):
    rng = np.random.default_rng(n + bound)
    for _ in range(20):
        scores = rng.normal(size=n) + rng.choice([-1.0, 0.0, 2.0])
        y = balanced_signs(scores, max(bound, n % 2))
        assert abs(int(y.sum())) <= max(bound, n % 2)
        best = _reference.balanced_signs(scores, None, max(bound, n % 2))
        assert y @ scores == pytest.approx(best, abs=1e-12)


def test_ascent_never_worsens_the_fitness_and_keeps_the_balance():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(70, 3))
    basis = _basis(kernel_matrix(X, gamma=0.5), 1e-3)
    bound = balance_bound(0.03, 70)

    def fit(y):
        u = y @ basis.V
        return 1.0 - (u * u) @ basis.weights / 70

    for seed in range(10):
        y = random_balanced_labels(70, np.random.RandomState(seed))
        better = ascend(basis, y, bound)
        assert fit(better) <= fit(y) + 1e-12
        assert abs(int(better.sum())) <= bound
        # A fixed point: one more step changes nothing.
        np.testing.assert_array_equal(ascend(basis, better, bound, max_steps=1), better)


@pytest.mark.parametrize("Estimator", [EvoMMC, FastEvoMMC])
def test_auto_kernel_fits_with_the_kernel_it_resolves_to(Estimator):
    """kernel="auto": linear on text-like rows (every sample nearly as far
    from every other), rbf on the digits; the fit is the named kernel's."""
    from sklearn.datasets import load_digits

    from mmc.datasets import make_sparse_clusters

    text, _ = make_sparse_clusters(n_samples=200, random_state=0)
    digits = load_digits()
    pair = digits.data[np.isin(digits.target, (3, 8))][:150] / 16
    for X, expected in ((text, "linear"), (pair, "rbf")):
        auto = Estimator(random_state=0).fit(X)
        named = Estimator(kernel=expected, random_state=0).fit(X)
        assert auto.kernel == "auto" and auto.kernel_ == expected == named.kernel_
        assert auto.gamma_ == named.gamma_
        np.testing.assert_array_equal(auto.labels_, named.labels_)
        np.testing.assert_array_equal(auto.predict(X[:30]), named.predict(X[:30]))
