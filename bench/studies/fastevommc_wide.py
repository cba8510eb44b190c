"""FastEvoMMC on sparse rows of many features: its singular-vector
landmarks stored on the columns used, or dense over all columns
(``bench/studies/fastevommc_wide.md``).

Usage: ``python -I bench/studies/fastevommc_wide.py``. For each number of
features d, 3000 rows of ``mmc.datasets.make_sparse_clusters`` (50
non-zeros a row, separation 0.5, ``random_state=0``) and
``FastEvoMMC(random_state=0)``, fitted in a process of its own with the
landmarks as the fit stores them and as a dense array (``singular_landmarks``
densified: the code before), then KMeans(n_clusters=2, n_init=10): the fit
time, the process's peak resident memory, the error, whether the labels of
the two fits are equal and the largest difference of their
``decision_function`` on the rows.
"""

import json
import subprocess
import sys

CHILD = r"""
import json, resource, sys, time
import numpy as np, scipy.sparse as sp
import mmc, mmc._evo
from mmc.datasets import make_sparse_clusters
from mmc.metrics import clustering_error
from sklearn.cluster import KMeans

n_features, variant = int(sys.argv[1]), sys.argv[2]
X, y = make_sparse_clusters(
    n_samples=3000, n_features=n_features, nnz_per_row=50, separation=0.5,
    random_state=0,
)
if variant == "dense":
    singular = mmc._evo.singular_landmarks
    mmc._evo.singular_landmarks = lambda *a: (
        lambda p: p.toarray() if sp.issparse(p) else p)(singular(*a))
start = time.perf_counter()
if variant == "KMeans":
    labels = KMeans(2, n_init=10, random_state=0).fit_predict(X)
    decision = []
else:
    est = mmc.FastEvoMMC(random_state=0).fit(X)
    labels = est.labels_
    decision = est.decision_function(X).tolist()
seconds = time.perf_counter() - start
json.dump({
    "seconds": seconds,
    "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    "error": 100 * clustering_error(y, labels),
    "labels": np.asarray(labels).tolist(),
    "decision": decision,
}, sys.stdout)
"""


def run(n_features, variant):
    out = subprocess.run(
        [sys.executable, "-I", "-c", CHILD, str(n_features), variant],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return json.loads(out)


def main():
    print(
        "| d | KMeans (s) | stored on used columns (s, peak MB, error %) "
        "| dense (s, peak MB, error %) | same labels | largest difference |"
    )
    print("|---:|---:|---|---|---|---:|")
    for n_features in (10_000, 100_000, 2**20):
        kmeans = run(n_features, "KMeans")
        sparse, dense = run(n_features, "sparse"), run(n_features, "dense")
        difference = max(
            abs(a - b) for a, b in zip(sparse["decision"], dense["decision"])
        )
        print(
            f"| {n_features:,} | {kmeans['seconds']:.2f} "
            f"| {sparse['seconds']:.2f}, {sparse['peak_mb']:.0f}, "
            f"{sparse['error']:.2f} | {dense['seconds']:.2f}, "
            f"{dense['peak_mb']:.0f}, {dense['error']:.2f} "
            f"| {sparse['labels'] == dense['labels']} | {difference:.1e} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
