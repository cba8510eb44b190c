"""Kernel of the size bounds of ``mmc._balance``: the offsets (prices) of the
clusters' scores under which the best-score assignment keeps every
cluster's size within bounds.

The auction of :func:`mmc._balance.bound_prices`, compiled: while a cluster
is outside its bounds, the one furthest out moves its price to halfway
between the shifts at which its m-th and (m + 1)-th cheapest samples would
join it (too small, m samples short) or leave it (too large, m samples
over). Each round costs one pass over the n x k scores and a selection of
two order statistics (no sort). The arithmetic is that of the NumPy form
in the tests (``tests/_reference.py``), so both give the same prices: the
shifted scores ``scores[i, p] + prices[p]``, the first of equal maxima,
the same order statistics. No BLAS is called.
"""

from libc.math cimport ceil
from libc.stdlib cimport free, malloc

from mmc._core._common cimport INTERRUPT_CHECK_WORK, check_interrupts


cdef inline void _select(double *values, Py_ssize_t n, Py_ssize_t kth) noexcept nogil:
    """Reorder ``values[:n]`` so that ``values[kth]`` is its kth smallest
    (from 0), nothing larger before it and nothing smaller after it
    (Hoare's selection, the middle element as pivot)."""
    cdef Py_ssize_t left = 0, right = n - 1, i, j
    cdef double pivot, swap
    while right > left:
        pivot = values[left + (right - left) // 2]
        i = left
        j = right
        while i <= j:
            while values[i] < pivot:
                i += 1
            while values[j] > pivot:
                j -= 1
            if i <= j:
                swap = values[i]
                values[i] = values[j]
                values[j] = swap
                i += 1
                j -= 1
        if kth <= j:
            right = j
        elif kth >= i:
            left = i
        else:
            return


def bound_prices(
        const double[:, ::1] scores,     # IN, (n_samples, n_clusters)
        double lower,                    # IN
        double upper,                    # IN
        double[::1] prices,              # IN/OUT, (n_clusters,)
        Py_ssize_t max_rounds,           # IN
):
    """Raise or lower ``prices`` until every size is within bounds.

    Parameters
    ----------
    scores : ndarray of shape (n_samples, n_clusters), dtype=float64
        Score of each sample for each cluster.

    lower, upper : float
        Bounds on every cluster's size.

    prices : ndarray of shape (n_clusters,), dtype=float64
        Offsets of the clusters' scores, updated (zeros to start).

    max_rounds : int
        Most auction rounds (a degenerate case of many tied scores could
        otherwise run on). The auction also stops where the samples a
        cluster needs are tied with it (no price moves them).

    Returns
    -------
    n_rounds : int
        Rounds in which a price moved.
    """
    cdef:
        Py_ssize_t n_samples = scores.shape[0], n_clusters = scores.shape[1]
        Py_ssize_t i, p, best, cluster, m, size, n_rounds = 0, _round
        Py_ssize_t work_done = 0
        double value, top, short_max, over_max, sign, low, beyond, runner
        Py_ssize_t *assignment = <Py_ssize_t *> malloc(
            (n_samples if n_samples > 0 else 1) * sizeof(Py_ssize_t))
        Py_ssize_t *counts = <Py_ssize_t *> malloc(n_clusters * sizeof(Py_ssize_t))
        double *steps = <double *> malloc(
            (n_samples if n_samples > 0 else 1) * sizeof(double))

    if assignment == NULL or counts == NULL or steps == NULL:
        free(assignment)
        free(counts)
        free(steps)
        raise MemoryError()
    try:
        with nogil:
            for _round in range(max_rounds):
                for p in range(n_clusters):
                    counts[p] = 0
                for i in range(n_samples):
                    best = 0
                    top = scores[i, 0] + prices[0]
                    for p in range(1, n_clusters):
                        value = scores[i, p] + prices[p]
                        if value > top:
                            top = value
                            best = p
                    assignment[i] = best
                    counts[best] += 1
                # The cluster furthest below ``lower`` and furthest above
                # ``upper`` (the first of equals).
                short_max = lower - counts[0]
                over_max = counts[0] - upper
                cluster = 0
                best = 0
                for p in range(1, n_clusters):
                    if lower - counts[p] > short_max:
                        short_max = lower - counts[p]
                        cluster = p
                    if counts[p] - upper > over_max:
                        over_max = counts[p] - upper
                        best = p
                if short_max <= 0.0 and over_max <= 0.0:
                    break
                size = 0
                if short_max >= over_max:
                    m = <Py_ssize_t> ceil(short_max)
                    # How far each other sample's best shifted score is
                    # above its score for the cluster: the rise that brings
                    # it in.
                    for i in range(n_samples):
                        if assignment[i] != cluster:
                            p = assignment[i]
                            steps[size] = ((scores[i, p] + prices[p])
                                           - (scores[i, cluster] + prices[cluster]))
                            size += 1
                    sign = 1.0
                else:
                    cluster = best
                    m = <Py_ssize_t> ceil(over_max)
                    for i in range(n_samples):
                        if assignment[i] == cluster:
                            runner = -1e300
                            for p in range(n_clusters):
                                value = scores[i, p] + prices[p]
                                if p != cluster and value > runner:
                                    runner = value
                            steps[size] = (
                                (scores[i, cluster] + prices[cluster]) - runner)
                            size += 1
                    sign = -1.0
                if size == 0:
                    break
                if m > size:
                    m = size
                _select(steps, size, m - 1)
                low = steps[m - 1]
                if m < size:
                    beyond = steps[m]
                    for i in range(m + 1, size):
                        if steps[i] < beyond:
                            beyond = steps[i]
                else:
                    beyond = low + 1.0
                if low + beyond == 0.0:
                    # The samples it needs are tied with it and join
                    # another cluster first: no price moves them.
                    break
                prices[cluster] += sign * 0.5 * (low + beyond)
                n_rounds += 1
                work_done += 2 * n_samples * n_clusters
                if work_done >= INTERRUPT_CHECK_WORK:
                    check_interrupts()
                    work_done = 0
    finally:
        free(assignment)
        free(counts)
        free(steps)
    return n_rounds
