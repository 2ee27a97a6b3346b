"""Razz and the ace-to-five low (:mod:`cardbatch.kernels.razz`) against the plain reference of
studdraw_reference and pokerkit's ``RegularLowHand`` (every five-card hand, every rank multiset of
seven cards, random seven-card hands), stud hi/lo's eight-or-better low against the reference and
pokerkit's ``EightOrBetterLowHand`` (every five-card hand, random seven-card hands), properties by
hypothesis, the whole-table forms, the readers and the card checks."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from conftest import random_hands
from games_reference import dense_order
from hypothesis import given, settings
from hypothesis import strategies as st
from studdraw_reference import ace_to_five, as_value, combinations, eight_or_better, rank_classes
from studdraw_reference import razz as razz_key

from cardbatch.kernels import cards, razz

# the cards of ranks ace .. eight, and of nine .. king
LOW_CARDS = np.array([c for c in range(52) if c // 4 <= 6 or c // 4 == 12], np.uint8)
HIGH_CARDS = np.array([c for c in range(52) if 7 <= c // 4 <= 11], np.uint8)
# 5-card counts of each category over all hands (Hold'em's codes): straights and flushes are no-pair hands
FIVE_CARD_COUNTS = {0: 1317888, 1: 1098240, 2: 123552, 3: 54912, 6: 3744, 7: 624}


def low_rich(rng: np.random.Generator, n: int, k: int) -> np.ndarray:
    """n deals of k distinct cards, most of them ace .. eight: many lows, and many equal lows."""
    deck = np.concatenate([LOW_CARDS, HIGH_CARDS[:8]])
    return np.array([rng.choice(deck, k, replace=False) for _ in range(n)], np.uint8)


def rank_poor(rng: np.random.Generator, n: int, k: int) -> np.ndarray:
    """n deals of k distinct cards from four or five ranks: pairs, two pair, trips, full houses, quads."""
    out = []
    for _ in range(n):
        ranks = rng.choice(13, int(rng.integers(4, 6)), replace=False)
        deck = np.array([r * 4 + s for r in ranks for s in range(4)], np.uint8)
        out.append(rng.choice(deck, k, replace=False))
    return np.array(out, np.uint8)


@pytest.fixture(scope="module")
def all_five():
    """Every five-card hand, its value, and its class: its ranks and whether it is suited (what
    pokerkit looks a hand up by; an ace-to-five value depends on the ranks alone)."""
    hands = combinations(52, 5)
    assert len(hands) == 2598960
    return hands, razz.evaluate(hands), *rank_classes(hands, suited=True)


def test_every_five_card_hand_matches_the_reference(all_five):
    """The kernel's value of every hand against the reference's of one hand of its class."""
    hands, values, first, cls = all_five
    assert len(np.unique(values)) == razz.CLASSES == 6175
    expect = np.array([as_value(ace_to_five(h)) for h in hands[first]])
    assert (values == expect[cls]).all()
    assert dict(zip(*np.unique(razz.category_of(values), return_counts=True))) == FIVE_CARD_COUNTS


def test_every_five_card_hand_in_pokerkits_order(all_five):
    """pokerkit's ``RegularLowHand`` looks a hand up by its ranks and whether it is suited; its
    entries are numbered densely, the best low 0 (a low hand is the greater for the smaller
    index). Every hand's entry, through one hand of each such class, is our dense rank - 1."""
    pokerkit = pytest.importorskip("pokerkit")
    hands, values, first, cls = all_five
    lookup = pokerkit.RegularLowHand.lookup
    index = np.array([lookup.get_entry(t).index for t in cards.format(hands[first])])
    assert (razz.dense_rank(values) - 1 == index[cls]).all()
    # and the hand objects compare so: the wheel beats 6-4-3-2-A beats a pair of aces beats quads
    wheel, six, aces, quads = (
        pokerkit.RegularLowHand(t) for t in ("As2d3h4c5s", "6sAd2h3c4s", "AsAd2h3c4s", "KsKdKhKcQs")
    )
    assert wheel > six > aces > quads


def test_every_seven_card_rank_multiset_matches_the_reference():
    """Every multiset of seven ranks (49,205; the 7-card table's every entry), as a hand of distinct
    cards, against the best of its 21 fives through the reference."""
    multisets = list(itertools.combinations_with_replacement(range(13), 7))
    ok = [m for m in multisets if max(map(m.count, m)) <= 4]
    hands = np.array([[r * 4 + m[:i].count(r) for i, r in enumerate(m)] for m in ok], np.uint8)  # suits 0, 1..
    assert len(hands) == 49205
    five = {}

    def best(hand) -> int:
        out = None
        for sub in itertools.combinations(sorted(int(c) // 4 for c in hand), 5):
            v = five.get(sub)
            if v is None:
                v = five[sub] = as_value(ace_to_five([r * 4 for r in sub]))
            out = v if out is None else min(out, v)
        return out

    assert razz.evaluate(hands).tolist() == [best(h) for h in hands]


def test_random_hands_match_the_reference(rng):
    hands = np.concatenate([random_hands(rng, 1000, 7), rank_poor(rng, 1000, 7), low_rich(rng, 500, 7)])
    assert razz.evaluate(hands).tolist() == [as_value(razz_key(h)) for h in hands]
    for k in (5, 6):
        sub = np.ascontiguousarray(hands[:, :k])
        assert razz.evaluate(sub).tolist() == [as_value(razz_key(h)) for h in sub]
    assert set(razz.category_of(razz.evaluate(hands)).tolist()) == {0, 1, 2, 6}  # seven cards: two pair at worst
    assert set(razz.category_of(razz.evaluate(np.ascontiguousarray(hands[:, :5]))).tolist()) == {0, 1, 2, 3, 6, 7}


def test_seven_card_hands_in_pokerkits_order(rng):
    """pokerkit's best of seven (``RegularLowHand.from_game``): its entry (0 the best) is our dense
    rank - 1 for every hand, and its hands' own comparisons order them as our values do."""
    pokerkit = pytest.importorskip("pokerkit")
    hands = np.concatenate([random_hands(rng, 1000, 7), rank_poor(rng, 600, 7), low_rich(rng, 400, 7)])
    theirs = [pokerkit.RegularLowHand.from_game(t) for t in cards.format(hands)]
    ours = razz.evaluate(hands)
    assert [t.entry.index for t in theirs] == (razz.dense_rank(ours) - 1).tolist()
    some = slice(0, None, 5)  # 400 of them by comparisons: a better low is the greater hand, the smaller value
    assert dense_order(theirs[some]) == np.unique(-ours[some].astype(np.int64), return_inverse=True)[1].ravel().tolist()


def test_eight_or_better_matches_the_reference_and_pokerkit(rng):
    pokerkit = pytest.importorskip("pokerkit")
    hands = np.concatenate([random_hands(rng, 700, 7), low_rich(rng, 700, 7)])
    ours = razz.evaluate_low(hands)
    assert ours.dtype == np.int64
    assert ours.tolist() == [eight_or_better(h) for h in hands]
    assert 0.2 < (ours > 0).mean() < 0.9 and len(set(ours.tolist())) > 30  # lows and none; many lows
    theirs = [pokerkit.EightOrBetterLowHand.from_game_or_none(t) for t in cards.format(hands)]
    assert [t is not None for t in theirs] == (ours > 0).tolist()
    with_low = [t for t in theirs if t is not None]
    # pokerkit: a better low is the greater hand; ours: the smaller value
    assert dense_order(with_low) == np.unique(-ours[ours > 0], return_inverse=True)[1].ravel().tolist()


def test_every_five_card_hand_eight_or_better_in_pokerkits_order(all_five):
    """Every five-card hand's eight-or-better low (2,598,960; the low of a hand depends on its ranks
    alone, so on its class): none where pokerkit's ``EightOrBetterLowHand`` has none, and the lows
    in its order; against the reference on one hand of each class."""
    pokerkit = pytest.importorskip("pokerkit")
    hands, _, first, cls = all_five
    ours = razz.evaluate_low(hands)
    reps = ours[first]
    assert (ours == reps[cls]).all()
    assert reps.tolist() == [eight_or_better(h) for h in hands[first]]
    theirs = [pokerkit.EightOrBetterLowHand.from_game_or_none(t) for t in cards.format(hands[first])]
    assert [t is not None for t in theirs] == (reps > 0).tolist()
    assert int((ours > 0).sum()) == 56 * 4**5  # the 56 sets of five ranks ace..eight, any suits
    with_low = [t for t in theirs if t is not None]
    assert dense_order(with_low) == np.unique(-reps[reps > 0], return_inverse=True)[1].ravel().tolist()


@st.composite
def deals(draw, k: int | None = None, low_heavy: bool = False):
    k = draw(st.sampled_from([5, 6, 7])) if k is None else k
    deck = list(LOW_CARDS) + list(HIGH_CARDS[:6]) if low_heavy else list(range(52))
    return np.array(draw(st.permutations(deck))[:k], np.uint8)


def resuited(hand: np.ndarray, data) -> np.ndarray:
    """The hand with other suits, the cards still distinct: each rank's cards take suits of a permutation."""
    out = hand.copy()
    for r in set((hand // 4).tolist()):
        at = np.flatnonzero(hand // 4 == r)
        suits = data.draw(st.permutations(range(4)))[: len(at)]
        out[at] = r * 4 + np.array(suits, np.uint8)
    return out


@settings(max_examples=300, deadline=None)
@given(st.one_of(deals(), deals(low_heavy=True)), st.data())
def test_card_order_and_suits_change_nothing(hand, data):
    value, low = razz.evaluate(hand[None])[0], razz.evaluate_low(hand[None])[0]
    order = data.draw(st.permutations(range(len(hand))))
    other = resuited(hand, data)[order]
    assert razz.evaluate(other[None])[0] == value
    assert razz.evaluate_low(other[None])[0] == low


@settings(max_examples=300, deadline=None)
@given(st.one_of(deals(), deals(low_heavy=True)))
def test_the_low_is_the_razz_value_of_a_hand_eight_or_better(hand):
    """A hand with an eight-or-better low has it as its razz value (its best five are those five
    ranks), and a hand whose razz value is worse than 8-7-6-5-4 has no such low."""
    value, low = int(razz.evaluate(hand[None])[0]), int(razz.evaluate_low(hand[None])[0])
    assert low == (value if value <= 0x87654 else 0)


@settings(max_examples=200, deadline=None)
@given(st.one_of(deals(k=7), deals(k=7, low_heavy=True), deals(k=6)))
def test_more_cards_are_the_best_of_their_subsets(hand):
    """k cards are worth the best of their (k - 1)-card subsets: the 7-card table against the
    5/6-card table, and the 6-card entries against the 5-card ones."""
    subsets = np.array(list(itertools.combinations(hand.tolist(), len(hand) - 1)), np.uint8)
    assert razz.evaluate(hand[None])[0] == razz.evaluate(subsets).min()


def test_whole_tables_are_the_hands_where_the_mask_says(rng):
    T, S, k = 400, 4, 7
    deals_ = np.concatenate([random_hands(rng, T // 2, S * k), low_rich(rng, T // 2, S * k)])
    hole = deals_.reshape(T, S, k)
    mask = rng.random((T, S)) < 0.8
    by_hand = razz.evaluate(hole.reshape(-1, k)).reshape(T, S)
    got = razz.evaluate_seats(hole, mask)
    assert got.dtype == np.uint32 and (got == np.where(mask, by_hand, 0)).all()
    assert (razz.evaluate_seats(hole, mask, np.int64) == got).all()
    lows = razz.low_seats(hole, mask)
    assert lows.dtype == np.int64
    assert (lows == np.where(mask, razz.evaluate_low(hole.reshape(-1, k)).reshape(T, S), 0)).all()
    bad = hole.copy()
    bad[0, 0, 1] = bad[0, 0, 0]  # a card twice, and a code that is no card: 0, as for a seat not asked
    bad[1, 1, 6] = 52
    for got in (razz.evaluate_seats(bad, np.ones((T, S), bool)), razz.low_seats(bad, np.ones((T, S), bool))):
        assert got[0, 0] == 0 and got[1, 1] == 0
    with pytest.raises(ValueError, match="evaluate_seats"):
        razz.evaluate_seats(hole[:, :, :4], mask)
    with pytest.raises(ValueError, match="low_seats"):
        razz.low_seats(hole, mask[:, :2])
    with pytest.raises(ValueError, match="dtype"):
        razz.evaluate_seats(hole, mask, np.float64)


@pytest.mark.parametrize(
    "text,value,name",
    [
        ("As2d3h4c5sKdKh", 0x54321, "5-4-3-2-A"),
        ("7s5d4h3c2sKdQh", 0x75432, "7-5-4-3-2"),
        ("As2s3s4s5s6s7s", 0x54321, "5-4-3-2-A"),  # straights and flushes do not count
        ("KsQdJhTc9s8d8h", 0xCBA98, "Q-J-T-9-8"),  # any hand without a pair beats every pair
        ("As2d3h4cKsKdKh", 0xD4321, "K-4-3-2-A"),
        ("2s3d4hKcKsKdKh", 0x1DD432, "pair of kings, four-three-two kickers"),
        ("AsAd2h2c3s3dKh", 0x111D32, "pair of aces, king-three-two kickers"),  # one pair beats the two pairs it holds
        ("KsKdKh2c2s3d3h", 0x23322D, "two pair, threes and twos, king kicker"),
        ("9s9d9hAc3sKdKh", 0x199D31, "pair of nines, king-three-ace kickers"),
        (
            "9s9d9h3sAd",
            0x399931,
            "three of a kind, nines, three-ace kickers",
        ),  # seven cards never make less than two pair
        ("2s2d2h2c9s9d9h", 0x622299, "full house, twos full of nines"),
        ("AsAdAhAcKsKdKh", 0x6111DD, "full house, aces full of kings"),
        ("KsKdKhKcQs", 0x7DDDDC, "four of a kind, kings, queen kicker"),
    ],
)
def test_hand_written_values(text, value, name):
    got = int(razz.evaluate(cards.parse([text]))[0])
    assert got == as_value(razz_key(cards.parse(text))) == value, hex(got)
    assert razz.describe(got) == name


@pytest.mark.parametrize(
    "text,low",
    [
        ("As2d3h4c5sKdKh", 0x54321),
        ("8s7d6h5c4sKdKh", 0x87654),  # the worst low
        ("9s7d6h5c4s3d2h", 0x65432),  # the lowest five of six low ranks
        ("AsAd2h2c3s3d4h", 0),  # four low ranks only
        ("9s7d6h5c4sKdKh", 0),  # a nine is no low card
        ("As2s3s4s5s6s7s", 0x54321),  # a straight flush is a low
    ],
)
def test_hand_written_lows(text, low):
    got = int(razz.evaluate_low(cards.parse([text]))[0])
    assert got == eight_or_better(cards.parse(text)) == low, hex(got)


def test_readers_and_score_of():
    values = razz.evaluate(cards.parse(["As2d3h4c5s", "6sAd2h3c4s", "AsAd2h3c4s", "KsKdKhKcQs"]))
    assert razz.dense_rank(values).tolist() == [1, 2, 1288, 6175]
    assert razz.category_of(values).tolist() == [0, 0, 1, 7]
    scores = razz.score_of(values)
    assert scores.dtype == np.int64 and (np.diff(scores) < 0).all() and (scores > 0).all()  # higher wins
    assert razz.score_of(np.array([[0, values[0]]])).tolist() == [[0, razz.SCORE_TOP - values[0]]]
    for reader in (razz.category_of, razz.dense_rank, razz.score_of):
        with pytest.raises(ValueError, match=r"row 1 value 1 is not an ace-to-five value"):
            reader(np.array([values[0], 1]))
        with pytest.raises(ValueError, match="dtype"):
            reader(np.array([1.5]))
    with pytest.raises(ValueError, match="not an ace-to-five value"):
        razz.describe(0x12345)


@pytest.mark.parametrize("k", [5, 6, 7])
def test_bad_cards_raise_naming_the_row(rng, k):
    hands = random_hands(rng, 4, k)
    for evaluate in (razz.evaluate, razz.evaluate_low):
        evaluate(hands)
        bad = hands.copy()
        bad[2, k - 1] = bad[2, 0]
        with pytest.raises(ValueError, match=r"row 2 .*repeated"):
            evaluate(bad)
        for code in (52, 255):
            bad = hands.copy()
            bad[3, 1] = code
            with pytest.raises(ValueError, match=rf"row 3 .*card {code} outside 0..51"):
                evaluate(bad)
        with pytest.raises(ValueError, match="shape"):
            evaluate(hands[:, :4])
    out = np.empty(4, np.uint32)
    assert razz.evaluate(hands, out=out) is out
