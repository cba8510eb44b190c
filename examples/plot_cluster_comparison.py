"""
=================================================
Every estimator side by side on 2-D toy data sets
=================================================

Each estimator of mmc, with its default parameters, on four small data sets
(as generated, not centred): two even blobs, two blobs of 240 and 60 samples, 300
samples of two moons and 400 of two circles. On the moons and circles the
estimators that take ``kernel=`` use ``kernel="rbf"``; EvoMMC and FastEvoMMC
always use their default, ``kernel="auto"``, which is the rbf kernel on these
data. KMeans is shown for reference.

The background is the cluster that ``predict`` gives at each point; the
solid line is the boundary between clusters and the dashed lines are the
margins: ``|f(x)| = 1`` for the binary estimators (``f`` their
``decision_function``), and a difference of 1 between the two best scores
for CPM3C. For EvoMMC and FastEvoMMC ``f`` is a least-squares fit of the
labels ``-1`` and ``+1``, so the dashed lines are where that fit reaches the
labels. The number in each panel is the clustering error.

What it shows:

* the margin methods separate the moons and circles with a kernel, where
  k-means cannot;
* on the unbalanced blobs the default ``class_balance="auto"`` (CPMMC's
  ``"stable"`` keeps its bound where its clustering reproduces) lets the
  split fall between the blobs, since k-means finds them clearly unequal
  (a fixed tight bound would force a near-even split through the big blob:
  :ref:`sphx_glr_auto_examples_plot_c_and_class_balance.py`);
* with the linear kernel ODMC's line passes through the mean of the data,
  which cuts the big blob.

With a kernel, a few hundred samples are few: the same estimators fail on
some draws of moons or circles of this size and succeed on others (the
benchmarks in ``bench/`` use 1000 samples).
"""

import time
import warnings

import matplotlib.pyplot as plt
import numpy as np
from sklearn.cluster import KMeans
from sklearn.datasets import make_blobs, make_circles, make_moons

import mmc
from mmc.metrics import clustering_error

n = 300
blobs = make_blobs(n, centers=[[-2, 0], [2, 0]], cluster_std=0.8, random_state=0)
# 240 + 60 samples, centres placed so that the mean of the data is at 0.
unbalanced = make_blobs(
    [240, 60], centers=[[-1, 0], [4, 0]], cluster_std=0.8, random_state=0
)
datasets = {
    "blobs": (blobs, "linear"),
    "unbalanced blobs (4:1)": (unbalanced, "linear"),
    "moons": (make_moons(n, noise=0.05, random_state=0), "rbf"),
    "circles": (make_circles(400, noise=0.05, factor=0.4, random_state=0), "rbf"),
}


def estimators(kernel):
    """Default estimators; ``kernel`` for those that take one."""
    return {
        "CPMMC": mmc.CPMMC(kernel=kernel, random_state=0),
        "CPM3C": mmc.CPM3C(kernel=kernel, random_state=0),
        "MultivariateMMC": mmc.MultivariateMMC(kernel=kernel, random_state=0),
        "EvoMMC": mmc.EvoMMC(random_state=0),
        "FastEvoMMC": mmc.FastEvoMMC(random_state=0),
        "ODMC": mmc.ODMC(kernel=kernel, random_state=0),
        "KMeans": KMeans(n_clusters=2, n_init=10, random_state=0),
    }


def margin_function(estimator, points):
    """Values whose 0 level is the boundary and +-1 levels the margins."""
    if isinstance(estimator, KMeans):
        return None
    scores = estimator.decision_function(points)
    if scores.ndim == 1:
        return scores
    # CPM3C: the best score minus the second best, signed by the cluster.
    top2 = np.sort(scores, axis=1)[:, -2:]
    gap = top2[:, 1] - top2[:, 0]
    return np.where(scores.argmax(axis=1) == 0, -gap, gap)


names = list(estimators("linear"))
fig, axes = plt.subplots(
    len(datasets), len(names), figsize=(2.2 * len(names), 2.3 * len(datasets))
)
colors = np.array(["tab:blue", "tab:orange"])
for row, (data_name, ((X, y), kernel)) in enumerate(datasets.items()):
    lo, hi = X.min(axis=0) - 0.6, X.max(axis=0) + 0.6
    xx, yy = np.meshgrid(np.linspace(lo[0], hi[0], 90), np.linspace(lo[1], hi[1], 90))
    grid = np.c_[xx.ravel(), yy.ravel()]
    for col, (name, estimator) in enumerate(estimators(kernel).items()):
        ax = axes[row, col]
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # e.g. convergence notes
            estimator.fit(X)
        seconds = time.perf_counter() - start
        labels = estimator.labels_
        regions = estimator.predict(grid).reshape(xx.shape)
        ax.contourf(xx, yy, regions, levels=[-0.5, 0.5, 1.5], colors=colors, alpha=0.15)
        values = margin_function(estimator, grid)
        if values is not None:
            values = values.reshape(xx.shape)
            ax.contour(xx, yy, values, levels=[0], colors="k", linewidths=1)
            ax.contour(
                xx, yy, values, levels=[-1, 1], colors="k", linestyles="--",
                linewidths=0.7,
            )  # fmt: skip
        else:
            ax.contour(xx, yy, regions, levels=[0.5], colors="k", linewidths=1)
        ax.scatter(*X.T, c=colors[labels], s=5)
        error = 100 * clustering_error(y, labels)
        ax.text(
            0.98, 0.03, f"{error:.1f}%  {seconds:.2f}s", transform=ax.transAxes,
            ha="right", fontsize=7, bbox={"facecolor": "w", "alpha": 0.8, "lw": 0},
        )  # fmt: skip
        ax.set_xticks([])
        ax.set_yticks([])
        if row == 0:
            ax.set_title(name, fontsize=9)
        if col == 0:
            ax.set_ylabel(data_name, fontsize=9)
        if row == len(datasets) - 1:
            ax.set_xlabel("feature 1", fontsize=8)
handles = [
    plt.Line2D([], [], color="k", lw=1, label="boundary"),
    plt.Line2D([], [], color="k", lw=0.7, ls="--", label="margin"),
]
fig.legend(handles=handles, loc="lower center", ncol=2, fontsize=8)
fig.suptitle("Default parameters (rbf kernel on moons and circles): error, fit time")
fig.tight_layout(rect=(0, 0.03, 1, 1))
plt.show()
