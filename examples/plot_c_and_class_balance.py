"""
========================================
The effect of C and of the class balance
========================================

Two parameters shape every maximum margin clustering:

* ``C`` weighs the samples that fall inside the margin against the width of
  the margin. In mmc it is relative to the spread of the data (the variance
  along its principal direction), so one value serves data on different
  scales. Too small a ``C`` makes an empty margin of infinite width (one
  cluster) optimal; a large ``C`` needs more cutting planes.
* ``class_balance`` bounds how unequal the two clusters may be. Without it
  the widest margin puts every sample in one cluster; with a tight bound
  (the papers' 0.03) only near-even splits are possible, which cuts through
  the big cluster of unbalanced data. The default ``"auto"`` of CPMMC,
  MultivariateMMC and EvoMMC sets it from the proportions of a k-means
  clustering when those are clearly unequal (the user guide's page on what
  every estimator shares says how); a number fixes it, as the sweep below
  does.

The first two panels fit :class:`mmc.CPMMC` to three pairs of digits
(``load_digits / 16``) for a range of ``C``; the last two fit unbalanced
blobs (400 and 100 samples) for a range of ``class_balance``.
"""

import warnings

import matplotlib.pyplot as plt
import numpy as np
from sklearn.cluster import KMeans
from sklearn.datasets import load_digits, make_blobs

import mmc
from mmc.metrics import clustering_error

warnings.simplefilter("ignore")  # e.g. single-cluster notes at tiny C

# %%
# C on digit pairs
# ----------------
# The error and the number of cutting planes (constraints) for each ``C``.
digits = load_digits()
Cs = [0.5, 1, 2, 5, 10, 20, 50, 100, 200]
by_pair = {}
for pair in [(3, 8), (8, 9), (1, 7)]:
    mask = np.isin(digits.target, pair)
    X, y = digits.data[mask] / 16.0, digits.target[mask]
    fits = [mmc.CPMMC(C=C, random_state=0).fit(X) for C in Cs]
    by_pair[f"digits {pair[0]} vs {pair[1]}"] = (
        [100 * clustering_error(y, est.labels_) for est in fits],
        [est.n_constraints_ for est in fits],
    )

# %%
# The class balance on unbalanced blobs
# -------------------------------------
# A true 400:100 split has ``|mean_i y_i| = 0.6``.
X, y = make_blobs([400, 100], centers=[[0, 0], [4, 0]], cluster_std=1.0, random_state=0)
bounds = [0.03, 0.1, 0.2, 0.3, 0.45, 0.6, 0.8]
makers = {
    "CPMMC": lambda b: mmc.CPMMC(class_balance=b, random_state=0),
    "MultivariateMMC": lambda b: mmc.MultivariateMMC(class_balance=b, random_state=0),
    "EvoMMC": lambda b: mmc.EvoMMC(class_balance=b, n_init=3, random_state=0),
}
by_estimator = {
    name: [100 * clustering_error(y, make(b).fit(X).labels_) for b in bounds]
    for name, make in makers.items()
}
kmeans = KMeans(n_clusters=2, n_init=10, random_state=0).fit(X)
kmeans_error = 100 * clustering_error(y, kmeans.labels_)

# CPMMC's boundary at two bounds, on a grid.
xx, yy = np.meshgrid(np.linspace(-4, 8, 200), np.linspace(-4, 4, 150))
grid = np.c_[xx.ravel(), yy.ravel()]
boundaries = {}
for bound in (0.03, 0.6):
    est = mmc.CPMMC(class_balance=bound, random_state=0).fit(X)
    boundaries[bound] = (
        est.decision_function(grid).reshape(xx.shape),
        100 * clustering_error(y, est.labels_),
    )

# %%
# The figure
# ----------
fig, (ax_c, ax_cost, ax_cb, ax_lines) = plt.subplots(1, 4, figsize=(17, 4))
for label, (errors, constraints) in by_pair.items():
    ax_c.plot(Cs, errors, "o-", label=label)
    ax_cost.plot(Cs, constraints, "o-", label=label)
for ax in (ax_c, ax_cost):
    ax.set_xscale("log")
    ax.set_xlabel("C (relative to the spread of the data)")
    ax.axvline(20, color="0.5", ls=":", label='C="auto" (20, linear)')
    ax.legend(fontsize=8)
ax_c.set_ylabel("clustering error (%)")
ax_c.set_title("CPMMC: error against C")
ax_cost.set_ylabel("constraints in the working set")
ax_cost.set_title("CPMMC: cost against C")

for name, errors in by_estimator.items():
    ax_cb.plot(bounds, errors, "o-", label=name)
ax_cb.axhline(kmeans_error, color="k", ls="--", label="KMeans")
ax_cb.axvline(0.6, color="0.5", ls=":", label="true imbalance")
ax_cb.set_xlabel("class_balance")
ax_cb.set_ylabel("clustering error (%)")
ax_cb.set_title("Unbalanced blobs (4:1): error against the bound")
ax_cb.legend(fontsize=8)

ax_lines.scatter(*X.T, c=np.where(y == 0, "tab:blue", "tab:orange"), s=6)
for (bound, (f, error)), colour in zip(boundaries.items(), ["tab:red", "tab:green"]):
    ax_lines.contour(xx, yy, f, levels=[0], colors=colour)
    ax_lines.plot([], [], color=colour, label=f"class_balance={bound}: {error:.1f}%")
ax_lines.set_xlabel("feature 1")
ax_lines.set_ylabel("feature 2")
ax_lines.set_title("CPMMC's boundary (colours: true clusters)")
ax_lines.legend(fontsize=8, loc="lower right")
fig.tight_layout()
plt.show()
