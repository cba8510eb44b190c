"""The papers suite's terminal lines, markdown report and sensitivity figures."""

import numpy as np

# The default C of each estimator with the linear kernel ("auto"), marked
# on the figures.
DEFAULT_C = {"CPMMC": 20.0, "CPM3C": 20.0, "MultivariateMMC": 5.0}
DEFAULT_BALANCE = 0.03
FIGURE_DATA = {
    "CPMMC": ("3v8", "8v9", "1v8", "1v9"),
    "CPM3C": ("0689", "1279", "3v8", "8v9"),
    "MultivariateMMC": ("3v8", "8v9"),
    "EvoMMC": ("3v8", "8v9", "1v8", "1v9"),
    "FastEvoMMC": ("3v8", "8v9", "1v8", "1v9"),
    "ODMC": ("3v8", "8v9", "1v8", "1v9"),
}
_LABEL = {"error": "error %", "nmi": "NMI", "rand": "Rand", "fbeta": "F(1.5)"}


def _fmt(metric, value):
    if value is None:
        return "-"
    return f"{value:.2f}" if metric == "error" else f"{value:.3f}"


def _params(params):
    if params and all(isinstance(v, dict) for v in params.values()):
        return "per pair (papers.json)"
    # The loss is the table's and n_init is 1 wherever it is searched.
    shown = {k: v for k, v in params.items() if k not in ("n_init", "loss", "beta")}
    return ", ".join(
        f"{k}={v:.3g}" if isinstance(v, float) else f"{k}={v}"
        for k, v in sorted(shown.items())
    )


def summary_lines(result):
    """Side by side for the terminal, one line per published row."""
    lines = [
        "The papers' protocol (tuned = best of the paper's grid chosen with the "
        "labels: tuned with labels):",
        f"  {'estimator':16s}{'data':>7s}{'metric':>7s}{'paper':>8s}"
        f"{'tuned*':>8s}{'default':>8s}{'KMeans':>8s}  reached",
    ]
    for r in result["rows"]:
        m = r["metric"]
        lines.append(
            f"  {r['estimator'][:16]:16s}{r['data']:>7s}{m:>7s}"
            f"{_fmt(m, r['published']):>8s}{_fmt(m, r['tuned']):>8s}"
            f"{_fmt(m, r['default']):>8s}{_fmt(m, r['kmeans']):>8s}  "
            f"{'yes' if r['reached'] else 'NO'}"
        )
    n = sum(r["reached"] for r in result["rows"])
    lines.append(f"  * tuned with labels. Reached: {n} of {len(result['rows'])}.")
    return lines


def markdown(result, figures):
    """The report: one table per paper, the grids, what is not rebuilt."""
    rows = result["rows"]
    n = sum(r["reached"] for r in rows)
    lines = [
        "## The papers' protocol",
        "",
        "Every row of the papers' tables that `load_digits` rebuilds (the UCI",
        "digits test part, 1,797 images, features / 16). Columns: the",
        "published value; **mmc tuned with labels** (the best point of the",
        "paper's grid, chosen with the true labels per data set, as the papers",
        "did: not a result a user can get on unlabelled data) with the point",
        "chosen; mmc with its defaults; KMeans(n_init=10) here and as",
        "published. Errors in %, lower is better; NMI, Rand index and F-beta",
        "(beta = 1.5), higher is better. A row is reached when the tuned value",
        "is within the tolerance of the published one, or better.",
        "",
        f"Reached: **{n} of {len(rows)}** rows.",
    ]
    for paper in dict.fromkeys(r["paper"] for r in rows):
        lines += [
            "",
            f"### {result['papers'][paper]}",
            "",
            "| table | estimator | data | metric | published | mmc tuned with "
            "labels | parameters chosen (tuned with labels) | mmc default "
            "| KMeans | KMeans published | tolerance | reached |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        for r in rows:
            if r["paper"] != paper:
                continue
            m = r["metric"]
            lines.append(
                f"| {r['table']} | {r['estimator']} | {r['data']} | {_LABEL[m]} "
                f"| {_fmt(m, r['published'])} | {_fmt(m, r['tuned'])} "
                f"| {_params(r['tuned_params'])} | {_fmt(m, r['default'])} "
                f"| {_fmt(m, r['kmeans'])} | {_fmt(m, r['published_kmeans'])} "
                f"| {r['tolerance']:g} | {'yes' if r['reached'] else '**no**'} |"
            )
    lines += ["", "### The grids (tuned with labels)", ""]
    lines += [f"* {name}: {text}." for name, text in result["grids"].items()]
    lines += ["", "### Rows not rebuilt", ""]
    lines += [f"* {result['papers'][p]}: {t}" for p, t in result["not_rebuilt"].items()]
    lines += [f"* {text}." for text in result.get("not_run", ())]
    if figures:
        lines += ["", "### Sensitivity", ""]
        lines += [f"![{name}]({path})" for name, path in figures.items()]
    lines += ["", f"The suite took {result['seconds']:.0f} s.", ""]
    return "\n".join(lines)


def _axes(plt, n_panels, title):
    fig, axes = plt.subplots(
        1, n_panels, figsize=(3.6 * n_panels, 3.4), squeeze=False, sharey=True
    )
    fig.suptitle(title, fontsize=10)
    return fig, axes[0]


def plot_sensitivity(name, records, path):
    """Error against the paper's grid on a few data sets, default marked.

    ``records`` maps data set -> the ``"error"`` record of the suite (with
    its ``grid`` and ``default``). Returns False when nothing is plotted.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    datas = [d for d in FIGURE_DATA.get(name, ()) if records.get(d, {}).get("grid")]
    if not datas:
        return False
    fig, axes = _axes(plt, len(datas), f"{name}: clustering error on the grid")
    for ax, data in zip(axes, datas):
        grid = records[data]["grid"]
        if name in ("EvoMMC", "FastEvoMMC"):
            _plot_evo(ax, grid)
        elif name == "ODMC":
            _plot_lines(ax, grid, "lam", "nu", "nu")
        else:
            _plot_lines(ax, grid, "C", "class_balance", "balance")
            ax.axvline(DEFAULT_C[name], color="grey", ls=":", lw=1)
            if any(g["params"].get("kernel") == "rbf" for g in grid):
                _plot_rbf(ax, grid)
        ax.axhline(records[data]["default"], color="k", ls="--", lw=1, label="default")
        ax.set_title(data, fontsize=9)
        ax.set_xscale("log")
    # Shared y: set once, over every panel's points.
    top = max(g["value"] for d in datas for g in records[d]["grid"])
    top = max(top, *(records[d]["default"] for d in datas))
    axes[0].set_ylim(-0.5, 1.05 * top + 0.5)
    axes[0].set_ylabel("clustering error (%)")
    for ax in axes:  # each panel its own: the rbf widths differ by data set
        ax.legend(fontsize=6, loc="upper right")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return True


def _plot_lines(ax, grid, x_name, line_name, label):
    lines = sorted({g["params"][line_name] for g in grid})
    for value in lines:
        points = sorted(
            (g["params"][x_name], g["value"])
            for g in grid
            if g["params"][line_name] == value and g["params"].get("kernel") != "rbf"
        )
        if points:
            xs, ys = zip(*points)
            ax.plot(xs, ys, marker="o", ms=3, label=f"{label} {value:g}")
    ax.set_xlabel(x_name)


def _plot_rbf(ax, grid):
    """CPM3C's rbf points: error against C for the three best widths."""
    rbf = [g for g in grid if g["params"].get("kernel") == "rbf"]
    best = {}
    for g in rbf:
        gamma = g["params"]["gamma"]
        best[gamma] = min(best.get(gamma, np.inf), g["value"])
    for gamma in sorted(best, key=best.get)[:3]:
        points = sorted(
            (g["params"]["C"], g["value"]) for g in rbf if g["params"]["gamma"] == gamma
        )
        xs, ys = zip(*points)
        ax.plot(xs, ys, marker="s", ms=3, ls="--", label=f"rbf gamma {gamma:.2g}")


def _plot_evo(ax, grid):
    """Median and best (the paper's) error over the runs, per width."""
    n = None
    by_point = {}
    for g in grid:
        p = g["params"]
        by_point.setdefault((p["gamma"], p["reg"]), []).append(g["value"])
    gammas = sorted({gamma for gamma, _ in by_point}, reverse=True)
    for gamma in gammas:
        regs = sorted(reg for gm, reg in by_point if gm == gamma)
        med = [np.median(by_point[gamma, r]) for r in regs]
        best = [min(by_point[gamma, r]) for r in regs]
        n = len(by_point[gamma, regs[0]])
        line = ax.plot(regs, med, marker="o", ms=3, label=f"gamma {gamma:.2g}")
        ax.plot(regs, best, ls=":", color=line[0].get_color())
    ax.set_xlabel(f"reg (solid: median, dotted: best of {n} runs)")
