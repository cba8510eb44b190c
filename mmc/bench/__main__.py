"""Command line of the benchmarks: ``python -m mmc.bench [suite] [options]``."""

import argparse
import os
import sys
import tempfile
import time

from mmc.bench import _cpm3c as cpm3c
from mmc.bench import _dask as dask_bench
from mmc.bench import _evo as evo
from mmc.bench import _kernels as kernels
from mmc.bench import _multiclass as multiclass
from mmc.bench import _multivariate as multivariate
from mmc.bench import _odmc as odmc
from mmc.bench import _papers as papers
from mmc.bench import _papers_report as papers_report
from mmc.bench import _registry as registry
from mmc.bench import _robustness as robustness
from mmc.bench._comparison import compare
from mmc.bench._digits import digit_pairs
from mmc.bench._report import (
    environment,
    plot_estimator_scaling,
    plot_scaling,
    write_json,
    write_markdown,
)
from mmc.bench._scaling import estimator_scaling, sparse_scaling

# "robustness", "multiclass", "papers" and "dask" are not part of "all": run
# them on their own.
SUITES = (
    "all",
    "accuracy",
    "scaling",
    "kernels",
    "odmc",
    "evo",
    "robustness",
    "multiclass",
    "papers",
    "dask",
)


def _parser():
    parser = argparse.ArgumentParser(
        prog="python -m mmc.bench",
        description=(
            "Benchmark the mmc estimators against the baselines KMeans and "
            "SpectralClustering: clustering error, NMI, Rand index and fit time "
            "on the digits, breast_cancer, wine, iris, two moons and circles "
            "(accuracy), fit time against the number of samples on dense and "
            "sparse synthetic data (scaling) and with the rbf kernel map "
            "(kernels). The suite robustness (not part of all) runs every "
            "default on a broad set of cases: unbalanced, uncentred, "
            "rescaled, text-like and non-linear data, and tf-idf documents of a "
            "topic model. The suite multiclass (not "
            "part of all) runs every estimator that takes n_clusters on the "
            "multiclass cases of that suite, and times it against n and k. "
            "The suite papers (not "
            "part of all) rebuilds the rows of the papers' tables on the "
            "digits: the published value, mmc tuned with the labels by the "
            "paper's grid search (as the papers did), mmc with its defaults "
            "and KMeans; it writes papers.json and sensitivity figures. The "
            "suite dask (not part of all; needs mmc[dask]) times CPMMC, CPM3C and "
            "MultivariateMMC on Dask arrays on a LocalCluster, in memory and out "
            "of core from zarr."
        ),
    )
    parser.add_argument(
        "suite",
        nargs="?",
        default="all",
        choices=SUITES,
        help="what to run (default: all)",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="fewer data sets, small sizes and one repeat: a run of under a minute",
    )
    parser.add_argument(
        "--out",
        default="mmc-bench",
        help="output directory (default: ./mmc-bench)",
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=None,
        help="fits per timing, median kept (default: 3, or 1 with --quick "
        "and for the robustness and multiclass suites)",
    )
    parser.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    parser.add_argument(
        "--data-dir",
        default=None,
        help="where the dask suite writes its zarr data, deleted afterwards "
        "(default: the system's temporary directory)",
    )
    parser.add_argument(
        "--max-rows",
        type=int,
        default=None,
        help="the dask suite's largest data set (default: all sizes, up to "
        "10,000,000 rows)",
    )
    parser.add_argument(
        "--estimators",
        default=None,
        help="comma-separated estimators to run (default: all of "
        + ", ".join(registry.estimators())
        + ")",
    )
    return parser


def _progress(description):
    """A tqdm progress bar on a terminal, nothing otherwise."""
    if not sys.stderr.isatty():
        return None
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return lambda iterable: tqdm(iterable, desc=description, leave=False)


def _check_writable(directory):
    """Create ``directory`` if needed and make sure files can be written there."""
    try:
        os.makedirs(directory, exist_ok=True)
        with tempfile.TemporaryFile(dir=directory):
            pass
    except OSError as exc:
        raise SystemExit(
            f"error: cannot write to output directory {directory!r}: {exc}"
        ) from None


def _print_summary(results):
    if "papers" in results:
        print("\n".join(papers_report.summary_lines(results["papers"])))
    if "robustness" in results:
        print("\n".join(robustness.summary_lines(results["robustness"])))
    if "multiclass" in results:
        print("\n".join(multiclass.summary_lines(results["multiclass"])))
    if "kernels" in results:
        print("\n".join(kernels.summary_lines(results["kernels"])))
    if "odmc" in results:
        print("\n".join(odmc.summary_lines(results["odmc"])))
    if "evo" in results:
        print("\n".join(evo.summary_lines(results["evo"])))
    if "comparison" in results:
        comparison = results["comparison"]
        print("Clustering error (%) with default parameters:")
        names = list(comparison["digit_pairs"])
        print("  " + f"{'':22s}" + "".join(f"{n[:12]:>13s}" for n in names))
        for task, row in comparison["tasks"].items():
            cells = "".join(
                f"{row[n]['error']:13.2f}" if n in row else f"{'-':>13s}" for n in names
            )
            print(f"  {task[:22]:22s}{cells}")
        pairs = comparison["digit_pairs"]
        label = f"mean of {comparison['n_digit_pairs']} pairs"
        print(
            f"  {label:22s}" + "".join(f"{pairs[n]['mean_error']:13.2f}" for n in names)
        )
    if "estimator_scaling" in results:
        for kind in ("dense", "sparse"):
            slopes = ", ".join(
                f"{name} {r['slope']:.2f} (to n={r['sizes'][-1]})"
                for name, r in results["estimator_scaling"][kind].items()
                if r["slope"] is not None
            )
            print(f"Log-log slope of fit time, {kind} data: {slopes}")
    if "digits" in results:
        s = results["digits"]["summary"]
        print("Digit pairs of load_digits / 16 (default parameters):")
        print(f"  {'':14s} {'CPMMC':>8s} {'KMeans':>8s}")
        for pair, error in s["hard_pairs"].items():
            kmeans = results["digits"]["pairs"][pair]["kmeans_error"]
            print(f"  error {pair:8s} {error:8.2f} {kmeans:8.2f}")
        print(
            f"  mean of {len(results['digits']['pairs'])} pairs "
            f"{s['cpmmc_mean_error']:5.2f} {s['kmeans_mean_error']:8.2f}"
        )
        print(
            "  fit time CPMMC / KMeans(n_init=10): "
            f"median {s['time_ratio_median']:.2f}, "
            f"max {s['time_ratio_max']:.2f}"
        )
    if "multivariate_digits" in results:
        m = results["multivariate_digits"]["summary"]["mean"]
        print(
            f"  mean NMI: CPMMC {m['cpmmc_nmi']:.4f}, MultivariateMMC(nmi) "
            f"{m['nmi_nmi']:.4f}, MultivariateMMC(rand) {m['rand_nmi']:.4f}"
        )
    if "multivariate_scan" in results:
        scan = results["multivariate_scan"]
        rates = ", ".join(
            f"{loss} {row['tables_per_second']:.2e}"
            for loss, row in scan["losses"].items()
        )
        print(f"Exact scan, n={scan['n_samples']} (tables/s): {rates}")
    if "cpm3c_digits" in results:
        print("CPM3C on digit subsets (accuracy %, fit time / KMeans(n_init=10)):")
        for name, row in results["cpm3c_digits"]["subsets"].items():
            print(
                f"  {name:5s} CPM3C {row['cpm3c_accuracy']:5.1f} KMeans "
                f"{row['kmeans_accuracy']:5.1f} target {row['target']:5.1f} "
                f"time ratio {row['time_ratio']:.1f}"
            )
    if "cpm3c_scaling" in results:
        cs = results["cpm3c_scaling"]
        times = ", ".join(
            f"k={r['n_clusters']} {r['time']:.2f}s" for r in cs["clusters"]
        )
        print(f"CPM3C time against k: {times} (slope {cs['clusters_slope']:.2f})")
        times = ", ".join(f"n={r['n_samples']} {r['time']:.2f}s" for r in cs["sizes"])
        print(f"CPM3C time against n (k=4): {times} (slope {cs['sizes_slope']:.2f})")
    if "scaling" in results:
        sc = results["scaling"]
        print("Sparse scaling (n_init=1):")
        print(f"  {'n':>9s} {'CPMMC s':>9s} {'KMeans s':>9s} {'mem/data':>9s}")
        for row in sc["rows"]:
            print(
                f"  {row['n_samples']:9d} {row['cpmmc_time']:9.3f} "
                f"{row['kmeans_time']:9.3f} {row['cpmmc_peak_memory_over_data']:9.2f}"
            )
        print(
            f"  log-log slope: CPMMC {sc['cpmmc_slope']:.2f}, "
            f"KMeans {sc['kmeans_slope']:.2f}"
        )


def _run_dask(args):
    """The dask suite: its own report, JSON and figure in ``--out``."""
    _check_writable(args.out)
    start = time.perf_counter()
    results = {"environment": environment(), "quick": args.quick, "seed": args.seed}
    results["dask"] = dask_bench.run(
        quick=args.quick,
        random_state=args.seed,
        data_dir=args.data_dir,
        progress=_progress("sizes"),
        estimators=None if args.estimators is None else args.estimators.split(","),
        max_rows=args.max_rows,
    )
    results["seconds"] = time.perf_counter() - start
    with tempfile.TemporaryDirectory(dir=args.out) as staging:
        write_json(results, os.path.join(staging, "results.json"))
        dask_bench.plot(results["dask"], os.path.join(staging, "dask_scaling.png"))
        with open(os.path.join(staging, "report.md"), "w") as report:
            report.write(dask_bench.markdown(results["dask"], "dask_scaling.png"))
        for name in ("results.json", "report.md", "dask_scaling.png"):
            os.replace(os.path.join(staging, name), os.path.join(args.out, name))
    print("\n".join(dask_bench.summary_lines(results["dask"])))
    print(f"Written to {args.out} in {results['seconds']:.0f} s")


def _write_papers(results, staging):
    """papers.json, the sensitivity figures and the report section."""
    result = results["papers"]
    figures = {}
    for name, records in result["data"].items():
        errors = {data: r["error"] for data, r in records.items() if "error" in r}
        path = f"sensitivity_{name}.png"
        if papers_report.plot_sensitivity(name, errors, os.path.join(staging, path)):
            figures[name] = path
    with open(os.path.join(staging, "report.md"), "a") as report:
        report.write("\n" + papers_report.markdown(result, figures))
    write_json(
        {key: results[key] for key in ("environment", "quick", "seed")}
        | {"command": results["command"], "commit": results["commit"]}
        | result,
        os.path.join(staging, "papers.json"),
    )
    return ["papers.json", *figures.values()]


def _commit():
    """The commit of the mmc source tree, if it is a git checkout."""
    import subprocess

    import mmc

    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=os.path.dirname(os.path.abspath(mmc.__file__)),
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return out.stdout.strip() if out.returncode == 0 else "unknown"


def main(argv=None):
    parser = _parser()
    args = parser.parse_args(argv)
    repeat = args.repeat if args.repeat is not None else (1 if args.quick else 3)
    if repeat < 1:
        parser.error("--repeat must be at least 1")
    if args.suite == "dask":
        return _run_dask(args)
    names = None if args.estimators is None else args.estimators.split(",")
    entries = registry.select(names)
    _check_writable(args.out)

    start = time.perf_counter()
    results = {
        "environment": environment(),
        "quick": args.quick,
        "seed": args.seed,
        "command": " ".join(
            ["python -m mmc.bench", *(sys.argv[1:] if argv is None else argv)]
        ),
        "commit": _commit(),
    }
    if args.suite in ("all", "accuracy"):
        results["comparison"] = compare(
            entries,
            quick=args.quick,
            repeat=repeat,
            random_state=args.seed,
            progress=_progress("estimators x data sets"),
        )
    # The detailed sections of CPMMC and MultivariateMMC (every digit pair,
    # sparse scaling with memory, the exact scan) are left out of --quick.
    detailed = not args.quick
    if args.suite in ("all", "accuracy") and detailed and "CPMMC" in entries:
        results["digits"] = digit_pairs(
            repeat=repeat, random_state=args.seed, progress=_progress("digit pairs")
        )
    if args.suite in ("all", "accuracy") and detailed and "MultivariateMMC" in entries:
        results["multivariate_digits"] = multivariate.digit_pairs(
            repeat=repeat,
            random_state=args.seed,
            progress=_progress("digit pairs, MultivariateMMC"),
        )
    if args.suite in ("all", "scaling"):
        results["estimator_scaling"] = estimator_scaling(
            entries,
            quick=args.quick,
            repeat=repeat,
            random_state=args.seed,
            progress=_progress("scaling, every estimator"),
        )
    if args.suite in ("all", "scaling") and detailed and "CPMMC" in entries:
        results["scaling"] = sparse_scaling(
            quick=args.quick,
            repeat=repeat,
            random_state=args.seed,
            progress=_progress("scaling"),
        )
    if args.suite in ("all", "scaling") and detailed and "MultivariateMMC" in entries:
        results["multivariate_scan"] = multivariate.scan_speed(
            n_samples=20000,
            repeat=repeat,
            random_state=args.seed,
        )
    # CPM3C in detail: the digit subsets, and fit time against k and n.
    if args.suite in ("all", "accuracy") and detailed and "CPM3C" in entries:
        results["cpm3c_digits"] = cpm3c.digit_subsets(
            quick=args.quick, repeat=repeat, random_state=args.seed
        )
    if args.suite in ("all", "scaling") and detailed and "CPM3C" in entries:
        results["cpm3c_scaling"] = cpm3c.cluster_scaling(
            quick=args.quick, repeat=repeat, random_state=args.seed
        )
    if args.suite in ("all", "kernels"):
        results["kernels"] = kernels.kernel_scaling(
            entries,
            quick=args.quick,
            repeat=repeat,
            random_state=args.seed,
            progress=_progress("rbf kernel at scale"),
        )
    if args.suite in ("all", "odmc") and "ODMC" in entries:
        results["odmc"] = odmc.run(
            quick=args.quick,
            repeat=repeat,
            random_state=args.seed,
            progress=_progress("ODMC digit pairs"),
        )
    if args.suite in ("all", "evo") and "EvoMMC" in entries:
        results["evo"] = evo.run(
            quick=args.quick,
            random_state=args.seed,
            progress=_progress("EvoMMC digit pairs"),
        )
    if args.suite == "robustness":
        results["robustness"] = robustness.run(
            entries,
            quick=args.quick,
            repeat=args.repeat if args.repeat is not None else 1,
            random_state=args.seed,
            progress=_progress("robustness cases"),
        )
    if args.suite == "multiclass":
        results["multiclass"] = multiclass.run(
            entries,
            quick=args.quick,
            repeat=args.repeat if args.repeat is not None else 1,
            random_state=args.seed,
            progress=_progress("multiclass cases and timings"),
        )
    if args.suite == "papers":
        results["papers"] = papers.run(
            quick=args.quick,
            random_state=args.seed,
            progress=_progress("papers' rows"),
            estimators=names,
        )
    results["seconds"] = time.perf_counter() - start

    # Write everything next to the destination first and move it in place at
    # the end, so that a failure leaves no half-written report behind.
    figures = {
        "scaling": "scaling.png",
        "dense": "scaling_dense.png",
        "sparse": "scaling_sparse.png",
    }
    with tempfile.TemporaryDirectory(dir=args.out) as staging:
        written = ["results.json", "report.md"]
        write_json(results, os.path.join(staging, "results.json"))
        if "scaling" in results:
            plot_scaling(results["scaling"], os.path.join(staging, "scaling.png"))
            written.append("scaling.png")
        if "estimator_scaling" in results:
            for kind in ("dense", "sparse"):
                plot_estimator_scaling(
                    results["estimator_scaling"][kind],
                    f"{kind.capitalize()} synthetic data, two clusters",
                    os.path.join(staging, figures[kind]),
                )
                written.append(figures[kind])
        write_markdown(results, os.path.join(staging, "report.md"), figures)
        if "kernels" in results:
            with open(os.path.join(staging, "report.md"), "a") as report:
                report.write("\n" + kernels.markdown(results["kernels"]))
        if "odmc" in results:
            with open(os.path.join(staging, "report.md"), "a") as report:
                report.write("\n" + odmc.markdown(results["odmc"]))
        if "evo" in results:
            with open(os.path.join(staging, "report.md"), "a") as report:
                report.write("\n" + evo.markdown(results["evo"]))
        if "robustness" in results:
            with open(os.path.join(staging, "report.md"), "a") as report:
                report.write("\n" + robustness.markdown(results["robustness"]))
            # The suite's own record, with what it was measured on.
            write_json(
                {key: results[key] for key in ("environment", "quick", "seed")}
                | results["robustness"],
                os.path.join(staging, "robustness.json"),
            )
            written.append("robustness.json")
        if "multiclass" in results:
            with open(os.path.join(staging, "report.md"), "a") as report:
                report.write("\n" + multiclass.markdown(results["multiclass"]))
            multiclass.plot(
                results["multiclass"], os.path.join(staging, "multiclass_scaling.png")
            )
            written.append("multiclass_scaling.png")
        if "papers" in results:
            written += _write_papers(results, staging)
        for name in written:
            os.replace(os.path.join(staging, name), os.path.join(args.out, name))

    _print_summary(results)
    print(
        f"Wrote {', '.join(written)} to {os.path.abspath(args.out)} "
        f"in {results['seconds']:.0f} s."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
