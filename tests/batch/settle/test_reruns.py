"""Reruns never reuse a stale part: file identity and options decide, a lock keeps runs apart."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import cli

from cardbatch.batch.generate import generate_hands
from cardbatch.batch.io.errors import InputError
from cardbatch.batch.settle.job import settle_files
from cardbatch.batch.settle.manifest import Lock
from cardbatch.batch.settle.options import SettleOptions

OPTS = SettleOptions()


def _write(path: Path, seed: int, start: int, n: int = 300) -> Path:
    pq.write_table(generate_hands("holdem", n, seed=seed, start=start).table, path, row_group_size=100)
    return path


def _settled(out: Path) -> dict[int, list[int]]:
    """hand_id -> payout over every results part; fails on a hand settled twice."""
    found: dict[int, list[int]] = {}
    for part in sorted((out / "results").rglob("*.parquet")):
        t = pq.read_table(part)
        for hid, pay in zip(t.column("hand_id").to_pylist(), t.column("payout").to_pylist()):
            assert hid not in found, f"hand {hid} settled twice"
            found[hid] = pay
    return found


def _fresh(tmp: Path, inputs: list[str], opts: SettleOptions = OPTS) -> tuple[dict, dict]:
    out = tmp / f"fresh{len(list(tmp.glob('fresh*')))}"
    summary = settle_files(inputs, str(out), opts, workers=1, batch_rows=100, quiet=True)
    return _settled(out), summary


def _again(inputs: list[str], out: Path, opts: SettleOptions = OPTS) -> dict:
    return settle_files(inputs, str(out), opts, workers=1, batch_rows=100, quiet=True)


@pytest.fixture
def folder(tmp_path):
    d = tmp_path / "in"
    d.mkdir()
    _write(d / "b.parquet", seed=1, start=0)
    _write(d / "c.parquet", seed=2, start=1000)
    return d


def test_an_unchanged_rerun_reuses_every_part(tmp_path, folder):
    out = tmp_path / "out"
    first = _again([str(folder)], out)
    second = _again([str(folder)], out)
    assert second["parts_reused"] == second["parts"] == first["parts"]
    timing = ("wall_seconds", "hands_per_second", "parts_reused", "compile_ahead", "timings")
    assert {k: v for k, v in second.items() if k not in timing} == {k: v for k, v in first.items() if k not in timing}


def test_a_replaced_file_is_recomputed(tmp_path, folder):
    out = tmp_path / "out"
    _again([str(folder)], out)
    _write(folder / "c.parquet", seed=9, start=1000)  # same path and size class, other hands
    summary = _again([str(folder)], out)
    want, fresh = _fresh(tmp_path, [str(folder)])
    assert _settled(out) == want
    assert summary["chips_in"] == fresh["chips_in"] and summary["parts_reused"] == 3


def test_a_deleted_file_takes_its_parts_along(tmp_path, folder):
    out = tmp_path / "out"
    _again([str(folder)], out)
    (folder / "c.parquet").unlink()
    summary = _again([str(folder)], out)
    assert _settled(out) == _fresh(tmp_path, [str(folder)])[0]
    assert summary["rows_read"] == 300


def test_an_added_file_that_sorts_first_is_settled_once(tmp_path, folder):
    out = tmp_path / "out"
    _again([str(folder)], out)
    _write(folder / "a.parquet", seed=3, start=5000)
    summary = _again([str(folder)], out)
    assert _settled(out) == _fresh(tmp_path, [str(folder)])[0]
    assert summary["rows_read"] == 900 and summary["parts_reused"] == 6


def test_changed_options_recompute_everything(tmp_path, folder):
    out = tmp_path / "out"
    _again([str(folder)], out)
    raked = SettleOptions.of(rake_pct="0.05", rake_cap=30)
    summary = _again([str(folder)], out, raked)
    assert summary["parts_reused"] == 0 and summary["chips_raked"] > 0
    assert summary["chips_raked"] == _fresh(tmp_path, [str(folder)], raked)[1]["chips_raked"]
    manifest = json.loads((out / "_manifest.json").read_text())
    assert manifest["fingerprint"]["options"]["rake_pct"] == "0.05"


def test_a_damaged_file_removed_leaves_the_good_one_once(tmp_path, folder):
    out = tmp_path / "out"
    (folder / "d.parquet").write_bytes(b"PAR1 not really")
    with pytest.raises(InputError):
        _again([str(folder)], out)
    (folder / "d.parquet").unlink()
    _again([str(folder)], out)
    assert _settled(out) == _fresh(tmp_path, [str(folder)])[0]


def test_relative_and_absolute_paths_are_one_input(tmp_path, folder, monkeypatch):
    monkeypatch.chdir(folder)
    summary = _again(["b.parquet", str(folder / "b.parquet")], tmp_path / "out")
    assert summary["files"] == 1 and summary["rows_read"] == 300


def test_a_second_run_on_the_same_output_refuses(tmp_path, folder):
    out = tmp_path / "out"
    _again([str(folder)], out)
    before = sorted(p.name for p in (out / "results").rglob("*"))
    lock = Lock(out)  # a run in progress
    try:
        # a process of its own: a lock is per process, so this one would take its own lock again
        res = cli("settle", str(folder), "--out", str(out), "--rake-pct", "0.05", env={})
    finally:
        lock.release()
    assert res.returncode == 2 and "another cardbatch run" in res.stderr and str(os.getpid()) in res.stderr
    assert sorted(p.name for p in (out / "results").rglob("*")) == before
    assert (out / "summary.json").exists()  # the first run's output is untouched


def test_moving_the_output_keeps_nothing_stale(tmp_path, folder):
    out = tmp_path / "out"
    _again([str(folder)], out)
    moved = tmp_path / "moved"
    shutil.move(str(folder), str(moved))  # same files, another path: other identities, recomputed
    summary = _again([str(moved)], out)
    assert summary["parts_reused"] == 0 and _settled(out) == _fresh(tmp_path, [str(moved)])[0]
    assert pa.types.is_int64(pq.read_table(next((out / "results").rglob("*.parquet"))).schema.field("hand_id").type)
