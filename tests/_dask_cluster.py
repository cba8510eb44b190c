"""The LocalCluster of the Dask tests: two single-threaded worker processes."""

import contextlib

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
