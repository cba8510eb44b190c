"""CPM3C by dual coordinate descent: exact CCCP steps, warm-started.

CCCP alternates two steps on the objective of :class:`mmc.CPM3C`: with the
assignments ``y_i`` fixed, the multiclass (Crammer-Singer) SVM of that
clustering; then every sample moves to its best class. The cutting-plane
solver of the paper builds the SVM from aggregated constraints, one dual QP
per step, and needs hundreds of them (``bench/studies/cpm3c_speed.md``).
Here the SVM is solved in its per-sample dual by coordinate descent (the
kernel :func:`mmc._core._crammer_singer.dual_epochs`), a pass over X per
epoch, and needs few epochs once warm: between two CCCP steps only the
samples that changed class lose their dual variables.

The balance of the clusters is a floor on their sizes
(:func:`mmc._balance.size_floors`), held in the assignment step by offsets
of the classes' scores (:func:`mmc._balance.bound_prices`): with a number
for ``class_balance`` every cluster keeps at least ``(1 - class_balance) n
/ k`` samples, as in the k-cluster EvoMMC. (The paper's bound on the
classes' mean margins couples every dual variable; coordinate steps on its
multipliers converged slowly, and it does not stop a cluster from
emptying.)

Exact CCCP stops at the first clustering that the SVM of itself reproduces,
and every partition into Voronoi cells is one (the SVM of the k-means
clusters separates them). So C starts small and doubles each time CCCP
settles, up to its value: with a small C the samples near the boundaries
lie inside the margin, where the assignments follow the weights, and the
clusters sharpen as C grows (the continuation of transductive SVMs).
"""

import math

import numpy as np

from mmc._balance import bound_prices, floor_of
from mmc._core._common import mean_hinge_loss
from mmc._core._cpm3c import assign
from mmc._core._crammer_singer import dual_epochs, remove_samples
from mmc._cpm3c_constraints import (
    add_assignment_buffers,
    class_score_matrix,
    start_assignment,
)
from mmc._cutting_plane_run import N_LEVELS, RunResult, continuation_values
from mmc._dask import RowBlocks
from mmc._rows import decision_values, row_kernel, squared_norms
from mmc._threads import fit_threads, map_on_threads, pass_products

# Passes over the rows (epochs and assignment steps) that a run makes at
# least, about: 37-124 on the two-class cases of the robustness suite. With
# passes of n d k multiply-adds, restarts run on threads when a run costs
# THREADED_PASS_PRODUCTS (mmc._threads): on that suite two threads took 0.61
# to 0.85 of one thread's time from 21,000 multiply-adds a pass, 1.06-1.36
# at 800-3,400 (wine and iris, fits of 4-7 ms;
# bench/studies/cpm3c_restart_threads.md).
RUN_PASSES = 40

# Most epochs of coordinate descent for one SVM.
MAX_EPOCHS = 1000

# The default precision of each SVM, the largest violation of the dual's
# optimality conditions in units of the margin, and the number of values of
# C, doubling up to C (N_LEVELS, mmc/_cutting_plane_run.py). Chosen on the
# robustness suite's 16 multiclass and 57 two-class cases and the 45 digit
# pairs over three seeds, never on one data set
# (bench/studies/cpm3c_dual.md): a precision of 0.1 / 0.03 / 0.01
# gave mean errors of 4.67 / 4.70 / 4.71 (multiclass), 12.04 / 10.76 /
# 11.26 (two-class) and 2.01 / 1.93 / 1.93 (pairs) at median times of
# 7.6 / 8.5 / 10.6 KMeans's on the multiclass cases; 1 / 2 / 4 / 6 values
# of C gave 2.36 / 2.10 / 1.93 / 2.09 on the pairs and 10.89 / 11.29 /
# 10.76 / 11.35 on the two-class cases.
DUAL_TOL = 0.03

# The visiting order of the coordinate descent on Dask arrays
# (mmc/_dask_cpm3c.py): segments of SEGMENT_ROWS consecutive rows, each
# shuffled on its own, visited in N_ROUNDS rounds, each round a part of
# every segment (:func:`mmc._core._crammer_singer.dual_epochs`); the blocks
# hold whole segments, so that the result does not depend on the chunks.
# In memory the rows are visited in one shuffle of all of them, which the
# segments cannot match: the intercepts are the weights of a feature common
# to every row, and a shift of them (as after many samples change class)
# is absorbed by the rows visited next; in a fixed order of segments those
# are always the same rows, and the SVMs then ran to MAX_EPOCHS (10^5
# sparse rows: 120 s against 14 s; bench/studies/cpm3c_segments.md). Each
# round costs a Dask task per block; rounds spread the shift over every
# segment.
SEGMENT_ROWS = 1 << 16
N_ROUNDS = 8


def sum_of_sq_norms(X):
    """``sum_i |x_i|^2`` of the rows of X, summed exactly (then rounded),
    or of its blocks (:class:`mmc._dask.RowBlocks`), each block's sum
    exact."""
    if isinstance(X, RowBlocks):
        return math.fsum(X.map(_sq_norm_sum))
    return _sq_norm_sum(X, None, None)[1]


def centred_scale(X, x_mean):
    """``sqrt(mean |x - mean(x)|^2)``, the scale of the constant feature
    whose weights are the intercepts of CPM3C's linear scores (1 if every
    sample is the mean): regularised as much as the weights of a typical
    centred sample, whatever the origin of X. Summed exactly: the same on
    every CPU."""
    mean_sq_norm = sum_of_sq_norms(X) / X.shape[0]
    scale = math.sqrt(max(mean_sq_norm - math.fsum(x_mean * x_mean), 0.0))
    return scale if scale > 0 else 1.0


def _sq_norm_sum(block, _state, _shared):
    return None, math.fsum(squared_norms(block))


def centred_row_stats(X, x_mean, mean_sq_norm):
    """``x_i . mean`` and ``|x_i - mean|^2`` of every row of X (the squared
    norm of a centred sample without the constant feature), from the row
    kernels; ``mean_sq_norm`` is ``|mean|^2``."""
    x_dot_mean = decision_values(X, x_mean, 0.0)
    row_norms = squared_norms(X)
    return x_dot_mean, np.maximum(row_norms - 2.0 * x_dot_mean + mean_sq_norm, 0.0)


class DualMulticlassSVM:
    """The state of a CPM3C run solved by dual coordinate descent.

    Parameters
    ----------
    X : ndarray or CSR matrix of shape (n_samples, n_features)
        The samples (features of the kernel map, if any).

    x_mean : ndarray of shape (n_features,)
        The mean the samples are centred on.

    n_clusters : int

    floors : ndarray of shape (n_clusters - 1,)
        Once the assignments are free, the j smallest clusters keep at
        least ``floors[j - 1]`` samples (:func:`mmc._balance.size_floors`).

    intercept_scale : float
        Value ``s`` of the constant feature whose weights are the
        intercepts (0: no intercepts).

    relabel : bool
        Whether the assignments follow the weights after the SVM of the
        start (``refine_init``).

    tol : float
        Largest KKT violation of the SVM's dual, in units of the margin.

    seed : int
        Seeds the order in which the samples are visited.
    """

    # The rows in one shuffle, in one round (see SEGMENT_ROWS): None is one
    # segment of all rows.
    segment_rows = None
    n_rounds = 1
    # Values of C in the run's continuation (dual_cccp_run).
    n_levels = N_LEVELS

    def __init__(
        self,
        X,
        x_mean,
        n_clusters,
        floors,
        intercept_scale,
        relabel,
        tol,
        seed,
    ):
        self._set_parameters(
            X, x_mean, n_clusters, floors, intercept_scale, relabel, tol, seed
        )
        n_samples = X.shape[0]
        self._x_dot_mean, centred_sq_norms = centred_row_stats(
            X, self.x_mean, self._mean_sq_norm
        )
        # The squared norms of the rows as the kernel sees them, with the
        # constant feature: fixed for the run.
        self._sq_norms = centred_sq_norms + self.intercept_scale**2
        self._epochs = row_kernel(X, dual_epochs)
        self._remove = row_kernel(X, remove_samples)
        self._assign = row_kernel(X, assign)
        self.alpha = np.zeros((n_samples, n_clusters))
        add_assignment_buffers(self, n_samples)

    def _set_parameters(
        self, X, x_mean, n_clusters, floors, intercept_scale, relabel, tol, seed
    ):
        """What a run keeps of size independent of n: the parameters, the
        weights and the run's progress."""
        k = n_clusters
        self.X = X
        self.x_mean = np.asarray(x_mean, dtype=np.float64)
        self.n_clusters = k
        self.floors = np.asarray(floors, dtype=np.float64)
        self.relabel = relabel
        self.tol = tol
        self.seed = seed
        self.C = 0.0
        self.intercept_scale = float(intercept_scale)
        self._mean_sq_norm = math.fsum(self.x_mean * self.x_mean)
        # The weights in the form of the kernel: w' on the raw rows
        # (transposed), w'_p . mean, the coefficients a_p of the mean, and
        # the constant feature's weights.
        self.W_T = np.zeros((X.shape[1], k))
        self.W_dot_mean = np.zeros(k)
        self.mean_coef = np.zeros(k)
        self.v = np.zeros(k)
        self.pinned = True
        # At the last update: the objective and (W, intercepts).
        self.objective = np.inf
        self.weights = None
        self.n_epochs = 0
        self._n_solves = 0
        self.converged = False

    def start(self, state):
        """Start from ``(centres, labels)`` as
        :meth:`mmc._cpm3c_constraints.MulticlassConstraints.start` does:
        each sample in its cluster of ``labels``, or at its nearest centre,
        the assignments pinned until the SVM of that clustering is solved."""
        start_assignment(self, *state)
        self.counts = np.bincount(self.assignment, minlength=self.n_clusters)

    def set_C(self, C):
        """A new C; the dual variables stay feasible as long as C grows."""
        self.C = C

    # The products below go through the row kernels, not BLAS: they decide
    # assignments and the choice among restarts, which must not depend on
    # the BLAS kernel of the CPU.

    def centred_weights(self):
        """W, of shape (k, n_features), C-contiguous, on the centred samples."""
        return np.ascontiguousarray(self.W_T.T - np.outer(self.mean_coef, self.x_mean))

    def solution(self):
        """``(W, intercepts)``: scores ``W x + intercepts`` on raw samples."""
        W = self.centred_weights()
        return W, self.intercept_scale * self.v - decision_values(W, self.x_mean, 0.0)

    def squared_norm(self):
        row_norms = squared_norms(self.centred_weights())
        return math.fsum(row_norms) + math.fsum(self.v * self.v)

    def solve(self):
        """The SVM of the current assignments, to the precision ``tol``."""
        self._n_solves += 1
        n_epochs, violation = self._epochs(
            self._x_dot_mean,
            self._sq_norms,
            self.assignment,
            self.alpha,
            self.W_T,
            self.mean_coef,
            self.W_dot_mean,
            self.v,
            self.intercept_scale,
            self._mean_sq_norm,
            self.C / self.X.shape[0],
            (self.seed + self._n_solves) % 2**32,
            MAX_EPOCHS,
            self.tol,
            self.segment_rows or max(self.X.shape[0], 1),
            self.n_rounds,
        )
        self.n_epochs += n_epochs
        self.converged = violation <= self.tol

    def update(self):
        """Every sample to its best class (unless pinned), with the offsets
        of the classes' scores that meet the size floors (``floors``) when
        the best classes do not; the samples that moved lose their dual
        variables. Returns the number of moves.

        The objective and the solution of the SVM just solved, at the new
        assignments, are kept in ``objective`` and ``weights`` (the weights
        then lose the moved samples' part, which warm-starts the next SVM).
        """
        W, intercepts = self.solution()
        W_T = np.ascontiguousarray(W.T)
        counts, loss = self._assign_rows(W_T, intercepts, self.pinned, keep=True)
        floor = floor_of(counts, self.floors) if not self.pinned else 0.0
        if floor > 0:
            # Unregularised offsets of the classes (the multiclass analogue
            # of CPMMC's bias) keep the clusters at the floor.
            scores = self._score_rows(W_T, intercepts)
            intercepts = intercepts + bound_prices(scores, floor, self.X.shape[0])
            counts, loss = self._assign_rows(W_T, intercepts, False)
        self.counts = counts
        self.weights = (W, intercepts)
        self.objective = 0.5 * self.squared_norm() + self.C * loss
        return self._remove_moved()

    # The passes over the rows of :meth:`update` (mmc/_dask_cpm3c.py runs
    # them on blocks of rows).

    def _assign_rows(self, W_T, intercepts, pinned, keep=False):
        """Each sample to its best class (:func:`mmc._core._cpm3c.assign`);
        with ``keep``, the assignments before it are kept for
        :meth:`_remove_moved`. Returns the counts of the classes and the
        mean hinge loss."""
        if keep:
            self._before = self.assignment.copy()
        outputs = (
            self.assignment,
            self.runner,
            self.gap,
            self._changed,
            self._previous,
        )
        self._assign(W_T, intercepts, *outputs, pinned=pinned)
        counts = np.bincount(self.assignment, minlength=self.n_clusters)
        return counts, mean_hinge_loss(self.gap)

    def _score_rows(self, W_T, intercepts):
        """The score of every sample for every class, (n_samples, k)."""
        return class_score_matrix(self.X, W_T, intercepts)

    def _remove_moved(self):
        """The samples that changed class since :meth:`_assign_rows` kept
        the assignments lose their dual variables; returns their number."""
        moved = np.flatnonzero(self.assignment != self._before).astype(np.int32)
        if moved.size:
            self._remove(
                self._x_dot_mean,
                moved,
                self.alpha,
                self.W_T,
                self.mean_coef,
                self.W_dot_mean,
                self.v,
                self.intercept_scale,
            )
        return moved.size

    def release(self):
        """Let the assignments follow the weights: they move at once to the
        best classes of the SVM just solved. False if they were free already
        (or stay pinned, ``relabel`` False): the run is over."""
        if not (self.pinned and self.relabel):
            return False
        self.pinned = False
        self.update()
        return True

    def n_empty_clusters(self):
        return int((self.counts == 0).sum())

    def n_support(self):
        return int(np.count_nonzero(np.any(self.alpha != 0.0, axis=1)))


def best_dual_run(run_once, start, seed, direct, X, n_clusters):
    """The run of a start by coordinate descent: ``run_once(start,
    seed=seed)``, CCCP with the continuation in C (:func:`dual_cccp_run`),
    and with ``direct`` also the run at C from the same start
    (``n_levels=1``); the lower objective wins (a cluster lost loses first).

    The continuation from ``C / 2**(N_LEVELS - 1)`` can leave a start whose
    clustering the objective at C prefers: on blobs of ``600 / (1 + p)``
    samples, k = 8, k-means and the run at C erred 0 % at objective 2.91,
    the continuation 17.6 % at 5.70 (it merged two small blobs and split
    a large one while C was small). With k > 2, where the k-means start is
    the only one by default, CPM3C runs both: on the 16 multiclass cases
    of the robustness suite and 25 others, seeds 0-2, mean errors 4.62 ->
    4.59 and 17.86 -> 17.04 % (KMeans 4.56 and 17.19), for about 15 % more
    median fit time (``bench/studies/cpm3c_direct.md``). With two clusters
    the four starts already differ, and the direct runs changed nothing on
    average (57 two-class cases 10.76 -> 10.80 %, 45 digit pairs 1.80 ->
    1.80 %): they are not run.

    The two runs are independent: on samples X (in memory) whose epochs
    cost enough, they run on two threads
    (:func:`mmc._threads.fit_threads`), with the same results: on the ten
    digits the fit took 0.115 s instead of 0.157 s, 2.27 instead of 3.10
    times KMeans's (``bench/studies/cpm3c_threads.md``).
    """
    if not direct:
        return run_once(start, seed=seed)
    # A Dask fit's passes already run on the workers.
    products = 0 if isinstance(X, RowBlocks) else pass_products(X, n_clusters)
    results = map_on_threads(
        lambda options: run_once(start, seed=seed, **options),
        [{}, {"n_levels": 1}],
        fit_threads(2, products),
    )
    return min(results, key=lambda r: (r.n_empty_clusters, r.objective))


def dual_cccp_run(
    svm,
    *,
    C,
    tol,
    max_iter,
    n_iter_no_change,
    verbose,
    start,
    name,
):
    """One run of CCCP with SVMs solved by dual coordinate descent.

    ``svm`` is a started :class:`DualMulticlassSVM`. Each iteration solves
    the SVM of the current assignments and moves the samples to their best
    class. C starts at ``C / 2**(n_levels - 1)`` (the svm's ``n_levels``,
    ``N_LEVELS`` unless a run sets it) and doubles each time CCCP settles
    (no sample moves, or the objective decreases by less than ``tol`` times
    its value); the assignments, pinned to the start, are
    released when it first settles. The run ends when CCCP settles at C
    with nothing held, after ``n_iter_no_change`` iterations at C without a
    lower objective, or after ``max_iter`` iterations in all, at the
    iterate of lowest objective at C with free assignments (the last
    iterate if there is none).

    Returns
    -------
    result : RunResult
        ``n_constraints`` is the number of samples with non-zero dual
        variables (the support vectors of the last SVM).
    """
    # C is relative to the variance along the principal direction, whose
    # last digits follow the BLAS kernel; coordinate descent takes many
    # discrete steps (which sample is skipped, when an epoch is the last),
    # so C keeps 12 significant digits: the same on every CPU.
    C = float(f"{C:.12g}")
    n_levels = svm.n_levels
    values = continuation_values(C, n_levels)
    level = 0
    svm.set_C(values[0])
    best = (np.inf, None)
    previous, n_stale, converged = np.inf, 0, False
    for n_iter in range(1, max_iter + 1):
        svm.solve()
        n_changed = svm.update()
        objective = svm.objective
        if level == n_levels - 1 and not svm.pinned:
            if objective < best[0]:
                best, n_stale = (objective, svm.weights), 0
            else:
                n_stale += 1
        if verbose > 1:
            print(
                f"[{name} {start}] iteration {n_iter}: C / "
                f"{2 ** (n_levels - 1 - level)}, {n_changed} moves, objective "
                f"{objective:.6f}, {svm.n_epochs} epochs"
            )
        settled = svm.converged and (
            n_changed == 0 or previous - objective <= tol * abs(objective)
        )
        previous = objective
        if settled:
            # An objective of pinned assignments or of a smaller C is no bar.
            previous = np.inf
            if svm.release():
                continue
            if level == n_levels - 1:
                converged = True
                break
            level += 1
            svm.set_C(values[level])
        if n_iter_no_change is not None and n_stale >= n_iter_no_change:
            converged = True
            break
    if best[1] is None:
        best = (svm.objective, svm.weights)
    objective, (coef, intercept) = best
    if verbose:
        print(
            f"[{name} {start}] {'converged' if converged else 'stopped'} after "
            f"{n_iter} iterations, objective {objective:.6f}"
        )
    return RunResult(
        coef, intercept, objective, n_iter, svm.n_support(), converged, start
    )
