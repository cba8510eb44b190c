"""
=================
Choosing a kernel
=================

A hyperplane separates clusters only when a gap between them is flat. For
curved gaps, such as between two moons, :class:`mmc.CPMMC`,
:class:`mmc.CPM3C`, :class:`mmc.MultivariateMMC` and :class:`mmc.ODMC` take
``kernel=``: the samples are mapped to the features of the kernel (an
explicit map, exact up to ``n_components`` samples and a Nystroem
approximation beyond) and the hyperplane is learnt there. EvoMMC and
FastEvoMMC work with the kernel matrix itself and take ``kernel="auto"`` by
default: the rbf kernel, or the linear kernel where every sample is nearly
as far from every other, as between tf-idf rows of text
(:func:`mmc.kernels.resolve_kernel`).

The first row compares kernels on two moons; the second varies the width of
the rbf kernel, ``gamma``, around its default ``"scale"``,
``1 / (n_features * X.var())``. Too wide a kernel (small ``gamma``) is
almost linear; too narrow a one (large ``gamma``) sees every sample as its
own cluster, and the margin then prefers splits that follow the sampling
noise. With a kernel, ``C="auto"`` is 100 instead of 20, because the spread
of the mapped data is concentrated on a few directions.

The linear kernel is the right choice for high-dimensional data such as
text (:ref:`sphx_glr_auto_examples_plot_sparse_text.py`), and the fastest.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_moons

import mmc
from mmc.kernels import resolve_gamma
from mmc.metrics import clustering_error

X, y = make_moons(300, noise=0.05, random_state=0)
scale = resolve_gamma(X, "scale")
settings = [
    ("linear", {"kernel": "linear"}),
    ("poly, degree 3", {"kernel": "poly", "degree": 3, "coef0": 1.0}),
    ('rbf, gamma="scale"', {"kernel": "rbf"}),
]
for factor in (0.1, 10, 100):
    gamma = factor * scale
    settings.append(
        (
            f"rbf, gamma = {factor:g} x scale = {gamma:.3g}",
            {"kernel": "rbf", "gamma": gamma},
        )
    )

xx, yy = np.meshgrid(np.linspace(-1.6, 2.6, 150), np.linspace(-1.1, 1.6, 110))
grid = np.c_[xx.ravel(), yy.ravel()]
colors = np.array(["tab:blue", "tab:orange"])
fig, axes = plt.subplots(2, 3, figsize=(12, 6.5), sharex=True, sharey=True)
for ax, (title, params) in zip(axes.ravel(), settings):
    est = mmc.CPMMC(random_state=0, **params).fit(X)
    f = est.decision_function(grid).reshape(xx.shape)
    ax.contourf(xx, yy, f > 0, levels=[-0.5, 0.5, 1.5], colors=colors, alpha=0.15)
    ax.contour(xx, yy, f, levels=[0], colors="k", linewidths=1)
    ax.contour(xx, yy, f, levels=[-1, 1], colors="k", linestyles="--", linewidths=0.7)
    ax.scatter(*X.T, c=colors[est.labels_], s=6)
    error = 100 * clustering_error(y, est.labels_)
    ax.set_title(f"{title}\nerror {error:.1f}%", fontsize=9)
for ax in axes[-1]:
    ax.set_xlabel("feature 1")
for ax in axes[:, 0]:
    ax.set_ylabel("feature 2")
axes[0, 0].plot([], [], "k-", lw=1, label="boundary f(x) = 0")
axes[0, 0].plot([], [], "k--", lw=0.7, label="margin |f(x)| = 1")
axes[0, 0].legend(fontsize=8, loc="lower left")
fig.suptitle("CPMMC on two moons: kernels (top) and rbf widths (bottom)")
fig.tight_layout()
plt.show()

# %%
# A precomputed kernel
# --------------------
# Any positive semi-definite kernel matrix can be given with
# ``kernel="precomputed"``: ``fit`` takes the n x n matrix, and ``predict``
# the kernel between new samples and the training samples.
from sklearn.metrics.pairwise import rbf_kernel  # noqa: E402

K = rbf_kernel(X, gamma=scale)
est = mmc.CPMMC(kernel="precomputed", random_state=0).fit(K)
print(f"precomputed rbf kernel: error {100 * clustering_error(y, est.labels_):.1f}%")
new = rbf_kernel([[0.0, 1.0], [1.0, -0.5]], X, gamma=scale)
print("clusters of two new points:", est.predict(new))
