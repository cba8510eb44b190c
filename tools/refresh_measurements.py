"""Refresh docs/user_guide/measurements.csv after a benchmark run.

Each row quotes a line of a file under bench/. After the file is measured
again, the row's line is found anew -- the line of the same table row (same
label in the first cells) under the same heading -- and its value is read
from the same cell. Rows whose line cannot be found are reported and left
alone, for a person to update.

    python tools/refresh_measurements.py [REV]

REV is the revision holding the files the table was written against
(default HEAD); the working tree holds the new ones.
"""

import csv
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TABLE = REPO / "docs" / "user_guide" / "measurements.csv"
NUMBER = r"[-+0-9.e]+"


def _heading_of(lines, index):
    for line in reversed(lines[: index + 1]):
        if line.startswith("#"):
            return line
    return ""


def _cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _find(old_text, new_text, match):
    old_lines, new_lines = old_text.splitlines(), new_text.splitlines()
    where = [i for i, line in enumerate(old_lines) if match in line]
    if len(where) != 1:
        return None
    i = where[0]
    old_line, heading = old_lines[i], _heading_of(old_lines, i)
    if not old_line.lstrip().startswith("|"):
        return None
    # The same row is the one under the same heading that shares the most
    # leading cells with the old line (at least the first: its label); a
    # label alone can repeat (the papers' tables start with the table's
    # number), and a tie is left to a person.
    old_cells = _cells(old_line)
    best, shared_best, tied = None, 0, False
    for j, line in enumerate(new_lines):
        if not line.lstrip().startswith("|") or _heading_of(new_lines, j) != heading:
            continue
        shared = 0
        for old_cell, new_cell in zip(old_cells, _cells(line)):
            if old_cell != new_cell:
                break
            shared += 1
        if shared > shared_best:
            best, shared_best, tied = line, shared, False
        elif shared == shared_best and shared:
            tied = True
    if best is None or tied:
        return None
    return old_line, best


def _value_cell(cells, value):
    """Index of the cell holding ``value``: the cell that is the value, else
    the first whose numbers include it (a cell may carry a unit), never a
    cell that merely contains its digits ("4.9" in "24.90")."""
    exact = [k for k, c in enumerate(cells) if c == value]
    if exact:
        return exact[0]
    return next(k for k, c in enumerate(cells) if value in re.findall(NUMBER, c))


def refresh(rev="HEAD"):
    with open(TABLE, newline="") as f:
        rows = list(csv.DictReader(f))
        fields = list(rows[0].keys())
    unresolved = []
    for row in rows:
        source = REPO / row["source"]
        new_text = source.read_text()
        if row["match"] in new_text:
            continue
        old_text = subprocess.run(
            ["git", "show", f"{rev}:{row['source']}"],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        found = _find(old_text, new_text, row["match"])
        if found is None:
            unresolved.append(row["key"])
            continue
        old_line, new_line = found
        old_cells, new_cells = _cells(old_line), _cells(new_line)
        cell = _value_cell(old_cells, row["value"])
        row["value"] = re.search(NUMBER, new_cells[cell]).group(0)
        # The quoted part of the line: as many cells as before.
        n_quoted = len(_cells(row["match"]))
        row["match"] = "| " + " | ".join(new_cells[:n_quoted]) + " |"
    with open(TABLE, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=fields, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    return unresolved


if __name__ == "__main__":
    left = refresh(*sys.argv[1:])
    if left:
        print("not refreshed (update by hand):", ", ".join(left))
