"""Kernels of optimal margin distribution clustering (ODMC).

Notation (see the docstring of ``mmc.ODMC``): ``n`` samples ``x_i``, their mean
``x_mean`` and the centred samples ``xc_i = x_i - x_mean``, which are never
formed (sparse X stays sparse). The working set holds ``K`` labellings
``y_k``, stored sample-major in an int8 matrix ``Y`` of shape (n, capacity).
The dual variables are two vectors ``a1, a2`` in the box ``[0, tau]^n`` (the
paper's alpha in units of lam / n) and ``b = a1 - a2``. For labelling k the
solver keeps, instead of the centred

    z_k = (1/n) sum_i b_i y_ik xc_i,

its uncentred part and a scalar,

    U[k] = (1/n) sum_i b_i y_ik x_i,    sigma[k] = (1/n) sum_i b_i y_ik,

so that ``z_k = U[k] - sigma[k] x_mean`` and a change of ``b_i`` touches only
the non-zeros of ``x_i``; ``ubar[k] = x_mean . U[k]`` is kept alongside. With
``row_mean_dot[i] = x_i . x_mean`` and ``mean_sq = |x_mean|^2``,

    xc_i . z_k = (x_i . U[k] - ubar[k]) - sigma[k] (row_mean_dot[i] - mean_sq).

Nothing here is of size n x n: the Gram matrix of the dual is only ever
applied through ``X'(b o y)`` and ``X z``, in O(nnz).
"""

from cython cimport floating

from mmc._core._common cimport (
    _indices,
    _n_rows,
    _row_axpy,
    _row_dot,
    _row_span,
    _values,
)


cdef inline void _solve_sample(
        double r_minus,
        double q,
        double c1,
        double c2,
        double theta,
        double tau,
        double *a1,
        double *a2,
) noexcept nogil:
    """Exact maximiser over ``[0, tau]^2`` of the dual restricted to one sample.

    The objective is ``-r_minus b - q/2 b^2 - c1/2 a1^2 - c2/2 a2^2
    + (1 - theta) a1 - (1 + theta) a2`` with ``b = a1 - a2``. At most one of
    a1, a2 is positive at the maximum (the two margin constraints of a sample
    cannot both be violated), so each is tried with the other at zero; the
    clip to ``tau`` is the box projection.
    """
    cdef double value = ((1.0 - theta) - r_minus) / (q + c1)
    if value > 0.0:
        a1[0] = value if value < tau else tau
        a2[0] = 0.0
        return
    a1[0] = 0.0
    value = (r_minus - (1.0 + theta)) / (q + c2)
    if value > 0.0:
        a2[0] = value if value < tau else tau
    else:
        a2[0] = 0.0


def solve_sample_wrapper(double r_minus, double q, double c1, double c2,
                         double theta, double tau):
    """Python access to the one-sample maximiser, for the tests."""
    cdef double a1, a2
    _solve_sample(r_minus, q, c1, c2, theta, tau, &a1, &a2)
    return a1, a2


def coordinate_epoch(
        const floating[::1] X_data,        # IN
        const int[::1] X_indices,          # IN
        const int[::1] X_indptr,           # IN
        Py_ssize_t n_features,             # IN
        const double[::1] row_mean_dot,    # IN  x_i . x_mean
        double mean_sq,                    # IN  |x_mean|^2
        const double[::1] row_sq_norm,     # IN  |x_i - x_mean|^2
        const signed char[:, ::1] Y,       # IN  (n_samples, capacity)
        Py_ssize_t n_labellings,           # IN
        const double[::1] mu,              # IN  (>= n_labellings,)
        const int[::1] order,              # IN  samples to visit, in order
        double lam,                        # IN
        double theta,                      # IN
        double nu,                         # IN
        double tau,                        # IN
        double[::1] a1,                    # INOUT
        double[::1] a2,                    # INOUT
        double[:, ::1] U,                  # INOUT (capacity, n_features)
        double[::1] sigma,                 # INOUT (capacity,)
        double[::1] ubar,                  # INOUT (capacity,)
):
    """One epoch of coordinate steps on alpha for the mixture ``mu`` of labellings.

    Visits the samples in ``order`` and replaces ``(a1_i, a2_i)`` by the exact
    maximiser in the box of ``phi(mu, alpha) = sum_k mu_k G(alpha, y_k)`` with
    the other samples fixed (a projected gradient step along the coordinate
    with step ``1 / curvature``), then updates ``U``, ``sigma`` and ``ubar``
    of every labelling. Cost: ``2 n_labellings`` products with the row, so
    ``O(n_labellings nnz)`` per epoch.

    Parameters
    ----------
    X_data, X_indices, X_indptr, n_features
        The rows of X, of shape (n_samples, n_features): its CSR arrays, or
        its values flattened with empty indices (see ``_common.pxd``); not
        centred.

    row_mean_dot : ndarray of shape (n_samples,), dtype=float64
        ``x_i . x_mean``.

    mean_sq : float
        ``|x_mean|^2``.

    row_sq_norm : ndarray of shape (n_samples,), dtype=float64
        ``|x_i - x_mean|^2``.

    Y : ndarray of shape (n_samples, capacity), dtype=int8
        Labellings (+1 / -1) of the working set, one per column.

    n_labellings : int
        Number of labellings in use (the first columns of Y).

    mu : ndarray of shape (>= n_labellings,), dtype=float64
        Weights of the labellings (on the simplex).

    order : ndarray of shape (n_visits,), dtype=int32
        Samples to visit, in order (usually a permutation of all samples).

    lam, theta, nu, tau : float
        Parameters of the dual (lam already divided by the squared scale of
        the data).

    a1, a2 : ndarray of shape (n_samples,), dtype=float64
        Dual variables, updated in place.

    U, sigma, ubar : ndarrays
        Statistics of the labellings (module docstring), updated in place.

    Returns
    -------
    change : float
        Largest change of a ``b_i = a1_i - a2_i`` during the epoch.
    """
    cdef:
        const floating *data = _values(X_data)
        const int *indices = _indices(X_indices)
        const int *indptr = _indices(X_indptr)
        Py_ssize_t n_samples = _n_rows(X_data.shape[0], X_indptr.shape[0], n_features)
        Py_ssize_t n_visits = order.shape[0]
        Py_ssize_t t, i, k, start, end
        double c1 = 0.5 * (1.0 - theta) * (1.0 - theta)
        double c2 = c1 / nu
        double inv_n, acc, r, q, b_old, delta, step, change = 0.0
        double new_a1, new_a2

    if n_samples == 0:
        return 0.0
    inv_n = 1.0 / n_samples

    with nogil:
        for t in range(n_visits):
            i = order[t]
            _row_span(indptr, n_features, i, &start, &end)
            r = 0.0
            for k in range(n_labellings):
                acc = _row_dot(data, indices, start, end, &U[k, 0])
                r += mu[k] * Y[i, k] * (
                    acc - ubar[k] - sigma[k] * (row_mean_dot[i] - mean_sq))
            r *= lam
            q = lam * row_sq_norm[i] * inv_n
            b_old = a1[i] - a2[i]
            _solve_sample(r - q * b_old, q, c1, c2, theta, tau, &new_a1, &new_a2)
            delta = (new_a1 - new_a2) - b_old
            a1[i] = new_a1
            a2[i] = new_a2
            if delta == 0.0:
                continue
            if delta > change:
                change = delta
            elif -delta > change:
                change = -delta
            for k in range(n_labellings):
                step = delta * Y[i, k] * inv_n
                _row_axpy(step, data, indices, start, end, &U[k, 0])
                sigma[k] += step
                ubar[k] += step * row_mean_dot[i]
    return change


def mixture_margins(
        const floating[::1] X_data,        # IN
        const int[::1] X_indices,          # IN
        const int[::1] X_indptr,           # IN
        Py_ssize_t n_features,             # IN
        const double[::1] row_mean_dot,    # IN
        double mean_sq,                    # IN
        const signed char[:, ::1] Y,       # IN
        Py_ssize_t n_labellings,           # IN
        const double[::1] mu,              # IN
        double lam,                        # IN
        const double[:, ::1] U,            # IN
        const double[::1] sigma,           # IN
        const double[::1] ubar,            # IN
        const double[::1] weights,         # IN  (n_samples,)
        double[::1] out,                   # OUT (n_samples,)
        double[::1] spread,                # OUT (>= n_labellings,)
        double[::1] scratch,               # scratch (>= n_labellings,)
):
    """Margins under the mixture: ``out_i = lam sum_k mu_k y_ik xc_i . z_k``.

    ``-out_i / n`` is the derivative of the coupling term of
    ``phi(mu, alpha)`` in ``b_i``; with a single labelling, ``out_i`` is the
    margin ``y_i f(x_i)`` of the ODM with ``w = lam z``. The same pass adds
    up, for every labelling, how far its own margins are from the mixture's,
    ``spread[k] = sum_i weights_i (lam y_ik xc_i . z_k - out_i)^2``, from
    which the driver sets the step of mu.

    Parameters
    ----------
    X_data, X_indices, X_indptr, n_features
        The rows of X, of shape (n_samples, n_features): its CSR arrays, or
        its values flattened with empty indices (see ``_common.pxd``); not
        centred.

    row_mean_dot, mean_sq, Y, n_labellings, mu, lam, U, sigma, ubar
        As in :func:`coordinate_epoch` (read only).

    weights : ndarray of shape (n_samples,), dtype=float64
        Weight of each sample in ``spread`` (0 skips it).

    out : ndarray of shape (n_samples,), dtype=float64
        Receives the margins.

    spread : ndarray of shape (>= n_labellings,), dtype=float64
        Receives the weighted squared distances of each labelling's margins
        to the mixture's.

    scratch : ndarray of shape (>= n_labellings,), dtype=float64
        Scratch buffer.
    """
    cdef:
        const floating *data = _values(X_data)
        const int *indices = _indices(X_indices)
        const int *indptr = _indices(X_indptr)
        Py_ssize_t n_samples = _n_rows(X_data.shape[0], X_indptr.shape[0], n_features)
        Py_ssize_t i, k, start, end
        double acc, r

    with nogil:
        for k in range(n_labellings):
            spread[k] = 0.0
        for i in range(n_samples):
            _row_span(indptr, n_features, i, &start, &end)
            r = 0.0
            for k in range(n_labellings):
                acc = _row_dot(data, indices, start, end, &U[k, 0])
                acc = lam * Y[i, k] * (
                    acc - ubar[k] - sigma[k] * (row_mean_dot[i] - mean_sq))
                scratch[k] = acc
                r += mu[k] * acc
            out[i] = r
            if weights[i] != 0.0:
                for k in range(n_labellings):
                    spread[k] += weights[i] * (scratch[k] - r) * (scratch[k] - r)


def labelling_sums(
        const floating[::1] X_data,        # IN
        const int[::1] X_indices,          # IN
        const int[::1] X_indptr,           # IN
        Py_ssize_t n_features,             # IN
        const double[::1] weights,         # IN  (n_samples,)
        const signed char[:, ::1] Y,       # IN  (n_samples, capacity)
        Py_ssize_t n_labellings,           # IN
        double[:, ::1] U,                  # OUT (capacity, n_features)
        double[::1] sigma,                 # OUT (capacity,)
):
    """``U[k] = (1/n) X'(weights o y_k)`` and ``sigma[k] = (1/n) weights . y_k``.

    One pass over X for all the labellings. With ``weights = b`` these are
    the statistics of the module docstring, from scratch.

    Parameters
    ----------
    X_data, X_indices, X_indptr, n_features
        The rows of X, of shape (n_samples, n_features): its CSR arrays, or
        its values flattened with empty indices (see ``_common.pxd``); not
        centred.

    weights : ndarray of shape (n_samples,), dtype=float64
        Weight of each sample.

    Y : ndarray of shape (n_samples, capacity), dtype=int8
        Labellings, one per column.

    n_labellings : int
        Number of columns of Y to use.

    U : ndarray of shape (capacity, n_features), dtype=float64
        Rows ``0 .. n_labellings - 1`` receive the weighted sums.

    sigma : ndarray of shape (capacity,), dtype=float64
        Entries ``0 .. n_labellings - 1`` receive the weighted label sums.
    """
    cdef:
        const floating *data = _values(X_data)
        const int *indices = _indices(X_indices)
        const int *indptr = _indices(X_indptr)
        Py_ssize_t n_samples = _n_rows(X_data.shape[0], X_indptr.shape[0], n_features)
        Py_ssize_t i, k, start, end
        double step, inv_n

    for k in range(n_labellings):
        sigma[k] = 0.0
        U[k, :] = 0.0
    if n_samples <= 0:
        return
    inv_n = 1.0 / n_samples
    with nogil:
        for i in range(n_samples):
            if weights[i] == 0.0:
                continue
            _row_span(indptr, n_features, i, &start, &end)
            for k in range(n_labellings):
                step = weights[i] * Y[i, k] * inv_n
                sigma[k] += step
                _row_axpy(step, data, indices, start, end, &U[k, 0])
