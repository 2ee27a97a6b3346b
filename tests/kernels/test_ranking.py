import numpy as np
import pytest

from cardbatch.games import GAMES, REGISTRY
from cardbatch.kernels import cards, decks, holdem, omaha, ranking, shortdeck, threecard

NEW = [g for g in GAMES if g != "holdem" and REGISTRY[g].board_cards]  # the flop games beyond Hold'em
OWN = [g for g in GAMES if REGISTRY[g].has_hands and not REGISTRY[g].board_cards and g != "zjh"]  # stud, razz, draw


def reference_rank(values):
    """1 + number of strictly better entries, per row and over everything (plain sorts)."""
    in_deck = 1 + (values[:, None, :] > values[:, :, None]).sum(axis=2)
    flat = np.sort(values.ravel())
    global_rank = 1 + len(flat) - np.searchsorted(flat, values, side="right")
    return in_deck, global_rank


@pytest.mark.parametrize("rules", ["zjh", "zjh_suited", "teen_patti"])
def test_fused_zjh_equals_composition_of_public_functions(rules):
    n, p = 3000, 6
    r = ranking.rank_zjh(n, p, seed=11, rules=rules, start=100)
    hands = decks.deal_zjh(decks.deal_decks(n, 11, start=100), p)
    values = threecard.evaluate(hands.reshape(-1, 3), rules).reshape(n, p)
    assert (r.values == values).all()
    assert (r.categories == threecard.category_of(values, rules)).all()
    in_deck, global_rank = reference_rank(values)
    assert (r.rank_in_deck == in_deck).all()
    assert (r.global_rank == global_rank).all()
    assert (r.best == values.max(axis=1)).all()
    assert (r.second == np.sort(values, axis=1)[:, -2]).all()
    assert (r.winners == (values == values.max(axis=1, keepdims=True))).all()


def test_fused_holdem_equals_composition():
    n, p = 2000, 9
    r = ranking.rank_holdem(n, p, seed=3)
    hole, board = decks.deal_holdem(decks.deal_decks(n, 3), p)
    seven = np.concatenate([hole, np.repeat(board[:, None], p, axis=1)], axis=2).reshape(-1, 7)
    scores = holdem.evaluate(seven).reshape(n, p)
    assert (r.values == scores).all()
    in_deck, global_rank = reference_rank(scores.astype(np.int64))
    assert (r.rank_in_deck == in_deck).all()
    assert (r.global_rank == global_rank).all()
    given = ranking.rank_given_decks(decks.deal_decks(n, 3), "holdem", p)
    assert (given.global_rank == r.global_rank).all()


def test_ties_share_a_rank():
    # board plays for everyone: every seat ties
    deck = np.arange(52, dtype=np.uint8)
    board_cards = cards.parse("AsKsQsJsTs")
    hole, board = decks.holdem_positions(3)
    rest = [c for c in range(52) if c not in board_cards]
    deck[board] = board_cards
    deck[np.setdiff1d(np.arange(52), board)] = rest
    r = ranking.rank_given_decks(deck[None], "holdem", 3)
    assert r.rank_in_deck.tolist() == [[1, 1, 1]]
    assert r.winners.tolist() == [[True, True, True]]
    assert r.margin.tolist() == [0]


def test_top_k_matches_a_sort():
    r = ranking.rank_zjh(5000, 5, seed=8)
    for by in ranking.MEASURES:
        m = r.measure(by)
        top = r.top(25, by)
        expect = np.lexsort((np.arange(len(m)), -m))[:25]
        assert top.tolist() == expect.tolist(), by
    with pytest.raises(ValueError, match="measure"):
        r.top(3, "luck")


@pytest.mark.parametrize(
    ("game", "rules", "players"),
    [("holdem", "zjh", 9), ("zjh", "zjh", 6), ("zjh", "teen_patti", 17), ("shortdeck", "zjh", 5), ("omaha", "zjh", 4)],
)
def test_margin_classes_counts_the_hand_classes_between_best_and_runner_up(game, rules, players):
    """The ``margin_classes`` measure (``rank-decks --by margin_classes``) is the readable margin: the
    classes between the best seat and the runner-up, 0 for a tie, against a plain reference (values
    sorted per deck, classes by the evaluator's dense rank or a search in the rule set's values)."""
    from cardbatch.games import game as game_spec

    n = 3000
    d = decks.deal_decks(n, 21, start=7)
    r = ranking.rank_given_decks(d, game, players, rules, start=7)
    fused = ranking.rank(ranking.deal_and_evaluate(game, n, players, 21, rules, start=7))
    ordered = np.sort(r.values.astype(np.int64), axis=1)
    best, second = ordered[:, -1], ordered[:, -2]
    spec = game_spec(game)
    if spec.rule_presets:
        every = threecard.distinct_values(threecard.rules_of(rules))
        expect = np.searchsorted(every, best) - np.searchsorted(every, second)
    else:  # dense rank: 1 = the best class
        dense = spec.kernel().dense_rank
        expect = dense(second.astype(np.uint32)).astype(np.int64) - dense(best.astype(np.uint32)).astype(np.int64)
    assert (expect >= 0).all() and (expect == 0).any() and (expect > 0).any()
    for ranked in (r, fused):
        assert ranked.measure("margin_classes").tolist() == expect.tolist()
        assert ranked.top(20, "margin_classes").tolist() == np.lexsort((np.arange(n), -expect))[:20].tolist()
    if game == "holdem":  # the packed values' difference orders decks otherwise
        assert r.top(20, "margin").tolist() != r.top(20, "margin_classes").tolist()


def test_235_rule_end_to_end():
    rules = threecard.Rules(beats_trips_235=True)
    pos = decks.zjh_positions(3)
    deck = np.full(52, 255, np.int64)
    for seat, text in enumerate(["AsAdAc", "2s3d5c", "KsQsJs"]):
        deck[pos[seat]] = cards.parse(text)
    deck[deck == 255] = np.setdiff1d(np.arange(52), deck[deck != 255])
    r = ranking.rank_given_decks(deck[None].astype(np.uint8), "zjh", 3, rules)
    assert r.winners.tolist() == [[False, True, False]]
    plain = ranking.rank_given_decks(deck[None].astype(np.uint8), "zjh", 3, "zjh")
    assert plain.winners.tolist() == [[True, False, False]]
    # the fused kernel applies it too: find decks with trips and a 2-3-5 among 200k
    fused = ranking.rank_zjh(200_000, 17, seed=5, rules=rules)
    h = ranking.deal_and_evaluate("zjh", 200_000, 17, 5, rules)
    values, special = h.values, h.special
    flipped = (~(fused.winners == (values == values.max(axis=1, keepdims=True)))).any(axis=1)
    assert flipped.any()
    w = threecard.winners_235(values, special, rules)
    assert (w == fused.winners).all()


def test_bad_input():
    with pytest.raises(ValueError, match="players"):
        ranking.rank_zjh(10, 18, 1)
    with pytest.raises(ValueError, match="rule"):
        ranking.rank_zjh(10, 3, 1, rules="bridge")
    with pytest.raises(ValueError, match="game"):
        ranking.rank_given_decks(decks.deal_decks(1, 1), "poker", 3)


def test_the_readable_forms_refuse_a_game_they_do_not_name():
    """Category names and codes, hand classes, margins, descriptions and the cards per seat are known
    for holdem and zjh only: any other game is a ValueError naming it (the code of the session's start
    gave such a game the three-card categories)."""
    from cardbatch.kernels import readable

    values = np.array([5, 9])
    for form in (
        lambda g: readable.category_names(g),
        lambda g: readable.categories(values, g),
        lambda g: readable.hand_class(values, g),
        lambda g: readable.margin_classes(values, values, g),
        lambda g: readable.describe(5, g),
        lambda g: readable.cards_per_seat(g),
    ):
        for game in ("bridge", "Holdem", ""):
            with pytest.raises(ValueError, match=f"got {game!r}"):
                form(game)
    assert readable.category_names("zjh")[0] == threecard.category_names("zjh")[0]
    assert readable.cards_per_seat("holdem") == 2 and readable.cards_per_seat("zjh") == 3
    royal = int(holdem.evaluate(np.array([[51, 47, 43, 39, 35, 0, 1]], np.uint8))[0])  # As Ks Qs Js Ts
    assert readable.describe(royal, "holdem") == holdem.describe(royal) and "flush" in holdem.describe(royal).lower()


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


@pytest.mark.parametrize("game", OWN)
def test_games_without_a_board_rank_by_their_evaluators(game):
    """Stud, razz and the draw games: seat j holds deck cards j, j+P, ..; the values are the
    evaluator's (a low game's the smaller the better), the best seat the best hand, every margin at
    least 0 and the measures larger for better decks, whichever way the values order."""
    spec = REGISTRY[game]
    kernel = spec.kernel()
    players = min(5, spec.dealt_seats)
    hands = ranking.deal_and_evaluate(game, 300, players, seed=9)
    deck = decks.deal_decks(300, 9)[:, decks.hand_positions(players, spec.hole_cards)]
    want = np.stack([kernel.evaluate(deck[:, s]) for s in range(players)], axis=1)
    assert (hands.values == want).all() and hands.lower_wins == (spec.score_order == "low")
    r = ranking.rank(hands)
    best = want.min(axis=1) if hands.lower_wins else want.max(axis=1)
    assert (r.best == best).all() and (r.margin >= 0).all() and (r.margin_classes >= 0).all()
    assert (r.winners == (want == best[:, None])).all()
    top = r.top(5, "best")
    assert (r.measure("best")[top] == r.measure("best").max()).any()  # the best decks hold the best hands
    given = ranking.evaluate_given_decks(decks.deal_decks(300, 9), game, players)
    assert (given.values == want).all()
