"""The rules for the independent runs of one fit on threads (fit_threads,
restart_threads)."""

import numpy as np
import scipy.sparse as sp

import mmc._threads as threads_module
from mmc._threads import fit_threads, map_on_threads, pass_products, restart_threads


def test_runs_take_the_openmp_threads_when_a_pass_costs_enough(monkeypatch):
    monkeypatch.setattr(threads_module, "_openmp_effective_n_threads", lambda: 4)
    large = threads_module.THREADED_PASS_PRODUCTS
    assert fit_threads(10, large) == 4
    assert fit_threads(3, large) == 3
    assert fit_threads(2, large) == 2
    assert fit_threads(10, large - 1) == 1
    monkeypatch.setattr(threads_module, "_openmp_effective_n_threads", lambda: 1)
    assert fit_threads(10, large) == 1


def test_runs_inside_a_restart_thread_take_one_thread(monkeypatch):
    monkeypatch.setattr(threads_module, "_openmp_effective_n_threads", lambda: 4)
    large = threads_module.THREADED_PASS_PRODUCTS
    inside = map_on_threads(lambda n: fit_threads(n, large), [10, 10], 2)
    assert inside == [1, 1]


def test_pass_products_count_stored_values():
    X = np.zeros((30, 7))
    X[::3, 2] = 1.0
    assert pass_products(X, 4) == 30 * 7 * 4
    assert pass_products(sp.csr_matrix(X), 4) == 10 * 4


def test_restarts_take_n_jobs_or_else_the_runs_threads(monkeypatch):
    monkeypatch.setattr(threads_module, "_openmp_effective_n_threads", lambda: 4)
    large = threads_module.THREADED_PASS_PRODUCTS
    # Without n_jobs, the rule of fit_threads.
    assert restart_threads(None, 10, large) == 4
    assert restart_threads(None, 3, large) == 3
    assert restart_threads(None, 10, large - 1) == 1
    # n_jobs given wins, whatever the size of the passes (-1: every CPU).
    assert restart_threads(1, 10, large) == 1
    assert restart_threads(2, 10, large - 1) == 2
    assert restart_threads(-1, 10, 0) == threads_module.effective_n_jobs(-1)
