"""NumPy twins of the mmc._core._kmeans kernels (see _reference.py, which
re-exports them)."""

import numpy as np
import scipy.sparse as sp


def _dense64(X):
    """X as a dense float64 ndarray."""
    if sp.issparse(X):
        return X.toarray().astype(np.float64)
    return np.asarray(X, dtype=np.float64)


def kmeans_assign(X, norms, centres, rel, sums=None):
    """Labels, ``|c|^2 - 2 x.c`` at the nearest centre, and cluster sums.

    Twin of ``mmc._core._kmeans.assign`` (which takes the centres transposed
    and their norms, updates previous labels in place and returns how many
    changed): the label of x is the first centre within ``rel * (|x|^2 +
    max |c|^2)`` of the lowest value. The products go through BLAS, so they
    may differ from the kernel's in the last bits; ``sums``, if given, gets
    every sample added to the row of its label, in sample order.
    """
    X = _dense64(X)
    centres = np.asarray(centres, dtype=np.float64)
    centre_norms = np.einsum("ij,ij->i", centres, centres)
    D = centre_norms[None, :] - 2.0 * (X @ centres.T)
    lowest = D.min(axis=1)
    bound = lowest + rel * (np.asarray(norms) + centre_norms.max(initial=0.0))
    labels = np.argmax(D <= bound[:, None], axis=1)
    if sums is not None:
        for i, label in enumerate(labels):
            sums[label] += X[i]
    return labels, lowest


def kmeans_seed_distances(X, norms, candidates, rel, closest):
    """Squared distances to the candidates, zero within rounding, capped.

    Twin of ``mmc._core._kmeans.seed_distances`` (which takes the candidates
    transposed and their norms): ``min(closest, |c|^2 - 2 x.c + |x|^2)``,
    the distance set to 0 where at most ``rel * (|c|^2 + |x|^2)``; of shape
    (n_candidates, n_samples).
    """
    X = _dense64(X)
    candidates = np.asarray(candidates, dtype=np.float64)
    norms = np.asarray(norms)
    cand_norms = np.einsum("ij,ij->i", candidates, candidates)
    D = cand_norms[:, None] - 2.0 * (candidates @ X.T) + norms[None, :]
    D[D <= rel * (cand_norms[:, None] + norms[None, :])] = 0.0
    return np.minimum(np.asarray(closest)[None, :], D)
