"""Eight-or-better lows for Omaha hi/lo: five distinct ranks of eight or lower, exactly two hole
cards and three board cards, aces low; straights and flushes do not count against a low.

A low is the set of its five ranks, a bit each (ace bit 0, two bit 1, .. eight bit 7). Lows
compare from their highest card down, which is how integers compare bit masks: the smaller mask
is the better low (A-2-3-4-5 is ``0b11111``). Every low this module returns (and the results'
``low`` column, and what :func:`cardbatch.kernels.pots.settle` takes as ``low=``) is that hand
written as hex digits, highest first, the ace a 1 (8-6-4-2-A is ``0x86421``; 0: no qualifying
low): it reads as the hand, and it orders as lows do, the smaller the better.

Per table the board's three-card subsets with three distinct low ranks are found once; per seat
each pair of hole cards with two distinct low ranks joins each such subset it does not share a
rank with, and the smallest mask wins: at most 15 pairs by 10 subsets, plain bit operations.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange
from numpy.typing import ArrayLike

from .cards import card_problem, check_card_array
from .omaha import BOARD_TRIPLES, HOLE_SIZES
from .twins import twin

# the low bit of each card code (ace bit 0, two bit 1 .. eight bit 7; 0 for a nine or higher, or no card)
LOW_BIT = np.zeros(256, np.uint16)
for _c in range(52):
    _r = _c >> 2  # 0 = two .. 12 = ace
    if _r == 12:
        LOW_BIT[_c] = 1
    elif _r <= 6:
        LOW_BIT[_c] = 1 << (_r + 1)
# a low mask's hand written as hex digits, highest card first (0 for a mask that is not five ranks)
HEX_OF_MASK = np.zeros(256, np.int64)
for _m in range(256):
    if bin(_m).count("1") == 5:
        _v = 0
        for _b in range(7, -1, -1):
            if _m >> _b & 1:
                _v = _v << 4 | (_b + 1)
        HEX_OF_MASK[_m] = _v
NO_LOW = np.uint16(0x1FF)  # worse than any five-rank mask


@njit(cache=True, inline="always")
def _seat_low(hole, t, s, h, tmask, ntriples, low_bit):
    """Smallest five-rank mask of a hole pair and a board triple of seat ``hole[t, s, :h]``, or NO_LOW."""
    best = NO_LOW
    for i in range(h - 1):
        bi = low_bit[hole[t, s, i]]
        if bi == 0:
            continue
        for j in range(i + 1, h):
            bj = low_bit[hole[t, s, j]]
            if bj == 0 or bj == bi:
                continue
            pair = bi | bj
            for m in range(ntriples):
                if tmask[m] & pair == 0:
                    best = min(best, tmask[m] | pair)
    return best


@twin
@njit(cache=True, parallel=True)
def _low_seats_kernel(hole, board, mask, triples, low_bit, hex_of_mask, out):
    """Each seat's best low as hex digits where ``mask`` (0: no low, or not asked)."""
    T, S, h = hole.shape
    for t in prange(T):
        tmask = np.empty(10, np.uint16)
        n = 0
        for m in range(10):
            a = low_bit[board[t, triples[m, 0]]]
            b = low_bit[board[t, triples[m, 1]]]
            c = low_bit[board[t, triples[m, 2]]]
            if a and b and c and a != b and a != c and b != c:
                tmask[n] = a | b | c
                n += 1
        for s in range(S):
            v = np.int64(0)
            if mask[t, s] and n:
                best = _seat_low(hole, t, s, h, tmask, n, low_bit)
                if best != NO_LOW:
                    v = hex_of_mask[best]
            out[t, s] = v


def low_seats(hole: ArrayLike, board: ArrayLike, mask: ArrayLike) -> np.ndarray:
    """``int64[T, S]`` low of each seat in ``mask`` as hex digits (smaller is better; 0 for no
    qualifying low, or a seat not in ``mask``): what :func:`cardbatch.kernels.pots.settle` takes as
    ``low=``. ``hole[T, S, h]`` (h = 4, 5 or 6), ``board[T, 5]``; cards are not checked here (the
    batch checked them; a code above 51 counts as no low card)."""
    h = np.ascontiguousarray(hole, dtype=np.uint8)
    b = np.ascontiguousarray(board, dtype=np.uint8)
    m = np.ascontiguousarray(mask, dtype=np.bool_)
    if h.ndim != 3 or h.shape[2] not in HOLE_SIZES or b.shape != (h.shape[0], 5) or m.shape != h.shape[:2]:
        raise ValueError("low_seats: expected hole [T, S, h] (h = 4, 5 or 6), board [T, 5], mask [T, S]")
    out = np.empty(m.shape, np.int64)
    _low_seats_kernel(h, b, m, BOARD_TRIPLES, LOW_BIT, HEX_OF_MASK, out)
    return out


def evaluate_low(hole: ArrayLike, board: ArrayLike) -> np.ndarray:
    """Each hand's eight-or-better low as hex digits, highest card first (0: none; smaller is better):
    ``hole[N, h]`` (h = 4, 5 or 6) with ``board[N, 5]``, exactly two hole and three board cards.

    Raises ``ValueError`` naming the first row with a card outside 0..51 or a card twice.

    >>> from cardbatch.kernels.cards import parse
    >>> print(*(hex(v) for v in evaluate_low(parse(["As2dKhKc", "AsAd9h9c"]), parse(["3c5h8sJdQd", "2c3h4s5d6d"]))))
    0x85321 0x0
    >>> hex(int(evaluate_low(parse(["As2d3h4c"]), parse(["5c6h7sJdQd"]))[0]))  # one pair of the hand: 7-6-5-2-A
    '0x76521'
    """
    hh = check_card_array(hole, HOLE_SIZES, "evaluate_low")
    bb = check_card_array(board, (5,), "evaluate_low")
    if bb.shape[0] != hh.shape[0]:
        raise ValueError(f"evaluate_low: {hh.shape[0]} hands but {bb.shape[0]} boards")
    both = np.concatenate([hh, bb], axis=1)
    srt = np.sort(both, axis=1)
    bad = np.flatnonzero((both > 51).any(axis=1) | (srt[:, 1:] == srt[:, :-1]).any(axis=1))
    if bad.size:
        row = int(bad[0])
        raise ValueError(f"evaluate_low: row {row} {both[row].tolist()}: {card_problem(both[row])}")
    return low_seats(hh[:, None, :], bb, np.ones((hh.shape[0], 1), bool))[:, 0]
