"""CPM3C on Dask arrays: agreement with the in-memory fit, and how far the
visiting order of its coordinate descent decides the labels.

Run with ``python -I bench/dask/cpm3c_agreement.py order`` and
``python -I bench/dask/cpm3c_agreement.py dask`` (needs mmc[dask]); the
output is recorded in ``bench/dask/cpm3c_agreement.md``.

* ``order``: on every case of the robustness suite (16 multiclass, 57
  two-class), CPM3C with defaults and ``random_state=0`` in memory, and the
  same fit with every SVM's visiting order drawn from another seed
  (nothing else changes): the agreement of the two labellings, after the
  best matching, and both errors against the classes.
* ``dask``: on the multiclass cases and the two-class digit and text
  cases, the fit of the data as a Dask array in blocks of 500 rows (Dask's
  synchronous scheduler) with segments of 256 rows
  (``mmc._cpm3c_dual.SEGMENT_ROWS``, 65,536 by default, under which these
  data would make one block, visited as in memory), against the in-memory
  fit in the same order (segments of 256 rows in ``N_ROUNDS`` rounds):
  whether the labels are identical and the relative difference of the
  objectives; and against the in-memory fit with its own order (one
  shuffle of all rows): the agreement of the labels.
"""

import sys
import warnings

import numpy as np
import scipy.sparse as sp

import mmc._cpm3c_dual as dual
from mmc import CPM3C
from mmc.bench._robustness_data import multiclass_cases, two_class_cases
from mmc.metrics import clustering_error


def _n_classes(y):
    return len(np.unique(y))


def visiting_order():
    solve = dual.DualMulticlassSVM.solve

    def fit(X, k, offset):
        def shifted(self):
            self.seed += offset
            try:
                return solve(self)
            finally:
                self.seed -= offset

        dual.DualMulticlassSVM.solve = shifted
        try:
            return CPM3C(n_clusters=k, random_state=0).fit(X)
        finally:
            dual.DualMulticlassSVM.solve = solve

    agreements = []
    for case in multiclass_cases() + two_class_cases():
        X, y = case.load()
        k = _n_classes(y)
        a, b = fit(X, k, 0), fit(X, k, 7777)
        agreement = 1 - clustering_error(a.labels_, b.labels_)
        agreements.append(agreement)
        print(
            f"| {case.name} | {k} | {agreement:.4f} | "
            f"{100 * clustering_error(y, a.labels_):.2f} | "
            f"{100 * clustering_error(y, b.labels_):.2f} |",
            flush=True,
        )
    agreements = np.array(agreements)
    print(
        f"cases below 0.999: {(agreements < 0.999).sum()} of {len(agreements)}; "
        f"lowest {agreements.min():.4f}"
    )


def dask_agreement():
    import dask
    import dask.array as da

    dual.SEGMENT_ROWS = 256
    cases = multiclass_cases() + [
        c for c in two_class_cases() if c.kind in ("digits", "text")
    ]
    identical, agreements = 0, []
    for case in cases:
        X, y = case.load()
        k = _n_classes(y)
        default = CPM3C(n_clusters=k, random_state=0).fit(X)
        dual.DualMulticlassSVM.segment_rows = dual.SEGMENT_ROWS
        dual.DualMulticlassSVM.n_rounds = dual.N_ROUNDS
        try:
            expected = CPM3C(n_clusters=k, random_state=0).fit(X)
        finally:
            dual.DualMulticlassSVM.segment_rows = None
            dual.DualMulticlassSVM.n_rounds = 1
        blocks = da.from_array(X, chunks=(500, -1), asarray=not sp.issparse(X))
        with dask.config.set(scheduler="sync"):
            est = CPM3C(n_clusters=k, random_state=0).fit(blocks)
        same = bool(np.array_equal(expected.labels_, est.labels_))
        identical += same
        gap = abs(est.objective_ - expected.objective_) / abs(expected.objective_)
        agreement = 1 - clustering_error(default.labels_, est.labels_)
        agreements.append(agreement)
        print(
            f"| {case.name} | {k} | {X.shape[0]} | {'yes' if same else 'no'} | "
            f"{gap:.1e} | {agreement:.4f} |",
            flush=True,
        )
    agreements = np.array(agreements)
    print(
        f"identical labels to the same order in memory on {identical} of "
        f"{len(cases)} cases; agreement with the in-memory fit below 0.999 on "
        f"{(agreements < 0.999).sum()}, lowest {agreements.min():.4f}"
    )


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    {"order": visiting_order, "dask": dask_agreement}[sys.argv[1]]()
