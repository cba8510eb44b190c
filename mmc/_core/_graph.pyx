"""Kernels of the graph start (``mmc._graph_start``): the passes over a
block of the sample's pairwise distances, each fused into one loop.

A block holds the rows ``start .. start + len(block)`` of the sample
against every row. :func:`grid_distances` turns BLAS's products into
squared distances on their grid in place, with the arithmetic of the NumPy
form in the tests (``tests/_reference.py``) step by step: ``product *
product_units``, plus the row's norm, plus the column's, at least 0, 0 on
the diagonal, rounded to the nearest unit (halves to even, as
``np.rint``). :func:`nearest_rows` keeps each row's nearest rows with ties
to the lower index, :func:`add_cluster_roots` sums each row's distances to
the samples of every cluster in the order of the columns, so that the
silhouettes are the same on every CPU. No BLAS is called.
"""

from libc.math cimport rint, sqrt

from mmc._core._common cimport check_interrupts

cdef enum:
    MAX_NEAREST = 64  # the most nearest rows kept (on the stack of a row)

# Each kernel works row by row, in the calling thread with the GIL
# released; the pass shares its blocks among the fit's threads
# (mmc._graph_start._DistanceBlocks.visit_blocks), which end with the
# pass. On OpenMP threads the fits in the benchmarks ran up to twice as
# long (their threads and KMeans's kept spinning beside the
# single-threaded work that follows: the eigenvectors, the runs of
# k-means). A block holds few enough rows
# (mmc._graph_start.SampleDistances.block_rows) that one check for
# interrupts per block suffices.


def grid_distances(double[:, ::1] block, const double[::1] norm_units,
                   double product_units, Py_ssize_t start):
    """Squared distances in units of the grid, in place, from the products
    ``block[i, j] = <s_(start + i), s_j>`` and the squared norms in units,
    ``norm_units``; ``product_units`` is ``-2 / step``."""
    cdef Py_ssize_t i
    with nogil:
        for i in range(block.shape[0]):
            _grid_row(&block[i, 0], block.shape[1], &norm_units[0],
                      norm_units[start + i], product_units, start + i)
    check_interrupts()


cdef inline void _grid_row(double *row, Py_ssize_t n_rows, const double *norm_units,
                           double row_norm, double product_units,
                           Py_ssize_t own) noexcept nogil:
    cdef Py_ssize_t j
    cdef double value
    for j in range(n_rows):
        value = row[j] * product_units
        value = value + row_norm
        value = value + norm_units[j]
        if not value > 0.0:  # negative from rounding, or NaN
            value = 0.0
        row[j] = rint(value)
    row[own] = 0.0


def nearest_rows(const double[:, ::1] block, Py_ssize_t start,
                 Py_ssize_t[:, ::1] out):
    """The ``out.shape[1]`` nearest rows of each row of the block, nearest
    first, ties to the lower index, each row its own first (``out[i]`` for
    row ``start + i``)."""
    cdef Py_ssize_t i
    if out.shape[1] > MAX_NEAREST:
        raise ValueError(f"nearest_rows keeps at most {MAX_NEAREST} rows")
    if out.shape[1] > block.shape[1]:
        raise ValueError("more nearest rows asked than there are rows")
    with nogil:
        for i in range(block.shape[0]):
            _nearest_of_row(&block[i, 0], block.shape[1], start + i, &out[i, 0],
                            out.shape[1])
    check_interrupts()


cdef inline void _nearest_of_row(const double *row, Py_ssize_t n_rows,
                                 Py_ssize_t own, Py_ssize_t *nearest,
                                 Py_ssize_t n_nearest) noexcept nogil:
    cdef double kept[MAX_NEAREST]  # the distances of the nearest kept so far
    cdef Py_ssize_t j = 0, slot = 1
    nearest[0] = own
    kept[0] = -1.0  # before any distance
    # The first rows other than itself fill the list, sorted; each later row
    # enters only if strictly nearer than the last kept, so of equal
    # distances the lower index stays.
    while slot < n_nearest:
        if j != own:
            _insert(kept, nearest, slot, row[j], j)
            slot += 1
        j += 1
    while j < n_rows:
        if row[j] < kept[n_nearest - 1] and j != own:
            _insert(kept, nearest, n_nearest - 1, row[j], j)
        j += 1


cdef inline void _insert(double *kept, Py_ssize_t *rows, Py_ssize_t last,
                         double value, Py_ssize_t row) noexcept nogil:
    """Insert ``(value, row)`` into the sorted ``kept[:last]`` (and its
    ``rows``), after the entries of equal value, dropping ``kept[last]``."""
    cdef Py_ssize_t slot = last
    while slot > 0 and kept[slot - 1] > value:
        kept[slot] = kept[slot - 1]
        rows[slot] = rows[slot - 1]
        slot -= 1
    kept[slot] = value
    rows[slot] = row


def add_cluster_roots(const double[:, ::1] block, const Py_ssize_t[:, ::1] labels,
                      Py_ssize_t n_clusters, double[:, ::1] totals):
    """For each labelling ``labels[t]`` and each row ``i`` of the block,
    add the square roots of its distances to the samples of each cluster
    ``c`` to ``totals[i, t * n_clusters + c]``, column after column."""
    cdef Py_ssize_t i
    with nogil:
        for i in range(block.shape[0]):
            _add_row_roots(&block[i, 0], block.shape[1], &labels[0, 0],
                           labels.shape[0], n_clusters, &totals[i, 0])
    check_interrupts()


cdef inline void _add_row_roots(const double *row, Py_ssize_t n_rows,
                                const Py_ssize_t *labels, Py_ssize_t n_labellings,
                                Py_ssize_t n_clusters, double *totals) noexcept nogil:
    cdef Py_ssize_t j, labelling
    cdef double root
    for j in range(n_rows):
        root = sqrt(row[j])
        for labelling in range(n_labellings):
            totals[labelling * n_clusters + labels[labelling * n_rows + j]] += root
