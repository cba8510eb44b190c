"""Docstring sections shared by several estimators, and the one templater.

A section written once here (or in a driver module) replaces a placeholder
``{name}`` in the docstring of every class that uses it, so that a
parameter shared by several estimators is documented in one place.
"""

import textwrap

# The kernel coefficients, as in sklearn.svm.SVC; the kernel itself and the
# rank of its approximation differ between the feature-map estimators and
# the least-squares ones, and are documented by each.
KERNEL_COEFFICIENTS = """\
gamma : "scale" or float, default="scale"
        Coefficient of the rbf, poly and sigmoid kernels (those of them
        that the estimator takes); ``"scale"`` is
        ``1 / (n_features * X.var())``, as in :class:`sklearn.svm.SVC`.

    degree : int, default=3
        Degree of the poly kernel.

    coef0 : float, default=0.0
        Constant term of the poly and sigmoid kernels (those of them that
        the estimator takes)."""


# The early stop of CPMMC and MultivariateMMC (CPM3C words it for its
# assignments).
N_ITER_NO_CHANGE = """\
n_iter_no_change : int or None, default=10
        A run stops after this many cutting-plane iterations in a row that do
        not lower the lowest MMC objective it has reached, and ends at the
        iterate that reached it. Samples near the boundary can change side
        at every step, so that the most violated constraint never comes
        within ``epsilon`` and runs reach ``max_iter`` (every Gaussian-blob
        case of the robustness suite did). None runs to ``epsilon`` or
        ``max_iter`` and ends at the last iterate, as the paper does.
"""


def continuation_parameter(default, reason):
    """The section of the continuation in C of CPMMC and MultivariateMMC,
    with each one's default and the reason for it."""
    text = (
        "Whether each run solves the problem at ``C / 8``, ``C / 4``, "
        "``C / 2`` and then ``C``, each value going on from the constraints "
        "and the hyperplane of the one before (as CPM3C's runs do). With a "
        "small C the samples near the boundary lie inside the margin and "
        "move with the hyperplane, so that a run is less bound to the "
        "clustering it started from. A value whose run ends with an empty "
        "cluster is not carried on: the next starts again from the initial "
        "labelling. False: one run at C, as in the paper. " + reason
    )
    body = textwrap.fill(
        text, width=79, initial_indent=" " * 8, subsequent_indent=" " * 8
    )
    return f"continuation : bool, default={default}\n{body}\n"


def fill_doc(**sections):
    """Class decorator: put each section in place of ``{name}`` in ``__doc__``.

    Only the placeholders named are replaced, so the rest of the docstring
    (braces of sets such as ``{"auto", "pca"}`` included) is left alone.
    """

    def decorate(cls):
        doc = cls.__doc__
        for name, text in sections.items():
            doc = doc.replace("{" + name + "}", text)
        cls.__doc__ = doc
        return cls

    return decorate


# The papers' bound by the cut (mmc/_balance_cut.py) and
# class_balance="stable" (mmc/_stability.py), the same for every estimator;
# they follow each estimator's own account of "auto".
STABLE_CLASS_BALANCE = """\
Where ``"auto"`` sets a bound looser than 0.03 on data of at most
        2000 rows, the fit is repeated at 0.03 and kept if its labels cut the
        rows' nearest-neighbour graph better (``paper_bound_cut_``).
        ``"stable"`` chooses among ``"auto"``, 0.6 and 0.9 without labels, by
        the stability of the clustering under subsampling: two pairs of fits,
        each on a random 80 % of the rows (of at most 2000 sampled rows;
        sparse X of more rows keeps ``"auto"``), label those rows; the
        clustering of ``"auto"`` is kept unless the labellings of a pair
        agree by an adjusted Rand index below 0.7 on average, and another
        bound's reach 0.7; then the bound whose pairs agree most is used
        (``balance_stability_``). It finds unbalanced clusters that k-means
        cuts in two, at the price of four fits on subsamples before the fit
        (up to twelve when ``"auto"`` is unstable: a bound whose first pair
        agrees below 0.4, which its second could not lift to 0.7, is not
        fitted on the second;
        ``bench/studies/balance_stable.md``)."""

GRAPH_START = """\
graph_start_ : bool
        Whether the fit started from the graph's clustering. The estimators
        whose bound holds the clusters' sizes (CPM3C with coordinate
        descent, EvoMMC, FastEvoMMC, ODMC), with their default ``init`` and
        ``class_balance`` ``"auto"`` (or ``"stable"`` where it keeps
        ``"auto"``), compare a spectral clustering of the
        10-nearest-neighbour graph of the rows the balance estimate sees
        (at most 2000, sampled beyond; none for sparse X of more rows) with
        k-means'; where the graph's clustering cuts the graph better (its
        normalised cut) and its silhouette is higher by more than three
        standard errors, the fit starts with every sample at the nearest
        mean of the graph's clusters (one run, the bound from the sizes of
        that start). It finds unbalanced clusters that k-means cuts in two,
        and topics that share their common words; it takes none of the 45
        digit pairs (``bench/studies/graph_start.md``). Always False for CPMMC,
        MultivariateMMC and CPM3C's cutting plane, whose bounds hold the
        mean of the decision values; a fixed ``class_balance`` or another
        ``init`` turns it off."""

# The attribute of the choice of bound by the cut (mmc/_balance_cut.py).
PAPER_BOUND_CUT = """

    paper_bound_cut_ : bool
        Whether the fit is that at the papers' bound 0.03: with
        ``class_balance`` set from the data (``"auto"``, or ``"stable"``
        where it keeps ``"auto"``) to a looser bound, the fit is repeated at
        0.03 and kept where its labels cut the 10-nearest-neighbour graph of
        the rows strictly better, by the normalised cut, for data of at most
        2000 rows (beyond, the refit would double the time;
        ``bench/studies/balance_cut.md``). On documents of eight even topics
        k-means' clusters are uneven, and CPM3C erred 16 % at the bound they
        admit, 5.83 % at 0.03; on the digit pair 5v9 ODMC erred 21 % at the
        bound 0.188 of k-means' clusters (even within the noise), 1.4 % at
        0.03. ``class_balance_`` is the bound kept."""

BALANCE_STABILITY = (
    """\
balance_stability_ : dict or None
        With ``class_balance="stable"``, the stability of each bound fitted
        on subsamples (the mean adjusted Rand index of the labellings of a
        pair; of the first pair alone when it agreed below 0.4), keyed by
        ``"auto"``, 0.6 and 0.9, or by ``"auto"`` alone when its clustering
        was stable; None with another ``class_balance``, and
        where the rule does not apply (sparse X of more than 2000 rows,
        labels given as ``init`` or by the graph start, or fewer than two
        rows per cluster in a subsample).

    """
    + GRAPH_START
    + PAPER_BOUND_CUT
)


# The placeholders of the two sections above, for fill_doc.
STABLE_BALANCE_SECTIONS = {
    "stable_class_balance": STABLE_CLASS_BALANCE,
    "balance_stability": BALANCE_STABILITY,
}


# The parameters and attributes that EvoMMC and FastEvoMMC share.
EVO_PARAMETERS = (
    """\
n_clusters : int, default=2
        Number of clusters k (2 to 255). With two, the evolution below
        searches one labelling ``y in {-1, +1}^n``. With more, each cluster
        has an indicator (+1 on its samples, -1 elsewhere), the fitness is
        the sum of theirs, and each run starts from k-means on the kernel
        principal components (kernel k-means; random clusters with
        ``init="random"``) and moves single samples to the cluster that
        lowers the fitness most until none does (Pahikkala et al., 2012).
        Every cluster then keeps at least ``(1 - class_balance) n / k``
        samples (the bound of two clusters, for any k; with ``"auto"`` on
        uneven k-means clusters, the j smallest clusters keep the share of
        the j smallest k-means clusters less ``0.03 j / k``,
        ``size_floors_``);
        ``population_size``, ``offspring`` and ``patience`` are not used,
        and ``max_generations`` bounds the sweeps over the samples.

    reg : float, default=1e-3
        Regularisation of the least-squares problem, > 0, relative to the
        scale of the kernel matrix: the problem's ``lambda`` is ``reg``
        times the mean of ``k(x, x)`` over the samples (``reg_``; 1 for the
        rbf kernel, the mean squared norm of the rows for the linear
        kernel), so that the clusters do not change when X is multiplied by
        a constant.

    kernel : {"auto", "rbf", "linear", "poly"}, default="auto"
        Kernel function (see :mod:`mmc.kernels`). ``"auto"`` is ``"rbf"``
        unless the squared distances between samples are concentrated
        around their mean, as between tf-idf rows of text, where it is
        ``"linear"`` (:func:`mmc.kernels.resolve_kernel`); ``kernel_`` is
        the one used.

    """
    + KERNEL_COEFFICIENTS
    + """

    class_balance : "auto", "stable" or float, default="auto"
        Bound on ``|mean_i y_i|``: every labelling the search visits has
        ``|sum_i y_i| <= class_balance * n_samples`` (the paper's ``l``);
        with k clusters, each keeps at least ``(1 - class_balance) n / k``
        samples. ``"auto"`` sets it from the data without labels, from the
        clusters of k-means on X (the best of 10 runs on at most 2000
        sampled rows; sparse X of more rows gives no estimate and keeps
        0.03, the paper's bound): the value at which the smallest of them
        fits, ``1 - k min_p pi_p``, plus 0.03 (for two clusters their
        imbalance ``|n_1 - n_2| / n`` plus 0.03), even where they are as
        even as sampling noise allows. The bound used is
        ``class_balance_``. """
    + STABLE_CLASS_BALANCE
    + """

    population_size : int, default=10
        Number of individuals kept from one generation to the next (mu).

    offspring : int, default=10
        Number of children per generation (lambda).

    max_generations : int, default=1_000_000
        Maximum number of generations of one run.

    patience : int, default=1000
        A run stops after this many generations without a better fitness.

    init : {"spectral", "random"} or array-like of shape (n_samples,), \
            default="spectral"
        Initial population of each run. ``"spectral"``: median splits of
        random functions of the kernel's leading eigenvectors, each improved
        by large moves ``y <- sign(G y)`` (within the class balance) that
        never worsen the fitness; the evolution then fine-tunes them with
        single flips. ``"random"``: random balanced labellings, mutated with
        the paper's schedule of ``max(1, n / (t + 1))`` flips at generation
        t. An array gives one labelling (``n_clusters`` distinct values; with
        two, its balance is repaired by random flips if needed; ``n_init``
        is then ignored), fine-tuned by single flips or moves.

    n_init : int, default=10
        Number of independent runs; the run with the lowest fitness wins.

    random_state : int, RandomState instance or None, default=None
        Seeds the initial populations and the mutations.

    n_jobs : int, default=None
        Number of runs executed in parallel on threads (the evolution and the
        local search release the GIL); the result does not depend on it.
        ``None`` runs them on the OpenMP threads, as KMeans runs its
        ``n_init`` runs, when the data are large enough (one thread for
        small data, or inside a thread of a parallel caller). With
        ``n_clusters > 2`` the k-means starts of the runs are computed
        first, on those threads whatever ``n_jobs``.

    verbose : int, default=0
        Print one line per run if positive.
"""
)

EVO_ATTRIBUTES = (
    """\
labels_ : ndarray of shape (n_samples,)
        Cluster of each training sample, 0 to ``n_clusters - 1``, as
        ``predict`` gives it: the clusters of the least-squares classifier of
        the best labelling found (clusters numbered in the order in which
        they first occur in X, so the first sample is in cluster 0). They
        differ from that labelling only where the classifier cannot follow
        it: identical samples are never split (the cluster sizes bound the
        labelling, not these clusters; with more clusters than distinct
        samples, fewer clusters and a ``ConvergenceWarning``), and a few
        samples the size bounds hold in another cluster.

    fitness_ : float
        Fitness of the best labelling found: the optimal value of the
        regularised least-squares problem (lower is better, in [0, 1]).

    objective_ : float
        Same as ``fitness_`` (the name the other estimators use).

    n_generations_ : int
        Number of generations of the winning run (sweeps of its local
        search with more than two clusters).

    n_components_ : int
        Rank of the (exact or approximate) kernel matrix used.

    kernel_ : str
        The kernel used (``kernel``, with ``"auto"`` resolved).

    gamma_ : float
        The kernel coefficient used (1.0 with the linear kernel).

    reg_ : float
        The regularisation ``lambda`` used: ``reg`` times the mean of
        ``k(x, x)`` over the training samples
        (:func:`mmc.kernels.kernel_diagonal_mean`), or ``reg`` where that
        mean is 0 (a kernel that is 0 on every sample).

    class_balance_ : float
        The balance bound the search used: ``class_balance``, or the value
        ``"auto"`` or ``"stable"`` chose.

    size_floors_ : ndarray of shape (n_clusters - 1,) or None
        With more than two clusters, the least number of samples the j
        smallest clusters hold together, for j = 1 .. k - 1: ``j`` times
        the floor ``(1 - class_balance_) n / k`` of every cluster, or, when
        ``"auto"`` found uneven k-means clusters, the share of the j
        smallest of them less ``0.03 j / k`` (rounded up). None with two
        clusters.

    """
    + BALANCE_STABILITY
    + """

    shift_ : ndarray of shape (n_features,) or None
        With the rbf kernel, which does not depend on the origin, the mean
        of dense training data far from it (more than about 10^4 times
        their spread), subtracted from the samples before the kernel, at fit
        and predict time alike; else None.

    intercept_ : float or ndarray of shape (n_clusters,)
        Threshold subtracted from the least-squares predictions in
        ``decision_function``: the one that best reproduces ``labels_`` on
        the training samples. With more than two clusters, one per cluster,
        such that the largest column of ``decision_function`` (what
        ``predict`` takes) reproduces ``labels_`` with the widest margin;
        the bound on the cluster sizes can hold a sample in a cluster whose
        fit is not its largest, and the offsets restore the order.

    n_features_in_ : int
        Number of features seen during fit.
"""
)
