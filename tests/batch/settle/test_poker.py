"""Omaha, Omaha hi/lo and short deck through every job: settle and audit (files, the CLI, the API),
generate, rank-decks, simulate's refusal; the game is never guessed and never borrows another's rule."""

from __future__ import annotations

import json

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import cli

import cardbatch
from cardbatch.batch.generate import generate_hands
from cardbatch.batch.settle.by_game import settle_table
from cardbatch.batch.settle.options import SettleOptions
from cardbatch.games import GAMES, REGISTRY
from cardbatch.kernels import cards, decks, omaha, ranking, shortdeck

NEW = [g for g in GAMES if g not in ("holdem", "zjh", "team2v2")]
BOARD = "2c3d8hKcKs"


def _table(rows: list[dict], game: str | None = None) -> pa.Table:
    cols = {
        "hand_id": pa.array([r["id"] for r in rows], pa.int64()),
        "button": pa.array([r.get("button", 0) for r in rows], pa.int8()),
        "board": pa.array([r.get("board", BOARD) for r in rows]),
        "cards": pa.array([r["cards"] for r in rows], pa.list_(pa.string())),
        "contrib": pa.array([r["contrib"] for r in rows], pa.list_(pa.int64())),
        "folded": pa.array([[False] * len(r["contrib"]) for r in rows], pa.list_(pa.bool_())),
    }
    if "payout" in rows[0]:
        cols["payout"] = pa.array([r["payout"] for r in rows], pa.list_(pa.int64()))
    if game:
        cols = {"game": pa.array([game] * len(rows)), **cols}
    return pa.table(cols)


# seat 2 wins the high (three kings) and ties seat 1 for the low (8-4-3-2-A): three quarters and a quarter
QUARTERED = {"id": 1, "cards": ["AhAdQcJc", "As4c9d9s", "Ac4hKhQd"], "contrib": [100, 100, 100], "payout": [0, 75, 225]}
# 303 chips: the low half is 151, the high half 152; the low half's odd chip to seat 1, first left of the button
ODD_CHIP = {**QUARTERED, "id": 2, "contrib": [101, 101, 101], "payout": [0, 76, 227]}
# seat 0 is all in for 50 and holds the only low: half of the main pot; the side pot has no low: all high
SIDE_POT = {"id": 3, "cards": ["As4cQdJd", "9d9sThTc", "QhQcJhJs"], "contrib": [50, 200, 200], "payout": [75, 0, 375]}
LOW = 0x84321


def test_hi_lo_pots_split_per_pot_as_the_rules_say(tmp_path):
    table = _table([QUARTERED, ODD_CHIP, SIDE_POT], "omaha_hilo")
    pq.write_table(table, tmp_path / "hilo.parquet")
    done = cli("audit", str(tmp_path / "hilo.parquet"), "--out", str(tmp_path / "out"), "--quiet")
    assert done.returncode == 0, done.stderr  # every payout as recorded: no mismatch
    res = pq.read_table(tmp_path / "out" / "results").sort_by("hand_id")
    assert res.column("payout").to_pylist() == [[0, 75, 225], [0, 76, 227], [75, 0, 375]]
    assert res.column("low").to_pylist() == [[0, LOW, LOW], [0, LOW, LOW], [LOW, 0, 0]]
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["chips_in"] == summary["chips_paid"] == 300 + 303 + 450


def test_hi_lo_under_a_per_street_policy_is_set_aside_or_refused(tmp_path):
    table = _table([QUARTERED, SIDE_POT], "omaha_hilo")
    r, e, c = settle_table(table, SettleOptions.of(policy="presence"))
    assert r.num_rows == 0 and e.column("reason").to_pylist() == ["split_pot_policy"] * 2
    pq.write_table(table.drop_columns(["game"]), tmp_path / "h.parquet")
    done = cli(
        "settle",
        str(tmp_path / "h.parquet"),
        "--out",
        str(tmp_path / "o"),
        "--game",
        "omaha_hilo",
        "--policy",
        "hybrid",
    )
    assert done.returncode == 2 and "standard policy" in done.stderr and "Traceback" not in done.stderr


def test_omaha_is_never_guessed_from_the_columns(tmp_path):
    table = _table([QUARTERED, SIDE_POT])  # a board and four cards a seat, no game column
    r, e, _ = settle_table(table, SettleOptions())
    assert r.num_rows == 0 and e.column("reason").to_pylist() == ["game_not_given"] * 2
    assert "--game" in e.column("message")[0].as_py()
    r, e, _ = settle_table(table, SettleOptions(game="omaha"))
    assert e.num_rows == 0 and r.column("pots").to_pylist() == [1, 2]
    # high only: seat 2's three kings take the pot, seat 2 also takes both pots of the third hand
    assert r.column("payout").to_pylist() == [[0, 0, 300], [0, 0, 450]]
    assert "low" not in r.column_names
    # a Hold'em file still is Hold'em without being named
    holdem = generate_hands("holdem", 200, seed=1).table.drop_columns(["game"])
    r, e, _ = settle_table(holdem, SettleOptions())
    assert r.num_rows + e.num_rows == 200 and "game_not_given" not in e.column("reason").to_pylist()


@pytest.mark.parametrize("game", NEW)
def test_generated_logs_settle_and_audit_exactly(game):
    gen = generate_hands(game, 3000, seed=32, bad_rate=0.05, tamper_rate=0.02)
    r, e, c = settle_table(gen.table, SettleOptions.of(audit=True))
    assert r.num_rows + e.num_rows == c["rows_read"] == 3000
    assert c["chips_in"] == c["chips_paid"] + c["chips_raked"]
    injected = {int(h) for ids in gen.injected.values() for h in ids}
    assert set(e.column("hand_id").to_pylist()) == injected  # every bad row found, no good row set aside
    flagged = set(r.filter(r.column("mismatch")).column("hand_id").to_pylist())
    assert flagged and flagged <= set(gen.tampered.tolist())  # only tampered payouts differ
    assert ("low" in r.column_names) == REGISTRY[game].split_pots
    spec = REGISTRY[game]
    flat = np.concatenate([np.asarray(x) for x in r.column("score").to_pylist() if x])
    assert flat.max() < 9 << 20 and (flat > 0).any()
    if spec.lowest_rank:
        assert ("bad_card" in e.column("reason").to_pylist()) and spec.deck == range(16, 52)


def test_short_deck_cards_below_six_are_bad_and_the_order_is_an_option(tmp_path):
    # seat 0: a straight (A-6-7-8-9, the lowest); seat 1: three queens
    row = {"id": 1, "board": "6s7h8cQsQd", "cards": ["As9d", "QhKc"], "contrib": [10, 10]}
    low_card = {**row, "id": 2, "cards": ["As5d", "QhKc"]}
    table = _table([row, low_card], "shortdeck")
    pq.write_table(table, tmp_path / "sd.parquet")
    for flag, winner in (([], 0), (["--trips-beat-straight"], 1)):
        out = tmp_path / f"o{len(flag)}"
        done = cli("settle", str(tmp_path / "sd.parquet"), "--out", str(out), "--quiet", *flag)
        assert done.returncode == 0, done.stderr
        res = pq.read_table(out / "results")
        assert res.column("payout").to_pylist() == [[20 if s == winner else 0 for s in range(2)]]
        assert res.column("category").to_pylist() == [[4, 3]]  # Hold'em's codes whatever the order
        err = pq.read_table(out / "errors")
        assert err.column("reason").to_pylist() == ["bad_card"] and err.column("hand_id").to_pylist() == [2]
    s = cardbatch.settle(table, trips_beat_straight=True)
    assert s.results.column("payout").to_pylist() == [[0, 20]]


def test_the_api_settles_a_mixed_frame_of_every_game():
    tables = [generate_hands(g, 300, seed=5).table for g in ("holdem", *NEW)]
    mixed = pa.concat_tables(tables, promote_options="permissive")
    s = cardbatch.settle(mixed)
    assert s.summary["rows_read"] == 300 * len(tables) == s.results.num_rows + s.errors.num_rows
    assert set(s.summary["by_game"]) == {"holdem", *NEW}


@pytest.mark.parametrize("game", NEW)
def test_rank_decks_values_are_the_evaluators(game):
    spec = REGISTRY[game]
    hands = ranking.deal_and_evaluate(game, 300, 4, seed=9)
    deck = decks.from_rank(decks.deal_decks(300, 9), spec.lowest_rank)
    hole_pos, board_pos = decks.board_positions(4, spec.hole_cards)
    hole, board = deck[:, hole_pos], deck[:, board_pos]
    if spec.kernel() is omaha:
        want = np.stack([omaha.evaluate(hole[:, s], board) for s in range(4)], axis=1)
    else:
        want = np.stack([shortdeck.evaluate(np.concatenate([hole[:, s], board], axis=1)) for s in range(4)], axis=1)
    assert (hands.values == want).all() and (np.sort(deck, axis=1)[:, 0] >= 4 * spec.lowest_rank).all()
    r = ranking.rank(hands)
    assert (r.best == want.max(axis=1)).all()


def test_rank_decks_and_generate_commands(tmp_path):
    for game in ("omaha_hilo", "shortdeck"):
        done = cli(
            "rank-decks",
            "--game",
            game,
            "--decks",
            "500",
            "--players",
            "5",
            "--detail",
            "--out",
            str(tmp_path / f"{game}.parquet"),
            "--quiet",
        )
        assert done.returncode == 0, done.stderr
        t = pq.read_table(tmp_path / f"{game}.parquet")
        words = t.column("hands_text")[0].as_py().split()
        assert len(words) == 5 and {len(w) for w in words} == {2 * REGISTRY[game].hole_cards}
        done = cli(
            "generate", "--game", game, "--hands", "500", "--out", str(tmp_path / f"g-{game}.parquet"), "--quiet"
        )
        assert done.returncode == 0, done.stderr
        g = pq.read_table(tmp_path / f"g-{game}.parquet")
        assert set(g.column("game").to_pylist()) == {game}
        held = (
            cards.parse(g.column("cards")[0].as_py())
            if pa.types.is_string(g.schema.field("cards").type.value_type)
            else None
        )
        assert held is None or held.size


def test_simulate_refuses_the_games_it_does_not_play(tmp_path):
    from cardbatch.batch.simulate.room import Room

    with pytest.raises(ValueError, match="simulate plays"):
        Room(game="omaha")
    done = cli("simulate", "--game", "omaha", "--out", str(tmp_path / "s"))
    assert done.returncode == 2 and "invalid choice" in done.stderr


def test_an_omaha_shaped_row_is_told_in_every_card_layout():
    """Cards as codes, as a string per seat and as a string per hand, sliced and chunked: a row with
    four cards a seat is ``game_not_given``, whatever the layout, when no game was named."""
    table = _table([QUARTERED, SIDE_POT, {**QUARTERED, "id": 4}])
    per_seat = table.column("cards").to_pylist()
    codes = pa.array([cards.parse("".join(row)).tolist() for row in per_seat], pa.list_(pa.uint8()))
    per_hand = pa.array([" ".join(row) for row in per_seat])
    for col in (table.column("cards"), codes, per_hand):
        t = table.set_column(table.column_names.index("cards"), "cards", col)
        for part in (t, t.slice(1), pa.concat_tables([t.slice(0, 1), t.slice(1)])):
            _, e, _ = settle_table(part, SettleOptions())
            assert e.column("reason").to_pylist() == ["game_not_given"] * part.num_rows


def test_every_public_low_is_the_hand_in_hex_and_the_pot_takes_it_as_is():
    """A trial passed ``evaluate_low``'s values to ``pots.settle(low=)``, which took higher as better:
    the worse low won. Every public low is now the hand in hex (smaller wins), the pots' too."""
    from cardbatch.kernels import lowball, pots

    hole = cards.parse(["Ac2dJsQh", "Ah5hTs9s", "KsQsJdJc"])[None]
    board = cards.parse(["3c4d8hKcKd"])
    live = np.ones((1, 3), bool)
    score = omaha.evaluate_seats(hole, board, live, np.int64)
    by_hand = lowball.evaluate_low(hole[0], np.repeat(board, 3, axis=0))[None]
    assert by_hand.tolist() == lowball.low_seats(hole, board, live).tolist() == [[0x84321, 0x85431, 0]]
    assert pots.settle([[100, 100, 100]], live, score, 0, low=by_hand).tolist() == [[150, 0, 150]]


def test_a_game_folder_names_the_game_of_its_files(tmp_path):
    """A trial's logs partitioned by game (``game=shortdeck/``, no game column) were settled as Hold'em:
    wrong money, and the folder's value dropped. A ``game=G`` folder now names its files' game."""
    sd = {"id": 1, "board": "7d8s9hKcQd", "cards": ["Ah6c", "KhKs"], "contrib": [100, 100]}
    tables = {
        "shortdeck": _table([sd]),  # A-6-7-8-9: a straight in short deck, trip kings win in Hold'em
        "holdem": _table([{**sd, "id": 2}]),
        "omaha_hilo": _table([{**QUARTERED, "id": 3}]),
        "razz": _table([{**sd, "id": 4}]),
    }
    for game, table in tables.items():
        (tmp_path / "in" / f"game={game}").mkdir(parents=True)
        pq.write_table(table, tmp_path / "in" / f"game={game}" / "part.parquet")
    own = _table([{**sd, "id": 5}], "holdem")  # a game column of its own wins over the folder
    pq.write_table(own, tmp_path / "in" / "game=shortdeck" / "own.parquet")
    done = cli("settle", str(tmp_path / "in"), "--out", str(tmp_path / "out"), "--quiet")
    assert done.returncode == 0, done.stderr
    pay = {}
    for game in ("shortdeck", "holdem", "omaha_hilo"):
        res = pq.read_table(tmp_path / "out" / "results" / f"game={game}")
        assert "game" not in res.column_names  # the output's own game= folder holds it
        pay.update(zip(res.column("hand_id").to_pylist(), res.column("payout").to_pylist()))
    assert pay == {1: [200, 0], 2: [0, 200], 3: [0, 75, 225], 5: [0, 200]}
    err = pq.read_table(tmp_path / "out" / "errors")
    assert err.column("hand_id").to_pylist() == [4] and err.column("reason").to_pylist() == ["unknown_game"]


def test_second_trial_edges():
    """A second trial: a hand's text with seats of the wrong size moved cards between seats (now
    ``seat_count``); ``GAME=G`` folders were ignored; ``pots.settle`` took lows that cannot exist."""
    from cardbatch.kernels import pots

    row = {"id": 5, "board": "2d3d4d7hKs", "cards": ["x"], "contrib": [10, 10]}
    t = _table([row], "omaha_hilo")
    at = t.column_names.index("cards")
    t = t.set_column(at, "cards", pa.array(["AsKdQh 5c6c9cTcJc"]))
    _, e, _ = settle_table(t, SettleOptions())
    assert e.column("reason").to_pylist() == ["seat_count"]
    ok = t.set_column(at, "cards", pa.array(["AsKdQhJh 5c6c9cTc"]))
    r, e, _ = settle_table(ok, SettleOptions())
    assert e.num_rows == 0 and r.num_rows == 1
    holdem = _table([{**row, "cards": ["x"]}], "holdem").set_column(at, "cards", pa.array(["As KdQh5c"]))
    assert settle_table(holdem, SettleOptions())[1].column("reason").to_pylist() == ["seat_count"]
    board_words = _table([{"id": 6, "board": "2d3d4d 7h Ks", "cards": ["AsAc", "KdKc"], "contrib": [10, 10]}], "holdem")
    assert settle_table(board_words, SettleOptions())[0].num_rows == 1  # a board's words are streets, not seats
    for odd in (0x96421, 0xA6421, 0x12468, 0x88421, 0x8642, 1):
        with pytest.raises(ValueError, match="not an eight-or-better low"):
            pots.settle([[100, 100]], [[True, True]], [[9, 5]], 0, low=[[0, odd]])
    from cardbatch.batch.settle.outputs import folder_game, hive_keys

    assert folder_game("/logs/GAME=shortdeck/day=1/a.parquet") == "shortdeck"
    assert folder_game("/logs/game=omaha/game=omaha_hilo/a.parquet") == "omaha_hilo"  # the innermost
    assert hive_keys("/logs/GAME=shortdeck/day=1/a.parquet") == (("day", "1"),)
