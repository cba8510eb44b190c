"""CPM3C's coordinate descent in the orders of Dask fits, made in memory,
with fewer rounds, and with rounds in the first epoch of each SVM only.

Recorded in bench/studies/cpm3c_segments.md (last section). Prints, for
each order, the fit time, CCCP iterations, SVM solves, epochs in all, the
most epochs of one solve, the error (%) and the agreement of the labels
with the first order's. An order is ``one`` (one shuffle of all rows, the
in-memory order), ``RxN`` (segments of R rows visited in N rounds every
epoch, the order of the Dask fits) or ``RxN/M`` (N rounds in the first
epoch of each SVM solve, M in the epochs after it). DATA is ``sparse``
(``make_sparse_clusters``, 100,000 features, 50 non-zeros a row) or
``dense`` (the data of ``python -m mmc.bench dask``).

    python -I bench/studies/cpm3c_first_rounds.py DATA N SEED ORDER [ORDER ...]
"""

import sys
import time

import mmc._cpm3c_dual as d
from mmc import CPM3C
from mmc.metrics import clustering_error

EPOCHS = []
ROUNDS = {"first": 1, "later": 1}
SOLVE = d.DualMulticlassSVM.solve


def solve(self):
    """DualMulticlassSVM.solve with ROUNDS["first"] rounds in the first
    epoch and ROUNDS["later"] in the others (a second solve, from the next
    seed, when the first epoch does not converge); records the epochs."""
    before = self.n_epochs
    first, later = ROUNDS["first"], ROUNDS["later"]
    if first == later:
        self.n_rounds = later
        SOLVE(self)
    else:
        limit = d.MAX_EPOCHS
        self.n_rounds, d.MAX_EPOCHS = first, 1
        try:
            SOLVE(self)
        finally:
            d.MAX_EPOCHS = limit
        if not self.converged:
            self.n_rounds = later
            d.MAX_EPOCHS = limit - 1
            try:
                SOLVE(self)
            finally:
                d.MAX_EPOCHS = limit
    EPOCHS.append(self.n_epochs - before)


def load(data, n_samples):
    if data == "sparse":
        from mmc.datasets import make_sparse_clusters

        return make_sparse_clusters(
            n_samples=n_samples, n_features=100000, nnz_per_row=50, random_state=0
        )
    from mmc.bench._dask import dask_data

    return dask_data(n_samples, 0).compute(), None


def main():
    data, n_samples, seed = sys.argv[1], int(float(sys.argv[2])), int(sys.argv[3])
    X, y = load(data, n_samples)
    d.DualMulticlassSVM.solve = solve
    reference = None
    for order in sys.argv[4:]:
        if order == "one":
            rows, first, later = None, 1, 1
        else:
            rows, rounds = order.split("x")
            rows = int(rows)
            parts = rounds.split("/") if "/" in rounds else [rounds, rounds]
            first, later = map(int, parts)
        d.DualMulticlassSVM.segment_rows = rows
        ROUNDS.update(first=first, later=later)
        EPOCHS.clear()
        start = time.perf_counter()
        fit = CPM3C(random_state=seed).fit(X)
        seconds = time.perf_counter() - start
        if reference is None:
            reference = fit.labels_
        error = "-" if y is None else f"{100 * clustering_error(y, fit.labels_):.2f}"
        agreement = 1 - clustering_error(reference, fit.labels_)
        print(
            f"| {data} {n_samples} s{seed} | {order} | {seconds:.2f} | "
            f"{fit.n_iter_} | {len(EPOCHS)} | {sum(EPOCHS)} | {max(EPOCHS)} | "
            f"{error} | {agreement:.5f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
