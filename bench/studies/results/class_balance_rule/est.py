import time

import numpy as np
from sklearn.utils import check_random_state

import mmc._balance as B
from mmc._seeds import draw_seeds
from mmc.bench._robustness_data import two_class_cases

cases = [(c.name, c.load()) for c in two_class_cases()]
seed = int(draw_seeds(check_random_state(0)))


def est(rows, runs):
    B.SAMPLE_ROWS, B.KMEANS_RUNS = rows, runs
    out = {}
    t = time.perf_counter()
    for name, (X, y) in cases:
        s = B.kmeans_cluster_sizes(X, 2, seed)
        out[name] = round(B.auto_class_balance(s, B.size_balance), 3)
    return out, time.perf_counter() - t


ref, tref = est(100000, 10)
truth = {
    name: round(abs(np.bincount(y)[0] - np.bincount(y)[1]) / len(y) + 0.03, 3)
    for name, (X, y) in cases
}
for rows, runs in [(1000, 3), (1000, 10), (500, 10), (500, 5), (300, 10), (2000, 3)]:
    o, t = est(rows, runs)
    diff = {k: (ref[k], o[k]) for k in ref if abs(ref[k] - o[k]) > 0.05}
    print(rows, runs, f"{t:.2f}s", len(diff), diff)
print("ref", f"{tref:.2f}s")
print({k: (truth[k], ref[k]) for k in ref if abs(truth[k] - ref[k]) > 0.1})
