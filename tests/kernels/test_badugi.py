"""Badugi (:mod:`cardbatch.kernels.badugi`) on every four-card hand against the plain reference of
studdraw_reference and pokerkit's ``BadugiHand``; properties by hypothesis, the whole-table form,
the readers and the card checks."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from conftest import random_hands
from games_reference import dense_order
from hypothesis import given, settings
from hypothesis import strategies as st
from studdraw_reference import badugi as badugi_key
from studdraw_reference import badugi_value, combinations, suit_classes

from cardbatch.kernels import badugi, cards

# hands of each size among all 270,725 (the reference's count): 715 sets of four ranks in 24 orders of
# the suits are badugis; 4 x 715 hands of one suit and 13 of one rank are one card
SIZE_COUNTS = {4: 17160, 3: 154440, 2: 96252, 1: 2873}


@pytest.fixture(scope="module")
def all_four():
    """Every four-card hand, its value, and its class under renaming the suits (a badugi hand
    depends on nothing else): (the first hand of each class, each hand's class)."""
    hands = combinations(52, 4)
    assert len(hands) == 270725
    return hands, badugi.evaluate(hands), *suit_classes(hands)


def test_every_hand_matches_the_reference(all_four):
    hands, values, first, cls = all_four
    expect = np.array([badugi_value(badugi_key(h)) for h in hands[first]])
    assert (values == expect[cls]).all()
    assert len(np.unique(values)) == badugi.CLASSES == 1092
    assert dict(zip(*np.unique(badugi.category_of(values), return_counts=True))) == SIZE_COUNTS


def test_every_hand_in_pokerkits_order(all_four):
    """pokerkit's ``BadugiHand.from_game`` of one hand of each class: its entry numbers hands
    densely, the best (A-2-3-4) 0 (a low hand is the greater for the smaller index); every hand's
    entry is our dense rank - 1."""
    pokerkit = pytest.importorskip("pokerkit")
    hands, values, first, cls = all_four
    index = np.array([pokerkit.BadugiHand.from_game(t).entry.index for t in cards.format(hands[first])])
    assert (badugi.dense_rank(values) - 1 == index[cls]).all()


def test_random_hands_by_pokerkits_comparisons(rng):
    """pokerkit's hands of random deals, compared by their own ``<``, order them as our values do
    (and the same from deals of few suits and ranks, where the hands are small)."""
    pokerkit = pytest.importorskip("pokerkit")
    deck = np.array([r * 4 + s for r in (12, 0, 1, 11) for s in (0, 1)], np.uint8)
    few = np.array([rng.choice(deck, 4, replace=False) for _ in range(200)], np.uint8)
    hands = np.concatenate([random_hands(rng, 500, 4), few])
    theirs = [pokerkit.BadugiHand.from_game(t) for t in cards.format(hands)]
    ours = badugi.evaluate(hands)
    assert dense_order(theirs) == np.unique(-ours.astype(np.int64), return_inverse=True)[1].ravel().tolist()


@st.composite
def hands(draw):
    return np.array(draw(st.permutations(range(52)))[:4], np.uint8)


@settings(max_examples=300, deadline=None)
@given(hands(), st.data())
def test_card_order_and_suit_names_change_nothing(hand, data):
    value = badugi.evaluate(hand[None])[0]
    order = data.draw(st.permutations(range(4)))
    suits = np.array(data.draw(st.permutations(range(4))), np.uint8)
    assert badugi.evaluate(((hand & np.uint8(0xFC)) | suits[hand & 3])[order][None])[0] == value


@settings(max_examples=300, deadline=None)
@given(hands())
def test_the_hand_is_a_subset_with_distinct_ranks_and_suits(hand):
    """The value's ranks are those of some of the cards with no rank and no suit twice, as many as
    any such subset holds."""
    v = int(badugi.evaluate(hand[None])[0])
    size = 4 - (v >> 16)
    ranks = sorted(int(d, 16) for d in f"{v & 0xFFFF:x}")
    assert len(ranks) == size
    low = lambda c: 1 if c // 4 == 12 else c // 4 + 2
    distinct = lambda sub: len({low(c) for c in sub}) == len({c % 4 for c in sub}) == len(sub)
    subsets = [s for n in range(1, 5) for s in itertools.combinations(hand.tolist(), n) if distinct(s)]
    assert max(len(s) for s in subsets) == size
    assert any(sorted(low(c) for c in s) == ranks for s in subsets if len(s) == size)


def test_whole_tables_are_the_hands_where_the_mask_says(rng):
    T, S = 400, 8
    hole = random_hands(rng, T, 4 * S).reshape(T, S, 4)
    mask = rng.random((T, S)) < 0.8
    got = badugi.evaluate_seats(hole, mask)
    assert got.dtype == np.uint32
    assert (got == np.where(mask, badugi.evaluate(hole.reshape(-1, 4)).reshape(T, S), 0)).all()
    assert (badugi.evaluate_seats(hole, mask, np.int64) == got).all()
    bad = hole.copy()
    bad[0, 0, 1] = bad[0, 0, 0]
    bad[1, 1, 3] = 60
    got = badugi.evaluate_seats(bad, np.ones((T, S), bool))
    assert got[0, 0] == 0 and got[1, 1] == 0 and (got[2:] > 0).all()
    with pytest.raises(ValueError, match="evaluate_seats"):
        badugi.evaluate_seats(hole[:, :, :3], mask)


@pytest.mark.parametrize(
    "text,value,name",
    [
        ("As2d3h4c", 0x4321, "a badugi, 4-3-2-A"),
        ("4c3d2hAs", 0x4321, "a badugi, 4-3-2-A"),
        ("Kc2d3h4s", 0xD432, "a badugi, K-4-3-2"),
        ("KcQdJhTs", 0xDCBA, "a badugi, K-Q-J-T"),  # the worst badugi beats the best three cards
        ("As2s3d4h", 0x10431, "three cards, 4-3-A"),  # the lower of A-3-4 and 2-3-4
        ("AsAd2h3c", 0x10321, "three cards, 3-2-A"),
        ("7c7d5h2h", 0x20072, "two cards, 7-2"),
        ("Kc2c3c4c", 0x30002, "one card, 2"),  # one suit: the lowest card
        ("KsKdKhKc", 0x3000D, "one card, K"),  # one rank
    ],
)
def test_hand_written_values(text, value, name):
    got = int(badugi.evaluate(cards.parse([text]))[0])
    assert got == badugi_value(badugi_key(cards.parse(text))) == value, hex(got)
    assert badugi.describe(got) == name


def test_readers_and_score_of():
    values = badugi.evaluate(cards.parse(["As2d3h4c", "As2d3h5c", "KcQdJhTs", "As2s3d4h", "KsKdKhKc"]))
    assert badugi.dense_rank(values).tolist() == [1, 2, 715, 718, 1092]
    assert badugi.category_of(values).tolist() == [4, 4, 4, 3, 1]
    scores = badugi.score_of(values)
    assert scores.dtype == np.int64 and (np.diff(scores) < 0).all() and (scores > 0).all()  # higher wins
    assert badugi.score_of([0]).tolist() == [0]
    for reader in (badugi.category_of, badugi.dense_rank, badugi.score_of):
        with pytest.raises(ValueError, match=r"row 1 value 1 is not a badugi value"):
            reader(np.array([values[0], 1]))
        with pytest.raises(ValueError, match="dtype"):
            reader(np.array([1.5]))
    with pytest.raises(ValueError, match="not a badugi value"):
        badugi.describe(0x4421)  # a rank twice


def test_bad_cards_raise_naming_the_row(rng):
    hands = random_hands(rng, 4, 4)
    badugi.evaluate(hands)
    bad = hands.copy()
    bad[2, 3] = bad[2, 0]
    with pytest.raises(ValueError, match=r"row 2 .*repeated"):
        badugi.evaluate(bad)
    for code in (52, 255):
        bad = hands.copy()
        bad[3, 1] = code
        with pytest.raises(ValueError, match=rf"row 3 .*card {code} outside 0..51"):
            badugi.evaluate(bad)
    with pytest.raises(ValueError, match="shape"):
        badugi.evaluate(random_hands(rng, 4, 5))
