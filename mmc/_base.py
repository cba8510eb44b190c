"""Plumbing shared by the estimators: validation, passes over X, warnings.

Validation happens here and only here: the estimators call
:meth:`_BaseMMC._validate_X`, and the Cython kernels downstream assume
C-contiguous float32/float64 arrays or CSR matrices with int32 indices,
which they read through :func:`rows`.
"""

import functools
import inspect
import warnings
from numbers import Integral

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import validate_data

from mmc._core import _linear
from mmc._core._common import column_sums
from mmc._dask_api import is_dask_input, refuse_dask

# Initialisations known to every two-cluster estimator (see mmc/_starts.py).
INIT_METHODS = ("pca", "kmeans", "random")


class _BaseMMC(ClusterMixin, BaseEstimator):
    """Base class of the maximum margin clustering estimators.

    Subclasses declare their parameters in ``_parameter_constraints`` (merged
    with the common ones below), implement ``fit`` under
    ``sklearn.base._fit_context`` and set ``labels_``.
    """

    _parameter_constraints: dict = {
        "init": [StrOptions({"auto", *INIT_METHODS}), "array-like"],
        "n_init": [Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
        "n_jobs": [Integral, None],
        "verbose": ["verbose"],
    }

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    def _validate_params(self):
        """The declared constraints, and what they cannot say.

        A bool is an ``Integral`` in Python, so ``n_init=True`` would pass
        an integer interval: integer parameters must not be booleans.
        ``n_jobs=0`` means nothing (joblib would fail later).
        """
        for name, constraints in self._parameter_constraints.items():
            value = getattr(self, name, None)
            takes_integers = any(
                isinstance(c, Interval) and c.type is Integral for c in constraints
            )
            if isinstance(value, (bool, np.bool_)) and takes_integers:
                raise ValueError(
                    f"The {name!r} parameter of {type(self).__name__} must be an "
                    f"int, not a bool; got {value!r}."
                )
        super()._validate_params()
        if getattr(self, "n_jobs", None) == 0:
            raise ValueError(
                f"The 'n_jobs' parameter of {type(self).__name__} must be None, "
                "a positive int or a negative int (-1: all CPUs); got 0."
            )

    def _validate_X(self, X, *, reset):
        """Validate the data given to ``fit`` (``reset=True``) or ``predict``.

        Returns a C-contiguous float32/float64 ndarray, or a CSR matrix of
        such values with int32 indices in canonical form (sorted indices, no
        duplicate entries, no stored zeros; the caller's matrix is copied,
        never modified). NaN, infinity, complex or non-numeric values, values
        of extreme magnitude (see :func:`_check_magnitude`), fewer than 2
        samples at fit time and a number of features different from the one
        seen in ``fit`` raise ``ValueError``.
        """
        if is_dask_input(X):
            refuse_dask(self, fit=reset)
        X = validate_data(
            self,
            X,
            accept_sparse="csr",
            dtype=[np.float64, np.float32],
            order="C",
            accept_large_sparse=True,
            ensure_min_samples=2 if reset else 1,
            reset=reset,
        )
        if sp.issparse(X):
            X = _canonical_csr(_with_int32_indices(X))
        _check_magnitude(X)
        return X

    def _initial_labels(self, n_samples, n_clusters=2):
        """The labels given as ``init``, or None when ``init`` names a method.

        An array-like ``init`` holds the initial cluster of each sample; it
        is returned as integers 0 .. n_clusters - 1 (in the order of the
        sorted distinct values). The fit then makes a single run from it,
        which a ``RuntimeWarning`` points out when ``n_init`` asks for more.
        """
        if isinstance(self.init, str):
            return None
        labels = np.asarray(self.init)
        if labels.shape != (n_samples,):
            raise ValueError(
                f"init given as an array must hold one initial label per sample, "
                f"of shape ({n_samples},); got shape {labels.shape}."
            )
        values, codes = np.unique(labels, return_inverse=True)
        if values.size != n_clusters:
            raise ValueError(
                f"init given as an array must hold exactly {n_clusters} distinct "
                f"labels (one per cluster); got {values.size}."
            )
        if self.n_init not in (1, "auto"):
            warn(
                f"init is an array of initial labels: fitting one run from them "
                f"instead of n_init={self.n_init}.",
                RuntimeWarning,
            )
        return codes


class _BinaryPredictMixin:
    """``predict`` of the two-cluster estimators, from ``decision_function``."""

    def predict(self, X):
        """Assign samples to the cluster on whose side of the decision they fall.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        labels : ndarray of shape (n_samples,)
            0 or 1 for each sample: 1 where ``decision_function`` is
            positive.
        """
        return (self.decision_function(X) > 0).astype(np.intp)


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


def rows(X):
    """The rows of a validated X as the kernels read them.

    Returns ``(X_data, X_indices, X_indptr, n_features)``: the arrays of a
    CSR X, or the values of a dense (C-contiguous) X flattened, without a
    copy, and empty index arrays (see ``mmc/_core/_common.pxd``).
    """
    if sp.issparse(X):
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
