"""The graph start: a spectral clustering of the rows, where it fits them
better than k-means.

The estimators start from clusterings close to k-means' (its clusters,
median splits, and the class-balance bound of ``class_balance="auto"``
set from k-means' sizes). Where k-means splits the data wrongly, so do
they: on unbalanced blobs after scaling (k-means errs 38-50 % on the
robustness suite's 1:4, 1:9 and 1:19 blobs, min-max scaled or
standardised) and on tf-idf text of topics that share their common words
(14 % on average over 22 corpora), every estimator erred as much. A
spectral clustering of a nearest-neighbour graph (as scikit-learn's
``SpectralClustering(affinity="nearest_neighbors")``) finds those clusters
(1-4 % and 6 %), and fails elsewhere: digit pairs whose classes share a
stroke (1v9: 43 %), text whose topics own their words, two moons seen
linearly, one-hot rows.

Neither is right everywhere, so the fit compares them twice. First by the
graph's own measure, the normalised cut that the spectral embedding
relaxes: where the graph's clustering cuts the graph no better than
k-means' labels, the relaxation missed, and k-means stays. Then by the
silhouette, the usual label-free measure of how well a clustering fits the
data (Rousseeuw, 1987: for each sample, ``(b - a) / max(a, b)`` with ``a``
its mean distance to its own cluster and ``b`` to the nearest other). The
graph's clustering replaces k-means' only where its silhouette is higher
by more than ``NOISE_STANDARD_ERRORS`` (3) standard errors of the mean of
the samples' paired differences, the level at which the class-balance
estimate takes a difference for real (:mod:`mmc._balance`); else nothing
changes. On the robustness suite it chose the graph on the unbalanced
blobs and on the corpora where k-means erred most, and kept k-means on
the digit pairs, the text whose topics own their words and the one-hot
rows (``bench/studies/graph_start.md``). The cut keeps k-means on the digit
pair 3v9, where the graph's clustering (about 30 nines of one style apart
from the rest) has the higher silhouette, and it changed no other case.

It serves the estimators whose bound holds the clusters' sizes (CPM3C's
coordinate descent, EvoMMC, FastEvoMMC, ODMC): the bound is then set
from the sizes of its start.

Both clusterings are computed on the rows the class-balance estimate sees
(at most ``SAMPLE_ROWS``, drawn at random beyond; none for sparse X with
more rows, see :func:`mmc._balance.estimate_sample`), fetched from the
blocks of a Dask array as for the estimate. The start is the means of the
graph's clusters: every row starts in the cluster of the nearest, in
memory and on blocks alike.
"""

import math

import numpy as np
import scipy.sparse as sp
from scipy.linalg import eigh
from scipy.sparse.linalg import ArpackError, eigsh

from mmc._balance import (
    KMEANS_RUNS,
    NOISE_STANDARD_ERRORS,
    kmeans_estimate,
    resolve_class_balance,
)
from mmc._core._graph import add_cluster_roots, grid_distances, nearest_rows
from mmc._kmeans import best_kmeans_centres, kernel_rows, nearest_centres
from mmc._rows import squared_norms
from mmc._starts import cluster_means
from mmc._threads import fit_threads, map_on_threads, pass_products

# Neighbours of each sample in the graph, itself included: scikit-learn's
# default for SpectralClustering(affinity="nearest_neighbors").
GRAPH_NEIGHBOURS = 10

# Bits of the squared distances kept below the largest: the distances are
# products computed by BLAS, which round differently on each CPU; on a grid
# this coarse the same rows give the same grid values (and so the same
# neighbours, ties going to the first row) unless a distance lies within
# rounding of a grid point.
_DISTANCE_BITS = 36


def balance_and_start(
    class_balance, X, n_clusters, balance_of, seed, graph=True, **options
):
    """:func:`mmc._balance.resolve_class_balance` for a fit without initial
    labels, and the centres of the graph start where it wins, else None.

    With ``class_balance="auto"`` and ``graph``, the k-means estimate of the
    balance (the same runs, on the same rows) is compared with the graph's
    clustering (:func:`graph_start`); where the graph wins, the bound is
    set from the sizes of its start on those rows. Where k-means wins, the
    bound is the one ``resolve_class_balance`` gives alone. ``options`` are
    those of ``resolve_class_balance`` (``take_rows``, ``sparse`` and
    ``kmeans_runs`` included: the rows of data held in blocks are fetched
    as for the estimate).

    Returns
    -------
    balance : float or tuple
        What ``resolve_class_balance`` returns.

    centres : ndarray of shape (n_clusters, n_features) or None
        The start of the graph: the means of its clusters, every row
        starting in the cluster of the nearest.
    """
    if class_balance != "auto" or not graph or options.get("labels") is not None:
        return resolve_class_balance(
            class_balance, X, n_clusters, balance_of, seed=seed, **options
        ), None
    options.pop("labels", None)
    sample = {
        key: options.pop(key)
        for key in ("take_rows", "sparse", "kmeans_runs")
        if key in options
    }
    estimate = kmeans_estimate(X, n_clusters, np.random.RandomState(seed), **sample)
    if estimate is None:  # sparse X of many rows: no estimate, no graph
        return resolve_class_balance(
            class_balance, X, n_clusters, balance_of, seed=seed, **sample, **options
        ), None
    centres, rows = estimate
    kmeans_labels = nearest_centres(rows, centres)
    start = graph_start(rows, kmeans_labels, n_clusters, seed)
    # The sizes of the estimate: those of the k-means labels of the sampled
    # rows, or of the graph start's.
    sizes_of = kmeans_labels if start is None else nearest_centres(rows, start)
    balance = resolve_class_balance(
        class_balance, X, n_clusters, balance_of, labels=sizes_of, **options
    )
    return balance, start


def graph_start(sample, kmeans_labels, n_clusters, seed):
    """The start of the graph's clustering of the sampled rows, if it cuts
    the graph better than k-means' labels (:func:`normalised_cut`) and its
    silhouette beats theirs by more than ``NOISE_STANDARD_ERRORS`` standard
    errors, else None.

    Parameters
    ----------
    sample : {ndarray, CSR matrix} of shape (n_rows, n_features)
        The rows of the class-balance estimate
        (:func:`mmc._balance.kmeans_estimate`).

    kmeans_labels : ndarray of shape (n_rows,)
        The k-means clustering of the sample.

    n_clusters : int
        Number of clusters.

    seed : int
        Seed of the estimate; the runs of k-means on the graph's embedding
        draw from ``np.random.RandomState(seed)``.

    Returns
    -------
    centres : ndarray of shape (n_clusters, n_features), dtype=float64, or None
        The means of the graph's clusters: every row of the data starts in
        the cluster of the nearest (in memory and on the blocks of a Dask
        array alike, at the cost of one pass).
    """
    n_rows = sample.shape[0]
    if n_rows <= 2 * GRAPH_NEIGHBOURS or n_clusters < 2:
        return None
    rows = SampleDistances(sample)
    affinity = neighbour_graph(rows)
    graph = spectral_labels(affinity, n_clusters, np.random.RandomState(seed))
    if np.unique(graph).size < n_clusters:
        return None
    # The spectral embedding relaxes the normalised cut of the graph; where
    # its clustering cuts the graph no better than k-means' labels do, the
    # relaxation missed and its clustering is not the graph's answer.
    if normalised_cut(affinity, graph, n_clusters) >= normalised_cut(
        affinity, kmeans_labels, n_clusters
    ):
        return None
    gain = np.subtract(*silhouettes(rows, (graph, kmeans_labels), n_clusters))
    if not paired_gain_is_real(gain):
        return None
    return cluster_means(sample, graph, n_clusters)


class _DistanceBlocks:
    """Pairwise distances of ``n_rows`` rows, a block of ``block_rows`` rows
    against every row at a time: a subclass gives ``blocks(starts)`` and the
    multiply-adds of a pass, ``pass_products``."""

    block_rows = 256

    def block_starts(self):
        """The first row of every block, in order."""
        return range(0, self.n_rows, self.block_rows)

    def visit_blocks(self, visit):
        """``visit(start, block)`` for every block, on the threads that
        :func:`mmc._threads.fit_threads` gives a pass of ``pass_products``
        multiply-adds: the blocks' products and kernels release the GIL.
        Each thread takes every n-th block into a buffer of its own;
        ``visit`` must write only the rows of its block, so the result is
        the same on any number of threads."""
        starts = self.block_starts()
        n_threads = fit_threads(len(starts), self.pass_products)

        def visit_share(first):
            for start, block in self.blocks(starts[first::n_threads]):
                visit(start, block)

        map_on_threads(visit_share, range(n_threads), n_threads)


class SampleDistances(_DistanceBlocks):
    """The squared distances ``|s_i - s_j|^2`` between the rows of S, a
    block of rows at a time (the m x m matrix is never held: its pages
    cost more than the arithmetic).

    In float64 throughout (float32 rows give the numbers of their float64
    copies), 0 on the diagonal, and in units of ``step``, a power of two
    ``_DISTANCE_BITS`` bits below a bound on the largest distance, rounded
    to whole units.
    """

    def __init__(self, S):
        if sp.issparse(S):
            self.S = kernel_rows(sp.csr_matrix(S, dtype=np.float64))
            self._transposed = self.S.T.tocsr()
        else:
            self.S = kernel_rows(np.asarray(S, dtype=np.float64))
            self._transposed = self.S.T
        self.n_rows = self.S.shape[0]
        self.pass_products = pass_products(self.S, self.n_rows)
        norms = squared_norms(self.S)  # the same on every CPU
        # |s_i - s_j| <= |s_i - c| + |s_j - c| for any c; c = the mean.
        mean = np.asarray(self.S.mean(axis=0)).ravel()
        spread = norms - 2.0 * np.asarray(self.S @ mean).ravel() + mean @ mean
        bound = 4.0 * float(np.maximum(spread, 0.0).max(initial=0.0))
        self.step = (
            math.ldexp(1.0, math.frexp(bound)[1] - _DISTANCE_BITS)
            if bound > 0.0
            else 1.0
        )
        # Scaled by powers of two, exactly: |s|^2 / step and -2 / step.
        self._norm_units = norms / self.step
        self._product_units = -2.0 / self.step

    def blocks(self, starts=None):
        """``(start, block)``: the distances, in units of ``step``, of rows
        ``start .. start + len(block)`` to every row, for each of
        ``starts`` (by default every block in order). Every block is
        written into the same array (a new one each time cost more in page
        faults than the products): use it before taking the next."""
        if starts is None:
            starts = self.block_starts()
        buffer = np.empty((min(self.block_rows, self.n_rows), self.n_rows))
        for start in starts:
            stop = min(start + self.block_rows, self.n_rows)
            block = buffer[: stop - start]
            if sp.issparse(self.S):
                (self.S[start:stop] @ self._transposed).toarray(out=block)
            else:
                np.matmul(self.S[start:stop], self._transposed, out=block)
            grid_distances(block, self._norm_units, self._product_units, start)
            yield start, block


class KernelDistances(_DistanceBlocks):
    """The squared distances ``K_ii + K_jj - 2 K_ij`` in the feature space of
    a precomputed kernel K between the samples, a block of rows at a time,
    as :class:`SampleDistances` gives them for rows (the rbf kernel's
    distances order neighbours as the rows' own do). Elementwise, no
    BLAS: the same on every CPU."""

    def __init__(self, K):
        # (A sparse K is taken as estimators take it: as its dense values;
        # the rule that builds the graph sees at most SAMPLE_ROWS rows.)
        K = K.toarray() if sp.issparse(K) else K
        self.K = np.asarray(K, dtype=np.float64)
        self.n_rows = self.K.shape[0]
        self.pass_products = self.n_rows * self.n_rows
        self._diagonal = np.diag(self.K).copy()

    def blocks(self, starts=None):
        """``(start, block)`` as :meth:`SampleDistances.blocks`."""
        if starts is None:
            starts = self.block_starts()
        for start in starts:
            stop = min(start + self.block_rows, self.n_rows)
            block = self._diagonal[start:stop, None] + self._diagonal[None, :]
            block -= 2.0 * self.K[start:stop]
            block[np.arange(stop - start), np.arange(start, stop)] = 0.0
            yield start, np.ascontiguousarray(block)


def neighbour_graph(distances):
    """The symmetric affinity ``(A + A') / 2`` of the ``GRAPH_NEIGHBOURS``
    nearest rows of each row (itself first), ties to the lower index, from
    a :class:`SampleDistances` (or :class:`KernelDistances`)."""
    n_rows = distances.n_rows
    k = min(GRAPH_NEIGHBOURS, n_rows)
    columns = np.empty((n_rows, k), dtype=np.intp)
    distances.visit_blocks(
        lambda start, block: nearest_rows(
            block, start, columns[start : start + block.shape[0]]
        )
    )
    indptr = np.arange(0, n_rows * k + 1, k)
    A = sp.csr_matrix((np.ones(n_rows * k), columns.ravel(), indptr), (n_rows, n_rows))
    return ((A + A.T) * 0.5).tocsr()


def spectral_labels(affinity, n_clusters, random_state):
    """Clusters of the normalised spectral embedding of the graph
    ``affinity`` (:func:`neighbour_graph`; Ng, Jordan and Weiss, 2002, as
    scikit-learn's SpectralClustering): the leading ``n_clusters``
    eigenvectors of ``D^-1/2 A D^-1/2``, scaled by ``D^-1/2``, clustered by
    the best of ``KMEANS_RUNS`` runs of k-means."""
    normalised, inverse_root = normalised_affinity(affinity)
    vectors = leading_eigenvectors(normalised, n_clusters)
    embedding = vectors * inverse_root[:, None]
    centres = best_kmeans_centres(embedding, n_clusters, random_state, KMEANS_RUNS)
    return nearest_centres(embedding, centres)


def normalised_affinity(affinity):
    """``D^-1/2 A D^-1/2`` of the graph ``affinity`` A, whose leading
    eigenvectors :func:`spectral_labels` embeds, and ``D^-1/2``'s diagonal
    (D: the degrees)."""
    inverse_root = 1.0 / np.sqrt(np.asarray(affinity.sum(axis=1)).ravel())
    return sp.diags(inverse_root) @ affinity @ sp.diags(inverse_root), inverse_root


def leading_eigenvectors(matrix, n_vectors):
    """The eigenvectors of the ``n_vectors`` largest eigenvalues of the
    symmetric sparse ``matrix``, by ARPACK, or by LAPACK's dense solver
    where ARPACK fails. Many equal eigenvalues, as duplicated rows give a
    graph, can stop ARPACK's restarts (error 3, or no convergence), and
    whether they do depends on the rounding of the BLAS it calls, so on the
    CPU and the thread count; the dense solve of the graph's at most
    ``SAMPLE_ROWS`` rows takes under a second."""
    n_rows = matrix.shape[0]
    try:
        # A fixed first vector: ARPACK's default is random.
        return eigsh(matrix, k=n_vectors, which="LA", v0=np.ones(n_rows))[1]
    except ArpackError:
        dense = matrix.toarray()
        return eigh(dense, subset_by_index=[n_rows - n_vectors, n_rows - 1])[1]


def normalised_cut(affinity, labels, n_clusters):
    """The normalised cut of the graph ``affinity`` by ``labels`` (Shi and
    Malik, 2000): the sum over clusters of the weight of the edges leaving
    the cluster over the weight of the edges of its samples (its volume).
    The weights of :func:`neighbour_graph` are halves, so the sums are
    exact and the cut the same on every CPU."""
    edges = affinity.tocoo()
    degrees = np.asarray(affinity.sum(axis=1)).ravel()
    volumes = np.bincount(labels, weights=degrees, minlength=n_clusters)
    inside = labels[edges.row] == labels[edges.col]
    within = np.bincount(
        labels[edges.row[inside]], weights=edges.data[inside], minlength=n_clusters
    )
    occupied = volumes > 0.0
    return float(np.sum((volumes[occupied] - within[occupied]) / volumes[occupied]))


def silhouettes(distances, labellings, n_clusters):
    """The silhouette of each sample (0 for a sample alone in its cluster)
    under each of ``labellings``, from a :class:`SampleDistances`: one pass
    over the distances sums each row's distances to every cluster of every
    labelling."""
    n_rows = distances.n_rows
    label_rows = np.array(labellings, dtype=np.intp)
    totals = np.zeros((n_rows, n_clusters * len(labellings)))
    # (In units of the distances: the silhouette is a ratio of them.)
    distances.visit_blocks(
        lambda start, block: add_cluster_roots(
            block, label_rows, n_clusters, totals[start : start + block.shape[0]]
        )
    )
    return [
        silhouette_values(totals[:, j * n_clusters : (j + 1) * n_clusters], labels)
        for j, labels in enumerate(labellings)
    ]


def silhouette_values(totals, labels):
    """Silhouette of each sample from ``totals``, the sums of its distances
    to the samples of each cluster (0 for a sample alone in its cluster)."""
    n_rows = labels.size
    sizes = np.bincount(labels, minlength=totals.shape[1]).astype(np.float64)
    own_size = sizes[labels]
    own = totals[np.arange(n_rows), labels]
    with np.errstate(divide="ignore", invalid="ignore"):
        mean_own = own / (own_size - 1.0)
        means = totals / sizes
    means[:, sizes == 0.0] = np.inf  # an empty cluster is nobody's nearest
    means[np.arange(n_rows), labels] = np.inf
    nearest_other = means.min(axis=1)
    widest = np.maximum(mean_own, nearest_other)
    with np.errstate(divide="ignore", invalid="ignore"):
        values = (nearest_other - mean_own) / widest
    values[(own_size <= 1.0) | ~np.isfinite(values)] = 0.0
    return values


def paired_gain_is_real(gain):
    """Whether the mean of ``gain`` exceeds ``NOISE_STANDARD_ERRORS``
    standard errors of it (a one-sided paired test)."""
    spread = float(gain.std(ddof=1))
    if not spread > 0.0:  # every sample gains the same
        return float(gain.mean()) > 0.0
    return float(gain.mean()) > NOISE_STANDARD_ERRORS * spread / math.sqrt(gain.size)
