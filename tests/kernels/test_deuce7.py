"""Deuce-to-seven (:mod:`cardbatch.kernels.deuce7`) on every five-card hand against the plain
reference of studdraw_reference, pokerkit's ``StandardLowHand`` and Hold'em's order turned round;
properties by hypothesis, the whole-table form, the readers and the card checks."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import random_hands
from games_reference import dense_order
from hypothesis import given, settings
from hypothesis import strategies as st
from studdraw_reference import as_value, combinations, deuce_to_seven, rank_classes

from cardbatch.kernels import cards, deuce7, holdem

# 5-card counts of each category over all hands (Hold'em's codes): A-5-4-3-2 is no straight
FIVE_CARD_COUNTS = {0: 1303560, 1: 1098240, 2: 123552, 3: 54912, 4: 9180, 5: 5112, 6: 3744, 7: 624, 8: 36}
WHEEL_RANKS = 0b1000000001111  # A, 2, 3, 4, 5 as a mask of rank codes


@pytest.fixture(scope="module")
def all_five():
    """Every five-card hand, its value, and its class: its ranks and whether it is suited (all a
    deuce-to-seven value depends on, and what pokerkit looks a hand up by)."""
    hands = combinations(52, 5)
    assert len(hands) == 2598960
    return hands, deuce7.evaluate(hands), *rank_classes(hands, suited=True)


def test_every_five_card_hand_matches_the_reference(all_five):
    hands, values, first, cls = all_five
    assert len(first) == len(np.unique(values)) == deuce7.CLASSES == 7462
    expect = np.array([as_value(deuce_to_seven(h)) for h in hands[first]])
    assert (values == expect[cls]).all()
    assert dict(zip(*np.unique(deuce7.category_of(values), return_counts=True))) == FIVE_CARD_COUNTS


def test_every_five_card_hand_in_pokerkits_order(all_five):
    """pokerkit's ``StandardLowHand`` numbers its entries densely, 7-5-4-3-2 0 (a low hand is the
    greater for the smaller index): every hand's entry, through one hand of its class, is our
    dense rank - 1."""
    pokerkit = pytest.importorskip("pokerkit")
    hands, values, first, cls = all_five
    lookup = pokerkit.StandardLowHand.lookup
    index = np.array([lookup.get_entry(t).index for t in cards.format(hands[first])])
    assert (deuce7.dense_rank(values) - 1 == index[cls]).all()


def test_random_hands_by_pokerkits_comparisons(rng):
    """pokerkit's hand objects, compared by their own ``<``, order random hands (and rare ones: five
    ranks of six) as our values do."""
    pokerkit = pytest.importorskip("pokerkit")
    deck = np.array([r * 4 + s for r in (0, 1, 2, 3, 12, 4) for s in range(4)], np.uint8)
    few = np.array([rng.choice(deck, 5, replace=False) for _ in range(300)], np.uint8)
    hands = np.concatenate([random_hands(rng, 500, 5), few])
    theirs = [pokerkit.StandardLowHand(t) for t in cards.format(hands)]
    ours = deuce7.evaluate(hands)
    # pokerkit: a better low is the greater hand; ours: the smaller value
    assert dense_order(theirs) == np.unique(-ours.astype(np.int64), return_inverse=True)[1].ravel().tolist()


def test_holdems_order_turned_round(all_five):
    """Without the ranks A-5-4-3-2 a hand is the better low exactly when it is the worse high hand
    (the same ties too); the A-5-4-3-2 hands are Hold'em's five-high straights and straight flushes,
    ace-high hands and flushes here."""
    hands, values, _, _ = all_five
    high = holdem.evaluate(hands).astype(np.int64)
    ranks = np.bitwise_or.reduce(np.left_shift(1, (hands >> 2).astype(np.int64)), axis=1)
    wheel = ranks == WHEEL_RANKS
    assert wheel.sum() == 1024
    place = lambda v: np.unique(v, return_inverse=True)[1].ravel()
    assert (place(values[~wheel]) == place(high[~wheel])).all()  # the smaller, the better low and the worse high
    assert set(holdem.category_of(high[wheel]).tolist()) == {4, 8}
    assert set(deuce7.category_of(values[wheel]).tolist()) == {0, 5}


@st.composite
def hands(draw):
    return np.array(draw(st.permutations(range(52)))[:5], np.uint8)


@settings(max_examples=300, deadline=None)
@given(hands(), st.data())
def test_card_order_and_suit_names_change_nothing(hand, data):
    value = deuce7.evaluate(hand[None])[0]
    order = data.draw(st.permutations(range(5)))
    suits = np.array(data.draw(st.permutations(range(4))), np.uint8)
    assert deuce7.evaluate(((hand & np.uint8(0xFC)) | suits[hand & 3])[order][None])[0] == value


@settings(max_examples=300, deadline=None)
@given(hands(), st.data())
def test_without_a_flush_the_suits_change_nothing(hand, data):
    """Any other suits for the same ranks (the cards still distinct) give the same value, unless the
    hand is a flush before or after."""
    out = hand.copy()
    for r in set((hand // 4).tolist()):
        at = np.flatnonzero(hand // 4 == r)
        out[at] = r * 4 + np.array(data.draw(st.permutations(range(4)))[: len(at)], np.uint8)
    flush = lambda h: len(set((h & 3).tolist())) == 1
    if not flush(hand) and not flush(out):
        assert deuce7.evaluate(out[None])[0] == deuce7.evaluate(hand[None])[0]


def test_whole_tables_are_the_hands_where_the_mask_says(rng):
    T, S = 400, 6
    hole = random_hands(rng, T, 5 * S).reshape(T, S, 5)
    mask = rng.random((T, S)) < 0.8
    got = deuce7.evaluate_seats(hole, mask)
    assert got.dtype == np.uint32
    assert (got == np.where(mask, deuce7.evaluate(hole.reshape(-1, 5)).reshape(T, S), 0)).all()
    assert (deuce7.evaluate_seats(hole, mask, np.int64) == got).all()
    bad = hole.copy()
    bad[0, 0, 1] = bad[0, 0, 0]
    bad[1, 1, 4] = 255
    got = deuce7.evaluate_seats(bad, np.ones((T, S), bool))
    assert got[0, 0] == 0 and got[1, 1] == 0 and (got[2:] > 0).all()
    with pytest.raises(ValueError, match="evaluate_seats"):
        deuce7.evaluate_seats(np.concatenate([hole, hole[:, :, :2]], axis=2), mask)


@pytest.mark.parametrize(
    "text,value,name",
    [
        ("7s5d4h3c2s", 0x75432, "7-5-4-3-2"),
        ("7s6d4h3c2s", 0x76432, "7-6-4-3-2"),
        ("8s5d4h3c2s", 0x85432, "8-5-4-3-2"),
        ("As5d4h3c2s", 0xE5432, "A-5-4-3-2"),  # aces are high: no straight
        ("AsKdQhJc9s", 0xEDCB9, "A-K-Q-J-9"),
        ("2s2d7h4c3s", 0x122743, "pair of twos, seven-four-three kickers"),
        ("KsKd4h4c2s", 0x2DD442, "two pair, kings and fours, two kicker"),
        ("7s7d7h3c2s", 0x377732, "three of a kind, sevens, three-two kickers"),
        ("6s5d4h3c2s", 0x465432, "straight, six high"),
        ("AsKdQhJcTs", 0x4EDCBA, "straight, ace high"),
        ("7s5s4s3s2s", 0x575432, "flush, seven-five-four-three-two"),
        ("As5s4s3s2s", 0x5E5432, "flush, ace-five-four-three-two"),
        ("2s2d2h3c3s", 0x622233, "full house, twos full of threes"),
        ("AsAdAhAcKs", 0x7EEEED, "four of a kind, aces, king kicker"),
        ("6s5s4s3s2s", 0x865432, "straight flush, six high"),
        ("AsKsQsJsTs", 0x8EDCBA, "royal flush"),
    ],
)
def test_hand_written_values(text, value, name):
    got = int(deuce7.evaluate(cards.parse([text]))[0])
    assert got == as_value(deuce_to_seven(cards.parse(text))) == value, hex(got)
    assert deuce7.describe(got) == name


def test_readers_and_score_of():
    values = deuce7.evaluate(cards.parse(["7s5d4h3c2s", "7s6d4h3c2s", "As5d4h3c2s", "AsKsQsJsTs"]))
    assert deuce7.dense_rank(values).tolist() == [1, 2, 785, 7462]  # 784 no-pair hands below an ace, then A-5-4-3-2
    assert deuce7.category_of(values).tolist() == [0, 0, 0, 8]
    scores = deuce7.score_of(values)
    assert scores.dtype == np.int64 and (np.diff(scores) < 0).all() and (scores > 0).all()  # higher wins
    assert deuce7.score_of([0]).tolist() == [0]
    for reader in (deuce7.category_of, deuce7.dense_rank, deuce7.score_of):
        with pytest.raises(ValueError, match=r"row 1 value 1 is not a deuce-to-seven value"):
            reader(np.array([values[0], 1]))
        with pytest.raises(ValueError, match="dtype"):
            reader(np.array([1.5]))
    with pytest.raises(ValueError, match="not a deuce-to-seven value"):
        deuce7.describe(0x54321)  # a razz wheel: an ace is no 1 here


def test_bad_cards_raise_naming_the_row(rng):
    hands = random_hands(rng, 4, 5)
    deuce7.evaluate(hands)
    bad = hands.copy()
    bad[2, 4] = bad[2, 0]
    with pytest.raises(ValueError, match=r"row 2 .*repeated"):
        deuce7.evaluate(bad)
    for code in (52, 255):
        bad = hands.copy()
        bad[3, 1] = code
        with pytest.raises(ValueError, match=rf"row 3 .*card {code} outside 0..51"):
            deuce7.evaluate(bad)
    with pytest.raises(ValueError, match="shape"):
        deuce7.evaluate(random_hands(rng, 4, 7))
    out = np.empty(4, np.uint32)
    assert deuce7.evaluate(hands, out=out) is out
