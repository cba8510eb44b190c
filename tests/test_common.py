"""Behaviour every estimator of mmc shares: API, input handling, invariances,
determinism, errors. Each test runs once per estimator."""

import pickle
import subprocess
import sys
import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
import scipy.optimize
import scipy.sparse as sp
from _data import two_blobs
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.estimator_checks import parametrize_with_checks

import mmc._qp
from mmc import CPM3C, CPMMC, ODMC, EvoMMC, FastEvoMMC, MultivariateMMC
from mmc._cutting_plane_run import N_LEVELS
from mmc.datasets import make_sparse_clusters
from mmc.metrics import clustering_error

ESTIMATORS = [CPMMC, MultivariateMMC, CPM3C, ODMC, EvoMMC, FastEvoMMC]
# Estimators that solve no quadratic program (the quadprog tests skip them).
NO_QP = (ODMC, EvoMMC, FastEvoMMC)
# Estimators without a hyperplane coef_ in feature space (kernel expansions).
KERNEL_EXPANSIONS = (EvoMMC, FastEvoMMC)


def _model(est):
    """The fitted weights: coef_, or dual_coef_ of a kernel expansion."""
    return est.dual_coef_ if isinstance(est, KERNEL_EXPANSIONS) else est.coef_


@pytest.fixture(params=ESTIMATORS, ids=lambda E: E.__name__)
def Estimator(request):
    return request.param


# scikit-learn's checks set n_clusters=1 in these; the estimators that take
# n_clusters reject fewer than two by design (a clear ValueError). (Its
# check_clustering sets n_clusters=3 for its three blobs, which they find.)
_SINGLE_CLUSTER_CHECKS = (
    "check_dont_overwrite_parameters",
    "check_fit2d_predict1d",
    "check_methods_subset_invariance",
    "check_fit2d_1sample",
    "check_fit2d_1feature",
)


# scikit-learn's checks give a pairwise estimator its training kernel at fit
# but raw samples (with NaN, or one feature fewer) at predict and in
# check_clustering, which a precomputed kernel cannot be; the tests of
# test_input_forms.py and test_kernel_map.py check these refusals instead.
_PRECOMPUTED_CHECKS = {
    "check_clustering": "fits raw samples, not their kernel matrix",
    "check_estimators_nan_inf": (
        "predicts on raw samples, refused for their shape before their NaN"
    ),
    "check_positive_only_tag_during_fit": (
        "fits an indefinite matrix, which is no kernel: fitted with a warning"
    ),
}


def _expected_failed_checks(estimator):
    expected = {}
    if hasattr(estimator, "n_clusters"):
        expected.update({name: "sets n_clusters=1" for name in _SINGLE_CLUSTER_CHECKS})
    if getattr(estimator, "kernel", None) == "precomputed":
        expected.update(_PRECOMPUTED_CHECKS)
    return expected


@parametrize_with_checks(
    [E(random_state=0) for E in ESTIMATORS]
    + [
        E(kernel="precomputed", random_state=0)
        for E in (CPMMC, MultivariateMMC, CPM3C, ODMC)
    ]
    + [
        E(kernel=kernel, random_state=0)
        for E in (EvoMMC, FastEvoMMC)
        for kernel in ("linear", "poly")
    ],
    expected_failed_checks=_expected_failed_checks,
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_separates_two_blobs(Estimator):
    X, y = two_blobs()
    est = Estimator(random_state=0).fit(X)
    assert clustering_error(y, est.labels_) == 0.0
    assert est.labels_.dtype.kind == "i"
    assert set(np.unique(est.labels_)) == {0, 1}
    np.testing.assert_array_equal(est.predict(X), est.labels_)
    np.testing.assert_array_equal(Estimator(random_state=0).fit_predict(X), est.labels_)
    decision = est.decision_function(X)
    if isinstance(est, CPM3C):
        # Multiclass: one score per cluster, no intercept (linear kernel).
        assert decision.shape == (X.shape[0], 2)
        np.testing.assert_array_equal(decision.argmax(axis=1), est.labels_)
        assert est.coef_.shape == (2, X.shape[1])
    else:
        assert decision.shape == (X.shape[0],)
        np.testing.assert_array_equal(decision > 0, est.labels_ == 1)
        assert isinstance(est.intercept_, float)
        if isinstance(est, KERNEL_EXPANSIONS):
            assert est.n_generations_ >= 1
            return
        assert est.coef_.shape == (X.shape[1],)
    assert est.n_iter_ >= 1 and est.n_constraints_ >= 1


def test_predict_on_new_points_follows_the_hyperplane(Estimator):
    X, y = two_blobs(seed=1)
    X_new, y_new = two_blobs(seed=2)
    est = Estimator(random_state=0).fit(X)
    # The clusters of the new points are those of the training points they
    # resemble: labels agree up to the naming of the clusters.
    mapping = {y[i]: est.labels_[i] for i in range(len(y))}
    assert len(set(mapping.values())) == 2
    np.testing.assert_array_equal(est.predict(X_new), [mapping[c] for c in y_new])


def test_same_random_state_same_result_and_different_seeds_run(Estimator):
    X, _ = two_blobs(distance=2.0, seed=4)
    a = Estimator(random_state=7).fit(X)
    b = Estimator(random_state=7).fit(X)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    np.testing.assert_array_equal(_model(a), _model(b))
    assert a.objective_ == b.objective_
    rng = np.random.RandomState(7)
    c = Estimator(random_state=rng).fit(X)
    np.testing.assert_array_equal(a.labels_, c.labels_)


def test_threads_give_the_same_result_as_one(Estimator):
    X, _ = two_blobs(distance=2.0, seed=5)
    one = Estimator(random_state=0, n_jobs=1).fit(X)
    two = Estimator(random_state=0, n_jobs=2).fit(X)
    np.testing.assert_array_equal(one.labels_, two.labels_)
    assert one.objective_ == two.objective_


def _skip_chaotic_search(Estimator):
    """EvoMMC and FastEvoMMC search labellings at random: a kernel matrix that
    differs by rounding (sparse against dense, scaled data) can send the
    search elsewhere on overlapping data. tests/test_evo.py checks these
    invariances on separated clusters instead."""
    if Estimator in KERNEL_EXPANSIONS:
        pytest.skip(f"{Estimator.__name__}: rounding changes the random search")


def test_sparse_with_int64_indices_and_explicit_zeros(Estimator):
    X, _ = make_sparse_clusters(
        n_samples=200, n_features=100, nnz_per_row=10, separation=0.5, random_state=1
    )
    reference = Estimator(random_state=0).fit(X)
    X64 = X.copy()
    X64.indices = X64.indices.astype(np.int64)
    X64.indptr = X64.indptr.astype(np.int64)
    np.testing.assert_array_equal(
        Estimator(random_state=0).fit(X64).labels_, reference.labels_
    )
    _skip_chaotic_search(Estimator)
    X_zeros = X.copy()
    X_zeros.data[::7] = 0.0  # explicit zeros stay stored
    est = Estimator(random_state=0).fit(X_zeros)
    np.testing.assert_array_equal(
        est.labels_, Estimator(random_state=0).fit(X_zeros.toarray()).labels_
    )


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_dtypes_memory_orders_and_read_only_input(Estimator, dtype):
    X, y = two_blobs(dtype=dtype)
    reference = Estimator(random_state=0).fit(X)
    assert clustering_error(y, reference.labels_) == 0.0
    fortran = np.asfortranarray(X)
    np.testing.assert_array_equal(
        Estimator(random_state=0).fit(fortran).labels_, reference.labels_
    )
    read_only = X.copy()
    read_only.flags.writeable = False
    est = Estimator(random_state=0).fit(read_only)
    np.testing.assert_array_equal(est.labels_, reference.labels_)
    np.testing.assert_array_equal(est.predict(read_only), reference.labels_)
    # Lists and integer arrays are accepted too.
    as_list = Estimator(random_state=0).fit(X.tolist())
    np.testing.assert_array_equal(as_list.labels_, reference.labels_)


def test_invariant_to_scaling_and_translation(Estimator):
    _skip_chaotic_search(Estimator)
    X, _ = two_blobs(distance=2.5, seed=9)
    reference = Estimator(random_state=0).fit(X)
    transforms = [1e3 * X, 1e-3 * X]
    if not isinstance(reference, CPM3C):
        # CPM3C with the linear kernel has no intercept (as in the paper): its
        # scores w_p.x depend on the origin.
        transforms.append(X + 50.0)
    for transformed in transforms:
        est = Estimator(random_state=0).fit(transformed)
        assert clustering_error(reference.labels_, est.labels_) == 0.0
    scaled = Estimator(random_state=0).fit(1e3 * X)
    assert scaled.objective_ == pytest.approx(reference.objective_, rel=1e-5)


def test_pickle_and_clone(Estimator):
    X, _ = two_blobs()
    est = Estimator(random_state=0).fit(X)
    restored = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(restored.predict(X), est.labels_)
    # Kernel expansions go through BLAS, whose rounding may depend on the
    # alignment of the (unpickled) arrays.
    np.testing.assert_allclose(
        restored.decision_function(X), est.decision_function(X), rtol=1e-13
    )
    fresh = clone(est)
    assert not hasattr(fresh, "labels_")
    assert fresh.get_params() == est.get_params()


def test_initial_labels_as_array(Estimator):
    X, y = two_blobs(distance=6.0)
    est = Estimator(init=y, n_init=1).fit(X)
    assert clustering_error(y, est.labels_) == 0.0
    with pytest.warns(RuntimeWarning, match="n_init=3"):
        Estimator(init=y, n_init=3).fit(X)
    if Estimator().n_init == "auto":
        # "auto" asks for no number of runs: one run from the labels, silently.
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)
            Estimator(init=y).fit(X)
    with pytest.raises(ValueError, match="shape"):
        Estimator(init=y[:-1], n_init=1).fit(X)
    with pytest.raises(ValueError, match="exactly 2 distinct labels"):
        Estimator(init=np.zeros(len(y)), n_init=1).fit(X)


def test_iteration_limit_warns_and_still_labels(Estimator):
    if "max_iter" not in Estimator().get_params():
        pytest.skip(f"{Estimator.__name__} has no max_iter (see its own tests)")
    X, _ = two_blobs(distance=1.0, seed=10)
    # ODMC's refinement runs epochs of its own after the relaxation that
    # max_iter bounds; it is checked with the relaxation alone.
    params = {"refine": False} if "refine" in Estimator().get_params() else {}
    with pytest.warns(ConvergenceWarning, match="max_iter=1"):
        est = Estimator(max_iter=1, random_state=0, **params).fit(X)
    # The continuation in C bounds the run at each of its values of C.
    n_values = N_LEVELS if est.get_params().get("continuation") else 1
    assert est.n_iter_ == n_values
    assert set(np.unique(est.labels_)) <= {0, 1}
    assert np.all(np.isfinite(est.decision_function(X)))


def test_identical_samples_give_one_cluster_with_a_warning(Estimator):
    X = np.ones((20, 3))
    with pytest.warns(ConvergenceWarning, match="one cluster"):
        est = Estimator(random_state=0).fit(X)
    assert np.unique(est.labels_).size == 1
    if isinstance(est, KERNEL_EXPANSIONS):
        return
    if not isinstance(est, CPM3C):
        np.testing.assert_allclose(est.coef_, 0.0, atol=1e-12)
    elif est.solver_ == "cutting-plane":
        # The balance constraints bound the margin of the single cluster
        # over the others: the mean margins of the best class and of the
        # others are +gap and -gap, at most class_balance apart.
        scores = np.sort(est.decision_function(X), axis=1)
        gap = scores[:, -1] - scores[:, -2]
        assert np.all(gap <= est.class_balance_ / 2 + 1e-9)
    else:
        # The SVM of the one cluster: the same scores for every sample.
        scores = est.decision_function(X)
        assert np.all(np.isfinite(scores)) and np.ptp(scores, axis=0).max() == 0


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sparse_matrix_storing_no_value_gives_one_cluster(Estimator, dtype):
    # A CSR matrix of zeros has empty index arrays, the kernels' mark of
    # dense rows: its rows were once read as dense values that are not
    # there (a segmentation fault in the first k-means pass).
    X = sp.csr_matrix((40, 6), dtype=dtype)
    with pytest.warns(ConvergenceWarning, match="one cluster"):
        est = Estimator(random_state=0).fit(X)
    assert np.unique(est.labels_).size == 1
    np.testing.assert_array_equal(est.predict(X), est.labels_)
    assert np.all(np.isfinite(est.decision_function(X)))


def test_duplicated_rows_and_constant_features(Estimator):
    X, y = two_blobs(distance=6.0)
    X = np.hstack([X, np.full((X.shape[0], 2), 3.0)])
    X = np.vstack([X, X])
    y = np.concatenate([y, y])
    est = Estimator(random_state=0).fit(X)
    assert clustering_error(y, est.labels_) == 0.0
    if isinstance(est, KERNEL_EXPANSIONS):
        return
    if not isinstance(est, CPM3C):
        np.testing.assert_allclose(est.coef_[-2:], 0.0, atol=1e-10)
    else:
        # Without an intercept a constant feature acts as one; two equal
        # constant features get equal weights.
        np.testing.assert_allclose(est.coef_[:, -2], est.coef_[:, -1], rtol=1e-8)


def test_single_feature(Estimator):
    rng = np.random.default_rng(0)
    X = np.concatenate([rng.normal(-4, 1, 50), rng.normal(4, 1, 50)])[:, None]
    y = np.repeat([0, 1], 50)
    est = Estimator(random_state=0).fit(X)
    assert clustering_error(y, est.labels_) == 0.0


@pytest.mark.parametrize(
    "X, error, match",
    [
        (np.array([[0.0, 1.0], [np.nan, 2.0], [1.0, 1.0]]), ValueError, "NaN"),
        (np.array([[0.0, 1.0], [np.inf, 2.0], [1.0, 1.0]]), ValueError, "infinity"),
        (np.empty((0, 3)), ValueError, "0 sample"),
        (np.ones((1, 3)), ValueError, "1 sample"),
        (np.ones(5), ValueError, "2D array"),
        (np.ones((4, 2, 2)), ValueError, "dim 3"),
        (np.array([["a", "b"], ["c", "d"]]), ValueError, "convert string"),
        (np.ones((3, 2)) + 1j, ValueError, "Complex"),
    ],
    ids=["nan", "inf", "empty", "one-sample", "1d", "3d", "strings", "complex"],
)
def test_bad_input_is_rejected_clearly(Estimator, X, error, match):
    with pytest.raises(error, match=match):
        Estimator(random_state=0).fit(X)


@pytest.mark.parametrize(
    "params, match",
    [
        ({"C": 0}, "'C' parameter"),
        ({"C": -1.0}, "'C' parameter"),
        ({"C": "big"}, "'C' parameter"),
        ({"class_balance": -0.1}, "'class_balance' parameter"),
        ({"epsilon": 0}, "'epsilon' parameter"),
        ({"tol": -1e-3}, "'tol' parameter"),
        ({"max_iter": 0}, "'max_iter' parameter"),
        ({"max_iter": 2.5}, "'max_iter' parameter"),
        ({"max_cccp_iter": 0}, "'max_cccp_iter' parameter"),
        ({"n_init": 0}, "'n_init' parameter"),
        ({"n_init": True}, "'n_init' parameter of .* not a bool"),
        ({"max_iter": False}, "'max_iter' parameter of .* not a bool"),
        ({"init": "farthest-first"}, "'init' parameter"),
        ({"n_jobs": "all"}, "'n_jobs' parameter"),
        ({"n_jobs": 0}, "'n_jobs' parameter .* got 0"),
        ({"verbose": -1}, "'verbose' parameter"),
        ({"random_state": "seed"}, "'random_state' parameter"),
    ],
)
def test_bad_parameters_are_rejected_at_fit(Estimator, params, match):
    if not set(params) <= set(Estimator().get_params()):
        pytest.skip(f"{Estimator.__name__} has no parameter {', '.join(params)}")
    X, _ = two_blobs(n_per_cluster=5)
    with pytest.raises(ValueError, match=match):
        Estimator(**params).fit(X)


def test_predict_checks_fitted_and_features(Estimator):
    X, _ = two_blobs()
    est = Estimator(random_state=0)
    with pytest.raises(Exception, match="not fitted"):
        est.predict(X)
    est.fit(X)
    with pytest.raises(ValueError, match="features"):
        est.predict(X[:, :-1])
    with pytest.raises(ValueError, match="NaN"):
        est.predict(np.full_like(X, np.nan))


def test_no_warning_on_easy_data(Estimator):
    X, _ = two_blobs()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Estimator(random_state=0).fit(X)


def test_other_sparse_formats_are_converted(Estimator):
    X, _ = make_sparse_clusters(
        n_samples=200,
        n_features=100,
        nnz_per_row=10,
        separation=0.6,
        random_state=2,
    )
    reference = Estimator(init="random", random_state=0).fit(X)
    for fmt in ("csc", "coo", "lil", "dok"):
        est = Estimator(init="random", random_state=0).fit(X.asformat(fmt))
        np.testing.assert_array_equal(est.labels_, reference.labels_)
        np.testing.assert_array_equal(est.predict(X.asformat(fmt)), est.labels_)


class _ArrayLike:
    """A container that numpy converts through ``__array__`` (as pandas does)."""

    def __init__(self, values):
        self.values = values

    def __array__(self, dtype=None, copy=None):
        return np.asarray(self.values, dtype=dtype)

    def __len__(self):
        return len(self.values)

    @property
    def shape(self):
        return self.values.shape


def test_integer_and_array_like_input(Estimator):
    X, y = two_blobs(distance=8.0)
    X_int = np.rint(10 * X).astype(np.int64)
    reference = Estimator(random_state=0).fit(X_int.astype(np.float64))
    est = Estimator(random_state=0).fit(X_int)
    np.testing.assert_array_equal(est.labels_, reference.labels_)
    assert clustering_error(y, est.labels_) == 0.0
    wrapped = Estimator(random_state=0).fit(_ArrayLike(X_int))
    np.testing.assert_array_equal(wrapped.labels_, reference.labels_)


def test_same_result_in_another_process(Estimator, tmp_path):
    X, _ = two_blobs(distance=2.0, seed=11)
    here = Estimator(random_state=3).fit(X)
    np.save(tmp_path / "X.npy", X)
    script = (
        "import sys, numpy as np, mmc\n"
        f"est = mmc.{Estimator.__name__}(random_state=3).fit(np.load(sys.argv[1]))\n"
        "np.save(sys.argv[2], est.labels_)\n"
        "print(repr(est.objective_))\n"
    )
    result = subprocess.run(
        [
            sys.executable,
            "-I",
            "-c",
            script,
            str(tmp_path / "X.npy"),
            str(tmp_path / "labels.npy"),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    np.testing.assert_array_equal(np.load(tmp_path / "labels.npy"), here.labels_)
    assert float(result.stdout) == here.objective_


def test_two_estimators_on_threads_match_sequential_fits():
    X, _ = two_blobs(distance=2.5, seed=12)
    X_other, _ = two_blobs(distance=3.0, seed=13, n_features=8)
    jobs = [(E, data) for E in ESTIMATORS for data in (X, X_other)]
    sequential = [E(random_state=0).fit(data) for E, data in jobs]
    with ThreadPoolExecutor(max_workers=2) as pool:
        threaded = list(pool.map(lambda job: job[0](random_state=0).fit(job[1]), jobs))
    for a, b in zip(sequential, threaded):
        np.testing.assert_array_equal(a.labels_, b.labels_)
        if isinstance(a, CPM3C):
            # Known: since CPM3C centres its samples, its QP (polished by
            # LAPACK, whose kernels may sum by memory alignment) can end a
            # few ulps apart in another thread; the labels must not.
            assert a.objective_ == pytest.approx(b.objective_, rel=1e-12)
        else:
            assert a.objective_ == b.objective_


# CPM3C solves quadratic programs with its cutting-plane solver only.
_QP_SOLVER = {CPM3C: {"solver": "cutting-plane"}}


def test_quadprog_failure_falls_back_to_slsqp(Estimator, monkeypatch):
    if Estimator in NO_QP:
        pytest.skip(f"{Estimator.__name__} solves no quadratic program")
    X, y = two_blobs(distance=6.0, n_per_cluster=25)

    def failing(*args, **kwargs):
        raise ValueError("matrix G is not positive definite")

    monkeypatch.setattr(mmc._qp.quadprog, "solve_qp", failing)
    with pytest.warns(ConvergenceWarning, match="SLSQP"):
        est = Estimator(random_state=0, n_init=1, **_QP_SOLVER.get(Estimator, {})).fit(
            X
        )
    assert clustering_error(y, est.labels_) == 0.0


def test_qp_that_cannot_be_solved_raises_a_clear_error(Estimator, monkeypatch):
    if Estimator in NO_QP:
        pytest.skip(f"{Estimator.__name__} solves no quadratic program")
    X, _ = two_blobs(n_per_cluster=10)

    def failing(*args, **kwargs):
        raise ValueError("constraints are inconsistent, no solution")

    def no_solution(*args, **kwargs):
        return scipy.optimize.OptimizeResult(success=False, message="forced", x=None)

    monkeypatch.setattr(mmc._qp.quadprog, "solve_qp", failing)
    monkeypatch.setattr(scipy.optimize, "minimize", no_solution)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        with pytest.raises(mmc._qp.QPError, match="could not be solved: forced"):
            Estimator(random_state=0, n_init=1, **_QP_SOLVER.get(Estimator, {})).fit(X)
