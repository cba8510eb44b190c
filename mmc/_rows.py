"""The rows of a validated X as the kernels read them, and the checks and
small array helpers around them.

Importable without scikit-learn (and so are the modules of every function a
Dask worker runs, :mod:`mmc._dask` and the ``mmc._dask_*`` modules): a worker
imports the module of each function it is sent, and scikit-learn with the
SciPy modules it loads (scipy.stats, scipy.optimize) added 58 MB to every
worker process after fits of the three estimators that take Dask arrays
(``bench/dask/worker_imports.md``).
"""

import functools
import inspect
import math
import warnings

import numpy as np
import scipy.sparse as sp

from mmc._core import _linear
from mmc._core._common import column_sums, row_sq_norms

# Largest magnitude of the values of X, by dtype, for which every product
# and square the estimators form (kernel values, variances, decision values)
# stays a normal float: beyond it the clustering would be decided by
# underflow or overflow, and the estimators refuse the data instead.
_MAX_MAGNITUDE = {np.dtype(np.float64): 1e100, np.dtype(np.float32): 1e15}


def _check_magnitude(X):
    """Refuse values too large or too small (but not zero) to compute with.

    The estimators do not depend on a common scale of X (C and the kernel
    widths are relative to the spread of the data), so data of extreme
    magnitude are refused with the advice to rescale rather than clustered
    with results decided by rounding.
    """
    values = X.data if sp.issparse(X) else X
    if values.size == 0:
        return
    # max and min make no temporary array (abs would copy X).
    largest = max(abs(float(values.max())), abs(float(values.min())))
    check_largest_magnitude(largest, values.dtype)


def check_largest_magnitude(largest, dtype):
    """Refuse data whose largest absolute value is ``largest`` if it is
    outside the range the estimators compute with (see above)."""
    limit = _MAX_MAGNITUDE[np.dtype(dtype)]
    if largest > limit or 0.0 < largest < 1.0 / limit:
        raise ValueError(
            f"X has values of magnitude up to {largest:.3g}: outside "
            f"[{1 / limit:.0e}, {limit:.0e}] for {np.dtype(dtype)} data, squares "
            "and products overflow or underflow. Rescale X (multiplying it by "
            "a constant does not change the clustering)."
        )


def _canonical_csr(X):
    """X with sorted indices, summed duplicates and no stored zeros.

    CSR allows duplicate entries (summed by every SciPy operation), unsorted
    indices and explicit zeros; the kernels would read duplicates as distinct
    values. A copy is made only when X is not canonical already.
    """
    if X.has_canonical_format and not _has_zero(X.data):
        return X
    X = X.copy()
    X.sum_duplicates()
    X.eliminate_zeros()
    return X


def _has_zero(values, block=1 << 20):
    """Whether ``values`` holds a zero, with O(block) temporary memory."""
    return any(
        (values[start : start + block] == 0).any()
        for start in range(0, values.size, block)
    )


def _with_int32_indices(X):
    """Return CSR X with int32 index arrays, which the kernels require."""
    if X.indices.dtype == np.int32 and X.indptr.dtype == np.int32:
        return X
    limit = np.iinfo(np.int32).max
    if X.nnz > limit or max(X.shape) > limit:
        raise ValueError(
            f"Sparse input with {X.nnz} stored values and shape {X.shape} does not "
            f"fit 32-bit indices, which mmc requires."
        )
    X = X.copy()
    X.indices = X.indices.astype(np.int32)
    X.indptr = X.indptr.astype(np.int32)
    return X


def column_means(X):
    """Mean of the rows of a validated X, in float64."""
    out = np.zeros(X.shape[1])
    row_kernel(X, column_sums)(out)
    out /= X.shape[0]
    return out


# Dense data whose mean is r times their spread away from the origin (the
# spread: the root mean squared distance of the rows to their mean) are
# centred before the fits that do not depend on the origin (see
# origin_shift) once r^2 exceeds this: beyond it, centred second moments
# computed from the raw rows keep less than half of float64's digits.
FAR_FROM_ORIGIN = 1.0 / math.sqrt(np.finfo(np.float64).eps)


def origin_shift(X):
    """The column means of a dense X far from the origin, else None.

    The estimators whose clusters do not depend on the origin of X (the
    hyperplanes with an intercept, the rbf kernel) form centred quantities
    from the raw rows -- ``|x - m|^2`` as ``|x|^2 - 2 x.m + |m|^2``, the
    products of centred constraint vectors -- which lose about ``2 log10 r``
    of float64's 16 digits when the mean ``m`` is ``r`` times the spread of
    the data away from the origin (measured: CPMMC and MultivariateMMC
    split standardised wine moved by 10^6 unlike wine itself, 26-28 % of
    the labels, and every such estimator lost it moved by 10^8;
    ``bench/studies/origin.md``). Such data are centred first, as KMeans
    centres every dense X (a copy, made only for them): by :func:`centred`
    at fit time, and the same shift at predict time or folded into the
    intercepts. Sparse X is never centred (it would no longer be sparse);
    Dask arrays that far from the origin are refused
    (:func:`mmc._dask_starts.checked_column_means`).
    """
    if sp.issparse(X) or X.shape[0] == 0:
        return None
    mean = column_means(X)
    mean_sq_norm = math.fsum(squared_norms(X)) / X.shape[0]
    return mean if far_from_origin(mean, mean_sq_norm) else None


def squared_norms(X):
    """``|x_i|^2`` of every row of a validated X (or of
    :func:`mmc._kmeans.kernel_rows`), in float64, each summed in the order
    of its stored values by the ``row_sq_norms`` kernel: the same numbers
    on every CPU, for float32 X without a float64 copy."""
    sq_norms = np.empty(X.shape[0])
    row_kernel(X, row_sq_norms)(sq_norms)
    return sq_norms


def far_from_origin(mean, mean_sq_norm):
    """Whether rows of mean ``mean`` and mean squared norm ``mean_sq_norm``
    are far from the origin (:data:`FAR_FROM_ORIGIN`)."""
    centre = math.fsum(mean * mean)
    # The spread squared from the raw moments: accurate wherever the test
    # is close (r^2 near FAR_FROM_ORIGIN), rounding noise (tiny or negative)
    # far beyond, where it can only say "far" again.
    spread = mean_sq_norm - centre
    return spread * FAR_FROM_ORIGIN < centre


def centred(X, shift):
    """``X - shift`` (a new C-contiguous array of X's dtype), or X itself
    when ``shift`` is None."""
    if shift is None:
        return X
    return np.subtract(X, shift.astype(X.dtype, copy=False))


def decision_values(X, coef, intercept, out=None):
    """Return ``X @ coef + intercept`` for a validated X, in float64."""
    if out is None:
        out = np.empty(X.shape[0])
    row_kernel(X, _linear.decision_values)(coef, intercept, out)
    return out


def grow_rows(array, capacity):
    """Grow the first axis of ``array`` to ``capacity`` rows, in place.

    Growing in place lets the allocator extend the block rather than hold an
    old and a new copy at once, which matters for the (capacity, n_features)
    statistics of sparse data. No view of the array may outlive the call.
    """
    array.resize((capacity,) + array.shape[1:], refcheck=False)
    return array


def grow_columns(array, capacity):
    """Copy of a (n_samples, k) array with ``capacity`` columns (zeros added)."""
    grown = np.zeros((array.shape[0], capacity), dtype=array.dtype)
    grown[:, : array.shape[1]] = array
    return grown


# The index arrays of a dense X in the kernels' view of the rows: empty.
_DENSE_INDEX = np.empty(0, dtype=np.int32)
_DENSE_INDEX.flags.writeable = False

# The index array of a CSR X that stores no value. The kernels tell dense
# rows from CSR rows by an empty index array, so CSR rows must never have
# one: a matrix of zeros would be read as dense values that are not there.
# Its indptr is all zeros, so the kernels never read this index.
_UNREAD_INDEX = np.zeros(1, dtype=np.int32)
_UNREAD_INDEX.flags.writeable = False


def rows(X):
    """The rows of a validated X as the kernels read them.

    Returns ``(X_data, X_indices, X_indptr, n_features)``: the arrays of a
    CSR X, or the values of a dense (C-contiguous) X flattened, without a
    copy, and empty index arrays (see ``mmc/_core/_common.pxd``). A CSR X
    that stores no value gets one unread value and index instead of empty
    arrays, which would make its rows read as dense.
    """
    if sp.issparse(X):
        if X.indices.size == 0:
            return np.zeros(1, dtype=X.dtype), _UNREAD_INDEX, X.indptr, X.shape[1]
        return X.data, X.indices, X.indptr, X.shape[1]
    return X.reshape(-1), _DENSE_INDEX, _DENSE_INDEX, X.shape[1]


def row_kernel(X, kernel):
    """``kernel`` bound to the rows of X: call it with its other arguments.

    Every row kernel of ``mmc._core`` is written once for dense and CSR X;
    binding it to X once per fit spares the call sites the storage of X.
    """
    return functools.partial(kernel, *rows(X))


def warn(message, category):
    """``warnings.warn`` attributed to the caller outside mmc and scikit-learn.

    The warning points at the user's line (the call to ``fit``, or to a
    scikit-learn meta-estimator), however deep in mmc it is raised.
    """
    frame = inspect.currentframe()
    stacklevel = 1
    while frame is not None and frame.f_globals.get("__name__", "").split(".")[0] in (
        "mmc",
        "sklearn",
    ):
        frame = frame.f_back
        stacklevel += 1
    del frame
    warnings.warn(message, category, stacklevel=stacklevel)
