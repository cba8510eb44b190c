"""
=================================
Clustering sparse, text-like data
=================================

:func:`mmc.datasets.make_sparse_clusters` draws data shaped like tf-idf rows
of documents: each row has a few dozen non-zero "term" weights out of
thousands of columns and unit Euclidean norm, and each cluster has a
"topic", a block of terms its rows use more often. The estimators take the
CSR matrix as it is (nothing is densified) and cost time linear in the
number of non-zeros.

The weight vectors are the interesting output: the terms with the largest
weights are those that decide the cluster, as the top words of a topic
model would be. Here the columns get synthetic names, ``"t<c>_<k>"`` for the
k-th term of the topic of cluster c and ``"w<j>"`` for the other columns, so
that one can see whether the top terms are those of the planted topics.

* :class:`mmc.CPMMC` (two clusters) learns one hyperplane ``w.x + b``:
  terms with large positive weights push a document into cluster 1, large
  negative ones into cluster 0.
* :class:`mmc.CPM3C` (k clusters) learns one weight vector per cluster; a
  document goes to the cluster of its largest score.
"""

import matplotlib.pyplot as plt
import numpy as np

import mmc
from mmc.datasets import make_sparse_clusters
from mmc.metrics import clustering_error

n_features, topic_size = 5000, 200


def term_names(n_clusters):
    """Synthetic vocabulary: topic terms named after their cluster."""
    names = np.array([f"w{j}" for j in range(n_features)], dtype=object)
    block = n_features // n_clusters
    for c in range(n_clusters):
        for k in range(topic_size):
            names[c * block + k] = f"t{c}_{k}"
    return names


def top_terms(weights, names, count=8):
    order = np.argsort(weights)[::-1][:count]
    return names[order], weights[order]


# %%
# Two clusters with CPMMC
# -----------------------
X, y = make_sparse_clusters(
    n_samples=2000, n_features=n_features, nnz_per_row=30, n_clusters=2,
    separation=0.3, topic_size=topic_size, random_state=0,
)  # fmt: skip
print(f"X: {X.shape[0]} x {X.shape[1]} CSR, {X.nnz} non-zeros")
cpmmc = mmc.CPMMC(random_state=0).fit(X)
print(f"CPMMC error: {100 * clustering_error(y, cpmmc.labels_):.2f}%")
names2 = term_names(2)

# %%
# Three clusters with CPM3C
# -------------------------
# With its defaults: four runs, each solving the multiclass SVM of its
# clustering by coordinate descent, which touches only the non-zeros of each
# row (``bench/studies/cpm3c_dual.md``).
X3, y3 = make_sparse_clusters(
    n_samples=3000, n_features=n_features, nnz_per_row=30, n_clusters=3,
    separation=0.3, topic_size=topic_size, random_state=0,
)  # fmt: skip
cpm3c = mmc.CPM3C(n_clusters=3, random_state=0).fit(X3)
print(f"CPM3C error: {100 * clustering_error(y3, cpm3c.labels_):.2f}%")
names3 = term_names(3)

# %%
# The top terms of each cluster's weights
# ---------------------------------------
# Bars are coloured by the planted topic a term belongs to (grey: no topic).
palette = ["tab:blue", "tab:orange", "tab:green"]


def term_colour(name):
    return palette[int(name[1])] if name.startswith("t") else "0.6"


panels = [
    ("CPMMC, cluster 1 (largest w)", *top_terms(cpmmc.coef_, names2)),
    ("CPMMC, cluster 0 (most negative w)", *top_terms(-cpmmc.coef_, names2)),
]
panels += [
    (f"CPM3C, cluster {p} (largest w_{p})", *top_terms(cpm3c.coef_[p], names3))
    for p in range(3)
]
fig, axes = plt.subplots(1, len(panels), figsize=(15, 3.8))
for ax, (title, terms, weights) in zip(axes, panels):
    ax.barh(range(len(terms))[::-1], weights, color=[term_colour(t) for t in terms])
    ax.set_yticks(range(len(terms))[::-1], terms, fontsize=8)
    ax.set_title(title, fontsize=9)
    ax.set_xlabel("weight" if "most negative" not in title else "- weight")
axes[0].set_ylabel("term")
handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in palette + ["0.6"]]
fig.legend(
    handles,
    ["topic of class 0", "topic of class 1", "topic of class 2", "no topic"],
    loc="lower center",
    ncol=4,
    fontsize=8,
)
fig.suptitle(
    f"Top terms: CPMMC error {100 * clustering_error(y, cpmmc.labels_):.1f}%, "
    f"CPM3C error {100 * clustering_error(y3, cpm3c.labels_):.1f}%"
)
fig.tight_layout(rect=(0, 0.07, 1, 1))
plt.show()

# %%
# Cluster numbers are arbitrary: cluster ``p`` of CPM3C is matched to a class
# only by the error computation, so its topic colour need not be ``p``'s.
