"""The docs' benchmark table (docs/performance.md) is written from a run's summary file, not by hand."""

from __future__ import annotations

import pytest
from readme_table import BEGIN, END, replace_table, table

ONE = {"ours": True, "unit": "tables", "threads": 1, "cores_used": 1.0, "rounds": 15}
SUMMARY = {
    "meta": {
        "created": "2026-12-01 06:00",
        "machine": "x86_64, 2 CPUs",
        "load_average_at_start": [0.5, 0.8, 0.9],
        "load_average_at_end": [1.5, 1.1, 1.0],
    },
    "groups": {
        "settle standard, 9 seats": [
            {**ONE, "name": "cardbatch settle (1 thread)", "rate": 2.0e7},
            {**ONE, "name": "plain Python layered settlement (1 thread)", "rate": 4.0e4, "ours": False},
        ]
    },
    "scaling": {
        "pots.settle": [
            {**ONE, "name": "cardbatch settle (1 thread)", "rate": 2.0e7},
            {**ONE, "name": "cardbatch settle (2 thread)", "rate": 3.8e7, "threads": 2, "cores_used": 1.9},
        ]
    },
}


def test_one_row_per_measurement_with_its_ratio_to_ours():
    lines = table(SUMMARY).splitlines()
    assert "2026-12-01 06:00" in lines[0] and "load average 0.5 at the start, 1.5 at the end" in lines[0]
    rows = [line for line in lines if line.startswith("| settle")]
    assert len(rows) == 2
    assert "20.0 M tables/s" in rows[0] and "reference" in rows[0] and "| 1 | 1.00 | 15 |" in rows[0]
    assert "40,000 tables/s" in rows[1] and "500×" in rows[1]


def test_scaling_one_row_per_kernel_with_its_speed_up():
    rows = [line for line in table(SUMMARY).splitlines() if line.startswith("| pots.settle")]
    assert rows == ["| pots.settle | 20.0 M tables/s | 38.0 M tables/s | 1.90× | 1.00 / 1.90 |"]


def test_only_the_marked_section_changes():
    readme = f"# title\n\nprose\n{BEGIN}\nold table\n{END}\nmore prose\n"
    new = replace_table(readme, "NEW")
    assert new == f"# title\n\nprose\n{BEGIN}\nNEW\n{END}\nmore prose\n"
    with pytest.raises(ValueError, match="no"):
        replace_table("no markers here", "NEW")
