"""ODMC against CPMMC: digit pairs, breast cancer and sparse scaling.

The numbers of the ODMC issue's contract, measured in one run with default
parameters: the mean error over the 45 digit pairs of ``load_digits / 16``
against CPMMC's (and the fit time ratio ODMC / CPMMC on each pair), the
accuracy on the standardised ``load_breast_cancer`` against
``KMeans(n_clusters=2, n_init=10)``, and the log-log slope of the fit time
against n on sparse synthetic data. ``markdown`` renders the result
(``bench/odmc.md`` holds a full run).
"""

import time

import numpy as np
from sklearn.cluster import KMeans
from sklearn.datasets import load_breast_cancer
from sklearn.preprocessing import StandardScaler

from mmc import CPMMC, ODMC
from mmc._odmc_relaxed import LabellingWorkingSet, visiting_order
from mmc._rows import column_means
from mmc.bench._data import ALL_PAIRS, fits_on_digit_pairs
from mmc.bench._timing import loglog_slope, time_fit
from mmc.datasets import make_sparse_clusters
from mmc.metrics import clustering_error

QUICK_PAIRS = ((3, 8), (1, 7), (4, 9))
FULL_SIZES = (10_000, 30_000, 100_000, 300_000, 1_000_000)
QUICK_SIZES = (1_000, 3_000, 10_000)
FULL_FEATURES = 100_000
QUICK_FEATURES = 10_000
NNZ_PER_ROW = 50


def digit_pairs(pairs=None, repeat=3, random_state=0, progress=None):
    """Error (%) and fit time of ODMC and CPMMC on digit pairs (default: all 45)."""
    makers = {
        "odmc": lambda: ODMC(random_state=random_state),
        "cpmmc": lambda: CPMMC(random_state=random_state),
    }
    rows = {}
    pairs = ALL_PAIRS if pairs is None else pairs
    for pair, y_pair, fits in fits_on_digit_pairs(makers, pairs, repeat, progress):
        (odmc_time, odmc), (cpmmc_time, cpmmc) = fits["odmc"], fits["cpmmc"]
        rows[pair] = {
            "odmc_error": 100 * clustering_error(y_pair, odmc.labels_),
            "cpmmc_error": 100 * clustering_error(y_pair, cpmmc.labels_),
            "odmc_time": odmc_time,
            "cpmmc_time": cpmmc_time,
            "time_ratio": odmc_time / cpmmc_time,
            "odmc_n_iter": int(odmc.n_iter_),
            "odmc_n_labellings": int(odmc.n_constraints_),
        }
    ratios = np.array([r["time_ratio"] for r in rows.values()])
    summary = {
        "n_pairs": len(rows),
        "odmc_mean_error": float(np.mean([r["odmc_error"] for r in rows.values()])),
        "cpmmc_mean_error": float(np.mean([r["cpmmc_error"] for r in rows.values()])),
        "time_ratio_median": float(np.median(ratios)),
        "time_ratio_max": float(ratios.max()),
        "total_time_ratio": float(
            sum(r["odmc_time"] for r in rows.values())
            / sum(r["cpmmc_time"] for r in rows.values())
        ),
    }
    return {"pairs": rows, "summary": summary}


def breast_cancer(repeat=3, random_state=0):
    """Accuracy (%) and fit time on the standardised breast cancer data."""
    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    makers = {
        "ODMC": lambda: ODMC(random_state=random_state),
        "CPMMC": lambda: CPMMC(random_state=random_state),
        "KMeans": lambda: KMeans(n_clusters=2, n_init=10, random_state=random_state),
    }
    result = {}
    for name, make in makers.items():
        seconds, est = time_fit(make, X, repeat)
        result[name] = {
            "accuracy": 100 * (1 - clustering_error(y, est.labels_)),
            "time": seconds,
        }
    return result


def step_time(X, labels, n_steps=3, random_state=0):
    """Median time of one mirror-descent step (epoch on alpha, step on mu,
    duality gap) with the working set holding the one labelling ``labels``."""
    x_mean = column_means(X)
    ws = LabellingWorkingSet(X, x_mean, 2.0, 0.3, 0.3, 10.0, capacity=1)
    ws.add(np.where(labels > 0, 1, -1).astype(np.int8), 1.0)
    rng = np.random.RandomState(random_state)
    times = []
    for _ in range(n_steps):
        start = time.perf_counter()
        ws.epoch(visiting_order(X.shape[0], rng))
        values = ws.values()
        ws.mu_step(values, 1.0)
        ws.gap(values)
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def sparse_scaling(quick=False, repeat=1, random_state=0, progress=None):
    """Fit time of ODMC (``n_init=1``) against n on sparse two-cluster data."""
    sizes = QUICK_SIZES if quick else FULL_SIZES
    n_features = QUICK_FEATURES if quick else FULL_FEATURES
    rows = []
    for n_samples in progress(sizes) if progress is not None else sizes:
        X, y = make_sparse_clusters(
            n_samples=n_samples,
            n_features=n_features,
            nnz_per_row=NNZ_PER_ROW,
            random_state=random_state,
        )
        seconds, est = time_fit(
            lambda: ODMC(n_init=1, random_state=random_state), X, repeat
        )
        step = step_time(X, est.labels_, random_state=random_state)
        rows.append(
            {
                "n_samples": n_samples,
                "nnz": int(X.nnz),
                "time": seconds,
                "step_time": step,
                "step_time_per_nnz": step / X.nnz,
                "n_iter": int(est.n_iter_),
                "n_labellings": int(est.n_constraints_),
                "error": 100 * clustering_error(y, est.labels_),
            }
        )
    return {
        "n_features": n_features,
        "rows": rows,
        "step_slope": loglog_slope(
            [r["nnz"] for r in rows], [r["step_time"] for r in rows]
        ),
        "slope": loglog_slope(
            [r["n_samples"] for r in rows], [r["time"] for r in rows]
        ),
    }


def run(quick=False, repeat=3, random_state=0, progress=None):
    """Every ODMC measurement; ``quick`` keeps it to a few seconds."""
    return {
        "digits": digit_pairs(
            QUICK_PAIRS if quick else None,
            repeat=repeat,
            random_state=random_state,
            progress=progress,
        ),
        "breast_cancer": breast_cancer(repeat=repeat, random_state=random_state),
        "scaling": sparse_scaling(
            quick=quick, repeat=1 if quick else repeat, random_state=random_state
        ),
        "quick": quick,
        "repeat": repeat,
    }


def summary_lines(result):
    """A few lines for the terminal."""
    d = result["digits"]["summary"]
    bc = result["breast_cancer"]
    sc = result["scaling"]
    return [
        f"ODMC on {d['n_pairs']} digit pairs: mean error {d['odmc_mean_error']:.2f}% "
        f"(CPMMC {d['cpmmc_mean_error']:.2f}%), fit time ODMC / CPMMC median "
        f"{d['time_ratio_median']:.2f}",
        f"ODMC on breast_cancer: accuracy {bc['ODMC']['accuracy']:.2f}% (KMeans "
        f"{bc['KMeans']['accuracy']:.2f}%, CPMMC {bc['CPMMC']['accuracy']:.2f}%)",
        f"ODMC sparse scaling: log-log slope {sc['slope']:.2f} (fit time vs n), "
        f"{sc['step_slope']:.2f} (step time vs nnz)",
    ]


def markdown(result):
    """The result as a markdown section."""
    d = result["digits"]
    s = d["summary"]
    lines = [
        "## ODMC",
        "",
        "Default parameters, `random_state=0`; fit times are medians of "
        f"{result['repeat']} fits, CPMMC timed in the same run.",
        "",
        f"### Digit pairs (load_digits / 16, {s['n_pairs']} pairs)",
        "",
        "| pair | ODMC error | CPMMC error | ODMC time (ms) | CPMMC time (ms) "
        "| ratio | ODMC steps | labellings |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for pair, r in d["pairs"].items():
        lines.append(
            f"| {pair} | {r['odmc_error']:.2f} | {r['cpmmc_error']:.2f} | "
            f"{1e3 * r['odmc_time']:.1f} | {1e3 * r['cpmmc_time']:.1f} | "
            f"{r['time_ratio']:.2f} | {r['odmc_n_iter']} | {r['odmc_n_labellings']} |"
        )
    lines += [
        "",
        f"* Mean error: ODMC {s['odmc_mean_error']:.2f}%, CPMMC "
        f"{s['cpmmc_mean_error']:.2f}% (contract: at most CPMMC's + 0.5).",
        f"* Fit time ODMC / CPMMC: median {s['time_ratio_median']:.2f}, max "
        f"{s['time_ratio_max']:.2f}, total {s['total_time_ratio']:.2f} "
        "(contract: at most 2).",
        "",
        "### Breast cancer (load_breast_cancer, standardised)",
        "",
        "| estimator | accuracy (%) | time (ms) |",
        "|---|---|---|",
    ]
    for name, r in result["breast_cancer"].items():
        lines.append(f"| {name} | {r['accuracy']:.2f} | {1e3 * r['time']:.1f} |")
    sc = result["scaling"]
    lines += [
        "",
        "### Sparse scaling",
        "",
        f"`make_sparse_clusters`, {sc['n_features']} features, {NNZ_PER_ROW} "
        "non-zeros per row, `ODMC(n_init=1)`.",
        "",
        "| n | nnz | fit time (s) | steps | labellings | step time (ms) "
        "| ns per nnz per step | error (%) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in sc["rows"]:
        lines.append(
            f"| {r['n_samples']} | {r['nnz']} | {r['time']:.3f} | {r['n_iter']} | "
            f"{r['n_labellings']} | {1e3 * r['step_time']:.1f} | "
            f"{1e9 * r['step_time_per_nnz']:.2f} | {r['error']:.2f} |"
        )
    lines += [
        "",
        f"Log-log slope of fit time against n: {sc['slope']:.2f} "
        "(contract: at most 1.15); of the time of one mirror-descent step "
        f"(one labelling) against nnz: {sc['step_slope']:.2f}.",
        "",
    ]
    return "\n".join(lines)
