"""Data shared by the benchmarks."""

from functools import lru_cache

import numpy as np
from sklearn.datasets import load_digits


@lru_cache(maxsize=1)
def _all_digits():
    X, y = load_digits(return_X_y=True)
    X = X / 16.0
    # Shared between calls: read-only, so that no caller can change it.
    X.flags.writeable = False
    y.flags.writeable = False
    return X, y


def digits(classes):
    """``load_digits`` scaled to [0, 1] (features / 16), restricted to ``classes``.

    The file is read once per process; each call returns fresh arrays of the
    samples whose digit is in ``classes``, in their original order.
    """
    X, y = _all_digits()
    mask = np.isin(y, classes)
    return X[mask], y[mask]
