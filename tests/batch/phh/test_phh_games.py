"""PHH import of the registry's flop games beyond Hold'em: pot-limit Omaha (``PO``), Omaha hi/lo
(``FO/8``) and short deck (``NS``), on real hands with recorded results, hands written here, and the
variants that stay set aside; and the whole WSOP corpus (its stud and draw hands too) through the
real ``import`` and ``audit`` commands (test_phh_studdraw.py tests those games' replay)."""

from __future__ import annotations

import json

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import TEST_DATA, cli

from cardbatch.batch.io.jobs import RunOptions
from cardbatch.batch.phh import hands, notation, replay
from cardbatch.batch.phh.job import ImportOptions, errors_path, run_import
from cardbatch.batch.settle.by_game import settle_table
from cardbatch.batch.settle.options import SettleOptions
from cardbatch.games import REGISTRY

WSOP = TEST_DATA / "phh" / "wsop"
SHORT_DECK = TEST_DATA / "phh" / "shortdeck"


def quiet() -> ImportOptions:
    return ImportOptions(run=RunOptions(quiet=True))


def _fields(path) -> dict:
    return notation.parse(path.read_text())


def _import(tmp_path, *inputs, name: str = "h"):
    out = tmp_path / f"{name}.parquet"
    summary = run_import([str(i) for i in inputs], str(out), quiet())
    return summary, pq.read_table(out), pq.read_table(errors_path(str(out)))


def _settled_pay(hands, opts: SettleOptions | None = None) -> dict[str, list[int]]:
    """source -> our payouts (the recorded payout is not read)."""
    results, errors, _ = settle_table(hands.drop_columns(["payout"]), opts or SettleOptions())
    assert errors.num_rows == 0, errors.column("reason").to_pylist()
    by_id = dict(zip(results.column("hand_id").to_pylist(), results.column("payout").to_pylist()))
    return {src: by_id[h] for h, src in zip(hands.column("hand_id").to_pylist(), hands.column("source").to_pylist())}


def _settled_stacks(hands, opts: SettleOptions | None = None) -> dict[str, list[int]]:
    """source -> the stacks our settlement leaves: starting stack - chips put in + our payout."""
    paid = _settled_pay(hands, opts)
    out = {}
    for src, stack, contrib in zip(
        hands.column("source").to_pylist(),
        hands.column("stack").to_pylist(),
        hands.column("contrib_street").to_pylist(),
    ):
        put_in = np.array(contrib).reshape(replay.STREETS, -1).sum(axis=0)
        out[src] = [int(v) for v in np.array(stack) - put_in + np.array(paid[src])]
    return out


def test_the_variants_are_the_registry_games():
    """Each code the registry lists for a game with a board becomes its game; the games with five or
    six hole cards have no code of their own and are reached through their family's. The stud and
    draw games' codes are the games without a board (one game a code)."""
    assert {code: g.name for code, g in replay.GAME_OF.items()} == {
        code: g.name for g in REGISTRY.values() if g.board_cards for code in g.phh_variants
    }
    own = {code: g.name for g in REGISTRY.values() if not g.board_cards for code in g.phh_variants}
    assert own == {
        "F7S": "stud",
        "F7S/8": "stud_hilo",
        "FR": "razz",
        "N2L1D": "draw27_single",
        "F2L3D": "draw27_triple",
        "FB": "badugi",
    }
    assert {code: g.name for code, g in replay.OWN_CARDS_OF.items()} == own
    assert set(replay.SUPPORTED) == {"NT", "FT", "PO", "FO/8", "NS", *own}
    family = {code: sorted((k, g.name) for k, g in games.items()) for code, games in replay.BY_HOLE_CARDS.items()}
    assert family["PO"] == [(4, "omaha"), (5, "omaha5"), (6, "omaha6")]
    assert family["FO/8"] == [(4, "omaha_hilo"), (5, "omaha5_hilo")]
    assert family["NT"] == family["FT"] == [(2, "holdem")] and family["NS"] == [(2, "shortdeck")]


# the real hands: the 2023 WSOP Event #43 final table -------------------------------------------


def test_wsop_omaha_and_hilo_hands_import_and_audit_exactly(tmp_path):
    """All 7 pot-limit Omaha and 14 Omaha hi/lo hands of the corpus import (none set aside) and
    settle to their recorded finishing stacks."""
    variants = {p.name: _fields(p)["variant"] for p in WSOP.glob("*.phh")}
    by_variant = {v: sorted(n for n, w in variants.items() if w == v) for v in set(variants.values())}
    assert (len(by_variant["PO"]), len(by_variant["FO/8"])) == (7, 14)
    s, hands, errors = _import(tmp_path, WSOP)
    assert (s["hands_read"], s["hands_imported"], s["rejected_by_reason"]) == (70, 70, {})
    omaha = hands.filter(pa.array([v in ("PO", "FO/8") for v in hands.column("variant").to_pylist()]))
    assert sorted(omaha.column("source").to_pylist()) == sorted(by_variant["PO"] + by_variant["FO/8"])
    games = dict(zip(omaha.column("source").to_pylist(), omaha.column("game").to_pylist()))
    assert {n: games[n] for n in by_variant["PO"]} == dict.fromkeys(by_variant["PO"], "omaha")
    assert {n: games[n] for n in by_variant["FO/8"]} == dict.fromkeys(by_variant["FO/8"], "omaha_hilo")
    seats = [len(f) for f in omaha.column("folded").to_pylist()]
    assert [len(c) for c in omaha.column("cards").to_pylist()] == [4 * n for n in seats]

    results, errs, counters = settle_table(omaha, SettleOptions.of(audit=True))
    assert errs.num_rows == 0 and results.num_rows == 21
    assert counters["mismatches"] == 0 and results.column("mismatch").to_pylist() == [False] * 21
    assert {g: c["rows_settled"] for g, c in counters["by_game"].items()} == {"omaha": 7, "omaha_hilo": 14}
    # and the stacks our settlement leaves are the files' finishing stacks, read apart from the payout
    recorded = {p.name: _fields(p)["finishing_stacks"] for p in WSOP.glob("*.phh")}
    assert _settled_stacks(omaha) == {n: recorded[n] for n in omaha.column("source").to_pylist()}

    paid = _settled_pay(omaha)
    # hi/lo shapes the corpus holds: the high to one seat and the low to another (18); a low tied and
    # quartered (15: 3,700,000, p2's high half and a quarter each of the low); a main pot and a side pot
    # (79, p2 all in), each with p1's high and a low p1 and p3 share; p2's full house for the high and
    # p1's low (81)
    assert paid["18.phh"] == [0, 1250000, 0, 1250000, 0]
    assert paid["15.phh"] == [0, 1850000 + 925000, 0, 925000, 0]
    assert paid["79.phh"] == [4425000, 0, 1475000]
    assert paid["81.phh"] == [3600000, 3600000]


def test_the_command_line_imports_and_audits_the_corpus(tmp_path):
    """The real commands, as a user runs them, on the 70 WSOP hands: ``import`` takes every one (the
    44 stud, stud hi/lo, razz and deuce-to-seven draw hands with the Hold'em and Omaha ones) and
    ``audit`` finds no mismatch; and the stacks the audit's own payouts leave (starting stack, less
    the chips put in, plus the payout) are each file's recorded finishing stacks."""
    out = tmp_path / "wsop.parquet"
    res = cli("import", str(WSOP), "--out", str(out), env={})  # each command a process of its own
    assert res.returncode == 0, res.stderr
    summary = json.loads(res.stdout)
    assert (summary["hands_imported"], summary["rejected_by_reason"]) == (70, {})
    res = cli("audit", str(out), "--out", str(tmp_path / "audit"), env={})
    assert res.returncode == 0, res.stderr  # 3 would be a mismatch
    audit = json.loads(res.stdout)
    assert audit["mismatches"] == 0 and audit["rows_rejected"] == 0
    assert {g: c["rows_settled"] for g, c in audit["by_game"].items()} == {
        "holdem": 5,
        "omaha": 7,
        "omaha_hilo": 14,
        "stud": 13,
        "stud_hilo": 7,
        "razz": 10,
        "draw27_single": 7,
        "draw27_triple": 7,
    }
    results = pq.read_table(tmp_path / "audit" / "results", columns=["hand_id", "payout", "mismatch"])
    assert results.num_rows == 70 and not any(results.column("mismatch").to_pylist())
    paid = dict(zip(results.column("hand_id").to_pylist(), results.column("payout").to_pylist()))
    hands = pq.read_table(out).to_pylist()
    recorded = {p.name: _fields(p)["finishing_stacks"] for p in WSOP.glob("*.phh")}
    for h in hands:
        put_in = np.array(h["contrib_street"]).reshape(-1, len(h["stack"])).sum(axis=0)
        assert (np.array(h["stack"]) - put_in + paid[h["hand_id"]]).tolist() == recorded[h["source"]], h["source"]


# what stays set aside, and what is refused ---------------------------------------------------------

PO_HAND = """variant = 'PO'
ante_trimming_status = true
antes = [0, 0, 0]
blinds_or_straddles = [1, 2, 0]
min_bet = 2
starting_stacks = [100, 100, 100]
actions = ['d dh p1 {p1}', 'd dh p2 {p2}', 'd dh p3 {p3}', 'p3 f', 'p1 cc', 'p2 cc', 'd db AhAc7d', 'p1 cc', 'p2 cc',
 'd db 2s', 'p1 cc', 'p2 cc', 'd db 9c', 'p1 cbr 10', 'p2 cc', 'p1 sm {p1}', 'p2 sm {p2}']
finishing_stacks = [112, 88, 100]
"""


@pytest.mark.parametrize("code", ["PO/8", "NB", "XX"])
def test_unknown_variants_stay_set_aside(code):
    """A code no registry game lists: set aside by name, the message saying which variants are read
    as which games (the stud and draw games' codes among them)."""
    text = PO_HAND.format(p1="AsAdJh8c", p2="KsKdQsQd", p3="????????").replace("'PO'", repr(code))
    with pytest.raises(replay.Rejected) as exc:
        hands.replay(notation.parse(text))
    assert exc.value.reason == "unsupported_variant"
    message = str(exc.value)
    assert repr(code) in message
    assert all(c in message and spec.name in message for c, spec in replay.GAME_OF.items())
    assert all(f"{c} as {spec.name}" in message for c, spec in replay.OWN_CARDS_OF.items())
    assert "omaha5" in message and "omaha6" in message  # the family's games too


def test_the_corpus_stud_and_draw_hands_that_were_set_aside_import():
    """The two hands once set aside as other variants: 5.phh (seven-card stud: p5's three of spades,
    the lowest up card, brings in; p4 completes; on fifth street p5 bets and p4 folds) and 43.phh
    (deuce-to-seven single draw, a dead big-blind ante: p1 raises before the draw, p2 folds)."""
    stud = hands.replay(_fields(WSOP / "5.phh"))
    assert (stud.game, stud.variant, stud.button, stud.seats) == ("stud", "F7S", None, 5)
    assert stud.contrib_street == [
        *[50000, 50000, 50000, 250000, 250000],  # third street: the antes, the bring-in completed and called
        *[0, 0, 0, 0, 0],  # fourth: checked
        *[0, 0, 0, 0, 0],  # fifth: p5's bet of 400,000 uncalled, handed back
        *[0] * 10,
    ]
    assert stud.dead == [0] * 5 and stud.folded == [True, True, True, True, False]
    assert stud.payout == [0, 0, 0, 0, 650000]
    # the cards as dealt, 255 for the streets a seat never saw
    assert stud.cards[:7] == replay.parse_cards("Td3c4d") + [255] * 4
    p4, p5 = replay.parse_cards("8c5sQc6dAh"), replay.parse_cards("Kc8s3s9sAd")
    assert stud.cards[21:] == p4 + [255] * 2 + p5 + [255] * 2
    assert stud.board == [255] * 5 and stud.discards is None
    draw = hands.replay(_fields(WSOP / "43.phh"))
    assert (draw.game, draw.variant, draw.button, draw.seats) == ("draw27_single", "N2L1D", 4, 5)
    # p1's raise to 1,000,000 is called by nobody: all but the big blind's 150,000 goes back (p2's
    # 375,000: its dead ante of 225,000 and its blind)
    assert draw.contrib_street == [150000, 375000, 0, 0, 0] + [0] * 5
    assert draw.dead == [0, 225000, 0, 0, 0] and draw.payout == [525000, 0, 0, 0, 0]
    assert draw.cards[:5] == replay.parse_cards("KdJhTc6s3c") and draw.discards == [[]] * 5


@pytest.mark.parametrize(
    "variant, holes, words",
    [
        ("PO", ("AsAdJh", "KsKdQs", "??????"), "3 hole cards a seat: PO is imported as omaha (4 hole cards), omaha5"),
        ("PO", ("AsAdJh8c3c4d2h", "KsKdQsQdJsTs9s", "??"), "more than 6 hole cards for p1 in PO"),
        ("FO/8", ("AsAdJh8c3c4d", "KsKdQsQdJsTs", "??"), "more than 5 hole cards for p1 in FO/8"),
        ("NT", ("AsAdJh8c", "KsKdQsQd", "????????"), "more than 2 hole cards for p1 in NT"),
        ("NS", ("AsAdJh8c", "KsKdQsQd", "????????"), "more than 2 hole cards for p1 in NS"),
        ("PO", ("AsAdJh8c", "KsKdQsQdJs", "????????"), "different numbers of hole cards (p1: 4, p2: 5, p3: 4)"),
        ("PO", ("AsAdJh8c", "KsKdQsQd", "????"), "different numbers of hole cards (p1: 4, p2: 4, p3: 2)"),
    ],
)
def test_hole_cards_no_game_holds_are_refused(variant, holes, words):
    """A hand whose seats hold a number of hole cards no game of its variant's family holds, or
    different numbers, is ``hole_cards`` with a message that says so (never imported as another game)."""
    text = PO_HAND.format(p1=holes[0], p2=holes[1], p3=holes[2]).replace("'PO'", repr(variant))
    if variant.startswith("F"):  # a fixed-limit game states its two bet sizes
        text = text.replace("min_bet = 2", "small_bet = 2\nbig_bet = 4")
    with pytest.raises(replay.Rejected) as exc:
        hands.replay(notation.parse(text))
    assert exc.value.reason == "hole_cards"
    assert words in str(exc.value)


def test_a_shown_hand_of_another_size_is_refused():
    text = PO_HAND.format(p1="AsAdJh8c", p2="KsKdQsQd", p3="????????").replace("'p2 sm KsKdQsQd'", "'p2 sm KsKd'")
    with pytest.raises(replay.Rejected, match="p2 shows 2 cards of the 4 a seat holds") as exc:
        hands.replay(notation.parse(text))
    assert exc.value.reason == "hole_cards"


def test_a_short_deck_card_below_six_is_a_bad_card():
    text = PO_HAND.format(p1="AsKh", p2="KsKd", p3="????").replace("'PO'", "'NS'")
    with pytest.raises(replay.Rejected, match="2s is not in the shortdeck deck") as exc:
        hands.replay(notation.parse(text))
    assert exc.value.reason == "bad_card"


def test_seat_limits_are_the_games():
    """Seats from the spec: Omaha takes 11, Omaha with six hole cards 7."""
    assert (REGISTRY["omaha"].max_seats, REGISTRY["omaha6"].max_seats) == (11, 7)
    text = PO_HAND.replace("[0, 0, 0]", str([0] * 12)).replace("[1, 2, 0]", str([1, 2] + [0] * 10))
    text = text.replace("[100, 100, 100]", str([100] * 12))
    with pytest.raises(replay.Rejected, match=r"12 players: PO \(omaha .*\) takes 2..11") as exc:
        hands.replay(notation.parse(text.format(p1="AsAdJh8c", p2="KsKdQsQd", p3="????????")))
    assert exc.value.reason == "seat_count"
    eight = {"antes": [0] * 8, "blinds_or_straddles": [1, 2] + [0] * 6, "starting_stacks": [100] * 8, "min_bet": 2}
    fields = {"variant": "PO", **eight, "actions": [f"d dh p{s + 1} " + "??" * 6 for s in range(8)]}
    fields["actions"] += ["p3 f", "p4 f", "p5 f", "p6 f", "p7 f", "p8 f", "p1 f"]
    with pytest.raises(replay.Rejected, match="8 players: omaha6 takes 2..7") as exc:
        hands.replay(fields)
    assert exc.value.reason == "seat_count"


# Omaha with five and six hole cards: a PO or FO/8 hand that deals them -----------------------------


def test_five_and_six_hole_cards_are_the_games_that_hold_them(tmp_path):
    """``PO`` dealt five or six cards a seat is Omaha with five or six hole cards, ``FO/8`` dealt five
    is Omaha hi/lo with five: found in the registry by their hole cards and their split, settled and
    audited to the stacks written here (p1's two aces and the board's two make four aces, the best
    hand with exactly two hole cards)."""
    d = tmp_path / "in"
    d.mkdir()
    (d / "po4.phh").write_text(PO_HAND.format(p1="AsAdJh8c", p2="KsKdQsQd", p3="????????"))
    (d / "po5.phh").write_text(PO_HAND.format(p1="AsAdJh8c3c", p2="KsKdQsQdJs", p3="??????????"))
    (d / "po6.phh").write_text(PO_HAND.format(p1="AsAdJh8c3c4d", p2="KsKdQsQdJsTs", p3="????????????"))
    # hi/lo with five: p3 calls and folds on the flop; p2's three aces take the high half of the 18
    # chips, p1's 6-4-3-2-A the low half
    hilo5 = """variant = 'FO/8'
ante_trimming_status = true
antes = [0, 0, 0]
blinds_or_straddles = [1, 2, 0]
small_bet = 2
big_bet = 4
starting_stacks = [100, 100, 100]
actions = ['d dh p1 3s6cTdThJs', 'd dh p2 AhAcQsQhJd', 'd dh p3 ??????????', 'p3 cc', 'p1 cc', 'p2 cc',
 'd db AsKd7c', 'p1 cc', 'p2 cbr 2', 'p3 f', 'p1 cc', 'd db 4h', 'p1 cc', 'p2 cbr 4', 'p1 cc', 'd db 2d', 'p1 cc',
 'p2 cc', 'p1 sm 3s6cTdThJs', 'p2 sm AhAcQsQhJd']
finishing_stacks = [101, 101, 98]
"""
    (d / "hilo5.phh").write_text(hilo5)
    s, hands, _ = _import(tmp_path, d)
    assert s["hands_imported"] == 4, s
    games = dict(zip(hands.column("source").to_pylist(), hands.column("game").to_pylist()))
    assert games == {"po4.phh": "omaha", "po5.phh": "omaha5", "po6.phh": "omaha6", "hilo5.phh": "omaha5_hilo"}
    cards = dict(zip(hands.column("source").to_pylist(), hands.column("cards").to_pylist()))
    assert [len(cards[f"po{k}.phh"]) for k in (4, 5, 6)] == [12, 15, 18] and len(cards["hilo5.phh"]) == 15
    results, errs, counters = settle_table(hands, SettleOptions.of(audit=True))
    assert errs.num_rows == 0 and counters["mismatches"] == 0 and results.num_rows == 4


# short deck ------------------------------------------------------------------------------------

# the stacks pokerkit's own tests play this hand to (``test_phua_xuan_2019``); the file records none
PHUA_XUAN_STACKS = [489000, 226000, 684000, 400000, 0, 198000]


def test_a_real_short_deck_hand(tmp_path):
    """The Triton London 2019 hand in pokerkit's examples: six seats, an ante each and a button blind
    (read as the file writes them, as for Hold'em), Phua's three kings against Xuan's queens, who
    rivers a straight. Imported as short deck with no recorded result; settled, it leaves the stacks
    pokerkit's own test gives. A straight beats three of a kind in the standard order (pokerkit's and
    ours by default); a table that plays trips over straights (``trips_beat_straight``) gives Phua
    the pot: PHH has no field for that rule, so the audit takes the settle option."""
    s, hands, _ = _import(tmp_path, SHORT_DECK)
    assert (s["hands_imported"], s["chip_factor"]) == (1, 1)
    row = hands.to_pylist()[0]
    assert (row["game"], row["variant"], row["payout"]) == ("shortdeck", "NS", None)
    assert row["contrib_street"][:6] == [6000, 6000, 301000, 3000, 301000, 6000]
    assert _settled_stacks(hands)["phua-xuan-2019.phh"] == PHUA_XUAN_STACKS
    trips_first = _settled_stacks(hands, SettleOptions(trips_beat_straight=True))["phua-xuan-2019.phh"]
    assert trips_first == [489000, 226000, 61000, 400000, 623000, 198000]


# hands written here, their finishing stacks computed by pokerkit's NoLimitShortDeckHoldem state
SHORT_DECK_HANDS = {
    # three seats, an ante each and a button blind: p1's flush beats p2's full house (in short deck a
    # flush ranks above a full house)
    "flush_over_full_house.phh": """variant = 'NS'
ante_trimming_status = true
antes = [1, 1, 1]
blinds_or_straddles = [0, 0, 2]
min_bet = 2
starting_stacks = [100, 100, 100]
actions = ['d dh p1 AhKh', 'd dh p2 QdQc', 'd dh p3 8s8d', 'p1 cbr 6', 'p2 cc', 'p3 cc', 'd db Qh9h6h', 'p1 cbr 10',
 'p2 cbr 93', 'p3 f', 'p1 cc', 'p2 sm QdQc', 'p1 sm AhKh', 'd db 7d', 'd db 7c']
""",
    # heads-up (p2, the button, posts the small blind and acts first): A-6-7-8-9, the short deck's lowest
    # straight, against three tens, all in before the flop
    "ace_to_nine_straight.phh": """variant = 'NS'
ante_trimming_status = true
antes = [1, 1]
blinds_or_straddles = [1, 2]
min_bet = 2
starting_stacks = [100, 100]
actions = ['d dh p1 Ah9c', 'd dh p2 TsTd', 'p2 cbr 99', 'p1 cc', 'p1 sm Ah9c', 'p2 sm TsTd', 'd db 6d7s8h', 'd db Tc',
 'd db Kd']
""",
    # four seats, two all in: p1's three aces take the main pot, p2's kings the side pot over p3's queens
    "side_pot.phh": """variant = 'NS'
ante_trimming_status = true
antes = [1, 1, 1, 1]
blinds_or_straddles = [0, 0, 0, 2]
min_bet = 2
starting_stacks = [20, 60, 100, 100]
actions = ['d dh p1 AsAd', 'd dh p2 KsKd', 'd dh p3 QsQh', 'd dh p4 7c6c', 'p1 cbr 19', 'p2 cbr 59', 'p3 cc', 'p4 f',
 'p2 sm KsKd', 'p3 sm QsQh', 'p1 sm AsAd', 'd db Ah6s7d', 'd db Ts', 'd db 9h']
""",
}
# the stacks pokerkit gives (checked below)
SHORT_DECK_STACKS = {
    "flush_over_full_house.phh": [207, 0, 93],
    "ace_to_nine_straight.phh": [200, 0],
    "side_pot.phh": [63, 80, 40, 97],
}


def _pokerkit_stacks(text: str) -> tuple[str, list[int]]:
    import warnings

    pokerkit = pytest.importorskip("pokerkit")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        hh = pokerkit.HandHistory.loads(text)
        *_, state = iter(hh)
    return type(hh.create_game()).__name__, [int(v) for v in state.stacks]


def test_short_deck_hands_written_here_audit_to_pokerkit_stacks(tmp_path):
    """Three short-deck hands written for this test; pokerkit's NoLimitShortDeckHoldem plays each to
    the finishing stacks the file then records, and the import and audit find no mismatch."""
    d = tmp_path / "in"
    d.mkdir()
    for name, text in SHORT_DECK_HANDS.items():
        game, stacks = _pokerkit_stacks(text)
        assert game == "NoLimitShortDeckHoldem"
        assert stacks == SHORT_DECK_STACKS[name]
        (d / name).write_text(text + f"finishing_stacks = {stacks}\n")
    s, hands, _ = _import(tmp_path, d)
    assert s["hands_imported"] == 3 and set(hands.column("game").to_pylist()) == {"shortdeck"}
    results, errs, counters = settle_table(hands, SettleOptions.of(audit=True))
    assert errs.num_rows == 0 and counters["mismatches"] == 0 and results.num_rows == 3
    # trips over straights moves only the A-6-7-8-9 hand
    trips_first = _settled_stacks(hands, SettleOptions(trips_beat_straight=True))
    assert trips_first == {**SHORT_DECK_STACKS, "ace_to_nine_straight.phh": [0, 200]}


def test_the_real_short_deck_hand_is_what_pokerkit_plays():
    game, stacks = _pokerkit_stacks((SHORT_DECK / "phua-xuan-2019.phh").read_text())
    assert (game, stacks) == ("NoLimitShortDeckHoldem", PHUA_XUAN_STACKS)


def test_an_odd_chip_between_hi_and_lo_halves_goes_high_as_pokerkit_gives_it(tmp_path):
    """No corpus pot splits on an odd chip (every amount is a multiple of 25,000); this hand's 17
    chips do: the low half is 8 and the high half 9, ours and pokerkit's alike."""
    text = """variant = 'FO/8'
ante_trimming_status = true
antes = [0, 0, 0]
blinds_or_straddles = [1, 2, 0]
small_bet = 2
big_bet = 4
starting_stacks = [100, 100, 100]
actions = ['d dh p1 Js9d8c8h', 'd dh p2 AhAcQsQh', 'd dh p3 3s6cTdTh', 'p3 cc', 'p1 f', 'p2 cc', 'd db AsKd7c',
 'p2 cbr 2', 'p3 cc', 'd db 4h', 'p2 cbr 4', 'p3 cc', 'd db 2d', 'p2 cc', 'p3 cc', 'p2 sm AhAcQsQh', 'p3 sm 3s6cTdTh']
"""
    game, stacks = _pokerkit_stacks(text)
    assert (game, stacks) == ("FixedLimitOmahaHoldemHighLowSplitEightOrBetter", [99, 101, 100])
    (tmp_path / "odd.phh").write_text(text + f"finishing_stacks = {stacks}\n")
    _, hands, _ = _import(tmp_path, tmp_path / "odd.phh")
    results, _, counters = settle_table(hands, SettleOptions.of(audit=True))
    assert results.column("payout").to_pylist() == [[0, 9, 8]] and counters["mismatches"] == 0
