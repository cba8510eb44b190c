"""MultivariateMMC: accuracy on the digit pairs and speed of the exact scan."""

import time

import numpy as np

from mmc import CPMMC, MultivariateMMC
from mmc._core._multivariate import (
    LOSS_ERROR,
    LOSS_FBETA,
    LOSS_NMI,
    LOSS_RAND,
    xlogx_table,
)
from mmc._core._table_search import most_violated_table
from mmc.bench._data import ALL_PAIRS, fits_on_digit_pairs
from mmc.metrics import normalized_mutual_info, rand_index

# NMI and Rand index the paper reports for MMC_multi (parameters tuned with the
# labels), for reference only.
PAPER_NMI = {"3v8": 0.861, "1v7": 1.0, "2v7": 1.0, "8v9": 0.860}
PAPER_RAND = {"3v8": 0.961, "1v7": 1.0, "2v7": 1.0, "8v9": 0.962}
LOSSES = {"error": LOSS_ERROR, "nmi": LOSS_NMI, "rand": LOSS_RAND, "fbeta": LOSS_FBETA}


def digit_pairs(repeat=3, random_state=0, progress=None):
    """NMI and Rand index of MultivariateMMC (NMI and Rand losses) and CPMMC.

    Returns per-pair scores and fit times (CPMMC timed in the same run) and
    their means.
    """
    makers = {
        "cpmmc": lambda: CPMMC(random_state=random_state),
        "nmi": lambda: MultivariateMMC(loss="nmi", random_state=random_state),
        "rand": lambda: MultivariateMMC(loss="rand", random_state=random_state),
    }
    rows = {}
    for pair, y_pair, fits in fits_on_digit_pairs(makers, ALL_PAIRS, repeat, progress):
        row = {}
        for name, (seconds, est) in fits.items():
            row[f"{name}_nmi"] = normalized_mutual_info(y_pair, est.labels_)
            row[f"{name}_rand"] = rand_index(y_pair, est.labels_)
            row[f"{name}_time"] = seconds
        rows[pair] = row
    keys = next(iter(rows.values())).keys()
    means = {key: float(np.mean([r[key] for r in rows.values()])) for key in keys}
    ratios = np.array([r["nmi_time"] / r["cpmmc_time"] for r in rows.values()])
    summary = {
        "mean": means,
        "time_ratio_nmi_over_cpmmc_median": float(np.median(ratios)),
        "time_ratio_nmi_over_cpmmc_max": float(ratios.max()),
        "paper_nmi_tuned_on_labels": PAPER_NMI,
        "paper_rand_tuned_on_labels": PAPER_RAND,
    }
    return {"pairs": rows, "summary": summary, "repeat": repeat}


def scan_speed(n_samples=20000, repeat=3, random_state=0):
    """Time of the exact scan over all contingency tables, for every loss.

    The decision values are Gaussian, split evenly between the sides, so the
    scan visits about ``n_samples**2 / 4`` tables.
    """
    rng = np.random.RandomState(random_state)
    decision = rng.standard_normal(n_samples)
    magnitude = np.abs(decision)
    pos = np.concatenate([[0.0], np.cumsum(np.sort(magnitude[decision > 0]))])
    neg = np.concatenate([[0.0], np.cumsum(np.sort(magnitude[decision <= 0]))])
    xlogx = xlogx_table(n_samples)
    n_tables = pos.size * neg.size
    from sklearn.utils._openmp_helpers import _openmp_effective_n_threads

    n_threads = _openmp_effective_n_threads()
    rows = {}
    for name, code in LOSSES.items():
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            most_violated_table(pos, neg, code, 1.0, xlogx, n_threads)
            times.append(time.perf_counter() - start)
        seconds = float(np.median(times))
        rows[name] = {"seconds": seconds, "tables_per_second": n_tables / seconds}
    return {
        "n_samples": n_samples,
        "n_tables": int(n_tables),
        "n_threads": n_threads,
        "losses": rows,
    }
