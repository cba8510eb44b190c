"""Plumbing shared by the estimators: input validation, restarts, linear models.

Validation happens here and only here: the estimators call
:meth:`_BaseMMC._validate_X`, and the Cython kernels downstream assume
C-contiguous float32/float64 arrays or CSR matrices with int32 indices.
"""

from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from joblib import Parallel, delayed, effective_n_jobs
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from mmc._core._common import column_sums_dense, column_sums_sparse
from mmc._core._linear import decision_values_dense, decision_values_sparse
from mmc.kernels import FEATURE_MAP_KERNELS, KernelFeatureMap

# Initialisations known to every estimator (see mmc/_init.py).
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

    def _validate_X(self, X, *, reset):
        """Validate the data given to ``fit`` (``reset=True``) or ``predict``.

        Returns a C-contiguous float32/float64 ndarray, or a CSR matrix of
        such values with int32 indices. NaN, infinity, complex or non-numeric
        values, fewer than 2 samples at fit time and a number of features
        different from the one seen in ``fit`` raise ``ValueError``.
        """
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
            X = _with_int32_indices(X)
        return X

    def _check_init_labels(self, n_samples, n_clusters=2):
        """Validate an array-like ``init`` holding initial cluster labels.

        Returns the labels as integers 0 .. n_clusters - 1 (in the order of
        the sorted distinct values).
        """
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
        return codes


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
    if sp.issparse(X):
        column_sums_sparse(X.data, X.indices, X.indptr, out)
    else:
        column_sums_dense(X, out)
    out /= X.shape[0]
    return out


def decision_values(X, coef, intercept, out=None):
    """Return ``X @ coef + intercept`` for a validated X, in float64."""
    if out is None:
        out = np.empty(X.shape[0])
    if sp.issparse(X):
        decision_values_sparse(X.data, X.indices, X.indptr, coef, intercept, out)
    else:
        decision_values_dense(X, coef, intercept, out)
    return out


def best_of_restarts(run, starts, n_jobs, key=lambda result: result.objective):
    """Run ``run(start)`` for every start and keep the best result.

    Restarts are independent; with ``n_jobs != 1`` they run on threads (the
    kernels release the GIL). The winner is the run with the lowest ``key``
    (by default its ``objective`` attribute); ties go to the earliest start,
    so the choice does not depend on the number of threads. Labels are never
    consulted.

    Returns
    -------
    best : object
        The result of the winning run.

    results : list
        The results of all runs, in the order of ``starts``.
    """
    if effective_n_jobs(n_jobs) == 1 or len(starts) == 1:
        results = [run(start) for start in starts]
    else:
        results = Parallel(n_jobs=n_jobs, prefer="threads")(
            delayed(run)(start) for start in starts
        )
    best = min(range(len(results)), key=lambda i: (key(results[i]), i))
    return results[best], results


_FEATURE_MAP_PARAMETERS = """\
kernel : {"linear", "rbf", "poly", "sigmoid", "cosine", "precomputed"} \
            or callable, default="linear"
        Kernel of the feature space in which the hyperplane is sought. With
        ``"linear"`` the samples are used as they are; any other kernel maps
        them with :class:`mmc.kernels.KernelFeatureMap` (exact when there are
        at most ``n_components`` samples, Nystroem otherwise), at fit and at
        predict time. ``"precomputed"``: ``fit`` takes the n x n kernel matrix
        and ``predict`` the m x n kernel between new and training samples.

    gamma : "scale" or float, default="scale"
        Coefficient of the rbf, poly and sigmoid kernels; ``"scale"`` is
        ``1 / (n_features * X.var())``, as in :class:`sklearn.svm.SVC`.

    degree : int, default=3
        Degree of the poly kernel.

    coef0 : float, default=0.0
        Constant term of the poly and sigmoid kernels.

    n_components : int, default=500
        Rank of the kernel feature map (number of landmarks); memory and time
        grow as n_samples * n_components. Ignored by the linear kernel."""


class _FeatureMapMixin:
    """``kernel=``: the linear model is learnt on a feature map of X.

    Estimators that learn a hyperplane ``w.x + b`` (or k of them) get
    non-linear kernels this way: with ``kernel != "linear"`` the samples are
    replaced by their coordinates under the :class:`mmc.kernels.KernelFeatureMap`
    fitted in ``fit`` (stored as ``kernel_map_``), at fit and at predict time
    alike, and ``coef_`` holds weights on those coordinates. With the linear
    kernel there is no map at all. The parameters are documented once, here,
    and put in place of ``{feature_map_parameters}`` in the docstring of each
    subclass.
    """

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.__doc__ is not None:
            cls.__doc__ = cls.__doc__.replace(
                "{feature_map_parameters}", _FEATURE_MAP_PARAMETERS
            )

    _feature_map_constraints: dict = {
        "kernel": [StrOptions(set(FEATURE_MAP_KERNELS)), callable],
        "gamma": [StrOptions({"scale"}), Interval(Real, 0, None, closed="neither")],
        "degree": [Interval(Integral, 0, None, closed="left")],
        "coef0": [Real],
        "n_components": [Interval(Integral, 1, None, closed="left")],
    }

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.kernel == "precomputed"
        return tags

    def _validate_features(self, X, *, reset):
        """Validate X (see ``_validate_X``) and map it to the kernel's features.

        ``reset=True`` (at fit) also fits the map, drawing its landmarks with
        ``random_state``.
        """
        precomputed = self.kernel == "precomputed"
        if precomputed and not reset:
            n_train = self.kernel_map_.n_samples_fit_
            shape = getattr(X, "shape", None)
            if shape is not None and len(shape) == 2 and shape[1] != n_train:
                raise ValueError(
                    f"kernel='precomputed' needs the kernel between the samples and "
                    f"the {n_train} training samples, of shape (n_samples, "
                    f"{n_train}); got shape {shape}."
                )
        X = self._validate_X(X, reset=reset)
        if reset:
            return self._fit_feature_map(X)
        if self.kernel == "linear":
            return X
        return self.kernel_map_.transform(X)

    def _fit_feature_map(self, X):
        """Fit the map on the validated training samples X (drawing its
        landmarks with ``random_state``) and return their features; X itself
        with the linear kernel."""
        if self.kernel == "linear":
            return X
        self.kernel_map_ = KernelFeatureMap(
            self.kernel,
            gamma=self.gamma,
            degree=self.degree,
            coef0=self.coef0,
            n_components=self.n_components,
            random_state=self.random_state,
        ).fit(X)
        return self.kernel_map_.transform(X)


class _LinearDecisionMixin(_FeatureMapMixin):
    """``decision_function`` and ``predict`` of a fitted binary hyperplane.

    Expects ``coef_`` of shape (n_features,) and a float ``intercept_``;
    cluster 1 is the side where the decision value is positive.
    """

    def decision_function(self, X):
        """Signed distance (up to ``|coef_|``) of samples to the hyperplane.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        decision : ndarray of shape (n_samples,)
            ``X @ coef_ + intercept_``; positive values belong to cluster 1.
        """
        check_is_fitted(self)
        X = self._validate_features(X, reset=False)
        return decision_values(X, self.coef_, self.intercept_)

    def predict(self, X):
        """Assign samples to the side of the hyperplane they fall on.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        labels : ndarray of shape (n_samples,)
            0 or 1 for each sample; ``predict`` on the training data equals
            ``labels_``.
        """
        return (self.decision_function(X) > 0).astype(np.intp)
