"""Kernel of ``mmc._qp``: the optimality check of a small dense QP's solution.

The cutting-plane solvers solve a dual QP of a few dozen variables at every
CCCP step, more than a thousand per fit on small data, and each solution is
checked against the optimality conditions (and again after polishing). On
problems this small the check's cost was the NumPy calls' overhead, not
arithmetic: about fifteen reductions and products, 50-70 us a check, more
than quadprog's own solve. Here it is one pass over the arrays.

The conditions are those of the NumPy form in the tests
(``tests/_reference.py``), each relative to the magnitude of its terms;
the products ``A'x``, ``Hx`` and ``A m`` are summed in index order (no
BLAS, whose kernels sum in other orders), so the answer is the same on
every machine. It decides only whether quadprog's point is kept or
polished; it produces no number.
"""

from libc.math cimport fabs

import numpy as np


cdef inline double _abs_max(const double[::1] values) noexcept nogil:
    """Largest absolute value, 0 for no values."""
    cdef double largest = 0.0
    cdef Py_ssize_t i
    for i in range(values.shape[0]):
        if fabs(values[i]) > largest:
            largest = fabs(values[i])
    return largest


def satisfies_kkt(
        const double[:, :] hessian,      # IN, (n_vars, n_vars)
        const double[::1] linear,        # IN, (n_vars,)
        const double[:, :] constraints,  # IN, (n_vars, n_constraints)
        const double[::1] bounds,        # IN, (n_constraints,)
        Py_ssize_t n_equalities,         # IN
        const double[::1] x,             # IN, (n_vars,)
        const double[::1] multipliers,   # IN, (n_constraints,)
        double tol,                      # IN
):
    """Whether ``(x, multipliers)`` solves ``min 1/2 x'Hx - linear'x`` s.t.
    ``constraints.T @ x >= bounds`` (the first ``n_equalities`` as
    equalities) to the relative tolerance ``tol``.

    Checks primal feasibility, the signs of the inequality multipliers,
    complementary slackness and stationarity ``Hx - linear = A m``; a NaN
    anywhere in x or the multipliers fails the check.
    """
    cdef double[::1] slack = np.empty(bounds.shape[0])
    cdef bint satisfied
    with nogil:
        satisfied = _satisfies_kkt(
            hessian, linear, constraints, bounds, n_equalities, x, multipliers,
            tol, slack,
        )
    return satisfied


cdef bint _satisfies_kkt(
        const double[:, :] hessian,
        const double[::1] linear,
        const double[:, :] constraints,
        const double[::1] bounds,
        Py_ssize_t n_equalities,
        const double[::1] x,
        const double[::1] multipliers,
        double tol,
        double[::1] slack,               # OUT, scratch (n_constraints,)
) noexcept nogil:
    cdef Py_ssize_t n_vars = x.shape[0]
    cdef Py_ssize_t n_cons = bounds.shape[0]
    cdef Py_ssize_t i, j
    cdef double total, size, largest_product = 0.0, m_size, residual
    cdef double largest_hx = 0.0, largest_residual = 0.0, largest_m = 0.0
    for j in range(n_cons):
        total = 0.0
        for i in range(n_vars):
            total = total + constraints[i, j] * x[i]
        if not fabs(total) <= largest_product:
            if fabs(total) > largest_product:
                largest_product = fabs(total)
            else:
                return False  # NaN
        slack[j] = total - bounds[j]
    size = 1.0 + _abs_max(bounds) + largest_product
    for j in range(n_equalities):
        if fabs(slack[j]) > tol * size:
            return False
    for j in range(n_equalities, n_cons):
        if slack[j] < -tol * size:
            return False
    for j in range(n_cons):
        if not fabs(multipliers[j]) <= largest_m:
            if fabs(multipliers[j]) > largest_m:
                largest_m = fabs(multipliers[j])
            else:
                return False
    m_size = 1.0 + largest_m
    for j in range(n_equalities, n_cons):
        if multipliers[j] < -tol * m_size:
            return False
        if fabs(multipliers[j] * slack[j]) > tol * size * m_size:
            return False
    # Stationarity: (Hx - linear) - A m, each component.
    for i in range(n_vars):
        total = 0.0
        for j in range(n_vars):
            total = total + hessian[i, j] * x[j]
        if fabs(total) > largest_hx:
            largest_hx = fabs(total)
        residual = total - linear[i]
        total = 0.0
        for j in range(n_cons):
            total = total + constraints[i, j] * multipliers[j]
        residual = residual - total
        if not fabs(residual) <= largest_residual:
            if fabs(residual) > largest_residual:
                largest_residual = fabs(residual)
            else:
                return False
    return largest_residual <= tol * (1.0 + _abs_max(linear) + largest_hx)
