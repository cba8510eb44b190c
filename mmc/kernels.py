"""Kernel functions shared by the estimators.

Every kernel evaluation of mmc goes through this module, which delegates the
arithmetic to scikit-learn (:func:`sklearn.metrics.pairwise.pairwise_kernels`
and :class:`sklearn.kernel_approximation.Nystroem`). A kernel is named as in
scikit-learn and described by the same three numbers as in
:class:`sklearn.svm.SVC`:

* ``"linear"``: ``k(x, z) = x.z``;
* ``"poly"``: ``k(x, z) = (gamma x.z + coef0) ** degree``;
* ``"rbf"``: ``k(x, z) = exp(-gamma |x - z|^2)``.

All three are positive semi-definite, which the least-squares estimators
need. ``gamma="scale"`` takes ``1 / (n_features * X.var())`` from the data,
as SVC does. ``kernel="auto"`` of EvoMMC and FastEvoMMC is the rbf kernel
or, where the squared distances between samples are concentrated around
their mean, the linear kernel (:func:`resolve_kernel`).

The estimators that learn a hyperplane (``kernel=`` of CPMMC,
MultivariateMMC, ...) do not use kernel matrices: they learn it on an
explicit feature map, :class:`KernelFeatureMap`, which also accepts the
``"sigmoid"`` and ``"cosine"`` kernels, callables and precomputed kernels.

Examples
--------
>>> import numpy as np
>>> from mmc.kernels import kernel_matrix, nystroem, resolve_gamma
>>> X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0]])
>>> gamma = resolve_gamma(X, "scale")
>>> round(gamma, 4)  # 1 / (2 features * variance 7/12)
0.8571
>>> K = kernel_matrix(X, kernel="rbf", gamma=gamma)
>>> K.shape, float(K[0, 0])
((3, 3), 1.0)
>>> feature_map = nystroem(X, 3, kernel="rbf", gamma=gamma, random_state=0)
>>> Z = feature_map.transform(X)
>>> bool(np.allclose(Z @ Z.T, K))
True
"""

import math

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import NotFittedError
from sklearn.kernel_approximation import Nystroem
from sklearn.metrics.pairwise import pairwise_kernels
from sklearn.utils import check_random_state

from mmc._docstrings import KERNEL_COEFFICIENTS, fill_doc
from mmc._kernel_checks import (
    _check_callable_kernel,
    _check_kernel_matrix,
    _warn_if_indefinite,
)
from mmc._kmeans import kernel_rows, squared_row_norms
from mmc._rows import centred, origin_shift, squared_norms
from mmc._threads import single_blas_thread

__all__ = [
    "FEATURE_MAP_KERNELS",
    "KERNELS",
    "KernelFeatureMap",
    "distance_spread",
    "kernel_diagonal_mean",
    "kernel_matrix",
    "nystroem",
    "resolve_gamma",
    "resolve_kernel",
]

# Kernel names accepted by the estimators (positive semi-definite kernels).
KERNELS = ("linear", "poly", "rbf")

# kernel="auto" (resolve_kernel): the linear kernel when the relative spread
# of the squared distances between samples is below this, that is when
# their effective dimension 2 / spread**2 (the participation ratio of the
# covariance's eigenvalues, for Gaussian data) exceeds 200. On the
# robustness suite the spread is 0.015-0.021 on the text-like cases and at
# least 0.30 on every other (digits 0.31-0.45, tabular 0.55-1.98, toy
# 0.30-0.99; bench/studies/kernel_auto.md): a decision with a margin of
# three times or more on either side.
CONCENTRATED_SPREAD = 0.1
# Rows (evenly spaced, no random draw) whose pairwise distances measure it.
SPREAD_ROWS = 500


def distance_spread(X):
    """Relative spread of the squared distances between samples.

    The standard deviation of ``|x_i - x_j|^2`` over the distinct pairs of
    (at most :data:`SPREAD_ROWS` evenly spaced) rows of X, over its mean.
    For Gaussian data whose covariance has eigenvalues ``l``, its square is
    about ``2 / d`` with ``d = (sum l)^2 / sum l^2`` the effective
    dimension.

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)

    Returns
    -------
    spread : float
        0.0 when all the rows are equal (or there is one).
    """
    n_samples = X.shape[0]
    rows = np.unique(np.linspace(0, n_samples - 1, min(n_samples, SPREAD_ROWS)))
    A = X[rows.astype(np.intp)]
    if sp.issparse(A):
        A = sp.csr_matrix(A, dtype=np.float64)
        gram = (A @ A.T).toarray()
    else:
        A = np.asarray(A, dtype=np.float64)
        gram = A @ A.T
    sq_norms = squared_row_norms(A)
    upper = np.triu_indices(len(rows), 1)
    distances = np.maximum(sq_norms[:, None] + sq_norms[None, :] - 2.0 * gram, 0.0)
    distances = distances[upper]
    mean = distances.mean() if distances.size else 0.0
    return float(distances.std() / mean) if mean > 0 else 0.0


def resolve_kernel(X, kernel):
    """The kernel's name, ``"auto"`` resolved for the data X.

    ``"auto"`` is ``"rbf"`` unless the squared distances between samples
    are concentrated around their mean (:func:`distance_spread` below
    :data:`CONCENTRATED_SPREAD`, an effective dimension above 200), as
    between tf-idf rows of text: there every sample is nearly as far
    from every other, a Gaussian kernel of any width is the linear kernel
    plus a multiple of the identity and a weight on the rare close pairs,
    and the linear kernel is taken. The decision is a comparison with a
    wide margin on the data measured, so that the rounding of the
    distances cannot move it.

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
        Training data.

    kernel : str
        ``"auto"`` or one of :data:`KERNELS`, returned as is.

    Returns
    -------
    kernel : str
    """
    if kernel != "auto":
        return kernel
    return "linear" if distance_spread(X) < CONCENTRATED_SPREAD else "rbf"


def resolve_gamma(X, gamma):
    """The kernel coefficient ``gamma`` as a number.

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
        Training data.

    gamma : "scale" or float
        ``"scale"`` gives ``1 / (n_features * X.var())``, the variance being
        taken over all entries of X (as in :class:`sklearn.svm.SVC`); 1.0 if
        that variance is zero. A number is returned as a float.

    Returns
    -------
    gamma : float
    """
    if not (isinstance(gamma, str) and gamma == "scale"):
        return float(gamma)
    if sp.issparse(X):
        mean = X.mean()
        variance = X.multiply(X).mean() - mean * mean
    else:
        variance = np.asarray(X, dtype=np.float64).var()
    variance = float(variance)
    n_features = X.shape[1]
    return 1.0 / (n_features * variance) if variance > 0 else 1.0


def _kernel_params(kernel, gamma, degree, coef0):
    """Keyword arguments of the scikit-learn kernel ``kernel``: its coefficients.

    rbf takes gamma, poly gamma, degree and coef0, sigmoid gamma and coef0;
    the other kernels (linear, cosine, precomputed, callables) none.
    """
    params = {}
    if kernel in ("rbf", "poly", "sigmoid"):
        params["gamma"] = gamma
    if kernel in ("poly", "sigmoid"):
        params["coef0"] = float(coef0)
    if kernel == "poly":
        params["degree"] = degree
    return params


def _check_kernel(kernel):
    if kernel not in KERNELS:
        raise ValueError(f"Unknown kernel {kernel!r}; expected one of {KERNELS}.")


def kernel_matrix(X, Y=None, *, kernel="rbf", gamma=1.0, degree=3, coef0=0.0):
    """Kernel matrix ``K[i, j] = k(X[i], Y[j])``.

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples_X, n_features)
        First set of samples.

    Y : {ndarray, sparse matrix} of shape (n_samples_Y, n_features), \
            default=None
        Second set of samples; ``None`` means X.

    kernel : {"linear", "poly", "rbf"}, default="rbf"
        Kernel function (see the module docstring).

    gamma : float, default=1.0
        Coefficient of the rbf and poly kernels (resolve ``"scale"`` first with
        :func:`resolve_gamma`); ignored by the linear kernel.

    degree : int, default=3
        Degree of the poly kernel.

    coef0 : float, default=0.0
        Constant term of the poly kernel.

    Returns
    -------
    K : ndarray of shape (n_samples_X, n_samples_Y)
        Dense, in the floating dtype of the inputs.
    """
    _check_kernel(kernel)
    params = _kernel_params(kernel, gamma, degree, coef0)
    K = pairwise_kernels(X, Y, metric=kernel, **params)
    return np.asarray(K.toarray() if sp.issparse(K) else K)


def kernel_diagonal_mean(X, *, kernel="rbf", gamma=1.0, degree=3, coef0=0.0):
    """Mean of ``k(x, x)`` over the rows x of X, to 12 significant digits.

    The scale of the kernel matrix: the mean of its eigenvalues. It is 1 for
    the rbf kernel, the mean squared norm of the rows for the linear kernel
    (1 for tf-idf rows), ``mean (gamma |x|^2 + coef0) ** degree`` for the
    poly kernel. The norms are those of :func:`mmc._rows.squared_norms`,
    summed exactly: the same value on every CPU. Rounded to 12 significant
    digits, so that unit rows, whose norms are 1 within rounding, give 1
    exactly.

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
        Samples.

    kernel, gamma, degree, coef0
        As for :func:`kernel_matrix`.

    Returns
    -------
    mean : float
        0.0 without samples.
    """
    _check_kernel(kernel)
    if kernel == "rbf" or X.shape[0] == 0:
        return 1.0 if X.shape[0] else 0.0
    diagonal = squared_norms(kernel_rows(X))
    if kernel == "poly":
        diagonal = (gamma * diagonal + float(coef0)) ** degree
    return float(f"{math.fsum(diagonal) / X.shape[0]:.12g}")


def nystroem(
    X, n_components, *, kernel="rbf", gamma=1.0, degree=3, coef0=0.0, random_state=None
):
    """Nystroem feature map of a kernel with landmarks drawn from X.

    ``n_components`` samples of X, drawn uniformly at random without
    replacement, are the landmarks R; the map is
    ``phi(x) = k(x, R) K_RR^{-1/2}``, so that ``phi(x).phi(z)`` approximates
    ``k(x, z)`` and equals it when x or z is a landmark. It costs
    O(n_components^2) memory and O(n_components) kernel evaluations per
    sample.

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
        Samples from which the landmarks are drawn.

    n_components : int
        Number of landmarks, at most n_samples.

    kernel, gamma, degree, coef0
        The kernel, as in :func:`kernel_matrix`.

    random_state : int, RandomState instance or None, default=None
        Draws the landmarks.

    Returns
    -------
    feature_map : sklearn.kernel_approximation.Nystroem
        The fitted map: ``feature_map.transform(X)`` gives phi for each row,
        ``feature_map.component_indices_`` the landmarks.
    """
    _check_kernel(kernel)
    params = _kernel_params(kernel, gamma, degree, coef0)
    return Nystroem(
        kernel=kernel,
        n_components=n_components,
        random_state=random_state,
        **params,
    ).fit(X)


# Kernels the linear estimators accept through KernelFeatureMap, besides a
# callable; "linear" means no map at all.
FEATURE_MAP_KERNELS = ("linear", "rbf", "poly", "sigmoid", "cosine", "precomputed")


@fill_doc(kernel_coefficients=KERNEL_COEFFICIENTS)
class KernelFeatureMap:
    """Explicit feature map of a kernel, exact or low-rank (Nystroem).

    ``phi(x) = k(x, R) K_RR^{-1/2}`` for landmarks R drawn from the training
    samples, so that ``phi(x).phi(z)`` approximates ``k(x, z)``. With at most
    ``n_components`` training samples every sample is a landmark and the map
    is exact on them (``phi(X) phi(X)' = K``: the coordinates of the samples
    in a square-root basis of K, as kernel PCA gives). The estimators that
    learn a linear model (a hyperplane ``w.phi(x) + b``) fit it to
    ``phi(X)``, an array of shape (n_samples, n_landmarks): memory and time
    are O(n_samples n_landmarks), and no n x n matrix is formed unless the
    map is exact or the kernel is precomputed.

    The kernel values come from :func:`sklearn.metrics.pairwise.pairwise_kernels`
    and the map from :class:`sklearn.kernel_approximation.Nystroem` fitted to
    the landmarks. ``fit``, ``transform`` and ``sharpened_features`` run BLAS
    on one thread, under the limit of the estimators' fits: threaded BLAS
    rounds its products differently with the number of threads, and the
    features, hence every fit on them, would change in their last bits with
    the thread count of the machine.

    Parameters
    ----------
    kernel : {"rbf", "poly", "sigmoid", "cosine", "precomputed"} or callable
        The kernel, named as in scikit-learn. ``"precomputed"``: ``fit``
        receives the n x n kernel matrix of the training samples and
        ``transform`` the m x n kernel between new and training samples. A
        callable takes two samples and returns a number.

    {kernel_coefficients}

    n_components : int, default=500
        Number of landmarks (the rank of the map).

    random_state : int, RandomState instance or None, default=None
        Draws the landmarks when there are more samples than
        ``n_components``.

    Attributes
    ----------
    landmarks_ : ndarray of shape (n_landmarks,)
        Indices of the training samples used as landmarks (sorted).

    gamma_ : float or None
        The kernel coefficient used (``None`` for kernels without one).

    nystroem_ : sklearn.kernel_approximation.Nystroem
        The map fitted to the landmarks.

    n_samples_fit_ : int
        Number of training samples.

    shift_ : ndarray of shape (n_features,) or None
        With the rbf kernel, which does not depend on the origin, the mean
        of dense training samples far from it (:func:`mmc._rows.origin_shift`),
        subtracted from every sample the map sees; else None.
    """

    def __init__(
        self,
        kernel,
        *,
        gamma="scale",
        degree=3,
        coef0=0.0,
        n_components=500,
        random_state=None,
    ):
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.n_components = n_components
        self.random_state = random_state

    @single_blas_thread
    def fit(self, X):
        """Choose the landmarks and fit the map on them.

        Parameters
        ----------
        X : {ndarray, sparse matrix} of shape (n_samples, n_features)
            Validated training samples, or the (n_samples, n_samples) kernel
            matrix if ``kernel="precomputed"``.

        Returns
        -------
        self : KernelFeatureMap
        """
        if self.kernel == "precomputed":
            _check_kernel_matrix(X)
        elif callable(self.kernel):
            _check_callable_kernel(self.kernel, X)
        return self._fit(X, check_definite=True)

    def _fit(self, X, check_definite):
        precomputed = self.kernel == "precomputed"
        n_samples = X.shape[0]
        self.n_samples_fit_ = n_samples
        self.shift_ = origin_shift(X) if self.kernel == "rbf" else None
        X = centred(X, self.shift_)
        if n_samples <= self.n_components:
            self.landmarks_ = np.arange(n_samples)
        else:
            rng = check_random_state(self.random_state)
            self.landmarks_ = np.sort(
                rng.choice(n_samples, self.n_components, replace=False)
            )
        self.gamma_ = None
        if self.kernel in ("rbf", "poly", "sigmoid"):
            self.gamma_ = resolve_gamma(X, self.gamma)
        params = _kernel_params(self.kernel, self.gamma_, self.degree, self.coef0)
        # Every landmark is a basis vector of the Nystroem map (its own random
        # draw then only orders them), so the landmarks are chosen above, in
        # one way for every kind of kernel.
        basis = X[self.landmarks_]
        if precomputed:
            basis = _dense(basis[:, self.landmarks_])
            if check_definite:
                _warn_if_indefinite(basis)
        # The map divides by the square roots of the landmark kernel's
        # eigenvalues, which float32 rounding swamps: the landmarks are kept
        # in float64, so that every kernel value is computed in float64.
        nystroem = Nystroem(
            kernel=self.kernel,
            n_components=self.landmarks_.size,
            random_state=0,
            **params,
        )
        try:
            nystroem.fit(basis.astype(np.float64))
        except np.linalg.LinAlgError:  # the SVD of a kernel with NaN in it
            raise ValueError(self._non_finite_message()) from None
        if not np.isfinite(nystroem.normalization_).all():
            raise ValueError(self._non_finite_message())
        self.nystroem_ = nystroem
        self._params = params
        return self

    @single_blas_thread
    def sharpened_features(self, X, power, rows=None):
        """Features under the kernel ``k(x, z) ** power``, for training samples.

        The elementwise power of a positive semi-definite kernel is one too
        (the Schur product theorem); it keeps the similarities of close
        samples and shrinks the others, so that the rbf kernel becomes the
        rbf kernel with ``power`` times its ``gamma``. The map has the same
        landmarks as this one and is used at fit time only.

        Parameters
        ----------
        X : {ndarray, sparse matrix} of shape (n_samples, n_features)
            The samples this map was fitted on, or their kernel matrix if
            ``kernel="precomputed"``.

        power : int
            Exponent, at least 1.

        rows : ndarray of int, default=None
            The samples to map (all of them by default).

        Returns
        -------
        features : ndarray of shape (n_rows, n_landmarks), dtype=float64
        """
        rows = np.arange(X.shape[0]) if rows is None else rows
        if self.kernel == "precomputed":
            K = X[rows][:, self.landmarks_]
            K_landmarks = X[self.landmarks_][:, self.landmarks_]
        else:
            X = centred(X, self.shift_)
            basis = X[self.landmarks_].astype(np.float64)
            K = pairwise_kernels(X[rows], basis, metric=self.kernel, **self._params)
            K_landmarks = pairwise_kernels(basis, metric=self.kernel, **self._params)
        K, K_landmarks = (
            np.array(M.toarray() if sp.issparse(M) else M, dtype=np.float64) ** power
            for M in (K, K_landmarks)
        )
        # The power of the kernel is as definite as the kernel, which fit
        # has checked: no second warning.
        landmark_map = KernelFeatureMap("precomputed", n_components=K.shape[1])
        return landmark_map._fit(K_landmarks, check_definite=False).transform(K)

    def _non_finite_message(self):
        return (
            f"The kernel {self.kernel!r} gave NaN or infinite values on these "
            f"samples; check the kernel and its parameters (gamma, degree, coef0)."
        )

    @single_blas_thread
    def transform(self, X):
        """Map samples to the feature space of the kernel.

        Parameters
        ----------
        X : {ndarray, sparse matrix} of shape (n_samples, n_features)
            Validated samples, or their (n_samples, n_training_samples) kernel
            with the training samples if ``kernel="precomputed"``.

        Returns
        -------
        features : ndarray of shape (n_samples, n_landmarks)
            C-contiguous, in the dtype of X (computed in float64).

        Raises
        ------
        ValueError
            If the kernel gives NaN or infinite values.
        """
        if not hasattr(self, "nystroem_"):
            raise NotFittedError(
                "This KernelFeatureMap instance is not fitted yet. Call 'fit' "
                "with the training samples before 'transform'."
            )
        if self.kernel == "precomputed":
            X = _dense(X[:, self.landmarks_])
        else:
            X = centred(X, self.shift_)
        features = np.asarray(self.nystroem_.transform(X), dtype=X.dtype, order="C")
        if not np.isfinite(features).all():
            raise ValueError(self._non_finite_message())
        return features


def _dense(K):
    """A kernel block as an ndarray (a precomputed kernel may be sparse)."""
    return K.toarray() if sp.issparse(K) else np.asarray(K)
