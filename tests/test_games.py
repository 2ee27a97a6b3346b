"""The game registry (cardbatch.games): one spec per game, what the kernels and the command line
agree with, and a clear error for any other name."""

from __future__ import annotations

import argparse
import dataclasses

import numpy as np
import pytest

from cardbatch import games
from cardbatch.games import GAMES, HOLDEM, TEAM2V2, ZJH, game


def test_one_frozen_spec_per_game():
    assert GAMES[:3] == ("holdem", "zjh", "team2v2") and (HOLDEM, ZJH, TEAM2V2) == tuple(map(game, GAMES[:3]))
    assert GAMES[3:9] == ("omaha", "omaha5", "omaha6", "omaha_hilo", "omaha5_hilo", "shortdeck")
    assert GAMES[9:] == ("stud", "stud_hilo", "razz", "draw27_single", "draw27_triple", "badugi", "draw5")
    for name in GAMES:
        spec = game(name)
        assert spec.name == name and spec.deck_size == len(spec.deck) == 4 * (13 - spec.lowest_rank)
        assert spec.split_pots == name.endswith("_hilo")
        assert spec.min_seats <= spec.max_seats and spec.dealt_seats <= spec.max_seats
        assert spec.hole_cards * spec.dealt_seats + spec.board_cards <= spec.deck_size
        with pytest.raises(dataclasses.FrozenInstanceError):
            spec.name = "other"  # type: ignore[misc]
    assert (HOLDEM.board_cards, ZJH.board_cards, TEAM2V2.board_cards) == (5, 0, 0)


@pytest.mark.parametrize("name", ["omaha4", "Holdem", "", None, "zjh_suited", "stud8", "draw27"])
def test_an_unknown_game_is_a_value_error_never_another_games_rules(name):
    with pytest.raises(ValueError, match=f"got {name!r}"):
        game(name)


def test_a_game_without_hands_has_no_evaluator():
    assert not TEAM2V2.has_hands and games.games_with_hands() == tuple(g for g in GAMES if g != "team2v2")
    with pytest.raises(ValueError, match="no hand evaluator"):
        TEAM2V2.kernel()


def test_the_specs_agree_with_the_kernels():
    from cardbatch.kernels import decks, holdem, threecard

    assert HOLDEM.kernel() is holdem and ZJH.kernel() is threecard
    assert HOLDEM.category_names == holdem.CATEGORY_NAMES
    assert ZJH.category_names == threecard.category_names("zjh")  # the default preset's names
    assert (HOLDEM.dealt_seats, ZJH.dealt_seats) == (decks.MAX_HOLDEM_PLAYERS, decks.MAX_ZJH_PLAYERS)
    royal = holdem.evaluate(np.array([[51, 47, 43, 39, 35, 0, 1]], np.uint8))
    assert HOLDEM.classes == holdem.SCORE_OF_DENSE.size - 1 and holdem.dense_rank(royal)[0] == 1  # 1 = the best
    assert (royal >> HOLDEM.category_shift)[0] == holdem.category_of(royal)[0] == 8
    assert np.dtype(HOLDEM.score_type) == np.uint32 and np.dtype(ZJH.score_type) == np.int64


def test_the_new_games_specs():
    from cardbatch.kernels import omaha, shortdeck

    for name, hole, seats in (("omaha", 4, 11), ("omaha5", 5, 9), ("omaha6", 6, 7), ("omaha_hilo", 4, 11)):
        spec = game(name)
        assert (spec.hole_cards, spec.max_seats, spec.board_cards) == (hole, seats, 5)
        assert spec.kernel() is omaha and spec.category_shift == 20 and spec.category_names == HOLDEM.category_names
        assert spec.hole_cards * spec.max_seats + 5 <= 52 < spec.hole_cards * (spec.max_seats + 1) + 5
    sd = game("shortdeck")
    assert sd.kernel() is shortdeck and sd.deck == range(16, 52) and sd.straight_order_option
    assert sd.hole_cards * sd.max_seats + 5 <= 36 and sd.hole_cards * sd.dealt_seats + 8 <= 36
    assert [g.name for g in games.REGISTRY.values() if "PO" in g.phh_variants] == ["omaha"]


def test_the_games_without_a_board():
    """Stud, razz and the draw games: a seat's own cards, as many seats as the deck holds hands, the
    evaluator and the order its values keep, where pots split, and whether the game has a button."""
    from cardbatch.kernels import badugi, deuce7, razz, stud

    expect = {  # hole cards, most seats, kernel, order, low kernel, button, dealt cards, PHH codes
        "stud": (7, 7, stud, "high", None, False, True, ("F7S",)),
        "stud_hilo": (7, 7, stud, "high", "razz", False, True, ("F7S/8",)),
        "razz": (7, 7, razz, "low", None, False, True, ("FR",)),
        "draw27_single": (5, 10, deuce7, "low", None, True, False, ("N2L1D",)),
        "draw27_triple": (5, 10, deuce7, "low", None, True, False, ("F2L3D",)),
        "badugi": (4, 13, badugi, "low", None, True, False, ("FB",)),
        "draw5": (5, 10, stud, "high", None, True, False, ()),
    }
    for name, (hole, seats, kernel, order, low, button, dealt, codes) in expect.items():
        spec = game(name)
        assert (spec.hole_cards, spec.max_seats, spec.kernel(), spec.score_order) == (hole, seats, kernel, order)
        assert (spec.low_evaluator, spec.button, spec.cards_as_dealt, spec.phh_variants) == (low, button, dealt, codes)
        assert spec.board_cards == 0 and spec.dealt_seats == spec.max_seats and not spec.simulated
        assert hole * seats <= 52 < hole * (seats + 1), name  # no burn cards: as many hands as the deck holds
        assert ("button" in spec.required) == button and spec.split_pots == (low is not None)
        assert spec.classes == getattr(kernel, "CLASSES", HOLDEM.classes)
    # the categories the results show are the kernels' codes, named by the spec
    # (razz: Hold'em's codes of the groups, a hand without a pair "no pair", as Rules and Formats say)
    assert game("razz").category_names == ("no pair", *HOLDEM.category_names[1:])
    assert game("badugi").category_names[4] == "badugi"
    assert games.infer(["hand_id", "cards", "folded"]) is ZJH  # never guessed from the columns


def test_a_file_without_a_game_column_is_told_by_its_columns():
    assert games.infer([*TEAM2V2.required, "board"]) is TEAM2V2  # every 2v2 column, a board of its own too
    assert games.infer(["hand_id", "balance", "board", "cards"]) is HOLDEM  # one 2v2 name is the user's column
    assert games.infer(["hand_id", "board", "cards"]) is HOLDEM
    assert games.infer(["hand_id", "cards"]) is ZJH


def test_the_command_line_offers_the_registrys_games():
    from cardbatch.batch.cli import build_parser

    action = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    for command, offered in (
        ("settle", GAMES),
        ("audit", GAMES),
        ("generate", GAMES),
        ("simulate", games.simulated_games()),
        ("rank-decks", games.games_with_hands()),
    ):
        option = next(a for a in action.choices[command]._actions if "--game" in a.option_strings)
        assert tuple(option.choices) == offered, command


@pytest.mark.parametrize("name", GAMES)
def test_a_games_results_fill_its_result_columns_and_no_other(name):
    """The registry says which result columns a game fills: a settled batch of it has values in
    each (a recorded payout given) and nulls in every other game's."""
    import pyarrow.compute as pc

    from cardbatch.batch.generate import generate_hands, generate_teams
    from cardbatch.batch.settle.by_game import settle_table
    from cardbatch.batch.settle.options import SettleOptions
    from cardbatch.batch.settle.outputs import RESULT_SCHEMA, conform_results

    spec = game(name)
    table = (generate_hands(name, 200, seed=5) if spec.has_hands else generate_teams(200, seed=5)).table
    results, _, _ = settle_table(table, SettleOptions(game=name))
    results = conform_results(results)
    assert set(spec.result_columns) <= set(RESULT_SCHEMA.names)
    for column in RESULT_SCHEMA.names:
        nulls = pc.sum(pc.is_null(results.column(column))).as_py() or 0
        if column in spec.result_columns:
            assert nulls < results.num_rows, f"{name} fills no {column}"
        else:
            assert nulls == results.num_rows, f"{name} fills {column}, which its spec does not name"
