"""CPMMC's working set on blocks of rows (:class:`mmc._dask.RowBlocks`).

The driver keeps what :class:`mmc._cpmmc._SubsetConstraints` keeps of size
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

from mmc._base import grow_columns, grow_rows, rows
from mmc._core import _linear
from mmc._core._cpmmc import flip_signs, most_violated
from mmc._cpmmc import _SubsetConstraints
from mmc._qp import CPMMCDual


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


def _start_block(_block, signs, shared):
    (capacity,) = shared
    state = {
        "signs": signs,
        "decision": 0.5 * signs,
        "constraints": np.zeros((len(signs), capacity), dtype=np.uint8),
    }
    return state, int(np.count_nonzero(signs > 0))


def _most_violated_block(block, state, shared):
    column, capacity = shared
    constraints = state["constraints"]
    if constraints.shape[1] < capacity:
        constraints = grow_columns(constraints, capacity)
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


def _update_block(block, state, shared):
    coef, intercept, n_constraints = shared
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
    X = block[flipped]
    if sp.issparse(X):
        dZ = sp.csr_matrix(X.T @ weights).T.tocsr()
    else:
        dZ = weights.T @ X
    result = (
        dZ,
        weights.sum(axis=0),
        int(members.sum()),
        int(np.count_nonzero(signs > 0)),
    )
    return {**state, "signs": signs, "decision": decision}, result


def _hinge_block(_block, state, _shared):
    return state, float(np.maximum(0.0, 1.0 - np.abs(state["decision"])).sum())


class DaskSubsetConstraints(_SubsetConstraints):
    """:class:`mmc._cpmmc._SubsetConstraints` on blocks of rows (module
    docstring); ``start`` takes per-block signs."""

    def __init__(self, X, x_mean, capacity, C, class_balance):
        n_features = X.shape[1]
        self.X = X
        self.x_mean = x_mean
        self.class_balance = class_balance
        self.dual = CPMMCDual(C, class_balance)
        self.coef = np.zeros(n_features)
        self.intercept = 0.0
        self.mean_sq_norm = float(x_mean @ x_mean)
        self.size = 0
        self.capacity = capacity
        self.Z = np.zeros((capacity, n_features))
        self.sizes = np.zeros(capacity)
        self.sign_sums = np.zeros(capacity)
        self.ZZt = np.zeros((capacity, capacity))
        self.Z_mean = np.zeros(capacity)
        self.states = None
        self.n_positive = 0

    def _grow(self):
        capacity = 2 * self.capacity
        self.ZZt = grow_columns(grow_rows(self.ZZt, capacity), capacity)
        for name in ("Z", "sizes", "sign_sums", "Z_mean"):
            grow_rows(getattr(self, name), capacity)
        self.capacity = capacity

    def start(self, signs):
        self.states, counts = self.X.step(
            _start_block, signs, self.capacity, blocks=False
        )
        self.n_positive = sum(counts)

    def loss(self):
        return (
            sum(self.X.map(_hinge_block, states=self.states, blocks=False))
            / (self.X.shape[0])
        )

    def n_empty_clusters(self):
        return int(self.n_positive == 0) + int(self.n_positive == self.X.shape[0])

    def add_most_violated(self):
        if self.size == self.capacity:
            self._grow()
        k = self.size
        self.states, results = self.X.step(
            _most_violated_block, self.states, k, self.capacity
        )
        n_samples = self.X.shape[0]
        z = np.zeros(self.X.shape[1])
        for result in results:
            _add_sum(z, result[3], self.X.sparse)
        self.Z[k] = z / n_samples
        self.sizes[k] = sum(r[1] for r in results) / n_samples
        self.sign_sums[k] = sum(r[2] for r in results) / n_samples
        return sum(r[0] for r in results) / n_samples

    def update(self):
        k = self.size
        self.states, results = self.X.step(
            _update_block, self.states, self.coef, self.intercept, k
        )
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
