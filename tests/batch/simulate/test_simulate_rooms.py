"""Comparing rooms: the rooms a sweep or a TOML file names, common random numbers (same players,
deals and dice in every room of a replicate), the tidy table, workers, the figure."""

from __future__ import annotations

import dataclasses
import json
import re
import signal
import sys

import numpy as np
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from conftest import cli
from processes import alive, stop_when_workers_run

from cardbatch.batch.cli.simulate import room_set
from cardbatch.batch.simulate.job import METRICS, SHARES, Room, simulate, simulate_rooms

SMALL = Room(game="zjh", players=1500, rounds=6, tables_per_round=200, rake_pct="0.05", seed=4)


def test_a_sweep_is_every_combination_named_by_its_values():
    rooms = room_set(SMALL, ["rake-pct=0.03,0.07", "rebuy=true,false", "bet_max=2"], None)
    assert [n for n, _ in rooms] == [
        "rake-pct=0.03, rebuy=True, bet_max=2",
        "rake-pct=0.03, rebuy=False, bet_max=2",
        "rake-pct=0.07, rebuy=True, bet_max=2",
        "rake-pct=0.07, rebuy=False, bet_max=2",
    ]
    assert rooms[1][1] == dataclasses.replace(SMALL, rake_pct="0.03", rebuy=False, bet_max=2)


def test_a_rooms_file_changes_the_command_lines_room(tmp_path):
    f = tmp_path / "rooms.toml"
    f.write_text('[rooms.cheap]\nrake-pct = "0.02"\n[rooms.capped]\nrake_pct = "0.08"\nrake-cap = 40\nrebuy = true\n')
    rooms = room_set(SMALL, [], str(f))
    assert rooms == [
        ("cheap", dataclasses.replace(SMALL, rake_pct="0.02")),
        ("capped", dataclasses.replace(SMALL, rake_pct="0.08", rake_cap=40, rebuy=True)),
    ]


@pytest.mark.parametrize(
    "sweeps, text, message",
    [
        (["rake=0.1"], None, "no flag 'rake' to vary"),
        (["players=many"], None, "'many' is not a valid players"),
        (["bet-max=2.5"], None, "'2.5' is not a valid bet-max"),
        (["rebuy=yes"], None, "'yes' is not a valid rebuy"),
        (["rake-pct"], None, "expected FLAG=V1,V2"),
        ([], "[rooms.a]\nplayers = 2.5\n", "2.5 is not a valid players"),
        ([], "[rooms.a]\nnot_a_flag = 1\n", "no flag 'not_a_flag'"),
        ([], "rooms = 3\n", "expected \\[rooms.NAME\\] tables"),
        ([], "[rooms.a\n", "--rooms"),
    ],
)
def test_bad_rooms_are_refused_with_what_is_wrong(tmp_path, sweeps, text, message):
    path = None
    if text is not None:
        path = tmp_path / "r.toml"
        path.write_text(text)
    with pytest.raises(ValueError, match=message):
        room_set(SMALL, sweeps, str(path) if path else None)


def test_rooms_meet_the_same_deals_and_dice():
    rooms = [("a", SMALL), ("a again", SMALL), ("double rake", dataclasses.replace(SMALL, rake_pct="0.10"))]
    s = simulate_rooms(rooms, 2, workers=1)["_series"]
    name = s.column("room").cast("string")
    a, again, double = (s.filter(pc.equal(name, n)) for n in ("a", "a again", "double rake"))
    assert a.drop_columns(["room"]).equals(again.drop_columns(["room"]))
    # round 0 of both rooms plays the same tables with the same bets, so the rake of 10 % is twice the
    # rake of 5 % up to rounding down, at most one chip per pot (a table has at most seats + 1 pots)
    for rep in (0, 1):
        first = pc.and_(pc.equal(a.column("replicate"), rep), pc.equal(a.column("round"), 0))
        five = a.filter(first).column("fees_collected")[0].as_py()
        ten = double.filter(pc.and_(pc.equal(double.column("replicate"), rep), pc.equal(double.column("round"), 0)))
        ten = ten.column("fees_collected")[0].as_py()
        assert five > 0 and 2 * five <= ten <= 2 * five + SMALL.tables_per_round * (SMALL.seats + 1)
    # and replicate r of a room is the single run with seed + r
    one = simulate(dataclasses.replace(SMALL, seed=SMALL.seed + 1))["_series"]
    rep1 = a.filter(pc.equal(a.column("replicate"), 1))
    for m in METRICS + SHARES:
        assert rep1.column(m).equals(one.column(m)), m


@pytest.mark.slow  # seconds in the fast loop: CI runs it
def test_the_tidy_table_and_workers(tmp_path):
    rooms = room_set(dataclasses.replace(SMALL, rebuy=True), ["rake-pct=0.02,0.06"], None)
    serial = simulate_rooms(rooms, 3, str(tmp_path / "one"), workers=1)
    pooled = simulate_rooms(rooms, 3, str(tmp_path / "two"), workers=2)
    assert (serial["workers"], pooled["workers"]) == (1, 2)
    a = pq.read_table(tmp_path / "one" / "rounds.parquet")
    b = pq.read_table(tmp_path / "two" / "rounds.parquet")
    assert a.equals(b)  # processes change nothing
    assert a.column_names == ["room", "replicate", "round", *METRICS, *SHARES]
    assert a.num_rows == 2 * 3 * SMALL.rounds
    start = SMALL.players * SMALL.start_balance
    fees, rebuys, in_play = (a.column(c).to_numpy() for c in ("fees_collected", "rebuys", "coins_in_play"))
    assert (in_play + fees == start + rebuys).all()
    assert np.allclose(a.column("fee_sink_pct").to_numpy(), 100 * fees / (start + rebuys))
    assert np.allclose(a.column("rebuys_pct").to_numpy(), 100 * rebuys / start)
    players = pq.read_table(tmp_path / "one" / "players.parquet")
    assert players.num_rows == 2 * 3 * SMALL.players
    summary = json.loads((tmp_path / "one" / "summary.json").read_text())
    assert [r["room"] for r in summary["rooms"]] == ["rake-pct=0.02", "rake-pct=0.06"]
    assert summary["rooms"][1]["changes"] == {"rake_pct": "0.06"}
    last = a.filter(pc.equal(a.column("round"), SMALL.rounds - 1))
    mine = last.filter(pc.equal(last.column("room").cast("string"), "rake-pct=0.06")).column("fee_sink_pct").to_numpy()
    assert summary["rooms"][1]["final_round"]["fee_sink_pct"]["max"] == round(float(mine.max()), 4)


@pytest.mark.slow  # seconds in the fast loop: CI runs it
def test_the_command_compares_rooms_and_draws_them(tmp_path):
    out = tmp_path / "cmp"
    cmd = ["simulate", "--game", "holdem", "--players", "1200", "--rounds", "5"]
    cmd += ["--tables-per-round", "150", "--sweep", "rake-pct=0.02,0.05,0.1", "--replicates", "2", "--out", str(out)]
    proc = cli(*cmd, "-q")
    assert proc.returncode == 0, proc.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert len(summary["rooms"]) == 3 and summary["replicates"] == 2
    plots = summary["plots"]
    if isinstance(plots, str):
        assert plots.startswith("skipped: matplotlib")
    else:
        png = (out / "comparison.png").read_bytes()
        assert (int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")) == (1700, 950)
    single = cli(*cmd[: cmd.index("--sweep")], "--out", str(out), "-q")
    assert single.returncode == 0, single.stderr
    assert not (out / "comparison.png").exists(), "a rerun in the same folder leaves no figure of the last run"
    assert pq.read_table(out / "rounds.parquet").num_rows == 5
    both = cli(*cmd, "--write-hands", str(tmp_path / "h.parquet"), "-q")
    assert both.returncode == 2 and "--write-hands writes one room's hands" in both.stderr
    assert not (tmp_path / "h.parquet").exists()


def test_every_flag_can_be_swept_and_its_own_value_changes_nothing():
    for f in dataclasses.fields(Room):
        value = getattr(SMALL, f.name)
        if value is not None:
            [(name, room)] = room_set(SMALL, [f"{f.name.replace('_', '-')}={value}"], None)
            assert room == SMALL, name


@pytest.mark.slow  # signals to real worker processes
@pytest.mark.parametrize("sig, status", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_an_interrupted_comparison_writes_nothing_and_leaves_no_worker(tmp_path, sig, status):
    out = tmp_path / "cmp"
    cmd = [sys.executable, "-m", "cardbatch", "simulate", "--game", "zjh", "--players", "20000", "--rounds", "400"]
    cmd += ["--tables-per-round", "3000", "--sweep", "rake-pct=0.02,0.05", "--replicates", "4", "--workers", "2"]
    # a real process: what is tested is its answer to a signal while its workers run
    code, err, workers = stop_when_workers_run([*cmd, "--out", str(out)], sig)
    assert code == status, err
    assert not [w for w in workers if alive(w)], "a worker outlived its parent"
    assert not out.exists() or not list(out.iterdir())  # no table, figure or summary of half a run


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--players", str(10**12), "--start-balance", str(10**7)], "below 2\\*\\*63 coins"),
        (["--players", str(10**9), "--start-balance", str(10**9), "--rebuy", "--rounds", "10"], "below 2\\*\\*63"),
        (["--base", "0"], "--base: must be at least 1"),
        (["--sweep", "seats=3,40"], "2 <= seats <= 17"),
        (["--replicates", "0"], "--replicates: must be at least 1"),
    ],
)
def test_rooms_that_cannot_be_simulated_exactly_are_refused(tmp_path, flags, message):
    proc = cli("simulate", "--game", "zjh", *flags, "--out", str(tmp_path / "o"), "-q")
    assert proc.returncode == 2 and re.search(message, proc.stderr), proc.stderr


@pytest.mark.slow  # seconds in the fast loop: CI runs it
def test_a_single_room_from_a_sweep_is_the_room_played(tmp_path):
    """One room named by --sweep (or a rooms file) is played as that room, not as the command line's
    (the command once played the command line's room whenever the set held one room)."""
    common = ["simulate", "--game", "zjh", "--players", "300", "--rounds", "3", "--tables-per-round", "40"]
    common += ["--rake-cap", "50", "--seed", "3", "-q"]
    assert cli(*common, "--sweep", "rake-pct=0.10", "--out", str(tmp_path / "swept")).returncode == 0
    assert cli(*common, "--rake-pct", "0.10", "--out", str(tmp_path / "flag")).returncode == 0
    assert cli(*common, "--out", str(tmp_path / "none")).returncode == 0
    swept, flag, none = (pq.read_table(tmp_path / d / "rounds.parquet") for d in ("swept", "flag", "none"))
    assert swept.equals(flag)
    assert not swept.equals(none)  # the rake moved coins: the comparison could fail


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--game", "zjh", "--sweep", "rake-pct=0.05,abc"], "rake-pct must be a number in 0..1, got 'abc'"),
        (["--game", "zjh", "--sweep", "rules=foo"], "rules must be one of zjh, "),
        (["--game", "zjh", "--sweep", "seed=-1"], "seed must be in 0..2\\*\\*64 - 1"),
        (["--game", "zjh", "--rake-pct", "0.05", "--sweep", "rake-cap=-5,10"], "rake-cap must be >= 0"),
        (["--game", "team2v2", "--sweep", "double=0,1"], "double >= 1"),
        (["--game", "team2v2", "--sweep", "fee=-3,0"], "fee >= 0"),
        (["--game", "zjh", "--rooms", "ROOMS"], "rake-pct must be a number in 0..1"),
    ],
)
def test_a_swept_or_filed_value_is_checked_as_its_flag_is(tmp_path, flags, message):
    """From a trial: values the flags refuse (exit 2) crashed the run (exit 1) when a --sweep or a
    rooms file gave them; every room is now checked when it is made, before any is played."""
    (tmp_path / "bad.toml").write_text("[rooms.a]\nrake-pct = 'abc'\n")
    given = [str(tmp_path / "bad.toml") if f == "ROOMS" else f for f in flags]
    res = cli("simulate", "--players", "50", "--rounds", "1", *given, "--out", str(tmp_path / "o"), "-q")
    assert res.returncode == 2 and re.search(message, res.stderr), res.stderr
    assert res.stderr.count("\n") == 1 and not (tmp_path / "o").exists()


def test_a_room_option_no_room_plays_by_is_said(tmp_path):
    """A 2v2 room's option on card-game rooms, and a card game's on 2v2 rooms, changed nothing: said."""
    res = cli(
        "simulate",
        "--game",
        "holdem",
        "--players",
        "50",
        "--rounds",
        "1",
        "--fee",
        "5",
        "--no-caps",
        "--out",
        str(tmp_path / "a"),
        "-q",
    )
    assert res.returncode == 0
    assert "--fee is a 2v2 room's option" in res.stderr and "--no-caps is a 2v2 room's option" in res.stderr
    res = cli(
        "simulate",
        "--game",
        "team2v2",
        "--players",
        "50",
        "--rounds",
        "1",
        "--fold-p",
        "0.5",
        "--out",
        str(tmp_path / "b"),
        "-q",
    )
    assert res.returncode == 0 and "--fold-p is a card-game room's option" in res.stderr
    res = cli("simulate", "--game", "team2v2", "--players", "50", "--rounds", "1", "--out", str(tmp_path / "c"), "-q")
    assert "warning" not in res.stderr
