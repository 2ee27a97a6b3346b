"""Omaha high (:mod:`cardbatch.kernels.omaha`) against three oracles: the plain reference of
games_reference (every two-hole-card, three-board-card hand through holdem_reference's scorer),
phevaluator's Omaha evaluator (dense ranks, 1 = royal flush .. 7462) and pokerkit's
``OmahaHoldemHand``; then hands where Omaha and Hold'em differ, and the card checks."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import random_hands
from games_reference import dense_order, omaha_high
from holdem_reference import best_score

from cardbatch.kernels import cards, holdem, omaha


def split(deals: np.ndarray, h: int) -> tuple[np.ndarray, np.ndarray]:
    """Deals of h + 5 distinct cards as (hole[N, h], board[N, 5])."""
    return np.ascontiguousarray(deals[:, :h]), np.ascontiguousarray(deals[:, h : h + 5])


@pytest.mark.parametrize("h,n", [(4, 3000), (5, 2000), (6, 2000)])
def test_random_hands_match_reference(rng, h, n):
    hole, board = split(random_hands(rng, n, h + 5), h)
    ours = omaha.evaluate(hole, board)
    assert ours.dtype == np.uint32
    assert ours.tolist() == [omaha_high(a, b) for a, b in zip(hole, board)]


def test_built_hands_match_reference(rng):
    """Random deals rarely hold straight flushes, quads or full houses: deals from six ranks (the
    wheel's and a ten) do."""
    deck = np.array([r * 4 + s for r in (0, 1, 2, 3, 12, 8) for s in range(4)], np.uint8)
    deals = np.array([rng.choice(deck, 9, replace=False) for _ in range(1500)], np.uint8)
    hole, board = split(deals, 4)
    ours = omaha.evaluate(hole, board)
    assert ours.tolist() == [omaha_high(a, b) for a, b in zip(hole, board)]
    assert set(holdem.category_of(ours).tolist()) >= {4, 5, 6, 7, 8}  # the sample holds the rare hands


def phevaluator_ids(codes: np.ndarray) -> np.ndarray:
    """Our codes (suits d, c, h, s) as phevaluator's ints (suits c, d, h, s)."""
    return np.where((codes & 3) < 2, codes ^ 1, codes)


def test_dense_ranks_match_phevaluator(rng):
    """phevaluator numbers hands 1 (royal flush) .. 7462 as holdem.dense_rank does: equal dense ranks
    on 20,000 random Omaha-4 hands mean the same order and the same ties."""
    phe = pytest.importorskip("phevaluator")
    ids = phevaluator_ids(np.arange(52, dtype=np.uint8))
    assert [str(phe.Card(int(i))) for i in ids] == [cards.format([c]) for c in range(52)]  # the mapping
    hole, board = split(random_hands(rng, 20000, 9), 4)
    theirs = np.array(
        [phe.evaluate_omaha_cards(*ids[b].tolist(), *ids[h].tolist()) for h, b in zip(hole, board)],
    )
    assert (holdem.dense_rank(omaha.evaluate(hole, board)) == theirs).all()


@pytest.mark.parametrize("h,n", [(4, 1500), (5, 400), (6, 300)])
def test_order_matches_pokerkit(rng, h, n):
    """pokerkit's hands compare with < and ==: the order (and ties) its comparisons give the hands
    is the order of our scores."""
    pokerkit = pytest.importorskip("pokerkit")
    hole, board = split(random_hands(rng, n, h + 5), h)
    theirs = [pokerkit.OmahaHoldemHand.from_game(a, b) for a, b in zip(cards.format(hole), cards.format(board))]
    ours = omaha.evaluate(hole, board)
    assert dense_order(theirs) == np.unique(ours, return_inverse=True)[1].ravel().tolist()


# hole, board, the five cards Omaha plays, and whether Hold'em's best of the seven differs
EDGE_CASES = [
    # four spades on the board and one in the hand: no flush, A-K-Q-J-T is a straight
    ("AsKd8c2h", "QsJsTs3s4d", "AsKdQsJsTs", True),
    # four of a suit on the board, one in the hand: a pair of nines, not the ace-high flush
    ("As9d9c2h", "KsQs7s3s5d", "9d9cKsQs7s", True),
    # three spades on the board and two in the hand: the flush
    ("As2sKdKc", "Qs7s3s5d9h", "As2sQs7s3s", False),
    # trips on the board and a pocket pair: a full house
    ("5c5dAhKc", "9s9h9d2c3h", "5c5d9s9h9d", False),
    # quads on the board cannot play as quads: trips with the two best hole cards
    ("AhKcQdJc", "9s9h9d9c3h", "AhKc9s9h9d", True),
    # a full house on the board: trips and two hole cards
    ("7c8d9hTs", "KsKhKd3c3h", "TsKsKhKd9h", True),
    # three aces in the hand: two of them play, a pair
    ("AsAdAc2h", "KsQd7c5h3d", "AsAdKsQd7c", True),
    # one hole card makes a Hold'em straight, two must play: high card
    ("TsAcKdQh", "9s8d7c6h2d", "AcKd9s8d7c", True),
    # the wheel with two hole cards
    ("As2dKcKh", "3c4h5sJdQd", "As2d3c4h5s", False),
    # a straight flush with exactly two suited hole cards
    ("8h9hAcAd", "ThJhQh2c2s", "8h9hThJhQh", False),
    # two pair on the board: the hand's pair makes a full house with a board pair, not two pair + pair
    ("QcQd4s3s", "QhJhJd8c2s", "QcQdQhJhJd", False),
]


@pytest.mark.parametrize("hole,board,five,holdem_differs", EDGE_CASES)
def test_edge_cases(hole, board, five, holdem_differs):
    h, b = cards.parse([hole]), cards.parse([board])
    got = int(omaha.evaluate(h, b)[0])
    expect = int(holdem.evaluate(cards.parse([five]))[0])
    assert got == expect, (holdem.describe(got), holdem.describe(expect))
    assert got == omaha_high(h[0], b[0])
    # the best five of all nine cards, any way (what Hold'em's rule would play)
    assert (best_score(np.concatenate([h[0], b[0]])) != got) == holdem_differs


@pytest.mark.parametrize("h", [4, 5, 6])
def test_bad_cards_raise_naming_the_row(rng, h):
    hole, board = split(random_hands(rng, 4, h + 5), h)
    ok = omaha.evaluate(hole, board)
    bad_hole, bad_board = hole.copy(), board.copy()
    bad_board[2, 4] = bad_hole[2, 0]  # a hole card again on the board
    with pytest.raises(ValueError, match=r"row 2 .*repeated"):
        omaha.evaluate(bad_hole, bad_board)
    bad_hole, bad_board = hole.copy(), board.copy()
    bad_hole[1, h - 1] = bad_hole[1, 0]  # a card twice in the hand
    with pytest.raises(ValueError, match=r"row 1 .*repeated"):
        omaha.evaluate(bad_hole, bad_board)
    for code in (52, 255):
        bad_hole, bad_board = hole.copy(), board.copy()
        bad_board[3, 1] = code
        with pytest.raises(ValueError, match=f"row 3 .*card {code} outside 0..51"):
            omaha.evaluate(bad_hole, bad_board)
    negative = hole.astype(np.int64)
    negative[1, 0] = -1
    with pytest.raises(ValueError, match=r"row 1 .*outside 0..51"):
        omaha.evaluate(negative, board)
    assert omaha.evaluate(hole, board).tolist() == ok.tolist()  # the inputs were not touched


def test_bad_shapes_raise():
    with pytest.raises(ValueError, match="shape"):
        omaha.evaluate(np.zeros((2, 3), np.uint8), np.zeros((2, 5), np.uint8))
    with pytest.raises(ValueError, match="shape"):
        omaha.evaluate(np.zeros((2, 7), np.uint8), np.zeros((2, 5), np.uint8))
    with pytest.raises(ValueError, match="shape"):
        omaha.evaluate(np.zeros((2, 4), np.uint8), np.zeros((2, 4), np.uint8))
    with pytest.raises(ValueError, match="2 hands but 3 boards"):
        omaha.evaluate(random_hands(np.random.default_rng(1), 2, 4), random_hands(np.random.default_rng(2), 3, 5))
    with pytest.raises(ValueError, match="evaluate_seats"):
        omaha.evaluate_seats(np.zeros((2, 3, 4), np.uint8), np.zeros((2, 5), np.uint8), np.ones((2, 2), bool))
    with pytest.raises(ValueError, match="dtype"):
        omaha.evaluate_seats(np.zeros((2, 3, 4), np.uint8), np.zeros((2, 5), np.uint8), np.ones((2, 3), bool), float)


@pytest.mark.parametrize("h", [4, 5, 6])
def test_evaluate_seats_masks_and_flags_invalid_hands(rng, h):
    T, S = 300, 4
    deals = random_hands(rng, T, S * h + 5)
    hole = deals[:, : S * h].reshape(T, S, h).copy()
    board = np.ascontiguousarray(deals[:, S * h :])
    mask = rng.random((T, S)) < 0.7
    hole[5, 1, 0] = board[5, 0]  # a repeated card: that seat scores 0, its neighbours do not
    hole[9, 2, h - 1] = 77  # a code above 51
    got = omaha.evaluate_seats(hole, board, mask)
    assert got.dtype == np.uint32
    wide = omaha.evaluate_seats(hole, board, mask, np.int64)
    assert wide.dtype == np.int64 and (wide == got).all()
    expect = np.zeros((T, S), np.int64)
    for t in range(T):
        for s in range(S):
            if mask[t, s] and (t, s) not in ((5, 1), (9, 2)):
                expect[t, s] = omaha_high(hole[t, s], board[t])
    assert (got == expect).all()
    assert (got[~mask] == 0).all() and mask.sum() > 0 and (~mask).sum() > 0
    valid = np.ones((T, S), bool)
    valid[5, 1] = valid[9, 2] = False
    assert (got[mask & valid] > 0).all()
