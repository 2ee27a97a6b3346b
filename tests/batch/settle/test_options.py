"""The settle job's options (batch/settle/options.py): values beyond what the kernels hold are the
user's error (exit 2, naming the option), never an overflow inside the run."""

from __future__ import annotations

import pytest
from conftest import DATA, cli

SAMPLE = str(DATA / "holdem_sample.parquet")


@pytest.mark.parametrize(
    "option, value",
    [
        ("--rake-pct", "1e-400"),
        ("--rake-pct", "0.0000000000000000001"),
        ("--rake-cap", str(2**63)),
        ("--chip-unit", str(2**62)),
        ("--chip-unit", str(2**63 - 1)),
        ("--chip-unit", str(2**63)),
    ],
)
def test_options_beyond_what_the_kernels_hold_are_exit_2(tmp_path, option, value):
    """Found by a trial: these were exit 1 (an OverflowError, a ZeroDivisionError, or chips not
    conserved caught by the run's own check)."""
    extra = ["--rake-pct", "0.5"] if option == "--rake-cap" else []
    done = cli("settle", SAMPLE, "--out", str(tmp_path / "out"), option, value, *extra, "--workers", "1")
    assert done.returncode == 2, done.stderr
    assert option.strip("-").replace("-", "_") in done.stderr or option in done.stderr
