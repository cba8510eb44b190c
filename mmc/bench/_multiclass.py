"""Multiclass clustering: ``python -m mmc.bench multiclass``.

Every estimator that takes ``n_clusters``, with KMeans(n_init=10) and
SpectralClustering as baselines in the same run:

* accuracy on the multiclass cases of the robustness suite (digits, digit
  subsets, wine and iris, balanced, unbalanced and uncentred blobs with
  k = 3, 5, 10, sparse text-like data with 4 and 10 topics; listed in
  :mod:`mmc.bench._robustness_data`): error, NMI, fit time and its ratio to
  KMeans's, and a summary per estimator;
* fit time against n at k = 4, and against k at a fixed n, on dense blobs
  and on sparse text-like data, with the log-log slopes; SpectralClustering
  is left out of the timings (its nearest-neighbour graph is not what they
  measure).

The labels are used for scoring only.
"""

from mmc.bench import _robustness as robustness
from mmc.bench._comparison import applies
from mmc.bench._scaling import (
    DENSE_FEATURES,
    NNZ_PER_ROW,
    SCALING_SIZES,
    TIME_BUDGET,
    scaling_data,
)
from mmc.bench._timing import time_growing_sizes

# Time against n at this many clusters.
SIZES_CLUSTERS = 4
QUICK_SIZES = (1_000, 2_000)
# Time against k at this many samples (the exact kernel of EvoMMC makes
# larger n cost minutes per fit).
CLUSTERS = (2, 4, 8, 16, 32)
CLUSTERS_SAMPLES = 5_000
QUICK_CLUSTERS = (2, 4, 8)
QUICK_CLUSTERS_SAMPLES = 2_000
KINDS = ("dense", "sparse")
# Topics of the sparse data further apart than in the two-cluster timings, as
# in CPM3C's own timings (mmc.bench._cpm3c).
TOPIC_SEPARATION = 0.5
# With --quick: enough for a point or two of every series.
QUICK_TIME_BUDGET = 2.0


def multiclass_entries(entries):
    """The entries that can find more than two clusters, baselines included."""
    return {name: e for name, e in entries.items() if applies(e, 3)}


def cluster_scaling(
    entries,
    quick=False,
    repeat=1,
    random_state=0,
    progress=None,
    *,
    sizes=None,
    clusters=None,
    kinds=KINDS,
):
    """Fit time of every estimator against n (k = 4) and against k.

    ``sizes`` and ``clusters`` replace the points of the two series (by
    default those of the full run, or of ``quick``), ``kinds`` the data.
    Each estimator runs with its defaults on growing n, or growing k, while
    its fit time extrapolated linearly to the next point stays within the
    time budget (20 s; 2 s with ``quick``), and until it refuses a size
    (:func:`mmc.bench._timing.time_growing_sizes`).

    Returns
    -------
    result : dict
        ``"sizes"`` and ``"clusters"``, each ``kind -> estimator -> record``
        (``"sizes"``, or ``"n_clusters"``, ``"times"``, ``"errors"``,
        ``"slope"``, ``"stopped"``); the fixed k and n, ``"repeat"`` and
        ``"time_budget"``.
    """
    budget = QUICK_TIME_BUDGET if quick else TIME_BUDGET
    if sizes is None:
        sizes = QUICK_SIZES if quick else SCALING_SIZES
    if clusters is None:
        clusters = QUICK_CLUSTERS if quick else CLUSTERS
    fixed_n = QUICK_CLUSTERS_SAMPLES if quick else CLUSTERS_SAMPLES
    timed = {n: e for n, e in entries.items() if n != "SpectralClustering"}
    runs = [(kind, name) for kind in kinds for name in timed]
    result = {
        "sizes": {kind: {} for kind in kinds},
        "clusters": {kind: {} for kind in kinds},
        "sizes_n_clusters": SIZES_CLUSTERS,
        "clusters_n_samples": fixed_n,
        "repeat": repeat,
        "time_budget": budget,
    }
    for kind, name in progress(runs) if progress is not None else runs:
        make = timed[name].make
        result["sizes"][kind][name] = time_growing_sizes(
            lambda: make(SIZES_CLUSTERS, random_state),
            lambda n, kind=kind: scaling_data(
                kind, n, quick, random_state, SIZES_CLUSTERS, TOPIC_SEPARATION
            ),
            sizes,
            repeat,
            budget,
            quick,
        )
        # The same loop over k; time_growing_sizes loads the data of a point
        # before it makes the estimators, which take the k just loaded.
        current = {}

        def load(k, kind=kind):
            current["k"] = k
            return scaling_data(kind, fixed_n, quick, random_state, k, TOPIC_SEPARATION)

        record = time_growing_sizes(
            lambda: make(current["k"], random_state),
            load,
            clusters,
            repeat,
            budget,
            quick,
        )
        record["n_clusters"] = record.pop("sizes")
        result["clusters"][kind][name] = record
    return result


def run(entries, quick=False, repeat=1, random_state=0, progress=None):
    """The accuracy of the multiclass cases, then the timings.

    Parameters
    ----------
    entries : dict
        Name -> entry of :mod:`mmc.bench._registry`; the two-cluster-only
        estimators are dropped, KMeans is added if missing.

    quick : bool, default=False
        A few small cases, small sizes and k up to 8.

    repeat : int, default=1
        Fits per timing; the median is kept.

    random_state : int, default=0
        Seed of every estimator and of the synthetic data of the timings.

    progress : callable, default=None
        Wraps the iterables of cases and of timings (a progress bar).

    Returns
    -------
    result : dict
        ``"accuracy"``: the robustness suite's multiclass group (cases and
        summary, see :func:`mmc.bench._robustness.run`); ``"scaling"``: see
        :func:`cluster_scaling`.
    """
    from mmc.bench._registry import BASELINES

    # KMeans is the reference of every ratio, in both parts.
    entries = {**multiclass_entries(entries), "KMeans": BASELINES["KMeans"]}
    accuracy = robustness.run(
        entries,
        quick=quick,
        repeat=repeat,
        random_state=random_state,
        progress=progress,
        groups=("multiclass",),
    )
    scaling = cluster_scaling(
        entries,
        quick=quick,
        repeat=repeat,
        random_state=random_state,
        progress=progress,
    )
    return {"accuracy": accuracy, "scaling": scaling}


def summary_lines(result):
    """The accuracy summary and the slopes, for the terminal."""
    lines = robustness.summary_lines(result["accuracy"])
    scaling = result["scaling"]
    for axis, label in (("sizes", "n"), ("clusters", "k")):
        for kind in scaling[axis]:
            slopes = ", ".join(
                f"{name} {r['slope']:.2f}"
                for name, r in scaling[axis][kind].items()
                if r["slope"] is not None
            )
            lines.append(f"Log-log slope of fit time against {label}, {kind}: {slopes}")
    return lines


def _timing_table(records, axis_key, axis_label):
    points = sorted({p for r in records.values() for p in r[axis_key]})
    lines = [
        f"| estimator | {' | '.join(f'{axis_label}={p:,}' for p in points)} "
        "| slope | stopped |",
        "|---" * (len(points) + 3) + "|",
    ]
    kmeans = records.get("KMeans")
    for name, r in records.items():
        times = dict(zip(r[axis_key], r["times"]))
        cells = []
        for p in points:
            if p not in times:
                cells.append("-")
                continue
            cell = f"{times[p]:.2f}"
            if kmeans is not None and name != "KMeans" and p in kmeans[axis_key]:
                ratio = times[p] / kmeans["times"][kmeans[axis_key].index(p)]
                cell += f" ({ratio:.1f}x)"
            cells.append(cell)
        slope = "-" if r["slope"] is None else f"{r['slope']:.2f}"
        lines.append(f"| {name} | {' | '.join(cells)} | {slope} | {r['stopped']} |")
    return lines


def timing_markdown(scaling):
    """The timings of :func:`cluster_scaling` as markdown tables."""
    lines = [
        "### Fit time (s) against n and against k",
        "",
        "Default parameters; in parentheses the ratio to KMeans(n_init=10) "
        "at the same point of the same run. Dense: blobs in "
        f"{DENSE_FEATURES} features; sparse: text-like rows with "
        f"{NNZ_PER_ROW} non-zeros. A series stops when the next fit, "
        f"extrapolated linearly, would exceed {scaling['time_budget']:g} s, "
        "or when the estimator refuses the size.",
        "",
        "![fit time against n and k](multiclass_scaling.png)",
    ]
    for kind in scaling["sizes"]:
        lines += [
            "",
            f"#### Against n, k = {scaling['sizes_n_clusters']}, {kind}",
            "",
            *_timing_table(scaling["sizes"][kind], "sizes", "n"),
            "",
            f"#### Against k, n = {scaling['clusters_n_samples']:,}, {kind}",
            "",
            *_timing_table(scaling["clusters"][kind], "n_clusters", "k"),
        ]
    return "\n".join(lines) + "\n"


def markdown(result):
    """The result as a markdown section: the accuracy, then the timings."""
    accuracy = robustness.markdown(result["accuracy"]).replace(
        "## Robustness: every default on a broad suite",
        "## Multiclass clustering: every estimator that takes n_clusters",
        1,
    )
    return accuracy + timing_markdown(result["scaling"])


def plot(result, path):
    """Fit time against n and against k, dense and sparse, on log-log axes."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    scaling = result["scaling"]
    kinds = list(scaling["sizes"])
    fig, axes = plt.subplots(
        2, len(kinds), figsize=(5.5 * len(kinds), 8), squeeze=False
    )
    for row, (axis, key, label) in enumerate(
        (("sizes", "sizes", "n"), ("clusters", "n_clusters", "k"))
    ):
        for col, kind in enumerate(kinds):
            ax = axes[row, col]
            for name, r in scaling[axis][kind].items():
                if r[key]:
                    ax.loglog(r[key], r["times"], marker="o", label=name)
            fixed = (
                f"k = {scaling['sizes_n_clusters']}"
                if axis == "sizes"
                else f"n = {scaling['clusters_n_samples']:,}"
            )
            ax.set_title(f"{kind}, {fixed}")
            ax.set_xlabel(label)
            ax.set_ylabel("fit time (s)")
            ax.grid(True, which="both", alpha=0.3)
    axes[0, 0].legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
