"""The benchmark command line: runs, writes its files, fails cleanly."""

import json
import subprocess
import sys

import pytest


def _run_bench(*args, cwd):
    # -I keeps the working directory off sys.path, as the README says, so the
    # installed mmc is benchmarked and not a source checkout.
    return subprocess.run(
        [sys.executable, "-I", "-m", "mmc.bench", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_quick_run_writes_report_json_and_figures(tmp_path):
    out = tmp_path / "report"
    result = _run_bench("--quick", "--out", str(out), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in out.iterdir()) == [
        "report.md",
        "results.json",
        "scaling_dense.png",
        "scaling_sparse.png",
    ]
    results = json.loads((out / "results.json").read_text())
    assert results["quick"] is True
    assert results["environment"]["cpu_count"] >= 1
    comparison = results["comparison"]
    names = set(comparison["digit_pairs"])
    assert {"CPMMC", "MultivariateMMC", "KMeans", "SpectralClustering"} <= names
    assert comparison["n_digit_pairs"] == 2
    for task, row in comparison["tasks"].items():
        assert "KMeans" in row, task
        for score in row.values():
            assert 0 <= score["error"] <= 100 and 0 <= score["nmi"] <= 1
            assert score["time"] > 0
    # Two-cluster estimators only on two-class tasks.
    assert "CPMMC" in comparison["tasks"]["digits 3v8"]
    assert "CPMMC" not in comparison["tasks"]["digits {0,6,8,9}"]
    # The kernel estimators cluster the moons with the rbf kernel.
    assert comparison["tasks"]["two moons"]["CPMMC"]["kernel"] == "rbf"
    for kind in ("dense", "sparse"):
        assert set(results["estimator_scaling"][kind]) == names
        record = results["estimator_scaling"][kind]["CPMMC"]
        assert len(record["sizes"]) >= 2 and record["slope"] is not None
    # The rbf feature map at scale, for the estimators that learn on it.
    kernels = results["kernels"]
    assert set(kernels["estimators"]) == {"CPMMC", "CPM3C", "MultivariateMMC", "ODMC"}
    for record in kernels["estimators"].values():
        assert record["sizes"] == kernels["sizes"][: len(record["sizes"])]
        assert all(t > 0 for t in record["times"])
        assert record["peak_memory_over_features"] > 0
    report = (out / "report.md").read_text()
    assert "### two moons" in report and "scaling_dense.png" in report
    assert "## Kernels: the rbf feature map at scale" in report
    assert (out / "scaling_sparse.png").read_bytes()[:4] == b"\x89PNG"
    assert "mean of 2 pairs" in result.stdout


def test_estimators_option_selects_and_rejects_unknown_names(tmp_path):
    out = tmp_path / "one"
    result = _run_bench(
        "accuracy",
        "--quick",
        "--estimators",
        "CPMMC",
        "--out",
        str(out),
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    results = json.loads((out / "results.json").read_text())
    # KMeans is always timed: it is the reference of the time ratios.
    assert set(results["comparison"]["digit_pairs"]) == {"CPMMC", "KMeans"}
    bad = tmp_path / "bad"
    result = _run_bench("--estimators", "CPMMC,DBSCAN", "--out", str(bad), cwd=tmp_path)
    assert result.returncode != 0
    assert "unknown estimator(s) DBSCAN" in result.stderr
    assert not bad.exists() or not any(bad.iterdir())


def test_unknown_suite_is_rejected(tmp_path):
    result = _run_bench("speed", "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert result.returncode == 2
    assert "invalid choice: 'speed'" in result.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("repeat", ["0", "-3"])
def test_bad_repeat_is_rejected(tmp_path, repeat):
    result = _run_bench("--repeat", repeat, "--out", str(tmp_path / "o"), cwd=tmp_path)
    assert result.returncode != 0
    assert "--repeat must be at least 1" in result.stderr


def test_unwritable_output_directory_is_reported(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    result = _run_bench("--quick", "--out", str(blocker / "out"), cwd=tmp_path)
    assert result.returncode != 0
    assert "cannot write to output directory" in result.stderr
    assert blocker.read_text() == "not a directory"
