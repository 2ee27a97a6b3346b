"""Seven-card stud and five-card draw, high (:mod:`cardbatch.kernels.stud`): Hold'em's scores of a
seat's own cards, against holdem_reference's best of the subsets and pokerkit's
``StandardHighHand`` (every five-card hand, random seven-card hands); the whole-table form shared
by the games without a board (:func:`stud.evaluate_seats_by`), and the card checks."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import random_hands
from games_reference import dense_order
from holdem_reference import best_score
from hypothesis import given, settings
from hypothesis import strategies as st
from studdraw_reference import combinations, rank_classes

from cardbatch.kernels import cards, holdem, razz, stud


@pytest.mark.parametrize("k", [5, 7])
def test_random_hands_match_the_reference(rng, k):
    hands = random_hands(rng, 2000, k)
    scores = stud.evaluate(hands)
    assert scores.dtype == np.uint32
    assert scores.tolist() == [best_score(h) for h in hands]


def test_every_five_card_hand_in_pokerkits_order():
    """Five-card draw: pokerkit's ``StandardHighHand`` numbers its entries densely, the weakest hand
    0; every hand's entry, through one hand of each class of ranks and suitedness (its lookup key),
    is 7,462 - our dense rank (1 = a royal flush)."""
    pokerkit = pytest.importorskip("pokerkit")
    hands = combinations(52, 5)
    first, cls = rank_classes(hands, suited=True)
    lookup = pokerkit.StandardHighHand.lookup
    index = np.array([lookup.get_entry(t).index for t in cards.format(hands[first])])
    assert (7462 - stud.dense_rank(stud.evaluate(hands)).astype(np.int64) == index[cls]).all()


def test_seven_card_hands_in_pokerkits_order(rng):
    """Stud: pokerkit's best five of seven (``StandardHighHand.from_game``), by its entries and by
    its hands' own comparisons."""
    pokerkit = pytest.importorskip("pokerkit")
    hands = random_hands(rng, 2000, 7)
    theirs = [pokerkit.StandardHighHand.from_game(t) for t in cards.format(hands)]
    ours = stud.evaluate(hands)
    assert [t.entry.index for t in theirs] == (7462 - stud.dense_rank(ours).astype(np.int64)).tolist()
    some = slice(0, None, 5)
    assert dense_order(theirs[some]) == np.unique(ours[some], return_inverse=True)[1].ravel().tolist()


@settings(max_examples=200, deadline=None)
@given(st.permutations(range(52)), st.sampled_from([5, 7]), st.data())
def test_card_order_changes_nothing(deck, k, data):
    hand = np.array(deck[:k], np.uint8)
    order = data.draw(st.permutations(range(k)))
    assert stud.evaluate(hand[order][None])[0] == stud.evaluate(hand[None])[0] == holdem.evaluate(hand[None])[0]


@pytest.mark.parametrize(
    "text,name",
    [
        ("AsAd7c7h2s5d9c", "two pair, aces and sevens, nine kicker"),
        ("KhQhJhTh9h2c3c", "straight flush, king high"),
        ("2c2d2h5s5d5hKs", "full house, fives full of twos"),
        ("5c4d3h2sAc", "straight, five high"),  # five-card draw: the wheel is a straight
        ("AcKdQh9s7c", "high card, ace-king-queen-nine-seven"),
    ],
)
def test_describe(text, name):
    assert stud.describe(int(stud.evaluate(cards.parse([text]))[0])) == name


@pytest.mark.parametrize("k", [5, 7])
def test_whole_tables_are_the_hands_where_the_mask_says(rng, k):
    T, S = 300, 7 if k == 7 else 8
    hole = random_hands(rng, T, S * k).reshape(T, S, k)
    mask = rng.random((T, S)) < 0.8
    got = stud.evaluate_seats(hole, mask)
    assert got.dtype == np.uint32
    assert (got == np.where(mask, stud.evaluate(hole.reshape(-1, k)).reshape(T, S), 0)).all()
    assert (stud.evaluate_seats(hole, mask, np.int64) == got).all()
    bad = hole.copy()
    bad[0, 0, 1] = bad[0, 0, 0]
    bad[1, 1, k - 1] = 255
    got = stud.evaluate_seats(bad, np.ones((T, S), bool))
    assert got[0, 0] == 0 and got[1, 1] == 0 and (got[2:] > 0).all()


def test_whole_tables_through_other_tables(rng):
    """``evaluate_seats_by``: the same kernel over another game's tables (razz's)."""
    hole = random_hands(rng, 200, 3 * 7).reshape(200, 3, 7)
    mask = np.ones((200, 3), bool)
    got = stud.evaluate_seats_by(razz.value_tables(), hole, mask, np.uint32, razz.HAND_SIZES)
    assert (got == razz.evaluate(hole.reshape(-1, 7)).reshape(200, 3)).all()
    assert stud.value_tables() is holdem.SCORE_TABLES


def test_bad_cards_and_shapes_raise(rng):
    hands = random_hands(rng, 4, 7)
    bad = hands.copy()
    bad[2, 6] = bad[2, 0]
    with pytest.raises(ValueError, match=r"row 2 .*repeated"):
        stud.evaluate(bad)
    bad[2, 6] = 52
    with pytest.raises(ValueError, match=r"row 2 .*card 52 outside 0..51"):
        stud.evaluate(bad)
    with pytest.raises(ValueError, match="shape"):
        stud.evaluate(hands[:, :6])  # six cards: neither game's hand
    with pytest.raises(ValueError, match=r"evaluate_seats: expected hole \[T, S, k\] \(k = 5 or 7\)"):
        stud.evaluate_seats(hands[:, None, :6], np.ones((4, 1), bool))
    with pytest.raises(ValueError, match="evaluate_seats"):
        stud.evaluate_seats(hands[:, None, :], np.ones((4, 2), bool))
    with pytest.raises(ValueError, match="dtype"):
        stud.evaluate_seats(hands[:, None, :], np.ones((4, 1), bool), np.int32)
