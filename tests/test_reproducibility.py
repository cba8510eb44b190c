"""Results do not depend on the BLAS kernel, nor on the input format.

The same seed must give the same clustering on every CPU. OpenBLAS picks its
kernels by CPU and ``OPENBLAS_CORETYPE`` forces one; each kernel rounds
products differently, and LAPACK on top of it may return an eigenvector of
either sign. ``bench/studies/cpu_coretypes.py`` measures every estimator on
the 45 digit pairs; the tests here repeat it on the pairs that diverged
before the fixes, and check each fix on its own:

* canonical eigenvector signs (``mmc._evo_basis.canonical_signs``);
* a fixed-point basis on which the coordinates ``V'y`` of EvoMMC's search
  are exact (``mmc._evo_basis.fixed_point``), so that a labelling has one fitness
  to the bit whatever the path of flips or the BLAS summation order;
* identical rows of V for identical samples (``mmc._evo_basis.tie_duplicates``);
* k-means landmarks whose choices treat values within their rounding error
  as ties (``mmc._kmeans.stable_kmeans``).
"""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_digits

import mmc
from mmc._core._evo import evolve, fitness, flip_labels
from mmc._evo_basis import (
    canonical_signs,
    duplicate_representatives,
    fixed_point,
    spectral_basis,
)
from mmc._evo_search import initial_population
from mmc._kmeans import best_kmeans_centres, stable_kmeans

ESTIMATORS = ("CPMMC", "CPM3C", "MultivariateMMC", "EvoMMC", "FastEvoMMC", "ODMC")

# The instruction sets each OpenBLAS core type needs (from /proc/cpuinfo).
CORETYPES = {"SkylakeX": "avx512f", "Haswell": "avx2", "Sandybridge": "avx"}


def _digit_pair(a, b, scale=16.0, duplicates=False):
    X, y = load_digits(return_X_y=True)
    mask = (y == a) | (y == b)
    X = X[mask] / scale
    if duplicates:
        X = np.vstack([X, X[::3]])
    return X


def _make(name, **params):
    if name == "CPM3C":
        params.setdefault("n_clusters", 2)
    return getattr(mmc, name)(random_state=0, **params)


def _unsorted(X):
    """CSR X with the entries of every row in reverse order."""
    X = sp.csr_matrix(X)
    for i in range(X.shape[0]):
        lo, hi = X.indptr[i], X.indptr[i + 1]
        X.indices[lo:hi] = X.indices[lo:hi][::-1].copy()
        X.data[lo:hi] = X.data[lo:hi][::-1].copy()
    X.has_sorted_indices = False
    return X


# --------------------------------------------------------------------------
# Across OpenBLAS core types, one subprocess each.

# The fits of the subprocesses: the pairs that diverged across core types
# before the fixes (1v8, 7v9), and 3v9 with a third of its samples
# duplicated and values that are not dyadic (X / 15), which diverged for
# EvoMMC until identical samples got identical rows of V. Besides the labels,
# the integer counts of the search (generations, iterations, constraints)
# and FastEvoMMC's landmarks must agree: a search that took another path and
# landed on the same labels would show there. Digits {0, 6, 8, 9} in four
# clusters cover the k-cluster searches (CPM3C, EvoMMC, FastEvoMMC).
_CORETYPE_SCRIPT = textwrap.dedent(
    """
    import hashlib, json, sys, warnings
    import numpy as np
    import threadpoolctl
    from sklearn.datasets import load_digits
    sys.path.insert(0, {tests!r})
    from test_reproducibility import ESTIMATORS, _digit_pair, _make

    fits = {{}}
    data = {{
        "1v8": _digit_pair(1, 8),
        "7v9": _digit_pair(7, 9),
        "3v9dup": _digit_pair(3, 9, scale=15.0, duplicates=True),
    }}
    # And four clusters, for the estimators that take n_clusters.
    digits = load_digits()
    subset = np.isin(digits.target, (0, 6, 8, 9))
    X4 = digits.data[subset] / 16.0
    runs = [(name, key, X, {{}}) for name in ESTIMATORS for key, X in data.items()]
    runs += [(name, "0689k4", X4, {{"n_clusters": 4}})
             for name in ("CPM3C", "EvoMMC", "FastEvoMMC")]
    # Ten clusters of the ten digits: the offsets of FastEvoMMC's
    # classifier set aside one of two samples of equal slack.
    runs.append(("FastEvoMMC", "digits10", digits.data / 16.0,
                 {{"n_clusters": 10}}))
    # A narrow rbf map (a grid point of the papers' protocol): the samples
    # are all but orthogonal, and the start's nearest centres are ties
    # within the rounding of the features.
    runs.append(("CPM3C", "3v8rbf-narrow", _digit_pair(3, 8), {{
        "n_clusters": 2, "kernel": "rbf", "gamma": 4.232768740210262,
        "C": 100, "class_balance": 0.03, "n_iter_no_change": None,
        "solver": "cutting-plane"}}))
    for name, key, X, params in runs:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est = _make(name, **params).fit(X)
        digest = hashlib.sha1(np.asarray(est.labels_, np.int8).tobytes())
        for attribute in ("n_generations_", "n_iter_", "n_constraints_"):
            digest.update(repr(getattr(est, attribute, None)).encode())
        if name == "FastEvoMMC":
            digest.update(np.ascontiguousarray(est.X_landmarks_).tobytes())
        fits[f"{{name}} {{key}}"] = digest.hexdigest()[:16]
    archs = sorted({{i.get("architecture") for i in threadpoolctl.threadpool_info()
                    if i["user_api"] == "blas"}})
    json.dump({{"architectures": archs, "fits": fits}}, sys.stdout)
    """
)


def _cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


@pytest.fixture(scope="module")
def coretype_fits():
    """Fingerprints of the fits under each core type the CPU can run."""
    flags = _cpu_flags()
    script = _CORETYPE_SCRIPT.format(tests=os.path.dirname(__file__))
    processes = {}
    for coretype, flag in CORETYPES.items():
        if flag not in flags:
            continue
        env = dict(os.environ, OPENBLAS_CORETYPE=coretype)
        # -I keeps the working directory (the source tree, whose mmc has no
        # compiled kernels) off sys.path: the installed mmc is tested.
        processes[coretype] = subprocess.Popen(
            [sys.executable, "-I", "-c", script],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
    fits = {}
    try:
        for coretype, process in processes.items():
            out, err = process.communicate(timeout=600)
            assert process.returncode == 0, err
            result = json.loads(out)
            # OpenBLAS ignores a core type it was not built with, and numpy
            # may not use OpenBLAS at all: only the forced kernels count.
            if result["architectures"] == [coretype]:
                fits[coretype] = result["fits"]
    finally:
        for process in processes.values():
            if process.poll() is None:
                process.kill()
                process.communicate()
    if len(fits) < 2:
        pytest.skip(f"fewer than two OpenBLAS core types available: {sorted(fits)}")
    return fits


@pytest.mark.parametrize("name", ESTIMATORS)
def test_the_openblas_core_type_changes_no_result(coretype_fits, name):
    reference_type, *others = sorted(coretype_fits)
    reference = coretype_fits[reference_type]
    for coretype in others:
        for key, digest in coretype_fits[coretype].items():
            if key.startswith(name + " "):
                assert digest == reference[key], (key, coretype, reference_type)


# --------------------------------------------------------------------------
# Across input formats, in this process.


@pytest.mark.parametrize("name", ESTIMATORS)
@pytest.mark.parametrize("scale", [16.0, 15.0])
def test_dense_csr_and_unsorted_csr_give_the_same_labels(name, scale):
    # scale 15: values that are not dyadic, so that dense and sparse products
    # round differently.
    X = _digit_pair(1, 8, scale=scale)
    dense = _make(name).fit(X).labels_
    csr = _make(name).fit(sp.csr_matrix(X)).labels_
    unsorted = _unsorted(X)
    assert not unsorted.has_sorted_indices
    unsorted_labels = _make(name).fit(unsorted).labels_
    np.testing.assert_array_equal(csr, dense)
    np.testing.assert_array_equal(unsorted_labels, dense)


@pytest.mark.parametrize("name", ESTIMATORS)
def test_float32_values_exactly_representable_give_the_same_labels(name):
    # load_digits / 16 holds multiples of 1/16, exact in float32: only the
    # arithmetic differs, which the searches must absorb on this pair (on
    # data that float32 rounds, the labels may legitimately differ).
    X = _digit_pair(1, 8)
    np.testing.assert_array_equal(
        _make(name).fit(X.astype(np.float32)).labels_, _make(name).fit(X).labels_
    )


def test_fitting_leaves_unsorted_csr_input_untouched():
    X = _unsorted(_digit_pair(1, 8)[:120])
    indices, data = X.indices.copy(), X.data.copy()
    mmc.FastEvoMMC(n_components=20, n_init=1, random_state=0).fit(X)
    mmc.EvoMMC(n_init=1, random_state=0).fit(X)
    assert not X.has_sorted_indices
    np.testing.assert_array_equal(X.indices, indices)
    np.testing.assert_array_equal(X.data, data)


# --------------------------------------------------------------------------
# The fixes, one by one.


def test_canonical_signs_do_not_depend_on_the_signs_given():
    rng = np.random.default_rng(0)
    V = np.linalg.qr(rng.standard_normal((50, 8)))[0]
    canonical = V * canonical_signs(V)
    flipped = V * rng.choice([-1.0, 1.0], size=8)
    np.testing.assert_array_equal(flipped * canonical_signs(flipped), canonical)
    top = np.argmax(np.abs(canonical), axis=0)
    assert np.all(canonical[top, np.arange(8)] > 0)


def test_canonical_signs_break_near_ties_in_magnitude_by_row():
    # The entries of largest magnitude, of opposite signs, differ by less
    # than rounding: whichever is larger, the first row decides.
    for second in (0.5 * (1 + 1e-14), 0.5 * (1 - 1e-14)):
        V = np.array([[-0.5], [second], [0.1]])
        np.testing.assert_array_equal(canonical_signs(V), [-1.0])
        np.testing.assert_array_equal(canonical_signs(-V), [1.0])


def test_fixed_point_coordinates_do_not_depend_on_the_path():
    rng = np.random.default_rng(1)
    n_samples, n_components = 300, 40
    V = np.linalg.qr(rng.standard_normal((n_samples, n_components)))[0]
    Vq = fixed_point(V)
    # The grid moves each entry by a few units of rounding of |V'y|.
    bound = np.abs(V).sum(axis=0).max()
    assert np.abs(Vq - V).max() <= 4 * bound * np.finfo(float).eps
    start = np.where(rng.random(n_samples) < 0.5, 1, -1).astype(np.int8)
    target = np.where(rng.random(n_samples) < 0.5, 1, -1).astype(np.int8)
    flips = np.flatnonzero(start != target).astype(np.int32)
    for basis, exact in ((V, False), (Vq, True)):
        reached = []
        for order in (flips, flips[::-1].copy(), rng.permutation(flips)):
            y, u = start.copy(), start @ basis
            flip_labels(basis, order, order.size, y, u)
            np.testing.assert_array_equal(y, target)
            reached.append(u)
        reached.append(target @ basis)  # from scratch, by BLAS
        same = all(np.array_equal(u, reached[0]) for u in reached)
        assert same == exact


def test_evolution_keeps_exact_coordinates_and_one_fitness_per_labelling():
    # On the fixed-point basis the coordinates evolve keeps equal those
    # recomputed from scratch, to the bit, and so do the fitnesses.
    rng = np.random.default_rng(2)
    X = rng.standard_normal((120, 3))
    K = np.exp(-0.5 * ((X[:, None] - X[None]) ** 2).sum(-1))
    sigma, V = np.linalg.eigh(K)
    basis = spectral_basis(V, sigma, 1e-3)
    Y = initial_population(basis, 6, np.random.RandomState(0), "random", 4)
    U = np.ascontiguousarray(Y @ basis.V)
    F = np.array([fitness(basis.weights, u, 120) for u in U])
    evolve(basis.V, basis.weights, Y, U, F, 6, 4, 120, 300, 50, 0.0, 7)
    np.testing.assert_array_equal(U, Y @ basis.V)
    np.testing.assert_array_equal(
        F, [fitness(basis.weights, u, 120) for u in Y @ basis.V]
    )


def test_duplicate_representatives():
    rng = np.random.default_rng(3)
    X = np.floor(rng.random((40, 3)) * 2)  # many identical rows
    rep = duplicate_representatives(X)
    assert rep is not None
    np.testing.assert_array_equal(X[rep], X)
    assert np.all(rep <= np.arange(40))
    first = np.unique(X, axis=0, return_index=True)[1]
    np.testing.assert_array_equal(np.sort(np.unique(rep)), np.sort(first))
    for variant in (sp.csr_matrix(X), _unsorted(X), X.astype(np.float32)):
        np.testing.assert_array_equal(duplicate_representatives(variant), rep)
    assert duplicate_representatives(rng.random((40, 3))) is None


@pytest.mark.parametrize("scale", [16.0, 15.0])
def test_stable_kmeans_is_the_same_for_every_input_format(scale):
    X = _digit_pair(3, 8, scale=scale)
    centres = stable_kmeans(X, 30, np.random.RandomState(0), 3)
    for variant in (sp.csr_matrix(X), _unsorted(X)):
        other = stable_kmeans(variant, 30, np.random.RandomState(0), 3)
        np.testing.assert_allclose(other, centres, rtol=0, atol=1e-12)


def test_stable_kmeans_converges_to_a_lloyd_fixed_point():
    X = _digit_pair(0, 6)
    centres = stable_kmeans(X, 5, np.random.RandomState(0), 100)
    distances = ((X[:, None, :] - centres[None]) ** 2).sum(-1)
    labels = distances.argmin(axis=1)
    assert np.unique(labels).size == 5
    for c in range(5):
        np.testing.assert_allclose(centres[c], X[labels == c].mean(axis=0))


def test_best_kmeans_centres_is_the_lowest_inertia_run_for_every_input_format():
    X = _digit_pair(3, 8)
    best = best_kmeans_centres(X, 4, np.random.RandomState(0), 5)
    # The same draws, run by run: the winner is the run of lowest inertia.
    rng = np.random.RandomState(0)
    runs = [stable_kmeans(X, 4, rng, 300) for _ in range(5)]
    inertias = [((X[:, None] - c[None]) ** 2).sum(-1).min(axis=1).sum() for c in runs]
    assert len(set(np.round(inertias, 6))) > 1  # the runs differ
    np.testing.assert_array_equal(best, runs[int(np.argmin(inertias))])
    for variant in (sp.csr_matrix(X), _unsorted(X), X.astype(np.float32)):
        other = best_kmeans_centres(variant, 4, np.random.RandomState(0), 5)
        np.testing.assert_allclose(other, best, rtol=0, atol=1e-12)
