"""CPMMC's working set on blocks of rows (:class:`mmc._dask.RowBlocks`).

The driver keeps what :class:`mmc._cpmmc_constraints._SubsetConstraints` keeps of size
independent of n (``Z``, the sizes and sign sums, their products, the
iterate) and inherits its QP, slack and primal recovery. What it keeps per
sample (signs, decision values, the uint8 memberships in the constraints)
lives beside each block, and the three passes of the solver run on the
blocks with the same kernels:

* the most violated constraint (``most_violated`` on the block: its column
  of memberships, its part of ``z``, the violation, size and sign sum);
* the update after a QP (``decision_values`` and ``flip_signs`` on the
  block, then the change of ``Z`` and of the sign sums due to the samples
  of the block whose sign flipped);
* the loss at the iterate, when a run stops at ``max_iter``.

Each block returns raw sums; the driver adds them in the order of the
blocks and divides by n, then recomputes ``Z Z'`` and ``Z mean(x)`` from Z
(O(k^2 d), independent of n).
"""

import numpy as np
import scipy.sparse as sp

from mmc._core import _linear
from mmc._core._cpmmc import flip_signs, most_violated
from mmc._cpmmc_constraints import _SubsetConstraints
from mmc._dask import weighted_row_sums
from mmc._rows import grow_columns, grow_rows, rows

# Columns of memberships a block starts with (they double as needed).
_FIRST_CAPACITY = 8


def _as_sum(vector, sparse):
    """A per-block sum of a d-vector, compact for sparse data."""
    if not sparse:
        return vector
    nonzero = np.flatnonzero(vector)
    return nonzero, vector[nonzero]


def _add_sum(out, part, sparse):
    if sparse:
        out[part[0]] += part[1]
    else:
        out += part


def _fresh_state(signs):
    """The state of a block at a start: its signs, and decision values of
    those signs inside the margin (see ``_SubsetConstraints.start``)."""
    return {
        "signs": signs,
        "decision": 0.5 * signs,
        "constraints": np.zeros((len(signs), _FIRST_CAPACITY), dtype=np.uint8),
    }


def _most_violated_of(block, state, column):
    """Write column ``column`` of the memberships; the sums of the constraint."""
    constraints = state["constraints"]
    if constraints.shape[1] <= column:
        constraints = grow_columns(constraints, 2 * constraints.shape[1])
    z = np.zeros(block.shape[1])
    n_rows = block.shape[0]
    violation, size, sign_sum = most_violated(
        *rows(block), state["decision"], constraints, column, z
    )
    # The kernel averages over the rows of the block: back to sums.
    z *= n_rows
    result = (
        violation * n_rows,
        size * n_rows,
        sign_sum * n_rows,
        _as_sum(z, sp.issparse(block)),
    )
    return {**state, "constraints": constraints}, result


def as_state(state):
    """A block's state; the signs alone at a start."""
    return state if isinstance(state, dict) else _fresh_state(state)


def _most_violated_block(block, state, shared):
    (column,) = shared
    return _most_violated_of(block, as_state(state), column)


def _update_block(block, state, shared):
    """Decision values and signs at the new iterate, the change of the
    statistics, and (ahead of the driver asking for it) the most violated
    constraint at the new iterate, written to the next column."""
    coef, intercept, n_constraints, speculate = shared
    state = as_state(state)
    decision = np.empty(block.shape[0])
    _linear.decision_values(*rows(block), coef, intercept, decision)
    signs = state["signs"].copy()
    flipped = np.empty(len(signs), dtype=np.int32)
    n_flipped = flip_signs(decision, signs, flipped)
    flipped = flipped[:n_flipped]
    members = state["constraints"][flipped, :n_constraints]
    # Each flipped sample moves Z[k] by 2 s_i x_i (and the sign sum by
    # 2 s_i) for every constraint k that holds it.
    weights = members * (2.0 * signs[flipped])[:, None]
    dZ = weighted_row_sums(weights, block, flipped)
    if sp.issparse(block):
        dZ = sp.csr_matrix(dZ)
    state = {**state, "signs": signs, "decision": decision}
    most_violated = None
    if speculate:
        state, most_violated = _most_violated_of(block, state, n_constraints)
    result = (
        dZ,
        weights.sum(axis=0),
        int(members.sum()),
        int(np.count_nonzero(signs > 0)),
        most_violated,
        n_flipped,
    )
    return state, result


class DaskSubsetConstraints(_SubsetConstraints):
    """:class:`mmc._cpmmc_constraints._SubsetConstraints` on blocks of rows (module
    docstring); ``start`` takes per-block signs."""

    # Whether the update pass also finds the most violated subset at the
    # new iterate (the next pass CPMMC needs).
    _speculate = True

    def __init__(self, X, x_mean, capacity, C, class_balance):
        self._set_statistics(X, x_mean, capacity, C, class_balance)
        self.capacity = capacity
        self.states = None
        self.n_positive = 0
        # Per-block results of the most violated constraint at the iterate
        # for slot ``size``, or None.
        self._pending = None

    def _grow(self):
        capacity = 2 * self.capacity
        self.ZZt = grow_columns(grow_rows(self.ZZt, capacity), capacity)
        for name in ("Z", "sizes", "sign_sums", "Z_mean"):
            grow_rows(getattr(self, name), capacity)
        self.capacity = capacity

    def start(self, state):
        """Start from per-block signs; ``state`` is ``(signs, n_positive)``."""
        self.states, self.n_positive = state
        self._pending = None

    def loss(self):
        """Mean hinge loss at the iterate: the violation of the next constraint."""
        if self._pending is None:
            self._pending = self._pass(_most_violated_block, self.size)
        return self._violation(self._pending)

    def n_empty_clusters(self):
        return int(self.n_positive == 0) + int(self.n_positive == self.X.shape[0])

    def _pass(self, function, *shared):
        self.states, results = self.X.step(function, self.states, *shared)
        return results

    def _violation(self, results):
        return sum(r[0] for r in results) / self.X.shape[0]

    def add_most_violated(self):
        """The most violated constraint at the iterate, into slot ``size``
        (computed by the last update's pass when there was one)."""
        if self.size == self.capacity:
            self._grow()
        k = self.size
        results = self._pending
        if results is None:
            results = self._pass(_most_violated_block, k)
            self._pending = results
        n_samples = self.X.shape[0]
        z = np.zeros(self.X.shape[1])
        for result in results:
            _add_sum(z, result[3], self.X.sparse)
        self.Z[k] = z / n_samples
        self.sizes[k] = sum(r[1] for r in results) / n_samples
        self.sign_sums[k] = sum(r[2] for r in results) / n_samples
        return self._violation(results)

    def commit(self):
        super().commit()
        self._pending = None

    def update(self):
        k = self.size
        results = self._pass(
            _update_block, self.coef, self.intercept, k, self._speculate
        )
        if self._speculate:
            self._pending = [r[4] for r in results]
        self._n_flipped = sum(r[5] for r in results)
        n_samples = self.X.shape[0]
        n_updates = sum(r[2] for r in results)
        self.n_positive = sum(r[3] for r in results)
        if n_updates == 0:
            return 0
        dZ = results[0][0]
        for result in results[1:]:
            dZ = dZ + result[0]
        dZ = dZ.toarray() if sp.issparse(dZ) else dZ
        self.Z[:k] += dZ / n_samples
        self.sign_sums[:k] += sum(r[1] for r in results) / n_samples
        Z = self.Z[:k]
        self.ZZt[:k, :k] = Z @ Z.T
        self.Z_mean[:k] = Z @ self.x_mean
        return n_updates
