"""The benchmark command line: runs, writes its files, fails cleanly."""

import json
import subprocess
import sys

import numpy as np
import pytest

import mmc
from mmc.bench._data import digit_pair_errors, digits
from mmc.bench._robustness import MARGIN, summarise
from mmc.bench._robustness_data import (
    QUICK_MULTICLASS,
    QUICK_TOPICS,
    QUICK_TWO_CLASS,
    multiclass_cases,
    topic_cases,
    two_class_cases,
)
from mmc.bench._study_cases import (
    STUDY_GROUPS,
    case_line,
    generated_cases,
    group_table,
    two_class_study_cases,
)
from mmc.metrics import clustering_error


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
    # The robustness suite is not part of "all".
    assert "robustness" not in results
    assert "## Robustness" not in report


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


MMC_ESTIMATORS = {
    "CPMMC",
    "CPM3C",
    "MultivariateMMC",
    "EvoMMC",
    "FastEvoMMC",
    "ODMC",
}
BASELINE_ESTIMATORS = {"KMeans", "SpectralClustering"}
KINDS = {"digits", "tabular", "toy", "text", "categorical"}


def _check_summary(cases, summary, margin):
    """The summary of a group recomputed from its per-case scores."""
    for name, s in summary.items():
        rows = [(c, r["scores"]) for c, r in cases.items() if name in r["scores"]]
        errors = np.array([scores[name]["error"] for _, scores in rows])
        kmeans = np.array([scores["KMeans"]["error"] for _, scores in rows])
        assert s["n_cases"] == len(rows) > 0, name
        assert s["mean_error"] == pytest.approx(errors.mean()), name
        assert s["median_error"] == pytest.approx(np.median(errors)), name
        assert s["n_worse_than_kmeans"] == (errors > kmeans + margin).sum(), name
        assert s["n_better_than_kmeans"] == (errors < kmeans - margin).sum(), name
        assert s["worst_error"] == pytest.approx(errors.max()), name
        assert rows[int(errors.argmax())][0] == s["worst_case"], name
        ratios = [scores[name]["time_over_kmeans"] for _, scores in rows]
        assert s["median_time_over_kmeans"] == pytest.approx(np.median(ratios))
        assert s["n_convergence_warnings"] == sum(
            scores[name]["convergence_warning"] for _, scores in rows
        )
        assert 0 <= s["n_convergence_warnings"] <= s["n_cases"]
        assert s["n_worse_than_kmeans"] + s["n_better_than_kmeans"] <= s["n_cases"]
    assert summary["KMeans"]["n_worse_than_kmeans"] == 0
    assert summary["KMeans"]["median_time_over_kmeans"] == 1.0


def test_robustness_quick_run_writes_every_case_and_summary(tmp_path):
    out = tmp_path / "robust"
    result = _run_bench("robustness", "--quick", "--out", str(out), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in out.iterdir()) == [
        "report.md",
        "results.json",
        "robustness.json",
    ]
    results = json.loads((out / "results.json").read_text())
    assert set(results) >= {"robustness", "environment"}
    assert "comparison" not in results and "kernels" not in results
    robust = json.loads((out / "robustness.json").read_text())
    environment = {"environment": results["environment"], "seed": 0}
    assert robust == {**results["robustness"], **environment}
    assert robust["quick"] is True
    assert robust["repeat"] == 1 and robust["seconds"] > 0
    assert set(robust["estimators"]) == MMC_ESTIMATORS | BASELINE_ESTIMATORS
    assert robust["estimators"][-2:] == ["KMeans", "SpectralClustering"]
    groups = {
        "two_class": QUICK_TWO_CLASS,
        "multiclass": QUICK_MULTICLASS,
        "topics": QUICK_TOPICS,
    }
    for group, names in groups.items():
        cases = robust[group]["cases"]
        assert sorted(cases) == sorted(names)
        for case, r in cases.items():
            assert r["kind"] in KINDS, case
            assert isinstance(r["nonlinear"], bool) and r["scaling"], case
            assert sum(r["class_sizes"]) == r["n_samples"] <= 2200, case
            assert min(r["class_sizes"]) > 0 and r["n_features"] >= 2, case
            assert len(r["class_sizes"]) == r["n_classes"], case
            if group != "topics":
                assert (r["n_classes"] == 2) == (group == "two_class"), case
            scores = r["scores"]
            assert BASELINE_ESTIMATORS <= set(scores), case
            expected = (
                MMC_ESTIMATORS
                if r["n_classes"] == 2
                else {"CPM3C", "EvoMMC", "FastEvoMMC"}
            ) | BASELINE_ESTIMATORS
            assert set(scores) == expected, case
            for name, s in scores.items():
                assert 0 <= s["error"] <= 100 and 0 <= s["nmi"] <= 1 + 1e-12
                assert 1 <= s["n_clusters_found"] <= r["n_classes"]
                assert s["time"] > 0
                assert s["time_over_kmeans"] == pytest.approx(
                    s["time"] / scores["KMeans"]["time"]
                )
                assert isinstance(s["convergence_warning"], bool)
                if s["convergence_warning"]:
                    assert "ConvergenceWarning" in s["warnings"]
        _check_summary(cases, robust[group]["summary"], robust["margin"])
        assert set(robust[group]["summary"]) == set(expected)
    # The text case is sparse and unbalanced; the kinds are all represented.
    two_class = robust["two_class"]["cases"]
    assert {r["kind"] for r in two_class.values()} == KINDS
    text = two_class["text 1:4"]
    assert text["sparse"] and text["class_sizes"] == [260, 1040]
    # Only the non-linear toy data get the rbf kernel, and only the
    # estimators that take kernel= (EvoMMC's default is rbf anyway).
    assert two_class["moons"]["nonlinear"]
    assert two_class["moons"]["scores"]["CPMMC"]["kernel"] == "rbf"
    assert two_class["digits 3v8"]["scores"]["CPMMC"]["kernel"] == "linear"
    assert two_class["digits 3v8"]["scores"]["KMeans"]["kernel"] is None
    # KMeans and SpectralClustering find the moons differently: the
    # nearest-neighbour graph follows them, k-means cuts across.
    moons = two_class["moons"]["scores"]
    assert moons["SpectralClustering"]["error"] < moons["KMeans"]["error"]

    report = (out / "report.md").read_text()
    assert "## Robustness: every default on a broad suite" in report
    assert "### Two-class cases (7)" in report and "### Multiclass cases (2)" in report
    assert "### Tf-idf text of a topic model (1)" in report
    assert "| moons (rbf) | toy | raw | 1000 | 500:500 |" in report
    for group in groups:
        for case in robust[group]["cases"]:
            assert f"| {case}" in report
        for name, s in robust[group]["summary"].items():
            assert f"| {name} | {s['n_cases']} | {s['mean_error']:.2f} " in report
    assert "Robustness, two-class cases (7)" in result.stdout
    assert "Robustness, multiclass cases (2)" in result.stdout
    assert "Robustness, tf-idf text of a topic model (1)" in result.stdout
    assert "robustness.json" in result.stdout


def test_robustness_cases_are_many_small_and_labelled():
    two_class, multiclass = two_class_cases(), multiclass_cases()
    topics = topic_cases()
    names = [c.name for c in two_class + multiclass + topics]
    assert len(names) == len(set(names))
    assert len(two_class) >= 40 and len(multiclass) >= 10 and len(topics) == 22
    assert set(QUICK_TWO_CLASS) <= {c.name for c in two_class}
    assert set(QUICK_MULTICLASS) <= {c.name for c in multiclass}
    assert set(QUICK_TOPICS) <= {c.name for c in topics}
    assert {c.kind for c in topics} == {"text"}
    # Two topics and more, from the same corpora as the studies'.
    X, y = topics[0].load()
    assert np.bincount(y).tolist() == [300, 300] and X.shape[0] == 600
    assert max(np.unique(c.load()[1]).size for c in topics[:11]) == 8
    assert {c.kind for c in two_class} == KINDS
    assert {c.name for c in two_class if c.nonlinear} == {"moons", "circles"}
    for group, cases in (("two", two_class), ("multi", multiclass)):
        for case in cases:
            X, y = case.load()
            sizes = np.bincount(y)
            assert X.shape[0] == y.size <= 2200, case.name
            assert sizes.min() > 0, case.name
            assert (sizes.size == 2) == (group == "two"), case.name
            assert np.isfinite(X.data if hasattr(X, "data") else X).all()
            # Every case gives the same data twice (fixed seeds).
            X2, y2 = case.load()
            assert np.array_equal(y, y2) and (X != X2).sum() == 0, case.name
    cases = {c.name: c for c in two_class}
    X, y = cases["blobs 1:9 raw"].load()
    assert np.bincount(y).tolist() == [1000, 111]
    X_shift, _ = cases["blobs +10 1:9 raw"].load()
    np.testing.assert_allclose(X_shift, X + 10)
    X, _ = cases["wine 0v1 std"].load()
    np.testing.assert_allclose(X.mean(axis=0), 0, atol=1e-12)
    X, _ = cases["wine 0v1 minmax"].load()
    assert X.min() == 0 and X.max() == 1
    X, y = cases["breast_cancer raw"].load()
    assert np.bincount(y).tolist() == [212, 357]


def test_study_groups_hold_the_suite_the_pairs_and_generated_tabular_cases():
    counts = {}
    for group, name, X, y, kernel in two_class_study_cases():
        counts[group] = counts.get(group, 0) + 1
        assert X.shape[0] == y.size and set(np.unique(y)) == {0, 1}, name
        assert kernel == ("rbf" if name in ("moons", "circles") else "linear")
    assert counts == {"suite": len(two_class_cases()), "pairs": 45, "generated": 128}
    assert tuple(counts) == STUDY_GROUPS
    generated = list(generated_cases())
    X, y = generated[1][1], generated[1][2]
    np.testing.assert_allclose(X.mean(axis=0), 0, atol=1e-12)
    assert generated[0][1].min() == 0 and generated[0][1].max() == 1
    # Fixed seeds: the same data twice; class weights as named.
    again = list(generated_cases())
    assert all(np.array_equal(a[1], b[1]) for a, b in zip(generated, again))
    name, _, y = generated[-1]
    assert "w0.92" in name and abs(np.mean(y == 0) - 0.92) < 0.01


class _Labelled:
    """An estimator whose fit gives the labels it was made with."""

    def __init__(self, labels, objective):
        self.labels, self.objective = labels, objective

    def fit(self, X):
        self.labels_, self.objective_ = np.asarray(self.labels), self.objective
        return self


def test_thread_study_times_variants_and_restores_what_it_patched():
    import types

    from mmc.bench._thread_study import measure_variants, patched, table_row

    first, second = (types.SimpleNamespace(rule="shipped") for _ in range(2))
    with patched([first, second], "rule", "variant"):
        assert first.rule == second.rule == "variant"
    assert first.rule == second.rule == "shipped"
    X = np.random.default_rng(0).normal(size=(40, 3))
    labels = np.arange(40) % 2
    seen = []

    def variant(name):
        return lambda: patched([first], "rule", name)

    def make(name):
        seen.append((name, first.rule))
        return _Labelled(labels, 1.5)

    variants = {"a": variant("a"), "b": variant("b")}
    medians, fitted = measure_variants(make, X, 2, variants, rounds=2)
    assert seen == [("a", "a"), ("b", "b")] * 2 and first.rule == "shipped"
    assert set(medians) == {"KMeans", "a", "b"} and min(medians.values()) > 0
    np.testing.assert_array_equal(fitted.labels_, labels)
    line, ratios = table_row("case", 1234, medians, variants)
    assert line.startswith(f"| case | 1,234 | {medians['KMeans']:.4f} | ")
    assert ratios["b"] == medians["b"] / medians["KMeans"]
    # A rule that changes the labels or the objective is caught.
    with pytest.raises(AssertionError, match="labels changed"):
        measure_variants(
            lambda name: _Labelled(labels if name == "a" else 1 - labels, 1.5),
            X,
            2,
            variants,
            rounds=1,
        )
    with pytest.raises(AssertionError, match="objective changed"):
        measure_variants(
            lambda name: _Labelled(labels, 1.5 if name == "a" else 1.25),
            X,
            2,
            variants,
            rounds=1,
        )


def test_robustness_summary_counts_against_kmeans():
    def case(**errors):
        return {
            "scores": {
                name: {
                    "error": e,
                    "nmi": 0.5,
                    "time": 2.0 if name == "A" else 1.0,
                    "time_over_kmeans": 2.0 if name == "A" else 1.0,
                    "convergence_warning": name == "A" and e > 10,
                }
                for name, e in errors.items()
            }
        }

    cases = {
        "a": case(KMeans=5.0, A=5.9),  # within the margin
        "b": case(KMeans=5.0, A=20.0),  # worse, with a warning
        "c": case(KMeans=5.0, A=3.0),  # better
        "d": case(KMeans=5.0),  # A did not run
    }
    summary = summarise(cases, ["A", "KMeans", "B"])
    assert list(summary) == ["A", "KMeans"]  # B ran nowhere
    a = summary["A"]
    assert a["n_cases"] == 3
    assert a["mean_error"] == pytest.approx((5.9 + 20 + 3) / 3)
    assert a["median_error"] == pytest.approx(5.9)
    assert (a["n_worse_than_kmeans"], a["n_better_than_kmeans"]) == (1, 1)
    assert (a["worst_case"], a["worst_error"]) == ("b", 20.0)
    assert a["median_time_over_kmeans"] == 2.0
    assert a["n_convergence_warnings"] == 1
    assert summary["KMeans"]["n_cases"] == 4
    assert MARGIN == 1.0


def test_multiclass_quick_run_writes_report_figure_and_timings(tmp_path):
    # KMeans alone keeps the run short; the suite's own records are checked
    # with an mmc estimator in the next test.
    out = tmp_path / "multi"
    result = _run_bench(
        "multiclass",
        "--quick",
        "--estimators",
        "KMeans",
        "--out",
        str(out),
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in out.iterdir()) == [
        "multiclass_scaling.png",
        "report.md",
        "results.json",
    ]
    results = json.loads((out / "results.json").read_text())
    assert "robustness" not in results and "comparison" not in results
    accuracy = results["multiclass"]["accuracy"]
    assert "two_class" not in accuracy
    assert sorted(accuracy["multiclass"]["cases"]) == sorted(QUICK_MULTICLASS)
    scaling = results["multiclass"]["scaling"]
    for kind in ("dense", "sparse"):
        record = scaling["sizes"][kind]["KMeans"]
        assert record["sizes"] and len(record["times"]) == len(record["sizes"])
        record = scaling["clusters"][kind]["KMeans"]
        assert record["n_clusters"][0] == 2
    report = (out / "report.md").read_text()
    assert "## Multiclass clustering" in report and "## Robustness" not in report
    assert "#### Against k, n = 2,000, sparse" in report
    assert (out / "multiclass_scaling.png").read_bytes()[:4] == b"\x89PNG"
    assert "Log-log slope of fit time against k, dense: KMeans" in result.stdout


def test_multiclass_timings_follow_n_and_k_with_ratios_to_kmeans():
    from mmc.bench import _multiclass as multiclass
    from mmc.bench._registry import select

    entries = multiclass.multiclass_entries(select(["CPM3C", "CPMMC", "KMeans"]))
    # Two-cluster-only estimators are not multiclass.
    assert list(entries) == ["CPM3C", "KMeans"]
    result = multiclass.cluster_scaling(
        entries, quick=True, sizes=(300, 600), clusters=(2, 3), kinds=("dense",)
    )
    for name in entries:
        by_n = result["sizes"]["dense"][name]
        assert by_n["sizes"] == [300, 600] and all(t > 0 for t in by_n["times"])
        assert by_n["slope"] is not None
        by_k = result["clusters"]["dense"][name]
        assert by_k["n_clusters"] == [2, 3] and len(by_k["errors"]) == 2
    # Each fit saw the k of its data: blobs this far apart are found.
    assert max(result["clusters"]["dense"]["CPM3C"]["errors"]) < 5
    table = multiclass.timing_markdown(result)
    cpm3c = result["sizes"]["dense"]["CPM3C"]["times"][0]
    kmeans = result["sizes"]["dense"]["KMeans"]["times"][0]
    assert f"{cpm3c:.2f} ({cpm3c / kmeans:.1f}x)" in table


def test_digit_pair_errors_are_the_defaults_errors_on_each_pair():
    errors = digit_pair_errors("CPM3C", pairs=[(3, 8), (1, 7)])
    assert list(errors) == ["3v8", "1v7"]
    for pair, (a, b) in (("3v8", (3, 8)), ("1v7", (1, 7))):
        X, y = digits((a, b))
        labels = mmc.CPM3C(n_clusters=2, random_state=0).fit(X).labels_
        assert errors[pair] == 100.0 * clustering_error(y, labels)


def test_moved_lines_name_the_cases_and_pairs_that_moved():
    from mmc.bench._robustness import moved_lines

    def suite(error_a, error_b):
        scores = {
            "a": {"CPMMC": {"error": error_a}, "KMeans": {"error": 3.0}},
            "b": {"CPMMC": {"error": error_b}, "KMeans": {"error": 4.0}},
            "c": {"KMeans": {"error": 1.0}},  # CPMMC did not run here
        }
        return {
            "two_class": {"cases": {k: {"scores": scores[k]} for k in ("a", "c")}},
            "multiclass": {"cases": {"b": {"scores": scores["b"]}}},
        }

    lines = moved_lines(
        "CPMMC",
        suite(2.0, 5.0),
        suite(2.04, 7.5),
        {"1v2": 1.0, "3v8": 2.0},
        {"1v2": 1.0, "3v8": 0.5},
    )
    assert lines == ["b: 5.00 -> 7.50 (4.00)", "digits 3v8: 2.00 -> 0.50"]


def test_summary_cells_of_a_study_row():
    from mmc.bench._robustness import summary_cells

    summary = {"mean_error": 3.456, "n_worse_than_kmeans": 2}
    suite = {
        "two_class": {"summary": {"CPMMC": summary, "CPM3C": summary}},
        "multiclass": {
            "summary": {"CPM3C": {"mean_error": 4.0, "n_worse_than_kmeans": 0}}
        },
    }
    assert summary_cells("CPMMC", suite) == "3.46 | 2 | - | - | "
    assert summary_cells("CPM3C", suite) == "3.46 | 2 | 4.00 | 0 | "


def test_study_row_adds_the_estimator_the_variant_and_the_pairs_mean():
    from mmc.bench._robustness import study_row

    summary = {"mean_error": 3.456, "n_worse_than_kmeans": 2}
    suite = {
        "two_class": {"summary": {"CPMMC": summary}},
        "multiclass": {"summary": {}},
    }
    row = study_row("CPMMC", "0.03", suite, {"1v2": 1.0, "3v8": 2.5})
    assert row == "| CPMMC | 0.03 | 3.46 | 2 | - | - | 1.75 |"


def test_quick_series_time_two_sizes_whatever_the_budget():
    # A budget every fit exceeds: a full run stops after the first size, a
    # quick run times two (its slope must not depend on the machine's load).
    from sklearn.cluster import KMeans
    from sklearn.datasets import make_blobs

    from mmc.bench._timing import QUICK_MIN_SIZES, time_growing_sizes

    def load(n):
        return make_blobs(n, centers=2, random_state=0)

    def make():
        return KMeans(2, n_init=1, random_state=0)

    sizes = (40, 80, 160)
    full = time_growing_sizes(make, load, sizes, 1, budget=0.0)
    quick = time_growing_sizes(make, load, sizes, 1, budget=0.0, quick=True)
    assert full["sizes"] == [40] and full["slope"] is None
    assert quick["sizes"] == list(sizes[:QUICK_MIN_SIZES]) == [40, 80]
    assert quick["slope"] is not None
    assert quick["stopped"] == full["stopped"] == "time budget (0 s)"
    generous = time_growing_sizes(make, load, sizes, 1, budget=1e9, quick=True)
    assert generous["sizes"] == list(sizes)


def test_case_line_rounds_the_floats_of_a_row():
    row = {"group": "a", "case": "c", "n": 3, "kmeans": 12.3456, "x": 0.004}
    assert case_line("a", "c", row) == "a c {'kmeans': 12.35, 'x': 0.0}"


def test_group_table_gives_each_group_and_all_their_means_and_worse_counts():
    rows = [
        {"group": "a", "kmeans": 10.0, "x": 12.0, "y": 11.0},
        {"group": "a", "kmeans": 20.0, "x": 20.0, "y": 21.5},
        {"group": "b", "kmeans": 5.0, "x": 9.0, "y": 6.0},
    ]
    lines = group_table(rows, ["x", "y"], ["X rule", "Y rule"])
    assert lines == [
        "| group (cases) | KMeans | X rule | Y rule |",
        "|---|---|---|---|",
        # worse: more than MARGIN (1 point) above KMeans, 1.0 is not
        "| a (2) | 15.00 | 16.00 (1) | 16.25 (1) |",
        "| b (1) | 5.00 | 9.00 (1) | 6.00 (0) |",
        "| all (3) | 11.67 | 13.67 (2) | 12.83 (1) |",
    ]
    assert group_table(rows, ["x"])[0] == "| group (cases) | KMeans | x |"
