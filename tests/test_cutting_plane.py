"""The shared cutting-plane loop: the early stop of runs with free assignments."""

import numpy as np
import pytest
from sklearn.datasets import make_blobs
from sklearn.exceptions import ConvergenceWarning

from mmc import CPM3C
from mmc._cutting_plane_run import cutting_plane_run


class _ScriptedWorkingSet:
    """A working set whose violations follow a script, |W| = 0 throughout.

    Its slack is 0, so a run never converges by epsilon; ``snapshot`` keeps
    the iteration it was taken at.
    """

    def __init__(self, violations, free=True):
        self.violations = list(violations)
        self.free = free
        self.iteration = 0
        self.restored = None
        self.size = 0

    def add_most_violated(self):
        self.iteration += 1
        return self.violations[min(self.iteration, len(self.violations)) - 1]

    def commit(self):
        self.size += 1

    def solve(self):
        pass

    def update(self):
        return 0

    def slack(self):
        return 0.0

    def squared_norm(self):
        return 0.0

    def loss(self):
        return self.violations[min(self.iteration, len(self.violations)) - 1]

    def release(self):
        return False

    def snapshot(self):
        return self.iteration

    def restore(self, snapshot):
        self.restored = snapshot

    def solution(self):
        return np.zeros(1), 0.0


def _run(working_set, **options):
    return cutting_plane_run(
        working_set,
        C=2.0,
        epsilon=1e-6,
        tol=0.0,
        max_iter=50,
        max_cccp_iter=5,
        verbose=0,
        start="scripted",
        name="test",
        **options,
    )


def test_free_run_stops_after_n_iter_no_change_and_ends_at_its_best_iterate():
    violations = [5.0, 4.0, 3.0, 3.5, 3.2, 3.1, 2.0]
    working_set = _ScriptedWorkingSet(violations)
    result = _run(working_set, n_iter_no_change=3)
    # Iterations 4, 5 and 6 do not lower 3.0: the run stops at the sixth,
    # before it could see 2.0, and goes back to the iterate of the third.
    assert result.n_iter == 6 and result.converged
    assert working_set.restored == 3
    assert result.objective == pytest.approx(2.0 * 3.0)


def test_without_n_iter_no_change_the_run_goes_on_to_max_iter():
    working_set = _ScriptedWorkingSet([5.0, 4.0, 3.0, 3.5, 3.2, 3.1, 2.0])
    result = _run(working_set)
    assert result.n_iter == 50 and not result.converged
    assert working_set.restored is None
    assert result.objective == pytest.approx(2.0 * 2.0)


def test_pinned_assignments_are_never_stopped_early():
    working_set = _ScriptedWorkingSet([5.0, 5.0, 5.0, 5.0], free=False)
    result = _run(working_set, n_iter_no_change=2)
    assert result.n_iter == 50 and working_set.restored is None


def test_last_iterate_kept_when_it_is_the_best():
    working_set = _ScriptedWorkingSet([5.0, 4.0, 3.9, 3.95, 3.8])
    result = _run(working_set, n_iter_no_change=10)
    assert working_set.restored is None
    assert result.objective == pytest.approx(2.0 * 3.8)


def test_cpm3c_stops_cycling_runs_without_a_warning():
    # Unbalanced blobs: after the release, samples near the boundary change
    # class at every CCCP step and the most violated constraint stays far
    # above the slack, so the paper's stopping rule alone reaches max_iter.
    centres = [[0.0] * 10, [4.0] + [0.0] * 9]
    X, _ = make_blobs([300, 75], centers=centres, random_state=0)
    params = dict(
        n_clusters=2, n_init=1, init="kmeans", random_state=0, solver="cutting-plane"
    )
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        cycling = CPM3C(n_iter_no_change=None, **params).fit(X)
    stopped = CPM3C(**params).fit(X)  # no warning: an error under pytest
    assert stopped.n_iter_ < 50 and cycling.n_iter_ == 100
