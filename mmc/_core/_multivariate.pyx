"""Kernels of MMC with a multivariate loss (MultivariateMMC).

A candidate labelling y' is compared with the current labelling s (the signs
of the decision values) through its 2 x 2 contingency table, in the notation
of the paper (rows y', columns s)::

                s = +1   s = -1
    y' = +1       a        b
    y' = -1       c        d

so that ``a + c = n_pos`` and ``b + d = n_neg`` are fixed by s. The losses are
one minus the scores of :mod:`mmc.metrics` with s as the reference labelling
(``labels_true``) and y' as the prediction, with the same limit cases:

* ``LOSS_ERROR``: ``2 (b + c) / n``, twice the disagreement (not matched; with
  it MultivariateMMC reduces to CPMMC, Theorem 2 of the paper);
* ``LOSS_NMI``: ``1 - NMI`` with the arithmetic normalisation;
* ``LOSS_RAND``: ``1 - Rand index``;
* ``LOSS_FBETA``: ``1 - F_beta`` of pair precision and recall.

Entropies use a table ``xlogx[k] = k log k`` for k = 0..n, so that a loss
costs a few look-ups. The loss of one table is inline in _multivariate.pxd;
the search for the most violated table is in mmc._core._table_search.
"""


import numpy as np

LOSS_ERROR = 0
LOSS_NMI = 1
LOSS_RAND = 2
LOSS_FBETA = 3


def xlogx_table(Py_ssize_t n_samples):
    """``k log k`` for k = 0..n_samples (0 for k = 0), as float64."""
    k = np.arange(n_samples + 1, dtype=np.float64)
    table = np.zeros(n_samples + 1)
    table[1:] = k[1:] * np.log(k[1:])
    return table


def table_loss(long a, long b, long c, long d, int loss, double beta=1.0):
    """Loss of one contingency table (for tests and diagnostics).

    Parameters
    ----------
    a, b, c, d : int
        The table, rows y' and columns s (see the module docstring).

    loss : int
        One of LOSS_ERROR, LOSS_NMI, LOSS_RAND, LOSS_FBETA.

    beta : float, default=1.0
        Weight of recall in F_beta.

    Returns
    -------
    loss : float
    """
    table = xlogx_table(a + b + c + d)
    cdef const double[::1] xlogx = table
    return _table_loss(a, b, c, d, loss, beta * beta, &xlogx[0])


def table_losses(
        const long[:, ::1] tables,   # IN, (n_tables, 4) rows (a, b, c, d)
        int loss,                    # IN
        double beta,                 # IN
        const double[::1] xlogx,     # IN, (n + 1,)
        double[::1] out,             # OUT, (n_tables,)
):
    """Loss of each of several tables over the same n samples.

    Parameters
    ----------
    tables : ndarray of shape (n_tables, 4), dtype=int64
        Tables (a, b, c, d), each summing to n.

    loss : int
        One of LOSS_ERROR, LOSS_NMI, LOSS_RAND, LOSS_FBETA.

    beta : float
        Weight of recall in F_beta.

    xlogx : ndarray of shape (n + 1,), dtype=float64
        From :func:`xlogx_table`.

    out : ndarray of shape (n_tables,), dtype=float64
        Receives the losses.
    """
    cdef Py_ssize_t t
    with nogil:
        for t in range(tables.shape[0]):
            out[t] = _table_loss(tables[t, 0], tables[t, 1], tables[t, 2],
                                 tables[t, 3], loss, beta * beta, &xlogx[0])
