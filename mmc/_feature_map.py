"""``kernel=`` for the estimators that learn hyperplanes, and their decision.

The estimators that learn a hyperplane ``w.x + b`` (CPMMC, MultivariateMMC,
ODMC) or one per cluster (CPM3C) take non-linear kernels through an
explicit feature map of X (:class:`mmc.kernels.KernelFeatureMap`).
"""

from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from mmc._base import _BinaryPredictMixin
from mmc._dask_api import is_dask_input, map_blocks_predict
from mmc._docstrings import KERNEL_COEFFICIENTS
from mmc._rows import centred, decision_values, origin_shift
from mmc.kernels import FEATURE_MAP_KERNELS, KernelFeatureMap

# The kernel coefficients of every estimator, as in sklearn.svm.SVC.
KERNEL_COEFFICIENT_CONSTRAINTS = {
    "gamma": [StrOptions({"scale"}), Interval(Real, 0, None, closed="neither")],
    "degree": [Interval(Integral, 0, None, closed="left")],
    "coef0": [Interval(Real, None, None, closed="neither")],
}

FEATURE_MAP_PARAMETERS = (
    """\
kernel : {"linear", "rbf", "poly", "sigmoid", "cosine", "precomputed"} \
            or callable, default="linear"
        Kernel of the feature space in which the hyperplane is sought. With
        ``"linear"`` the samples are used as they are; any other kernel maps
        them with :class:`mmc.kernels.KernelFeatureMap` (exact when there are
        at most ``n_components`` samples, Nystroem otherwise), at fit and at
        predict time. ``"precomputed"``: ``fit`` takes the n x n kernel matrix
        and ``predict`` the m x n kernel between new and training samples.

    """
    + KERNEL_COEFFICIENTS
    + """

    n_components : int, default=500
        Rank of the kernel feature map (number of landmarks); memory and time
        grow as n_samples * n_components. Ignored by the linear kernel."""
)


class _FeatureMapMixin:
    """``kernel=``: the linear model is learnt on a feature map of X.

    Estimators that learn a hyperplane ``w.x + b`` (or k of them) get
    non-linear kernels this way: with ``kernel != "linear"`` the samples are
    replaced by their coordinates under the :class:`mmc.kernels.KernelFeatureMap`
    fitted in ``fit`` (stored as ``kernel_map_``), at fit and at predict time
    alike, and ``coef_`` holds weights on those coordinates. With the linear
    kernel there is no map at all. The parameters are documented once, in
    ``FEATURE_MAP_PARAMETERS``, which each subclass puts in its docstring
    with :func:`mmc._docstrings.fill_doc`.
    """

    _feature_map_constraints: dict = {
        "kernel": [StrOptions(set(FEATURE_MAP_KERNELS)), callable],
        **KERNEL_COEFFICIENT_CONSTRAINTS,
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
                # The first sentence is scikit-learn's for a wrong number of
                # features (n_features_in_ is the number of training samples).
                raise ValueError(
                    f"X has {shape[1]} features, but {type(self).__name__} is "
                    f"expecting {n_train} features as input: with "
                    f"kernel='precomputed', X must be the kernel between the "
                    f"samples and the {n_train} training samples, of shape "
                    f"(n_samples, {n_train}); got shape {shape}."
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
        self._origin_shift = None
        if self.kernel == "linear":
            # A map of an earlier fit with another kernel is not this fit's.
            self.__dict__.pop("kernel_map_", None)
            # A hyperplane with an intercept does not depend on the origin:
            # data far from it are fitted centred (mmc._rows.origin_shift),
            # and _fold_origin_shift puts the shift into the intercepts.
            self._origin_shift = origin_shift(X)
            return centred(X, self._origin_shift)
        self.kernel_map_ = KernelFeatureMap(
            self.kernel,
            gamma=self.gamma,
            degree=self.degree,
            coef0=self.coef0,
            n_components=self.n_components,
            random_state=self.random_state,
        ).fit(X)
        return self.kernel_map_.transform(X)

    def _fold_origin_shift(self):
        """After a fit on data centred by ``_fit_feature_map``: the
        intercepts of the hyperplanes on the raw samples (``coef_`` is the
        same), so that ``predict`` takes new samples as they are."""
        shift = self.__dict__.pop("_origin_shift", None)
        if shift is None:
            return
        coef = np.atleast_2d(self.coef_)
        # By the row kernel, not BLAS: the same intercepts on every CPU.
        moved = decision_values(coef, shift, 0.0)
        if np.ndim(self.intercept_) == 0:
            self.intercept_ = float(self.intercept_ - moved[0])
        else:
            self.intercept_ = np.ascontiguousarray(self.intercept_ - moved)


class _LinearDecisionMixin(_BinaryPredictMixin, _FeatureMapMixin):
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
        if is_dask_input(X):
            # A lazy Dask array, block by block.
            return map_blocks_predict(self.decision_function, X, np.float64)
        X = self._validate_features(X, reset=False)
        return decision_values(X, self.coef_, self.intercept_)
