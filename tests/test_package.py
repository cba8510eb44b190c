"""Tests of the installed package as a whole."""

from importlib.metadata import version

import mmc


def test_version_matches_metadata():
    assert mmc.__version__ == version("mmc")


def test_compiled_core_is_installed():
    # Fails when the tests import the ./mmc source tree instead of the
    # installed package, which has the compiled extensions.
    from mmc._core import _common

    assert _common.column_sums_dense.__doc__


def test_public_names_exist():
    assert "__version__" in mmc.__all__
    for name in mmc.__all__:
        assert hasattr(mmc, name), name

