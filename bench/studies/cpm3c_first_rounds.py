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


def solve(self):
    """DualMulticlassSVM.solve with ROUNDS["first"] rounds in the first
    epoch and ROUNDS["later"] in the others; records the epochs."""
    self._n_solves += 1
    seed = (self.seed + self._n_solves) % 2**32
    segment = self.segment_rows or max(self.X.shape[0], 1)
    state = (
        self._x_dot_mean,
        self._sq_norms,
        self.assignment,
        self.alpha,
        self.W_T,
        self.mean_coef,
        self.W_dot_mean,
        self.v,
        self.intercept_scale,
        self._mean_sq_norm,
        self.C / self.X.shape[0],
    )
    first, later = ROUNDS["first"], ROUNDS["later"]
    if first == later:
        epochs, violation = self._epochs(
            *state, seed, d.MAX_EPOCHS, self.tol, segment, later
        )
    else:
        epochs, violation = self._epochs(*state, seed, 1, self.tol, segment, first)
        if violation > self.tol:
            more, violation = self._epochs(
                *state,
                (seed * 2654435761 + 1) % 2**32,
                d.MAX_EPOCHS - 1,
                self.tol,
                segment,
                later,
            )
            epochs += more
    self.n_epochs += epochs
    EPOCHS.append(epochs)
    self.converged = violation <= self.tol


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
