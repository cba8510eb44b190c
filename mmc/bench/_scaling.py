"""Fit time and memory of CPMMC against the number of samples (sparse data)."""

from sklearn.cluster import KMeans

from mmc import CPMMC
from mmc.bench._timing import loglog_slope, peak_fit_memory, time_fit
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
