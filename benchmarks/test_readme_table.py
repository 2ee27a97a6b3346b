"""The docs' benchmark table (docs/performance.md) is written from a run's summary file, not by hand."""

from __future__ import annotations

import pytest
from readme_table import BEGIN, END, replace_table, table

SUMMARY = {
    "meta": {"created": "2026-12-01 06:00", "machine": "x86_64, 2 CPUs"},
    "groups": {
        "settle standard, 9 seats": [
            {"name": "cardbatch settle (2 threads)", "rate": 2.0e7, "ours": True, "unit": "tables", "threads": 2},
            {"name": "plain Python layered settlement", "rate": 4.0e4, "ours": False, "unit": "tables", "threads": 2},
        ]
    },
}


def test_one_row_per_measurement_with_its_ratio_to_ours():
    lines = table(SUMMARY).splitlines()
    assert "2026-12-01 06:00" in lines[0]
    rows = [line for line in lines if line.startswith("| settle")]
    assert len(rows) == 2
    assert "20.0 M tables/s" in rows[0] and "reference" in rows[0]
    assert "40,000 tables/s" in rows[1] and "500×" in rows[1]


def test_only_the_marked_section_changes():
    readme = f"# title\n\nprose\n{BEGIN}\nold table\n{END}\nmore prose\n"
    new = replace_table(readme, "NEW")
    assert new == f"# title\n\nprose\n{BEGIN}\nNEW\n{END}\nmore prose\n"
    with pytest.raises(ValueError, match="no"):
        replace_table("no markers here", "NEW")
