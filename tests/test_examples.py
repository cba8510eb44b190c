"""The gallery examples run as plain scripts, without Sphinx.

The examples live in ``examples/`` at the root of the repository, outside the
installed package; these tests find them relative to this file and skip when
the directory is absent (for example when the tests run from an sdist
without it).
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
SCRIPTS = sorted(EXAMPLES.glob("plot_*.py")) if EXAMPLES.is_dir() else []


def test_examples_directory_has_examples():
    if not EXAMPLES.is_dir():
        pytest.skip(f"{EXAMPLES} not found")
    assert SCRIPTS, f"no plot_*.py in {EXAMPLES}"


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda path: path.name)
def test_example_runs_as_a_script(script, tmp_path):
    env = {**os.environ, "MPLBACKEND": "Agg"}
    # Run from a scratch directory with -I, so that the installed mmc is
    # imported (never the ./mmc sources) and nothing is written to the
    # repository; the example finds any repository file from its own path.
    result = subprocess.run(
        [sys.executable, "-I", str(script)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda path: path.name)
def test_each_figure_is_drawn_within_one_cell(script):
    # sphinx-gallery saves and closes the open figures at the end of every
    # cell (a "# %%" block): a figure created in one cell and drawn in the
    # next would appear unfinished in the documentation.
    cell_of_figure = None
    for number, line in enumerate(script.read_text().splitlines(), 1):
        if line.startswith("# %%"):
            assert cell_of_figure is None, (
                f"{script.name}:{number}: new cell while the figure created at "
                f"line {cell_of_figure} is not shown yet"
            )
        elif "plt.subplots(" in line or "plt.figure(" in line:
            cell_of_figure = number
        elif "plt.show()" in line:
            cell_of_figure = None
