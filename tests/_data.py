"""Random inputs shared by the kernel tests."""

import numpy as np
import scipy.sparse as sp
from hypothesis import strategies as st


def dense(X):
    """X as a dense array, in its dtype."""
    return X.toarray() if sp.issparse(X) else X


def random_X(
    rng, n_samples, n_features, dtype, sparse, density=0.5, scales=(1e-2, 1.0, 1e3)
):
    """Random X with values of mixed sign and magnitude, so a wrong index shows.

    Each entry is kept with probability ``density`` and scaled by one of
    ``scales``; one row is emptied. CSR output has int32 indices and some
    explicit zeros, which stay stored and must contribute nothing.
    """
    shape = (n_samples, n_features)
    X = rng.normal(size=shape) * rng.choice(scales, size=shape)
    X[rng.random(size=shape) > density] = 0.0
    if n_samples > 2:
        X[rng.integers(n_samples)] = 0.0
    X = X.astype(dtype)
    if not sparse:
        return X
    X = sp.csr_matrix(X)
    X.indices = X.indices.astype(np.int32)
    X.indptr = X.indptr.astype(np.int32)
    if X.nnz:
        X.data[rng.random(X.nnz) < 0.2] = 0.0
    return X


# Hypothesis draw of the input of a row kernel: the shape (n = 1 and d = 1
# included), the density, the dtype, dense or CSR storage and a seed for the
# values, which draw_X turns into X (the values themselves are not shrunk).
X_cases = st.fixed_dictionaries(
    {
        "n_samples": st.integers(1, 30),
        "n_features": st.integers(1, 12),
        "density": st.sampled_from([0.0, 0.2, 0.7, 1.0]),
        "dtype": st.sampled_from([np.float32, np.float64]),
        "sparse": st.booleans(),
        "seed": st.integers(0, 2**32 - 1),
    }
)


def draw_X(case, scales=(1e-2, 1.0, 1e3)):
    """The generator seeded by a draw of ``X_cases`` and the X it draws first."""
    rng = np.random.default_rng(case["seed"])
    X = random_X(
        rng,
        case["n_samples"],
        case["n_features"],
        case["dtype"],
        case["sparse"],
        case["density"],
        scales=scales,
    )
    return rng, X


def two_blobs(n_per_cluster=60, n_features=5, distance=6.0, seed=0, dtype=np.float64):
    """Two Gaussian clusters of unit variance, ``distance`` apart."""
    rng = np.random.default_rng(seed)
    centre = np.zeros(n_features)
    centre[0] = distance / 2
    X = np.vstack(
        [
            rng.normal(size=(n_per_cluster, n_features)) + centre,
            rng.normal(size=(n_per_cluster, n_features)) - centre,
        ]
    ).astype(dtype)
    y = np.repeat([0, 1], n_per_cluster)
    return X, y
