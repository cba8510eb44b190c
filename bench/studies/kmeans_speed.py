"""Speed of the stable k-means (mmc._kmeans) before and after its kernels.

Times one run of :func:`mmc._kmeans.stable_kmeans` (preparation of X
included, at most 300 Lloyd iterations) in its current form and in the pure
NumPy/SciPy form of an earlier revision (``--old``, loaded from git), and
one ``KMeans(n_init=1)`` fit right after, on the digits (1797 x 64, k=10),
dense blobs (10^5 x 50, k=10) and sparse tf-idf-like data
(``make_sparse_clusters``, 10^4 x 10^5, 50 values a row, k=10). Timings on
a shared machine are noisy, so every time is divided by the KMeans time of
the same repeat and the median of the ratios over the repeats is reported.
Each repeat also checks that the old and the current run give the same
centres to the last bit.

Then CPM3C (defaults, n_clusters=10) on the digits, timed with the current
k-means and with the old one swapped in (``mmc._starts`` and
``mmc._balance`` use it), each divided by a ``KMeans(n_init=10)`` fit right
after; the labels of the two fits must be equal.

Usage (from the repository root):

    python -I bench/studies/kmeans_speed.py [--old REV] [--repeats N] [--threads N]

``--threads`` caps the BLAS and OpenMP threads of NumPy and scikit-learn
(threadpoolctl); the kernels of mmc._kmeans run on one thread either way.
Multithreaded libraries suffer most when other processes load the cores, so
both the capped and the default timings are worth recording.
"""

import argparse
import os
import platform
import subprocess
import time
import types

import numpy as np
from sklearn.cluster import KMeans
from sklearn.datasets import load_digits, make_blobs
from threadpoolctl import threadpool_limits

import mmc._balance
import mmc._kmeans
import mmc._starts
from mmc import CPM3C
from mmc.datasets import make_sparse_clusters

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def old_module(revision):
    """mmc/_kmeans.py of ``revision``, imported as a module of its own."""
    source = subprocess.run(
        ["git", "-C", ROOT, "show", f"{revision}:mmc/_kmeans.py"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    module = types.ModuleType("old_kmeans")
    exec(compile(source, f"{revision}:mmc/_kmeans.py", "exec"), module.__dict__)
    return module


def cases():
    X = load_digits().data / 16.0
    yield "digits 1797x64, k=10", X, 10
    X = make_blobs(100_000, n_features=50, centers=10, random_state=0)[0]
    yield "dense blobs 1e5x50, k=10", X, 10
    X = make_sparse_clusters(10_000, n_clusters=10, random_state=0)[0]
    yield "sparse 1e4x1e5 (50 nnz/row), k=10", X, 10


def timed(function):
    start = time.perf_counter()
    result = function()
    return time.perf_counter() - start, result


def per_run(old, repeats):
    rows = []
    for name, X, k in cases():
        ratios = {"old": [], "new": []}
        seconds = {"old": [], "new": [], "KMeans": []}
        identical = True
        for r in range(repeats):
            t_old, c_old = timed(
                lambda: old.stable_kmeans(X, k, np.random.RandomState(r), 300)
            )
            t_new, c_new = timed(
                lambda: mmc._kmeans.stable_kmeans(X, k, np.random.RandomState(r), 300)
            )
            t_km, _ = timed(
                lambda: KMeans(k, n_init=1, max_iter=300, random_state=r).fit(X)
            )
            identical &= c_old.tobytes() == c_new.tobytes()
            for key, t in (("old", t_old), ("new", t_new), ("KMeans", t_km)):
                seconds[key].append(t)
            ratios["old"].append(t_old / t_km)
            ratios["new"].append(t_new / t_km)
        rows.append(
            (
                name,
                {key: float(np.median(v)) for key, v in seconds.items()},
                {key: float(np.median(v)) for key, v in ratios.items()},
                identical,
            )
        )
        print(rows[-1], flush=True)
    return rows


def use_kmeans(module):
    mmc._starts.best_kmeans_centres = module.best_kmeans_centres
    mmc._balance.best_kmeans_centres = module.best_kmeans_centres
    mmc._balance.nearest_centres = module.nearest_centres


def cpm3c(old, repeats):
    X = load_digits().data / 16.0
    current = types.SimpleNamespace(
        best_kmeans_centres=mmc._kmeans.best_kmeans_centres,
        nearest_centres=mmc._kmeans.nearest_centres,
    )
    ratios = {"old": [], "new": []}
    seconds = {"old": [], "new": [], "KMeans": []}
    labels = {}
    for _ in range(repeats):
        for key, module in (("old", old), ("new", current)):
            use_kmeans(module)
            t_fit, est = timed(lambda: CPM3C(n_clusters=10, random_state=0).fit(X))
            t_km, _ = timed(lambda: KMeans(10, n_init=10, random_state=0).fit(X))
            ratios[key].append(t_fit / t_km)
            seconds[key].append(t_fit)
            seconds["KMeans"].append(t_km)
            labels[key] = est.labels_
    use_kmeans(current)
    same = np.array_equal(labels["old"], labels["new"])
    return (
        {key: float(np.median(v)) for key, v in ratios.items()},
        {key: float(np.median(v)) for key, v in seconds.items()},
        same,
    )


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--old", default="a05200e")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args()
    old = old_module(args.old)
    with threadpool_limits(args.threads):
        report(old, args)


def report(old, args):
    load = os.getloadavg()[0]
    print(
        f"{platform.machine()}, {os.cpu_count()} cores (load average {load:.1f} "
        f"at the start), threads={args.threads or 'default'}, "
        f"repeats={args.repeats}, old={args.old}"
    )
    print()
    print(
        "| case | old / KMeans | new / KMeans | old s | new s | KMeans s "
        "| same centres |"
    )
    print("|---|---|---|---|---|---|---|")
    for name, seconds, ratios, identical in per_run(old, args.repeats):
        print(
            f"| {name} | {ratios['old']:.2f} | {ratios['new']:.2f} "
            f"| {seconds['old']:.4f} | {seconds['new']:.4f} "
            f"| {seconds['KMeans']:.4f} | {'yes' if identical else 'NO'} |"
        )
    ratios, seconds, same = cpm3c(old, 3 * args.repeats)
    print()
    print(
        f"CPM3C(n_clusters=10) on the digits / KMeans(n_init=10): "
        f"old k-means {ratios['old']:.1f}, new {ratios['new']:.1f} "
        f"(median seconds: old {seconds['old']:.3f}, new {seconds['new']:.3f}, "
        f"KMeans(n_init=10) {seconds['KMeans']:.3f}); "
        f"same labels: {'yes' if same else 'NO'}"
    )


if __name__ == "__main__":
    main()
