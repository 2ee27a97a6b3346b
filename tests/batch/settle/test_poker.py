"""Settling by the reference's four steps (batch/settle/poker.py) for the flop games beyond Hold'em:
Omaha hi/lo pots split per pot, per-street policies refused for split pots, generated logs of every
game settled and audited exactly, short deck's bad cards and its order of trips and straight."""

from __future__ import annotations

import json

import numpy as np
import pyarrow.parquet as pq
import pytest
from conftest import cli
from flop_hands import LOW, NEW, ODD_CHIP, QUARTERED, SIDE_POT, hands_table

import cardbatch
from cardbatch.batch.generate import generate_hands
from cardbatch.batch.settle.by_game import settle_table
from cardbatch.batch.settle.options import SettleOptions
from cardbatch.games import REGISTRY


def test_hi_lo_pots_split_per_pot_as_the_rules_say(tmp_path):
    table = hands_table([QUARTERED, ODD_CHIP, SIDE_POT], "omaha_hilo")
    pq.write_table(table, tmp_path / "hilo.parquet")
    done = cli("audit", str(tmp_path / "hilo.parquet"), "--out", str(tmp_path / "out"), "--quiet")
    assert done.returncode == 0, done.stderr  # every payout as recorded: no mismatch
    res = pq.read_table(tmp_path / "out" / "results").sort_by("hand_id")
    assert res.column("payout").to_pylist() == [[0, 75, 225], [0, 76, 227], [75, 0, 375]]
    assert res.column("low").to_pylist() == [[0, LOW, LOW], [0, LOW, LOW], [LOW, 0, 0]]
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["chips_in"] == summary["chips_paid"] == 300 + 303 + 450


def test_hi_lo_under_a_per_street_policy_is_set_aside_or_refused(tmp_path):
    table = hands_table([QUARTERED, SIDE_POT], "omaha_hilo")
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
    table = hands_table([row, low_card], "shortdeck")
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
