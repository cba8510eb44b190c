"""Do the fitted labels depend on the BLAS kernel or on the input format?

For each ``OPENBLAS_CORETYPE`` (SkylakeX, Haswell, Sandybridge), set in the
environment of a fresh subprocess before NumPy is loaded (and checked there
with ``threadpoolctl.threadpool_info()``, which reports the architecture
OpenBLAS actually selected), every estimator is fitted with its defaults and
``random_state=0`` on the 45 digit pairs of ``load_digits() / 16``
(CPM3C with ``n_clusters=2``). The same fits are repeated on input variants
(float32, CSR with sorted and with unsorted indices) and, optionally, with
one BLAS thread. Per fit we record the labels, the clustering error and the
objective.

    python bench/studies/cpu_coretypes.py run  -o out.json.gz   # ~6 min on 2 cores
    python bench/studies/cpu_coretypes.py report out.json.gz [baseline.json.gz]
    python bench/studies/cpu_coretypes.py run --estimators FastEvoMMC:n_components=0.1

``report`` prints, per estimator: the mean error per core type, the number
of pairs whose labels are identical across the three core types (exactly,
and up to swapping the two cluster names), and the input-variant agreement
with dense float64 on the default core type.
"""

import argparse
import gzip
import hashlib
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

CORETYPES = ("SkylakeX", "Haswell", "Sandybridge")
VARIANTS = ("dense", "csr", "csr_unsorted", "float32")
ESTIMATORS = ("CPMMC", "CPM3C", "MultivariateMMC", "EvoMMC", "FastEvoMMC", "ODMC")


def _pairs():
    return [(a, b) for a in range(10) for b in range(a + 1, 10)]


def _make_estimator(spec):
    """``"Name"`` or ``"Name:param=value:..."`` (values parsed as Python literals)."""
    import ast

    import mmc

    name, *settings = spec.split(":")
    params = {"random_state": 0}
    if name == "CPM3C":
        params["n_clusters"] = 2
    for setting in settings:
        key, value = setting.split("=")
        try:
            params[key] = ast.literal_eval(value)
        except ValueError:
            params[key] = value
    return getattr(mmc, name)(**params)


def unsorted_csr(X, seed=0):
    """A copy of CSR X with the (column, value) pairs permuted within rows."""
    import numpy as np

    X = X.copy()
    rng = np.random.RandomState(seed)
    for i in range(X.shape[0]):
        lo, hi = X.indptr[i], X.indptr[i + 1]
        perm = lo + rng.permutation(hi - lo)
        X.indices[lo:hi] = X.indices[perm]
        X.data[lo:hi] = X.data[perm]
    X.has_sorted_indices = False
    assert not X.has_sorted_indices
    return X


def make_input(X, variant):
    import numpy as np
    import scipy.sparse as sp

    if variant == "dense":
        return X
    if variant == "float32":
        return X.astype(np.float32)
    csr = sp.csr_matrix(X)
    csr.sort_indices()
    if variant == "csr":
        assert csr.has_sorted_indices
        return csr
    return unsorted_csr(csr)


def worker(args):
    """Fit everything in this process and print one JSON document."""
    import warnings

    import numpy as np
    import threadpoolctl
    from sklearn.datasets import load_digits

    import mmc
    from mmc.metrics import clustering_error

    info = threadpoolctl.threadpool_info()
    archs = sorted({i.get("architecture") for i in info if i["user_api"] == "blas"})
    X_all, y_all = load_digits(return_X_y=True)
    X_all = X_all / args.scale
    pairs = (
        _pairs()
        if not args.pairs
        else [tuple(int(c) for c in p.split("v")) for p in args.pairs.split(",")]
    )
    records = []
    for name in args.estimators.split(","):
        for a, b in pairs:
            mask = (y_all == a) | (y_all == b)
            X, y = X_all[mask], y_all[mask]
            if args.duplicates:  # a third of the samples twice
                X, y = np.vstack([X, X[::3]]), np.concatenate([y, y[::3]])
            X = make_input(X, args.variant)
            est = _make_estimator(name)
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                est.fit(X)
            elapsed = time.perf_counter() - t0
            labels = np.asarray(est.labels_, dtype=np.int8)
            records.append(
                {
                    "estimator": name,
                    "pair": f"{a}v{b}",
                    "labels": "".join(map(str, labels.tolist())),
                    "hash": hashlib.sha1(labels.tobytes()).hexdigest()[:12],
                    "error": 100.0 * clustering_error(y, labels),
                    "objective": float(est.objective_),
                    "time": elapsed,
                }
            )
    json.dump(
        {"architectures": archs, "mmc": mmc.__file__, "records": records}, sys.stdout
    )


def _open(path, mode="r"):
    """open(), or gzip.open() in text mode for a name ending in .gz."""
    if path.endswith(".gz"):
        return gzip.open(path, mode + "t")
    return open(path, mode)


def run_one(
    coretype, variant, threads, estimators, pairs, scale=16.0, duplicates=False
):
    env = dict(os.environ)
    env["OPENBLAS_CORETYPE"] = coretype
    if threads:
        env["OPENBLAS_NUM_THREADS"] = str(threads)
        env["OMP_NUM_THREADS"] = str(threads)
    cmd = [
        sys.executable,
        "-I",
        os.path.abspath(__file__),
        "worker",
        "--variant",
        variant,
        "--estimators",
        estimators,
        "--scale",
        str(scale),
    ]
    if duplicates:
        cmd.append("--duplicates")
    if pairs:
        cmd += ["--pairs", pairs]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        return {
            "coretype": coretype,
            "variant": variant,
            "threads": threads,
            "failed": proc.stderr[-2000:],
        }
    out = json.loads(proc.stdout)
    out.update(coretype=coretype, variant=variant, threads=threads)
    if out["architectures"] != [coretype]:
        out["refused"] = True  # OpenBLAS fell back to another kernel
    return out


def run(args):
    jobs = []
    for coretype in CORETYPES:
        jobs.append((coretype, "dense", None))
    for variant in args.variants.split(","):
        if variant and variant != "dense":
            jobs.append((CORETYPES[0], variant, None))
    if args.one_thread:
        jobs.append((CORETYPES[0], "dense", 1))
    t0 = time.time()
    with ThreadPoolExecutor(args.jobs) as pool:
        results = list(
            pool.map(
                lambda job: run_one(
                    *job, args.estimators, args.pairs, args.scale, args.duplicates
                ),
                jobs,
            )
        )
    for r in results:
        if "failed" in r:
            print(
                f"{r['coretype']} {r['variant']}: FAILED\n{r['failed']}",
                file=sys.stderr,
            )
        elif r.get("refused"):
            print(
                f"{r['coretype']}: OpenBLAS chose {r['architectures']}", file=sys.stderr
            )
    print(f"measured in {time.time() - t0:.0f} s", file=sys.stderr)
    with _open(args.output, "w") as f:
        json.dump(results, f)
    report_results(results)


def _index(results):
    table = {}
    for r in results:
        if "records" not in r:
            continue
        key = (r["coretype"], r["variant"], r["threads"])
        for rec in r["records"]:
            table.setdefault(key, {})[(rec["estimator"], rec["pair"])] = rec
    return table


def _swapped(labels):
    return labels.translate(str.maketrans("01", "10"))


def report_results(results, baseline=None):
    table = _index(results)
    base = _index(baseline) if baseline else None
    estimators = []
    for key in table:
        for est, _ in table[key]:
            if est not in estimators:
                estimators.append(est)
    core_keys = [(c, "dense", None) for c in CORETYPES if (c, "dense", None) in table]
    lines = []
    head = "| estimator | " + " | ".join(f"{c} mean error" for c, _, _ in core_keys)
    head += " | max diff | identical labels | identical up to swap |"
    if base:
        head += " before: means | before: identical |"
    lines.append(head)
    lines.append("|" + "---|" * (head.count("|") - 1))
    details = []

    def summary(tab, est):
        pairs = sorted({p for (e, p) in tab[core_keys[0]] if e == est})
        means = []
        for key in core_keys:
            errs = [tab[key][(est, p)]["error"] for p in pairs if (est, p) in tab[key]]
            means.append(sum(errs) / len(errs))
        same = swap = 0
        divergent = []
        for p in pairs:
            labs = [tab[key][(est, p)]["labels"] for key in core_keys]
            if all(lab == labs[0] for lab in labs):
                same += 1
                swap += 1
            else:
                if all(lab in (labs[0], _swapped(labs[0])) for lab in labs):
                    swap += 1
                divergent.append((p, [tab[key][(est, p)] for key in core_keys]))
        return pairs, means, same, swap, divergent

    for est in estimators:
        pairs, means, same, swap, divergent = summary(table, est)
        row = f"| {est} | " + " | ".join(f"{m:.2f}" for m in means)
        row += f" | {max(means) - min(means):.2f} | {same}/{len(pairs)} | "
        row += f"{swap}/{len(pairs)} |"
        if base:
            _, bmeans, bsame, _, _ = summary(base, est)
            row += " " + " / ".join(f"{m:.2f}" for m in bmeans) + f" | {bsame} |"
        lines.append(row)
        for p, recs in divergent:
            details.append(
                f"  {est} {p}: "
                + "; ".join(
                    f"{key[0]} err {r['error']:.2f} obj {r['objective']:.10g}"
                    for key, r in zip(core_keys, recs)
                )
            )
    print("\n".join(lines))
    print("\nDivergent pairs across core types:")
    print("\n".join(details) if details else "  none")

    ref_key = core_keys[0]
    others = [k for k in table if k not in core_keys]
    if others:
        print(
            "\nInput variants and threads against dense float64 on "
            f"{ref_key[0]} (pairs with identical labels; mean error):"
        )
        vlines = [
            "| estimator | "
            + " | ".join(
                f"{k[1]}{'' if k[2] is None else f' {k[2]} thread'}" for k in others
            )
            + " |"
        ]
        vlines.append("|" + "---|" * (len(others) + 1))
        vdetails = []
        for est in estimators:
            cells = []
            for key in others:
                recs = [
                    (p, table[key][(e, p)], table[ref_key][(e, p)])
                    for (e, p) in table[key]
                    if e == est
                ]
                same = sum(r["labels"] == r0["labels"] for _, r, r0 in recs)
                agree = [  # up to the names of the two clusters
                    sum(a == b for a, b in zip(r["labels"], r0["labels"]))
                    / len(r0["labels"])
                    for _, r, r0 in recs
                ]
                agree = [max(a, 1.0 - a) for a in agree]
                mean = sum(r["error"] for _, r, _ in recs) / len(recs)
                cells.append(
                    f"{same}/{len(recs)}, {mean:.2f}, "
                    f"min agreement {100 * min(agree):.1f}%"
                )
                for p, r, r0 in recs:
                    if r["labels"] != r0["labels"]:
                        vdetails.append(
                            f"  {est} {p} {key[1]}/{key[2]}: err {r['error']:.2f} vs "
                            f"{r0['error']:.2f}, obj {r['objective']:.10g} vs "
                            f"{r0['objective']:.10g}"
                        )
            vlines.append(f"| {est} | " + " | ".join(cells) + " |")
        print("\n".join(vlines))
        print("\n".join(vdetails))
        sorted_key = (ref_key[0], "csr", None)
        unsorted_key = (ref_key[0], "csr_unsorted", None)
        if sorted_key in table and unsorted_key in table:
            for est in estimators:
                recs = [
                    (table[sorted_key][k], table[unsorted_key][k])
                    for k in table[sorted_key]
                    if k[0] == est
                ]
                same = sum(a["labels"] == b["labels"] for a, b in recs)
                print(
                    f"{est}: CSR sorted vs unsorted indices, identical labels on "
                    f"{same}/{len(recs)} pairs"
                )


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    w = sub.add_parser("worker")
    w.add_argument("--variant", default="dense", choices=VARIANTS)
    w.add_argument("--estimators", default=",".join(ESTIMATORS))
    w.add_argument("--pairs", default="")
    w.add_argument("--scale", type=float, default=16.0)
    w.add_argument("--duplicates", action="store_true")
    r = sub.add_parser("run")
    r.add_argument("-o", "--output", default="cpu_coretypes.json")
    r.add_argument("--estimators", default=",".join(ESTIMATORS))
    r.add_argument("--pairs", default="", help="e.g. 1v8,3v8 (default: all 45)")
    r.add_argument("--variants", default=",".join(VARIANTS[1:]))
    r.add_argument("--one-thread", action="store_true")
    r.add_argument("--jobs", type=int, default=2)
    r.add_argument(
        "--scale",
        type=float,
        default=16.0,
        help="X = load_digits().data / scale (15: values not dyadic)",
    )
    r.add_argument(
        "--duplicates",
        action="store_true",
        help="append a copy of every third sample of each pair",
    )
    p = sub.add_parser("report")
    p.add_argument("results")
    p.add_argument("baseline", nargs="?")
    args = parser.parse_args()
    if args.command == "worker":
        worker(args)
    elif args.command == "run":
        run(args)
    else:
        with _open(args.results) as f:
            results = json.load(f)
        baseline = None
        if args.baseline:
            with _open(args.baseline) as f:
                baseline = json.load(f)
        report_results(results, baseline)


if __name__ == "__main__":
    main()
