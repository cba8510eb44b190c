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

import math
from collections import namedtuple

import numpy as np
import scipy.linalg
import scipy.sparse as sp

from mmc._kmeans import stable_kmeans

# FastEvoMMC's landmarks are chosen on a random subsample of at most this
# many samples per landmark, so that choosing them costs a time independent
# of n (the kernel between the samples and the landmarks costs O(n r d)):
# k-means++ seeding and this many Lloyd iterations, or the leading singular
# vectors of the subsample for the linear kernel.
KMEANS_ITERATIONS = 3
SAMPLES_PER_LANDMARK = 10

# Rows of X that FastEvoMMC's basis maps and projects at a time
# (nystroem_basis): memory of one n x r float64 array instead of two (a
# fit on 10^6 x 50 float32 rows, r = 300: 5,151 -> 2,811 MB beyond X;
# bench/studies/fastevommc_memory.md). Data of one block are computed by
# the products of the whole, as before.
BASIS_BLOCK_ROWS = 1 << 16


def row_blocks(n_rows, block_rows=None):
    """Slices of at most ``block_rows`` consecutive rows (by default
    :data:`BASIS_BLOCK_ROWS`)."""
    block_rows = block_rows or BASIS_BLOCK_ROWS
    return [
        slice(start, min(start + block_rows, n_rows))
        for start in range(0, n_rows, block_rows)
    ]


def absolute_column_sums(V):
    """``np.abs(V).sum(axis=0)`` of a 2-D V, the blocks of
    :func:`row_blocks` one at a time: no n x r temporary beyond one block
    (and, with one block, the very same sums)."""
    sums = np.zeros(V.shape[1])
    for rows in row_blocks(V.shape[0]):
        sums += np.abs(V[rows]).sum(axis=0)
    return sums


class Basis(namedtuple("Basis", ["V", "weights", "sigma"])):
    """Spectral summary of a kernel matrix for a regularisation ``reg``.

    ``V`` (n_samples, n_components) has orthonormal columns spanning the
    numerical range of the kernel matrix ``K = V diag(sigma) V'``, and
    ``weights = sigma / (sigma + n reg)``.
    """


def spectral_basis(V, sigma, reg, overwrite_v=False):
    """Keep the numerically non-zero part of ``V diag(sigma) V'``.

    Eigenvalues below ``n * eps * max(sigma)`` are rounding noise of the
    kernel matrix (they may even be negative); their components are dropped,
    which changes no fitness by more than that relative amount but makes
    every flip cost O(rank) instead of O(n).

    With ``overwrite_v``, a C-contiguous float64 V whose components are all
    kept and already sorted is rounded in place and returned as the basis's
    V, instead of being copied: V is n x r, the largest array of a
    FastEvoMMC fit, and a copy would double its peak memory.

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
    in_place = (
        overwrite_v
        and V.dtype == np.float64
        and V.flags.c_contiguous
        and np.array_equal(order, np.arange(V.shape[1]))
    )
    if not in_place:
        V = np.ascontiguousarray(V[:, order], dtype=np.float64)  # a new array
    V = fixed_point(V, overwrite=True)
    weights = sigma / (sigma + n_samples * reg)
    return Basis(V, weights, sigma)


def fixed_point(V, overwrite=False):
    """Round ``V`` to a grid on which the coordinates ``V'y`` are exact.

    The search keeps ``u = V'y`` for each labelling y in {-1, +1}^n and
    updates it by ``-2 y_i V[i]`` per flip, and compares fitnesses computed
    from u. In floating point the same labelling reached along two paths (or
    computed by BLAS on two kernels, which sum in different orders) gets
    coordinates, hence fitnesses, that differ in the last bits, and the
    selection then orders two copies of one labelling by rounding noise
    (measured: every near-tie of the selection on a digit pair was between
    copies of one labelling). On a grid of ``2**-k`` every value the search
    forms, ``sum_i c_i V[i]`` with integer ``c_i`` and magnitude at most
    ``3 max_j sum_i |V_ij|`` (a labelling's coordinates plus a mutation's
    change), is an integer multiple of ``2**-k`` below ``2**53 * 2**-k``,
    hence exact in float64 whatever the order of the sums: the coordinates,
    and the fitness computed from them, depend on the labelling alone. The
    grid is chosen as fine as that allows (with one bit of margin), which
    moves each entry by at most ``3 sqrt(n) 2**-54`` (relative error about
    ``n * 1e-16`` for entries of size ``n**-0.5``).

    With ``overwrite`` V (float64) is rounded in place, without the two
    temporaries of its size that the expression would allocate.
    """
    bound = 3.0 * float(absolute_column_sums(V).max(initial=0.0))
    if not bound > 0.0:
        return V
    _, exponent = math.frexp(bound)  # bound < 2**exponent
    k = 52 - exponent
    if not overwrite:
        return np.ldexp(np.rint(np.ldexp(V, k)), -k)
    # The same elementwise operations, so the same values.
    np.ldexp(V, k, out=V)
    np.rint(V, out=V)
    np.ldexp(V, -k, out=V)
    return V


def all_rows_identical(X):
    """Whether every sample equals every other (nothing to split)."""
    if sp.issparse(X):
        return bool((X.max(axis=0) != X.min(axis=0)).nnz == 0)
    return bool((X.max(axis=0) == X.min(axis=0)).all())


def duplicate_representatives(X):
    """For each sample, the index of the first sample with the same row.

    Returns None when every row is distinct.
    """
    n_samples = X.shape[0]
    if sp.issparse(X):
        if not X.has_canonical_format:  # sorted indices, no duplicates
            X = X.copy()
            X.sum_duplicates()
        first = {}
        rep = np.empty(n_samples, dtype=np.intp)
        for i in range(n_samples):
            lo, hi = X.indptr[i], X.indptr[i + 1]
            key = X.indices[lo:hi].tobytes() + X.data[lo:hi].tobytes()
            rep[i] = first.setdefault(key, i)
    else:
        # Rows hashed by their bits (a sum of the words times fixed odd
        # multipliers, modulo 2**64), equal hashes checked row by row.
        X = np.ascontiguousarray(X)
        words = X.view(np.uint64 if X.dtype.itemsize == 8 else np.uint32)
        multipliers = np.random.RandomState(0).randint(
            1, np.iinfo(np.int64).max, size=X.shape[1], dtype=np.int64
        ).astype(np.uint64) | np.uint64(1)
        hashes = np.empty(n_samples, dtype=np.uint64)
        for start in range(0, n_samples, 4096):
            block = words[start : start + 4096].astype(np.uint64)
            hashes[start : start + 4096] = (block * multipliers).sum(axis=1)
        order = np.argsort(hashes, kind="stable")  # equal hashes by index
        sorted_hashes = hashes[order]
        starts = np.flatnonzero(np.r_[True, sorted_hashes[1:] != sorted_hashes[:-1]])
        ends = np.r_[starts[1:], n_samples]
        rep = np.arange(n_samples)
        for lo, hi in zip(starts[ends - starts > 1], ends[ends - starts > 1]):
            firsts = []
            for j in order[lo:hi]:
                for i in firsts:
                    if np.array_equal(X[i], X[j]):
                        rep[j] = i
                        break
                else:
                    firsts.append(j)
    if np.array_equal(rep, np.arange(n_samples)):
        return None
    return rep


def tie_duplicates(basis, rep):
    """Give identical samples identical rows of V (bitwise).

    In exact arithmetic two identical samples have identical rows in every
    eigenvector of non-zero eigenvalue; computed, the rows differ in the last
    bits, and labellings that differ by swapping the two samples, of equal
    fitness, are then ordered by rounding noise. Copying the row of the
    first of each group of identical samples to the others makes their
    fitnesses equal to the bit (the coordinates are exact sums, see
    fixed_point), and the ties go to the lower index.
    """
    if rep is None:
        return basis
    copies = np.flatnonzero(rep != np.arange(rep.shape[0]))
    basis.V[copies] = basis.V[rep[copies]]
    return basis


def canonical_signs(V, rtol=1e-8):
    """Signs (+1.0 / -1.0) that make the columns of ``V`` canonical.

    An eigenvector is determined up to its sign only, and LAPACK returns
    either sign depending on the rounding of the BLAS kernel it runs on
    (measured: 29 of the 356 eigenvectors of a digit pair flip between
    OpenBLAS's SkylakeX and Haswell kernels). The starts of the search are
    fixed combinations of the columns, so a flip changes them completely.
    ``V * canonical_signs(V)`` has, in every column, its entry of largest
    magnitude positive. Entries within ``rtol`` (relative) of the largest
    magnitude count as tied and the first of them (by row) decides, so that
    two entries of nearly equal magnitude and opposite signs do not hand the
    choice back to the rounding: the choice can still flip only if a
    magnitude lies within the rounding error of the tie threshold itself.
    """
    n_rows, n_columns = V.shape
    top = np.zeros(n_columns)
    if n_rows:
        top = np.maximum(V.max(axis=0), -V.min(axis=0))  # |V|'s, no n x r temporary
    threshold = (1.0 - rtol) * top
    first = np.zeros(n_columns, dtype=np.intp)
    pending = np.ones(n_columns, dtype=bool)
    # (Any blocks give the same signs: small ones, small temporaries.)
    for rows in row_blocks(n_rows, 4096):
        hits = np.abs(V[rows])[:, pending] >= threshold[pending]
        found = hits.any(axis=0)
        columns = np.flatnonzero(pending)[found]
        first[columns] = rows.start + np.argmax(hits[:, found], axis=0)
        pending[columns] = False
        if not pending.any():
            break
    return np.where(V[first, np.arange(n_columns)] < 0, -1.0, 1.0)


def exact_basis(K, reg):
    """The basis of an exact kernel matrix K (overwritten) by its eigenvectors."""
    sigma, V = scipy.linalg.eigh(K, overwrite_a=True, check_finite=False)
    V *= canonical_signs(V)
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
    ``S^2 / (S^2 + n reg)`` of the others are negligible.

    L and V are formed :data:`BASIS_BLOCK_ROWS` rows at a time in one n x r
    float64 buffer (V overwrites L as its rows are used), and V becomes the
    basis's V without a copy: one n x r array, where mapping all the rows at
    once makes two (the kernel values and L, then L and V). Data of at most
    that many rows are one block, computed by the products of the whole.

    Returns
    -------
    basis : Basis
        Components sorted by decreasing eigenvalue.

    right : ndarray of shape (n_kept, n_landmarks)
        The rows of ``W'`` of the components kept, in the same order (the
        basis may drop a tail of them).
    """
    n_samples = X.shape[0]
    blocks = row_blocks(n_samples) or [slice(0, 0)]
    buffer = None
    for rows in blocks:
        features = feature_map.transform(X if len(blocks) == 1 else X[rows])
        if buffer is None:
            # Allocated once the first block is mapped, when the kernel
            # values behind its features are freed: with one block, two n x
            # r arrays at once rather than three.
            buffer = np.empty(n_samples * features.shape[1])
        L = buffer.reshape(n_samples, -1)
        L[rows] = features
        del features
    s2, W = scipy.linalg.eigh(L.T @ L, check_finite=False)
    order = np.argsort(-s2, kind="stable")
    s2, W = s2[order], W[:, order]
    keep = s2 > 1e-10 * max(float(s2[0]), 0.0)
    s2, W = s2[keep], W[:, keep]
    projection = W / np.sqrt(s2)
    # Row i of V (n x m, m <= r) takes the m values of the buffer from i m,
    # which hold rows of L at most i: block after block, each block's rows
    # of L are read (into the product) before V is written over them.
    V = buffer[: n_samples * projection.shape[1]].reshape(n_samples, -1)
    for rows in blocks:
        V[rows] = L[rows] @ projection
    del L, buffer
    # Fix each singular vector's sign (see canonical_signs), on both sides.
    signs = canonical_signs(V)
    V *= signs
    W *= signs
    # V is already sorted: the basis takes it over rather than copying it.
    return spectral_basis(V, s2, reg, overwrite_v=True), W.T


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


def landmark_subsample(X, n_landmarks, random_state):
    """At most ``SAMPLES_PER_LANDMARK * n_landmarks`` samples of X, drawn
    without replacement and kept in their order (all of X when it has no
    more)."""
    n_samples = X.shape[0]
    n_subsample = min(n_samples, SAMPLES_PER_LANDMARK * n_landmarks)
    if n_subsample < n_samples:
        X = X[np.sort(random_state.choice(n_samples, n_subsample, replace=False))]
    return X


def kmeans_landmarks(X, n_landmarks, random_state):
    """Centres of a short k-means run, as landmarks of a Nystroem map.

    k-means++ seeding followed by ``KMEANS_ITERATIONS`` Lloyd iterations
    (:func:`mmc._kmeans.stable_kmeans`, whose choices do not depend on the
    BLAS kernel or the input format) on a random subsample of
    ``min(n_samples, SAMPLES_PER_LANDMARK * n_landmarks)`` samples:
    O(r^2 d log r) time for r landmarks and d features (the greedy k-means++
    seeding tries ``2 + log r`` candidates per centre), whatever n_samples.

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
    X = landmark_subsample(X, n_landmarks, random_state)
    centres = stable_kmeans(X, n_landmarks, random_state, KMEANS_ITERATIONS)
    return np.ascontiguousarray(centres, dtype=X.dtype)


def singular_landmarks(X, n_landmarks, random_state):
    """Leading right singular vectors of a subsample of X, as landmarks of
    the linear kernel's Nystroem map.

    With landmarks Q of orthonormal rows the Nystroem map of the linear
    kernel is the projection ``phi(x) = Qx``, and ``XQ'QX'`` is closest to
    ``K = XX'`` (Eckart-Young: in every unitarily invariant norm, among the
    kernels of rank r) when Q holds the r leading right singular vectors of
    X. They are estimated on the subsample of :func:`landmark_subsample`
    (m = ``min(n_samples, SAMPLES_PER_LANDMARK * n_landmarks)`` samples) by
    the eigendecomposition of the smaller of its two Gram matrices, the
    samples' (m x m) or the features' (d x d): O(m d min(m, d) + min(m,
    d)^3) time whatever n. Directions of eigenvalue below ``size * eps``
    times the largest are rounding noise and dropped, so there are at most
    ``min(n_landmarks, m, d)`` of them, the rank of the subsample.

    Parameters
    ----------
    X : {ndarray, CSR matrix} of shape (n_samples, n_features)
        Validated training samples.

    n_landmarks : int
        Number of directions wanted, at most n_samples.

    random_state : numpy.random.RandomState
        Draws the subsample.

    Returns
    -------
    directions : {ndarray, CSR matrix} of shape (n_directions, n_features)
        Orthonormal rows by decreasing singular value, in the dtype of X,
        their signs fixed by :func:`canonical_signs` on the eigenvectors of
        the Gram matrix. One zero row when X is zero. Dense, except for
        sparse X whose subsample leaves enough columns empty that storing
        only the others takes fewer bytes (:func:`_span_of_rows`).
    """
    n_features = X.shape[1]
    sub = landmark_subsample(X, n_landmarks, random_state).astype(np.float64)
    by_features = n_features <= sub.shape[0]
    gram = sub.T @ sub if by_features else sub @ sub.T
    gram = gram.toarray() if sp.issparse(gram) else np.asarray(gram)
    size = gram.shape[0]
    rank = min(n_landmarks, size)
    eigenvalues, vectors = scipy.linalg.eigh(
        gram, subset_by_index=[size - rank, size - 1], check_finite=False
    )
    eigenvalues, vectors = eigenvalues[::-1], vectors[:, ::-1]
    keep = eigenvalues > size * np.finfo(np.float64).eps * max(eigenvalues[0], 0.0)
    if not keep.any():
        return np.zeros((1, n_features), dtype=X.dtype)
    # Signs fixed on the eigenvectors, the smaller array (v and u share them).
    vectors = vectors[:, keep] * canonical_signs(vectors[:, keep])
    if by_features:
        return np.ascontiguousarray(vectors.T, dtype=X.dtype)
    # v = X'u / sqrt(lambda) for each eigenpair (lambda, u) of XX'.
    return _span_of_rows(sub, vectors / np.sqrt(eigenvalues[keep]), X.dtype)


def _span_of_rows(rows, weights, dtype):
    """``(rows' weights)'``, the combinations of the rows given by the
    columns of ``weights``, as an array of ``dtype`` or, for sparse
    ``rows`` that leave columns empty, a CSR matrix storing the others
    (:func:`on_columns`).

    The combinations are zero on every column where the rows are: hashed
    text of 2**20 features has a subsample of a few thousand rows touch
    some 150,000 columns, and 300 dense directions took 2.5 GB (7 GB at the
    peak of a fit of 3000 rows) where these columns take 0.5 GB. The values
    stored are those of the dense product, column by column the same sums.
    """
    n_features = rows.shape[1]
    if sp.issparse(rows):
        columns = np.unique(rows.indices)
        itemsize = np.dtype(dtype).itemsize
        # A stored value costs its index beside it (int32 or int64).
        index_size = 4 if n_features <= np.iinfo(np.int32).max else 8
        if columns.size * (itemsize + index_size) < n_features * itemsize:
            # Transposed and cast in one copy: the values of 300 directions
            # on some 45,000 columns take 108 MB, and each copy of them
            # 0.2 s of a fit of 1000 sparse rows.
            values = np.ascontiguousarray(
                (select_columns(rows, columns).T @ weights).T, dtype=dtype
            )
            return on_columns(values, columns, n_features)
    return np.ascontiguousarray(np.asarray(rows.T @ weights).T, dtype=dtype)


def on_columns(values, columns, n_features):
    """The CSR matrix of ``n_features`` columns whose rows hold ``values``
    (dense, one column per entry of ``columns``) at ``columns`` and zeros
    elsewhere; each row stores every one of ``columns``, in order."""
    n_rows = values.shape[0]
    return sp.csr_matrix(
        (
            np.ascontiguousarray(values).ravel(),
            np.tile(columns, n_rows),
            np.arange(n_rows + 1) * columns.size,
        ),
        shape=(n_rows, n_features),
    )


def used_columns(landmarks):
    """The inverse of :func:`on_columns`: ``(values, columns)`` of a CSR
    matrix whose rows store the same columns, in order."""
    n_rows = landmarks.shape[0]
    n_used = landmarks.indptr[1] if n_rows else 0
    columns = landmarks.indices[:n_used]
    return landmarks.data.reshape(n_rows, n_used), columns


class ColumnsFeatureMap:
    """A feature map fitted to dense landmarks on some columns of the data,
    applied to those columns of its input: the map of landmarks that are
    zero on every other column, without their products with the zeros.

    For the linear kernel's singular-vector landmarks of sparse data
    (:func:`singular_landmarks`): the map fitted to them as a CSR matrix
    computes the kernel between the landmarks (300 x 300 products over the
    used columns) as sparse-by-sparse products, and a fit of 3000 rows of
    100,000 features took 15 s against 7.5 s with this map.

    Parameters
    ----------
    feature_map : sklearn.kernel_approximation.Nystroem
        Fitted to the landmarks' values on ``columns``.

    columns : ndarray of shape (n_used,)
        Columns of the data the landmarks are not zero on, sorted.
    """

    def __init__(self, feature_map, columns):
        self.feature_map = feature_map
        self.columns = columns
        self.normalization_ = feature_map.normalization_

    def transform(self, X):
        return self.feature_map.transform(select_columns(X, self.columns))


def select_columns(X, columns):
    """``X[:, columns]`` for sorted ``columns``; of CSR X by one pass over
    its stored values (SciPy's column indexing multiplies by a selection
    matrix, several times slower on rows of many features)."""
    if not sp.issparse(X):
        return X[:, columns]
    position = np.full(X.shape[1], -1, dtype=np.int64)
    position[columns] = np.arange(columns.size)
    new_indices = position[X.indices]
    kept = new_indices >= 0
    indptr = np.concatenate([[0], np.cumsum(kept)])[X.indptr]
    return sp.csr_matrix(
        (X.data[kept], new_indices[kept].astype(X.indices.dtype), indptr),
        shape=(X.shape[0], columns.size),
    )
