"""tools/refresh_measurements.py: which row and which cell a measurement
of the user guide follows when a record under bench/ is measured again."""

import importlib.util
from pathlib import Path

TOOL = Path(__file__).resolve().parents[1] / "tools" / "refresh_measurements.py"


def _tool():
    spec = importlib.util.spec_from_file_location("refresh_measurements", TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


OLD = """# Papers

| table | estimator | data | published | default |
|---|---|---|---|---|
| 5 | CPMMC | 3v8 | 3.08 | 3.36 |
| 5 | CPMMC | mean45 | 0.62 | 2.21 |
"""

NEW = OLD.replace("| 0.62 | 2.21 |", "| 0.62 | 2.34 |")


def test_the_row_sharing_the_most_leading_cells_is_followed():
    # Both rows start with the table's number: the label alone would take
    # the 3v8 row.
    tool = _tool()
    old_line, new_line = tool._find(OLD, NEW, "| 5 | CPMMC | mean45 | 0.62 | 2.21 |")
    assert new_line == "| 5 | CPMMC | mean45 | 0.62 | 2.34 |"
    assert old_line == "| 5 | CPMMC | mean45 | 0.62 | 2.21 |"


def test_rows_that_tie_are_left_to_a_person():
    tool = _tool()
    new = NEW.replace("| 5 | CPMMC | 3v8 | 3.08 | 3.36 |", "| 5 | CPMMC | x | 1 | 2 |")
    new = new.replace("mean45", "y")
    assert tool._find(OLD, new, "| 5 | CPMMC | mean45 | 0.62 | 2.21 |") is None
    # Another heading is another table.
    assert tool._find(OLD, NEW.replace("# Papers", "# Other"), "| 2.21 |") is None


def test_the_value_cell_is_the_cell_that_is_the_value():
    tool = _tool()
    cells = ["KMeans", "24.90", "0.190", "4.9"]
    assert tool._value_cell(cells, "4.9") == 3
    assert tool._value_cell(["CPMMC", "0.22 (1.8x)", "0.35"], "0.22") == 1
