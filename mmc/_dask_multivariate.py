"""MultivariateMMC's working set on blocks of rows (:class:`mmc._dask.RowBlocks`).

The constraints are CPMMC's subsets with the loss of a contingency table as
their offset (:class:`mmc._multivariate_constraints._RelabellingConstraints`), and all
but the search for the most violated one run as on CPMMC's blocks. That
search sorts each side of the clustering by ``|f|`` over all samples: the
decision values, kept beside the blocks, come to the driver (8 bytes a
row, once per cutting-plane iteration, never the data), the in-memory
search picks the relabelled samples, and one pass writes their memberships
beside the blocks and sums their signed rows.
"""

import numpy as np

from mmc._core._common import signed_row_sum
from mmc._dask_cpmmc import DaskSubsetConstraints, as_state
from mmc._multivariate_constraints import _RelabellingConstraints
from mmc._rows import grow_columns, grow_rows, rows


def _decision_of(_block, state, _shared):
    state = as_state(state)
    return state, state["decision"]


def _relabel_block(block, state_and_mask, shared):
    """Write the memberships of the new constraint; sum its signed rows."""
    (column,) = shared
    state, mask = state_and_mask
    constraints = state["constraints"]
    if constraints.shape[1] <= column:
        constraints = grow_columns(constraints, 2 * constraints.shape[1])
    constraints[:, column] = mask
    relabelled = (state["signs"] * mask).astype(np.int8)
    z = np.empty(block.shape[1])
    signed_row_sum(*rows(block), relabelled, z)
    # The kernel averages over the rows of the block: back to a sum.
    z *= block.shape[0]
    return {**state, "constraints": constraints}, z


class DaskRelabellingConstraints(DaskSubsetConstraints):
    """:class:`mmc._multivariate_constraints._RelabellingConstraints` on
    blocks of rows."""

    _speculate = False

    _set_loss = _RelabellingConstraints._set_loss
    _most_violated_relabelling = _RelabellingConstraints._most_violated_relabelling
    _update_losses = _RelabellingConstraints._update_losses
    offsets = _RelabellingConstraints.offsets

    def __init__(self, X, x_mean, capacity, C, class_balance, loss, beta, n_threads):
        super().__init__(X, x_mean, capacity, C, class_balance)
        self._set_loss(X.shape[0], capacity, loss, beta, n_threads)

    def _grow(self):
        super()._grow()
        grow_rows(self.losses, self.capacity)

    def _decision(self):
        """The decision values at the iterate, on the driver."""
        return np.concatenate(self._pass(_decision_of))

    def add_most_violated(self):
        """Append the most violated relabelling at the iterate (eq. 18)."""
        if self.size == self.capacity:
            self._grow()
        k = self.size
        mask, signs, violation = self._most_violated_relabelling(self._decision())
        self.n_positive = int((signs > 0).sum())
        masks = self.X.states(mask)
        parts = self._pass_with(_relabel_block, masks, k)
        self.Z[k] = sum(parts) / self.X.shape[0]
        relabelled = (signs * mask).astype(np.int8)
        self.sizes[k] = mask.mean()
        self.sign_sums[k] = relabelled.mean()
        self._update_losses(slice(k, k + 1))
        return 0.5 * violation

    def _pass_with(self, function, extras, *shared):
        paired = [[s, e] for s, e in zip(self.states, extras)]
        self.states, results = self.X.step(function, paired, *shared)
        return results

    def update(self):
        n_updates = super().update()
        if self._n_flipped:
            # Every flip moves a sample between the columns of every table.
            self._update_losses(slice(0, self.size))
            return n_updates if n_updates else self._n_flipped
        return n_updates

    def loss(self):
        return 0.5 * self._most_violated_relabelling(self._decision())[2]
