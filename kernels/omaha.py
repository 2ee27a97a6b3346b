"""Omaha high: the best hand of exactly two hole cards and three board cards, as a Hold'em score.

A seat holds 4, 5 or 6 hole cards (``omaha``, ``omaha5``, ``omaha6``) and the table five board
cards. The score is the packed ``uint32`` of :mod:`cardbatch.kernels.holdem` (category in bits
20 up, then the five ranks), so an Omaha hand and a Hold'em hand compare as numbers.

The structure. Without a flush, a hand's value depends only on ranks, and a seat's best is the
best over its hole pairs of "this pair of ranks with the best three of this board's ranks". So
one table (:data:`PAIR_TABLE`, built once from the Hold'em evaluator's five-card tables) holds,
for each of the 6,175 multisets of five board ranks and each pair of hole ranks, that best
(as 7463 - dense rank); a seat costs one lookup per hole pair (6 for four cards) in its board's
row of 169 entries. Flushes are the rare path: only a board with three or more cards of one suit
can make one, and only with two hole cards of that suit; those pairs are tried against the
board's suited triples through the Hold'em flush table.
"""

# Measured on 200,000 random 6-seat Omaha-4 tables, one thread (benchmarks/test_bench_games.py):
# 7.2 M seats/s when each seat tried its 60 hole-pair x board-triple hands through the five-card
# hash (keys summed once per table and seat); the pair table is what makes it a small multiple
# of a Hold'em seat. Every five-card hand through the scorer (numpy-gathered): 1.6 M seats/s.

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, prange
from numpy.typing import ArrayLike

from .cards import card_problem, check_card_array
from .holdem import (  # Omaha's scores are Hold'em's: the same readers
    BAD_BITS,
    CARD_BIT,
    CARD_KEY,
    DENSE_TABLES,
    RANK_MASK,
    SCORE_OF_DENSE,
    SCORE_TABLES,
    category_of,
    check_seat_arrays,
    dense_rank,
    describe,
    rank_slot56,
)
from .twins import twin

__all__ = ["HOLE_SIZES", "category_of", "dense_rank", "describe", "evaluate", "evaluate_seats"]
HOLE_SIZES = (4, 5, 6)
# the board's three-card subsets, as indices into its five cards
BOARD_TRIPLES = np.array([(a, b, c) for a in range(5) for b in range(a + 1, 5) for c in range(b + 1, 5)], np.int64)


@njit(cache=True)
def _build_pair_table(board_ranks, rank_key, displace56, dense56, triples, out):
    """``out[row, 13 * r1 + r2]``: 7463 - the best dense rank of hole ranks r1, r2 with three of the
    board ranks ``board_ranks[row]`` (0 where the seven cards would hold a rank five times)."""
    for row in range(board_ranks.shape[0]):
        counts = np.zeros(13, np.int64)
        for j in range(5):
            counts[board_ranks[row, j]] += 1
        for r1 in range(13):
            for r2 in range(13):
                counts[r1] += 1
                counts[r2] += 1
                ok = counts[r1] <= 4 and counts[r2] <= 4
                counts[r1] -= 1
                counts[r2] -= 1
                best = 0
                if ok:
                    pair = rank_key[r1] + rank_key[r2]
                    for m in range(10):
                        k = pair
                        for j in range(3):
                            k += rank_key[board_ranks[row, triples[m, j]]]
                        best = max(best, 7463 - np.int64(dense56[rank_slot56(k, displace56)]))
                out[row, 13 * r1 + r2] = best


def _pair_table() -> tuple[np.ndarray, np.ndarray]:
    """(row of each 5/6-card hash slot for the 6,175 five-rank board multisets, the pair table)."""
    import itertools

    boards = [c for c in itertools.combinations_with_replacement(range(13), 5) if max(map(c.count, c)) <= 4]
    board_ranks = np.array(boards, np.int64)
    rank_key = (np.uint64(1) << (np.uint64(3) * np.arange(13, dtype=np.uint64))).astype(np.uint64)
    displace56 = DENSE_TABLES[2]
    keys = rank_key[board_ranks].sum(axis=1, dtype=np.uint64)
    from . import holdem_tables as ht

    bucket, slot = ht.slot_of(keys, ht.HASH_MULT["56"], *ht.HASH_BITS["56"])
    row_of_slot = np.zeros(1 << ht.HASH_BITS["56"][1], np.uint16)
    row_of_slot[slot ^ displace56[bucket].astype(np.int64)] = np.arange(len(boards))
    table = np.zeros((len(boards), 169), np.uint16)
    _build_pair_table(board_ranks, rank_key, displace56, DENSE_TABLES[3], BOARD_TRIPLES, table)
    return row_of_slot, table


ROW_OF_SLOT, PAIR_TABLE = _pair_table()
# what the kernel reads, as one tuple: (row of slot, pair table, displace56, card key, card bit, flush scores,
# score of dense)
OMAHA_TABLES = (ROW_OF_SLOT, PAIR_TABLE, DENSE_TABLES[2], CARD_KEY, CARD_BIT, SCORE_TABLES[4], SCORE_OF_DENSE)


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
def _evaluate_seats_kernel(hole, board, mask, triples, tables, out):
    """Scores of ``hole[T, S, h]`` on ``board[T, 5]`` where ``mask``; 0 elsewhere and where the cards are
    invalid (callers check cards first, like the batch, or read the 0s, like :func:`evaluate`)."""
    row_of_slot, pair_table, displace56, card_key, card_bit, flush_values, score_of_dense = tables
    T, S, h = hole.shape
    for t in prange(T):
        tmask = np.empty(10, np.uint64)  # the board's triples of its flush suit, as rank bit masks
        sranks = np.empty(h, np.uint64)
        key = np.uint64(0)
        suit_count = np.zeros(4, np.int64)
        for j in range(5):
            c = board[t, j]
            key += card_key[c] & RANK_MASK
            suit_count[c & 3] += 1
        row = np.int64(row_of_slot[rank_slot56(key, displace56)])
        suit = -1
        for q in range(4):
            if suit_count[q] >= 3:
                suit = q
        ntm = 0
        if suit >= 0:
            for m in range(10):
                a = board[t, triples[m, 0]]
                b = board[t, triples[m, 1]]
                c = board[t, triples[m, 2]]
                if (a & 3) == suit and (b & 3) == suit and (c & 3) == suit:
                    tmask[ntm] = (np.uint64(1) << np.uint64(a >> 2)) | (np.uint64(1) << np.uint64(b >> 2))
                    tmask[ntm] |= np.uint64(1) << np.uint64(c >> 2)
                    ntm += 1
        for s in range(S):
            v = np.uint32(0)
            if mask[t, s] and not _seat_invalid(hole, t, s, h, board, card_bit):
                best = np.uint16(0)
                for i in range(h - 1):
                    base = 13 * np.int64(hole[t, s, i] >> 2)
                    for j in range(i + 1, h):
                        best = max(best, pair_table[row, base + np.int64(hole[t, s, j] >> 2)])
                v = score_of_dense[7463 - np.int64(best)]
                if ntm:  # a board that can make a flush: the seat's cards of its suit, two at a time
                    n = 0
                    for j in range(h):
                        c = hole[t, s, j]
                        if (c & 3) == suit:
                            sranks[n] = np.uint64(1) << np.uint64(c >> 2)
                            n += 1
                    for i in range(n - 1):
                        for j in range(i + 1, n):
                            pair = sranks[i] | sranks[j]
                            for m in range(ntm):
                                v = max(v, flush_values[tmask[m] | pair])
            out[t, s] = v


def evaluate_seats(hole: ArrayLike, board: ArrayLike, mask: ArrayLike, dtype: Any = np.uint32) -> np.ndarray:
    """Scores of whole tables: ``hole[T, S, h]`` (h = 4, 5 or 6) on ``board[T, 5]`` where ``mask[T, S]``,
    else 0; an invalid hand (a card above 51 or a card twice) scores 0 instead of raising (for callers
    that checked the cards, like the batch driver). ``dtype``: ``uint32`` or ``int64`` (the pot kernel's).
    """
    h, b, m = check_seat_arrays(hole, board, mask, dtype, HOLE_SIZES)
    out = np.empty(m.shape, np.uint32)
    _evaluate_seats_kernel(h, b, m, BOARD_TRIPLES, OMAHA_TABLES, out)
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
