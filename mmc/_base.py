"""The base classes of the estimators: parameter and data validation.

Validation happens here and only here: the estimators call
:meth:`_BaseMMC._validate_X`, and the Cython kernels downstream assume
C-contiguous float32/float64 arrays or CSR matrices with int32 indices,
which they read through :func:`mmc._rows.rows`.
"""

from numbers import Integral

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import validate_data

from mmc._dask_api import is_dask_input, refuse_dask
from mmc._kmeans import nearest_centres
from mmc._rows import _canonical_csr, _check_magnitude, _with_int32_indices, warn
from mmc._stability import stable_class_balance

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

    # The named init with which a fit may start from the graph's clustering
    # (mmc._graph_start): each estimator's default.
    _graph_start_init = "auto"

    def _graph_start_applies(self):
        """Whether ``init`` lets the fit start from the graph's clustering."""
        return isinstance(self.init, str) and self.init == self._graph_start_init

    def _take_graph_start(self, X, centres, labels):
        """Set ``graph_start_`` and return the labels to start from: every
        sample at the nearest of the graph start's ``centres`` where it won
        (:mod:`mmc._graph_start`), else ``labels``."""
        self.graph_start_ = centres is not None
        return labels if centres is None else nearest_centres(X, centres)

    def _choose_class_balance(self, X, **sample):
        """Set the ``class_balance`` of this fit and ``balance_stability_``.

        The parameter itself, or for ``"stable"`` the setting that
        :func:`mmc._stability.stable_class_balance` chooses on the validated
        data X (before any feature map: the fits on subsamples map their own
        rows). Initial labels given as ``init`` estimate the balance as for
        ``"auto"``: a subsample has no initial labels to fit from.
        ``sample`` holds ``take_rows`` and ``sparse`` for data in blocks.
        The fit reads the setting from ``_class_balance_setting``.
        """
        self.balance_stability_ = None
        setting = self.class_balance
        if setting == "stable":
            setting = "auto"
            if isinstance(self.init, str):
                setting, self.balance_stability_ = stable_class_balance(
                    self, X, self.random_state, **sample
                )
        self._class_balance_setting = setting

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
