"""
===========================================
The margin of a clustering, against k-means
===========================================

Maximum margin clustering looks for the labelling of the data that a support
vector machine would separate with the widest margin. This example draws
what :class:`mmc.CPMMC` finds on two long, thin clusters with a gap between
them: the separating line ``f(x) = w.x + b = 0``, the margin ``|f(x)| = 1``
on each side, and the few samples that fall inside it (the soft margin lets
some in, at a cost ``C``).

k-means, which minimises the distances of the samples to two centres, cuts
the same data across its long axis: two centres at the left and right
halves are closer to the samples than two centres above and below. The
margin is a statement about the empty space between clusters, not about
their centres.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.cluster import KMeans

import mmc
from mmc.metrics import clustering_error

rng = np.random.default_rng(0)
n = 100
# Two elongated clusters: wide along x (std 3), thin along y (std 0.4),
# centred at y = -2 and y = +2.
X = np.vstack(
    [
        rng.normal([0.0, -2.0], [3.0, 0.4], (n, 2)),
        rng.normal([0.0, 2.0], [3.0, 0.4], (n, 2)),
    ]
)
y = np.repeat([0, 1], n)

cpmmc = mmc.CPMMC(random_state=0).fit(X)
kmeans = KMeans(n_clusters=2, n_init=10, random_state=0).fit(X)

# %%
# The hyperplane, its margin, and the k-means boundary
# ----------------------------------------------------
# ``decision_function`` returns ``f(x) = w.x + b``: the clusters are its two
# signs, and the margin is the band ``|f(x)| < 1``, of width ``2 / |w|``. The
# boundary of k-means is the set of points equidistant from its two centres.

xx, yy = np.meshgrid(np.linspace(-10, 10, 300), np.linspace(-5.5, 4, 200))
grid = np.c_[xx.ravel(), yy.ravel()]
f = cpmmc.decision_function(grid).reshape(xx.shape)
inside = np.abs(cpmmc.decision_function(X)) < 1
width = 2 / np.linalg.norm(cpmmc.coef_)
centres = kmeans.cluster_centers_
d = ((grid[:, None, :] - centres[None]) ** 2).sum(-1)
km_side = (d[:, 1] < d[:, 0]).reshape(xx.shape)

fig, (ax_mmc, ax_km) = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
colors = np.array(["tab:blue", "tab:orange"])
ax_mmc.contourf(xx, yy, f > 0, levels=[-0.5, 0.5, 1.5], colors=colors, alpha=0.12)
ax_mmc.contour(xx, yy, f, levels=[0], colors="k", linewidths=1.5)
ax_mmc.contour(xx, yy, f, levels=[-1, 1], colors="k", linestyles="--", linewidths=1)
ax_mmc.scatter(*X.T, c=colors[cpmmc.labels_], s=14)
ax_mmc.scatter(
    *X[inside].T, s=60, facecolors="none", edgecolors="k", label="inside the margin"
)
ax_mmc.plot([], [], "k-", label="hyperplane f(x) = 0")
ax_mmc.plot([], [], "k--", label=f"margin |f(x)| = 1 (width {width:.2f})")
ax_mmc.set_title(
    f"CPMMC: error {100 * clustering_error(y, cpmmc.labels_):.1f}%", fontsize=11
)
ax_mmc.legend(loc="lower left", fontsize=8, framealpha=0.9)

ax_km.contourf(xx, yy, km_side, levels=[-0.5, 0.5, 1.5], colors=colors, alpha=0.12)
ax_km.contour(xx, yy, km_side.astype(float), levels=[0.5], colors="k")
ax_km.scatter(*X.T, c=colors[kmeans.labels_], s=14)
ax_km.scatter(*centres.T, marker="X", s=160, c="k", label="k-means centres")
ax_km.plot([], [], "k-", label="equidistant boundary")
ax_km.set_title(
    f"KMeans: error {100 * clustering_error(y, kmeans.labels_):.1f}%", fontsize=11
)
ax_km.legend(loc="lower left", fontsize=8, framealpha=0.9)

for ax in (ax_mmc, ax_km):
    ax.set_xlabel("feature 1")
    ax.set_xlim(-10, 10)
    ax.set_ylim(-5.5, 4)
ax_mmc.set_ylabel("feature 2")
fig.suptitle("Two elongated clusters: the widest margin against the nearest centre")
fig.tight_layout()
plt.show()
