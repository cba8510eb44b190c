"""Resident memory of the Dask workers after a fit of each estimator that
takes Dask arrays, and whether the workers imported scikit-learn,
scipy.stats or scipy.optimize (a worker imports the module of each function
it runs).

A LocalCluster of 2 single-threaded worker processes; CPMMC,
MultivariateMMC and CPM3C (k = 3) with ``random_state=0`` on a Dask array
of 20,000 x 10 standard normal values in 4 chunks, persisted on the
workers. Run with mmc installed::

    python -I bench/dask/worker_imports.py
"""

import sys

import dask.array as da
from distributed import Client, LocalCluster

HEAVY = ("sklearn", "scipy.stats", "scipy.optimize")


def resident_mb():
    import os

    import psutil

    return psutil.Process(os.getpid()).memory_info().rss / 2**20


def heavy_modules():
    return [name for name in HEAVY if name in sys.modules]


if __name__ == "__main__":
    from mmc import CPM3C, CPMMC, MultivariateMMC

    with (
        LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            silence_logs=50,
        ) as cluster,
        Client(cluster) as client,
    ):
        X = da.random.RandomState(0).normal(size=(20000, 10), chunks=(5000, 10))
        X = X.persist()
        idle = [round(v) for v in client.run(resident_mb).values()]
        print(f"workers idle (MB): {idle}")
        CPMMC(random_state=0).fit(X)
        MultivariateMMC(random_state=0).fit(X)
        CPM3C(n_clusters=3, random_state=0).fit(X)
        after = [round(v) for v in client.run(resident_mb).values()]
        print(f"workers after the fits (MB): {after}")
        imported = list(client.run(heavy_modules).values())
        print(f"modules imported by the workers: {imported}")
