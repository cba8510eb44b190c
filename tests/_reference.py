"""Slow, obviously correct NumPy twins of the mmc._core kernels.

Each kernel in mmc/_core/_*.pyx has a function here computing the same result
with NumPy/SciPy; the kernel tests compare the two. Test modules import it as
``_reference`` (pyproject.toml puts tests/ on pytest's pythonpath).
"""

import numpy as np
import scipy.sparse as sp


def column_sums(X):
    """Column sums of a dense or sparse X, accumulated in float64.

    Twin of ``mmc._core._common.column_sums_{dense,sparse}``.
    """
    if sp.issparse(X):
        return np.asarray(X.astype(np.float64).sum(axis=0)).ravel()
    return np.asarray(X, dtype=np.float64).sum(axis=0)
