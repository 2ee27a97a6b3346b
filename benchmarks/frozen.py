"""The evaluators as they were on 2026-12-01 (commit 5c6f86c), frozen as the baseline of issue #15.

Benchmarks run them beside today's kernels, on the same data in the same
process, so every speed-up is a ratio measured in one run. A copy on
purpose: the kernels in ``cardbatch.kernels`` move on, this does not. It
reads the Hold'em tables through the public names (they did not change) and
rebuilds the old three-card multiset table from today's public lookup.
"""

from __future__ import annotations

import itertools

import numpy as np
from numba import njit, prange

from cardbatch.kernels import holdem, holdem_tables, threecard
from cardbatch.kernels.bits import popcount64

# --- Hold'em: one key per card summed, popcount validation, flush by a loop over the cards ---
_M7 = np.uint64(holdem_tables.HASH_MULT["7"])
_B7 = np.uint64(64 - holdem_tables.HASH_BITS["7"][0])
_S7 = np.uint64(64 - sum(holdem_tables.HASH_BITS["7"]))
_K7 = np.uint64((1 << holdem_tables.HASH_BITS["7"][1]) - 1)
_M56 = np.uint64(holdem_tables.HASH_MULT["56"])
_B56 = np.uint64(64 - holdem_tables.HASH_BITS["56"][0])
_S56 = np.uint64(64 - sum(holdem_tables.HASH_BITS["56"]))
_K56 = np.uint64((1 << holdem_tables.HASH_BITS["56"][1]) - 1)
_FLUSH_BITS = holdem_tables.FLUSH_BITS
_RANK_MASK = holdem_tables.RANK_MASK
_KEY_INIT = holdem_tables.KEY_INIT
_SUIT_SHIFT = np.uint64(holdem_tables.SUIT_SHIFT)
_ONE = np.uint64(1)
_LOW6 = np.uint64(63)


@njit(cache=True, inline="always")
def _flush_suit(key):
    suit_bits = (key >> _SUIT_SHIFT) & np.uint64(0x8888)
    s = 0
    while not (suit_bits >> np.uint64(4 * s + 3)) & np.uint64(1):
        s += 1
    return s


@njit(cache=True, inline="always")
def _row_dense(cards, i, k, mult, bucket_shift, slot_shift, slot_mask, displace, rank_table, flush_table, card_key):
    key = _KEY_INIT
    seen = np.uint64(0)
    high = 0
    for j in range(k):
        c = cards[i, j]
        key += card_key[c]
        seen |= _ONE << (np.uint64(c) & _LOW6)
        high |= np.int64(c) + 12
    if popcount64(seen) != k or high >= 64:
        return 0
    mask = 0
    if key & _FLUSH_BITS:
        s = _flush_suit(key)
        for j in range(k):
            c = cards[i, j]
            if (c & 3) == s:
                mask |= 1 << (c >> 2)
        return flush_table[mask]
    h = (key & _RANK_MASK) * mult
    slot = ((h >> slot_shift) & slot_mask) ^ np.uint64(displace[h >> bucket_shift])
    return rank_table[slot]


@njit(cache=True, parallel=True)
def _holdem_kernel(cards, out, displace7, table7, displace56, table56, flush_table, score_of_dense, card_key):
    n, k = cards.shape
    nbad = 0
    if k == 7:
        for i in prange(n):
            dense = _row_dense(cards, i, 7, _M7, _B7, _S7, _K7, displace7, table7, flush_table, card_key)
            nbad += dense == 0
            out[i] = score_of_dense[dense]
    elif k == 6:
        for i in prange(n):
            dense = _row_dense(cards, i, 6, _M56, _B56, _S56, _K56, displace56, table56, flush_table, card_key)
            nbad += dense == 0
            out[i] = score_of_dense[dense]
    else:
        for i in prange(n):
            dense = _row_dense(cards, i, 5, _M56, _B56, _S56, _K56, displace56, table56, flush_table, card_key)
            nbad += dense == 0
            out[i] = score_of_dense[dense]
    return nbad


def holdem_evaluate(cards: np.ndarray, out: np.ndarray) -> np.ndarray:
    """The 2026-12-01 ``holdem.evaluate`` for ``uint8[N, k]``, k = 5, 6, 7 (no checks: benchmark input only)."""
    _holdem_kernel(
        cards,
        out,
        holdem.DISPLACE7,
        holdem.TABLE7,
        holdem.DISPLACE56,
        holdem.TABLE56,
        holdem.FLUSH_TABLE,
        holdem.SCORE_OF_DENSE,
        holdem.CARD_KEY,
    )
    return out


# --- Three-card: clamp, sort three codes, gather at the multiset index lo + C2[mid] + C3[hi] ---
_C2 = np.array([m * (m + 1) // 2 for m in range(53)], dtype=np.int64)
_C3 = np.array([h * (h + 1) * (h + 2) // 6 for h in range(53)], dtype=np.int64)


def multiset_lookup(rules: str) -> np.ndarray:
    """The old ``int32[26235]`` table, rebuilt from today's values of all 22,100 hands."""
    hands = np.array(list(itertools.combinations(range(52), 3)), np.int64)
    out = np.full(26235, -1, np.int32)
    out[hands[:, 0] + _C2[hands[:, 1]] + _C3[hands[:, 2]]] = threecard.evaluate(hands.astype(np.uint8), rules)
    return out


@njit(cache=True, parallel=True)
def _threecard_kernel(cards, lookup, c2, c3, out):
    nbad = 0
    top = np.uint64(52)
    for i in prange(cards.shape[0]):
        x = min(np.uint64(cards[i, 0]), top)
        y = min(np.uint64(cards[i, 1]), top)
        z = min(np.uint64(cards[i, 2]), top)
        lo = min(x, min(y, z))
        hi = max(x, max(y, z))
        mid = x + y + z - lo - hi
        v = lookup[lo + np.uint64(c2[mid]) + np.uint64(c3[hi])]
        nbad += v < 0
        out[i] = v
    return nbad


def threecard_evaluate(cards: np.ndarray, lookup: np.ndarray, out: np.ndarray) -> np.ndarray:
    """The 2026-12-01 ``threecard.evaluate`` for ``uint8[N, 3]`` with :func:`multiset_lookup`'s table."""
    _threecard_kernel(cards, lookup, _C2, _C3, out)
    return out
