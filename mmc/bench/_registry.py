"""The estimators the benchmarks compare, mmc's and the baselines.

Each entry says how to make the estimator for a number of clusters, whether
it is limited to two clusters and whether it takes ``kernel=``; the suites
pick the tasks an estimator can do from that. Defaults are used everywhere:
the benchmark measures what a user gets without tuning.
"""

from collections import namedtuple

from sklearn.cluster import KMeans, SpectralClustering

import mmc

Entry = namedtuple("Entry", ["make", "two_clusters_only", "kernel", "baseline"])


def _mmc_entry(name):
    cls = getattr(mmc, name, None)
    if cls is None:  # not part of this version of mmc
        return None
    params = cls().get_params()
    two_clusters_only = "n_clusters" not in params

    def make(n_clusters, random_state, **overrides):
        if not two_clusters_only:
            overrides["n_clusters"] = n_clusters
        return cls(random_state=random_state, **overrides)

    return Entry(make, two_clusters_only, _takes_rbf_kernel(cls), baseline=False)


def _takes_rbf_kernel(cls):
    try:
        cls(kernel="rbf")._validate_params()
    except (TypeError, ValueError):
        return False
    return True


def _kmeans(n_clusters, random_state, **overrides):
    return KMeans(n_clusters=n_clusters, n_init=10, random_state=random_state)


def _spectral(n_clusters, random_state, **overrides):
    # The nearest-neighbour graph is the affinity users pick for data like two
    # moons; the default rbf affinity with gamma=1 depends on the scale of X.
    return SpectralClustering(
        n_clusters=n_clusters, affinity="nearest_neighbors", random_state=random_state
    )


MMC_NAMES = ("CPMMC", "CPM3C", "MultivariateMMC", "EvoMMC", "FastEvoMMC", "ODMC")
BASELINES = {
    "KMeans": Entry(_kmeans, False, False, baseline=True),
    "SpectralClustering": Entry(_spectral, False, False, baseline=True),
}


def estimators():
    """Name -> :class:`Entry` of every estimator available, mmc's first."""
    entries = {name: _mmc_entry(name) for name in MMC_NAMES}
    entries = {name: entry for name, entry in entries.items() if entry is not None}
    entries.update(BASELINES)
    return entries


def select(names):
    """The entries named in ``names`` (all if None), in registry order.

    Raises
    ------
    SystemExit
        If a name is unknown, with the list of known names.
    """
    available = estimators()
    if names is None:
        return available
    unknown = [name for name in names if name not in available]
    if unknown:
        raise SystemExit(
            f"error: unknown estimator(s) {', '.join(unknown)}; "
            f"available: {', '.join(available)}"
        )
    return {name: entry for name, entry in available.items() if name in names}
