"""The working set of CPM3C: multiclass constraints, their statistics and W.

CPM3C (Zhao, Wang and Zhang, 2008) adds constraints that give each sample
nothing or a competing class (eq. 14 of the paper), and solves each
restricted problem by CCCP; :class:`MulticlassConstraints` implements the
working-set interface of :func:`mmc._cutting_plane_run.cutting_plane_run` for
it. The row loops are in ``mmc/_core/_cpm3c.pyx``, the dual QP in
:class:`mmc._qp.CPM3CDual`.
"""

import numpy as np

from mmc._core._common import mean_hinge_loss
from mmc._core._cpm3c import (
    apply_changes,
    assign,
    class_sums,
    most_violated,
    score_matrix,
)
from mmc._kmeans import nearest_centres
from mmc._qp import CPM3CDual
from mmc._rows import decision_values, grow_columns, grow_rows, row_kernel


def class_scores(assign, n_samples, W_T, intercepts, assignment, pinned=False):
    """Best class of each sample by ``assign``, the kernel
    :func:`mmc._core._cpm3c.assign` bound to X; returns (assignment, runner, gap)."""
    runner = np.empty(n_samples, dtype=np.uint8)
    gap = np.empty(n_samples)
    changed = np.empty(n_samples, dtype=np.int32)
    previous = np.empty(n_samples, dtype=np.uint8)
    assign(W_T, intercepts, assignment, runner, gap, changed, previous, pinned=pinned)
    return assignment, runner, gap


def best_classes(X, W_T, intercepts):
    """The best class of each row of X for the scores ``X W + intercepts``
    (ties to the lowest class), as uint8."""
    assignment = np.zeros(X.shape[0], dtype=np.uint8)
    class_scores(row_kernel(X, assign), X.shape[0], W_T, intercepts, assignment)
    return assignment


def class_score_matrix(X, W_T, intercepts):
    """Every class score ``X W + intercepts`` of every row of X, by the
    kernel :func:`mmc._core._cpm3c.score_matrix`: the arithmetic of
    :func:`best_classes` (no BLAS), the same on every machine."""
    scores = np.empty((X.shape[0], len(intercepts)))
    row_kernel(X, score_matrix)(W_T, intercepts, scores)
    return scores


def with_constant_feature(X):
    """The mapped samples X (dense) and a constant feature whose weights
    are the intercepts of CPM3C's scores with a kernel: the root mean
    squared norm of the samples (1 if every sample maps to 0). Measured
    against implicit intercepts on the scale of the centred samples, the 45
    digit pairs with the rbf kernel err 2.03% on average with it, 3.25%
    with those (bench/studies/cpm3c_intercept.md)."""
    scale = np.sqrt(np.mean(np.einsum("ij,ij->i", X, X, dtype=np.float64)))
    constant = np.full((X.shape[0], 1), scale if scale > 0 else 1.0, X.dtype)
    return np.hstack([X, constant])


def start_assignment(state, centres, labels):
    """Assign each sample of ``state`` (a CPM3C working set: ``X``, the
    bound kernel ``_assign``, ``assignment``) to its cluster in ``labels``,
    or to its nearest of ``centres`` when ``labels`` is None; returns each
    sample's runner-up class, the nearest other centre.

    The nearest centre is :func:`mmc._kmeans.nearest_centres`'s, ties
    within rounding to the first centre, as for every other start: where
    samples are as far from two centres up to the rounding of the
    features (an rbf map narrow enough that the samples are all but
    orthogonal; on digits 3v8 at ``gamma=4.23``, a grid point of the
    papers' protocol, 53 of 357 samples), the best score by itself
    followed the BLAS kernel that computed the features, and so did the
    clustering (8.40 % error on OpenBLAS's Haswell kernels, 8.68 % on its
    Sandybridge kernels)."""
    if labels is None:
        labels = nearest_centres(state.X, centres)
    state.assignment[:] = labels
    # -|x - c|^2 = 2 x.c - |c|^2 - |x|^2, and |x|^2 does not change the
    # order of the classes.
    _, runner, _ = class_scores(
        state._assign,
        state.X.shape[0],
        np.ascontiguousarray(2.0 * centres.T),
        -np.einsum("ij,ij->i", centres, centres),
        state.assignment,
        pinned=True,
    )
    return runner


def add_assignment_buffers(state, n_samples):
    """Give ``state`` the arrays of the assignment step (the kernel
    ``assign``): ``assignment``, ``runner`` and ``gap`` (each sample's best
    class, its runner-up and the gap between their scores), and the
    kernel's scratch ``_changed`` and ``_previous`` (the samples that
    changed class, their former classes)."""
    state.assignment = np.zeros(n_samples, dtype=np.uint8)
    state.runner = np.zeros(n_samples, dtype=np.uint8)
    state.gap = np.zeros(n_samples)
    state._changed = np.empty(n_samples, dtype=np.int32)
    state._previous = np.empty(n_samples, dtype=np.uint8)


def balance_vectors(class_sums, x_mean, assignment, runner, sums, runner_sums, D):
    """The balance vectors D_p of the centred samples, at the assignments.

    ``<D_p, W>`` is the mean margin of class p linearised at the assignments
    (see :class:`MulticlassConstraints`): ``D_p[p] = 0`` and
    ``D_p[q] = -(S_q + R_pq - (n_q + n_pq) mean(x)) / n`` for q != p.
    ``class_sums`` is the kernel :func:`mmc._core._cpm3c.class_sums` bound
    to X; ``sums``, ``runner_sums`` are its buffers and D, of shape
    (k, k, n_features), receives the vectors. Returns the counts
    ``n_q + n_pq``, of shape (k, k), from which the constant feature's
    entries follow (:func:`constant_balance`).
    """
    class_sums(assignment, runner, sums, runner_sums)
    k, n_samples = D.shape[0], assignment.shape[0]
    class_counts = np.bincount(assignment, minlength=k)
    pair_counts = np.bincount(
        assignment.astype(np.intp) * k + runner, minlength=k * k
    ).reshape(k, k)
    counts = (class_counts[None, :] + pair_counts).astype(np.float64)
    # Centred: each sum of m samples loses m mean(x), D_p[p] = 0.
    np.add(sums[None, :, :], runner_sums, out=D)
    D -= counts[:, :, None] * x_mean
    D /= -n_samples
    D[np.arange(k), np.arange(k)] = 0.0
    return counts


def constant_balance(counts, intercept_scale, n_samples):
    """The constant feature's entries of the balance vectors, (k, k): ``s``
    for class p in D_p, ``-s (n_q + n_pq) / n`` for the others."""
    k = counts.shape[0]
    entries = -intercept_scale * counts / n_samples
    entries[np.arange(k), np.arange(k)] = intercept_scale
    return entries


class MulticlassConstraints:
    """Working set of CPM3C and its current iterate W.

    Constraint c gives each sample nothing or a competing class r (eq. 14);
    linearised at the current assignments it reads
    ``xi >= A_c - <B_c, W>`` (see :mod:`mmc._core._cpm3c`). The set keeps the
    B_c (capacity, k, d), the A_c and their Frobenius Gram matrix; a change
    of assignment updates them in the kernel by rank-one corrections.

    It also holds the balance vectors D_p: ``<D_p, W>`` is the mean margin of
    class p linearised at the current assignments,

        (1/n) sum_i (t_ip - t_{i q_i(p)}),  q_i(p) = best class of i other than p,

    so ``D_p[p] = mean(x)`` and ``D_p[q] = -(S_q + R_pq) / n`` for q != p,
    with S_q the sum of the samples assigned to q and R_pq the sum of those
    assigned to p whose second-best class is q. It implements the interface
    of :func:`mmc._cutting_plane_run.cutting_plane_run`.

    The problem is posed on the centred samples ``x - mean(x)``, so that the
    clustering does not change when the data are translated (the fitted
    intercepts are ``-W mean(x)``, plus those of the constant feature
    below). The centring is implicit, as in CPMMC's working set:
    the kernels keep the B_c and their Gram matrix of the raw samples, and
    the centred ones follow from two small statistics per constraint,
    ``M_c[p] = (1/n) sum_{i in c} ([p = p_i] - [p = r_i])`` (the weight of
    the mean in B_c) and ``U_c[p] = B_c[p] . mean(x)``:

        centred B_c = B_c - M_c mean(x)',
        <centred B_a, centred B_b> = <B_a, B_b> - U_a.M_b - M_a.U_b
                                     + |mean(x)|^2 M_a.M_b.

    A sparse X stays sparse, and every kernel keeps its cost.

    Each class also has an intercept of its own: the weights ``v`` of a
    constant feature of value ``intercept_scale`` (s), which is not centred,
    so that the scores are ``w_p . (x - mean(x)) + s v_p`` and ``|v|^2``
    joins the norm (a regularised intercept on the scale of the samples).
    The constant feature adds ``s M_c`` to B_c, ``s^2 M_a.M_b`` to the Gram
    matrix and ``s`` (class p) or ``-s (n_q + n_pq) / n`` to the balance
    vector D_p, all from the statistics above.

    With ``hold_intercepts`` the intercepts stay at zero while the
    assignments are pinned to the start, and are released with them (see
    :meth:`release`).
    """

    def __init__(
        self,
        X,
        x_mean,
        capacity,
        C,
        class_balance,
        n_clusters,
        repin,
        relabel,
        intercept_scale=0.0,
        hold_intercepts=False,
    ):
        n_samples, n_features = X.shape
        self.X = X
        self.x_mean = x_mean
        self._mean_sq_norm = float(x_mean @ x_mean)
        # The scale in force, and the one held back until the release.
        self.intercept_scale = 0.0 if hold_intercepts else float(intercept_scale)
        self._held_intercept_scale = float(intercept_scale) if hold_intercepts else 0.0
        # x_i . mean(x), to move U_c when a sample changes class.
        self._x_dot_mean = decision_values(X, x_mean, 0.0)
        self._assign = row_kernel(X, assign)
        self._most_violated = row_kernel(X, most_violated)
        self._apply_changes = row_kernel(X, apply_changes)
        self._class_sums = row_kernel(X, class_sums)
        self.n_clusters = n_clusters
        self.dual = CPM3CDual(C, class_balance, n_clusters)
        self.size = 0
        self.constraints = np.zeros((n_samples, capacity), dtype=np.uint8)
        self.B = np.zeros((capacity, n_clusters, n_features))
        self.offsets_ = np.zeros(capacity)
        self._mean_weights = np.zeros((capacity, n_clusters))
        self._mean_products = np.zeros((capacity, n_clusters))
        self.gram = np.zeros((capacity, capacity))
        self._shift = np.zeros(capacity)
        self._sums = np.zeros((n_clusters, n_features))
        self._runner_sums = np.zeros((n_clusters, n_clusters, n_features))
        self.D = np.zeros((n_clusters, n_clusters, n_features))
        # The balance vectors' entries for the constant feature.
        self._D_constant = np.zeros((n_clusters, n_clusters))
        self.v = np.zeros(n_clusters)
        self.W = np.zeros((n_clusters, n_features))
        self._W_T = np.zeros((n_features, n_clusters))
        self.intercepts = np.zeros(n_clusters)
        add_assignment_buffers(self, n_samples)
        self.pinned = False
        self.repin = repin
        self.relabel = relabel
        self.tol = 1e-4
        self._released_objective = np.inf

    def _grow(self):
        capacity = 2 * self.constraints.shape[1]
        self.constraints = grow_columns(self.constraints, capacity)
        self.gram = grow_columns(grow_rows(self.gram, capacity), capacity)
        for name in ("B", "offsets_", "_shift", "_mean_weights", "_mean_products"):
            grow_rows(getattr(self, name), capacity)

    def start(self, state):
        """Start from an initial clustering, with the assignments held fixed.

        ``state`` is ``(centres, labels)``: each sample is assigned to its
        cluster in ``labels``, or to its nearest centre when ``labels`` is
        None, and its competing class is the nearest other centre (at W = 0
        every pair of scores ties, so the first constraint holds every
        sample). The assignments then stay fixed until the cutting plane
        converges, which trains a multiclass SVM on the initial clustering
        (:meth:`release` lets them go). Started from W = 0 with free
        assignments instead, the first CCCP steps empty clusters that the SVM
        solution keeps, at a higher MMC objective.
        """
        centres, labels = state
        self.pinned = True
        self.runner = start_assignment(self, centres, labels)
        self.gap[:] = 0.0
        self._update_balance()

    def _update_balance(self):
        """Balance vectors D_p at the current assignments (one pass over X)."""
        self._balance_counts = balance_vectors(
            self._class_sums,
            self.x_mean,
            self.assignment,
            self.runner,
            self._sums,
            self._runner_sums,
            self.D,
        )
        self._set_constant_balance()
        self._previous_runner = self.runner.copy()

    def _set_constant_balance(self):
        """The constant feature's entries of the balance vectors D_p."""
        self._D_constant = constant_balance(
            self._balance_counts, self.intercept_scale, self.X.shape[0]
        )

    def add_most_violated(self):
        """Append the most violated constraint at the iterate (eq. 14)."""
        if self.size == self.constraints.shape[1]:
            self._grow()
        k = self.size
        violation, size = self._most_violated(
            self.assignment, self.runner, self.gap, self.constraints, k, self.B[k]
        )
        self.offsets_[k] = size
        column = self.constraints[:, k]
        inside = column > 0
        self._mean_weights[k] = (
            np.bincount(self.assignment[inside], minlength=self.n_clusters)
            - np.bincount(column[inside] - 1, minlength=self.n_clusters)
        ) / self.X.shape[0]
        self._mean_products[k] = self.B[k] @ self.x_mean
        return violation

    def _centred_gram(self):
        """Frobenius Gram matrix of the centred B_c (class docstring)."""
        k = self.size
        M, U = self._mean_weights[:k], self._mean_products[:k]
        cross = U @ M.T
        sq_norm = self._mean_sq_norm + self.intercept_scale**2
        return self.gram[:k, :k] - cross - cross.T + sq_norm * (M @ M.T)

    def commit(self):
        """Keep the constraint written by the last :meth:`add_most_violated`."""
        k = self.size
        flat = self.B[: k + 1].reshape(k + 1, -1)
        row = flat @ flat[k]
        self.gram[k, : k + 1] = row
        self.gram[: k + 1, k] = row
        self.size += 1

    def solve(self):
        """Solve the dual QP and recover W."""
        k = self.size
        B = self.B[:k].reshape(k, -1)
        D = self.D.reshape(self.n_clusters, -1)
        M = self._mean_weights[:k]
        # <centred B_c, D_p> = <B_c, D_p> - sum_q M_c[q] (D_p[q] . mean(x)).
        D_dot_mean = self.D @ self.x_mean
        s, Dc = self.intercept_scale, self._D_constant
        B_dot_D = B @ D.T - M @ D_dot_mean.T + s * (M @ Dc.T)
        gram = self._centred_gram()
        lam, m = self.dual.solve(gram, self.offsets_[:k], B_dot_D, D @ D.T + Dc @ Dc.T)
        W = (lam @ B - m @ D).reshape(self.W.shape)
        self.W = W - np.outer(lam @ M, self.x_mean)
        self.v = s * (lam @ M) - m @ Dc
        self._W_T = np.ascontiguousarray(self.W.T)
        self.intercepts = s * self.v - self.W @ self.x_mean

    @property
    def free(self):
        """Whether the assignments follow W (CCCP) at the moment."""
        return self.relabel and not self.pinned

    def snapshot(self):
        """The iterate and its assignments, for :meth:`restore`."""
        return tuple(
            getattr(self, name).copy()
            for name in ("W", "v", "intercepts", "assignment", "runner", "gap")
        )

    def restore(self, snapshot):
        """Go back to an iterate kept by :meth:`snapshot`, at the end of a run
        (the constraints stay as they are)."""
        self.W, self.v, self.intercepts, self.assignment, self.runner, self.gap = (
            snapshot
        )
        self._W_T = np.ascontiguousarray(self.W.T)

    def release(self):
        """Let the assignments follow W; False if the run is over.

        Called when the cutting plane has converged with the assignments
        held fixed, i.e. at the multiclass SVM of the current clustering.
        Without ``repin`` the assignments follow W from now on (CCCP). With
        ``repin`` every sample moves to its best class at W and the
        assignments are pinned again: moving a sample to its best class can
        only lower the MMC objective at that W (the hinge loss of a sample is
        smallest for its best class), and the next SVM, warm-started from
        the constraints kept (each stays a lower bound of the loss under the
        new assignments), lowers it again. This block descent ends when no
        assignment changes or the objective no longer decreases by ``tol``;
        the state is then left as it is, so that the loss reported by the
        driver is that of the pinned assignments (equal to the MMC loss when
        nothing would change). Intercepts held at zero (``hold_intercepts``)
        are released at the first call, which then returns True even if the
        assignments stay.
        """
        released = self.pinned and self.relabel and self._release_assignments()
        if self._held_intercept_scale:
            # Held intercepts are released at the first convergence, with the
            # assignments or, if those stay, before the run can end.
            self.intercept_scale = self._held_intercept_scale
            self._held_intercept_scale = 0.0
            self._set_constant_balance()
            return True
        return released

    def _release_assignments(self):
        """The release of pinned assignments described in :meth:`release`."""
        if not self.repin:
            self.pinned = False
            self.update()
            return True
        assignment = self.assignment.copy()
        _, _, gap = class_scores(
            self._assign, self.X.shape[0], self._W_T, self.intercepts, assignment
        )
        if np.array_equal(assignment, self.assignment):
            return False
        objective = 0.5 * self.squared_norm() + self.dual.C * mean_hinge_loss(gap)
        if objective >= self._released_objective * (1.0 - self.tol):
            return False
        self._released_objective = objective
        self.pinned = False
        self.update()
        self.pinned = True
        return True

    def update(self):
        """Assignments at the new W; update the statistics of the constraints."""
        n_changed = self._assign(
            self._W_T,
            self.intercepts,
            self.assignment,
            self.runner,
            self.gap,
            self._changed,
            self._previous,
            pinned=self.pinned,
        )
        n_updates = 0
        if n_changed:
            self._move_mean_statistics(n_changed)
            n_updates = self._apply_changes(
                self._changed,
                self._previous,
                n_changed,
                self.assignment,
                self.constraints,
                self.size,
                B=self.B,
                offsets=self.offsets_,
                gram=self.gram,
                shift=self._shift,
            )
        # The balance vectors follow the runners-up as well as the classes.
        if n_changed or not np.array_equal(self.runner, self._previous_runner):
            self._update_balance()
            n_updates += 1
        return n_updates

    def _move_mean_statistics(self, n_changed):
        """M_c and U_c after the reassignments found by the last ``assign``.

        A sample i moving from class p to class q adds
        ``(e_q - e_p) x_i' / n`` to every B_c containing it (as the kernel
        ``apply_changes`` does), so ``(e_q - e_p) / n`` to M_c and
        ``(e_q - e_p) x_i.mean(x) / n`` to U_c.
        """
        k = self.size
        changed = self._changed[:n_changed]
        moves = np.zeros((n_changed, self.n_clusters))
        rows = np.arange(n_changed)
        moves[rows, self.assignment[changed]] += 1.0 / self.X.shape[0]
        moves[rows, self._previous[:n_changed]] -= 1.0 / self.X.shape[0]
        member = (self.constraints[changed, :k] > 0).astype(np.float64)
        self._mean_weights[:k] += member.T @ moves
        self._mean_products[:k] += member.T @ (moves * self._x_dot_mean[changed, None])

    def slack(self):
        """Slack of the restricted problem at W."""
        k = self.size
        products = self.B[:k].reshape(k, -1) @ self.W.ravel()
        products -= self._mean_weights[:k] @ (
            self.W @ self.x_mean - self.intercept_scale * self.v
        )
        return max(0.0, float((self.offsets_[:k] - products).max()))

    def squared_norm(self):
        return float(np.vdot(self.W, self.W) + self.v @ self.v)

    def loss(self):
        """Mean multiclass hinge loss at the iterate."""
        return mean_hinge_loss(self.gap)

    def n_empty_clusters(self):
        counts = np.bincount(self.assignment, minlength=self.n_clusters)
        return int((counts == 0).sum())

    def solution(self):
        return self.W, self.intercepts
