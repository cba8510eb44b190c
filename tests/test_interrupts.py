"""Long fits stop promptly on Ctrl-C, and concurrent fits leave BLAS alone.

Each interrupt test fits in a subprocess (``-I``: the installed mmc, not the
source tree), waits until the long kernel of the configuration is running,
sends SIGINT and expects the process to die of KeyboardInterrupt within a
generous limit. Before the kernels checked for signals between chunks, the
interrupt waited for the kernel call to end (an NMI scan at n=60,000 takes
several seconds; an evolution run with random starts too), and with
``n_jobs=2`` for every running restart to end.
"""

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest
import threadpoolctl
from sklearn.datasets import make_blobs

import mmc
import mmc._evo_base

# From SIGINT to the death of the process. The kernels check every few
# milliseconds; the rest is slack for a loaded machine.
LATENCY_LIMIT = 3.0

# The script prints this line, then the fit prints READY when its long kernel
# is first entered (the module-level name the driver calls is wrapped).
PREAMBLE = """
import sys
import threading
import numpy as np
import mmc
from sklearn.datasets import make_blobs


def announce(module, name, **forced):
    kernel = getattr(module, name)

    def wrapper(*args, **kwargs):
        print("READY", flush=True)
        return kernel(*args, **kwargs, **forced)

    setattr(module, name, wrapper)


def report_threads():
    # Threads other than the main one still alive after the fit.
    others = [t.name for t in threading.enumerate()
              if t is not threading.main_thread()]
    print("THREADS", others, file=sys.stderr, flush=True)
"""

posix_only = pytest.mark.skipif(
    os.name != "posix", reason="SIGINT to a subprocess needs POSIX signals"
)


def _interrupted(body, startup_limit=60.0):
    """Run PREAMBLE + body, SIGINT it at READY; return (seconds to exit, rc, err)."""
    script = textwrap.dedent(PREAMBLE) + textwrap.dedent(body)
    process = subprocess.Popen(
        [sys.executable, "-I", "-c", script],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        # Reading blocks until READY (the data and the first stages of the
        # fit come first); a timer kills a script that never gets there.
        timer = threading.Timer(startup_limit, process.kill)
        timer.start()
        try:
            line = process.stdout.readline()
        finally:
            timer.cancel()
        assert line.strip() == "READY", (line, process.stderr.read())
        # Let the kernel get going: the signal must land inside it.
        time.sleep(0.3)
        assert process.poll() is None, "the fit ended before it was interrupted"
        process.send_signal(signal.SIGINT)
        sent = time.perf_counter()
        try:
            _, err = process.communicate(timeout=LATENCY_LIMIT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
            pytest.fail(f"the fit was still running {LATENCY_LIMIT} s after SIGINT")
        return time.perf_counter() - sent, process.returncode, err
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()


def _check_keyboard_interrupt(returncode, err):
    # An uncaught KeyboardInterrupt makes Python exit by SIGINT (rc -2).
    assert returncode == -signal.SIGINT, err
    assert "KeyboardInterrupt" in err.strip().splitlines()[-1], err


@posix_only
def test_multivariate_nmi_scan_interrupted():
    # The full scan of the NMI tables (the search's reference, the same
    # chunked loop) costs O(n^2): several seconds at n=60,000, where the
    # branch and bound would end the whole fit before the signal arrives.
    latency, returncode, err = _interrupted(
        """
        import mmc._multivariate_constraints
        X = make_blobs(60_000, n_features=2, centers=2, random_state=0)[0]
        announce(
            mmc._multivariate_constraints, "most_violated_table", exhaustive=True
        )
        mmc.MultivariateMMC(loss="nmi", random_state=0).fit(X)
        """
    )
    _check_keyboard_interrupt(returncode, err)
    assert latency < LATENCY_LIMIT


@posix_only
def test_evo_evolution_interrupted():
    # Random starts mutate up to n labels per child at first: with many
    # children a run of the evolution lasts several seconds.
    latency, returncode, err = _interrupted(
        """
        import mmc._evo_search
        X = make_blobs(1500, n_features=5, centers=2, random_state=0)[0]
        announce(mmc._evo_search, "evolve")
        mmc.EvoMMC(init="random", offspring=400, n_init=1, random_state=0).fit(X)
        """
    )
    _check_keyboard_interrupt(returncode, err)
    assert latency < LATENCY_LIMIT


@posix_only
def test_restart_threads_stopped():
    # Two restarts scan on two threads; SIGINT reaches the main thread only,
    # which must stop both before the process can end.
    latency, returncode, err = _interrupted(
        """
        import mmc._multivariate_constraints
        X = make_blobs(60_000, n_features=2, centers=2, random_state=0)[0]
        announce(
            mmc._multivariate_constraints, "most_violated_table", exhaustive=True
        )
        try:
            mmc.MultivariateMMC(
                loss="nmi", n_init=2, n_jobs=2, random_state=0
            ).fit(X)
        finally:
            report_threads()
        """
    )
    _check_keyboard_interrupt(returncode, err)
    assert latency < LATENCY_LIMIT
    assert "THREADS []" in err, err


@posix_only
def test_cpm3c_runs_of_a_start_on_threads_stopped():
    # With k > 2 the continuation and the run at C of CPM3C's start run on
    # two threads of the fit (mmc._threads.fit_threads), without n_jobs.
    # Overlapping blobs: the runs take several seconds each (4 and 10 s on
    # the 2-core machine), longer than the limit, so a run left going fails.
    latency, returncode, err = _interrupted(
        """
        import mmc._cpm3c
        import mmc._threads
        mmc._threads._openmp_effective_n_threads = lambda: 2
        X = make_blobs(
            500_000, n_features=20, centers=4, cluster_std=5.0, random_state=0
        )[0]
        announce(mmc._cpm3c, "dual_cccp_run")
        try:
            mmc.CPM3C(n_clusters=4, random_state=0).fit(X)
        finally:
            report_threads()
        """
    )
    _check_keyboard_interrupt(returncode, err)
    assert latency < LATENCY_LIMIT
    assert "THREADS []" in err, err


def _blas_threads():
    return [
        info["num_threads"]
        for info in threadpoolctl.threadpool_info()
        if info["user_api"] == "blas"
    ]


def test_concurrent_fits_restore_blas_threads(monkeypatch):
    X = make_blobs(120, n_features=4, centers=2, random_state=0)[0]
    n_fits = 4
    # Fits that overlap: fit k starts 0.1 s after fit k - 1 (while BLAS is
    # limited by the earlier ones), waits inside the limited part of the fit
    # until all are there, then ends 0.2 s after fit k - 1. The fit that
    # started first, the only one to see the original limits, ends first.
    order = {}
    barrier = threading.Barrier(n_fits)
    resolve_gamma = mmc._evo_base.resolve_gamma

    def overlapping(*args, **kwargs):
        k = order.get(threading.get_ident())
        if k is not None:
            barrier.wait()
            time.sleep(0.2 * k)
        return resolve_gamma(*args, **kwargs)

    monkeypatch.setattr(mmc._evo_base, "resolve_gamma", overlapping)
    labels = [None] * n_fits

    def fit(k):
        order[threading.get_ident()] = k
        time.sleep(0.1 * k)
        labels[k] = mmc.EvoMMC(random_state=k).fit(X).labels_

    before = _blas_threads()
    if not before or max(before) < 2:
        pytest.skip("needs a BLAS with more than one thread")
    try:
        threads = [threading.Thread(target=fit, args=(k,)) for k in range(n_fits)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        after = _blas_threads()
    finally:
        # Repair a failure for the tests that follow (a limiter that is
        # never restored sets the limits process-wide).
        threadpoolctl.threadpool_limits(limits=max(before), user_api="blas")
    assert after == before
    order.clear()
    for k in range(n_fits):
        np.testing.assert_array_equal(
            labels[k], mmc.EvoMMC(random_state=k).fit(X).labels_
        )


def _restart_threads():
    return [t for t in threading.enumerate() if t.name.startswith("mmc-restart")]


def test_failed_restart_stops_the_others():
    from mmc._threads import best_of_restarts, raise_if_stopped

    def run(start):
        if start == 1:
            time.sleep(0.2)
            raise ValueError("restart 1 failed")
        # A long restart that checks its stop flag, as the kernels do.
        for _ in range(1000):
            raise_if_stopped()
            time.sleep(0.01)
        return start

    began = time.perf_counter()
    with pytest.raises(ValueError, match="restart 1 failed"):
        best_of_restarts(run, [0, 1, 2, 3], n_jobs=2)
    # The others ran for 10 s unless stopped.
    assert time.perf_counter() - began < 5.0
    assert _restart_threads() == []


def test_restarts_on_threads_keep_order_and_ties():
    from collections import namedtuple

    from mmc._threads import best_of_restarts

    Result = namedtuple("Result", ["objective", "start"])

    def run(start):
        # Later starts end first: the results must still follow the starts.
        time.sleep(0.05 * (4 - start))
        return Result(float(start % 2), start)

    best, results = best_of_restarts(run, [0, 1, 2, 3], n_jobs=2)
    assert [r.start for r in results] == [0, 1, 2, 3]
    assert best.start == 0
    assert _restart_threads() == []
