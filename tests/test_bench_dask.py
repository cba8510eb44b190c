"""The dask suite of the benchmark: every estimator that takes Dask arrays,
in memory and from zarr, with agreements, ratios and the report."""

import subprocess
import sys

import pytest

pytest.importorskip("distributed")
pytest.importorskip("zarr")

from mmc.bench import _dask as dask_bench  # noqa: E402


def test_small_run_times_every_dask_estimator_in_every_form(tmp_path, monkeypatch):
    # One small size (--max-rows leaves the second out) in blocks of 2,000
    # rows keeps the LocalCluster run short.
    monkeypatch.setattr(dask_bench, "QUICK_SIZES", (4_000, 8_000))
    monkeypatch.setattr(dask_bench, "BLOCK_ROWS", 2_000)
    result = dask_bench.run(quick=True, data_dir=str(tmp_path), max_rows=7_000)
    assert list(result["estimators"]) == list(dask_bench.ESTIMATORS)
    for name, record in result["estimators"].items():
        assert [row["n_samples"] for row in record["rows"]] == [4_000]
        assert record["zarr_slope_from_1e6"] is None
        for row in record["rows"]:
            for form in ("dask_memory", "dask_zarr"):
                # The data of every form hold the same values: the Dask fits
                # agree with the in-memory fit (exactly, on one segment).
                assert row[form]["agreement"] >= 0.999, (name, form, row)
                assert row[form]["time_ratio"] == pytest.approx(
                    row[form]["time"] / row["numpy"]["time"]
                )
                assert row[form]["workers_peak_rss_mb"] > 0
    assert list(tmp_path.iterdir()) == []  # the zarr stores are deleted

    report = dask_bench.markdown(result, "dask_scaling.png")
    for name in dask_bench.ESTIMATORS:
        assert f"## {name}" in report
    assert report.count("| 4,000 | 1 |") == 3  # 0.8 MB of float32
    dask_bench.plot(result, str(tmp_path / "figure.png"))
    assert (tmp_path / "figure.png").read_bytes()[:4] == b"\x89PNG"
    lines = dask_bench.summary_lines(result)
    assert sum("on Dask arrays" in line for line in lines) == 3


def test_zarr_slope_is_taken_from_a_million_rows():
    rows = [
        {"n_samples": n, "dask_zarr": {"time": time}}
        for n, time in ((100_000, 50.0), (1_000_000, 2.0), (10_000_000, 40.0))
    ]
    # 1e6 -> 1e7 takes 20 times as long: slope log10(20); the 1e5 row is left out.
    assert dask_bench._zarr_slope(rows) == pytest.approx(1.30103, abs=1e-5)
    assert dask_bench._zarr_slope(rows[:2]) is None


def test_estimators_without_dask_support_are_refused(tmp_path):
    assert dask_bench.check_estimators(["MultivariateMMC", "CPMMC"]) == (
        "CPMMC",
        "MultivariateMMC",
    )
    result = subprocess.run(
        [
            sys.executable,
            "-I",
            "-m",
            "mmc.bench",
            "dask",
            "--estimators",
            "CPMMC,EvoMMC",
            "--out",
            str(tmp_path / "out"),
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode != 0
    assert "the dask suite runs only CPMMC, CPM3C, MultivariateMMC" in result.stderr
    assert "EvoMMC" in result.stderr
    assert not (tmp_path / "out" / "results.json").exists()


def test_max_rows_below_every_size_is_refused():
    with pytest.raises(SystemExit, match="below the smallest size, 100000"):
        dask_bench.run(max_rows=50_000)
