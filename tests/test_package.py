"""Tests of the installed package as a whole."""

import doctest
from importlib.metadata import version

import pytest

import mmc


def test_version_matches_metadata():
    assert mmc.__version__ == version("mmc")


def test_compiled_core_is_installed():
    # Fails when the tests import the ./mmc source tree instead of the
    # installed package, which has the compiled extensions.
    from mmc._core import _common

    assert _common.column_sums_dense.__doc__


def test_public_names_exist():
    assert {"__version__", "metrics"} <= set(mmc.__all__)
    for name in mmc.__all__:
        assert hasattr(mmc, name), name


@pytest.mark.parametrize("module", [mmc.metrics], ids=lambda m: m.__name__)
def test_docstring_examples(module):
    result = doctest.testmod(module)
    assert result.attempted > 0
    assert result.failed == 0
