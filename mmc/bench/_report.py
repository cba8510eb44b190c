"""Write the benchmark results: JSON, markdown tables and figures."""

import json
import os
import platform
import sys

import numpy as np


def environment():
    """Versions and hardware the measurements were taken on."""
    from importlib.metadata import version

    import quadprog  # noqa: F401  (its version is in the package metadata)
    import scipy
    import sklearn

    import mmc

    return {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "cpu": _cpu_model(),
        "cpu_count": os.cpu_count(),
        "blas": _blas(),
        "mmc": mmc.__version__,
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "scikit-learn": sklearn.__version__,
        "quadprog": version("quadprog"),
    }


def _cpu_model():
    """The processor's name: results of the search may depend on its BLAS
    kernels, and times on it."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _blas():
    """The BLAS library, its version and the kernel it chose for this CPU."""
    from threadpoolctl import threadpool_info

    blas = [i for i in threadpool_info() if i.get("user_api") == "blas"]
    return (
        "; ".join(
            f"{i.get('internal_api')} {i.get('version')} ({i.get('architecture')})"
            for i in blas
        )
        or "unknown"
    )


def write_json(results, path):
    with open(path, "w") as f:
        json.dump(results, f, indent=1, sort_keys=True)


def _digits_markdown(digits):
    summary = digits["summary"]
    lines = [
        "## Digit pairs (load_digits / 16, default parameters, random_state=0)",
        "",
        "Clustering error (%) after the best matching of clusters to digits, and",
        f"fit time (median of {digits['repeat']}) against KMeans(n_clusters=2,",
        "n_init=10) on the same data in the same run.",
        "",
        "| pair | n | CPMMC error | KMeans error | CPMMC time (ms) "
        "| KMeans time (ms) | time ratio |",
        "|---|---|---|---|---|---|---|",
    ]
    for pair, row in digits["pairs"].items():
        lines.append(
            f"| {pair} | {row['n_samples']} | {row['cpmmc_error']:.2f} "
            f"| {row['kmeans_error']:.2f} | {1e3 * row['cpmmc_time']:.1f} "
            f"| {1e3 * row['kmeans_time']:.1f} "
            f"| {row['cpmmc_time'] / row['kmeans_time']:.2f} |"
        )
    hard = ", ".join(f"{p} {e:.2f}" for p, e in summary["hard_pairs"].items())
    worse = summary["pairs_worse_than_kmeans_by_2_points"]
    lines += [
        "",
        f"* Mean error over {len(digits['pairs'])} pairs: CPMMC "
        f"{summary['cpmmc_mean_error']:.2f}, "
        f"KMeans {summary['kmeans_mean_error']:.2f}.",
        f"* The paper's hard pairs: {hard}.",
        "* Pairs where CPMMC is more than 2 points worse than KMeans: "
        + (
            ", ".join(f"{p} ({c:.1f} vs {k:.1f})" for p, (c, k) in worse.items())
            or "none"
        )
        + ".",
        f"* Time ratio CPMMC / KMeans: median {summary['time_ratio_median']:.2f}, "
        f"max {summary['time_ratio_max']:.2f}; CPMMC slower on "
        f"{summary['pairs_slower_than_kmeans']} of {len(digits['pairs'])} pairs.",
        "",
        "For reference only, the numbers the CPMMC paper published (its CPMMC",
        "parameters were tuned with the labels, which mmc never does):",
        "",
        "| | 3v8 | 1v7 | 2v7 | 8v9 | mean of 45 |",
        "|---|---|---|---|---|---|",
    ]
    for name, key in (
        ("CPMMC (tuned)", "paper_cpmmc_tuned_on_labels"),
        ("k-means", "paper_kmeans"),
    ):
        values = summary[key]
        lines.append(
            f"| {name} | {values['3v8']} | {values['1v7']} | {values['2v7']} "
            f"| {values['8v9']} | {values['mean']} |"
        )
    return lines


def _scaling_markdown(scaling, figure):
    lines = [
        "## Scaling on sparse data",
        "",
        "Two clusters from `mmc.datasets.make_sparse_clusters` with "
        f"{scaling['rows'][0]['n_features']} features and 50 non-zeros per row;",
        "CPMMC with `n_init=1`, KMeans with `n_init=1`; peak memory of the CPMMC",
        "fit (tracemalloc) relative to the size of the CSR data.",
        "",
        "| n | nnz | CPMMC time (s) | KMeans time (s) | CPMMC error | KMeans error "
        "| CPMMC peak memory / data |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in scaling["rows"]:
        lines.append(
            f"| {row['n_samples']} | {row['nnz']} | {row['cpmmc_time']:.3f} "
            f"| {row['kmeans_time']:.3f} | {row['cpmmc_error']:.2f} "
            f"| {row['kmeans_error']:.2f} "
            f"| {row['cpmmc_peak_memory_over_data']:.2f} |"
        )
    lines += [
        "",
        f"Log-log slope of fit time against n: CPMMC {scaling['cpmmc_slope']:.2f}, "
        f"KMeans {scaling['kmeans_slope']:.2f}.",
        "",
        f"![fit time against n]({figure})",
    ]
    return lines


def _multivariate_digits_markdown(result):
    mean = result["summary"]["mean"]
    summary = result["summary"]
    lines = [
        "## MultivariateMMC on the digit pairs (default parameters)",
        "",
        "NMI and Rand index against the digits, for CPMMC and MultivariateMMC",
        "with the NMI and the Rand losses, and fit time relative to CPMMC in",
        f"the same run (median of {result['repeat']}).",
        "",
        "| pair | CPMMC NMI | Multi(nmi) NMI | Multi(rand) Rand "
        "| Multi(nmi) time / CPMMC |",
        "|---|---|---|---|---|",
    ]
    for pair in ("3v8", "1v7", "2v7", "8v9"):
        row = result["pairs"].get(pair)
        if row is None:
            continue
        lines.append(
            f"| {pair} | {row['cpmmc_nmi']:.3f} | {row['nmi_nmi']:.3f} "
            f"| {row['rand_rand']:.3f} | {row['nmi_time'] / row['cpmmc_time']:.2f} |"
        )
    lines += [
        "",
        f"* Mean NMI over {len(result['pairs'])} pairs: CPMMC "
        f"{mean['cpmmc_nmi']:.4f}, MultivariateMMC(nmi) {mean['nmi_nmi']:.4f}, "
        f"MultivariateMMC(rand) {mean['rand_nmi']:.4f}.",
        "* Fit time MultivariateMMC(nmi) / CPMMC: median "
        f"{summary['time_ratio_nmi_over_cpmmc_median']:.2f}, max "
        f"{summary['time_ratio_nmi_over_cpmmc_max']:.2f}.",
        "* For reference, the paper's MMC_multi (tuned with the labels): NMI "
        + ", ".join(f"{p} {v}" for p, v in summary["paper_nmi_tuned_on_labels"].items())
        + "; Rand "
        + ", ".join(
            f"{p} {v}" for p, v in summary["paper_rand_tuned_on_labels"].items()
        )
        + ".",
    ]
    return lines


def _scan_markdown(scan):
    lines = [
        "## Exact scan over contingency tables (MultivariateMMC)",
        "",
        f"n = {scan['n_samples']} samples, {scan['n_tables']:.3g} tables, "
        f"{scan['n_threads']} threads.",
        "",
        "| loss | seconds | tables / second |",
        "|---|---|---|",
    ]
    for loss, row in scan["losses"].items():
        lines.append(
            f"| {loss} | {row['seconds']:.3f} | {row['tables_per_second']:.3g} |"
        )
    return lines


def write_markdown(results, path, figures):
    lines = ["# mmc benchmark report", ""]
    env = results["environment"]
    lines.append(
        "Measured with "
        + ", ".join(f"{k} {v}" for k, v in env.items())
        + (" (quick run)." if results["quick"] else ".")
    )
    if "command" in results:
        lines.append(f"Command: `{results['command']}` at commit {results['commit']}.")
    lines.append("")
    if "digits" in results:
        lines += _digits_markdown(results["digits"]) + [""]
    if "multivariate_digits" in results:
        lines += _multivariate_digits_markdown(results["multivariate_digits"]) + [""]
    if "scaling" in results:
        lines += _scaling_markdown(results["scaling"], figures["scaling"]) + [""]
    if "multivariate_scan" in results:
        lines += _scan_markdown(results["multivariate_scan"]) + [""]
    if "comparison" in results:
        lines += _comparison_markdown(results["comparison"]) + [""]
    if "estimator_scaling" in results:
        lines += _estimator_scaling_markdown(results["estimator_scaling"], figures)
        lines += [""]
    if "cpm3c_digits" in results or "cpm3c_scaling" in results:
        lines += _cpm3c_markdown(results) + [""]
    with open(path, "w") as f:
        f.write("\n".join(lines))


def plot_scaling(scaling, path):
    """Log-log plot of fit time against n with an O(n) reference line."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = np.array([r["n_samples"] for r in scaling["rows"]], dtype=float)
    fig, ax = plt.subplots(figsize=(6, 4.5))
    for key, label in (("cpmmc", "CPMMC (n_init=1)"), ("kmeans", "KMeans (n_init=1)")):
        times = np.array([r[f"{key}_time"] for r in scaling["rows"]])
        ax.loglog(
            sizes, times, "o-", label=f"{label}, slope {scaling[key + '_slope']:.2f}"
        )
    first = scaling["rows"][0]["cpmmc_time"]
    ax.loglog(sizes, first * sizes / sizes[0], "k--", linewidth=1, label="O(n)")
    ax.set_xlabel("number of samples n")
    ax.set_ylabel("fit time (s)")
    ax.set_title(
        f"Sparse data, {scaling['rows'][0]['n_features']} features, "
        "50 non-zeros per row"
    )
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _comparison_markdown(comparison):
    lines = [
        "## Every estimator against the baselines (default parameters)",
        "",
        "Clustering error (%) after the best matching of clusters to classes,",
        "NMI, Rand index and fit time (median of "
        f"{comparison['repeat']}), with its ratio to KMeans(n_init=10) on the",
        "same data in the same run. Digits are `load_digits / 16`; breast_cancer,",
        "wine and iris are standardised. Two-cluster estimators run on two-class",
        "tasks only. On two moons and circles the estimators that take `kernel=`",
        'use `kernel="rbf"`. SpectralClustering uses',
        '`affinity="nearest_neighbors"`.',
    ]
    for task, row in comparison["tasks"].items():
        lines += [
            "",
            f"### {task}",
            "",
            "| estimator | error (%) | NMI | Rand | time (ms) | time / KMeans |",
            "|---|---|---|---|---|---|",
        ]
        for name, s in row.items():
            kernel = f" ({s['kernel']})" if s["kernel"] not in (None, "linear") else ""
            lines.append(
                f"| {name}{kernel} | {s['error']:.2f} | {s['nmi']:.3f} "
                f"| {s['rand']:.3f} | {1e3 * s['time']:.1f} "
                f"| {s['time_over_kmeans']:.2f} |"
            )
    lines += [
        "",
        f"### Digit pairs ({comparison['n_digit_pairs']} pairs)",
        "",
        "| estimator | mean error (%) | worst error (%) | worst pair | mean NMI "
        "| median time / KMeans |",
        "|---|---|---|---|---|---|",
    ]
    for name, s in comparison["digit_pairs"].items():
        lines.append(
            f"| {name} | {s['mean_error']:.2f} | {s['worst_error']:.2f} "
            f"| {s['worst_pair']} | {s['mean_nmi']:.3f} "
            f"| {s['median_time_over_kmeans']:.2f} |"
        )
    return lines


def _estimator_scaling_markdown(scaling, figures):
    lines = [
        "## Fit time against n, every estimator",
        "",
        "Two clusters; dense: `make_blobs` with 50 features; sparse:",
        "`make_sparse_clusters` as above. Sizes grow while the fit time,",
        "extrapolated linearly to the next size, stays within",
        f"{scaling['time_budget']:g} s, and until the estimator refuses a size.",
    ]
    for kind in ("dense", "sparse"):
        lines += [
            "",
            f"### {kind.capitalize()} data",
            "",
            "| estimator | largest n | time at largest n (s) | log-log slope "
            "| error at largest n (%) | stopped |",
            "|---|---|---|---|---|---|",
        ]
        for name, r in scaling[kind].items():
            if not r["sizes"]:
                lines.append(f"| {name} | - | - | - | - | {r['stopped']} |")
                continue
            slope = "-" if r["slope"] is None else f"{r['slope']:.2f}"
            lines.append(
                f"| {name} | {r['sizes'][-1]} | {r['times'][-1]:.3f} | {slope} "
                f"| {r['errors'][-1]:.2f} | {r['stopped']} |"
            )
        lines += ["", f"![{kind} scaling]({figures[kind]})"]
    return lines


def plot_estimator_scaling(records, title, path):
    """Log-log fit time against n, one line per estimator, slope in the legend."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 5))
    smallest = None
    for name, r in records.items():
        if not r["sizes"]:
            continue
        slope = "" if r["slope"] is None else f", slope {r['slope']:.2f}"
        ax.loglog(r["sizes"], r["times"], "o-", label=f"{name}{slope}")
        if smallest is None or r["sizes"][0] < smallest[0]:
            smallest = (r["sizes"][0], r["times"][0])
    if smallest is not None:
        sizes = np.array(
            [smallest[0], max(max(r["sizes"] or [1]) for r in records.values())]
        )
        ax.loglog(
            sizes, smallest[1] * sizes / sizes[0], "k--", linewidth=1, label="O(n)"
        )
    ax.set_xlabel("number of samples n")
    ax.set_ylabel("fit time (s)")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _cpm3c_markdown(results):
    lines = ["## CPM3C in detail", ""]
    if "cpm3c_digits" in results:
        digits = results["cpm3c_digits"]
        lines += [
            "Digit subsets of `load_digits / 16` (default parameters): accuracy (%)",
            "after the best matching, against KMeans(n_init=10) and the paper's",
            f"number; fit time (median of {digits['repeat']}) over KMeans'.",
            "",
            "| digits | n | k | CPM3C | KMeans | target | CPM3C time (s) "
            "| time / KMeans |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for name, row in digits["subsets"].items():
            lines.append(
                f"| {name} | {row['n_samples']} | {row['n_clusters']} "
                f"| {row['cpm3c_accuracy']:.1f} | {row['kmeans_accuracy']:.1f} "
                f"| {row['target']:.1f} | {row['cpm3c_time']:.2f} "
                f"| {row['time_ratio']:.1f} |"
            )
        lines.append("")
    if "cpm3c_scaling" in results:
        scaling = results["cpm3c_scaling"]
        lines += [
            "Fit time on sparse synthetic data against the number of clusters k",
            "and the number of samples n (`n_init=1`):",
            "",
            "| n | k | cutting-plane iterations | time (s) |",
            "|---|---|---|---|",
        ]
        for row in scaling["clusters"] + scaling["sizes"]:
            lines.append(
                f"| {row['n_samples']} | {row['n_clusters']} | {row['n_iter']} "
                f"| {row['time']:.2f} |"
            )
        lines += [
            "",
            f"Log-log slope of time against k: {scaling['clusters_slope']:.2f}; "
            f"against n: {scaling['sizes_slope']:.2f}.",
        ]
    return lines
