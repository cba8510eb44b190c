"""The kernel matrix of the least-squares MMC methods, summarised by a basis.

For a labelling y the fitness of EvoMMC and FastEvoMMC (Gieseke, Pahikkala
and Kramer, 2009) is the optimal value of the regularised least-squares
problem ``F(y) = min_c (1/n)|y - Kc|^2 + reg c'Kc``. With the spectral
summary ``K = V diag(sigma) V'`` of the kernel matrix (exact for EvoMMC,
Nystroem for FastEvoMMC) it is

    F(y) = 1 - (1/n) sum_j w_j (V'y)_j^2,   w_j = sigma_j / (sigma_j + n reg),

since the least-squares fit of y is ``V diag(w) V'y``: the components of y
outside the span of V cost ``(1/n)|y|^2 = 1`` in full, those along
eigenvector j a fraction ``1 - w_j`` of their weight. This module builds the
:class:`Basis` (V, w, sigma) from the exact kernel matrix or from Nystroem
features, chooses FastEvoMMC's landmarks, and maps the coordinates
``u = V'y`` of the winning labelling to the coefficients of its
least-squares predictor.
"""

from collections import namedtuple

import numpy as np
import scipy.linalg
from sklearn.utils.parallel import _get_threadpool_controller

from mmc._starts import kmeans_run

# FastEvoMMC's k-means landmarks: k-means++ seeding and this many Lloyd
# iterations on a random subsample of at most this many samples per landmark,
# so that choosing them costs O(r^2 d log r) whatever n (the kernel between
# the samples and the landmarks costs O(n r d)).
KMEANS_ITERATIONS = 3
KMEANS_SAMPLES_PER_LANDMARK = 10


class Basis(namedtuple("Basis", ["V", "weights", "sigma"])):
    """Spectral summary of a kernel matrix for a regularisation ``reg``.

    ``V`` (n_samples, n_components) has orthonormal columns spanning the
    numerical range of the kernel matrix ``K = V diag(sigma) V'``, and
    ``weights = sigma / (sigma + n reg)``.
    """


def spectral_basis(V, sigma, reg):
    """Keep the numerically non-zero part of ``V diag(sigma) V'``.

    Eigenvalues below ``n * eps * max(sigma)`` are rounding noise of the
    kernel matrix (they may even be negative); their components are dropped,
    which changes no fitness by more than that relative amount but makes
    every flip cost O(rank) instead of O(n).

    Returns
    -------
    basis : Basis
        Components sorted by decreasing eigenvalue, V C-contiguous.
    """
    n_samples = V.shape[0]
    sigma = np.asarray(sigma, dtype=np.float64)
    top = float(sigma.max(initial=0.0))
    keep = sigma > max(n_samples, 1) * np.finfo(np.float64).eps * top
    order = np.flatnonzero(keep)[np.argsort(-sigma[keep], kind="stable")]
    sigma = sigma[order]
    V = np.ascontiguousarray(V[:, order], dtype=np.float64)
    weights = sigma / (sigma + n_samples * reg)
    return Basis(V, weights, sigma)


def exact_basis(K, reg):
    """The basis of an exact kernel matrix K (overwritten) by its eigenvectors."""
    sigma, V = scipy.linalg.eigh(K, overwrite_a=True, check_finite=False)
    return spectral_basis(V, sigma, reg)


def exact_dual_coef(basis, u, reg):
    """Coefficients c of the least-squares fit ``f = K c`` of the labelling
    with coordinates ``u = V'y``: ``c = V diag(1 / (sigma + n reg)) u``."""
    n_samples = basis.V.shape[0]
    return basis.V @ (u / (basis.sigma + n_samples * reg))


def nystroem_basis(feature_map, X, reg):
    """The basis of the Nystroem kernel matrix ``L L'``, ``L = feature_map(X)``.

    ``L = V S W'``: the Nystroem kernel matrix is ``L L' = V S^2 V'``. S^2 and
    W come from the r x r Gram matrix ``L'L = W S^2 W'`` (one BLAS product,
    O(n r^2), several times faster than a thin SVD of L), then
    ``V = L W S^-1`` on the components with S^2 above 1e-10 of the largest:
    their columns are orthonormal to about 1e-6 or better, and the weights
    ``S^2 / (S^2 + n reg)`` of the others are negligible. L is computed here
    and freed before V is sorted and copied.

    Returns
    -------
    basis : Basis
        Components sorted by decreasing eigenvalue.

    right : ndarray of shape (n_kept, n_landmarks)
        The rows of ``W'`` of the components kept, in the same order (the
        basis may drop a tail of them).
    """
    L = np.asarray(feature_map.transform(X), dtype=np.float64)
    s2, W = scipy.linalg.eigh(L.T @ L, check_finite=False)
    order = np.argsort(-s2, kind="stable")
    s2, W = s2[order], W[:, order]
    keep = s2 > 1e-10 * max(float(s2[0]), 0.0)
    s2, W = s2[keep], W[:, keep]
    V = L @ (W / np.sqrt(s2))
    del L
    return spectral_basis(V, s2, reg), W.T


def nystroem_dual_coef(basis, right, normalization, u, reg):
    """Coefficients c on the landmarks of the least-squares fit ``f = K_nR c``
    of the labelling with coordinates ``u = V'y``.

    The ridge solution on the Nystroem features is ``beta = W diag(s / (s^2
    + n reg)) V'y`` over the kept components, then ``c = K_RR^{-1/2} beta``
    (``normalization`` is the map's ``K_RR^{-1/2}``, transposed). The
    singular values are sorted decreasingly by both :func:`nystroem_basis`
    and :func:`spectral_basis`, so the kept components are the first rows of
    ``right``.
    """
    n_samples, m = basis.V.shape
    s = np.sqrt(basis.sigma)
    beta = right[:m].T @ (s / (basis.sigma + n_samples * reg) * u)
    return normalization.T @ beta


def kmeans_landmarks(X, n_landmarks, random_state):
    """Centres of a short k-means run, as landmarks of a Nystroem map.

    k-means++ seeding followed by ``KMEANS_ITERATIONS`` Lloyd iterations
    (:class:`sklearn.cluster.KMeans` with one initialisation) on a random
    subsample of ``min(n_samples, KMEANS_SAMPLES_PER_LANDMARK * n_landmarks)``
    samples: O(r^2 d log r) time for r landmarks and d features (the greedy
    k-means++ seeding tries ``2 + log r`` candidates per centre), whatever
    n_samples.

    Parameters
    ----------
    X : {ndarray, CSR matrix} of shape (n_samples, n_features)
        Validated training samples.

    n_landmarks : int
        Number of centres, at most n_samples.

    random_state : numpy.random.RandomState
        Draws the subsample and seeds k-means.

    Returns
    -------
    centres : ndarray of shape (n_landmarks, n_features)
        Dense, in the dtype of X. Coincident centres (data with fewer
        distinct points than landmarks) are kept: the Nystroem map treats
        them as one.
    """
    n_samples = X.shape[0]
    n_subsample = min(n_samples, KMEANS_SAMPLES_PER_LANDMARK * n_landmarks)
    if n_subsample < n_samples:
        X = X[np.sort(random_state.choice(n_samples, n_subsample, replace=False))]
    # One thread: KMeans merges the per-thread sums in no fixed order, and the
    # search is sensitive to the last bits of the kernel basis.
    with _get_threadpool_controller().limit(limits=1, user_api="openmp"):
        km = kmeans_run(X, n_landmarks, random_state, max_iter=KMEANS_ITERATIONS)
    return np.ascontiguousarray(km.cluster_centers_)
