"""Checks of the kernels users give the feature map: precomputed kernel
matrices and callables (:class:`mmc.kernels.KernelFeatureMap`)."""

import warnings

import numpy as np
import scipy.sparse as sp


def _check_kernel_matrix(K):
    """Refuse a precomputed training kernel that is not square and symmetric.

    A kernel matrix is symmetric by definition; asymmetry beyond rounding
    means another matrix was passed (a distance to some samples, a kernel
    between two different sets), and the map would silently use half of it.
    """
    if K.shape[0] != K.shape[1]:
        raise ValueError(
            f"kernel='precomputed' needs the square kernel matrix of the "
            f"training samples at fit; got shape {K.shape}."
        )
    asymmetry = _max_asymmetry(K)
    scale = max(abs(float(K.max())), abs(float(K.min())))
    if asymmetry > 1e-8 * scale:
        raise ValueError(
            f"kernel='precomputed' needs a symmetric kernel matrix at fit; "
            f"|K - K.T| reaches {float(asymmetry):.3g} for max |K| = "
            f"{float(scale):.3g}."
        )


def _max_asymmetry(K, block=256):
    """``max |K - K.T|``, by blocks of rows for a dense K.

    ``K - K.T`` at once would hold two more n x n arrays beside the kernel
    matrix; a block of rows against the same block of columns needs
    ``block * n`` values.
    """
    if sp.issparse(K):
        return float(abs(K - K.T).max())
    worst = 0.0
    for start in range(0, K.shape[0], block):
        rows = slice(start, start + block)
        worst = max(worst, float(np.abs(K[rows] - K[:, rows].T).max()))
    return worst


def _warn_if_indefinite(K_landmarks):
    """Warn when a precomputed kernel has clearly negative eigenvalues.

    The feature map divides by the square roots of the landmark kernel's
    eigenvalues; for a negative one it takes its absolute value, so an
    indefinite "kernel" is clustered as another, positive one. Eigenvalues
    above -1e-8 times the largest are rounding and pass.
    """
    eigenvalues = np.linalg.eigvalsh(K_landmarks)
    if eigenvalues.size and eigenvalues[0] < -1e-8 * max(abs(eigenvalues[-1]), 0.0):
        warnings.warn(
            f"The precomputed kernel is not positive semi-definite (smallest "
            f"eigenvalue {eigenvalues[0]:.3g}, largest {eigenvalues[-1]:.3g} on "
            f"the landmarks); the feature map uses the absolute values of its "
            f"eigenvalues. Use a positive semi-definite kernel, e.g. shift its "
            f"diagonal.",
            UserWarning,
            stacklevel=4,
        )


def _check_callable_kernel(kernel, X):
    """A callable kernel must take two samples and return a number."""
    if X.shape[0] == 0:
        return
    first, second = X[0], X[min(1, X.shape[0] - 1)]
    value = kernel(first, second)
    if np.ndim(value) != 0:
        raise ValueError(
            f"A callable kernel must take two samples and return a number; "
            f"on two training samples it returned an array of shape "
            f"{np.shape(value)}."
        )
