"""Tests of the installed package as a whole."""

import doctest
import re
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

import mmc
import mmc._cpm3c
import mmc._cpmmc
import mmc._multivariate
import mmc.datasets
import mmc.kernels

REPO = Path(__file__).resolve().parent.parent
README = REPO / "README.md"


def test_version_matches_metadata():
    assert mmc.__version__ == version("mmc")


def test_version_is_defined_once_in_meson_build():
    # meson.build's project(version:) is the only definition: pyproject.toml
    # declares the version dynamic and mmc.__version__ reads the metadata.
    meson = REPO / "meson.build"
    pyproject = REPO / "pyproject.toml"
    if not (meson.is_file() and pyproject.is_file()):
        pytest.skip("not run from a source checkout")
    match = re.search(r"project\((.*?)\n\)", meson.read_text(), flags=re.S)
    assert match, "meson.build has no project() call"
    declared = re.search(r"version:\s*'([^']+)'", match.group(1))
    assert declared, "project() in meson.build sets no version"
    assert declared.group(1) == mmc.__version__
    tomllib = pytest.importorskip("tomllib")  # Python >= 3.11
    project = tomllib.loads(pyproject.read_text())["project"]
    assert "version" not in project
    assert "version" in project["dynamic"]


def test_compiled_core_is_installed():
    # Fails when the tests import the ./mmc source tree instead of the
    # installed package, which has the compiled extensions.
    from mmc._core import _common

    assert _common.column_sums.__doc__


# STYLE.md: small modules of one concern, none over 600 lines.
MAX_MODULE_LINES = 600


def test_no_module_is_over_600_lines():
    source = REPO / "mmc"
    if not (REPO / "meson.build").is_file():
        pytest.skip("not run from a source checkout")
    modules = [*source.rglob("*.py"), *source.rglob("*.pyx")]
    assert len(modules) > 50
    too_long = {
        str(path.relative_to(REPO)): n_lines
        for path in modules
        if (n_lines := len(path.read_text().splitlines())) > MAX_MODULE_LINES
    }
    assert not too_long, f"modules over {MAX_MODULE_LINES} lines: {too_long}"


def test_public_names_exist():
    assert {"CPMMC", "MultivariateMMC", "__version__", "metrics"} <= set(mmc.__all__)
    for name in mmc.__all__:
        assert hasattr(mmc, name), name


def test_modules_dask_workers_import_leave_out_scikit_learn(tmp_path):
    """A Dask worker imports the module of each function it is sent to run:
    those modules (mmc._dask*, and mmc._cpm3c_dual for its sums of squared
    norms) must not import scikit-learn, scipy.stats or scipy.optimize,
    58 MB more in every worker process (bench/dask/worker_imports.md)."""
    package = Path(mmc.__file__).parent
    modules = [f"mmc.{path.stem}" for path in sorted(package.glob("_dask*.py"))]
    modules.append("mmc._cpm3c_dual")
    heavy = ("sklearn", "scipy.stats", "scipy.optimize")
    code = "".join(f"import {name}\n" for name in modules) + (
        f"import sys; print([m for m in {heavy!r} if m in sys.modules])"
    )
    # In a fresh interpreter, away from the source tree.
    result = subprocess.run(
        [sys.executable, "-I", "-c", code],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    assert len(modules) >= 7
    assert result.stdout.strip() == "[]"


@pytest.mark.parametrize(
    "module",
    [
        mmc.metrics,
        mmc._cpmmc,
        mmc._multivariate,
        mmc._cpm3c,
        mmc.datasets,
        mmc.kernels,
    ],
    ids=lambda m: m.__name__,
)
def test_docstring_examples(module):
    result = doctest.testmod(module)
    assert result.attempted > 0
    assert result.failed == 0


def test_readme_usage_example_runs():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    assert blocks, "README.md has no python example"
    for block in blocks:
        exec(compile(block, str(README), "exec"), {})


def test_readme_gives_the_two_quick_start_commands():
    text = README.read_text()
    assert 'pip install ".[bench]" && python -I -m mmc.bench --quick' in text
    assert 'pip install ".[test]" && pytest' in text
