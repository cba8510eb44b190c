"""k-means whose discrete choices do not hinge on rounding.

:func:`stable_kmeans` makes FastEvoMMC's landmarks and the k-cluster
EvoMMC's spectral starts, :func:`best_kmeans_centres` CPM3C's default start and the
class-balance estimate: their centres are the same for dense and CSR input,
sorted or not, and on every BLAS kernel (see the docstring of
:func:`stable_kmeans` for why scikit-learn's KMeans is not). The passes
over the samples (seeding distances, nearest centres, cluster sums) are the
kernels of :mod:`mmc._core._kmeans`; the Lloyd steps skip the samples whose
bounds prove their label (:class:`LloydBounds`), with the same result.
"""

import numpy as np
import scipy.sparse as sp

from mmc._core import _kmeans as _core
from mmc._rows import _with_int32_indices, rows
from mmc._threads import fit_threads, map_on_threads, pass_products

# The sums argument of _core.assign that skips the sums, and its bounds
# arguments (upper, lower, shifts) that go without bounds.
_NO_SUMS = np.zeros((0, 0))
_NO_BOUNDS = (np.zeros(0), np.zeros(0), np.zeros(0))


def squared_row_norms(X):
    """``|x_i|^2`` of every row of X (dense or CSR), in X's dtype's
    arithmetic, without BLAS."""
    if sp.issparse(X):
        return np.asarray(X.multiply(X).sum(axis=1), dtype=np.float64).ravel()
    return np.einsum("ij,ij->i", X, X)


def first_near_minimum(values, tol, axis):
    """Index of the first entry within ``tol`` of the minimum along ``axis``.

    ``tol`` bounds the rounding error of ``values``: entries closer than that
    to the minimum are indistinguishable from it, and the earliest of them is
    taken, so that the choice does not hinge on rounding.
    """
    lowest = values.min(axis=axis, keepdims=True)
    return np.argmax(values <= lowest + tol, axis=axis)


def _nearest_centres(
    X, norms, centres, rel, sums=_NO_SUMS, labels=None, columns=None, bounds=None
):
    """Nearest centre of each sample, ties within rounding to the first.

    Returns the labels (int32), ``|c|^2 - 2 x.c`` for the nearest centre c
    (the squared distance without ``|x|^2``, the same for every centre) and
    the number of labels that differ from ``labels`` (the previous labels,
    overwritten; all samples count without them). Every sample is added to
    the row of its label in ``sums`` (see :func:`mmc._core._kmeans.assign`).
    ``columns`` is X in CSC form from :func:`_column_form`, or None: the
    same numbers either way, only faster on wide sparse data. ``bounds``
    (only without ``columns``) is a :class:`LloydBounds` of the previous
    pass with these labels: samples it proves to keep their label are not
    compared with the centres (their ``|c|^2 - 2 x.c`` is then stale), with
    the same labels and sums.
    """
    n_samples, n_clusters = X.shape[0], centres.shape[0]
    centre_norms = np.einsum("ij,ij->i", centres, centres)
    if labels is None:
        labels = np.full(n_samples, -1, dtype=np.int32)
    nearest = np.empty(n_samples)
    args = (np.ascontiguousarray(centres.T), centre_norms, rel, labels, nearest, sums)
    if columns is None:
        bound_args = _NO_BOUNDS if bounds is None else bounds.arguments(centres)
        n_changed = _core.assign(*rows(X), norms, *args, *bound_args)
    else:
        scores = np.empty((n_samples, n_clusters))
        n_changed = _core.assign_columns(
            columns.data,
            columns.indices,
            columns.indptr,
            n_samples,
            norms,
            *args,
            scores,
        )
    return labels, nearest, n_changed


class LloydBounds:
    """Hamerly's bounds of a run of Lloyd steps (``mmc._core._kmeans.assign``).

    Each sample's distance to the centre of its label is bounded above and
    its distances to the other centres below; a centre that moves by s
    moves them by at most s. Where the bounds prove that a sample keeps its
    label, the step does not compare it with the centres (the ten runs of
    k-means on the ten digits, k = 10, took 0.046 s instead of 0.055 s).
    The labels and sums are those of every sample compared, to the last bit
    (the bounds allow for the rounding tolerance of the labels).
    """

    def __init__(self, n_samples, n_features):
        self.upper = np.empty(n_samples)
        self.lower = np.empty(n_samples)
        self._rel = relative_rounding_bound(n_features)
        self._previous = None

    def arguments(self, centres):
        """(upper, lower, shifts) for a pass with ``centres``; the shifts
        (empty on the first pass) bound how far each centre moved since
        the last pass, allowing for the rounding of the distance."""
        previous, self._previous = self._previous, centres.copy()
        if previous is None:
            return self.upper, self.lower, np.zeros(0)
        moves = centres - previous
        shifts = np.sqrt(np.einsum("ij,ij->i", moves, moves))
        return self.upper, self.lower, shifts * (1.0 + self._rel)


def _column_form(X):
    """X in CSC form for :func:`mmc._core._kmeans.assign_columns` if X is
    sparse and wider than long (the centres, read once a pass by columns,
    are then larger than the products gathered), else None."""
    if not sp.issparse(X) or X.shape[1] <= X.shape[0]:
        return None
    # From canonical CSR, the row indices of each column come out sorted.
    return _with_int32_indices(sp.csc_matrix(X))


def rounding_scale(X):
    """X as the kernels read it (C-contiguous, or CSR in canonical form),
    its squared row norms in float64, and the relative bound ``rel`` on the
    rounding error of its squared distances (see :func:`stable_kmeans`).

    float32 X stays float32: the kernels compute in float64 whatever the
    input dtype, and every float32 value is exactly a float64 one, so the
    numbers are those of a float64 copy, which would take twice the memory
    of X (of each block of a Dask array, on its worker). Other dtypes
    become float64.
    """
    X = kernel_rows(X)
    return X, _float64_row_norms(X), relative_rounding_bound(X.shape[1])


def kernel_rows(X):
    """X as the kernels read it, the first output of :func:`rounding_scale`
    (for rows whose norms are known)."""
    if sp.issparse(X):
        X = _with_int32_indices(sp.csr_matrix(X, dtype=_kernel_dtype(X.dtype)))
        if not X.has_canonical_format:  # sorted indices, no duplicates
            X = X.copy()
            X.sum_duplicates()
        return X
    return np.ascontiguousarray(X, dtype=_kernel_dtype(X.dtype))


def _kernel_dtype(dtype):
    return dtype if dtype in (np.float32, np.float64) else np.float64


# Rows of float32 X converted to float64 at a time for their norms: 4 MB.
_NORM_CHUNK_BYTES = 2**22


def _float64_row_norms(X):
    """:func:`squared_row_norms` of X converted to float64, without
    converting all of X at once (the same numbers: NumPy computes each
    row's norm alone). Not the ``row_sq_norms`` kernel, which needs no
    conversion: its sums in the order of the features round differently
    from NumPy's, and the k-means of float32 X would no longer be that of
    its float64 copy to the last bit."""
    if X.dtype == np.float64:
        return squared_row_norms(X)
    if sp.issparse(X):
        data = X.data.astype(np.float64)
        return squared_row_norms(sp.csr_matrix((data, X.indices, X.indptr), X.shape))
    step = max(1, _NORM_CHUNK_BYTES // (8 * max(1, X.shape[1])))
    norms = np.empty(X.shape[0])
    for start in range(0, X.shape[0], step):
        norms[start : start + step] = squared_row_norms(
            X[start : start + step].astype(np.float64)
        )
    return norms


def relative_rounding_bound(n_features):
    """``rel``: the rounding error of a squared distance ``|x|^2 - 2 x.c +
    |c|^2`` computed in float64 over ``n_features`` features is below
    ``rel / 2 (|x|^2 + |c|^2)`` (see :func:`stable_kmeans`)."""
    return 4.0 * (n_features + 2) * np.finfo(np.float64).eps


def nearest_centres(X, centres):
    """Nearest of ``centres`` to each sample, ties within rounding to the
    first centre: the same labels on every BLAS kernel."""
    X, norms, rel = rounding_scale(X)
    centres = np.asarray(centres, dtype=np.float64)
    return _nearest_centres(X, norms, centres, rel)[0].astype(np.intp)


def squared_distances(X, centre):
    """``|x_i - c|^2`` of every sample to one centre, as ``|x|^2 - 2 x.c +
    |c|^2`` with the products of :func:`nearest_centres`: no BLAS and no
    dense copy of a sparse X; dense and CSR X give the same numbers up to
    the rounding of ``|x|^2``."""
    X, norms, rel = rounding_scale(X)
    centre = np.asarray(centre, dtype=np.float64).reshape(1, -1)
    partial = _nearest_centres(X, norms, centre, rel)[1]  # |c|^2 - 2 x.c
    return norms + partial


def stable_kmeans(X, n_clusters, random_state, max_iter):
    """Centres of a short k-means run whose choices do not hinge on rounding.

    Greedy k-means++ seeding (``2 + log k`` candidates per centre, the one
    lowering the potential most is kept, as in scikit-learn) and at most
    ``max_iter`` Lloyd iterations. Unlike :class:`sklearn.cluster.KMeans`,
    whose choices follow the rounding of its BLAS kernel and its input
    representation (it centres dense data but not sparse data), every
    discrete choice here treats values within a bound on their rounding
    error as tied and takes the first of them: the nearest centre of a
    sample, the best candidate of the seeding, the distances that count as
    zero. On data with exact ties, such as pixel intensities, that is what
    makes the centres the same for dense and CSR input (sorted or not),
    float32 and float64 values exactly representable in float32, and every
    BLAS kernel (measured on the digit pairs: the centres of KMeans differed
    between OpenBLAS kernels on 23 of 45 pairs, and between dense and CSR
    input on 34).

    The squared distance ``|x|^2 - 2 x.c + |c|^2`` is computed with an
    error below ``2 (d + 2) eps (|x|^2 + |c|^2)`` for d features; two
    evaluations (other kernel, other representation) differ by at most
    twice that, the tolerance used.

    The products ``x.c`` are not computed through BLAS but by the kernels of
    :mod:`mmc._core._kmeans`, one thread, each product summed in the order
    of the features without fused multiply-add: the same numbers for dense
    and CSR input, float32 and float64, whatever the BLAS kernel and the
    number of threads. What still rounds differently across CPUs and NumPy
    versions (the squared norms of the samples and centres, computed by
    NumPy with SIMD, and the sums of the seeding's potentials) stays within
    the bound above, which the tolerance covers as it covered BLAS's
    products before. The cluster sums are accumulated in the order of the
    samples, so equal labels give centres equal to the last bit.

    Parameters
    ----------
    X : {ndarray, CSR matrix} of shape (n_samples, n_features)
        Samples (computed on in float64).

    n_clusters : int
        Number of centres, at most n_samples.

    random_state : numpy.random.RandomState
        Draws the seeding.

    max_iter : int
        Maximum number of Lloyd iterations.

    Returns
    -------
    centres : ndarray of shape (n_clusters, n_features), dtype=float64
        Coincident centres are possible when X has fewer distinct rows than
        n_clusters. An empty cluster keeps its centre.
    """
    X, norms, rel = rounding_scale(X)
    draws = seeding_draws(random_state, X.shape[0], n_clusters)
    # The Lloyd iterations' column form (a CSC copy of sparse X), if any.
    columns = _column_form(X) if max_iter > 0 else None
    return _stable_kmeans(X, norms, rel, n_clusters, draws, max_iter, columns)


def seeding_draws(random_state, n_samples, n_clusters):
    """The random numbers of a k-means++ seeding, in the order it uses them:
    the index of the first centre, then ``2 + log k`` numbers in [0, 1) for
    each further centre. Drawn ahead of the run, so that runs drawn one
    after the other can be computed on threads."""
    n_trials = 2 + int(np.log(n_clusters))
    first = random_state.randint(n_samples)
    uniforms = [random_state.uniform(size=n_trials) for _ in range(n_clusters - 1)]
    return first, uniforms


def _stable_kmeans(X, norms, rel, n_clusters, draws, max_iter, columns):
    """:func:`stable_kmeans` on X already prepared by :func:`rounding_scale`
    and :func:`_column_form`, seeded with :func:`seeding_draws`."""
    n_samples, n_features = X.shape
    top_norm = float(norms.max(initial=0.0))
    X_rows = rows(X)

    def distances_to_rows(candidates, closest):  # (len(candidates), n_samples)
        rows_T = X[candidates].T
        rows_T = rows_T.toarray() if sp.issparse(rows_T) else rows_T
        D = np.empty((len(candidates), n_samples))
        _core.seed_distances(
            *X_rows,
            norms,
            np.ascontiguousarray(rows_T, dtype=np.float64),
            norms[candidates],
            rel,
            closest,
            D,
        )
        return D

    # k-means++ seeding.
    first, uniforms = draws
    chosen = np.empty(n_clusters, dtype=np.intp)
    chosen[0] = first
    closest = distances_to_rows(chosen[:1], np.full(n_samples, np.inf))[0]
    for c in range(1, n_clusters):
        potential = float(closest.sum())
        candidates = np.searchsorted(np.cumsum(closest), uniforms[c - 1] * potential)
        np.clip(candidates, None, n_samples - 1, out=candidates)
        D = distances_to_rows(candidates, closest)
        potentials = D.sum(axis=1)
        tol = seeding_tolerance(rel, norms.sum(), n_samples, top_norm, potentials)
        best = int(first_near_minimum(potentials, tol, axis=0))
        chosen[c] = candidates[best]
        closest = D[best]
    centres = X[chosen]
    centres = centres.toarray() if sp.issparse(centres) else centres
    centres = centres.astype(np.float64)  # (a copy)

    # Lloyd iterations: each assignment also sums the clusters it makes, in
    # the order of the samples; the sums of the last one (no label changed)
    # go unused.
    labels = None
    sums = np.empty((n_clusters, n_features))
    # (The passes by columns take no bounds.)
    bounds = LloydBounds(n_samples, n_features) if columns is None else None
    for _ in range(max_iter):
        sums.fill(0.0)
        labels, _, n_changed = _nearest_centres(
            X, norms, centres, rel, sums, labels, columns, bounds
        )
        if n_changed == 0:
            break
        counts = np.bincount(labels, minlength=n_clusters)
        # In place, without copies of the (k, d) arrays (wide for sparse X).
        np.divide(sums, counts[:, None], out=centres, where=counts[:, None] > 0)
    return centres


def best_kmeans_centres(X, n_clusters, random_state, n_runs, max_iter=300):
    """Centres of the best of ``n_runs`` runs of :func:`stable_kmeans`.

    The runs are drawn one after the other from ``random_state``, and the one
    with the lowest inertia (sum of squared distances of the samples to
    their nearest centre) wins, as with ``KMeans(n_init=n_runs)``; inertias
    within a bound on their rounding error of the lowest count as tied and
    the first run among them wins, so that the choice is the same on every
    BLAS kernel. The labels are never consulted.

    Returns
    -------
    centres : ndarray of shape (n_clusters, n_features), dtype=float64
    """
    return KMeansRuns(X, n_clusters, random_state, max_iter).best(n_runs)


class KMeansRuns:
    """The runs of :func:`best_kmeans_centres` on X, each computed once.

    ``best(m)`` is ``best_kmeans_centres(X, n_clusters, random_state, m)``
    for the generator as it was given, to the last bit, for any m: the runs
    drawn for a smaller m are kept and the next ones drawn after them. A
    fit whose class-balance estimate and k-means start (the best of 10 runs
    each, on every row) draw from the same seed computes 10 runs instead of
    20.
    """

    def __init__(self, X, n_clusters, random_state, max_iter=300):
        self._X, self._norms, self._rel = rounding_scale(X)
        self._columns = _column_form(self._X)
        self._n_clusters = n_clusters
        self._random_state = random_state
        self._max_iter = max_iter
        self._norm_sum = self._norms.sum()
        self._runs, self._inertias, self._bounds = [], [], []

    def best(self, n_runs):
        """Centres of the best of the first ``n_runs`` runs."""
        self.compute(n_runs)
        return best_run(
            self._runs[:n_runs], self._inertias[:n_runs], self._bounds[:n_runs]
        )

    def compute(self, n_runs):
        """Compute the first ``n_runs`` runs, those not computed yet on
        threads (:func:`mmc._threads.fit_threads`): their seedings are drawn first,
        one after the other, so the runs are those of one thread."""
        X, n_clusters = self._X, self._n_clusters
        draws = [
            seeding_draws(self._random_state, X.shape[0], n_clusters)
            for _ in range(n_runs - len(self._runs))
        ]
        n_threads = fit_threads(len(draws), pass_products(X, n_clusters))
        for centres, inertia, bound in map_on_threads(self._run, draws, n_threads):
            self._runs.append(centres)
            self._inertias.append(inertia)
            self._bounds.append(bound)

    def _run(self, draws):
        """One run: its centres, inertia and the inertia's rounding bound."""
        X, norms, rel = self._X, self._norms, self._rel
        centres = _stable_kmeans(
            X, norms, rel, self._n_clusters, draws, self._max_iter, self._columns
        )
        nearest = _nearest_centres(X, norms, centres, rel, columns=self._columns)[1]
        inertia = float(np.maximum(norms + nearest, 0.0).sum())
        bound = inertia_bound(rel, self._norm_sum, X.shape[0], centres, inertia)
        return centres, inertia, bound


def seeding_tolerance(rel, norm_sum, n_samples, top_norm, potentials):
    """The rounding bound of the seeding's candidate potentials: each sums
    n distances, each within ``rel (|x|^2 + |c|^2)`` of its exact value
    (``norm_sum`` the sum of the samples' ``|x|^2``, ``top_norm`` the
    largest), with a summation error below n eps times the sum."""
    return rel * (norm_sum + n_samples * top_norm) + (
        2.0 * n_samples * np.finfo(np.float64).eps * potentials.max()
    )


def inertia_bound(rel, norm_sum, n_samples, centres, inertia):
    """The rounding bound of a run's inertia: each distance within
    ``rel (|x|^2 + |c|^2)`` of its exact value, and the sum of the n of
    them within n eps of itself."""
    centre_norms = np.einsum("ij,ij->i", centres, centres)
    bound = rel * (norm_sum + n_samples * centre_norms.max(initial=0.0))
    return bound + n_samples * np.finfo(np.float64).eps * inertia


def best_run(runs, inertias, bounds):
    """The run of lowest inertia, the first among those tied within twice
    the largest rounding bound (the same on every BLAS kernel)."""
    tol = 2.0 * max(bounds)
    return runs[int(first_near_minimum(np.array(inertias), tol, axis=0))]
