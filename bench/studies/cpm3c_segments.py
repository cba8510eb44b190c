"""CPM3C's coordinate descent against the visiting order of its epochs.

Recorded in bench/studies/cpm3c_segments.md. For each order given: the fit
time of ``CPM3C(random_state=SEED)`` on ``make_sparse_clusters(N, 100000
features, 50 non-zeros a row)`` (two clusters), its CCCP iterations, the
number of SVM solves, their epochs in all and the most epochs of one solve
(the limit is ``MAX_EPOCHS``). An order is ``one`` (one shuffle of all rows,
the in-memory order) or ``ROWSxROUNDS`` (segments of ROWS rows visited in
ROUNDS rounds, the order of the Dask fits, made here in memory).

    python -I bench/studies/cpm3c_segments.py N SEED ORDER [ORDER ...]
"""

import sys
import time

import mmc._cpm3c_dual as d
from mmc import CPM3C
from mmc.datasets import make_sparse_clusters

n, seed = int(sys.argv[1]), int(sys.argv[2])
X, y = make_sparse_clusters(
    n_samples=n, n_features=100000, nnz_per_row=50, random_state=0
)
solve = d.DualMulticlassSVM.solve
log = []


def counted(self):
    before = self.n_epochs
    solve(self)
    log.append(self.n_epochs - before)


d.DualMulticlassSVM.solve = counted
for order in sys.argv[3:]:
    rows, rounds = (None, 1) if order == "one" else map(int, order.split("x"))
    d.DualMulticlassSVM.segment_rows, d.DualMulticlassSVM.n_rounds = rows, rounds
    log.clear()
    t = time.perf_counter()
    e = CPM3C(random_state=seed).fit(X)
    t = time.perf_counter() - t
    print(
        f"| {order} | {t:.2f} | {e.n_iter_} | {len(log)} | {sum(log)} | {max(log)} |",
        flush=True,
    )
