"""`rank-decks` on every engine: the file and the figure are the same bytes whatever the engine, the
workers and the units' size (both passes: the counts and the exact top K added up from the units;
--plot's tallies from either pass); a run stopped mid-way (SIGKILL, SIGTERM) leaves no file at
`--out` and its rerun reuses the parts it finished; DECKS and the output may be s3:// URIs.

Units are SLICE decks (a million): the tests make them a few thousand, in this process with
monkeypatch and in a real process with a script that sets it before the command runs."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import S3_BUCKET, cli
from processes import stopped_cleanly

from cardbatch.batch import rank_decks
from cardbatch.kernels import decks as kdecks

SMALL = 8_000  # decks a unit, in these tests
CASES = {
    # the counting pass: global ranks, the exact top 40, the figure's tallies
    "detail, top, plot": (
        "--decks", "30000", "--seed", "2", "--detail", "--top", "40", "--measure", "margin_classes", "--plot"
    ),
    # no counting pass: every row in order, the figure tallied by the writing pass
    "every deck, plot": ("--decks", "30000", "--seed", "4", "--plot"),
    # given decks, read by row groups (six of 5,000 rows)
    "given decks": ("DECKS", "--game", "holdem", "--seats", "4", "--detail", "--top", "25"),
}  # fmt: skip


def _args(case: str, decks: Path | str) -> list[str]:
    return [str(decks) if a == "DECKS" else a for a in CASES[case]]


@pytest.fixture(scope="module")
def given(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("decks") / "decks.parquet"
    d = kdecks.deal_decks(30_000, 3)
    table = pa.table({"deck": pa.FixedSizeListArray.from_arrays(pa.array(d.reshape(-1)), 52)})
    pq.write_table(table, path, row_group_size=5_000)
    return path


def _rank(folder: Path, case: str, given: Path | str, *how: str) -> tuple[bytes, bytes | None, dict]:
    """The case ranked into ``folder/r.parquet`` (one name for every run: the figure's title says it)."""
    folder.mkdir()
    out = folder / "r.parquet"
    res = cli("rank-decks", *_args(case, given), "--out", str(out), *how)
    assert res.returncode == 0, res.stderr
    png = folder / "r.png"
    return out.read_bytes(), png.read_bytes() if png.exists() else None, json.loads(res.stdout)


@pytest.fixture(scope="module")
def reference(tmp_path_factory, given) -> dict[str, tuple[bytes, bytes | None, dict]]:
    """Each case ranked in this process, in units of SMALL decks."""
    pytest.importorskip("matplotlib")
    base = tmp_path_factory.mktemp("reference")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(rank_decks, "SLICE", SMALL)
        return {case: _rank(base / str(i), case, given, "--workers", "1") for i, case in enumerate(CASES)}


def _same_as_reference(tmp_path, reference, given, *how: str) -> list[dict]:
    figures = []
    for i, case in enumerate(CASES):
        data, png, summary = _rank(tmp_path / str(i), case, given, *how)
        assert data == reference[case][0], case
        assert png == reference[case][1], case
        assert {k: summary[k] for k in ("decks", "rows_written")} == {
            k: reference[case][2][k] for k in ("decks", "rows_written")
        }
        assert not (tmp_path / str(i) / ".r.parquet.parts").exists()
        figures.append(summary)
    return figures


def _plain(t: pa.Table) -> pa.Table:
    """The table with its dictionary columns as their values (each part has its own dictionaries)."""
    return pa.table(
        {
            n: c.cast(c.type.value_type) if pa.types.is_dictionary(c.type) else c
            for n, c in zip(t.column_names, t.columns)
        }
    )


@pytest.mark.slow  # a few runs of a few units each, about two seconds
def test_units_of_any_size_write_the_same_rows_and_figure(tmp_path, reference, given):
    """One unit (the default size) against units of SMALL decks: the same rows, the same figure,
    and the same bytes for --top (written here, best first); every deck's rows keep their units' row
    groups (each unit's part is copied as it is)."""
    for i, case in enumerate(CASES):
        data, png, summary = _rank(tmp_path / str(i), case, given, "--workers", "1")
        got, expected = (
            pq.read_table(tmp_path / str(i) / "r.parquet"),
            pq.read_table(pa.BufferReader(reference[case][0])),
        )
        assert _plain(got).equals(_plain(expected)), case
        assert png == reference[case][1], case
        if "top" in case:
            assert data == reference[case][0], case
        assert summary["parts"] <= 2  # one unit counted and written


@pytest.mark.slow  # spawns two worker processes for each case
def test_two_local_workers_write_the_same_files(tmp_path, monkeypatch, reference, given):
    monkeypatch.setattr(rank_decks, "SLICE", SMALL)
    figures = _same_as_reference(tmp_path, reference, given, "--workers", "2")
    assert {(f["engine"], f["workers"]) for f in figures} == {("local", 2)}


@pytest.mark.slow  # a real Dask cluster
def test_a_dask_cluster_writes_the_same_files(tmp_path, monkeypatch, reference, given, dask_scheduler):
    monkeypatch.setattr(rank_decks, "SLICE", SMALL)
    figures = _same_as_reference(tmp_path, reference, given, "--engine", "dask", "--scheduler", dask_scheduler)
    assert {(f["engine"], f["workers"]) for f in figures} == {("dask", 2)}


def test_the_help_says_the_units_size():
    said = " ".join(cli("rank-decks", "--help").stdout.split())
    slice_, small = rank_decks.SLICE, rank_decks.SMALL_RUN
    assert f"each ranking {slice_:,} decks at a time" in said and f"a run of at most {small:,} decks" in said


def test_decks_that_are_not_decks_leave_no_staging_folder(tmp_path, monkeypatch):
    """A bad row in a later unit stops the run (exit 2, naming its row) and removes the parts: no
    rerun of the same decks could use them."""
    monkeypatch.setattr(rank_decks, "SLICE", 10)
    rows = [list(map(int, d)) for d in kdecks.deal_decks(40, 1)]
    rows[33] = rows[33][:51]
    src = tmp_path / "bad.parquet"
    pq.write_table(pa.table({"deck": rows}), src, row_group_size=10)
    res = cli("rank-decks", str(src), "--detail", "--out", str(tmp_path / "r.parquet"))
    assert res.returncode == 2 and "column 'deck', row 33: 51 cards" in res.stderr, res.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.parquet"]


# The command as users run it, its units SLICE_GIVEN decks (set before it runs).
_SCRIPT = """
import sys
from cardbatch.batch import rank_decks
from cardbatch.batch.cli import main

rank_decks.SLICE = int(sys.argv[1])
sys.exit(main(sys.argv[2:]))
"""
STOPPED = ("--decks", "300000", "--seed", "6", "--detail", "--top", "1000")
STOPPED_SLICE = 10_000  # 30 units, each counted then written


@pytest.mark.slow  # a real process and its workers, stopped mid-run
@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads /proc to find the workers")
@pytest.mark.parametrize("sig, status", [(signal.SIGKILL, -9), (signal.SIGTERM, 143)])
def test_a_stopped_run_leaves_no_file_and_its_rerun_reuses_its_parts(tmp_path, monkeypatch, sig, status):
    out = tmp_path / "stopped.parquet"
    staging = tmp_path / ".stopped.parquet.parts"
    cmd = [sys.executable, "-c", _SCRIPT, str(STOPPED_SLICE), "rank-decks", *STOPPED, "--out", str(out), "-q"]
    finished = stopped_cleanly([*cmd, "--workers", "2"], out, sig, status)
    monkeypatch.setattr(rank_decks, "SLICE", STOPPED_SLICE)  # the same plan: the same units
    again = cli("rank-decks", *STOPPED, "--out", str(out), "--workers", "1")
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["parts_reused"] == len(finished) >= 1
    whole = tmp_path / "whole.parquet"
    monkeypatch.setattr(rank_decks, "SLICE", 1 << 20)
    assert cli("rank-decks", *STOPPED, "--out", str(whole), "--workers", "1", "-q").returncode == 0
    assert out.read_bytes() == whole.read_bytes()
    assert not staging.exists() and not (tmp_path / ".stopped.parquet.tmp").exists()


@pytest.mark.slow  # a moto S3 server and a real process with two workers
def test_decks_from_s3_ranked_to_s3_by_two_workers(s3_server, reference, given):
    env, s3 = s3_server
    pq.write_table(pq.read_table(given), f"{S3_BUCKET}/rank/decks.parquet", filesystem=s3, row_group_size=5_000)
    out = f"s3://{S3_BUCKET}/rank/out/r.parquet"
    args = _args("given decks", f"s3://{S3_BUCKET}/rank/decks.parquet")
    cmd = [sys.executable, "-c", _SCRIPT, str(SMALL), "rank-decks", *args, "--out", out, "--workers", "2", "-q"]
    res = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    with s3.open_input_stream(f"{S3_BUCKET}/rank/out/r.parquet") as f:
        assert f.read() == reference["given decks"][0]
    from pyarrow import fs

    left = s3.get_file_info(fs.FileSelector(f"{S3_BUCKET}/rank/out", recursive=True))
    assert [i.base_name for i in left] == ["r.parquet"]  # no part, plan or folder marker left
