"""The numbers that the user guide quotes come from the benchmark files.

``docs/user_guide/measurements.csv`` holds every measured number of the
user guide (the pages use it through substitutions, see ``docs/conf.py``):
its value, the file under ``bench/`` it comes from and the line of that file
that holds it. A benchmark run that changes the number breaks this test
until the table is refreshed.
"""

import csv
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
TABLE = REPO / "docs" / "user_guide" / "measurements.csv"


def _rows():
    if not TABLE.is_file():
        return []
    with open(TABLE, newline="") as f:
        return list(csv.DictReader(f))


ROWS = _rows()


def test_table_exists_with_unique_keys():
    if not TABLE.is_file():
        pytest.skip(f"{TABLE} not found")
    keys = [row["key"] for row in ROWS]
    assert keys and len(keys) == len(set(keys))
    for row in ROWS:
        assert row["key"].isidentifier(), row["key"]


@pytest.mark.parametrize("row", ROWS, ids=lambda row: row["key"])
def test_value_appears_in_its_source(row):
    source = REPO / row["source"]
    assert row["source"].startswith("bench/"), row["source"]
    assert source.is_file(), row["source"]
    assert row["value"] in row["match"], row
    assert row["match"] in source.read_text(), (
        f"{row['key']}: {row['match']!r} is no longer in {row['source']}"
    )


def test_every_row_is_quoted():
    # (An undefined substitution is an error of the Sphinx build itself.)
    if not TABLE.is_file():
        pytest.skip(f"{TABLE} not found")
    text = "\n".join(p.read_text() for p in (REPO / "docs").rglob("*.rst"))
    unused = [row["key"] for row in ROWS if f"|{row['key']}|" not in text]
    assert not unused, f"rows quoted nowhere: {unused}"
