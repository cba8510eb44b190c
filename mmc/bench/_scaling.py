"""Fit time against the number of samples: CPMMC in detail (time and memory
on sparse data), and every estimator on dense and sparse data."""

from sklearn.cluster import KMeans
from sklearn.datasets import make_blobs

from mmc import CPMMC
from mmc.bench._timing import (
    loglog_slope,
    peak_fit_memory,
    time_fit,
    time_growing_sizes,
)
from mmc.datasets import make_sparse_clusters
from mmc.metrics import clustering_error

FULL_SIZES = (10_000, 30_000, 100_000, 300_000, 1_000_000)
FULL_FEATURES = 100_000
QUICK_SIZES = (2_000, 5_000, 10_000, 20_000, 50_000)
QUICK_FEATURES = 10_000
NNZ_PER_ROW = 50


def sparse_scaling(quick=False, repeat=1, random_state=0, progress=None):
    """Time CPMMC (``n_init=1``) and KMeans on growing sparse data sets.

    The data come from :func:`mmc.datasets.make_sparse_clusters` (two
    clusters, 50 non-zeros per row, 100 000 features; 10 000 with
    ``quick``).

    Returns
    -------
    result : dict
        ``"sizes"``, per-size records (times, errors, peak memory of the CPMMC
        fit relative to the size of the CSR data) and the log-log slopes.
    """
    sizes = QUICK_SIZES if quick else FULL_SIZES
    n_features = QUICK_FEATURES if quick else FULL_FEATURES
    iterable = progress(sizes) if progress is not None else sizes
    rows = []
    for n_samples in iterable:
        X, y = make_sparse_clusters(
            n_samples=n_samples,
            n_features=n_features,
            nnz_per_row=NNZ_PER_ROW,
            random_state=random_state,
        )
        data_bytes = X.data.nbytes + X.indices.nbytes + X.indptr.nbytes

        def make_cpmmc():
            return CPMMC(n_init=1, random_state=random_state)

        cpmmc_time, cpmmc = time_fit(make_cpmmc, X, repeat)
        kmeans_time, kmeans = time_fit(
            lambda: KMeans(n_clusters=2, n_init=1, random_state=random_state),
            X,
            repeat,
        )
        rows.append(
            {
                "n_samples": n_samples,
                "n_features": n_features,
                "nnz": int(X.nnz),
                "cpmmc_time": cpmmc_time,
                "kmeans_time": kmeans_time,
                "cpmmc_error": 100 * clustering_error(y, cpmmc.labels_),
                "kmeans_error": 100 * clustering_error(y, kmeans.labels_),
                "cpmmc_n_iter": int(cpmmc.n_iter_),
                "cpmmc_peak_memory_over_data": peak_fit_memory(make_cpmmc, X)
                / data_bytes,
            }
        )
    return {
        "rows": rows,
        "cpmmc_slope": loglog_slope(
            [r["n_samples"] for r in rows], [r["cpmmc_time"] for r in rows]
        ),
        "kmeans_slope": loglog_slope(
            [r["n_samples"] for r in rows], [r["kmeans_time"] for r in rows]
        ),
        "repeat": repeat,
    }


SCALING_SIZES = (1_000, 3_000, 10_000, 30_000, 100_000, 300_000, 1_000_000)
QUICK_SCALING_SIZES = (500, 1_000, 2_000)
# The next size is timed only if a linear extrapolation of the last fit time
# stays within this budget (s), which keeps the run of all estimators under
# about ten minutes. The quick run's budget lets every estimator reach a
# second size (a slope): CPMMC's class_balance="stable" fits six to twelve
# subsamples of the 500 sparse rows, where no bound is stable.
TIME_BUDGET = 20.0
QUICK_TIME_BUDGET = 1.0
DENSE_FEATURES = 50


def scaling_data(kind, n_samples, quick, random_state, n_clusters=2, separation=0.3):
    """``(X, y)``: ``n_clusters`` blobs of standard deviation 4 in 50 dense
    features (centres drawn in [-10, 10]^50), or sparse text-like rows (50
    non-zeros among 100 000 features, 10 000 with ``quick``, topics apart
    by ``separation``)."""
    if kind == "sparse":
        return make_sparse_clusters(
            n_samples=n_samples,
            n_features=QUICK_FEATURES if quick else FULL_FEATURES,
            nnz_per_row=NNZ_PER_ROW,
            n_clusters=n_clusters,
            separation=separation,
            random_state=random_state,
        )
    return make_blobs(
        n_samples=n_samples,
        n_features=DENSE_FEATURES,
        centers=n_clusters,
        cluster_std=4.0,
        random_state=random_state,
    )


def estimator_scaling(entries, quick=False, repeat=1, random_state=0, progress=None):
    """Fit time against n for every estimator, on dense and sparse data.

    Two clusters: :func:`sklearn.datasets.make_blobs` with 50 features
    (dense), :func:`mmc.datasets.make_sparse_clusters` (sparse, as above).
    Each estimator runs with its defaults (``n_clusters=2`` where it has
    the parameter) on growing n while the fit time extrapolated linearly to
    the next size stays within ``TIME_BUDGET`` seconds, and until the
    estimator refuses a size (an error that names a memory limit, for
    instance).

    Returns
    -------
    result : dict
        ``kind -> estimator -> {"sizes", "times", "errors", "slope",
        "stopped"}``; ``slope`` is the log-log slope of time against n (None
        with fewer than two sizes), ``stopped`` why the sizes stopped.
    """
    sizes = QUICK_SCALING_SIZES if quick else SCALING_SIZES
    budget = QUICK_TIME_BUDGET if quick else TIME_BUDGET
    runs = [(kind, name) for kind in ("dense", "sparse") for name in entries]
    if progress is not None:
        runs = progress(runs)
    result = {"dense": {}, "sparse": {}, "repeat": repeat, "time_budget": budget}
    for kind, name in runs:
        entry = entries[name]
        record = time_growing_sizes(
            lambda entry=entry: entry.make(2, random_state),
            lambda n, kind=kind: scaling_data(kind, n, quick, random_state),
            sizes,
            repeat,
            budget,
            quick,
        )
        result[kind][name] = record
    return result
