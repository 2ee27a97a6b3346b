"""Card columns to codes (batch/settle/cardcols.py): text cards a string per seat or per hand, seats
separated by spaces, seats of the wrong size (``seat_count``), a board's words, and rows whose cards
fit several games: never guessed (``game_not_given``), whatever the layout."""

from __future__ import annotations

import pyarrow as pa
from flop_hands import QUARTERED, SIDE_POT, hands_table

import cardbatch
from cardbatch.batch.generate import generate_hands
from cardbatch.batch.settle.by_game import settle_table
from cardbatch.batch.settle.options import SettleOptions
from cardbatch.kernels import cards


def test_text_cards_one_string_a_hand_with_spaces_between_seats():
    """Found by a trial: one string per hand, seats separated by spaces (as errors/ writes
    ``cards_text``), was measured with its spaces, so 3 or more seats came out as ``seat_count``."""
    from cardbatch.kernels import cards

    hands = generate_hands("zjh", 300, seed=11, bad_rate=0.0).table
    per_seat = [
        " ".join(cards.format(list(c[k : k + 3])) for k in range(0, len(c), 3))
        for c in hands.column("cards").to_pylist()
    ]
    assert any(s.count(" ") >= 2 for s in per_seat)
    text = hands.set_column(hands.column_names.index("cards"), "cards", pa.array(per_seat))
    codes, spaced = cardbatch.settle(hands), cardbatch.settle(text)
    assert spaced.errors.num_rows == codes.errors.num_rows == 0
    assert spaced.results.drop_columns(["game"]).equals(codes.results.drop_columns(["game"]))


def test_omaha_is_never_guessed_from_the_columns(tmp_path):
    table = hands_table([QUARTERED, SIDE_POT])  # a board and four cards a seat, no game column
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


def test_an_omaha_shaped_row_is_told_in_every_card_layout():
    """Cards as codes, as a string per seat and as a string per hand, sliced and chunked: a row with
    four cards a seat is ``game_not_given``, whatever the layout, when no game was named."""
    table = hands_table([QUARTERED, SIDE_POT, {**QUARTERED, "id": 4}])
    per_seat = table.column("cards").to_pylist()
    codes = pa.array([cards.parse("".join(row)).tolist() for row in per_seat], pa.list_(pa.uint8()))
    per_hand = pa.array([" ".join(row) for row in per_seat])
    for col in (table.column("cards"), codes, per_hand):
        t = table.set_column(table.column_names.index("cards"), "cards", col)
        for part in (t, t.slice(1), pa.concat_tables([t.slice(0, 1), t.slice(1)])):
            _, e, _ = settle_table(part, SettleOptions())
            assert e.column("reason").to_pylist() == ["game_not_given"] * part.num_rows


def test_a_hands_text_with_seats_of_the_wrong_size_is_seat_count():
    """A second trial: a hand's text with seats of the wrong size moved cards between seats (now
    ``seat_count``); a board's words are its streets, not seats."""
    row = {"id": 5, "board": "2d3d4d7hKs", "cards": ["x"], "contrib": [10, 10]}
    t = hands_table([row], "omaha_hilo")
    at = t.column_names.index("cards")
    t = t.set_column(at, "cards", pa.array(["AsKdQh 5c6c9cTcJc"]))
    _, e, _ = settle_table(t, SettleOptions())
    assert e.column("reason").to_pylist() == ["seat_count"]
    ok = t.set_column(at, "cards", pa.array(["AsKdQhJh 5c6c9cTc"]))
    r, e, _ = settle_table(ok, SettleOptions())
    assert e.num_rows == 0 and r.num_rows == 1
    holdem = hands_table([{**row, "cards": ["x"]}], "holdem").set_column(at, "cards", pa.array(["As KdQh5c"]))
    assert settle_table(holdem, SettleOptions())[1].column("reason").to_pylist() == ["seat_count"]
    board_words = hands_table(
        [{"id": 6, "board": "2d3d4d 7h Ks", "cards": ["AsAc", "KdKc"], "contrib": [10, 10]}], "holdem"
    )
    assert settle_table(board_words, SettleOptions())[0].num_rows == 1  # a board's words are streets, not seats
