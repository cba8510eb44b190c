"""What the Dask tests share: the LocalCluster (two single-threaded worker
processes) and data cut into row blocks (the fixtures sync_scheduler and
small_blocks are in conftest.py)."""

import contextlib

import numpy as np
import scipy.sparse as sp
from sklearn.datasets import load_digits

# No Dask computation of the tests may take longer (seconds): a hang fails.
TIMEOUT = 60


@contextlib.contextmanager
def local_client():
    """A Client of a LocalCluster of two single-threaded worker processes."""
    import distributed

    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",  # any free port: never a clash
            silence_logs=50,
        ) as cluster,
        distributed.Client(cluster, timeout=TIMEOUT) as client,
    ):
        yield client


def chunked(X, rows=100):
    """X as a Dask array of blocks of ``rows`` rows (CSR blocks for CSR X)."""
    import dask.array as da

    return da.from_array(X, chunks=(rows, -1), asarray=not sp.issparse(X))


def digits_rows(classes=(3, 8)):
    """The digits of ``classes``, features / 16."""
    digits = load_digits()
    return digits.data[np.isin(digits.target, classes)] / 16.0
