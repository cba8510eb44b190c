"""
=========================================
Fit time against n, compared with k-means
=========================================

How the fit time of each estimator grows with the number of samples, read
from the recorded benchmark ``bench/results/results.json`` (nothing is timed
here: the full benchmark, ``python -I -m mmc.bench --out bench/results``,
takes about twenty minutes on two cores). Each estimator ran with its
default parameters on two clusters:

* dense: ``make_blobs`` with 50 features;
* sparse: :func:`mmc.datasets.make_sparse_clusters` with 100 000 features and
  50 non-zeros per row.

Sizes grow by about 3x until the fit time, extrapolated to the next size,
passes the benchmark's time budget, or the estimator refuses the size
(EvoMMC builds the n x n kernel matrix). The legend gives the slope of each
line on the log-log plot, the exponent of n: near 1 or below for CPMMC,
CPM3C, ODMC and FastEvoMMC (whose rank is fixed), and
above 2 for EvoMMC (the eigendecomposition of the n x n kernel matrix) and
spectral clustering.
"""

import json
from pathlib import Path

import matplotlib.pyplot as plt


def find_results():
    """``bench/results/results.json`` of the repository holding this example."""
    try:
        here = Path(__file__).resolve().parent
    except NameError:  # sphinx-gallery runs examples in their directory
        here = Path.cwd()
    for directory in (here, *here.parents):
        candidate = directory / "bench" / "results" / "results.json"
        if candidate.is_file():
            return candidate
    raise FileNotFoundError(
        "bench/results/results.json not found above "
        f"{here}; run this example from a checkout of the mmc repository."
    )


path = find_results()
results = json.loads(path.read_text())
scaling = results["estimator_scaling"]
environment = results["environment"]
print(
    f"Read {path.name}: measured with mmc {environment['mmc']} on "
    f"{environment['cpu_count']} CPUs, time budget {scaling['time_budget']} s"
)

# %%
# One panel per kind of data
# --------------------------
styles = {
    "CPMMC": ("tab:blue", "o"),
    "CPM3C": ("tab:orange", "s"),
    "MultivariateMMC": ("tab:green", "^"),
    "EvoMMC": ("tab:red", "v"),
    "FastEvoMMC": ("tab:purple", "D"),
    "ODMC": ("tab:brown", "P"),
    "SpectralClustering": ("tab:gray", "x"),
    "KMeans": ("k", "*"),
}
fig, axes = plt.subplots(1, 2, figsize=(12, 6), sharey=True)
for ax, kind in zip(axes, ("dense", "sparse")):
    for name, run in scaling[kind].items():
        colour, marker = styles.get(name, (None, "."))
        ax.loglog(
            run["sizes"],
            run["times"],
            marker=marker,
            color=colour,
            ls="--" if name == "KMeans" else "-",
            lw=2.5 if name == "KMeans" else 1.2,
            label=f"{name} (slope {run['slope']:.2f})",
        )
    ax.set_xlabel("number of samples n")
    ax.set_title(f"{kind} data")
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2)
axes[0].set_ylabel("fit time (s), median of repeats")
fig.suptitle("Fit time against n (recorded in bench/results/results.json)")
fig.tight_layout()
plt.show()

# %%
# The same numbers as a table: time at the largest size reached, and why the
# sizes stopped there.
for kind in ("dense", "sparse"):
    print(f"\n{kind}:")
    for name, run in scaling[kind].items():
        largest, seconds = run["sizes"][-1], run["times"][-1]
        print(
            f"  {name:18s} n={largest:>8d} {seconds:7.2f} s  "
            f"slope {run['slope']:.2f} ({run['stopped']})"
        )
