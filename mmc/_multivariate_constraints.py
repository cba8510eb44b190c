"""MultivariateMMC's working set: constraints given by sets of relabelled
samples.

Kept apart from the estimator (:mod:`mmc._multivariate`) so that its Dask
form (:mod:`mmc._dask_multivariate`), whose module the Dask workers import,
does not import scikit-learn (see :mod:`mmc._rows`).
"""

import numpy as np

from mmc._core._common import signed_row_sum
from mmc._core._multivariate import (
    LOSS_ERROR,
    LOSS_FBETA,
    LOSS_NMI,
    LOSS_RAND,
    table_losses,
    xlogx_table,
)
from mmc._core._table_search import most_violated_table
from mmc._cpmmc_constraints import _SubsetConstraints
from mmc._rows import grow_rows, row_kernel

_LOSS_CODES = {
    "error": LOSS_ERROR,
    "nmi": LOSS_NMI,
    "rand": LOSS_RAND,
    "fbeta": LOSS_FBETA,
}


def _smallest(indices, values, count):
    """The ``count`` of ``indices`` with the smallest ``values``, ties to the
    earliest: the first ``count`` of a stable sort by value, found in O(n)
    (a sort of the values alone gave the prefix sums)."""
    if count == 0:
        return indices[:0]
    cut = np.partition(values, count - 1)[count - 1]
    below = values < cut
    at_cut = np.flatnonzero(values == cut)[: count - int(below.sum())]
    return np.concatenate([indices[below], indices[at_cut]])


class _RelabellingConstraints(_SubsetConstraints):
    """Working set of MultivariateMMC: constraints given by sets of relabelled samples.

    Problem (12) of the paper has a constraint per labelling y'. At given
    decision values, y' is also described by the set D of samples it puts on
    the other side of the hyperplane (``y' = s`` outside D, ``-s`` in D), and
    the constraint reads

        (2/n) sum_{i in D} |f_i| >= loss(table of D against s) - xi.

    Indexing the constraints by D rather than by y' gives the same family
    for every w, and a working set that stays meaningful when CCCP moves the
    hyperplane: with y' fixed, every sample that crosses the hyperplane would
    leave or join the stored set. Linearised at s the constraint is CPMMC's
    subset constraint (``Z``, ``sign_sums`` of :class:`_SubsetConstraints`,
    updated by the same kernels) with twice the weight and the loss of the
    contingency table as its offset. The table follows from the statistics:
    D holds ``n (size + sign_sum) / 2`` positive and ``n (size - sign_sum) / 2``
    negative samples. Offsets and violations are reported halved, in the
    units of the subset constraints (see ``MultivariateMMC._loss_scale``).
    """

    def __init__(self, X, x_mean, capacity, C, class_balance, loss, beta, n_threads):
        super().__init__(X, x_mean, capacity, C, class_balance)
        self._set_loss(X.shape[0], capacity, loss, beta, n_threads)
        self._signed_row_sum = row_kernel(X, signed_row_sum)

    def _set_loss(self, n_samples, capacity, loss, beta, n_threads):
        """The loss of the tables and the offsets of the constraints."""
        self.loss_code = _LOSS_CODES[loss]
        self.beta = beta
        self.n_threads = n_threads
        self.xlogx = xlogx_table(n_samples)
        self.losses = np.zeros(capacity)
        self.n_positive = None

    def _grow(self):
        super()._grow()
        grow_rows(self.losses, self.constraints.shape[1])

    def _most_violated_relabelling(self, decision):
        """Most violated relabelling at ``decision``: (mask, signs, violation)."""
        signs = np.where(decision > 0, 1, -1).astype(np.int8)
        magnitude = np.abs(decision)
        positive = np.flatnonzero(signs > 0)
        negative = np.flatnonzero(signs < 0)
        # Within each side, the samples closest to the hyperplane are the
        # cheapest to relabel: the prefix sums of each side's sorted |f|.
        pos_prefix = np.concatenate([[0.0], np.cumsum(np.sort(magnitude[positive]))])
        neg_prefix = np.concatenate([[0.0], np.cumsum(np.sort(magnitude[negative]))])
        # Waking threads costs more than scanning a few million tables.
        n_tables = pos_prefix.size * neg_prefix.size
        n_threads = self.n_threads if n_tables > 4_000_000 else 1
        c, b, violation = most_violated_table(
            pos_prefix, neg_prefix, self.loss_code, self.beta, self.xlogx, n_threads
        )
        mask = np.zeros(len(decision), dtype=np.uint8)
        mask[_smallest(positive, magnitude[positive], c)] = 1
        mask[_smallest(negative, magnitude[negative], b)] = 1
        return mask, signs, violation

    def _update_losses(self, k_slice):
        n_samples = self.X.shape[0]
        sizes = n_samples * self.sizes[k_slice]
        sign_sums = n_samples * self.sign_sums[k_slice]
        relabelled_pos = np.rint(0.5 * (sizes + sign_sums)).astype(np.int64)
        relabelled_neg = np.rint(0.5 * (sizes - sign_sums)).astype(np.int64)
        n_negative = n_samples - self.n_positive
        tables = np.column_stack(
            [
                self.n_positive - relabelled_pos,
                relabelled_neg,
                relabelled_pos,
                n_negative - relabelled_neg,
            ]
        )
        table_losses(
            tables, self.loss_code, self.beta, self.xlogx, self.losses[k_slice]
        )

    def add_most_violated(self):
        """Append the most violated relabelling at the iterate (eq. 18)."""
        decision = self.decision
        if self.size == self.constraints.shape[1]:
            self._grow()
        k = self.size
        mask, signs, violation = self._most_violated_relabelling(decision)
        self.n_positive = int((signs > 0).sum())
        self.constraints[:, k] = mask
        relabelled = (signs * mask).astype(np.int8)
        self._signed_row_sum(relabelled, self.Z[k])
        self.sizes[k] = mask.mean()
        self.sign_sums[k] = relabelled.mean()
        self._update_losses(slice(k, k + 1))
        return 0.5 * violation

    def apply_flips(self, signs, flipped, n_flipped):
        n_updates = super().apply_flips(signs, flipped, n_flipped)
        if n_flipped:
            # Every flip moves a sample between the columns of every table,
            # whether or not it is relabelled: refresh all the losses.
            self.n_positive += int((signs[flipped[:n_flipped]] > 0).sum()) * 2
            self.n_positive -= n_flipped
            self._update_losses(slice(0, self.size))
        return n_updates if n_updates else n_flipped

    @property
    def offsets(self):
        return 0.5 * self.losses[: self.size]

    def loss(self):
        return 0.5 * self._most_violated_relabelling(self.decision)[2]
