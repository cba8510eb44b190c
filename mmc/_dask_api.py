"""What mmc knows of Dask without importing it: recognising a Dask array or
DataFrame, importing Dask on demand (ImportError naming the ``mmc[dask]``
extra), the values of a Dask DataFrame as a Dask array, and the error of the
estimators that do not take Dask input. The fits on Dask arrays are in
:mod:`mmc._dask`.
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


def is_dask_dataframe(X):
    """Whether X is a Dask DataFrame or Series (without importing Dask).

    Without this test they would reach scikit-learn's validation, which
    converts them with ``numpy.asarray``: every partition computed and
    gathered into the memory of the client.
    """
    for cls in type(X).__mro__:
        if cls.__name__ in ("DataFrame", "Series") and cls.__module__.startswith(
            "dask.dataframe"
        ):
            return True
    return False


def is_dask_input(X):
    """Whether X is a Dask array, DataFrame or Series."""
    return is_dask_array(X) or is_dask_dataframe(X)


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
    """TypeError for an estimator that does not take Dask input."""
    what = "fit on" if fit else "predict on"
    raise TypeError(
        f"{type(estimator).__name__} does not {what} Dask arrays or DataFrames; "
        f"the estimators that fit on them are {', '.join(DASK_ESTIMATORS)}. "
        "Compute X to a NumPy array or SciPy CSR matrix first if it fits in "
        "memory."
    )


def _check_frame(X):
    """ValueError for a Dask Series, or a DataFrame with columns that are
    not numbers (scikit-learn's validation would convert them on the client,
    after gathering every partition); returns the DataFrame's feature names
    as scikit-learn sets them: an object array of the column names when they
    are all strings, None when none is (TypeError when some are)."""
    import pandas as pd

    if X.ndim != 2:
        raise ValueError(
            "Expected a 2-D Dask DataFrame of samples; got a Dask Series. Use "
            "series.to_frame() for samples of one feature."
        )
    not_numbers = [
        str(name)
        for name, dtype in X.dtypes.items()
        if not pd.api.types.is_numeric_dtype(dtype)
    ]
    if not_numbers:
        raise ValueError(
            f"The columns {not_numbers} of the Dask DataFrame are not numbers; "
            "encode or drop them before clustering."
        )
    are_strings = [isinstance(name, str) for name in X.columns]
    if all(are_strings):
        return np.asarray(X.columns, dtype=object)
    if any(are_strings):
        kinds = sorted({type(name).__name__ for name in X.columns})
        raise TypeError(
            "Feature names are only supported if all input features have string "
            f"names, but the Dask DataFrame has {kinds} as column name types. "
            "Convert them all to str with X.columns = X.columns.astype(str)."
        )
    return None


def frame_values(X):
    """The values of a Dask DataFrame, as a Dask array of its rows.

    Each partition becomes a chunk of rows; their lengths are computed (a
    pass over the partitions), since a fit must know them. The values take
    the columns' common NumPy type, as scikit-learn's validation gives a
    pandas DataFrame, pandas' nullable types counting as float64 (their
    missing values NaN, then refused as in memory); :class:`mmc._dask.
    RowBlocks` then fits it in float32 or float64 as it does any Dask array.

    Returns
    -------
    X : dask.array.Array of shape (n_samples, n_features)

    feature_names : ndarray of str objects or None
        As scikit-learn's ``feature_names_in_`` for a pandas DataFrame.
    """
    import_dask()
    feature_names = _check_frame(X)
    # pandas would give mixed or nullable columns an object array.
    dtypes = [t if isinstance(t, np.dtype) else np.dtype(np.float64) for t in X.dtypes]
    common = np.result_type(*dtypes)
    if any(t != common for t in X.dtypes):
        X = X.astype(common)
    return X.to_dask_array(lengths=True), feature_names


def map_blocks_predict(method, X, dtype):
    """``method`` (of a fitted estimator) on each block of rows of X.

    Returns a lazy Dask array of shape (n_samples,), or (n_samples, k) when
    ``method`` returns 2-D results; X may be chunked by columns too (it is
    rechunked to whole rows). For a Dask DataFrame, ``method`` gets each
    partition as it is (scikit-learn checks its column names) and the
    chunks of the result are those of ``X.to_dask_array()``, of unknown
    lengths until computed.
    """
    dask = import_dask()
    if is_dask_dataframe(X):
        _check_frame(X)
        # Checks the features (names, number) now, on Dask's two-row
        # stand-in of a partition, and gives the shape of a result.
        probe = np.asarray(method(X._meta_nonempty))
        shape = (np.nan,) + probe.shape[1:]
        call = dask.delayed(method, pure=False)
        return dask.array.concatenate(
            [
                dask.array.from_delayed(call(part), shape, dtype=dtype)
                for part in X.to_delayed()
            ]
        )
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
