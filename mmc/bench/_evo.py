"""EvoMMC and FastEvoMMC: digit pairs, fitness evaluations per second, scaling.

The numbers of the EvoMMC issue's contract, measured with default
parameters and ``random_state=0``:

* the error on the 45 digit pairs of ``load_digits / 16`` for EvoMMC and
  for FastEvoMMC with ``n_components=0.1`` (a tenth of the samples as
  landmarks), with fit times;
* fitness evaluations per second of the Cython evolution loop with single
  flips (one parent, one child per generation), for FastEvoMMC's rank
  r = 100 and for EvoMMC's full rank on a digit-pair-sized problem;
* the fit time and peak memory of FastEvoMMC against n on synthetic data
  with 784 features and r = n / 100 landmarks (up to n = 70000, r = 700).

``markdown`` renders the result (``bench/studies/evommc.md`` holds a full run).
"""

import time
import warnings

import numpy as np
from sklearn.datasets import make_blobs

from mmc import EvoMMC, FastEvoMMC
from mmc._core._evo import evolve
from mmc.bench._data import ALL_PAIRS, fits_on_digit_pairs
from mmc.bench._timing import loglog_slope, peak_fit_memory, time_fit
from mmc.metrics import clustering_error

HARD_PAIRS = ("3v8", "1v7", "2v7", "8v9")
QUICK_PAIRS = ((3, 8), (1, 7), (4, 9))
FULL_SIZES = (10_000, 30_000, 70_000)
QUICK_SIZES = (2_000, 5_000)
N_FEATURES = 784


def digit_pairs(pairs=None, repeat=1, random_state=0, progress=None):
    """Error (%) and fit time of EvoMMC and FastEvoMMC(n_components=0.1)."""
    makers = {
        "evo": lambda: EvoMMC(random_state=random_state),
        "fast": lambda: FastEvoMMC(n_components=0.1, random_state=random_state),
        # The paper's landmarks, for comparison (errors only).
        "fast_random": lambda: FastEvoMMC(
            n_components=0.1, landmarks="random", random_state=random_state
        ),
    }
    rows = {}
    pairs = ALL_PAIRS if pairs is None else pairs
    for pair, y_pair, fits in fits_on_digit_pairs(makers, pairs, repeat, progress):
        (evo_time, evo), (fast_time, fast) = fits["evo"], fits["fast"]
        fast_random = fits["fast_random"][1]
        rows[pair] = {
            "evo_error": 100 * clustering_error(y_pair, evo.labels_),
            "fast_error": 100 * clustering_error(y_pair, fast.labels_),
            "fast_random_error": 100 * clustering_error(y_pair, fast_random.labels_),
            "evo_time": evo_time,
            "fast_time": fast_time,
            "evo_fitness": float(evo.fitness_),
            "evo_generations": int(evo.n_generations_),
            "fast_generations": int(fast.n_generations_),
        }
    evo = np.array([r["evo_error"] for r in rows.values()])
    fast = np.array([r["fast_error"] for r in rows.values()])
    fast_random = np.array([r["fast_random_error"] for r in rows.values()])
    summary = {
        "n_pairs": len(rows),
        "evo_mean_error": float(evo.mean()),
        "fast_mean_error": float(fast.mean()),
        "fast_random_mean_error": float(fast_random.mean()),
        "max_fast_minus_evo": float((fast - evo).max()),
        "n_fast_worse_by_a_point": int((fast > evo + 1.0).sum()),
        "evo_max_time": float(max(r["evo_time"] for r in rows.values())),
        "evo_median_time": float(np.median([r["evo_time"] for r in rows.values()])),
    }
    return {"pairs": rows, "summary": summary}


def _random_basis(n_samples, n_components, rng):
    V, _ = np.linalg.qr(rng.standard_normal((n_samples, n_components)))
    weights = np.sort(rng.uniform(0.0, 1.0, n_components))[::-1].copy()
    return np.ascontiguousarray(V), weights


def evaluations_per_second(n_samples, n_components, generations=1_000_000, seed=0):
    """Fitness evaluations per second of the evolution with single flips.

    One parent and one child per generation, mutation size 1 (the schedule
    ``first_size=1``), on a random orthonormal basis: each generation draws
    one flip, computes the child's coordinates and fitness in O(r) and keeps
    the better of the two.
    """
    rng = np.random.default_rng(seed)
    V, weights = _random_basis(n_samples, n_components, rng)
    Y = np.where(rng.random((1, n_samples)) < 0.5, 1, -1).astype(np.int8)
    U = Y @ V
    F = 1.0 - (U * U) @ weights / n_samples
    start = time.perf_counter()
    done = evolve(
        V,
        weights,
        Y,
        U,
        F,
        n_offspring=1,
        bound=n_samples,
        first_size=1,
        max_generations=generations,
        patience=generations,
        tol=0.0,
        seed=1,
    )
    seconds = time.perf_counter() - start
    return {
        "n_samples": n_samples,
        "n_components": n_components,
        "generations": int(done),
        "seconds": seconds,
        "evaluations_per_second": done / seconds,
    }


def _blobs(n_samples, random_state):
    """Two overlapping Gaussian clusters in N_FEATURES dimensions."""
    return make_blobs(
        n_samples=n_samples,
        n_features=N_FEATURES,
        centers=2,
        cluster_std=8.0,
        random_state=random_state,
    )


def scaling(quick=False, random_state=0, progress=None):
    """Fit time and peak memory of FastEvoMMC with r = n / 100 against n."""
    sizes = QUICK_SIZES if quick else FULL_SIZES
    rows = []
    for n_samples in progress(sizes) if progress is not None else sizes:
        X, y = _blobs(n_samples, random_state)
        r = n_samples // 100

        def make():
            return FastEvoMMC(n_components=r, random_state=random_state)

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            seconds, est = time_fit(make, X, 1)
            peak = peak_fit_memory(make, X) if n_samples <= 30_000 or not quick else 0
        rows.append(
            {
                "n_samples": n_samples,
                "n_components": r,
                "time": seconds,
                "peak_memory_mb": peak / 2**20,
                "peak_over_n_r_doubles": peak / (8 * n_samples * r),
                "data_mb": X.nbytes / 2**20,
                "generations": int(est.n_generations_),
                "error": 100 * clustering_error(y, est.labels_),
            }
        )
    return {
        "n_features": N_FEATURES,
        "rows": rows,
        "slope": loglog_slope(
            [r["n_samples"] for r in rows], [r["time"] for r in rows]
        ),
    }


def rank_scaling(quick=False, random_state=0):
    """Fit time of FastEvoMMC against the rank r of its map, at fixed n."""
    n_samples = 2_000 if quick else 20_000
    ranks = (20, 40) if quick else (50, 100, 200, 400, 800)
    X, y = _blobs(n_samples, random_state)
    rows = []
    for r in ranks:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            seconds, est = time_fit(
                lambda: FastEvoMMC(n_components=r, random_state=random_state), X, 1
            )
        rows.append(
            {
                "n_components": r,
                "time": seconds,
                "error": 100 * clustering_error(y, est.labels_),
            }
        )
    return {
        "n_samples": n_samples,
        "rows": rows,
        "slope": loglog_slope(ranks, [row["time"] for row in rows]),
    }


def run(quick=False, repeat=1, random_state=0, progress=None):
    """Every EvoMMC measurement; ``quick`` keeps it to a few seconds."""
    generations = 100_000 if quick else 2_000_000
    return {
        "digits": digit_pairs(
            QUICK_PAIRS if quick else None,
            repeat=repeat,
            random_state=random_state,
            progress=progress,
        ),
        "speed": {
            "FastEvoMMC r=100": evaluations_per_second(
                10_000, 100, generations, random_state
            ),
            "EvoMMC n=360 full rank": evaluations_per_second(
                360, 360, generations, random_state
            ),
        },
        "scaling": scaling(quick=quick, random_state=random_state),
        "ranks": rank_scaling(quick=quick, random_state=random_state),
        "quick": quick,
        "repeat": repeat,
    }


def summary_lines(result):
    """A few lines for the terminal."""
    d = result["digits"]["summary"]
    lines = [
        f"EvoMMC on {d['n_pairs']} digit pairs: mean error {d['evo_mean_error']:.2f}% "
        f"(FastEvoMMC, r = 0.1 n: {d['fast_mean_error']:.2f}%), EvoMMC fit time "
        f"max {d['evo_max_time']:.2f} s",
    ]
    for name, s in result["speed"].items():
        lines.append(f"{name}: {s['evaluations_per_second']:.3g} fitness evaluations/s")
    last = result["scaling"]["rows"][-1]
    lines.append(
        f"FastEvoMMC n={last['n_samples']}, d={N_FEATURES}, r={last['n_components']}: "
        f"{last['time']:.1f} s"
    )
    return lines


def markdown(result):
    """The result as a markdown section."""
    d = result["digits"]
    s = d["summary"]
    lines = [
        "## EvoMMC and FastEvoMMC",
        "",
        "Default parameters, `random_state=0`; FastEvoMMC with "
        "`n_components=0.1` on the digit pairs (k-means landmarks, the default; "
        "the last error column draws them at random, as the paper does).",
        "",
        f"### Digit pairs (load_digits / 16, {s['n_pairs']} pairs)",
        "",
        "| pair | EvoMMC error | FastEvoMMC error | EvoMMC time (s) "
        "| FastEvoMMC time (s) | EvoMMC fitness | generations "
        "| FastEvoMMC random landmarks error |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for pair, r in d["pairs"].items():
        lines.append(
            f"| {pair} | {r['evo_error']:.2f} | {r['fast_error']:.2f} | "
            f"{r['evo_time']:.2f} | {r['fast_time']:.2f} | {r['evo_fitness']:.4f} | "
            f"{r['evo_generations']} | {r['fast_random_error']:.2f} |"
        )
    lines += [
        "",
        f"* Mean error: EvoMMC {s['evo_mean_error']:.2f}%, FastEvoMMC "
        f"{s['fast_mean_error']:.2f}% (random landmarks: "
        f"{s['fast_random_mean_error']:.2f}%) (contract: EvoMMC at most 1.0, "
        "FastEvoMMC within 1 point of EvoMMC on 3v8, 1v7, 2v7, 8v9 and on the "
        "mean).",
        f"* Largest FastEvoMMC - EvoMMC difference: {s['max_fast_minus_evo']:.2f} "
        f"points; FastEvoMMC more than a point worse on "
        f"{s['n_fast_worse_by_a_point']} of the {s['n_pairs']} pairs.",
        f"* EvoMMC fit time: median {s['evo_median_time']:.2f} s, max "
        f"{s['evo_max_time']:.2f} s (contract: under 1 s).",
        "",
        "### Fitness evaluations per second (single flips, one child per generation)",
        "",
        "| problem | n | rank | generations | evaluations/s |",
        "|---|---|---|---|---|",
    ]
    for name, r in result["speed"].items():
        lines.append(
            f"| {name} | {r['n_samples']} | {r['n_components']} | "
            f"{r['generations']} | {r['evaluations_per_second']:.3g} |"
        )
    sc = result["scaling"]
    lines += [
        "",
        "### FastEvoMMC scaling",
        "",
        f"`make_blobs`, two centres, {sc['n_features']} features, "
        "`cluster_std=8`, `n_components = n / 100`, other parameters default.",
        "",
        "| n | r | fit time (s) | peak memory (MB) | peak / (8 n r bytes) "
        "| data (MB) | generations | error (%) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in sc["rows"]:
        lines.append(
            f"| {r['n_samples']} | {r['n_components']} | {r['time']:.2f} | "
            f"{r['peak_memory_mb']:.0f} | {r['peak_over_n_r_doubles']:.1f} | "
            f"{r['data_mb']:.0f} | {r['generations']} | {r['error']:.2f} |"
        )
    lines += ["", f"Log-log slope of the fit time against n: {sc['slope']:.2f}.", ""]
    if "ranks" in result:
        ranks = result["ranks"]
        lines += [
            "### FastEvoMMC against the rank",
            "",
            f"The same data with n = {ranks['n_samples']}; `n_components` = r.",
            "",
            "| r | fit time (s) | error (%) |",
            "|---|---|---|",
        ]
        for r in ranks["rows"]:
            lines.append(
                f"| {r['n_components']} | {r['time']:.2f} | {r['error']:.2f} |"
            )
        slope = ranks["slope"]
        lines += ["", f"Log-log slope of the fit time against r: {slope:.2f}.", ""]
    return "\n".join(lines)
