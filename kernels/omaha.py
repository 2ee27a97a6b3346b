"""Omaha high: the best hand of exactly two hole cards and three board cards, as a Hold'em score.

A seat holds 4, 5 or 6 hole cards (``omaha``, ``omaha5``, ``omaha6``) and the table five board
cards. The score is the packed ``uint32`` of :mod:`cardbatch.kernels.holdem` (category in bits
20 up, then the five ranks), so an Omaha hand and a Hold'em hand compare as numbers.

The structure: every five-card hand a seat can make is one of the board's ten three-card
subsets plus one of its ``C(h, 2)`` hole pairs. The board's ten subsets are summed once per
table (key, card bits) and each seat's pairs once per seat, so each of the 60 (h = 4), 100 or
150 candidate hands costs one add, one OR and one lookup in the Hold'em evaluator's five-card
tables (a perfect hash of the rank multiset, or the flush table): no card is loaded twice.
"""

# Measured on 200,000 random Omaha-4 seats, one thread (benchmarks/test_bench_games.py): the
# structure above against 60 calls of the five-card scorer on the seat's cards (each summing its
# five cards): see docs/performance.md for the figures.

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, prange
from numpy.typing import ArrayLike

from .cards import card_problem, check_card_array
from .holdem import (  # Omaha's scores are Hold'em's: the same readers
    BAD_BITS,
    KEY_INIT,
    SCORE_TABLES,
    category_of,
    dense_rank,
    describe,
    five_card_value,
)
from .twins import twin

__all__ = ["HOLE_SIZES", "category_of", "dense_rank", "describe", "evaluate", "evaluate_seats"]
HOLE_SIZES = (4, 5, 6)
INVALID = np.uint32(0xFFFFFFFF)
# the board's three-card subsets, as indices into its five cards
BOARD_TRIPLES = np.array([(a, b, c) for a in range(5) for b in range(a + 1, 5) for c in range(b + 1, 5)], np.int64)


@njit(cache=True, inline="always")
def _board_triples(board, t, triples, card_key, card_bit, tkey, tbits):
    """Key sums (from the initial key) and card bits of the ten three-card subsets of ``board[t]``."""
    for m in range(10):
        k = KEY_INIT
        b = np.uint64(0)
        for j in range(3):
            c = board[t, triples[m, j]]
            k += card_key[c]
            b |= card_bit[c]
        tkey[m] = k
        tbits[m] = b


@njit(cache=True, inline="always")
def _seat_best(hole, t, s, h, tkey, tbits, displace56, values56, flush_values, card_key, card_bit):
    """Best score of seat ``hole[t, s, :h]`` over every hole pair and board triple."""
    best = np.uint32(0)
    for i in range(h - 1):
        ci = hole[t, s, i]
        ki = card_key[ci]
        bi = card_bit[ci]
        for j in range(i + 1, h):
            cj = hole[t, s, j]
            pk = ki + card_key[cj]
            pb = bi | card_bit[cj]
            for m in range(10):
                v = five_card_value(tkey[m] + pk, tbits[m] | pb, displace56, values56, flush_values)
                best = max(best, v)
    return best


@njit(cache=True, inline="always")
def _seat_invalid(hole, t, s, h, board, card_bit):
    """A card of the seat or board above 51, or a card twice among them."""
    total = np.uint64(0)
    bits = np.uint64(0)
    for j in range(h):
        b = card_bit[hole[t, s, j]]
        total += b
        bits |= b
    for j in range(5):
        b = card_bit[board[t, j]]
        total += b
        bits |= b
    return (total != bits) | ((bits & BAD_BITS) != np.uint64(0))


@twin
@njit(cache=True, parallel=True)
def _evaluate_seats_kernel(hole, board, mask, triples, score_tables, out):
    """Scores of ``hole[T, S, h]`` on ``board[T, 5]`` where ``mask``; 0 elsewhere and where the cards are
    invalid. Returns nothing: callers check cards first (the batch) or read 0s (:func:`evaluate`)."""
    _, _, displace56, values56, flush_values, card_key, card_bit = score_tables
    T, S, h = hole.shape
    for t in prange(T):
        tkey = np.empty(10, np.uint64)
        tbits = np.empty(10, np.uint64)
        _board_triples(board, t, triples, card_key, card_bit, tkey, tbits)
        for s in range(S):
            v = np.uint32(0)
            if mask[t, s] and not _seat_invalid(hole, t, s, h, board, card_bit):
                v = _seat_best(hole, t, s, h, tkey, tbits, displace56, values56, flush_values, card_key, card_bit)
            out[t, s] = v


def _check_tables(hole: ArrayLike, board: ArrayLike, mask: ArrayLike) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    h = np.ascontiguousarray(hole, dtype=np.uint8)
    b = np.ascontiguousarray(board, dtype=np.uint8)
    m = np.ascontiguousarray(mask, dtype=np.bool_)
    if h.ndim != 3 or h.shape[2] not in HOLE_SIZES or b.shape != (h.shape[0], 5) or m.shape != h.shape[:2]:
        raise ValueError("evaluate_seats: expected hole [T, S, h] (h = 4, 5 or 6), board [T, 5], mask [T, S]")
    return h, b, m


def evaluate_seats(hole: ArrayLike, board: ArrayLike, mask: ArrayLike, dtype: Any = np.uint32) -> np.ndarray:
    """Scores of whole tables: ``hole[T, S, h]`` (h = 4, 5 or 6) on ``board[T, 5]`` where ``mask[T, S]``,
    else 0; an invalid hand (a card above 51 or a card twice) scores 0 instead of raising (for callers
    that checked the cards, like the batch driver). ``dtype``: ``uint32`` or ``int64`` (the pot kernel's).
    """
    h, b, m = _check_tables(hole, board, mask)
    if np.dtype(dtype) not in (np.dtype(np.uint32), np.dtype(np.int64)):
        raise ValueError(f"evaluate_seats: dtype must be uint32 or int64, got {dtype}")
    out = np.empty(m.shape, np.uint32)
    _evaluate_seats_kernel(h, b, m, BOARD_TRIPLES, SCORE_TABLES, out)
    return out if np.dtype(dtype) == np.dtype(np.uint32) else out.astype(dtype)


def evaluate(hole: ArrayLike, board: ArrayLike) -> np.ndarray:
    """Packed ``uint32`` score (Hold'em's) of each Omaha hand: ``hole[N, h]`` (h = 4, 5 or 6) with
    ``board[N, 5]``, using exactly two hole cards and three board cards.

    Raises ``ValueError`` naming the first row with a card outside 0..51 or a card twice.

    >>> from cardbatch.kernels.cards import parse
    >>> evaluate(parse(["AsKdQc2h"]), parse(["AhAdTc7h2c"])).tolist()  # A-2 in hand, A-A-2 on board
    [7077888]
    >>> evaluate(parse(["AsKs2h3d"]), parse(["QsJsTs4h5c"])).tolist()  # the royal flush uses A-K of spades
    [9175040]
    >>> evaluate(parse(["As2h3d4c"]), parse(["KsQsJsTs9s"])).tolist()  # one spade in hand: ace high
    [834194]
    """
    h = check_card_array(hole, HOLE_SIZES, "evaluate")
    b = check_card_array(board, (5,), "evaluate")
    if b.shape[0] != h.shape[0]:
        raise ValueError(f"evaluate: {h.shape[0]} hands but {b.shape[0]} boards")
    out = evaluate_seats(h[:, None, :], b, np.ones((h.shape[0], 1), bool))[:, 0]
    bad = np.flatnonzero(out == 0)  # no valid hand scores 0
    if bad.size:
        row = int(bad[0])
        cards = np.concatenate([h[row], b[row]])
        raise ValueError(f"evaluate: row {row} {cards.tolist()}: {card_problem(cards)}")
    return out
