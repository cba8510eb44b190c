"""Test configuration shared by all test modules.

The tests must exercise the installed mmc (with its compiled mmc._core), never
the ./mmc source directory. `pytest` with ``--import-mode=importlib`` (see
pyproject.toml) does not put the repository root on sys.path, but
``python -m pytest`` does (``python -m`` prepends the current directory), so
drop it here, before any test module imports mmc. An editable install is not
affected: its import hook does not go through sys.path.
"""

import sys
from pathlib import Path

import pytest

_REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _REPO_ROOT]


@pytest.fixture
def sync_scheduler():
    """Dask's single-threaded scheduler for the test."""
    import dask

    with dask.config.set(scheduler="sync"):
        yield


@pytest.fixture
def small_blocks(monkeypatch):
    """Dask row blocks of any size kept as they are, so that small data make
    several blocks (see test_dask.py::test_small_dense_blocks_are_merged)."""
    import mmc._dask

    monkeypatch.setattr(mmc._dask, "MIN_BLOCK_VALUES", 1)


@pytest.fixture
def one_fit(monkeypatch):
    """No refit at the papers' bound (mmc._balance_cut.keep_the_better_cut),
    for tests that count what one fit does (its k-means runs, threads,
    restarts, interrupt points): with ``class_balance="auto"`` the rule
    fits again on most small data sets, whose k-means clusters are rarely
    exactly even."""
    for module in ("mmc._cutting_plane", "mmc._evo_base", "mmc._odmc"):
        monkeypatch.setattr(f"{module}.keep_the_better_cut", lambda *a, **kw: None)
