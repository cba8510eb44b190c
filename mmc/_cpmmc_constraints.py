"""CPMMC's working set: constraints that select subsets of the samples.

Kept apart from the estimator (:mod:`mmc._cpmmc`) so that its Dask form
(:mod:`mmc._dask_cpmmc`), whose module the Dask workers import, does not
import scikit-learn (see :mod:`mmc._rows`).
"""

import numpy as np

from mmc._core._common import mean_hinge_loss, minimize_max_affine
from mmc._core._cpmmc import apply_flips, flip_signs, most_violated
from mmc._qp import CPMMCDual
from mmc._rows import decision_values, grow_columns, grow_rows, row_kernel


class _SubsetConstraints:
    """Working set of CPMMC: constraints that select subsets of the samples.

    Constraint k (eq. 3.12) is a 0/1 vector c_k over the samples and reads
    ``xi >= sizes[k] - Z[k].w - sign_sums[k] b``. It keeps
    ``Z[k] = (1/n) sum_i c_ki s_i x_i``, ``sign_sums[k] = (1/n) sum_i c_ki s_i``
    and ``sizes[k] = (1/n) sum_i c_ki``, where s are the current signs, and
    the products ``ZZt = Z Z'`` and ``Z_mean = Z x_mean`` from which the Gram
    matrix of the dual is assembled in O(k^2). Adding a constraint computes one
    new row of the products; a sign flip updates them by a rank-one correction
    in the kernel, at a cost independent of n_features.

    It also holds the current iterate (w, b), its decision values and signs,
    and implements the interface of :func:`mmc._cutting_plane_run.cutting_plane_run`.
    """

    def __init__(self, X, x_mean, capacity, C, class_balance):
        self._set_statistics(X, x_mean, capacity, C, class_balance)
        n_samples = X.shape[0]
        self.decision = np.empty(n_samples)
        self.signs = None
        self._flipped = np.empty(n_samples, dtype=np.int32)
        self._most_violated = row_kernel(X, most_violated)
        self._apply_flips = row_kernel(X, apply_flips)
        self.constraints = np.zeros((n_samples, capacity), dtype=np.uint8)
        self._projections = np.zeros(capacity)

    def _set_statistics(self, X, x_mean, capacity, C, class_balance):
        """What the working set keeps of size independent of n: the dual,
        the iterate, and the statistics of ``capacity`` constraints (none
        yet). The Dask working set keeps these on the driver too."""
        n_features = X.shape[1]
        self.X = X
        self.x_mean = x_mean
        self.class_balance = class_balance
        self.dual = CPMMCDual(C, class_balance)
        self.coef = np.zeros(n_features)
        self.intercept = 0.0
        self.mean_sq_norm = float(x_mean @ x_mean)
        self.size = 0
        self.Z = np.zeros((capacity, n_features))
        self.sizes = np.zeros(capacity)
        self.sign_sums = np.zeros(capacity)
        self.ZZt = np.zeros((capacity, capacity))
        self.Z_mean = np.zeros(capacity)

    def _grow(self):
        capacity = 2 * self.constraints.shape[1]
        self.constraints = grow_columns(self.constraints, capacity)
        self.ZZt = grow_columns(grow_rows(self.ZZt, capacity), capacity)
        for name in ("Z", "sizes", "sign_sums", "Z_mean", "_projections"):
            grow_rows(getattr(self, name), capacity)

    @property
    def offsets(self):
        return self.sizes[: self.size]

    @property
    def slopes(self):
        return self.sign_sums[: self.size]

    def start(self, signs):
        """Start from a labelling (+1 / -1, int8; a copy is kept, which the
        run modifies, so that a start can start several working sets).

        The first constraint is then the most violated one at w = 0, where
        every sample lies inside the margin, with the signs of the labelling:
        decision values of those signs and of magnitude below 1 stand for it.
        """
        self.signs = signs.copy()
        self.decision[:] = 0.5 * signs

    def loss(self):
        """Mean hinge loss ``(1/n) sum_i max(0, 1 - |f_i|)`` at the iterate."""
        return mean_hinge_loss(self.decision, absolute=True)

    def squared_norm(self):
        return float(self.coef @ self.coef)

    def solution(self):
        return self.coef, self.intercept

    def set_C(self, C):
        """Go on with the constraints and the iterate at another C (the
        continuation in C)."""
        self.dual.C = C

    def solve(self):
        """Solve the dual QP and recover (w, b)."""
        lam = self.dual.solve(self.gram(), self.offsets, self.slopes)
        self.coef = self.coef_from(lam)
        # For fixed w the optimal b minimises the largest constraint
        # violation over the interval allowed by the class balance.
        centre = self.coef @ self.x_mean
        self.intercept, _ = minimize_max_affine(
            self.slack_terms(self.coef),
            self.slopes,
            -self.class_balance - centre,
            self.class_balance - centre,
        )

    def update(self):
        """Decision values and signs at the new (w, b); update the statistics."""
        decision_values(self.X, self.coef, self.intercept, out=self.decision)
        n_flipped = flip_signs(self.decision, self.signs, self._flipped)
        return self.apply_flips(self.signs, self._flipped, n_flipped)

    def release(self):
        """The signs were never held fixed: the run is over."""
        return False

    def n_empty_clusters(self):
        """Clusters without a sample at the iterate (0, 1 or 2)."""
        n_positive = int((self.signs > 0).sum())
        return int(n_positive == 0) + int(n_positive == len(self.signs))

    @property
    def free(self):
        """Whether the iterate is a solution whose signs follow it: from the
        first solve on (the start, w = 0, is not one)."""
        return self.size > 0

    def snapshot(self):
        """The iterate, for :meth:`restore`."""
        return self.coef.copy(), self.intercept

    def restore(self, snapshot):
        """Go back to an iterate kept by :meth:`snapshot`, at the end of a
        run: its decision values and signs, and the constraints' statistics
        at them (one pass), so that a run can go on from it (the
        continuation in C)."""
        self.coef, self.intercept = snapshot
        self.update()

    def slack(self):
        """Slack of the restricted problem at (w, b)."""
        slack = self.slack_terms(self.coef) - self.slopes * self.intercept
        return max(0.0, float(slack.max()))

    def add_most_violated(self):
        """Append the most violated constraint at the iterate (eq. 3.12).

        Returns the violation ``(1/n) sum_i max(0, 1 - |f_i|)``. The caller
        decides whether to keep the constraint: :meth:`commit` does.
        """
        decision = self.decision
        if self.size == self.constraints.shape[1]:
            self._grow()
        k = self.size
        violation, size, sign_sum = self._most_violated(
            decision, self.constraints, k, self.Z[k]
        )
        self.sizes[k] = size
        self.sign_sums[k] = sign_sum
        return violation

    def commit(self):
        """Keep the constraint written by the last :meth:`add_most_violated`."""
        k = self.size
        z = self.Z[k]
        row = self.Z[: k + 1] @ z
        self.ZZt[k, : k + 1] = row
        self.ZZt[: k + 1, k] = row
        self.Z_mean[k] = z @ self.x_mean
        self.size += 1

    def apply_flips(self, signs, flipped, n_flipped):
        """Update the statistics after the signs of ``flipped`` changed.

        Returns the number of (sample, constraint) memberships updated.
        """
        if n_flipped == 0:
            return 0
        return self._apply_flips(
            flipped,
            n_flipped,
            signs,
            self.constraints,
            self.size,
            self.x_mean,
            Z=self.Z,
            sign_sums=self.sign_sums,
            gram=self.ZZt,
            Z_mean=self.Z_mean,
            projections=self._projections,
        )

    def gram(self):
        """Gram matrix of the centred constraint vectors ``z_k - s_k x_mean``."""
        k = self.size
        s = self.sign_sums[:k]
        # G = ZZ' - u s' - s u' + |x_mean|^2 s s' = ZZ' - v s' - s v'
        # with u = Z x_mean and v = u - |x_mean|^2 s / 2.
        v = self.Z_mean[:k] - (0.5 * self.mean_sq_norm) * s
        cross = np.outer(v, s)
        gram = self.ZZt[:k, :k] - cross
        gram -= cross.T
        return gram

    def coef_from(self, lam):
        """Primal ``w = sum_k lam_k (z_k - s_k x_mean)`` of a dual solution."""
        k = self.size
        return lam @ self.Z[:k] - (lam @ self.sign_sums[:k]) * self.x_mean

    def slack_terms(self, coef):
        """``offsets - Z coef``: constraint k reads ``xi >= term_k - s_k b``."""
        return self.offsets - self.Z[: self.size] @ coef
