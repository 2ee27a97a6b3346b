"""Eight-or-better lows (:mod:`cardbatch.kernels.lowball`) against the plain reference of
games_reference and pokerkit's ``OmahaEightOrBetterLowHand``, properties of a low by hypothesis,
the whole-table form (``low_seats``) and the card checks."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import random_hands
from games_reference import dense_order, low_as_hex, omaha_low
from hypothesis import given, settings
from hypothesis import strategies as st

from cardbatch.kernels import cards, lowball, omaha

# the cards of ranks ace .. eight, and of nine .. king
LOW_CARDS = np.array([c for c in range(52) if c // 4 <= 6 or c // 4 == 12], np.uint8)
HIGH_CARDS = np.array([c for c in range(52) if 7 <= c // 4 <= 11], np.uint8)


def low_rich(rng: np.random.Generator, n: int, k: int) -> np.ndarray:
    """n deals of k distinct cards, most of them ace .. eight: many lows, and many equal lows."""
    deck = np.concatenate([LOW_CARDS, HIGH_CARDS[:8]])
    return np.array([rng.choice(deck, k, replace=False) for _ in range(n)], np.uint8)


def split(deals: np.ndarray, h: int) -> tuple[np.ndarray, np.ndarray]:
    return np.ascontiguousarray(deals[:, :h]), np.ascontiguousarray(deals[:, h : h + 5])


@pytest.mark.parametrize("h", [4, 5, 6])
def test_random_hands_match_reference(rng, h):
    deals = np.concatenate([random_hands(rng, 2000, h + 5), low_rich(rng, 2000, h + 5)])
    hole, board = split(deals, h)
    ours = lowball.evaluate_low(hole, board)
    expect = [low_as_hex(omaha_low(a, b)) for a, b in zip(hole, board)]
    assert ours.tolist() == expect
    assert 0.2 < (ours > 0).mean() < 0.9  # lows and hands without one, both
    assert len(set(expect)) > 40  # many different lows


def test_low_seats_is_the_same_low_for_whole_tables(rng):
    """``low_seats``: each seat's ``evaluate_low`` where the mask says, 0 elsewhere."""
    T, S, h = 500, 3, 4
    deals = low_rich(rng, T, S * h + 5)
    hole = deals[:, : S * h].reshape(T, S, h)
    board = np.ascontiguousarray(deals[:, S * h :])
    mask = rng.random((T, S)) < 0.8
    low = lowball.low_seats(hole, board, mask)
    assert low.dtype == np.int64
    public = lowball.evaluate_low(hole.reshape(T * S, h), np.repeat(board, S, axis=0)).reshape(T, S)
    assert (low == np.where(mask, public, 0)).all()
    assert len(np.unique(public[public > 0])) > 20


@pytest.mark.parametrize("h,n", [(4, 1500), (6, 300)])
def test_matches_pokerkit(rng, h, n):
    """Who has a low, and the order of the lows (ties included), as pokerkit's own comparisons give them."""
    pokerkit = pytest.importorskip("pokerkit")
    deals = np.concatenate([random_hands(rng, n // 2, h + 5), low_rich(rng, n - n // 2, h + 5)])
    hole, board = split(deals, h)
    theirs = [
        pokerkit.OmahaEightOrBetterLowHand.from_game_or_none(a, b)
        for a, b in zip(cards.format(hole), cards.format(board))
    ]
    ours = lowball.evaluate_low(hole, board)
    assert [t is not None for t in theirs] == (ours > 0).tolist()
    with_low = [t for t in theirs if t is not None]
    assert len(with_low) > n // 3
    # pokerkit: a better low is the greater hand; ours: the smaller value
    assert dense_order(with_low) == np.unique(-ours[ours > 0], return_inverse=True)[1].ravel().tolist()


@st.composite
def deals(draw, low_heavy: bool = False):
    h = draw(st.sampled_from([4, 5, 6]))
    deck = list(LOW_CARDS) + list(HIGH_CARDS[:6]) if low_heavy else list(range(52))
    chosen = draw(st.permutations(deck))[: h + 5]
    return np.array([chosen[:h]], np.uint8), np.array([chosen[h:]], np.uint8)


def digits(v: int) -> list[int]:
    return [int(d, 16) for d in f"{v:x}"]


@settings(max_examples=400, deadline=None)
@given(st.one_of(deals(), deals(low_heavy=True)))
def test_a_low_is_five_distinct_ranks_of_eight_or_less(deal):
    hole, board = deal
    v = int(lowball.evaluate_low(hole, board)[0])
    if v == 0:
        return
    d = digits(v)
    assert len(d) == 5 and len(set(d)) == 5  # five distinct ranks
    assert all(1 <= x <= 8 for x in d)  # none above eight (ace = 1)
    assert d == sorted(d, reverse=True)  # highest first
    low_rank = lambda c: 1 if c // 4 == 12 else c // 4 + 2
    hole_ranks = {low_rank(int(c)) for c in hole[0]}
    board_ranks = {low_rank(int(c)) for c in board[0]}
    # two of them from the hand and three from the board
    assert any(len(set(d) & hole_ranks & {a, b}) == 2 and set(d) - {a, b} <= board_ranks for a in d for b in d)


@settings(max_examples=300, deadline=None)
@given(st.one_of(deals(), deals(low_heavy=True)), st.data())
def test_no_low_without_two_distinct_low_hole_ranks(deal, data):
    """A hand whose hole cards hold fewer than two distinct ranks of eight or lower has no low, whatever
    the board; and fewer than three on the board, none for any hand."""
    hole, board = deal
    h = hole.shape[1]
    # make the hand hold at most one low rank: every hole card but those of one low rank becomes high
    keep = data.draw(st.sampled_from(sorted({int(c) // 4 for c in hole[0]})))
    used = set(hole[0].tolist()) | set(board[0].tolist())
    spare = [c for c in HIGH_CARDS.tolist() if c not in used]
    poor = hole.copy()
    for j in range(h):
        if hole[0, j] // 4 != keep and (hole[0, j] // 4 <= 6 or hole[0, j] // 4 == 12):
            poor[0, j] = spare.pop()
    assert int(lowball.evaluate_low(poor, board)[0]) == 0
    board_low = {int(c) // 4 for c in board[0] if c // 4 <= 6 or c // 4 == 12}
    if len(board_low) < 3:
        assert int(lowball.evaluate_low(hole, board)[0]) == 0


@settings(max_examples=200, deadline=None)
@given(deals(low_heavy=True), st.data())
def test_order_of_cards_and_suits_do_not_matter(deal, data):
    hole, board = deal
    v = lowball.evaluate_low(hole, board)[0]
    ph = data.draw(st.permutations(range(hole.shape[1])))
    pb = data.draw(st.permutations(range(5)))
    assert lowball.evaluate_low(hole[:, ph], board[:, pb])[0] == v
    # the same ranks in other suits (a permutation of the suits keeps the cards distinct)
    suits = np.array(data.draw(st.permutations(range(4))), np.uint8)
    relabel = lambda c: (c & ~np.uint8(3)) | suits[c & 3]
    assert lowball.evaluate_low(relabel(hole), relabel(board))[0] == v


@pytest.mark.parametrize(
    "hole,board,low",
    [
        ("As2dKhKc", "3c5h8sJdQd", 0x85321),
        ("AsAd9h9c", "2c3h4s5d6d", 0),  # one low rank in the hand (the aces pair)
        ("As2d3h4c", "5c6h7sJdQd", 0x76521),  # two hole cards only: not A-2-3-4-5
        ("2s3d9h9c", "AcAh4s5d5h", 0x54321),  # a paired board: its low ranks A, 4, 5 still make the wheel
        ("2s3dKhKc", "Ac4h5sQdJd", 0x54321),  # the wheel is the best low
        ("7s8dKhKc", "Ac2h3sQdJd", 0x87321),
        ("As2s3s4s", "5s6s7s8sKs", 0x76521),  # a flush and a straight: the low stands
        ("9s9dTsTd", "As2s3s4s5s", 0),  # no low card in the hand
        ("As2dAh2h", "3c4h9s9dTd", 0),  # two low board ranks only
    ],
)
def test_hand_written_lows(hole, board, low):
    got = int(lowball.evaluate_low(cards.parse([hole]), cards.parse([board]))[0])
    assert got == low_as_hex(omaha_low(cards.parse(hole), cards.parse(board)))
    assert got == low, hex(got)


@pytest.mark.parametrize("h", [4, 5, 6])
def test_bad_cards_raise_naming_the_row(rng, h):
    hole, board = split(random_hands(rng, 4, h + 5), h)
    lowball.evaluate_low(hole, board)
    bad = board.copy()
    bad[2, 0] = hole[2, 1]
    with pytest.raises(ValueError, match=r"row 2 .*repeated"):
        lowball.evaluate_low(hole, bad)
    bad = hole.copy()
    bad[3, 0] = 60
    with pytest.raises(ValueError, match=r"row 3 .*card 60 outside 0..51"):
        lowball.evaluate_low(bad, board)
    with pytest.raises(ValueError, match="shape"):
        lowball.evaluate_low(hole[:, :3], board)
    with pytest.raises(ValueError, match="low_seats"):
        lowball.low_seats(hole[:, None, :], board, np.ones((4, 2), bool))


def test_every_public_low_is_the_hand_in_hex_and_the_pot_takes_it_as_is():
    """A trial passed ``evaluate_low``'s values to ``pots.settle(low=)``, which took higher as better:
    the worse low won. Every public low is now the hand in hex (smaller wins), the pots' too."""
    from cardbatch.kernels import pots

    hole = cards.parse(["Ac2dJsQh", "Ah5hTs9s", "KsQsJdJc"])[None]
    board = cards.parse(["3c4d8hKcKd"])
    live = np.ones((1, 3), bool)
    score = omaha.evaluate_seats(hole, board, live, np.int64)
    by_hand = lowball.evaluate_low(hole[0], np.repeat(board, 3, axis=0))[None]
    assert by_hand.tolist() == lowball.low_seats(hole, board, live).tolist() == [[0x84321, 0x85431, 0]]
    assert pots.settle([[100, 100, 100]], live, score, 0, low=by_hand).tolist() == [[150, 0, 150]]
