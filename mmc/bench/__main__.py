"""Command line of the benchmarks: ``python -m mmc.bench [suite] [options]``."""

import argparse
import os
import sys
import tempfile
import time

from mmc.bench import _cpm3c as cpm3c
from mmc.bench import _multivariate as multivariate
from mmc.bench._digits import digit_pairs
from mmc.bench._report import (
    environment,
    plot_scaling,
    write_json,
    write_markdown,
)
from mmc.bench._scaling import sparse_scaling

SUITES = ("all", "accuracy", "scaling")


def _parser():
    parser = argparse.ArgumentParser(
        prog="python -m mmc.bench",
        description=(
            "Benchmark the mmc estimators against scikit-learn's KMeans: "
            "clustering error and fit time on the digit pairs of load_digits "
            "(accuracy), and fit time against the number of samples on sparse "
            "synthetic data (scaling)."
        ),
    )
    parser.add_argument(
        "suite", nargs="?", default="all", choices=SUITES,
        help="what to run (default: all)",
    )  # fmt: skip
    parser.add_argument(
        "--quick", action="store_true",
        help="small data and one repeat: a run of under a minute",
    )  # fmt: skip
    parser.add_argument(
        "--out", default="mmc-bench",
        help="output directory (default: ./mmc-bench)",
    )  # fmt: skip
    parser.add_argument(
        "--repeat", type=int, default=None,
        help="fits per timing, median kept (default: 3, or 1 with --quick)",
    )  # fmt: skip
    parser.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
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


def main(argv=None):
    parser = _parser()
    args = parser.parse_args(argv)
    repeat = args.repeat if args.repeat is not None else (1 if args.quick else 3)
    if repeat < 1:
        parser.error("--repeat must be at least 1")
    _check_writable(args.out)

    start = time.perf_counter()
    results = {"environment": environment(), "quick": args.quick, "seed": args.seed}
    if args.suite in ("all", "accuracy"):
        results["digits"] = digit_pairs(
            repeat=repeat, random_state=args.seed, progress=_progress("digit pairs")
        )
        results["multivariate_digits"] = multivariate.digit_pairs(
            repeat=repeat,
            random_state=args.seed,
            progress=_progress("digit pairs, MultivariateMMC"),
        )
        results["cpm3c_digits"] = cpm3c.digit_subsets(
            quick=args.quick, repeat=repeat, random_state=args.seed
        )
    if args.suite in ("all", "scaling"):
        results["scaling"] = sparse_scaling(
            quick=args.quick, repeat=repeat, random_state=args.seed,
            progress=_progress("scaling"),
        )  # fmt: skip
        results["multivariate_scan"] = multivariate.scan_speed(
            n_samples=5000 if args.quick else 20000,
            repeat=repeat,
            random_state=args.seed,
        )
        results["cpm3c_scaling"] = cpm3c.cluster_scaling(
            quick=args.quick, repeat=repeat, random_state=args.seed
        )
    results["seconds"] = time.perf_counter() - start

    # Write everything next to the destination first and move it in place at
    # the end, so that a failure leaves no half-written report behind.
    figures = {"scaling": "scaling.png"}
    with tempfile.TemporaryDirectory(dir=args.out) as staging:
        written = ["results.json", "report.md"]
        write_json(results, os.path.join(staging, "results.json"))
        if "scaling" in results:
            plot_scaling(results["scaling"], os.path.join(staging, "scaling.png"))
            written.append("scaling.png")
        write_markdown(results, os.path.join(staging, "report.md"), figures)
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
