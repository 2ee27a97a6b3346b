"""Hands of the flop games beyond Hold'em written by hand (Omaha, Omaha hi/lo, short deck), as Arrow
tables the settle job reads: shared by the tests of settling, card columns, output folders."""

from __future__ import annotations

import pyarrow as pa

from cardbatch.games import GAMES, REGISTRY

NEW = [g for g in GAMES if g != "holdem" and REGISTRY[g].board_cards]  # the flop games beyond Hold'em
BOARD = "2c3d8hKcKs"


def hands_table(rows: list[dict], game: str | None = None) -> pa.Table:
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
