"""Fits on Dask arrays: ``python -m mmc.bench dask`` (not part of ``all``).

The fit time against n of the estimators that take Dask arrays (CPMMC,
CPM3C with two clusters and MultivariateMMC, defaults otherwise; the
``--estimators`` option picks among them) on a ``LocalCluster`` of two
single-threaded worker processes with a memory limit each, for three forms
of the same data: a NumPy array fitted in the client process (the in-memory fit, the
baseline), a Dask array persisted in the workers' memory, and a Dask array
read from a zarr store on disk at every pass (out of core: the largest size
is larger than the workers' memory together). Per fit: the time, its ratio
to the in-memory fit of the same size in the same run, the agreement of
the labels with the in-memory fit (after the best matching), and the peak
resident memory of the workers and of the client (sampled every 50 ms).

The data are two Gaussian clusters in 50 float32 features, generated block
by block from the seed and the block's index, so that every form holds the
same values; the zarr stores go to a temporary directory (``--data-dir``),
never into the repository.
"""

import os
import shutil
import tempfile
import threading
import time

import numpy as np

from mmc.bench import _registry as registry
from mmc.bench._timing import loglog_slope
from mmc.metrics import clustering_error

N_FEATURES = 50
BLOCK_ROWS = 250_000
SIZES = (100_000, 300_000, 1_000_000, 3_000_000, 10_000_000)
QUICK_SIZES = (20_000, 50_000, 100_000)
# Largest size fitted in memory (NumPy, and Dask persisted on the workers).
IN_MEMORY_LIMIT = 1_000_000
WORKER_MEMORY = "1GB"
# The estimators that fit Dask arrays, in the order of the report.
ESTIMATORS = ("CPMMC", "CPM3C", "MultivariateMMC")


def _block(seed, index, n_rows):
    """Rows of block ``index``: two clusters, means at distance 8 along a
    fixed random direction, unit Gaussian noise, labels at random."""
    direction = np.random.RandomState(seed).standard_normal(N_FEATURES)
    direction *= 4.0 / np.linalg.norm(direction)
    rng = np.random.default_rng([seed, index])
    labels = rng.integers(0, 2, n_rows)
    X = rng.standard_normal((n_rows, N_FEATURES), dtype=np.float32)
    X += np.where(labels[:, None] == 1, direction, -direction).astype(np.float32)
    return X


def dask_data(n_samples, seed):
    """The data set of ``n_samples`` rows as a lazy Dask array."""
    import dask.array as da

    chunks = [BLOCK_ROWS] * (n_samples // BLOCK_ROWS)
    if n_samples % BLOCK_ROWS:
        chunks.append(n_samples % BLOCK_ROWS)

    def make(block_info=None):
        info = block_info[None]
        index = info["chunk-location"][0]
        return _block(seed, index, info["chunk-shape"][0])

    return da.map_blocks(
        make,
        chunks=(tuple(chunks), (N_FEATURES,)),
        dtype=np.float32,
        meta=np.empty((0, N_FEATURES), np.float32),
    )


class _PeakMemory:
    """Peak resident memory of the client process and of the workers
    (their sum), sampled every 50 ms while the block runs."""

    def __init__(self, client):
        import psutil

        pids = client.run(os.getpid).values()
        self._workers = [psutil.Process(pid) for pid in pids]
        self._client = psutil.Process()

    def __enter__(self):
        self.client_peak = self.workers_peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def _sample(self):
        while not self._stop.is_set():
            try:
                workers = sum(p.memory_info().rss for p in self._workers)
            except Exception:  # a worker restarted: skip the sample
                workers = 0
            self.workers_peak = max(self.workers_peak, workers)
            self.client_peak = max(self.client_peak, self._client.memory_info().rss)
            self._stop.wait(0.05)

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def local_cluster():
    """The cluster of the measurements: 2 single-threaded worker processes
    of ``WORKER_MEMORY`` each."""
    from distributed import LocalCluster

    return LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        memory_limit=WORKER_MEMORY,
        dashboard_address=":0",  # any free port: never a clash
        silence_logs=40,
    )


def _fit(client, name, X, seed):
    with _PeakMemory(client) as memory:
        start = time.perf_counter()
        estimator = registry.estimators()[name].make(2, seed).fit(X)
        elapsed = time.perf_counter() - start
    return estimator, {
        "time": elapsed,
        "n_iter": int(estimator.n_iter_),
        "objective": float(estimator.objective_),
        "workers_peak_rss_mb": memory.workers_peak / 2**20,
        "client_peak_rss_mb": memory.client_peak / 2**20,
    }


def _compare(row, form, reference, estimator):
    """The agreement of a Dask fit with the in-memory fit, and the ratio
    of their times."""
    row[form]["agreement"] = 1 - clustering_error(reference.labels_, estimator.labels_)
    row[form]["time_ratio"] = row[form]["time"] / row["numpy"]["time"]


def check_estimators(names):
    """The estimators to run (all of :data:`ESTIMATORS` if None).

    Raises
    ------
    SystemExit
        If a name is not one of :data:`ESTIMATORS`.
    """
    if names is None:
        return ESTIMATORS
    unknown = [name for name in names if name not in ESTIMATORS]
    if unknown:
        raise SystemExit(
            f"error: the dask suite runs only {', '.join(ESTIMATORS)}; "
            f"got {', '.join(unknown)}"
        )
    return tuple(name for name in ESTIMATORS if name in names)


def run(
    quick=False,
    random_state=0,
    data_dir=None,
    progress=None,
    estimators=None,
    max_rows=None,
):
    """Run the measurements; returns a dict (see the module docstring).

    ``max_rows`` leaves out the sizes above it (None: every size).

    Every estimator fits the same data: per size, a zarr store is written
    once; the in-memory and persisted fits of every estimator come first,
    then the persisted array is released and every estimator reads the
    store, so that the workers' peak memory of a zarr fit is its own.
    """
    import dask.array as da
    from distributed import Client, wait

    names = check_estimators(estimators)
    every_size = QUICK_SIZES if quick else SIZES
    sizes = every_size
    if max_rows is not None:
        sizes = tuple(n for n in every_size if n <= max_rows)
        if not sizes:
            raise SystemExit(
                f"error: --max-rows {max_rows} is below the smallest size, "
                f"{min(every_size)}"
            )
    in_memory_limit = max(QUICK_SIZES) if quick else IN_MEMORY_LIMIT
    directory = tempfile.mkdtemp(prefix="mmc-dask-bench-", dir=data_dir)
    records = {name: [] for name in names}
    try:
        with local_cluster() as cluster, Client(cluster) as client:
            for n_samples in progress(sizes) if progress else sizes:
                lazy = dask_data(n_samples, random_state)
                path = os.path.join(directory, f"X_{n_samples}.zarr")
                lazy.to_zarr(path)
                on_disk = da.from_zarr(path)
                rows = {
                    name: {"n_samples": n_samples, "data_mb": lazy.nbytes / 2**20}
                    for name in names
                }
                references = {}
                if n_samples <= in_memory_limit:
                    X = lazy.compute()
                    for name in names:
                        references[name], rows[name]["numpy"] = _fit(
                            client, name, X, random_state
                        )
                    del X
                    persisted = lazy.persist()
                    wait(persisted)
                    for name in names:
                        est, rows[name]["dask_memory"] = _fit(
                            client, name, persisted, random_state
                        )
                        _compare(rows[name], "dask_memory", references[name], est)
                    del persisted, est
                for name in names:
                    est, rows[name]["dask_zarr"] = _fit(
                        client, name, on_disk, random_state
                    )
                    if name in references:
                        _compare(rows[name], "dask_zarr", references[name], est)
                    records[name].append(rows[name])
                del references, est
                shutil.rmtree(path, ignore_errors=True)
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    return {
        "n_features": N_FEATURES,
        "block_rows": BLOCK_ROWS,
        "workers": 2,
        "worker_memory_limit": WORKER_MEMORY,
        "estimators": {
            name: {"rows": rows, "zarr_slope_from_1e6": _zarr_slope(rows)}
            for name, rows in records.items()
        },
    }


def _zarr_slope(rows):
    """Log-log slope of the zarr fit time against n from n = 1e6 (None
    with fewer than two such sizes)."""
    large = [r for r in rows if r["n_samples"] >= 1_000_000]
    if len(large) < 2:
        return None
    return loglog_slope(
        [r["n_samples"] for r in large], [r["dask_zarr"]["time"] for r in large]
    )


def summary_lines(result):
    lines = []
    for name, record in result["estimators"].items():
        lines.append(f"{name} on Dask arrays (LocalCluster, 2 workers of 1 GB):")
        lines.append(
            f"  {'n':>9s} {'numpy s':>8s} {'dask mem s':>10s} {'zarr s':>8s} "
            f"{'ratio':>6s} {'agree':>7s} {'workers MB':>10s} {'client MB':>9s}"
        )
        for row in record["rows"]:
            numpy_time = row.get("numpy", {}).get("time")
            memory = row.get("dask_memory", {})
            zarr = row["dask_zarr"]
            lines.append(
                f"  {row['n_samples']:9d} "
                + (f"{numpy_time:8.2f} " if numpy_time else f"{'-':>8s} ")
                + (f"{memory['time']:10.2f} " if memory else f"{'-':>10s} ")
                + f"{zarr['time']:8.2f} "
                + (f"{memory['time_ratio']:6.2f} " if memory else f"{'-':>6s} ")
                + (
                    f"{zarr['agreement']:7.4f} "
                    if "agreement" in zarr
                    else f"{'-':>7s} "
                )
                + f"{zarr['workers_peak_rss_mb']:10.0f} "
                + f"{zarr['client_peak_rss_mb']:9.0f}"
            )
        if record["zarr_slope_from_1e6"] is not None:
            lines.append(
                f"  log-log slope of the zarr fit time from n=1e6: "
                f"{record['zarr_slope_from_1e6']:.2f}"
            )
    return lines


def _table(record):
    out = [
        "| n | data MB | numpy s | dask memory s (ratio) | zarr s (ratio) | "
        "agreement memory / zarr | workers peak MB (zarr) | client peak MB (zarr) |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in record["rows"]:
        numpy_time = row.get("numpy", {}).get("time")
        memory = row.get("dask_memory")
        zarr = row["dask_zarr"]
        cells = [
            f"{row['n_samples']:,}",
            f"{row['data_mb']:.0f}",
            f"{numpy_time:.2f}" if numpy_time else "-",
            f"{memory['time']:.2f} ({memory['time_ratio']:.2f})" if memory else "-",
            f"{zarr['time']:.2f}"
            + (f" ({zarr['time_ratio']:.2f})" if "time_ratio" in zarr else ""),
            (f"{memory['agreement']:.4f} / {zarr['agreement']:.4f}" if memory else "-"),
            f"{zarr['workers_peak_rss_mb']:.0f}",
            f"{zarr['client_peak_rss_mb']:.0f}",
        ]
        out.append("| " + " | ".join(cells) + " |")
    if record["zarr_slope_from_1e6"] is not None:
        out += [
            "",
            "Log-log slope of the zarr fit time against n from n = 1e6: "
            f"{record['zarr_slope_from_1e6']:.2f}.",
        ]
    return out


def markdown(result, figure):
    """The report: a table per estimator, and the figure."""
    names = list(result["estimators"])
    out = [
        "# Fits on Dask arrays",
        "",
        f"`python -I -m mmc.bench dask`: {', '.join(names)} (default parameters"
        + ("; CPM3C with `n_clusters=2`" if "CPM3C" in names else "")
        + ") on two "
        f"Gaussian clusters in {result['n_features']} float32 features, blocks "
        f"of {result['block_rows']} rows, on a LocalCluster of "
        f"{result['workers']} single-threaded worker processes with a memory "
        f"limit of {result['worker_memory_limit']} each. *numpy*: the in-memory "
        "fit in the client process (the baseline); *dask memory*: the Dask "
        "array persisted on the workers; *zarr*: read from a zarr store on disk "
        "at every pass. Ratio: time over the in-memory fit's, same run. "
        "Agreement: share of the labels equal to the in-memory fit's after the "
        "best matching. Memory: peak resident memory, summed over the workers, "
        "and of the client process (which also holds the in-memory data for the "
        "numpy fits).",
    ]
    for name in names:
        out += ["", f"## {name}", ""] + _table(result["estimators"][name])
    out += ["", f"![fit time against n]({figure})", ""]
    return "\n".join(out)


def plot(result, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(result["estimators"])
    fig, axes = plt.subplots(
        1, len(names), figsize=(5 * len(names), 4), squeeze=False, sharey=True
    )
    for ax, name in zip(axes[0], names):
        for form, label in (
            ("numpy", "NumPy, in memory"),
            ("dask_memory", "Dask, persisted on the workers"),
            ("dask_zarr", "Dask, from zarr on disk"),
        ):
            rows = [r for r in result["estimators"][name]["rows"] if form in r]
            ax.loglog(
                [r["n_samples"] for r in rows],
                [r[form]["time"] for r in rows],
                "o-",
                label=label,
            )
        ax.set_xlabel("n_samples")
        ax.set_title(name)
    axes[0][0].set_ylabel("fit time (s)")
    axes[0][0].legend()
    fig.suptitle("On a LocalCluster (2 workers, 1 GB each)")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
