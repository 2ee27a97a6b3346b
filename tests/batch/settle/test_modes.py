"""What a run does with its output folder: --mode resume | overwrite | error, the _SUCCESS marker,
and a user's files, which no mode touches."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
from conftest import DATA, cli

SAMPLE = str(DATA / "zjh_sample.parquet")
FOREIGN = ("results/game=zjh/my_extra.parquet", "results/old_stuff/a.csv", "errors/keep.txt", "notes.md")


def _ours(out: Path) -> dict[str, bytes]:
    """Every result and error part, by name: what a mode may keep or replace."""
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.glob("*/game=*/part-*.parquet"))}


def _put_foreign(out: Path) -> dict[str, bytes]:
    files = {}
    for i, rel in enumerate(FOREIGN):
        path = out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(f"the user's own file {i}\n".encode())
        files[rel] = path.read_bytes()
    return files


def _foreign_intact(out: Path, files: dict[str, bytes]) -> None:
    for rel, content in files.items():
        assert (out / rel).read_bytes() == content, f"{rel} was changed"


def test_each_mode_with_a_folder_that_holds_output_and_foreign_files(tmp_path):
    out = tmp_path / "out"
    first = cli("settle", SAMPLE, "--out", str(out), "--workers", "1")
    assert first.returncode == 0, first.stderr
    assert (out / "_SUCCESS").exists()
    parts = _ours(out)
    assert parts
    foreign = _put_foreign(out)

    refused = cli("settle", SAMPLE, "--out", str(out), "--mode", "error")
    assert refused.returncode == 2
    assert "already holds cardbatch output" in refused.stderr and refused.stdout == ""
    assert _ours(out) == parts and (out / "_SUCCESS").exists()  # refused: nothing of the run's changed
    _foreign_intact(out, foreign)

    resumed = cli("settle", SAMPLE, "--out", str(out), "--mode", "resume", "--workers", "1")
    assert resumed.returncode == 0, resumed.stderr
    summary = json.loads(resumed.stdout)
    assert summary["parts_reused"] == summary["parts"] == len({p.split("/")[-1] for p in parts})
    assert sorted(summary["not_ours"]) == sorted(str(out / rel) for rel in FOREIGN if rel != "notes.md")
    assert (
        "left alone 3 file(s) and link(s) cardbatch did not write" in resumed.stderr.splitlines()[-1]
    )  # the human line
    assert _ours(out) == parts
    _foreign_intact(out, foreign)

    overwritten = cli("settle", SAMPLE, "--out", str(out), "--mode", "overwrite", "--workers", "1")
    assert overwritten.returncode == 0, overwritten.stderr
    assert json.loads(overwritten.stdout)["parts_reused"] == 0
    assert _ours(out) == parts  # settled again, to the same bytes
    assert (out / "_SUCCESS").exists()
    _foreign_intact(out, foreign)


def test_mode_error_takes_a_new_folder_or_one_of_the_users_files(tmp_path):
    fresh = cli("settle", SAMPLE, "--out", str(tmp_path / "new"), "--mode", "error", "-q")
    assert fresh.returncode == 0, fresh.stderr
    users = tmp_path / "users"
    foreign = _put_foreign(users)
    res = cli("settle", SAMPLE, "--out", str(users), "--mode", "error", "-q")
    assert res.returncode == 0, res.stderr  # the user's files are not cardbatch output
    _foreign_intact(users, foreign)


def test_success_is_removed_first_and_written_last(tmp_path, monkeypatch):
    out = tmp_path / "out"
    assert cli("settle", SAMPLE, "--out", str(out), "-q").returncode == 0
    marker, summary = out / "_SUCCESS", out / "summary.json"
    assert marker.exists() and marker.stat().st_mtime_ns >= summary.stat().st_mtime_ns
    # a rerun that fails in its unit: the marker went first, so the folder says it is incomplete
    with monkeypatch.context() as m:
        m.setenv("CARDBATCH_FAIL_PART", "part-00000-00000")
        failed = cli("settle", SAMPLE, "--out", str(out), "--mode", "overwrite", "-q")
    assert failed.returncode == 1
    assert not marker.exists() and not summary.exists()
    assert cli("settle", SAMPLE, "--out", str(out), "-q").returncode == 0  # resumed: complete again
    assert marker.exists()
    assert pq.read_table(out / "results").num_rows > 0
