"""What mmc knows of Dask without importing it: recognising a Dask array,
importing Dask on demand (ImportError naming the ``mmc[dask]`` extra), and
the error of the estimators that do not take Dask arrays. The fits on Dask
arrays are in :mod:`mmc._dask`.
"""

import numpy as np
import scipy.sparse as sp

# The estimators that take Dask arrays, named in the errors of the others.
DASK_ESTIMATORS = ("CPMMC", "CPM3C", "MultivariateMMC")

_EXTRA = 'pip install "mmc[dask]"'


def is_dask_array(X):
    """Whether X is a ``dask.array.Array`` (without importing Dask)."""
    for cls in type(X).__mro__:
        if cls.__name__ == "Array" and cls.__module__.startswith("dask.array"):
            return True
    return False


def import_dask():
    """The ``dask`` module, or ImportError naming the extra that brings it."""
    try:
        import dask
        import dask.array  # noqa: F401
    except ImportError as exc:
        raise ImportError(
            f"Fitting mmc estimators on Dask arrays needs dask; install it with "
            f"{_EXTRA} (which also brings distributed and zarr)."
        ) from exc
    return dask


def refuse_dask(estimator, fit=True):
    """TypeError for an estimator that does not take Dask arrays."""
    what = "fit on" if fit else "predict on"
    raise TypeError(
        f"{type(estimator).__name__} does not {what} Dask arrays; the estimators "
        f"that fit on them are {', '.join(DASK_ESTIMATORS)}. Compute X to a NumPy "
        "array or SciPy CSR matrix first if it fits in memory."
    )


def map_blocks_predict(method, X, dtype):
    """``method`` (of a fitted estimator) on each block of rows of X.

    Returns a lazy Dask array of shape (n_samples,), or (n_samples, k) when
    ``method`` returns 2-D results; X may be chunked by columns too (it is
    rechunked to whole rows).
    """
    import_dask()
    n_features = method.__self__.n_features_in_
    if X.ndim != 2:
        raise ValueError(f"Expected a 2-D Dask array; got {X.ndim}-D.")
    if X.shape[1] != n_features:
        raise ValueError(
            f"X has {X.shape[1]} features, but {type(method.__self__).__name__} "
            f"is expecting {n_features} features as input."
        )
    if len(X.chunks[1]) != 1:
        X = X.rechunk({1: -1})
    # The shape of a result, from one row of zeros of X's kind.
    if sp.issparse(getattr(X, "_meta", None)):
        row = sp.csr_matrix((1, n_features))
    else:
        row = np.zeros((1, n_features))
    probe = np.asarray(method(row))
    if probe.ndim == 1:
        return X.map_blocks(method, drop_axis=1, dtype=dtype)
    return X.map_blocks(method, dtype=dtype, chunks=(X.chunks[0], (probe.shape[1],)))
