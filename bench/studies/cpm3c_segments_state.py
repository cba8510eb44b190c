"""Why segments in a fixed order stall CPM3C's coordinate descent.

Recorded in bench/studies/cpm3c_segments.md. Fits ``CPM3C(random_state=0)``
on ``make_sparse_clusters(30000, 100000 features, 50 non-zeros a row)`` with
the rows visited in 4 segments of 8192 in one round, and keeps the state
before the first SVM solve that reaches ``MAX_EPOCHS``: the dual variables,
the weights and the assignments. Prints the samples that changed class
before it and the intercept weights, then solves that SVM again from that
state in several orders (``one``: one shuffle of all rows; ``ROWSxROUNDS``:
segments in rounds), with and without the constant feature whose weights
are the intercepts (without it, ``s = 0``, the weights are rebuilt from the
same dual variables), after one epoch in one shuffle followed by
segments, and in contiguous windows of rows (``windows``). Each line: the
epochs to the default precision (at most 1000) and the largest KKT
violation of the last epoch.

    python -I bench/studies/cpm3c_segments_state.py
"""

import numpy as np

import mmc._cpm3c_dual as d
from mmc import CPM3C
from mmc._core._crammer_singer import dual_epochs
from mmc._rows import row_kernel
from mmc.datasets import make_sparse_clusters

N = 30000
X, _ = make_sparse_clusters(
    n_samples=N, n_features=100000, nnz_per_row=50, random_state=0
)
solve, remove = d.DualMulticlassSVM.solve, d.DualMulticlassSVM._remove_moved
moved = [0]
captured = {}


class Captured(Exception):
    pass


def watched_solve(self):
    state = {
        name: getattr(self, name).copy()
        for name in ("alpha", "W_T", "mean_coef", "W_dot_mean", "v", "assignment")
    }
    before = self.n_epochs
    solve(self)
    if self.n_epochs - before >= d.MAX_EPOCHS:
        captured.update(state, svm=self, seed=(self.seed + self._n_solves) % 2**32)
        raise Captured
    moved[0] = 0


def counted_remove(self):
    n_moved = remove(self)
    moved[0] += n_moved
    return n_moved


d.DualMulticlassSVM.solve = watched_solve
d.DualMulticlassSVM._remove_moved = counted_remove
d.DualMulticlassSVM.segment_rows, d.DualMulticlassSVM.n_rounds = 8192, 1
try:
    CPM3C(random_state=0).fit(X)
except Captured:
    pass
svm = captured["svm"]
print(f"samples moved before the solve: {moved[0]}; v = {captured['v'].round(2)}")
epochs = row_kernel(X, dual_epochs)
centred_sq_norms = d.centred_row_stats(X, svm.x_mean, svm._mean_sq_norm)[1]


def run(order, s, first=None, max_epochs=d.MAX_EPOCHS):
    """Epochs from the captured state, with the constant feature s."""
    alpha = captured["alpha"].copy()
    if s == svm.intercept_scale:
        W_T, mean_coef = captured["W_T"].copy(), captured["mean_coef"].copy()
        W_dot_mean, v = captured["W_dot_mean"].copy(), captured["v"].copy()
    else:
        W_T = np.ascontiguousarray(X.T @ alpha)
        mean_coef, W_dot_mean = alpha.sum(axis=0), svm._x_dot_mean @ alpha
        v = s * alpha.sum(axis=0)
    total = 0
    for spec, n_epochs, tol in ((first, 1, -1.0), (order, max_epochs, svm.tol)):
        if spec is None:
            continue
        rows, rounds = (N, 1) if spec == "one" else map(int, spec.split("x"))
        done, violation = epochs(
            svm._x_dot_mean, centred_sq_norms + s**2, captured["assignment"],
            alpha, W_T, mean_coef, W_dot_mean, v, s, svm._mean_sq_norm,
            svm.C / N, captured["seed"], n_epochs, tol, rows, rounds,
        )  # fmt: skip
        total += done
    return total, violation


def windows(kind, part=1024, segment_parts=8, max_epochs=d.MAX_EPOCHS):
    """Epochs from the captured state when each task would read only the
    rows it visits: contiguous windows of ``part`` rows, each shuffled on
    its own, visited as rounds (window r of every segment of
    ``segment_parts`` windows in round r). ``fixed``: the same windows every
    epoch; ``rotating``: the windows shifted by a random offset each epoch.
    One call of the kernel per window (its own shuffle)."""
    s = svm.intercept_scale
    alpha = captured["alpha"].copy()
    W_T, mean_coef = captured["W_T"].copy(), captured["mean_coef"].copy()
    W_dot_mean, v = captured["W_dot_mean"].copy(), captured["v"].copy()
    sq_norms = centred_sq_norms + s**2
    rng = np.random.default_rng(captured["seed"])
    for epoch in range(max_epochs):
        offset = int(rng.integers(part)) if kind == "rotating" else 0
        ends = [e for e in range(offset, N, part) if e > 0] + [N]
        spans = list(zip([0, *ends[:-1]], ends))
        spans = [
            spans[j] for r in range(segment_parts)
            for j in range(r, len(spans), segment_parts)
        ]  # fmt: skip
        violation = 0.0
        for a, b in spans:
            part_alpha = alpha[a:b].copy()
            _, part_violation = row_kernel(X[a:b], dual_epochs)(
                svm._x_dot_mean[a:b].copy(), sq_norms[a:b].copy(),
                captured["assignment"][a:b].copy(), part_alpha, W_T, mean_coef,
                W_dot_mean, v, s, svm._mean_sq_norm, svm.C / N,
                int(rng.integers(2**32)), 1, -1.0, b - a, 1,
            )  # fmt: skip
            alpha[a:b] = part_alpha
            violation = max(violation, part_violation)
        if violation <= svm.tol:
            return epoch + 1, violation
    return max_epochs, violation


s = svm.intercept_scale
for label, order, scale, first in (
    ("one shuffle", "one", s, None),
    ("8192x1", "8192x1", s, None),
    ("8192x8", "8192x8", s, None),
    ("8192x32", "8192x32", s, None),
    ("8192x128", "8192x128", s, None),
    ("one epoch in one shuffle, then 8192x1", "8192x1", s, "one"),
    ("one epoch 8192x1, then one shuffle", "one", s, "8192x1"),
    ("s = 0, one shuffle", "one", 0.0, None),
    ("s = 0, 8192x1", "8192x1", 0.0, None),
    ("s = 0.3 s, one shuffle", "one", 0.3 * s, None),
    ("s = 0.3 s, 8192x1", "8192x1", 0.3 * s, None),
):
    n_epochs, violation = run(order, scale, first)
    print(f"| {label} | {n_epochs} | {violation:.4f} |", flush=True)
for kind in ("fixed", "rotating"):
    n_epochs, violation = windows(kind)
    label = f"windows of 1024 rows in 8 rounds, {kind}"
    print(f"| {label} | {n_epochs} | {violation:.4f} |")
