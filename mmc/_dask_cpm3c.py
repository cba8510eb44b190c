"""CPM3C's coordinate descent on blocks of rows (:class:`mmc._dask.RowBlocks`).

The driver keeps what :class:`mmc._cpm3c_dual.DualMulticlassSVM` keeps of
size independent of n (the weights, C, the run's progress) and runs its
CCCP unchanged (:func:`mmc._cpm3c_dual.dual_cccp_run`). What it keeps per
sample (the dual variables, the assignments, ``x_i . mean`` and the
squared norms, the visiting order of the epochs and its generators)
lives beside each block, and the passes run on the blocks with the same
kernels:

* each round of an epoch of coordinate descent
  (:data:`mmc._cpm3c_dual.N_ROUNDS`) visits the blocks one after the
  other, the weights carried from block to block (:meth:`RowBlocks.chain`):
  the blocks hold whole segments of the visiting order
  (:data:`mmc._cpm3c_dual.SEGMENT_ROWS`; X is rechunked to them), so an
  epoch makes exactly the steps of
  :func:`mmc._core._crammer_singer.dual_epochs` with those segments and
  rounds, whatever the chunks, one compute per epoch;
* the assignments at the new weights, in parallel, with the counts of the
  classes and the loss; when the size floors bind, the scores of every
  sample come to the driver for the offsets that hold them
  (:func:`mmc._balance.bound_prices`: 8 k bytes a row);
* the removal of the dual variables of the samples that moved, block after
  block as the in-memory removal visits them.

Data of one segment are visited as in memory, and the results then differ
from the in-memory fit's only by the rounding of the sums over the rows
(the mean of X, the loss). Beyond one segment the in-memory fit visits the
rows in one shuffle of all of them, which a Dask fit cannot do (the weights
would travel from block to block at every sample): the SVMs are the same
to the solver's precision, the steps are not.
"""

import math
from types import SimpleNamespace

import numpy as np

from mmc import _cpm3c_dual
from mmc._core._common import mean_hinge_loss
from mmc._core._cpm3c import assign
from mmc._core._crammer_singer import (
    dual_round,
    epoch_offsets,
    remove_samples,
    seed_segments,
)
from mmc._cpm3c_constraints import (
    add_assignment_buffers,
    best_classes,
    class_score_matrix,
    start_assignment,
)
from mmc._cpm3c_dual import MAX_EPOCHS, DualMulticlassSVM, centred_row_stats
from mmc._rows import row_kernel, rows


def _start_block(block, first_row, shared):
    """A block's state at a start: each row at its nearest centre
    (``start_assignment``), ``x_i . mean`` and the centred squared norms
    (``centred_row_stats``) plus the square of the constant feature,
    ``intercept_scale``. (The runners-up and the gaps of the assignment
    step are the kernel's outputs of one pass, not kept: the state is most
    of what the workers hold.)"""
    x_mean, mean_sq_norm, intercept_scale, centres, n_clusters = shared
    n_rows = block.shape[0]
    start = SimpleNamespace(X=block, _assign=row_kernel(block, assign))
    add_assignment_buffers(start, n_rows)
    start_assignment(start, centres, None)
    x_dot_mean, sq_norms = centred_row_stats(block, x_mean, mean_sq_norm)
    state = {
        "first_row": first_row,
        "x_dot_mean": x_dot_mean,
        # With the constant feature, as the kernel sees them: once a run.
        "sq_norms": sq_norms + intercept_scale**2,
        "alpha": np.zeros((n_rows, n_clusters)),
        "assignment": start.assignment,
    }
    return state, np.bincount(start.assignment, minlength=n_clusters)


def _round_block(block, state, carry, shared, round_):
    """A round of an epoch of coordinate descent over a block
    (``dual_round``)."""
    intercept_scale, mean_sq_norm, cap, seed, segment_rows, n_rounds = shared
    W_T, mean_coef, W_dot_mean, v, offsets = (a.copy() for a in carry)
    state = dict(state)
    if seed is not None and round_ == 0:
        # The first epoch of an SVM: the orders and generators afresh.
        state["order"] = np.arange(block.shape[0], dtype=np.intp)
        n_segments = -(-block.shape[0] // segment_rows)
        state["states"] = np.empty(n_segments, dtype=np.uint32)
        seed_segments(seed, state["first_row"] // segment_rows, state["states"])
    else:
        state["order"] = state["order"].copy()
        state["states"] = state["states"].copy()
    state["alpha"] = state["alpha"].copy()
    violation = dual_round(
        *rows(block),
        state["x_dot_mean"],
        state["sq_norms"],
        state["assignment"],
        state["alpha"],
        W_T,
        mean_coef,
        W_dot_mean,
        v,
        offsets,
        intercept_scale,
        mean_sq_norm,
        cap,
        state["order"],
        state["states"],
        segment_rows,
        round_,
        n_rounds,
    )
    return state, (W_T, mean_coef, W_dot_mean, v, offsets), violation


def _assign_block(block, state, shared):
    """Best classes at (W, intercepts): the counts, the summed loss and the
    number of rows whose class differs from the one ``keep`` kept."""
    W_T, intercepts, pinned, keep = shared
    state = dict(state)
    n_rows = block.shape[0]
    if keep:
        state["before"] = state["assignment"]
    state["assignment"] = state["assignment"].copy()
    gap = np.empty(n_rows)
    assign(
        *rows(block),
        W_T,
        intercepts,
        state["assignment"],
        np.empty(n_rows, dtype=np.uint8),  # the runners-up
        gap,
        np.empty(n_rows, dtype=np.int32),
        np.empty(n_rows, dtype=np.uint8),
        pinned=pinned,
    )
    counts = np.bincount(state["assignment"], minlength=len(intercepts))
    moved = int(np.count_nonzero(state["assignment"] != state["before"]))
    return state, (counts, mean_hinge_loss(gap) * n_rows, moved)


def _scores_block(block, _state, shared):
    W_T, intercepts = shared
    return None, class_score_matrix(block, W_T, intercepts)


def _remove_block(block, state, carry, shared, _round):
    """The samples of a block that moved lose their dual variables."""
    (intercept_scale,) = shared
    moved = np.flatnonzero(state["assignment"] != state["before"]).astype(np.int32)
    if not moved.size:
        return state, carry, 0
    W_T, mean_coef, W_dot_mean, v = (a.copy() for a in carry)
    state = {**state, "alpha": state["alpha"].copy()}
    remove_samples(
        *rows(block),
        state["x_dot_mean"],
        moved,
        state["alpha"],
        W_T,
        mean_coef,
        W_dot_mean,
        v,
        intercept_scale,
    )
    return state, (W_T, mean_coef, W_dot_mean, v), moved.size


def _support_block(_block, state, _shared):
    return None, int(np.count_nonzero(np.any(state["alpha"] != 0.0, axis=1)))


class DaskDualMulticlassSVM(DualMulticlassSVM):
    """:class:`mmc._cpm3c_dual.DualMulticlassSVM` on blocks of rows (module
    docstring); ``X`` is a :class:`mmc._dask.RowBlocks` of whole segments
    of :data:`mmc._cpm3c_dual.SEGMENT_ROWS` rows."""

    def __init__(
        self, X, x_mean, n_clusters, floors, intercept_scale, relabel, tol, seed
    ):
        self._set_parameters(
            X, x_mean, n_clusters, floors, intercept_scale, relabel, tol, seed
        )
        self.states = None
        self.counts = None
        self.segment_rows = X.segment_rows
        self.n_rounds = _cpm3c_dual.N_ROUNDS

    def start(self, state):
        """Start from ``(centres, None)``: each sample at its nearest centre
        (as :func:`mmc._cpm3c_constraints.start_assignment` does)."""
        centres, _ = state
        first_rows = [int(r) for r in self.X.starts[:-1]]
        shared = (
            self.x_mean,
            self._mean_sq_norm,
            self.intercept_scale,
            centres,
            self.n_clusters,
        )
        self.states, counts = self.X.step(_start_block, first_rows, *shared)
        self.counts = sum(counts)

    def solve(self):
        """The SVM of the current assignments: epochs, each a chain over
        the blocks, until the KKT violation is below ``tol``."""
        self._n_solves += 1
        seed = (self.seed + self._n_solves) % 2**32
        cap = self.C / self.X.shape[0]
        violation = np.inf
        for epoch in range(MAX_EPOCHS):
            offsets = np.empty(self.n_clusters)
            epoch_offsets(
                self.mean_coef,
                self.W_dot_mean,
                self.v,
                self.intercept_scale,
                self._mean_sq_norm,
                offsets,
            )
            carry = (self.W_T, self.mean_coef, self.W_dot_mean, self.v, offsets)
            shared = (
                self.intercept_scale,
                self._mean_sq_norm,
                cap,
                seed if epoch == 0 else None,
                self.segment_rows,
                self.n_rounds,
            )
            self.states, carry, violations = self.X.chain(
                _round_block, self.states, carry, *shared, n_rounds=self.n_rounds
            )
            self.W_T, self.mean_coef, self.W_dot_mean, self.v, _ = carry
            violation = max(violations)
            self.n_epochs += 1
            if violation <= self.tol:
                break
        self.converged = violation <= self.tol

    def _assign_rows(self, W_T, intercepts, pinned, keep=False):
        self.states, results = self.X.step(
            _assign_block, self.states, W_T, intercepts, pinned, keep
        )
        self._n_moved = sum(r[2] for r in results)
        counts = sum(r[0] for r in results)
        return counts, math.fsum(r[1] for r in results) / self.X.shape[0]

    def _score_rows(self, W_T, intercepts):
        return np.concatenate(self.X.map(_scores_block, W_T, intercepts))

    def _remove_moved(self):
        if not self._n_moved:
            # (No block would change: spare the chain its compute.)
            return 0
        carry = (self.W_T, self.mean_coef, self.W_dot_mean, self.v)
        self.states, carry, moved = self.X.chain(
            _remove_block, self.states, carry, self.intercept_scale
        )
        self.W_T, self.mean_coef, self.W_dot_mean, self.v = carry
        return sum(moved)

    def n_support(self):
        return sum(self.X.map(_support_block, states=self.states, blocks=False))


def _labels_block(block, _state, shared):
    return None, best_classes(block, *shared)


def assign_on_blocks(blocks, coef_T, intercepts):
    """Best class of every row (``CPM3C._assign`` on the blocks), on the
    driver: one byte a row before the cast to intp."""
    return np.concatenate(blocks.map(_labels_block, coef_T, intercepts)).astype(np.intp)
