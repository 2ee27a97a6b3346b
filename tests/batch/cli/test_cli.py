"""The command line as a user meets it: help, version, progress and the summary, in real processes."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

import pytest
from conftest import SAMPLES, cli

from cardbatch import __version__
from cardbatch.batch.cli import build_parser


def test_version():
    res = cli("--version")
    assert res.returncode == 0 and res.stdout.strip() == f"cardbatch {__version__}"


def test_help_loads_neither_numba_nor_pyarrow():
    """What keeps --help instant: the parser is built from light modules only."""
    code = (
        "import sys; from cardbatch.batch.cli import build_parser; build_parser().format_help(); "
        "print(sorted(m for m in ('numba', 'pyarrow', 'numpy', 'cardbatch.kernels') if m in sys.modules))"
    )
    # a real process: what --help loads is seen only in a process that loaded nothing else
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert res.stdout.strip() == "[]"


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


@pytest.mark.parametrize("command", ["settle", "audit", "generate", "rank-decks", "simulate"])
def test_every_option_has_help_and_every_epilog_the_exit_codes(command):
    sub = _subparsers(build_parser())[command]
    for action in sub._actions:
        assert action.help, f"{command} {action.option_strings or action.dest} has no help text"
    text = sub.format_help()
    for code in ("0 ", "1 ", "2 ", "3 ", "130"):
        assert f"\n  {code}" in text
    assert "-q, --quiet" in text and "-v, --verbose" in text
    if command in ("settle", "audit"):
        assert "(default: standard)" in text and "(default: 65536)" in text


def test_settle_tells_people_on_stderr_and_programs_on_stdout(tmp_path):
    out = tmp_path / "out"
    res = cli("settle", *SAMPLES, "--out", str(out))
    assert res.returncode == 0, res.stderr
    summary = json.loads(res.stdout)
    lines = res.stderr.strip().splitlines()
    assert lines[-1].startswith(f"cardbatch settle: {summary['rows_read']:,} rows: {summary['rows_settled']:,} settled")
    assert f"{summary['mismatches']:,} mismatches" in lines[-1] and str(out) in lines[-1]
    assert any(
        f"{summary['rows_read']:,}/{summary['rows_read']:,} rows (100 %)" in line for line in lines[:-1]
    )  # a pipe: log lines
    assert summary["cardbatch_version"] == __version__
    assert summary["options"]["policy"] == "standard" and summary["options"]["batch_rows"] == 65536
    assert [i["path"] for i in summary["inputs"]] == SAMPLES
    assert sum(i["rows"] for i in summary["inputs"]) == summary["rows_read"]
    by_game = summary["by_game"]
    assert set(by_game) == {"holdem", "zjh", "team2v2"}
    for key in ("rows_read", "rows_settled", "rows_rejected"):
        assert sum(g[key] for g in by_game.values()) == summary[key]
    assert summary["workers"] == min(summary["parts"], summary["workers"]) >= 1
    assert json.loads((out / "summary.json").read_text())["by_game"] == by_game


def test_quiet_says_nothing_and_verbose_a_line_per_part(tmp_path):
    res = cli("settle", *SAMPLES, "--out", str(tmp_path / "q"), "-q")
    assert res.returncode == 0 and res.stdout == "" and res.stderr == ""
    res = cli("settle", *SAMPLES, "--out", str(tmp_path / "v"), "-v", "--workers", "1")
    progress = [line for line in res.stderr.splitlines() if " rows (" in line and " rows/s" in line]
    assert len(progress) == len(SAMPLES)


def test_a_rake_under_a_per_street_policy_is_refused(tmp_path):
    """Rake exists for the standard policy only: asked for with another policy it is refused (exit 2),
    not ignored (it once settled without the rake and said nothing)."""
    res = cli("settle", SAMPLES[0], "--policy", "presence", "--rake-pct", "0.05", "--out", str(tmp_path / "o"))
    assert res.returncode == 2
    assert "rake is defined for the standard policy only" in res.stderr and res.stdout == ""


def test_paths_and_values_a_user_gives_wrong_are_exit_2(tmp_path):
    """Found by a trial: each was exit 1 ("internal error") or a garbled rename message."""
    (tmp_path / "afile").write_text("")
    for args in (
        ["generate", "--hands", "10", "--out", str(tmp_path)],
        ["rank-decks", "--decks", "10", "--out", str(tmp_path / "afile" / "x.parquet")],
        [
            "simulate",
            "--game",
            "zjh",
            "--players",
            "10",
            "--rounds",
            "1",
            "--tables-per-round",
            "2",
            "--out",
            str(tmp_path / "afile"),
        ],
        ["rank-decks", str(tmp_path), "--out", str(tmp_path / "r.parquet")],
        ["generate", "--seed", str(2**64), "--hands", "10", "--out", str(tmp_path / "g.parquet")],
        ["generate", "--hands", "0", "--out", str(tmp_path / "g0.parquet")],
    ):
        done = cli(*args, "-q")
        assert done.returncode == 2, (args, done.stderr)
        assert "internal error" not in done.stderr
