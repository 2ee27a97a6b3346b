"""Short deck (:mod:`cardbatch.kernels.shortdeck`): every five-card hand of the 36-card deck against
the plain scorer of games_reference (both orders of trips and straight), six- and seven-card hands
against the reference's best five, seven-card deals against pokerkit's ``ShortDeckHoldemHand``,
and the card checks."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import all_combinations
from games_reference import HOLDEM_CODE, dense_order, short_deck_best, short_deck_five

from cardbatch.kernels import cards, shortdeck

DECK = np.arange(16, 52, dtype=np.uint8)  # six .. ace
# the five-card hands of each category (standard figures for the 36-card deck; Hold'em's codes)
FIVE_CARD_COUNTS = [122400, 193536, 36288, 16128, 6120, 480, 1728, 288, 24]


def sd_hands(rng: np.random.Generator, n: int, k: int) -> np.ndarray:
    """n hands of k distinct short-deck cards."""
    return DECK[np.argsort(rng.random((n, 36)), axis=1)[:, :k]]


def ref_key(v) -> tuple[int, ...]:
    """The reference's (strength, tie-break ranks) as one tuple of fixed length."""
    return (v[0], *v[1], *(0,) * (5 - len(v[1])))


@pytest.fixture(scope="module")
def exhaustive():
    """Every five-card hand, our scores in both orders, and the reference on each class of hands.

    A five-card hand's value depends on its ranks and on whether it is a flush (the rules name
    nothing else): the reference scores one hand of each of the 1,404 (ranks, flush) classes and the
    test checks that our score is the same on every hand of a class."""
    hands = all_combinations(36, 5) + np.uint8(16)
    assert len(hands) == 376992
    ranks = np.sort(hands >> 2, axis=1).astype(np.int64)
    flush = ((hands & 3) == (hands[:, :1] & 3)).all(axis=1)
    key = (ranks * 16 ** np.arange(5)).sum(axis=1) * 2 + flush  # the sorted ranks and the flush, as one number
    _, first, cls = np.unique(key, return_index=True, return_inverse=True)
    cls = cls.ravel()
    out = {}
    for tbs in (False, True):
        ours = shortdeck.evaluate(hands, tbs)
        ref = [short_deck_five(hands[i], tbs) for i in first]
        out[tbs] = ours, ref
    return hands, first, cls, out


@pytest.mark.parametrize("tbs", [False, True])
def test_all_five_card_hands_match_reference(exhaustive, tbs):
    hands, first, cls, out = exhaustive
    ours, ref = out[tbs]
    assert len(first) == 1404
    # one score per class: suits count only through the flush
    assert (ours == ours[first][cls]).all()
    # the same order and the same ties as the reference's values
    ref_keys = np.array([ref_key(v) for v in ref])
    ref_rank = np.unique(ref_keys, axis=0, return_inverse=True)[1].ravel()
    our_rank = np.unique(ours[first], return_inverse=True)[1].ravel()
    assert (our_rank == ref_rank).all()
    assert our_rank.max() + 1 == len(np.unique(ours))  # every distinct score is in a class
    # categories as the reference names them, with the standard counts
    cats = shortdeck.category_of(ours, tbs)
    assert (cats == np.array([HOLDEM_CODE[v[2]] for v in ref], np.uint8)[cls]).all()
    assert np.bincount(cats, minlength=9).tolist() == FIVE_CARD_COUNTS


def test_the_two_orders_differ_only_between_trips_and_straights(exhaustive):
    hands, first, cls, out = exhaustive
    plain, swapped = out[False][0], out[True][0]
    cat = shortdeck.category_of(plain)
    trips = np.flatnonzero(cat == 3)[:50]
    straights = np.flatnonzero(cat == 4)[:50]
    assert (plain[straights][:, None] > plain[trips][None, :]).all()
    assert (swapped[straights][:, None] < swapped[trips][None, :]).all()
    # any other two hands compare the same way in both orders: the same dense ranks
    others = (cat != 3) & (cat != 4)
    dense = lambda v: np.unique(v[others], return_inverse=True)[1].ravel()
    assert (dense(plain) == dense(swapped)).all()


@pytest.mark.parametrize("k,n", [(6, 2000), (7, 2000)])
def test_six_and_seven_cards_match_reference(exhaustive, rng, k, n):
    """Best five of six or seven: each reference value is a five-card hand's, whose score the
    exhaustive run gives (our score of the reference's best five must be our score of the hand)."""
    hands, first, cls, out = exhaustive
    for tbs in (False, True):
        ours_five, ref = out[tbs]
        score_of = {ref_key(v): int(ours_five[i]) for v, i in zip(ref, first)}
        deals = sd_hands(rng, n, k)
        got = shortdeck.evaluate(deals, tbs)
        assert got.tolist() == [score_of[ref_key(short_deck_best(d, tbs))] for d in deals]


def test_seven_card_deals_match_pokerkit(rng):
    """Two seats on one board, 1,500 deals: who wins or ties agrees with pokerkit's own comparison
    (straight above trips, pokerkit's order); and the order of all 3,000 hands at once."""
    pokerkit = pytest.importorskip("pokerkit")
    deals = sd_hands(rng, 1500, 9)
    board = deals[:, 4:]
    a = np.concatenate([deals[:, :2], board], axis=1)
    b = np.concatenate([deals[:, 2:4], board], axis=1)
    ours_a, ours_b = shortdeck.evaluate(a).astype(np.int64), shortdeck.evaluate(b).astype(np.int64)
    texts = cards.format(deals)
    hand = pokerkit.ShortDeckHoldemHand.from_game
    theirs_a = [hand(t[:4], t[8:]) for t in texts]
    theirs_b = [hand(t[4:8], t[8:]) for t in texts]
    verdict = [(y < x) - (x < y) for x, y in zip(theirs_a, theirs_b)]
    assert np.sign(ours_a - ours_b).tolist() == verdict
    assert verdict.count(0) > 10 and verdict.count(1) > 400 and verdict.count(-1) > 400
    both = theirs_a + theirs_b
    assert dense_order(both) == np.unique(np.concatenate([ours_a, ours_b]), return_inverse=True)[1].ravel().tolist()
    cats = set(shortdeck.category_of(np.concatenate([ours_a, ours_b])).tolist())
    assert cats >= {1, 2, 3, 4, 5, 6}


@pytest.mark.parametrize(
    "text,tbs,name",
    [
        ("As6d7h8c9s", False, "straight, nine high"),
        ("AsKdQhJcTs", False, "straight, ace high"),
        ("6s7s8s9sAs", False, "straight flush, nine high"),
        ("Ts9s8s7sKs", False, "flush, king-ten-nine-eight-seven"),
        ("AsAdAhKcKd", False, "full house, aces full of kings"),
        ("QsQdQh7c8d", True, "three of a kind, queens, eight-seven kickers"),
        ("As6d7h8c9sKh7d", False, "straight, nine high"),
        ("As6d7h8c9sAhAd", False, "straight, nine high"),  # a straight beats trips: pokerkit's order
        ("As6d7h8c9sAhAd", True, "three of a kind, aces, nine-eight kickers"),
        ("AsKs8s7s6sAdAh", False, "flush, ace-king-eight-seven-six"),  # not the trips
        ("AsAdAhKcKd8c", False, "full house, aces full of kings"),
    ],
)
def test_describe(text, tbs, name):
    assert shortdeck.describe(int(shortdeck.evaluate(cards.parse([text]), tbs)[0]), tbs) == name


def test_a_card_below_six_raises_naming_the_row(rng):
    hands = sd_hands(rng, 5, 7)
    shortdeck.evaluate(hands)
    for code in (0, 15):
        bad = hands.copy()
        bad[3, 2] = code
        with pytest.raises(ValueError, match=f"row 3 .*card {code} is not in the short deck"):
            shortdeck.evaluate(bad)
        with pytest.raises(ValueError, match="row 3"):
            shortdeck.evaluate(bad, trips_beat_straight=True)
    bad = hands.copy()
    bad[1, 0] = bad[1, 6]
    with pytest.raises(ValueError, match=r"row 1 .*repeated"):
        shortdeck.evaluate(bad)
    bad = hands.copy()
    bad[4, 4] = 52
    with pytest.raises(ValueError, match=r"row 4 .*outside 0..51"):
        shortdeck.evaluate(bad)
    with pytest.raises(ValueError, match="trips_beat_straight"):
        shortdeck.evaluate(hands, trips_beat_straight="yes")


@pytest.mark.slow  # seconds in the fast loop: CI runs it
def test_evaluate_seats(rng):
    T, S = 400, 4
    deals = sd_hands(rng, T, 2 * S + 5)
    hole = deals[:, : 2 * S].reshape(T, S, 2).copy()
    board = np.ascontiguousarray(deals[:, 2 * S :])
    mask = rng.random((T, S)) < 0.75
    hole[7, 1, 0] = 14  # a four: not in the deck
    hole[8, 2, 1] = 3  # a two
    board[9, 4] = 0  # a two on the board: every seat of the table
    for tbs in (False, True):
        got = shortdeck.evaluate_seats(hole, board, mask, trips_beat_straight=tbs)
        assert got.dtype == np.uint32
        assert (shortdeck.evaluate_seats(hole, board, mask, np.int64, tbs) == got).all()
        assert got[7, 1] == 0 and got[8, 2] == 0 and (got[9] == 0).all()
        expect = np.zeros((T, S), np.int64)
        for t in range(T):
            if t == 9:
                continue
            for s in range(S):
                if mask[t, s] and (t, s) not in ((7, 1), (8, 2)):
                    expect[t, s] = shortdeck.evaluate(np.concatenate([hole[t, s], board[t]])[None, :], tbs)[0]
        assert (got == expect).all()
        assert (got[~mask] == 0).all() and (expect[mask] > 0).sum() > 1000
