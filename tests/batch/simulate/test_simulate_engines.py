"""``cardbatch simulate`` on every engine: a comparison's files are the same bytes on one process,
two local workers and a Dask cluster (and a single room's --write-hands file on a cluster's
worker); a run stopped by SIGKILL or SIGTERM leaves no output and its rerun reuses the rooms it
finished; s3:// for the folder and --write-hands. One small comparison (two rooms x two
replicates: four units) serves every test."""

from __future__ import annotations

import dataclasses
import json
import signal
import sys
from pathlib import Path

import pytest
from conftest import S3_BUCKET, cli
from processes import staged_parts, stop_once_parts_appear
from pyarrow import fs

from cardbatch.batch.io.jobs import RunOptions
from cardbatch.batch.simulate import job as simulate_job
from cardbatch.batch.simulate.room import Room

ROOM = ["--game", "zjh", "--players", "4000", "--rounds", "60", "--tables-per-round", "1000", "--rake-pct", "0.05"]
COMPARE = ["simulate", *ROOM, "--sweep", "rebuy=true,false", "--replicates", "2"]
FILES = ("rounds.parquet", "players.parquet", "comparison.png")
SINGLE = ["simulate", "--game", "zjh", "--players", "300", "--rounds", "4", "--tables-per-round", "40"]


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> dict[str, bytes]:
    """The comparison's files from one process, byte for byte."""
    out = tmp_path_factory.mktemp("ref") / "cmp"
    res = cli(*COMPARE, "--out", str(out), "--workers", "1", "-q")
    assert res.returncode == 0, res.stderr
    return {name: (out / name).read_bytes() for name in FILES if (out / name).exists()}


def _same(out: Path, reference: dict[str, bytes]) -> dict:
    for name, data in reference.items():
        assert (out / name).read_bytes() == data, name
    assert not [p.name for p in out.parent.iterdir() if p.name.startswith(".")], "staging left behind"
    return json.loads((out / "summary.json").read_text())


@pytest.mark.slow  # two spawned workers
def test_two_local_workers_write_the_same_bytes(reference, tmp_path):
    out = tmp_path / "cmp"
    res = cli(*COMPARE, "--out", str(out), "--workers", "2", "-q")
    assert res.returncode == 0, res.stderr
    summary = _same(out, reference)
    assert (summary["engine"], summary["workers"], summary["parts_reused"]) == ("local", 2, 0)


@pytest.mark.slow  # a Dask LocalCluster
def test_a_dask_cluster_writes_the_same_bytes(reference, tmp_path, dask_scheduler):
    out = tmp_path / "cmp"
    res = cli(*COMPARE, "--out", str(out), "--engine", "dask", "--scheduler", dask_scheduler, "-q")
    assert res.returncode == 0, res.stderr
    assert _same(out, reference)["workers"] == 2
    # a single room is one unit: on the cluster, it writes its hands there too
    here, there = tmp_path / "here", tmp_path / "there"
    for where, engine in ((here, []), (there, ["--engine", "dask", "--scheduler", dask_scheduler])):
        res = cli(*SINGLE, "--out", str(where), "--write-hands", str(where) + ".parquet", *engine, "-q")
        assert res.returncode == 0, res.stderr
    assert (tmp_path / "here.parquet").read_bytes() == (tmp_path / "there.parquet").read_bytes()
    assert (here / "rounds.parquet").read_bytes() == (there / "rounds.parquet").read_bytes()


PART = "part-*.rounds.arrow"  # a finished unit's part


@pytest.mark.slow  # a real process stopped mid-run, then a rerun
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_a_stopped_comparison_writes_nothing_and_its_rerun_reuses_the_rooms(reference, tmp_path, sig):
    out = tmp_path / "cmp"
    cmd = [sys.executable, "-m", "cardbatch", *COMPARE, "--out", str(out), "--workers", "1", "-q"]
    # a real process: what is tested is a signal (SIGKILL runs no handler) while it writes parts
    code, err, living = stop_once_parts_appear(cmd, out, sig, PART)
    assert not living, "a worker outlived its parent"
    assert code == (-9 if sig == signal.SIGKILL else 143), err
    assert not out.exists() or not list(out.iterdir())  # no table, figure or summary of half a run
    finished = len(staged_parts(out, PART))
    assert 1 <= finished < 4
    res = cli(*COMPARE, "--out", str(out), "--workers", "1")
    assert res.returncode == 0, res.stderr
    assert "finished rooms of an earlier run" in res.stderr
    assert _same(out, reference)["parts_reused"] >= finished


def test_a_rerun_plays_only_the_rooms_not_finished(tmp_path, monkeypatch):
    """In this process: a run stopped after its first room; the rerun plays the other three and
    writes what a run never stopped writes; a changed room is another plan, nothing reused."""
    rooms = [("a", Room(game="team2v2", players=200, rounds=3, tables_per_round=20, fee=5)), ("b", None)]
    rooms[1] = ("b", dataclasses.replace(rooms[0][1], fee=9))
    run = RunOptions(workers=1, quiet=True)
    monkeypatch.setattr(simulate_job, "_comparison_plot", lambda *a: "not drawn here")  # matplotlib's seconds
    whole = simulate_job.simulate_rooms(rooms, 2, str(tmp_path / "whole"), run=run)
    real, played, stop_at = simulate_job.play_unit, [], [2]

    def stopped(unit, bar=None):
        played.append(unit.index)
        if len(played) == stop_at[0]:  # Ctrl-C while the second room plays
            raise KeyboardInterrupt
        return real(unit, bar)

    monkeypatch.setattr(simulate_job, "play_unit", stopped)
    out = tmp_path / "cmp"
    with pytest.raises(KeyboardInterrupt):
        simulate_job.simulate_rooms(rooms, 2, str(out), run=run)
    assert not out.exists()
    played.clear()
    stop_at[0] = 0
    again = simulate_job.simulate_rooms(rooms, 2, str(out), run=run)
    assert played == [1, 2, 3] and again["parts_reused"] == 1 and whole["parts_reused"] == 0
    for name in ("rounds.parquet", "players.parquet"):
        assert (out / name).read_bytes() == (tmp_path / "whole" / name).read_bytes()
    assert not (tmp_path / ".cmp.parts").exists()
    played.clear()
    rooms[1] = ("b", dataclasses.replace(rooms[0][1], fee=10))
    assert simulate_job.simulate_rooms(rooms, 2, str(out), run=run)["parts_reused"] == 0 and len(played) == 4


@pytest.mark.slow  # a moto S3 server and a real process
def test_s3_folder_and_hands(s3_server, tmp_path):
    env, s3 = s3_server
    base = f"s3://{S3_BUCKET}/simulate"
    res = cli(*SINGLE, "--out", f"{base}/one", "--write-hands", f"{base}/hands.parquet", env=env)
    assert res.returncode == 0, res.stderr
    local = tmp_path / "one"
    assert cli(*SINGLE, "--out", str(local), "--write-hands", str(tmp_path / "hands.parquet"), "-q").returncode == 0

    def read(key: str) -> bytes:
        with s3.open_input_stream(f"{S3_BUCKET}/simulate/{key}") as f:
            return f.read()

    assert read("hands.parquet") == (tmp_path / "hands.parquet").read_bytes()
    for name in ("rounds.parquet", "players.parquet"):
        assert read(f"one/{name}") == (local / name).read_bytes()
    assert json.loads(read("one/summary.json"))["tables"] == json.loads(res.stdout)["tables"]
    listed = s3.get_file_info(fs.FileSelector(f"{S3_BUCKET}/simulate", recursive=True))
    assert not [i.path for i in listed if "/." in i.path], "staging or temporary objects left"


def test_the_help_names_the_small_run_the_job_keeps_in_process():
    from cardbatch.batch.cli import build_parser

    help_text = " ".join(build_parser()._subparsers._group_actions[0].choices["simulate"].format_help().split())
    assert f"a run of at most {simulate_job.SMALL_TABLES:,} tables" in help_text
