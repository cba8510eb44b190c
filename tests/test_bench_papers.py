"""The papers' protocol: tuning with the labels, the grids, the suite's files."""

import json
import subprocess
import sys
import warnings

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.exceptions import ConvergenceWarning

from mmc import CPMMC
from mmc.bench import tune_by_labels
from mmc.bench._papers import (
    EVO_REG_TIMES_N,
    balance_from_ratio,
    max_spread,
    mean_squared_distance,
    paper_grid,
)
from mmc.metrics import clustering_accuracy


class _Threshold(ClusterMixin, BaseEstimator):
    """Labels a 1-D sample by ``x > threshold``; its fit never sees labels."""

    def __init__(self, threshold=0.0, warn=False):
        self.threshold = threshold
        self.warn = warn

    def fit(self, X):
        if self.warn:
            warnings.warn("did not converge", ConvergenceWarning)
        self.labels_ = (np.asarray(X)[:, 0] > self.threshold).astype(int)
        return self


def _line(n=40, cut=0.3):
    X = np.linspace(-1, 1, n)[:, None]
    return X, (X[:, 0] > cut).astype(int)


@pytest.mark.parametrize("cut", [-0.5, 0.3])
def test_tune_by_labels_picks_the_best_grid_point(cut):
    X, y = _line(cut=cut)
    grid = {"threshold": [-0.5, 0.0, 0.3, 0.8]}
    result = tune_by_labels(_Threshold, grid, X, y)
    assert result.best_params == {"threshold": cut}
    assert result.best_score == 1.0
    np.testing.assert_array_equal(result.best_labels, y)
    # Every point scored, in grid order, by the score asked for.
    assert [g["params"]["threshold"] for g in result.grid] == grid["threshold"]
    for g in result.grid:
        labels = _Threshold(g["params"]["threshold"]).fit(X).labels_
        assert g["score"] == clustering_accuracy(y, labels)


def test_tune_by_labels_takes_instances_callables_and_keeps_first_tie():
    X, y = _line(cut=0.3)
    # A score that cannot tell the points apart: the first point wins.
    result = tune_by_labels(
        _Threshold(warn=False), {"threshold": [0.8, 0.3]}, X, y, score=lambda a, b: 0
    )
    assert result.best_params == {"threshold": 0.8}
    # An instance keeps its other parameters; a score lower for the truth
    # moves the choice.
    result = tune_by_labels(
        _Threshold(warn=True),
        {"threshold": [0.3, -0.5]},
        X,
        y,
        score=lambda t, p: -clustering_accuracy(t, p),
    )
    assert result.best_params == {"threshold": -0.5}
    # The ConvergenceWarning of each fit is counted, not raised.
    assert [g["convergence_warnings"] for g in result.grid] == [1, 1]


def test_tune_by_labels_runs_an_mmc_estimator():
    rng = np.random.RandomState(0)
    X = np.vstack([rng.randn(30, 2), rng.randn(30, 2) + 6])
    y = np.repeat([0, 1], 30)
    result = tune_by_labels(CPMMC(random_state=0), {"C": [1, 10]}, X, y, "nmi")
    assert result.best_params["C"] in (1, 10)
    assert result.best_score == max(g["score"] for g in result.grid)


def test_tune_by_labels_rejects_bad_input():
    X, y = _line()
    with pytest.raises(ValueError, match="score must be"):
        tune_by_labels(_Threshold, {"threshold": [0.0]}, X, y, score="f1")
    with pytest.raises(TypeError, match="estimator must be"):
        tune_by_labels(object(), {"threshold": [0.0]}, X, y)
    with pytest.raises(ValueError, match="y has 3 labels"):
        tune_by_labels(_Threshold, {"threshold": [0.0]}, X, y[:3])
    with pytest.raises(ValueError, match="no point"):
        tune_by_labels(_Threshold, [], X, y)


def test_balance_from_ratio_follows_the_class_ratio():
    bounds = (0.03, 0.1, 0.3, 0.4)
    assert balance_from_ratio(np.repeat([0, 1], [50, 51]), bounds) == 0.03
    assert balance_from_ratio(np.repeat([0, 1], [40, 60]), bounds) == 0.3
    assert balance_from_ratio(np.repeat([0, 1], [10, 90]), bounds) == 0.4


def test_evommc_grid_is_the_papers():
    rng = np.random.RandomState(0)
    X = rng.rand(50, 3)
    y = np.repeat([0, 1], 25)
    grid = paper_grid("EvoMMC", X, y)
    assert grid["reg"] == [c / 50 for c in EVO_REG_TIMES_N]
    s = np.sqrt(((X.max(0) - X.min(0)) ** 2).sum())
    assert s == pytest.approx(max_spread(X))
    np.testing.assert_allclose(
        grid["gamma"], [1 / (2 * (m * s) ** 2) for m in (1, 3, 5)]
    )
    assert grid["random_state"] == list(range(10)) and grid["n_init"] == [1]
    diffs = X[:, None, :] - X[None, :, :]
    assert mean_squared_distance(X) == pytest.approx((diffs**2).sum(-1).mean())


def test_quick_papers_run_writes_papers_json(tmp_path):
    out = tmp_path / "papers"
    result = subprocess.run(
        [sys.executable, "-I", "-m", "mmc.bench", "papers", "--quick"]
        + ["--estimators", "CPMMC,EvoMMC", "--out", str(out)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    record = json.loads((out / "papers.json").read_text())
    assert record["quick"] is True and record["commit"]
    rows = record["rows"]
    assert {r["estimator"] for r in rows} == {"CPMMC", "EvoMMC"}
    required = {"paper", "table", "data", "metric", "published", "tuned"}
    required |= {"tuned_params", "default", "kmeans", "tuned_with_labels"}
    for row in rows:
        assert required <= set(row)
        assert row["tuned_with_labels"] is True
        assert 0 <= row["tuned"] <= 100 and 0 <= row["default"] <= 100
    evo = next(r for r in rows if r["estimator"] == "EvoMMC")
    assert evo["tuned_params"]["n_init"] == 1
    report = (out / "report.md").read_text()
    assert "mmc tuned with labels" in report
    assert (out / "sensitivity_CPMMC.png").read_bytes()[:4] == b"\x89PNG"
    assert "tuned with labels" in result.stdout


def test_a_row_is_reached_in_the_direction_of_its_metric():
    from mmc.bench._papers import _row
    from mmc.bench._papers_tables import Row

    def record(tuned):
        return {"tuned": tuned, "tuned_params": {}, "default": 0.0, "kmeans": 0.0}

    error = Row("cpmmc", "5", "CPMMC", "3v8", "error", 3.0, 5.0)
    nmi = Row("multivariate", "III", "MultivariateMMC", "3v8", "nmi", 0.86, 0.7)
    for row, good, bad in ((error, 3.9, 4.1), (nmi, 0.84, 0.82)):
        for tuned, reached in ((good, True), (bad, False)):
            results = {row.estimator: {"3v8": {row.metric: record(tuned)}}}
            assert _row(row, results)["reached"] is reached
    # The 45-pair mean averages the pairs and has its own tolerance.
    mean = Row("cpmmc", "5", "CPMMC", "mean45", "error", 0.6, 3.6)
    pairs = [f"{a}v{b}" for a in range(10) for b in range(a + 1, 10)]
    results = {"CPMMC": {p: {"error": record(0.0)} for p in pairs}}
    results["CPMMC"]["0v1"]["error"] = record(45 * 0.95)
    row = _row(mean, results)
    assert row["tuned"] == pytest.approx(0.95) and row["reached"] is False


@pytest.mark.parametrize("name", ["CPMMC", "MultivariateMMC", "CPM3C"])
def test_cutting_plane_grids_run_to_the_papers_stopping_rule(name):
    # The papers' runs end at the cutting plane's precision or max_iter, not
    # at mmc's early stop (n_iter_no_change, 10 by default).
    rng = np.random.RandomState(0)
    X, y = rng.rand(40, 3), np.repeat([0, 1], 20)
    grids = paper_grid(name, X, y)
    for grid in grids if isinstance(grids, list) else [grids]:
        assert grid["n_iter_no_change"] == [None]
