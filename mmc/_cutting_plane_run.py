"""A run of the cutting-plane solver shared by the two-cluster estimators.

CPMMC and MultivariateMMC solve problems of the same shape,

    min_{w, b, xi}  1/2 |w|^2 + C xi
    s.t.            xi >= offset_c - z_c.w - slope_c b   for every constraint c,
                    |mean_i (w.x_i + b)| <= class_balance,

with an exponential family of constraints that depend on the signs of the
current decision values. They differ only in what a constraint is (a subset
of the samples for CPMMC, a labelling for MultivariateMMC) and how the most
violated one is found. The loop below -- add the most violated constraint,
then run CCCP on the working set, each CCCP step being one small dual QP --
is written once (CPM3C uses it too, with its multiclass constraints); each
estimator supplies a *working set* object with

* ``start(initial)``: set the current assignment from an initial labelling;
* ``add_most_violated()``: write the most violated constraint at the current
  iterate into the next slot and return its violation, which is also the
  loss term of the MMC objective there; ``commit()`` keeps it;
* ``solve()``: solve the dual QP of the working set and recover the primal
  iterate; ``update()``: recompute the assignment at the new iterate and the
  statistics of every constraint, returning the number of updates (0: the
  linearised problem did not change);
* ``slack()``, ``squared_norm()``, ``loss()``: the slack of the restricted
  problem, ``|w|^2`` and the loss term at the current iterate;
* ``solution()``: ``(coef, intercept)``; ``size``: the number of constraints;
* ``release()``: at convergence, let assignments that were held fixed change
  and return True, or return False (the run is over).

A working set whose assignments can follow the iterate freely may stop
early (``n_iter_no_change``); it then also has

* ``free``: whether the assignments follow the iterate at the moment;
* ``snapshot()`` and ``restore(snapshot)``: keep the iterate and its
  assignments, and go back to them (with the statistics of the constraints
  at them, where a run may go on from the iterate: CPMMC's continuation in
  C, :meth:`mmc._cutting_plane._CuttingPlaneEstimator._run_levels`);
* ``set_C(C)``: go on at another C (the continuation).

The subset working set of :mod:`mmc._cpmmc_constraints` and the multiclass
one of :mod:`mmc._cpm3c_constraints` implement it. The estimators' base,
which runs it from each start, is :mod:`mmc._cutting_plane`.
"""

from collections import namedtuple

import numpy as np

from mmc._threads import raise_if_stopped

# The continuation in C: the values C / 2**(N_LEVELS - 1), ..., C / 2, C,
# each solved from the solution of the one before (CPM3C's coordinate
# descent, mmc/_cpm3c_dual.py, where the number was chosen; the runs of
# CPMMC and MultivariateMMC with continuation=True, mmc/_cutting_plane.py).
N_LEVELS = 4


def continuation_values(C, n_levels=N_LEVELS):
    """The values of C of a continuation ending at C, smallest first."""
    return [C / 2.0 ** (n_levels - 1 - level) for level in range(n_levels)]


RunResult = namedtuple(
    "RunResult",
    [
        "coef",
        "intercept",
        "objective",
        "n_iter",
        "n_constraints",
        "converged",
        "start",
        "n_empty_clusters",
    ],
    defaults=[0],
)


def cutting_plane_run(
    working_set,
    *,
    C,
    epsilon,
    tol,
    max_iter,
    max_cccp_iter,
    verbose,
    start,
    name,
    n_iter_no_change=None,
):
    """One run of the cutting-plane method from a started working set.

    Parameters
    ----------
    working_set : object
        Working set of the estimator, already started from an initial
        labelling (see the module docstring).

    C, epsilon, tol, max_iter, max_cccp_iter, verbose
        See the estimators; C and epsilon here are in the units of the
        working set (C already divided by the spread of X).

    start, name : str
        Names of the initialisation and of the estimator, for reporting.

    n_iter_no_change : int or None, default=None
        While the assignments are free, the MMC objective at each iterate
        (``1/2 |W|^2 + C`` times the violation of the most violated
        constraint, which is the loss there) is tracked: the run stops
        after this many iterations in a row that do not lower the best one,
        and ends at the best iterate. None: the run goes on until the
        precision ``epsilon`` or ``max_iter``, and ends at its last iterate.

    Returns
    -------
    result : RunResult
    """
    xi = 0.0
    converged = False
    best_objective, best, n_stale = np.inf, None, 0
    for n_iter in range(1, max_iter + 1):
        # On a thread, a restart stops here when another failed or Ctrl-C
        # was pressed (the kernels check too, within long scans).
        raise_if_stopped()
        violation = working_set.add_most_violated()
        if n_iter_no_change is not None and working_set.free:
            # With free assignments CCCP can cycle: samples near a boundary
            # change class at every step and the violation stays far above
            # the slack of the working set (bench/studies/cpm3c_speed.md).
            objective = 0.5 * working_set.squared_norm() + C * violation
            if objective < best_objective:
                best_objective, best, n_stale = objective, working_set.snapshot(), 0
            else:
                n_stale += 1
                if n_stale >= n_iter_no_change:
                    converged = True
                    break
        if n_iter > 1 and violation <= xi + epsilon:
            # A working set that held its assignments fixed so far lets them
            # go now and goes on from the solution it reached.
            if not working_set.release():
                converged = True
                break
            xi = working_set.slack()
            violation = working_set.add_most_violated()
        working_set.commit()

        previous = np.inf
        for _ in range(max_cccp_iter):
            working_set.solve()
            n_updates = working_set.update()
            # With the statistics at the new assignments the linearised
            # constraints are exact, so this is the slack of the restricted
            # problem at the new iterate.
            xi = working_set.slack()
            objective = 0.5 * working_set.squared_norm() + C * xi
            if n_updates == 0 or previous - objective <= tol * objective:
                break
            previous = objective
        if verbose > 1:
            print(
                f"[{name} {start}] iteration {n_iter}: {working_set.size} "
                f"constraints, violation {violation:.5f}, slack {xi:.5f}"
            )
    else:
        violation = working_set.loss()

    objective = 0.5 * working_set.squared_norm() + C * violation
    if best_objective < objective:
        working_set.restore(best)
        objective = best_objective
    if verbose:
        print(
            f"[{name} {start}] {'converged' if converged else 'stopped'} after "
            f"{n_iter} iterations, objective {objective:.6f}"
        )
    coef, intercept = working_set.solution()
    return RunResult(
        coef, intercept, objective, n_iter, working_set.size, converged, start
    )
