"""Threads of a fit: restarts and runs on threads, stopping them, the BLAS limit.

Restarts run on a pool of threads owned by :func:`best_of_restarts`. Python
delivers signals to the main thread only, so Ctrl-C during a fit raises
KeyboardInterrupt in the main thread, which waits for the restarts; the
runner then sets a stop flag that the restarts read between their outer
iterations and the Cython kernels between chunks of their long loops
(``mmc._core._common.check_interrupts``, which also lets the main thread
handle signals inside a kernel), and waits for them to stop before
re-raising. A restart that fails stops the others the same way.
"""

import functools
import threading
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait

import scipy.sparse as sp
from joblib import effective_n_jobs

# The stop flag of the restart a thread is running, if any.
_restart = threading.local()


class RestartsStopped(BaseException):
    """Raised in a restart told to stop (another one failed, or Ctrl-C).

    A BaseException, like KeyboardInterrupt, so that no ``except Exception``
    on the way swallows it.
    """


def raise_if_stopped():
    """Raise :class:`RestartsStopped` if the current thread's restart must stop.

    Cheap (a thread-local look-up): called between the outer iterations of
    the restarts and, through ``check_interrupts``, between the chunks of
    the kernels. A no-op outside a threaded restart.
    """
    stop = getattr(_restart, "stop", None)
    if stop is not None and stop.is_set():
        raise RestartsStopped


def best_of_restarts(run, starts, n_jobs, key=lambda result: result.objective):
    """Run ``run(start)`` for every start and keep the best result.

    Restarts are independent; with ``n_jobs != 1`` (resolved by
    ``joblib.effective_n_jobs``) they run on that many threads, the kernels
    releasing the GIL. An exception in a restart, or KeyboardInterrupt in the
    calling thread, stops the other restarts at their next check and is
    raised once they have stopped, so that no thread outlives the call. The
    winner is the run with the lowest ``key`` (by default its ``objective``
    attribute); ties go to the earliest start, so the choice does not depend
    on the number of threads. Labels are never consulted.

    Returns
    -------
    best : object
        The result of the winning run.

    results : list
        The results of all runs, in the order of ``starts``.
    """
    results = map_on_threads(run, starts, effective_n_jobs(n_jobs))
    best = min(range(len(results)), key=lambda i: (key(results[i]), i))
    return results[best], results


def map_on_threads(run, items, n_threads):
    """``[run(item) for item in items]``, on at most ``n_threads`` threads
    (none for one): a failure or Ctrl-C stops the other calls at their next
    check (:func:`raise_if_stopped`) and is raised once they have stopped."""
    n_threads = min(n_threads, len(items))
    if n_threads <= 1:
        return [run(item) for item in items]
    return _run_on_threads(run, items, n_threads)


def in_restart_thread():
    """Whether the current thread runs one of the calls of
    :func:`map_on_threads` (its threads are then all in use)."""
    return getattr(_restart, "stop", None) is not None


# Products of one pass over the rows (samples x features x vectors, or
# non-zeros x vectors for sparse rows) below which the independent runs of
# one fit stay on one thread: each run holds the GIL for its small NumPy
# steps between kernels, which two threads trade. Measured on the 2-core
# machine: ten k-means runs on two threads took 1.4-1.8 times as long as
# on one at 9e3 to 1.8e5 products a pass, 0.84-0.92 times at 4e5 to 1.3e6
# (the ten digits: 1.2e6), 0.58-0.61 times at 2.5e6 and 4e6. CPM3C's two
# runs of a start: median ratio to KMeans 2.67 -> 2.11 on the 7 of 41
# multiclass cases at or above 4e5 (the ten digits 3.10 -> 2.27), within
# the noise below (bench/studies/cpm3c_threads.md).
THREADED_PASS_PRODUCTS = 400_000


def pass_products(X, n_vectors):
    """Multiply-adds of one pass of X against ``n_vectors`` vectors."""
    stored = X.nnz if sp.issparse(X) else X.shape[0] * X.shape[1]
    return stored * n_vectors


def fit_threads(n_runs, products):
    """Threads for ``n_runs`` independent runs inside one fit (the k-means
    runs of an estimate or a start, CPM3C's two runs of a start) whose
    passes over the rows cost ``products`` multiply-adds: as many as
    scikit-learn's KMeans would use (the OpenMP threads allowed, which
    threadpoolctl and OMP_NUM_THREADS limit) when a pass costs at least
    ``THREADED_PASS_PRODUCTS``, but one inside a restart that already runs
    on a thread of its own (``n_jobs``). The runs are the same whatever the
    number."""
    if in_restart_thread() or products < THREADED_PASS_PRODUCTS:
        return 1
    return max(1, min(_openmp_effective_n_threads(), n_runs))


def _openmp_effective_n_threads():
    """scikit-learn's count of the OpenMP threads allowed, imported when
    first asked: the Dask workers import this module and need not import
    scikit-learn (mmc/_rows.py)."""
    from sklearn.utils._openmp_helpers import _openmp_effective_n_threads as count

    return count()


def restart_threads(n_jobs, n_runs, products):
    """Threads for the restarts of a fit whose runs are kernel work (the
    evolutions and local searches of EvoMMC and FastEvoMMC, which release
    the GIL): ``n_jobs`` when given, else those of :func:`fit_threads` for
    runs of at least ``products`` multiply-adds between their
    synchronisations (the caller's measure), as KMeans runs its ``n_init``
    runs on its OpenMP threads whatever ``n_jobs``. The winner of
    :func:`best_of_restarts` does not depend on the number."""
    if n_jobs is not None:
        return effective_n_jobs(n_jobs)
    return fit_threads(n_runs, products)


def _run_on_threads(run, starts, n_threads):
    """``[run(start) for start in starts]`` on ``n_threads`` threads.

    A thread pool of our own rather than joblib's: on KeyboardInterrupt
    joblib's threading backend joins its workers before the caller can tell
    them to stop, and would wait for every running restart to end.
    """
    stop = threading.Event()

    def task(start):
        _restart.stop = stop
        try:
            # A restart still queued when another failed does not start.
            raise_if_stopped()
            return run(start)
        finally:
            # Pool threads are reused; the flag belongs to this call only.
            _restart.stop = None

    executor = ThreadPoolExecutor(n_threads, thread_name_prefix="mmc-restart")
    try:
        futures = [executor.submit(task, start) for start in starts]
        # Waiting on a lock: Ctrl-C interrupts it in the main thread.
        wait(futures, return_when=FIRST_EXCEPTION)
        failed = [f for f in futures if f.done() and f.exception() is not None]
        if failed:
            stop.set()
            # The first failure in the order of the starts that is not a
            # consequence of another.
            errors = [f.exception() for f in failed]
            raise next(
                (e for e in errors if not isinstance(e, RestartsStopped)), errors[0]
            )
        return [f.result() for f in futures]
    except BaseException:
        stop.set()
        raise
    finally:
        executor.shutdown(wait=True, cancel_futures=True)


# One BLAS thread while any fit runs (see single_blas_thread): the number of
# fits inside, and the limiter of the first, which holds the original limits.
_blas_lock = threading.Lock()
_blas_fits = 0
_blas_limiter = None


def single_blas_thread(fit):
    """Run ``fit`` with BLAS limited to one thread.

    The dense algebra of the drivers is on matrices of a few dozen rows
    (working sets, populations), where BLAS threads only add
    synchronisation and oversubscribe the CPUs when restarts run on threads;
    and threaded BLAS rounds differently with the number of threads, which
    would make the results depend on the machine: the limit is there so
    that a fit gives the same result whatever the number of BLAS threads.
    scikit-learn limits KMeans the same way.

    BLAS limits are process-wide, so the limit is too: while any fit runs in
    the process, on any thread, BLAS is limited to one thread for every
    thread of the process. The first fit to enter records the limits in
    force and applies the limit; fits entering meanwhile share it (they
    count themselves in under a lock); the last one out restores the
    recorded limits. Overlapping fits thus leave the limits as they found
    them, which saving and restoring around each fit would not: the second
    fit would save the first one's limit and restore it last.
    """

    @functools.wraps(fit)
    def wrapper(*args, **kwargs):
        _enter_single_blas_thread()
        try:
            return fit(*args, **kwargs)
        finally:
            _leave_single_blas_thread()

    return wrapper


def _enter_single_blas_thread():
    global _blas_fits, _blas_limiter
    # Imported here, as in _openmp_effective_n_threads.
    from sklearn.utils.parallel import _get_threadpool_controller

    with _blas_lock:
        if _blas_fits == 0:
            _blas_limiter = _get_threadpool_controller().limit(
                limits=1, user_api="blas"
            )
        _blas_fits += 1


def _leave_single_blas_thread():
    global _blas_fits, _blas_limiter
    with _blas_lock:
        _blas_fits -= 1
        if _blas_fits == 0:
            _blas_limiter.restore_original_limits()
            _blas_limiter = None
