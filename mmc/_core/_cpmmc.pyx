"""Kernels of the binary cutting-plane solver (CPMMC).

Notation: ``f_i = w.x_i + b`` are the decision values and
``s_i = +1 if f_i > 0 else -1`` the signs at the current CCCP iterate. A
constraint is a 0/1 vector ``c`` over the samples; the working set is stored
sample-major in a uint8 matrix ``constraints`` of shape (n_samples, capacity),
so that a pass over the samples reads the memberships of sample i
contiguously. For constraint k the solver keeps

    Z[k] = (1/n) sum_i c_ki s_i x_i    and    sign_sums[k] = (1/n) sum_i c_ki s_i.

Between CCCP iterations only the samples whose sign flipped change these
(``Z[k] += (2/n) s_i x_i`` for flipped i with c_ki = 1), so the update costs
O(n_flipped * n_constraints * nnz per row) instead of a pass per constraint.
"""

from cython cimport floating
from libc.math cimport fabs

from mmc._core._common cimport (
    _indices,
    _n_rows,
    _row_axpy,
    _row_dot,
    _row_span,
    _row_sq_norm,
    _values,
)


def flip_signs(
        const double[::1] decision,  # IN
        signed char[::1] signs,      # INOUT
        int[::1] flipped,            # OUT
):
    """Set ``signs`` to the signs of ``decision`` and list the samples that flipped.

    Parameters
    ----------
    decision : ndarray of shape (n_samples,), dtype=float64
        Decision values f.

    signs : ndarray of shape (n_samples,), dtype=int8
        Signs at the previous iterate (+1 or -1); overwritten with
        ``+1 if f_i > 0 else -1``.

    flipped : ndarray of shape (n_samples,), dtype=int32
        Buffer; its first ``n_flipped`` entries receive, in increasing order,
        the indices of the samples whose sign changed.

    Returns
    -------
    n_flipped : int
        Number of samples whose sign changed.
    """
    cdef:
        Py_ssize_t n_samples = decision.shape[0]
        Py_ssize_t i
        int n_flipped = 0
        signed char new_sign

    with nogil:
        for i in range(n_samples):
            new_sign = 1 if decision[i] > 0 else -1
            if new_sign != signs[i]:
                signs[i] = new_sign
                flipped[n_flipped] = <int> i
                n_flipped += 1
    return n_flipped


cdef inline void _rank_update(
        double[:, ::1] gram,
        double[::1] Z_mean,
        const unsigned char[:, ::1] constraints,
        Py_ssize_t i,
        Py_ssize_t n_constraints,
        const double *projections,
        double step,
        double sq_norm,
        double mean_projection,
) noexcept nogil:
    """Update ``gram = Z Z'`` and ``Z_mean = Z x_mean`` for ``Z[k] += step x_i``.

    With m the membership vector of sample i and g = Z x_i (before the
    update), ``Z Z'`` gains ``step (m g' + g m') + step^2 |x_i|^2 m m'``.
    """
    cdef Py_ssize_t k, m
    for k in range(n_constraints):
        if constraints[i, k]:
            Z_mean[k] += step * mean_projection
            for m in range(n_constraints):
                gram[k, m] += step * projections[m]
                gram[m, k] += step * projections[m]
                if constraints[i, m]:
                    gram[k, m] += step * step * sq_norm


def apply_flips(
        const floating[::1] X_data,                # IN
        const int[::1] X_indices,                  # IN
        const int[::1] X_indptr,                   # IN
        Py_ssize_t n_features,                     # IN
        const int[::1] flipped,                    # IN
        int n_flipped,                             # IN
        const signed char[::1] signs,              # IN
        const unsigned char[:, ::1] constraints,   # IN
        Py_ssize_t n_constraints,                  # IN
        const double[::1] x_mean,                  # IN
        double[:, ::1] Z,                          # INOUT
        double[::1] sign_sums,                     # INOUT
        double[:, ::1] gram,                       # INOUT
        double[::1] Z_mean,                        # INOUT
        double[::1] projections,                   # scratch, (capacity,)
):
    """Update the constraint statistics for the samples whose sign flipped.

    Each flipped sample i changes ``Z[k]`` by ``(2/n) s_i x_i`` and
    ``sign_sums[k]`` by ``(2/n) s_i`` for every constraint k containing it;
    the products ``gram = Z Z'`` and ``Z_mean = Z x_mean`` receive the
    matching rank-one corrections, so nothing of size n_features * capacity
    is recomputed.

    Parameters
    ----------
    X_data, X_indices, X_indptr, n_features
        The rows of X, of shape (n_samples, n_features): its CSR arrays, or
        its values flattened with empty indices (see ``_common.pxd``).

    flipped : ndarray of shape (>= n_flipped,), dtype=int32
        Indices of the samples whose sign flipped (from :func:`flip_signs`).

    n_flipped : int
        Number of valid entries in ``flipped``.

    signs : ndarray of shape (n_samples,), dtype=int8
        The new signs.

    constraints : ndarray of shape (n_samples, capacity), dtype=uint8
        Membership of each sample in each constraint of the working set.

    n_constraints : int
        Number of constraints in use (the first columns of ``constraints``).

    x_mean : ndarray of shape (n_features,), dtype=float64
        Mean of the rows of X.

    Z : ndarray of shape (capacity, n_features), dtype=float64
        ``Z[k] = (1/n) sum_i c_ki s_i x_i``, updated in place.

    sign_sums : ndarray of shape (capacity,), dtype=float64
        ``sign_sums[k] = (1/n) sum_i c_ki s_i``, updated in place.

    gram : ndarray of shape (capacity, capacity), dtype=float64
        ``Z Z'`` on the first ``n_constraints`` rows and columns, updated in
        place.

    Z_mean : ndarray of shape (capacity,), dtype=float64
        ``Z x_mean``, updated in place.

    projections : ndarray of shape (capacity,), dtype=float64
        Scratch buffer.

    Returns
    -------
    n_updates : int
        Number of (sample, constraint) memberships updated; zero means that
        the working set did not change.
    """
    cdef:
        const floating *data = _values(X_data)
        const int *indices = _indices(X_indices)
        const int *indptr = _indices(X_indptr)
        Py_ssize_t n_samples = _n_rows(X_data.shape[0], X_indptr.shape[0], n_features)
        Py_ssize_t t, i, k, start, end
        double step, sq_norm, mean_projection
        long n_updates = 0
        bint member

    if n_samples == 0:
        return 0

    with nogil:
        for t in range(n_flipped):
            i = flipped[t]
            member = False
            for k in range(n_constraints):
                if constraints[i, k]:
                    member = True
                    break
            if not member:
                continue
            step = 2.0 * signs[i] / n_samples
            _row_span(indptr, n_features, i, &start, &end)
            sq_norm = _row_sq_norm(data, start, end)
            mean_projection = _row_dot(data, indices, start, end, &x_mean[0])
            for k in range(n_constraints):
                projections[k] = _row_dot(data, indices, start, end, &Z[k, 0])
            _rank_update(gram, Z_mean, constraints, i, n_constraints,
                         &projections[0], step, sq_norm, mean_projection)
            for k in range(n_constraints):
                if constraints[i, k]:
                    _row_axpy(step, data, indices, start, end, &Z[k, 0])
                    sign_sums[k] += step
                    n_updates += 1
    return n_updates


def most_violated(
        const floating[::1] X_data,          # IN
        const int[::1] X_indices,            # IN
        const int[::1] X_indptr,             # IN
        Py_ssize_t n_features,               # IN
        const double[::1] decision,          # IN
        unsigned char[:, ::1] constraints,   # INOUT (column `column` written)
        Py_ssize_t column,                   # IN
        double[::1] z,                       # OUT
):
    """Most violated constraint (eq. 3.12) and its statistics, in one pass.

    The constraint selects the samples inside the margin, ``c_i = |f_i| < 1``;
    its violation is ``(1/n) sum_i c_i (1 - |f_i|)``, which is also the mean
    hinge loss ``(1/n) sum_i max(0, 1 - |f_i|)`` of the MMC objective.

    Parameters
    ----------
    X_data, X_indices, X_indptr, n_features
        The rows of X, of shape (n_samples, n_features) (see
        ``_common.pxd``).

    decision : ndarray of shape (n_samples,), dtype=float64
        Decision values f at the current iterate.

    constraints : ndarray of shape (n_samples, capacity), dtype=uint8
        Working set; column ``column`` receives the new constraint c.

    column : int
        Column of ``constraints`` to write.

    z : ndarray of shape (n_features,), dtype=float64
        Receives ``(1/n) sum_i c_i s_i x_i`` with ``s_i = +1 if f_i > 0 else -1``.

    Returns
    -------
    violation : float
        ``(1/n) sum_i c_i (1 - |f_i|)``.

    size : float
        ``(1/n) sum_i c_i``.

    sign_sum : float
        ``(1/n) sum_i c_i s_i``.
    """
    cdef:
        const floating *data = _values(X_data)
        const int *indices = _indices(X_indices)
        const int *indptr = _indices(X_indptr)
        Py_ssize_t n_samples = _n_rows(X_data.shape[0], X_indptr.shape[0], n_features)
        Py_ssize_t i, j, start, end
        double margin, sign
        double violation = 0.0, size = 0.0, sign_sum = 0.0

    if n_samples == 0:
        return 0.0, 0.0, 0.0

    with nogil:
        for j in range(z.shape[0]):
            z[j] = 0.0
        for i in range(n_samples):
            margin = fabs(decision[i])
            if margin < 1.0:
                constraints[i, column] = 1
                sign = 1.0 if decision[i] > 0 else -1.0
                violation += 1.0 - margin
                size += 1.0
                sign_sum += sign
                _row_span(indptr, n_features, i, &start, &end)
                _row_axpy(sign, data, indices, start, end, &z[0])
            else:
                constraints[i, column] = 0
        for j in range(z.shape[0]):
            z[j] /= n_samples
    return violation / n_samples, size / n_samples, sign_sum / n_samples
