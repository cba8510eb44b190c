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


def test_quick_run_writes_report_json_and_figure(tmp_path):
    out = tmp_path / "report"
    result = _run_bench("--quick", "--out", str(out), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in out.iterdir()) == [
        "report.md",
        "results.json",
        "scaling.png",
    ]
    results = json.loads((out / "results.json").read_text())
    assert results["quick"] is True
    assert len(results["digits"]["pairs"]) == 45
    for row in results["digits"]["pairs"].values():
        assert 0 <= row["cpmmc_error"] <= 50 and row["cpmmc_time"] > 0
    assert len(results["scaling"]["rows"]) >= 4
    assert results["environment"]["cpu_count"] >= 1
    report = (out / "report.md").read_text()
    assert "Digit pairs" in report and "scaling.png" in report
    assert (out / "scaling.png").read_bytes()[:4] == b"\x89PNG"
    assert "mean of 45 pairs" in result.stdout


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
