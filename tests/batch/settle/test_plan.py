"""Inputs to units of work (batch/settle/plan.py): a row group bigger than ``--batch-rows`` cut into
parts each finished on its own; the columns a game reads checked for their type before anything runs
(exit 2 naming the column), any other column the user's; the game of a file without a game column.
Each test failed on the code before the fix it names."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import DATA, cli

import cardbatch
from cardbatch.batch.generate import generate_hands

SAMPLE = str(DATA / "holdem_sample.parquet")


def _big_group(path: Path, rows: int) -> None:
    pq.write_table(generate_hands("holdem", rows, seed=5, bad_rate=0.02).table, path, row_group_size=rows)


def test_a_row_group_bigger_than_a_batch_is_cut_into_parts(tmp_path):
    """Row 10: each row group was one unit and one part, whatever its size: an interrupted run kept
    nothing of it. Now a part per --batch-rows rows, each finished on its own, resumed exactly."""
    path = tmp_path / "h.parquet"
    _big_group(path, 12_000)
    fresh = tmp_path / "fresh"
    done = cli("settle", str(path), "--out", str(fresh), "--batch-rows", "5000", "--workers", "1")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["parts"] == 3 and [p["rows"] for p in summary["timings"]["parts"]] == [5000, 5000, 2000]
    out = tmp_path / "out"
    assert cli("settle", str(path), "--out", str(out), "--batch-rows", "5000", "--workers", "1").returncode == 0
    gone = sorted((out / "_parts").glob("part-*.json"))[1]  # as if the run had stopped before its last two
    gone.unlink()
    for p in (out / "results").rglob(gone.stem + ".parquet"):
        p.unlink()
    again = cli("settle", str(path), "--out", str(out), "--batch-rows", "5000", "--workers", "1")
    assert again.returncode == 0 and json.loads(again.stdout)["parts_reused"] == 2
    for kind in ("results", "errors"):
        assert {p.name: p.read_bytes() for p in (out / kind).rglob("part-*")} == {
            p.name: p.read_bytes() for p in (fresh / kind).rglob("part-*")
        }


@pytest.mark.slow
def test_sigterm_in_a_row_group_of_a_million_rows_keeps_its_finished_parts(tmp_path):
    """Row 10, as a user met it: generate's default output (row groups of 1,048,576 rows), SIGTERM
    mid-run; the rerun reuses the finished parts and its output equals a fresh run's."""
    import signal
    import time

    path = tmp_path / "h.parquet"
    _big_group(path, 400_000)
    out = tmp_path / "out"
    args = [sys.executable, "-m", "cardbatch", "settle", str(path), "--out", str(out), "--workers", "1", "-q"]
    # a real process: what is tested is its answer to SIGTERM
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 300
    while not list((out / "_parts").glob("part-*.json")) and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(60) == 143
    kept = len(list((out / "_parts").glob("part-*.json")))
    assert 1 <= kept < 7
    again = cli(*args[3:-1])
    assert again.returncode == 0 and json.loads(again.stdout)["parts_reused"] == kept
    fresh = tmp_path / "fresh"
    assert cli("settle", str(path), "--out", str(fresh), "--workers", "1").returncode == 0
    for kind in ("results", "errors"):
        assert {p.name: p.read_bytes() for p in (out / kind).rglob("part-*")} == {
            p.name: p.read_bytes() for p in (fresh / kind).rglob("part-*")
        }


def _replaced(tmp_path: Path, sample: str, name: str, values: pa.Array | None, drop: bool = False) -> str:
    t = pq.read_table(DATA / sample)
    if name in t.column_names:
        t = t.drop_columns([name])
    if values is not None:
        t = t.append_column(name, values)
    path = tmp_path / f"{name}.parquet"
    pq.write_table(t, path)
    return str(path)


@pytest.mark.parametrize(
    "sample, name, values, said",
    [
        ("holdem_sample.parquet", "payout", pa.array(["x"] * 3000), "column payout must be a list"),
        ("holdem_sample.parquet", "dead", pa.array([0] * 3000), "column dead must be a list"),
        ("holdem_sample.parquet", "board", pa.array([1] * 3000), "column board must be a list"),
        ("holdem_sample.parquet", "game", pa.array([1] * 3000), "column game must be text"),
        ("holdem_sample.parquet", "cards", pa.array([[[1, 2]]] * 3000), "column cards must be a list of values"),
        ("team2v2_sample.parquet", "balance", pa.array([5] * 3000), "column balance must be a list"),
        ("team2v2_sample.parquet", "payout", pa.array(["x"] * 3000), "column payout must be a list"),
        # found by a trial: "False" (a non-empty string) and 0.5 read as folded, every row no_live_seat
        ("holdem_sample.parquet", "folded", pa.array([["False", "False"]] * 3000), "column folded must hold booleans"),
        ("holdem_sample.parquet", "folded", pa.array([[0.0, 0.5]] * 3000), "column folded must hold booleans"),
        ("team2v2_sample.parquet", "afk", pa.array([["no"] * 4] * 3000), "column afk must hold booleans"),
    ],
)
def test_a_column_of_the_wrong_type_is_exit_2_naming_it(tmp_path, sample, name, values, said):
    """Found by a trial: these were exit 1 ("internal error": a TypeError or an Arrow error)."""
    n = pq.read_metadata(DATA / sample).num_rows
    path = _replaced(tmp_path, sample, name, values.slice(0, n) if len(values) >= n else values)
    done = cli("audit", path, "--out", str(tmp_path / "out"), "--workers", "1")
    assert done.returncode == 2 and said in done.stderr and path in done.stderr, done.stderr
    with pytest.raises(cardbatch.InputError, match=said):
        cardbatch.settle(pq.read_table(path))


def test_columns_another_game_reads_are_the_users_in_a_card_games_file(tmp_path):
    """Found by a trial: a ``balance`` column made a Hold'em file a 2v2 one ("missing multiplier, ..."),
    and a float ``winner`` column was refused, though neither is a column Hold'em reads."""
    t = pq.read_table(DATA / "holdem_sample.parquet")
    for game_column in (True, False):
        u = t if game_column else t.drop_columns(["game"])
        u = u.append_column("balance", pa.array(range(3000))).append_column("winner", pa.array([0.5] * 3000))
        path = tmp_path / f"h{game_column}.parquet"
        pq.write_table(u, path)
        done = cli("settle", str(path), "--out", str(tmp_path / f"out{game_column}"), "--workers", "1")
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["rows_settled"] == 2917
        errors = pq.read_table(next((tmp_path / f"out{game_column}" / "errors").rglob("part-*.parquet")))
        assert all("balance" in json.loads(x) and "winner" in json.loads(x) for x in errors.column("extra").to_pylist())


def test_cards_of_another_type_are_refused():
    """Found by a second trial: cards as list<bool> were read as codes 0 and 1."""
    hands = generate_hands("zjh", 50, seed=1).table
    cards = pa.array([[True, False, True] * (len(c) // 3) for c in hands.column("cards").to_pylist()])
    with pytest.raises(cardbatch.InputError, match="column cards must hold card codes or card text"):
        cardbatch.settle(hands.set_column(hands.column_names.index("cards"), "cards", cards))


def test_game_names_the_game_of_files_without_a_game_column_only(tmp_path):
    """Found by a trial: ``--game holdem`` on a file whose game column says zjh asked for a board."""
    zjh = str(DATA / "zjh_sample.parquet")
    done = cli("settle", zjh, "--out", str(tmp_path / "out"), "--game", "holdem", "--workers", "1")
    assert done.returncode == 0, done.stderr
    assert set(json.loads(done.stdout)["by_game"]) == {"zjh"}
