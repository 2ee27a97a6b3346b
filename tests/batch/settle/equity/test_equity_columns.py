"""settle --equity: each row's all-in street and expected payouts, on generated and real hands,
both settle paths, rows that cannot be placed in time, and the command line's dataset."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from conftest import DATA, TEST_DATA, cli

from cardbatch.batch.generate import generate_hands
from cardbatch.batch.settle.by_game import settle_table
from cardbatch.batch.settle.options import SettleOptions
from cardbatch.batch.settle.poker import settle_hands
from cardbatch.kernels.allin_street import all_in_streets
from cardbatch.kernels.equity import Walk, all_in_equity

EQ = SettleOptions.of(equity=Walk())


@pytest.fixture(scope="module")
def hands() -> pa.Table:
    return generate_hands("holdem", 4000, seed=12, streets_column=True).table


def _lists(col: pa.ChunkedArray) -> list:
    return col.to_pylist()


def test_all_in_streets_from_stacks_and_streets():
    live = np.ones((4, 2), bool)
    stack = np.array([[100, 100]] * 4)
    c = np.zeros((4, 4, 2), np.int64)
    c[0, 0] = [100, 100]  # both all-in preflop
    c[1, 0], c[1, 1] = [20, 20], [80, 80]  # on the flop
    c[2, :, :] = 10  # chips behind to the river: no all-in
    c[3, 0], c[3, 2] = [20, 20], [80, 30]  # seat 0 all-in on the turn; seat 1's chips behind face no one
    assert all_in_streets(stack, c, live, 3).tolist() == [0, 1, -1, 2]
    live[0, 1] = False  # one live seat: nothing to walk
    assert all_in_streets(stack, c, live, 3).tolist()[0] == -1


def test_a_seat_that_folds_on_a_later_street_is_still_in_until_then():
    """The trial's hand: seat 1 all in for 200 preflop, seats 0 and 2 call; on the flop seat 0 bets
    400 and seat 2 folds. The hand is all-in after the flop, not preflop: seat 2's fold was made
    seeing the flop, and a hand chosen by its flop would not have its equity as its expectation."""
    stack = np.array([[1000, 200, 1000]])
    c = np.zeros((1, 4, 3), np.int64)
    c[0, 0] = [200, 200, 200]
    c[0, 1] = [400, 0, 0]
    live = np.array([[True, True, False]])
    assert all_in_streets(stack, c, live, 3).tolist() == [1]
    c[0, 0, 2] = 20  # seat 2 only limped and folded to the all-in: preflop it is
    assert all_in_streets(stack, c, live, 3).tolist() == [0]


def test_all_in_streets_as_a_whole_array_formula_says():
    """The kernel against the definition written over whole arrays: chips behind after each street,
    the first street with at most one seat still in holding some (live, or folded later: it had
    matched the most put in so far, or put chips in after), at a table of two live seats or more."""
    rng = np.random.default_rng(7)
    T, K, S = 5000, 4, 6
    stack = rng.integers(0, 30, (T, S))  # short: all-ins on every street
    c = rng.integers(0, 20, (T, K, S)) * (rng.random((T, K, S)) < 0.6)
    live = rng.random((T, S)) < 0.7
    put = np.cumsum(c, axis=1)
    behind = stack[:, None, :] - put
    later = c.sum(axis=1)[:, None, :] - put  # chips put in after each street
    still_in = live[:, None, :] | (put >= put.max(axis=2, keepdims=True)) | (later > 0)
    quiet = ((behind > 0) & still_in).sum(axis=2)[:, :3] <= 1
    want = np.where(quiet.any(axis=1) & (live.sum(axis=1) >= 2), quiet.argmax(axis=1), -1)
    got = all_in_streets(stack, c, live, 3)
    assert (got == want).all()
    assert {-1, 0, 1, 2} <= set(got.tolist())


def test_settled_rows_get_their_equity_and_the_rest_their_payout(hands):
    results, errors, counters = settle_hands(hands, "holdem", EQ)
    eq = counters["equity"]
    assert eq["rows"] == results.num_rows and eq["all_in"] > 100 and eq["not_placed"] == {}
    assert eq["all_in"] == sum(eq["by_street"].values()) == eq["exact"] + eq["sampled"]
    street = results.column("all_in_street").to_numpy(zero_copy_only=False)
    payout, ev, share = _lists(results["payout"]), _lists(results["ev_payout"]), _lists(results["equity"])
    for i in range(results.num_rows):
        assert abs(sum(ev[i]) - sum(payout[i])) < 1e-6  # the pots, in expectation as paid
        if share[i] is not None:
            assert abs(sum(share[i]) - 1) < 1e-9
        if np.isnan(street[i]):
            assert ev[i] == [float(p) for p in payout[i]]
    assert int((~np.isnan(street)).sum()) == eq["all_in"]


def test_the_columns_are_the_kernels_for_the_all_in_rows(hands):
    results, _, _ = settle_hands(hands, "holdem", EQ)
    allin = results.filter(pc.is_valid(results.column("all_in_street")))
    by_id = {r["hand_id"]: r for r in hands.to_pylist()}
    from cardbatch.batch.settle.equity.allin import KNOWN_BOARD

    for row in allin.slice(0, 60).to_pylist():
        src = by_id[row["hand_id"]]
        n = len(src["folded"])
        chips = np.array(src["contrib_street"]).reshape(-1, n).sum(axis=0)
        e = all_in_equity(
            [chips],
            [[not f for f in src["folded"]]],
            np.array(src["cards"], np.uint8).reshape(1, n, 2),
            [src["board"]],
            [KNOWN_BOARD[row["all_in_street"]]],
            [src["button"]],
            hand_ids=[row["hand_id"]],
        )
        assert row["ev_payout"] == e.ev_payout[0].tolist()


def test_both_settle_paths_give_the_same_equity(hands):
    a, _, ca = settle_hands(hands, "holdem", EQ, one_pass=True)
    b, _, cb = settle_hands(hands, "holdem", EQ, one_pass=False)
    for name in ("all_in_street", "ev_payout", "equity", "equity_se"):
        assert a.column(name).equals(b.column(name)), name
    assert ca["equity"] == cb["equity"]


def test_rows_that_cannot_be_placed_are_null_and_counted(hands):
    no_stack = hands.drop_columns(["stack"])
    results, _, counters = settle_hands(no_stack, "holdem", EQ)
    assert results.column("ev_payout").null_count == results.num_rows
    assert counters["equity"]["not_placed"] == {"no_stack_column": results.num_rows}

    stacks = hands.column("stack").to_pylist()
    stacks[0] = None  # missing
    stacks[1] = stacks[1][:-1]  # a seat short
    stacks[2] = [0] * len(stacks[2])  # below the chips put in
    t = hands.set_column(hands.schema.get_field_index("stack"), "stack", pa.array(stacks, pa.list_(pa.int64())))
    results, errors, counters = settle_hands(t, "holdem", EQ)
    got = dict(zip(results.column("hand_id").to_pylist(), results.column("ev_payout").to_pylist()))
    rejected = set(errors.column("hand_id").to_pylist())
    for i, cause in enumerate(("stack_missing", "stack_count", "stack_short")):
        hid = hands.column("hand_id")[i].as_py()
        if hid not in rejected:
            assert got[hid] is None
            assert counters["equity"]["not_placed"][cause] >= 1


def test_games_without_a_board_say_so():
    t = generate_hands("zjh", 300, seed=1).table
    results, _, counters = settle_hands(t, "zjh", EQ)
    assert results.column("ev_payout").null_count == results.num_rows
    assert counters["equity"]["not_placed"] == {"game_zjh": results.num_rows}


@pytest.mark.slow  # seconds in the fast loop: CI runs it
@pytest.mark.parametrize("game", ["omaha", "omaha_hilo"])
def test_omaha_all_ins_through_its_evaluators(game):
    t = generate_hands(game, 1500, seed=6, streets_column=True).table
    results, _, counters = settle_hands(t, game, SettleOptions.of(equity=Walk(budget=50_000, samples=3_000)))
    assert counters["equity"]["all_in"] > 10 and counters["equity"]["not_placed"] == {}
    for p, ev in zip(_lists(results["payout"]), _lists(results["ev_payout"])):
        assert abs(sum(ev) - sum(p)) < 1e-6


def test_short_deck_walks_its_own_deck():
    t = generate_hands("shortdeck", 2000, seed=4, streets_column=True).table
    results, _, counters = settle_hands(t, "shortdeck", EQ)
    assert counters["equity"]["all_in"] > 20
    for p, ev in zip(_lists(results["payout"]), _lists(results["ev_payout"])):
        assert abs(sum(ev) - sum(p)) < 1e-6


def test_a_sample_above_the_budget_is_seeded_and_has_an_error(hands):
    opts = SettleOptions.of(equity=Walk(budget=0, samples=500, seed=3))
    a, _, ca = settle_table(hands, opts)
    b, _, _ = settle_table(hands, opts)
    assert a.column("ev_payout").equals(b.column("ev_payout"))
    eq = ca["equity"]
    assert eq["sampled"] > 0 and eq["sampled"] + eq["exact"] == eq["all_in"]  # exact: heads-up preflop, tabled
    se = [x for row in _lists(a["equity_se"]) if row for x in row]
    assert max(se) > 0


def test_real_corpus_all_ins_get_their_equity(tmp_path):
    """The corpus's Hold'em hands through import (which writes stack): every all-in is placed and its
    expected payouts add up to what was paid."""
    from cardbatch.batch.io.jobs import RunOptions
    from cardbatch.batch.phh.job import ImportOptions, run_import

    corpus = TEST_DATA / "phh"
    out = tmp_path / "hands.parquet"
    run_import([str(corpus)], str(out), ImportOptions(run=RunOptions(workers=1, quiet=True)))
    hands = pq.read_table(out)
    holdem = hands.filter(pc.equal(hands.column("game"), "holdem"))
    results, errors, counters = settle_hands(holdem, "holdem", EQ)
    assert errors.num_rows == 0 and counters["equity"]["not_placed"] == {}
    for p, ev in zip(_lists(results["payout"]), _lists(results["ev_payout"])):
        assert abs(sum(ev) - sum(p)) < 1e-6


def test_the_command_writes_equity_columns_for_every_game(tmp_path, hands):
    pq.write_table(hands, tmp_path / "h.parquet")
    pq.write_table(generate_hands("zjh", 500, seed=2).table, tmp_path / "z.parquet")
    out = tmp_path / "out"
    res = cli("settle", tmp_path / "h.parquet", tmp_path / "z.parquet", "--out", out, "--equity", "-q")
    assert res.returncode == 0, res.stderr
    data = pq.read_table(out / "results")  # one dataset: every part has the same columns
    assert {"all_in_street", "ev_payout", "equity", "equity_se"} <= set(data.column_names)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["equity"]["all_in"] > 0
    assert summary["by_game"]["zjh"]["equity"]["not_placed"] == {
        "game_zjh": 500 - summary["by_game"]["zjh"]["rows_rejected"]
    }


def test_players_actual_against_expected_net_in_summary_and_report(tmp_path, hands):
    t = hands.set_column(
        hands.schema.get_field_index("player_id"),
        "player_id",
        pa.array(
            [
                [(hid + s) % 7 for s in range(len(f))]
                for hid, f in zip(hands["hand_id"].to_pylist(), hands["folded"].to_pylist())
            ]
        ),
    )
    pq.write_table(t, tmp_path / "h.parquet")
    out = tmp_path / "out"
    res = cli("settle", tmp_path / "h.parquet", "--out", out, "--equity", "--by-player", "-q")
    assert res.returncode == 0, res.stderr
    summary = json.loads((out / "summary.json").read_text())
    players = summary["equity"]["by_player"]
    assert set(players) <= {str(k) for k in range(7)} and players
    results = pq.read_table(out / "results").filter(pc.is_valid(pc.field("all_in_street")))
    nets = sum(sum(n) for n in results.column("net").to_pylist())
    assert sum(p["net"] for p in players.values()) == nets  # every seat of every all-in hand
    assert sum(p["hands"] for p in players.values()) == sum(len(n) for n in results.column("net").to_pylist())
    chips = [sum(p) - sum(n) for p, n in zip(results.column("payout").to_pylist(), results.column("net").to_pylist())]
    ev = sum(sum(e) for e in results.column("ev_payout").to_pylist()) - sum(chips)
    assert abs(sum(p["ev_net"] for p in players.values()) - ev) < 1e-3
    page = (out / "report.html").read_text()
    assert "All-in equity" in page and "Luckiest" in page and "Unluckiest" in page


def test_per_player_figures_are_asked_for(tmp_path, hands):
    pq.write_table(hands, tmp_path / "h.parquet")
    base = ["settle", tmp_path / "h.parquet", "-q"]
    res = cli(*base, "--out", tmp_path / "a", "--equity")
    assert (
        res.returncode == 0 and "by_player" not in json.loads((tmp_path / "a" / "summary.json").read_text())["equity"]
    )
    res = cli(*base, "--out", tmp_path / "b", "--by-player")
    assert res.returncode == 2 and "needs equity" in res.stderr


@pytest.mark.parametrize(
    "options, message",
    [
        (["--equity", "--policy", "presence"], "equity is defined for the standard policy only, got policy presence"),
        (["--equity", "--equity-samples", "1"], "argument --equity-samples: must be at least 2, got 1"),
        (
            ["--equity", "--equity-seed", str(2**64)],
            "argument --equity-seed: must be at most 18,446,744,073,709,551,615",
        ),
    ],
)
def test_equity_options_the_walk_cannot_honour_exit_2_before_anything_is_written(tmp_path, options, message):
    """A per-street policy's luck is not the standard policy's: refused, not paid by the wrong rule.
    The walk's limits are refused as the options are read (after the usage line)."""
    out = tmp_path / "out"
    res = cli("settle", DATA / "holdem_sample.parquet", "--out", out, *options)
    assert res.returncode == 2 and message in res.stderr.strip().splitlines()[-1], res.stderr
    assert "Traceback" not in res.stderr
    assert not out.exists()


@pytest.mark.slow  # 12 s for the run to compile (or load) and walk, then SIGTERM to a real process
def test_a_long_equity_walk_answers_sigterm(tmp_path):
    """Three thousand 8-seat preflop all-ins walked over every board (about 35 ms each, 100 s in all):
    SIGTERM is answered in a second or two with exit 143, not when the batch's walk ends."""
    import signal
    import time

    row = {
        "hand_id": 0,
        "button": 5,
        "board": [30, 45, 25, 43, 26],
        "cards": [15, 12, 10, 28, 46, 51, 16, 9, 48, 8, 20, 41, 49, 11, 27, 22],
        "contrib_street": [100, 100, 100, 251, 999, 251, 1000, 1000] + [0] * 24,
        "folded": [False] * 8,
        "stack": [100, 100, 100, 251, 999, 251, 1000, 1000],
    }
    rows = [{**row, "hand_id": i} for i in range(3000)]
    path = tmp_path / "eight.parquet"
    pq.write_table(pa.Table.from_pylist(rows), path)
    cmd = [sys.executable, "-m", "cardbatch", "settle", str(path), "--out", str(tmp_path / "out"), "-q"]
    cmd += ["--equity", "--equity-budget", "2000000", "--workers", "1"]
    # a real process: what is tested is its answer to SIGTERM
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(12)  # compiled (or loaded) and walking
    assert proc.poll() is None, "the run ended before the signal: make it longer"
    sent = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, err
    assert time.monotonic() - sent < 8, "the walk did not answer SIGTERM between its slices"
