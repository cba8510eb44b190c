"""The class balance bound of ``class_balance="auto"``, set from the data.

Maximum margin clustering needs a bound on the balance of the clusters:
without one, putting every sample in one cluster has the largest margin.
The papers fix it (``|sum_i y_i| <= 0.03 n`` for the digits) or set it per
data set from the class ratio, that is, from the labels. A fixed bound near
0 forces near-even splits: on two blobs of 1000 and 250 samples every
estimator split the large blob and erred 18-30%, where k-means erred 3%
(``python -m mmc.bench robustness``).

``"auto"`` sets the bound without labels, from the sizes of the clusters of
k-means on the data (:func:`kmeans_cluster_sizes`):

* the bound is the value that the estimator's balance term takes at the
  k-means clustering, plus the papers' 0.03 (:func:`auto_class_balance`),
  so that clusters as unequal as k-means found are allowed, and the margin
  decides between them and anything more even, but never an empty cluster
  (a k-means cluster of one outlier would admit one: the bound stops at one
  sample of the estimate in the smallest cluster);
* with ``admit_noise`` (ODMC with the linear kernel), sizes as even as
  sampling noise allows (Pearson's chi-square test does not reject even
  sizes at the level of three standard errors; with two clusters: the
  proportions differ by at most ``3 / sqrt(n)`` for n samples;
  :func:`uneven_proportions`) admit the noise itself: the balance term of
  the most uneven proportions the test still calls even, plus 0.03
  (:func:`estimated_proportions`);
* sparse data of more than ``SAMPLE_ROWS`` rows keep the papers' 0.03: a
  sample of them does not show the clusters reliably, and k-means on every
  row would cost more than the fit (:func:`kmeans_cluster_sizes`).

Sizes even within the noise are no evidence that the classes are even:
until stop 59 they kept the papers' 0.03, which split wine's classes 0
and 2 (59:48, 107 samples, found exactly by k-means) 55:52 in CPM3C,
EvoMMC and FastEvoMMC, and made the bound jump at the test's threshold.
They now keep k-means' own imbalance, as uneven sizes do; on even data
that is within 0.03 or so of the papers' bound, and where it is looser,
the papers' bound gets its chance by the cut (:mod:`mmc._balance_cut`;
``bench/studies/balance_even_estimate.md``).
"""

import math

import numpy as np
import scipy.sparse as sp

from mmc._balance_paths import fill_floors
from mmc._core._balance import bound_prices as auction
from mmc._kmeans import best_kmeans_centres, nearest_centres

# The bound of the papers (CPMMC's l = 0.03 n on the digits), the tolerance
# the "auto" bound adds to the imbalance of the k-means clustering.
PAPER_CLASS_BALANCE = 0.03

# Standard errors of an even split beyond which k-means' imbalance is taken
# to be the data's (the test of uneven sizes: ODMC's noise, its intercept,
# EvoMMC's floors).
NOISE_STANDARD_ERRORS = 3.0

# The k-means runs behind the estimate, the best by inertia: the clustering
# of KMeans(n_init=10), the baseline users compare with, and the rows they
# see at most. The best of 3 runs missed the 1000:500 split of the
# standardised blobs that 10 runs find (CPMMC, CPM3C, MultivariateMMC and
# FastEvoMMC erred 5.7-27.4 % there, 2.3-4.7 % with 10): with 10 runs the
# robustness suite's 57 two-class cases count 1-2 fewer cases worse than
# KMeans + 1 for five of the six estimators, and the 45 digit pairs moved
# by at most 0.13 points (bench/studies/balance_runs.md). Ten runs on 2000
# rows cost 4 ms on dense rows of 50 features, 0.19 s on sparse rows of
# 100,000 with 50 non-zeros (3 runs: 1.4 and 58 ms). The proportions of
# 2000 sampled rows are within 0.011 (one standard error) of the data's.
KMEANS_RUNS = 10
SAMPLE_ROWS = 2000


def kmeans_cluster_sizes(
    X, n_clusters, seed, take_rows=None, sparse=None, kmeans_runs=None
):
    """Sizes of the clusters of k-means on (a sample of) the rows of X.

    The best of ``KMEANS_RUNS`` runs of :func:`mmc._kmeans.best_kmeans_centres`
    (the same on every BLAS kernel and for dense, CSR and float32 input), on
    all rows when there are at most ``SAMPLE_ROWS``, else, for dense X, on
    that many rows drawn without replacement: the proportions are then known
    within about ``1 / sqrt(SAMPLE_ROWS)``, at a cost that does not grow
    with n. Sparse X with more rows gives no estimate: a sample of sparse
    high-dimensional rows rarely shows the clusters of the data (two even
    clusters of 20,000 rows with 100,000 features and 50 non-zeros a row
    came out 1673:327 from 2000 sampled rows, 2534:2466 from 5000), and
    k-means on every row costs several CPMMC fits.

    Parameters
    ----------
    X : {ndarray, CSR matrix, RowBlocks} of shape (n_samples, n_features)
        Validated data.

    n_clusters : int
        Number of clusters.

    seed : int
        Seed of the sample and of the k-means runs.

    take_rows : callable, default=None
        ``take_rows(X, indices)``: the rows at sorted indices, as an array or
        CSR matrix (for data held in blocks); ``X[indices]`` by default.

    sparse : bool, default=None
        Whether X is sparse (for data held in blocks); by default
        ``scipy.sparse.issparse(X)``.

    kmeans_runs : mmc._kmeans.KMeansRuns, default=None
        The runs of k-means on X from ``np.random.RandomState(seed)``, kept
        for another use (CPM3C's k-means start): used when the estimate
        sees every row, where they are the runs it would draw.

    Returns
    -------
    sizes : ndarray of shape (n_clusters,), dtype=int64, or None
        Cluster sizes among the rows used (they sum to ``min(n,
        SAMPLE_ROWS)``); None for sparse X of more than ``SAMPLE_ROWS`` rows.
    """
    estimate = kmeans_estimate(
        X, n_clusters, np.random.RandomState(seed), take_rows, sparse, kmeans_runs
    )
    if estimate is None:
        return None
    centres, sample = estimate
    return np.bincount(nearest_centres(sample, centres), minlength=n_clusters)


def kmeans_estimate(
    X, n_clusters, random_state, take_rows=None, sparse=None, kmeans_runs=None
):
    """The k-means clustering behind :func:`kmeans_cluster_sizes`: the
    centres of the best of ``KMEANS_RUNS`` runs and the rows they were
    computed on, or None for sparse X of more than ``SAMPLE_ROWS`` rows.
    ``random_state`` (a ``numpy.random.RandomState``) draws the sample and
    the runs; the other parameters are those of :func:`kmeans_cluster_sizes`.
    ODMC's ``"kmeans"`` start labels every row by these centres
    (:func:`mmc._starts.initial_signs`)."""
    sample = estimate_sample(X, random_state, take_rows, sparse)
    if sample is None:
        return None
    if sample is X and kmeans_runs is not None:
        return kmeans_runs.best(KMEANS_RUNS), X
    return best_kmeans_centres(sample, n_clusters, random_state, KMEANS_RUNS), sample


def estimate_sample(X, random_state, take_rows=None, sparse=None):
    """The rows an estimate from the data sees: X itself up to
    ``SAMPLE_ROWS`` rows, else that many drawn by ``random_state``; None for
    sparse X of more rows (see :func:`kmeans_cluster_sizes`). ``take_rows``
    and ``sparse`` are those of :func:`kmeans_cluster_sizes`; the k-means
    estimate and ``class_balance="stable"`` (mmc/_stability.py) both see
    rows drawn so."""
    if sparse is None:
        sparse = sp.issparse(X)
    if sparse and X.shape[0] > SAMPLE_ROWS:
        return None
    rows = sample_rows(X.shape[0], random_state)
    if take_rows is not None:
        return take_rows(X, np.arange(X.shape[0]) if rows is None else rows)
    return X if rows is None else X[rows]


def sample_rows(n_samples, random_state):
    """Sorted indices of the rows the estimate uses, or None for all rows."""
    if n_samples <= SAMPLE_ROWS:
        return None
    return np.sort(random_state.choice(n_samples, SAMPLE_ROWS, replace=False))


def size_balance(proportions):
    """``1 - k min_p pi_p``: with two clusters ``|mean_i y_i|``, the balance
    term of CPMMC, MultivariateMMC, EvoMMC and FastEvoMMC; with k, the
    ``class_balance`` at which the smallest cluster may have ``pi_min n``
    samples (EvoMMC's floor ``(1 - class_balance) n / k``)."""
    return 1.0 - proportions.size * float(proportions.min())


def min_cluster_size(n_samples, n_clusters, class_balance):
    """Fewest samples a cluster may keep, ``(1 - class_balance) n / k``
    rounded down (at least 1): with two clusters, the bound
    ``|n_1 - n_2| <= class_balance n`` on sizes."""
    return max(1, int((1.0 - class_balance) * n_samples / n_clusters))


def bound_prices(scores, lower, upper):
    """Offsets of the clusters' scores that keep every size within bounds.

    The assignment of largest total score in which every cluster has
    between ``lower`` and ``upper`` samples is the assignment to the best
    shifted score, ``argmax_p scores[i, p] + prices[p]``, for some prices
    (the multipliers of the bounds). They are found as in an auction (the
    kernel :func:`mmc._core._balance.bound_prices`): while
    a cluster is outside its bounds, the one furthest out moves its price
    to halfway between the shifts at which its ``m``-th and ``(m + 1)``-th
    cheapest samples would join it (too small, m samples short) or leave
    it (too large, m samples over). A cluster whose price moved ends at the
    bound it was moved to, so the assignment is then the best within the
    bounds. Short clusters that take samples from each other can keep it
    going for thousands of rounds; past 50 rounds per cluster, floors left
    unmet (with no upper bound below ``n_samples``, CPM3C's case) are
    filled by shortest augmenting paths
    (:func:`mmc._balance_paths.fill_floors`), to the same assignment.

    Parameters
    ----------
    scores : ndarray of shape (n_samples, n_clusters)
        Score of each sample for each cluster.

    lower, upper : float
        Bounds on every cluster's size, ``lower <= n_samples / n_clusters
        <= upper``.

    Returns
    -------
    prices : ndarray of shape (n_clusters,)
        Zero when the best scores already keep the sizes within bounds.
    """
    scores = np.ascontiguousarray(scores, dtype=np.float64)
    n_samples, n_clusters = scores.shape
    prices = np.zeros(n_clusters)
    # A few rounds per cluster mostly; where short clusters take samples
    # from each other, a sample or two a round (mmc/_balance_paths.py):
    # past the cap, shortest augmenting paths fill the floors left.
    auction(scores, float(lower), float(upper), prices, 50 * n_clusters)
    if n_samples and upper >= n_samples:
        counts = np.bincount(np.argmax(scores + prices, axis=1), minlength=n_clusters)
        if counts.min() < lower:
            prices = fill_floors(scores, lower, prices)
    return prices


def margin_balance(proportions):
    """``2 (max_p pi_p - min_p pi_p)``: CPM3C's ``max |m_p - m_q|`` when every
    sample has a margin of 1 (then ``m_p = 2 pi_p - 1``)."""
    return 2.0 * float(proportions.max() - proportions.min())


def uneven_proportions(sizes):
    """The proportions of clusters of ``sizes`` when they are uneven beyond
    sampling noise, else None (also for ``sizes`` None).

    The test is Pearson's chi-square test of even proportions, at the level
    of three standard errors of a normal deviate (``NOISE_STANDARD_ERRORS``,
    two-sided): with two clusters, their proportions differ by more than
    ``3 / sqrt(n)`` for the n samples counted. With k clusters the
    statistic ``sum_p (n_p - n / k)^2 / (n / k)`` has k - 1 degrees of
    freedom; the range of the k proportions against ``3 / sqrt(n)``, the
    two-cluster rule as it stood, called far more uneven sizes even as k
    grew (about 6.7 standard errors of the difference of two of ten
    proportions).
    """
    if sizes is None:
        return None
    sizes = np.asarray(sizes, dtype=np.int64)
    n_samples, n_clusters = int(sizes.sum()), sizes.size
    # The statistic is sum_p (k n_p - n)^2 / (k n): an exact integer sum.
    deviations = int(((n_clusters * sizes - n_samples) ** 2).sum())
    if deviations <= noise_statistic(n_clusters) * n_clusters * n_samples:
        return None
    return sizes / float(n_samples)


def noise_statistic(n_clusters):
    """The largest chi-square statistic of k cluster sizes that
    :func:`uneven_proportions` calls even: the upper quantile of the
    chi-square law with k - 1 degrees of freedom at the two-sided level of
    ``NOISE_STANDARD_ERRORS`` (9 for two clusters, 25.3 for ten)."""
    # Imported here: scipy.stats costs every Dask worker, which imports this
    # module but never tests the sizes, about 55 MB (mmc/_rows.py).
    from scipy import stats

    level = 2.0 * stats.norm.sf(NOISE_STANDARD_ERRORS)
    return float(stats.chi2.isf(level, n_clusters - 1))


def noise_spread(n_samples):
    """The largest spread of proportions that :func:`uneven_proportions`
    calls even among ``n_samples`` counted: ``3 / sqrt(n)``."""
    return NOISE_STANDARD_ERRORS / math.sqrt(n_samples)


def estimated_proportions(sizes, admit_noise):
    """The proportions the ``"auto"`` bound admits, or None without an
    estimate (``sizes`` None: the papers' bound).

    k-means' own proportions, even within sampling noise or not; with
    ``admit_noise``, sizes even within the noise (:func:`uneven_proportions`)
    admit the most uneven proportions the noise test still calls even (one
    cluster half the noise spread above ``1/k``, one below, but never below
    half of ``1/k``: on a few samples the noise would admit empty clusters).
    """
    if sizes is None:
        return None
    sizes = np.asarray(sizes)
    if not admit_noise or uneven_proportions(sizes) is not None:
        return sizes / float(sizes.sum())
    half = min(noise_spread(float(sizes.sum())) / 2.0, 0.5 / sizes.size)
    proportions = np.full(sizes.size, 1.0 / sizes.size)
    proportions[0] -= half
    proportions[-1] += half
    return proportions


def auto_class_balance(sizes, balance_of, admit_noise=False):
    """The ``class_balance`` of ``"auto"`` for clusters of ``sizes``.

    Parameters
    ----------
    sizes : array-like of int or None
        Sizes of the clusters of k-means; None when there is no estimate.

    balance_of : callable
        The estimator's balance term as a function of the proportions
        (:func:`size_balance` or :func:`margin_balance`).

    Returns
    -------
    class_balance : float
        ``PAPER_CLASS_BALANCE`` when the sizes are unknown, else
        ``balance_of(proportions) + PAPER_CLASS_BALANCE`` for the
        proportions of :func:`estimated_proportions`, but no more
        than the balance of proportions with one sample of the estimate in
        the smallest cluster (or than the k-means clustering's own): no
        empty cluster.
    """
    proportions = estimated_proportions(sizes, admit_noise)
    if proportions is None:
        return PAPER_CLASS_BALANCE
    # The tolerance never admits an empty cluster, the trivial clustering
    # the bound is there to exclude: on a tiny k-means cluster (an outlier
    # cut off) it would, and CPMMC and ODMC then put every sample in one
    # cluster. The bound stops at that of one sample of the estimate in the
    # smallest cluster.
    one_sample = 1.0 / float(np.sum(sizes))
    smallest = np.full(proportions.size, (1.0 - one_sample) / (proportions.size - 1))
    smallest[0] = one_sample
    return min(
        balance_of(proportions) + PAPER_CLASS_BALANCE,
        max(balance_of(smallest), balance_of(proportions)),
    )


def smallest_sums(sizes):
    """Sizes (or shares) of the j smallest clusters together, for j = 1 ..
    k - 1: what :func:`size_floors` bound."""
    return np.cumsum(np.sort(sizes))[:-1]


def size_floors(sizes, n_samples, n_clusters, class_balance, admit_noise=False):
    """Floors on the smallest clusters, for CPM3C's coordinate-descent solver
    and the k-cluster search of EvoMMC and FastEvoMMC: for every j, the j
    smallest clusters hold at least ``floors[j - 1]``.

    With a number for ``class_balance``, every cluster keeps at least
    ``(1 - class_balance) n / k`` samples. With ``"auto"``, the clusters may be
    no less balanced than those of k-means (``sizes``; the proportions of
    :func:`estimated_proportions`, as for :func:`auto_class_balance`), or
    than even clusters when there is no estimate: the j smallest hold at
    least the share of the j smallest k-means clusters, less the papers'
    ``0.03 j / k``. With two clusters this is the floor
    ``(1 - class_balance) n / 2`` of :func:`auto_class_balance`'s bound.

    Returns
    -------
    floors : ndarray of shape (n_clusters - 1,)
    """
    steps = np.arange(1, n_clusters)
    if class_balance == "auto":
        proportions = estimated_proportions(sizes, admit_noise)
        if proportions is not None:
            shares = smallest_sums(proportions) - (
                PAPER_CLASS_BALANCE * steps / n_clusters
            )
            # No empty cluster (see auto_class_balance): one sample of the
            # estimate each, at least.
            return np.maximum(shares, steps / float(np.sum(sizes))) * n_samples
        class_balance = PAPER_CLASS_BALANCE
    return (1.0 - class_balance) * n_samples / n_clusters * steps


def floor_of(counts, floors):
    """The floor every cluster must reach for the sizes to meet ``floors``.

    ``counts`` fails the floors for the j smallest clusters at some j; with
    m the largest such j, raising every cluster below ``floors[m - 1] / m``
    to that size meets them for every j up to m (``floors[j - 1] / j``
    grows with j: the k-means shares are sorted), and moving samples from
    larger clusters to smaller ones cannot fail them beyond m. Returns 0
    when the floors are met.
    """
    short = np.flatnonzero(smallest_sums(counts) < floors)
    if short.size == 0:
        return 0.0
    m = int(short[-1]) + 1
    return float(floors[m - 1] / m)


def resolve_class_balance(
    class_balance,
    X,
    n_clusters,
    balance_of,
    seed=None,
    labels=None,
    with_floors=False,
    with_uneven=False,
    admit_noise=False,
    **sample,
):
    """The bound of a fit: ``class_balance``, or for ``"auto"`` the rule above.

    Parameters
    ----------
    class_balance : "auto" or float
        The estimator's parameter.

    X : {ndarray, CSR matrix, RowBlocks} of shape (n_samples, n_features)
        Validated data.

    n_clusters : int
        Number of clusters.

    balance_of : callable
        The estimator's balance term (:func:`size_balance` or
        :func:`margin_balance`).

    seed : int, default=None
        Seed of the k-means estimate.

    labels : ndarray of shape (n_samples,), default=None
        An initial clustering given as ``init`` (codes 0 .. k-1): its sizes
        are used instead of k-means'.

    with_floors : bool, default=False
        Also return the :func:`size_floors` of the same estimate.

    with_uneven : bool, default=False
        Also return whether the estimate is uneven beyond sampling noise
        (:func:`uneven_proportions`; False for a number).

    admit_noise : bool, default=False
        Sizes even within sampling noise admit the noise's imbalance, not
        k-means' own (:func:`estimated_proportions`).

    **sample
        ``take_rows``, ``sparse`` and ``kmeans_runs`` of
        :func:`kmeans_cluster_sizes`.

    Returns
    -------
    class_balance : float

    floors : ndarray of shape (n_clusters - 1,)
        Only with ``with_floors``.

    uneven : bool
        Only with ``with_uneven``.
    """
    sizes = None
    if class_balance == "auto":
        if labels is not None:
            sizes = np.bincount(labels, minlength=n_clusters)
        else:
            sizes = kmeans_cluster_sizes(X, n_clusters, seed, **sample)
        bound = auto_class_balance(sizes, balance_of, admit_noise)
    else:
        bound = float(class_balance)
    extras = []
    if with_floors:
        extras.append(
            size_floors(sizes, X.shape[0], n_clusters, class_balance, admit_noise)
        )
    if with_uneven:
        extras.append(uneven_proportions(sizes) is not None)
    return (bound, *extras) if extras else bound
