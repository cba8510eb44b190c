"""Initial labellings for the restarts of the two-cluster estimators.

Maximum margin clustering is non-convex, so the solvers start from several
labellings and keep the run with the lowest objective. The starts are

* ``"pca"``: split at the median of the projections on the principal
  direction of the centred data (randomised subspace iteration, O(nnz) per
  pass, no dense copy of sparse data);
* ``"kmeans"``: the two clusters of one run of k-means
  (:func:`mmc._kmeans.best_kmeans_centres`, the same on every BLAS kernel,
  thread count and input format), or for ODMC of the best of 10 runs on a
  sample (``sampled_kmeans`` of :func:`initial_signs`);
* ``"random"``: split at the median of the projections on a random Gaussian
  direction.

Median splits give balanced starts, which the class balance constraint of
the solvers would ask for anyway.
"""

import numpy as np
import scipy.sparse as sp

from mmc._balance import kmeans_estimate
from mmc._kmeans import best_kmeans_centres, nearest_centres, stable_kmeans
from mmc._labelling import median_split
from mmc._rows import decision_values

# Subspace iteration for the principal direction: block size (1 + oversampling)
# and number of power iterations. The start and the scale of C need a good
# direction and eigenvalue, not an exact eigenvector, and each power iteration
# costs two passes over X.
_PCA_OVERSAMPLING = 2
_PCA_POWER_ITERATIONS = 4


def start_methods(init, n_init):
    """Initialisation method of each restart.

    ``"auto"`` gives the principal direction, then k-means, then random
    directions; a single method name repeats it.
    """
    if init == "auto":
        return [("pca", "kmeans")[i] if i < 2 else "random" for i in range(n_init)]
    return [init] * n_init


def initial_signs(X, method, random_state, principal, sampled_kmeans=False):
    """Initial labelling of the samples as +1 / -1.

    Parameters
    ----------
    X : {ndarray, CSR matrix} of shape (n_samples, n_features)
        Validated data.

    method : {"pca", "kmeans", "random"}
        Initialisation method.

    random_state : numpy.random.RandomState
        Source of randomness of this restart.

    principal : ndarray of shape (n_features,)
        Principal direction of the data (see :func:`principal_direction`),
        computed once per fit.

    sampled_kmeans : bool, default=False
        A ``"kmeans"`` start takes the clustering of the class-balance
        estimate's rule (:func:`mmc._balance.kmeans_estimate`: the best of
        10 runs, as ``KMeans(n_init=10)``, on at most 2000 sampled rows,
        every row labelled by its centres) instead of one run on every row.
        ODMC's starts form one working set, so the k-means member's quality
        counts, not the variety that restarts draw from a single run:
        over five seeds of the robustness suite's 57 two-class cases its
        mean error was 11.77 % against 12.64 % from one run, while
        MultivariateMMC's restarts lost the moons (rbf) at two of the five
        (``bench/studies/kmeans_starts.md``).

    Returns
    -------
    signs : ndarray of shape (n_samples,), dtype=int8
    """
    if method == "kmeans":
        # scikit-learn's KMeans rounds with the BLAS kernel and the number of
        # OpenMP threads (its centres differed in the last bits between one
        # and two threads on every one of 108 data sets tried), and on data
        # with exact ties, such as pixels, rounding moves its labels.
        estimate = kmeans_estimate(X, 2, random_state) if sampled_kmeans else None
        if estimate is None:  # one run; also for sparse X of many rows
            return nearest_signs(X, best_kmeans_centres(X, 2, random_state, 1))
        return nearest_signs(X, estimate[0])
    if method == "pca":
        direction = principal
    else:
        direction = random_state.standard_normal(X.shape[1])
    return median_split(decision_values(X, direction, 0.0))


def nearest_signs(X, centres):
    """The ``"kmeans"`` start's signs from two centres: +1 where the second
    is nearer (ties within rounding go to the first), else -1."""
    return np.where(nearest_centres(X, centres) == 1, 1, -1).astype(np.int8)


def principal_direction(X, x_mean, random_state):
    """Leading right singular vector of the centred data ``X - x_mean``.

    Returns
    -------
    direction : ndarray of shape (n_features,), unit norm
    """
    return principal_directions(X, x_mean, 1, random_state)[0]


def principal_directions(X, x_mean, n_directions, random_state):
    """Leading right singular vectors of the centred data ``X - x_mean``.

    Randomised subspace iteration (Halko, Martinsson and Tropp, 2011) with
    the centring applied implicitly, so that sparse X stays sparse.

    Returns
    -------
    directions : ndarray of shape (n_directions, n_features)
        Unit rows, in decreasing order of the variance along them (fewer
        rows when X has fewer features).
    """
    n_features = X.shape[1]
    dtype = X.dtype
    mean = x_mean.astype(dtype)

    def centred_times(Q):  # (X - mean) @ Q, an (n_samples, block) array
        Y = np.asarray(X @ Q)
        Y -= mean @ Q
        return Y

    def centred_t_times(Y):  # (X - mean).T @ Y, centred column by column
        Q = np.asarray(X.T @ Y)
        for j, total in enumerate(Y.sum(axis=0)):
            Q[:, j] -= total * mean
        return Q

    block = min(n_directions + _PCA_OVERSAMPLING, n_features)
    Q = random_state.standard_normal((n_features, block)).astype(dtype)
    for _ in range(_PCA_POWER_ITERATIONS):
        # Orthonormalising the small (n_features, block) side is enough to
        # keep the block well conditioned; the tall side is left alone.
        Q = centred_t_times(centred_times(Q))
        _orthonormalise_columns(Q)
    _, _, vt = np.linalg.svd(centred_times(Q), full_matrices=False)
    directions = np.empty((min(n_directions, vt.shape[0]), n_features))
    # One product per direction rather than Q @ vt.T: the same rounding as a
    # single direction, so that the starts of every estimator stay the same.
    for j, direction in enumerate(directions):
        direction[:] = Q @ vt[j]
        norm = np.linalg.norm(direction)
        if norm > 0:
            direction /= norm
    return directions


def _orthonormalise_columns(Q):
    """Orthonormalise the few columns of Q in place (Gram-Schmidt, twice).

    Unlike ``numpy.linalg.qr`` this needs no copy of Q, which matters when Q
    has as many rows as a large sparse X has features. Columns that vanish
    are left at zero.
    """
    for _ in range(2):
        for j in range(Q.shape[1]):
            for i in range(j):
                Q[:, j] -= (Q[:, i] @ Q[:, j]) * Q[:, i]
            norm = np.linalg.norm(Q[:, j])
            if norm > 0:
                Q[:, j] /= norm


def principal_component(X, x_mean, random_state):
    """Principal direction of the data and the variance along it.

    Returns
    -------
    direction : ndarray of shape (n_features,), unit norm

    variance : float
        Variance of the projections of X on ``direction``, the largest
        eigenvalue of the covariance of X; 1.0 when the rows coincide, so
        that dividing by it is always safe.
    """
    direction = principal_direction(X, x_mean, random_state)
    projections = decision_values(X, direction, -float(direction @ x_mean))
    variance = float(projections @ projections) / X.shape[0]
    # Rows that coincide leave only rounding noise, far below the mean.
    if not variance > 1e-20 * float(x_mean @ x_mean):
        variance = 1.0
    return direction, variance


# Initialisations of the multiclass estimator, in the order "auto" uses them.
MULTICLASS_INIT_METHODS = ("kmeans", "k-means++", "pca", "random")

# Runs of k-means behind the "kmeans" start of the multiclass estimator, the
# best by inertia: the clustering KMeans(n_init=10) users would compare with.
# From one run instead, the multiclass suite's mean error was 6.65% against
# 4.92% (ten digits 29.7% against 18.3%, text with 10 topics 18.9% against
# 3.2%; bench/studies/cpm3c_speed.md).
MULTICLASS_KMEANS_RUNS = 10


def multiclass_start_methods(init, n_init):
    """Initialisation method of each restart of a k-cluster estimator.

    ``"auto"`` gives k-means, k-means++ seeding, quantiles along the
    principal direction, then random samples as centres.
    """
    if init == "auto":
        return [
            MULTICLASS_INIT_METHODS[min(i, len(MULTICLASS_INIT_METHODS) - 1)]
            for i in range(n_init)
        ]
    return [init] * n_init


def cluster_sums(X, labels, n_clusters):
    """Sum of the rows of each cluster, as a dense (n_clusters, n_features)
    float64 array, and the number of rows of each."""
    onehot = sp.csr_matrix(
        (np.ones(X.shape[0]), (labels, np.arange(X.shape[0]))),
        shape=(n_clusters, X.shape[0]),
    )
    sums = onehot @ X
    if sp.issparse(sums):
        sums = sums.toarray()
    return np.asarray(sums, dtype=np.float64), np.asarray(onehot.sum(axis=1)).ravel()


def means_of_sums(sums, counts, overall):
    """Cluster means from their :func:`cluster_sums`; an empty cluster
    gets ``overall`` (the mean of all rows)."""
    return np.where(counts[:, None] > 0, sums / np.maximum(counts, 1)[:, None], overall)


def cluster_means(X, labels, n_clusters):
    """Mean of the rows of each cluster, as a dense (n_clusters, n_features) array.

    An empty cluster gets the mean of all rows.
    """
    sums, counts = cluster_sums(X, labels, n_clusters)
    overall = np.asarray(X.mean(axis=0), dtype=np.float64).ravel()
    return means_of_sums(sums, counts, overall)


def initial_centres(X, x_mean, method, random_state, n_clusters, principal):
    """Initial cluster centres of a k-cluster restart.

    Parameters
    ----------
    X : {ndarray, CSR matrix} of shape (n_samples, n_features)
        Validated data.

    x_mean : ndarray of shape (n_features,)
        Mean of the rows of X.

    method : {"kmeans", "k-means++", "pca", "random"}
        ``"kmeans"``: the best of ``MULTICLASS_KMEANS_RUNS`` runs of k-means
        by inertia (:func:`mmc._kmeans.best_kmeans_centres`, the same on every
        BLAS kernel); ``"k-means++"``: the k-means++ seeding of those runs
        only (:func:`mmc._kmeans.stable_kmeans` with ``max_iter=0``);
        ``"pca"``: means of the k quantile bins of the projections on the
        principal direction; ``"random"``: k distinct random samples.

    random_state : numpy.random.RandomState
        Source of randomness of this restart.

    n_clusters : int
        Number of clusters.

    principal : ndarray of shape (n_features,)
        Principal direction of the data, computed once per fit.

    Returns
    -------
    centres : ndarray of shape (n_clusters, n_features), dtype=float64
    """
    if method == "kmeans":
        return best_kmeans_centres(X, n_clusters, random_state, MULTICLASS_KMEANS_RUNS)
    if method == "k-means++":
        # The seeding of the "kmeans" start's runs, without their Lloyd
        # iterations.
        return stable_kmeans(X, n_clusters, random_state, max_iter=0)
    if method == "pca":
        projections = decision_values(X, principal, 0.0)
        order = np.argsort(projections, kind="stable")
        labels = np.empty(X.shape[0], dtype=np.intp)
        labels[order] = np.arange(X.shape[0]) * n_clusters // X.shape[0]
        return cluster_means(X, labels, n_clusters)
    rows = random_state.choice(X.shape[0], size=n_clusters, replace=False)
    return _dense(X[rows])


def _dense(rows):
    """A few rows of X as a dense float64 array."""
    return np.asarray(rows.toarray() if sp.issparse(rows) else rows, dtype=np.float64)
