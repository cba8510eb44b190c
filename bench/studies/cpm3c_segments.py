"""CPM3C's coordinate descent against the rows per segment of its visiting order.

Recorded in bench/studies/cpm3c_segments.md. For each value of
``mmc._cpm3c_dual.SEGMENT_ROWS`` given: the fit time of ``CPM3C(random_state=0)``
on ``make_sparse_clusters(n, 100000 features, 50 non-zeros a row)``, its CCCP
iterations, the number of SVM solves, their epochs in all and the most
epochs of one solve (the limit is ``MAX_EPOCHS``).

    python -I bench/studies/cpm3c_segments.py N SEGMENT_ROWS [SEGMENT_ROWS ...]
"""

import sys
import time

import mmc._cpm3c_dual as d
from mmc import CPM3C
from mmc.datasets import make_sparse_clusters

n = int(sys.argv[1])
X, y = make_sparse_clusters(
    n_samples=n, n_features=100000, nnz_per_row=50, random_state=0
)
orig = d.DualMulticlassSVM.solve
log = []


def solve(self):
    before = self.n_epochs
    orig(self)
    log.append(self.n_epochs - before)


d.DualMulticlassSVM.solve = solve
for seg in [int(a) for a in sys.argv[2:]]:
    d.SEGMENT_ROWS = seg
    log.clear()
    t = time.perf_counter()
    e = CPM3C(random_state=0).fit(X)
    t = time.perf_counter() - t
    print(
        seg,
        round(t, 2),
        e.n_iter_,
        "solves",
        len(log),
        "epochs",
        sum(log),
        "max",
        max(log),
        "MAX_EPOCHS",
        d.MAX_EPOCHS,
        flush=True,
    )
