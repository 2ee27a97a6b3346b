"""Hold'em hand evaluation: best five of 5, 6 or 7 cards as a packed ``uint32``.

Score = ``category << 20 | r1 << 16 | r2 << 12 | r3 << 8 | r4 << 4 | r5``
(docs: Rules): category 0 high card .. 8 straight flush, ranks 0..12 (2..A) in
order of significance. Higher is better; equal is a tie.

The kernel reads two 64-bit words per card from one 256-row table (any
``uint8`` code indexes it): a key (rank counts + suit counts, see
:mod:`cardbatch.kernels.holdem_tables`), summed, and the card's bit in a
four-lane rank mask (bit ``16 * suit + rank``; codes 52..255 set an unused
bit), both summed and OR-ed. A repeated card carries in the sum, so
``sum != or`` or an unused bit marks an invalid hand: validation with no
popcount and no branch per card. A flush bit in the key selects the flush
suit's lane of the mask as the index of the flush table; otherwise the score
comes through a perfect hash of the rank multiset: two small L2-resident
tables.

The tables hold the packed scores themselves (:data:`SCORE_TABLES`; deck
ranking, which counts dense ranks, reads :data:`DENSE_TABLES`).
"""

# Rejected, measured on 10 M random 7-card hands, one thread (2-vCPU VM): the card set as ``1 << c`` checked by
# popcount plus an OR of ``c + 12`` for the range, the flush mask rebuilt by a loop over the cards, an early return
# for an invalid hand and a dense rank mapped to its score by a third load: 140 M/s, against 176 M/s now. For scale:
# summing the keys alone runs at 600 M/s, keys plus the hash (no validation, no flush) at 326 M/s, so the two
# dependent loads of the hash are most of the time.

from __future__ import annotations

from typing import Any

import numba
import numpy as np
from numba import njit, prange
from numpy.typing import ArrayLike

from cardbatch.games import HOLDEM

from . import holdem_tables as _ht
from .bits import trailing_zeros64
from .cards import card_problem, check_card_array, check_out
from .twins import twin

_T = _ht.load()
FLUSH_TABLE: np.ndarray = _T["flush_table"]
SCORE_OF_DENSE: np.ndarray = _T["score_of_dense"]
CARD_KEY: np.ndarray = _T["card_key"]
DISPLACE7, TABLE7 = _T["displace7"], _T["rank_table7"]
DISPLACE56, TABLE56 = _T["displace56"], _T["rank_table56"]
if int(_T["mult7"][0]) != _ht.HASH_MULT["7"] or int(_T["mult56"][0]) != _ht.HASH_MULT["56"]:
    raise ImportError(
        "kernels/holdem_tables.npz was built with other hash multipliers: "
        "rebuild it with `python -m cardbatch.kernels.holdem_tables`"
    )

# Hash constants are module globals so numba compiles them in: as loop-invariant
# loads from an array they cost about half the enumeration's speed.
_M7 = np.uint64(_ht.HASH_MULT["7"])
_B7 = np.uint64(64 - _ht.HASH_BITS["7"][0])
_S7 = np.uint64(64 - sum(_ht.HASH_BITS["7"]))
_K7 = np.uint64((1 << _ht.HASH_BITS["7"][1]) - 1)
_M56 = np.uint64(_ht.HASH_MULT["56"])
_B56 = np.uint64(64 - _ht.HASH_BITS["56"][0])
_S56 = np.uint64(64 - sum(_ht.HASH_BITS["56"]))
_K56 = np.uint64((1 << _ht.HASH_BITS["56"][1]) - 1)

INVALID = np.uint32(0xFFFFFFFF)
_KEY_INIT = _ht.KEY_INIT
_FLUSH_BITS = _ht.FLUSH_BITS
_RANK_MASK = _ht.RANK_MASK
_SUIT_SHIFT = np.uint64(_ht.SUIT_SHIFT)
_SUIT_TOPS = np.uint64(0x8888)
_SUIT_X4 = np.uint64(0x3C)
_FOUR = np.uint64(4)
_LANE = np.uint64(0x1FFF)
_BAD_BITS = np.uint64(0xE000E000E000E000)  # bits 13-15 of each lane: no rank lives there
_ONE_PER_SUIT = np.uint64(0x1111 << _ht.SUIT_SHIFT)  # a card more of every suit: flush bit iff a suit holds 4
_TWO_PER_SUIT = np.uint64(0x2222 << _ht.SUIT_SHIFT)  # two more: flush bit iff a suit holds 3

CARD_BIT = np.array([1 << (16 * (c & 3) + (c >> 2)) if c < 52 else 1 << 15 for c in range(256)], dtype=np.uint64)
# The tables a kernel reads, as one tuple: (displace7, values7, displace56, values56, flush values,
# card key, card bit). DENSE: values are dense ranks (deck ranking counts them); SCORES: the
# packed scores themselves (score_of_dense folded in: one dependent load less per hand).
DENSE_TABLES = (DISPLACE7, TABLE7, DISPLACE56, TABLE56, FLUSH_TABLE, CARD_KEY, CARD_BIT)
SCORE_TABLES = (
    DISPLACE7,
    SCORE_OF_DENSE[TABLE7],
    DISPLACE56,
    SCORE_OF_DENSE[TABLE56],
    SCORE_OF_DENSE[FLUSH_TABLE],
    CARD_KEY,
    CARD_BIT,
)

CATEGORY_NAMES = HOLDEM.category_names  # the game registry's, one list for every reader
_RANK_WORD = ("two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "jack", "queen", "king", "ace")
_RANK_PLURAL = (
    "twos",
    "threes",
    "fours",
    "fives",
    "sixes",
    "sevens",
    "eights",
    "nines",
    "tens",
    "jacks",
    "queens",
    "kings",
    "aces",
)


@njit(cache=True, inline="always")
def _value_of_key(key, bits, mult, bucket_shift, slot_shift, slot_mask, displace, values, flush_values):
    """The value (dense rank or score, per the tables) of a summed key; ``bits`` is the OR of the
    cards' :data:`CARD_BIT`, whose flush-suit lane indexes the flush table."""
    if key & _FLUSH_BITS:
        lane = trailing_zeros64((key >> _SUIT_SHIFT) & _SUIT_TOPS) & _SUIT_X4  # 4 * the flush suit
        return flush_values[(bits >> (lane * _FOUR)) & _LANE]
    h = (key & _RANK_MASK) * mult
    slot = ((h >> slot_shift) & slot_mask) ^ np.uint64(displace[h >> bucket_shift])
    return values[slot]


KEY_INIT = _KEY_INIT  # a hand's key before its cards are added
FLUSH_BITS = _FLUSH_BITS  # a key's flush bits: set when a suit holds five
ONE_PER_SUIT = _ONE_PER_SUIT  # added to a key: flush bits set iff a suit holds four (a flush one card away)
BAD_BITS = _BAD_BITS  # card bits no valid card sets
RANK_MASK = _RANK_MASK  # a key's rank counts (its suit counts masked off)


@njit(cache=True, inline="always")
def rank_slot56(rank_key, displace56):
    """The 5/6-card perfect hash's slot of a rank multiset's key (``key & RANK_MASK``): the index of
    its value in that hash's values table, distinct for every multiset of 5 or 6 cards."""
    h = rank_key * _M56
    return ((h >> _S56) & _K56) ^ np.uint64(displace56[h >> _B56])


@njit(cache=True, inline="always")
def five_card_value(key, bits, displace56, values56, flush_values):
    """The value of a five-card hand from its summed key (from :data:`KEY_INIT`) and OR-ed card bits,
    through the 5/6-card hash's tables (for evaluators that build five-card hands of their own)."""
    return _value_of_key(key, bits, _M56, _B56, _S56, _K56, displace56, values56, flush_values)


@njit(cache=True, inline="always")
def _row_value(flat, base, k, displace, values, flush_values, card_key, card_bit):
    """(value, invalid) of the k cards at ``flat[base:]`` (``base`` unsigned) through one hash's
    tables (k a literal: the card loop unrolls, and 7 picks the 7-card hash); invalid: a card of 52
    or more, or a card twice.

    The value is looked up whatever the cards: a branch on ``invalid`` ran 10 % slower. The
    tables come one by one, unpacked by the kernel before its loop: unpacked from their tuple
    here, inside the parallel loop, they cost a reference count per hand (141 against 122 M/s).
    """
    key = _KEY_INIT
    total = np.uint64(0)
    bits = np.uint64(0)
    for j in range(k):
        c = flat[base + np.uint64(j)]
        key += card_key[c]
        b = card_bit[c]
        total += b
        bits |= b
    invalid = (total != bits) | ((bits & _BAD_BITS) != np.uint64(0))
    if k == 7:
        v = _value_of_key(key, bits, _M7, _B7, _S7, _K7, displace, values, flush_values)
    else:
        v = _value_of_key(key, bits, _M56, _B56, _S56, _K56, displace, values, flush_values)
    return v, invalid


@njit(cache=True, inline="always")
def board_words(values, start, card_key, card_bit):
    """(key sum, bit sum, bit OR) of the five cards ``values[start:start + 5]``: what every seat of a
    table shares (flat, so that a list column's values serve as they are)."""
    key = _KEY_INIT
    total = np.uint64(0)
    bits = np.uint64(0)
    for j in range(5):
        c = values[start + j]
        key += card_key[c]
        b = card_bit[c]
        total += b
        bits |= b
    return key, total, bits


@njit(cache=True, inline="always")
def seat_value(board_key, board_total, board_bits, c0, c1, displace7, values7, flush_values, card_key, card_bit):
    """(value, invalid) of two hole cards on a board summed by :func:`board_words`: two card loads a
    seat instead of seven. Values as the tables say (dense ranks or scores)."""
    b0 = card_bit[c0]
    b1 = card_bit[c1]
    total = board_total + b0 + b1
    bits = board_bits | b0 | b1
    invalid = (total != bits) | ((bits & _BAD_BITS) != np.uint64(0))
    key = board_key + card_key[c0] + card_key[c1]
    return _value_of_key(key, bits, _M7, _B7, _S7, _K7, displace7, values7, flush_values), invalid


@njit(cache=True, _nrt=False)
def _flush_value(key, bits, flush_values):
    """The value of a flush hand (``key`` has a flush bit): its flush suit's lane of ``bits``."""
    lane = trailing_zeros64((key >> _SUIT_SHIFT) & _SUIT_TOPS) & _SUIT_X4  # 4 * the flush suit
    return flush_values[(bits >> (lane * _FOUR)) & _LANE]


@njit(cache=True, _nrt=False)
def value7(key, bits, displace7, values7, flush_values):
    """The value of seven cards from their summed key (from :data:`KEY_INIT`) and OR-ed card bits:
    for callers that sum the cards themselves, a board's once for many seats (the equity walk).

    The flush path is a call of its own: with it inline, numba counted references to the tables at
    every call and LLVM no longer inlined this one, which made the equity walk's lookups thirteen
    times slower (40 ns against 3)."""
    if key & _FLUSH_BITS:
        return _flush_value(key, bits, flush_values)
    h = (key & _RANK_MASK) * _M7
    return values7[((h >> _S7) & _K7) ^ np.uint64(displace7[h >> _B7])]


@njit(cache=True, parallel=True)
def _evaluate_kernel(flat, k, out, score_tables):
    """Scores of the hands of ``flat`` (``cards[N, k]`` flattened) into ``out`` (INVALID where
    invalid); returns the number of invalid rows. One loop per k keeps k a constant inside each.

    Flat and unsigned: ``cards[i, j]`` with the loop's signed ``i`` costs stride arithmetic and a
    negative-index fix-up per card.
    """
    displace7, values7, displace56, values56, flush_values, card_key, card_bit = score_tables
    n = out.shape[0]
    nbad = 0
    if k == 7:
        for i in prange(n):
            base = np.uint64(i) * np.uint64(7)
            v, invalid = _row_value(flat, base, 7, displace7, values7, flush_values, card_key, card_bit)
            nbad += invalid
            out[np.uint64(i)] = INVALID if invalid else v
    elif k == 6:
        for i in prange(n):
            base = np.uint64(i) * np.uint64(6)
            v, invalid = _row_value(flat, base, 6, displace56, values56, flush_values, card_key, card_bit)
            nbad += invalid
            out[np.uint64(i)] = INVALID if invalid else v
    else:
        for i in prange(n):
            base = np.uint64(i) * np.uint64(5)
            v, invalid = _row_value(flat, base, 5, displace56, values56, flush_values, card_key, card_bit)
            nbad += invalid
            out[np.uint64(i)] = INVALID if invalid else v
    return nbad


@njit(cache=True, inline="always")
def _dense7(key, bits, displace7, table7, flush_table):
    return _value_of_key(key, bits, _M7, _B7, _S7, _K7, displace7, table7, flush_table)


@njit(cache=True, parallel=True)
def _enumerate7_kernel(pairs, nthreads, dense_tables):
    """Histogram of dense ranks over all 7-card hands whose two lowest cards are ``pairs[p]``.

    Work item p goes to thread ``p % nthreads`` so the heavy low-card pairs
    spread evenly. Keys are summed incrementally, one add per level. When no
    suit holds four of the first six cards the seventh cannot make a flush,
    so its suit does not matter: the last level goes rank by rank, one hash
    per rank counted once per card of that rank still to come; when no suit
    holds three of the first five, the last two go by pairs of ranks
    (``C(n, 2)`` or ``n * 4`` hands each).
    """
    # Measured on two threads: 971 M hands/s one card at a time, 1,885 with the last level by rank,
    # 2,947 with the last two (1,461 on one thread).
    displace7, table7, _, _, flush_table, card_key, card_bit = dense_tables
    hist = np.zeros((nthreads, 7463), dtype=np.int64)
    for t in prange(nthreads):
        for p in range(t, pairs.shape[0], nthreads):
            a = pairs[p, 0]
            b = pairs[p, 1]
            k2 = _KEY_INIT + card_key[a] + card_key[b]
            b2 = card_bit[a] | card_bit[b]
            for c in range(b + 1, 48):
                k3 = k2 + card_key[c]
                b3 = b2 | card_bit[c]
                for d in range(c + 1, 49):
                    k4 = k3 + card_key[d]
                    b4 = b3 | card_bit[d]
                    for e in range(d + 1, 50):
                        k5 = k4 + card_key[e]
                        b5 = b4 | card_bit[e]
                        if not (k5 + _TWO_PER_SUIT) & _FLUSH_BITS:  # no suit holds 3: two ranks at a time
                            re = e >> 2
                            for rf in range(re, 13):
                                nf = (3 - (e & 3)) if rf == re else 4  # cards of rank rf after e
                                k6 = k5 + card_key[4 * rf]
                                dense = _dense7(k6 + card_key[4 * rf], b5, displace7, table7, flush_table)
                                hist[t, dense] += nf * (nf - 1) // 2  # both of rank rf
                                for rg in range(rf + 1, 13):
                                    dense = _dense7(k6 + card_key[4 * rg], b5, displace7, table7, flush_table)
                                    hist[t, dense] += nf * 4
                        else:
                            for f in range(e + 1, 51):
                                k6 = k5 + card_key[f]
                                b6 = b5 | card_bit[f]
                                if (k6 + _ONE_PER_SUIT) & _FLUSH_BITS:  # a suit holds four: card by card
                                    for g in range(f + 1, 52):
                                        k7 = k6 + card_key[g]
                                        b7 = b6 | card_bit[g]
                                        dense = _value_of_key(
                                            k7, b7, _M7, _B7, _S7, _K7, displace7, table7, flush_table
                                        )
                                        hist[t, dense] += 1
                                else:  # rank by rank: the cards after f of f's rank, then 4 of each higher rank
                                    r0 = f >> 2
                                    for r in range(r0, 13):
                                        k7 = k6 + card_key[4 * r]
                                        dense = _value_of_key(
                                            k7, b6, _M7, _B7, _S7, _K7, displace7, table7, flush_table
                                        )
                                        hist[t, dense] += (3 - (f & 3)) if r == r0 else 4
    return hist.sum(axis=0)


def evaluate(cards: ArrayLike, out: np.ndarray | None = None) -> np.ndarray:
    """Packed ``uint32`` score of each hand in ``cards[N, k]``, k = 5, 6 or 7.

    ``out``: a ``uint32[N]`` array to write into (reuse it across batches).
    Raises ``ValueError`` naming the first row with a card outside 0..51 or a
    card repeated within the hand.

    >>> from cardbatch.kernels.cards import parse
    >>> evaluate(parse(["AsKsQsJsTs", "7c5d4h3s2c"])).tolist()
    [9175040, 340496]
    >>> evaluate(parse(["AsAdKcKh4d2c3s"])).tolist()
    [2929152]
    """
    arr = check_card_array(cards, (5, 6, 7), "evaluate")
    out = check_out(out, arr.shape[0], np.uint32)
    nbad = _evaluate_kernel(arr.reshape(-1), arr.shape[1], out, SCORE_TABLES)
    if nbad:
        row = int(np.flatnonzero(out == INVALID)[0])
        raise ValueError(f"evaluate: row {row} {arr[row].tolist()}: {card_problem(arr[row])}")
    return out


def run_evaluator(tables: tuple[np.ndarray, ...], cards: np.ndarray, out: np.ndarray) -> int:
    """This evaluator's kernel over checked ``uint8[N, k]`` cards with other value tables (laid out as
    :data:`SCORE_TABLES`: the short deck's); writes ``out`` (INVALID where invalid), returns how many."""
    return int(_evaluate_kernel(cards.reshape(-1), cards.shape[1], out, tables))


def enumerate_seven(lowest: ArrayLike | None = None) -> np.ndarray:
    """Count of each dense rank (index 1..7462) over all 133,784,560 seven-card hands.

    ``lowest``: only the hands whose two lowest cards are one of these
    ``(a, b)`` pairs (``a < b``); by default every pair, i.e. every hand.
    """
    if lowest is None:
        pairs = np.array([(a, b) for a in range(46) for b in range(a + 1, 47)], dtype=np.int64)
    else:
        pairs = np.asarray(lowest, dtype=np.int64).reshape(-1, 2)
        if ((pairs[:, 0] < 0) | (pairs[:, 0] >= pairs[:, 1]) | (pairs[:, 1] > 46)).any():
            raise ValueError("enumerate_seven: lowest pairs must be (a, b) with 0 <= a < b <= 46")
    return _enumerate7_kernel(pairs, numba.get_num_threads(), DENSE_TABLES)


_SORTED_SCORES = np.sort(SCORE_OF_DENSE[1:])  # [0] is INVALID


def _check_scores(scores: ArrayLike, name: str) -> tuple[np.ndarray, np.ndarray]:
    """Scores as uint32 and their index in the sorted table of the 7,462 valid scores."""
    arr = np.asarray(scores)
    if arr.dtype.kind not in "ui":
        raise ValueError(f"{name}: expected integer scores, got dtype {arr.dtype}")
    flat = arr.reshape(-1)
    pos = np.searchsorted(_SORTED_SCORES, flat).clip(0, 7461)
    ok = _SORTED_SCORES[pos] == flat
    if not ok.all():
        row = int(np.flatnonzero(~ok)[0])
        raise ValueError(f"{name}: row {row} value {int(flat[row])} is not a Hold'em score")
    return flat.astype(np.uint32).reshape(arr.shape), pos.reshape(arr.shape)


def category_of(scores: ArrayLike) -> np.ndarray:
    """Category of each packed score: ``uint8``, 0 high card .. 8 straight flush."""
    arr, _ = _check_scores(scores, "category_of")
    return (arr >> 20).astype(np.uint8)


def dense_rank(scores: ArrayLike) -> np.ndarray:
    """Dense rank of each score, ``uint16``: 1 = royal flush .. 7462 = 7-5-4-3-2 (phevaluator's numbering)."""
    _, pos = _check_scores(scores, "dense_rank")
    return (7462 - pos).astype(np.uint16)


def _join(ranks: list[int]) -> str:
    return "-".join(_RANK_WORD[r] for r in ranks)


def describe(score: int) -> str:
    """A readable name of one score, e.g. ``"two pair, kings and fours, ace kicker"``.

    >>> describe(2929152)
    'two pair, aces and kings, four kicker'
    """
    arr, _ = _check_scores(np.array([score]).astype(np.int64), "describe")
    v = int(arr[0])
    cat = v >> 20
    r = [(v >> s) & 15 for s in (16, 12, 8, 4, 0)]
    if cat == 8:
        return "royal flush" if r[0] == 12 else f"straight flush, {_RANK_WORD[r[0]]} high"
    if cat == 7:
        return f"four of a kind, {_RANK_PLURAL[r[0]]}, {_RANK_WORD[r[1]]} kicker"
    if cat == 6:
        return f"full house, {_RANK_PLURAL[r[0]]} full of {_RANK_PLURAL[r[1]]}"
    if cat == 5:
        return f"flush, {_join(r)}"
    if cat == 4:
        return f"straight, {_RANK_WORD[r[0]]} high"
    if cat == 3:
        return f"three of a kind, {_RANK_PLURAL[r[0]]}, {_join(r[1:3])} kickers"
    if cat == 2:
        return f"two pair, {_RANK_PLURAL[r[0]]} and {_RANK_PLURAL[r[1]]}, {_RANK_WORD[r[2]]} kicker"
    if cat == 1:
        return f"pair of {_RANK_PLURAL[r[0]]}, {_join(r[1:4])} kickers"
    return f"high card, {_join(r)}"


@twin
@njit(cache=True, parallel=True)
def _evaluate_seats_kernel(hole, board, mask, score_tables, out):
    displace7, values7, _, _, flush_values, card_key, card_bit = score_tables
    T, S, _ = hole.shape
    flat_board = board.reshape(-1)
    for t in prange(T):
        bk, btotal, bbits = board_words(flat_board, 5 * t, card_key, card_bit)
        for s in range(S):
            v, invalid = seat_value(
                bk, btotal, bbits, hole[t, s, 0], hole[t, s, 1], displace7, values7, flush_values, card_key, card_bit
            )
            out[t, s] = 0 if invalid or not mask[t, s] else v


def check_seat_arrays(
    hole: ArrayLike, board: ArrayLike, mask: ArrayLike, dtype: Any, hole_sizes: tuple[int, ...] = (2,)
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``hole[T, S, h]`` (h in ``hole_sizes``), ``board[T, 5]`` and ``mask[T, S]`` as contiguous arrays for
    a whole-table evaluator, and ``dtype`` one it writes (``uint32`` or ``int64``); ``ValueError`` else."""
    h = np.ascontiguousarray(hole, dtype=np.uint8)
    b = np.ascontiguousarray(board, dtype=np.uint8)
    m = np.ascontiguousarray(mask, dtype=np.bool_)
    if h.ndim != 3 or h.shape[2] not in hole_sizes or b.shape != (h.shape[0], 5) or m.shape != h.shape[:2]:
        sizes = " or ".join(map(str, hole_sizes))
        raise ValueError(f"evaluate_seats: expected hole [T, S, {sizes}], board [T, 5], mask [T, S]")
    if np.dtype(dtype) not in (np.dtype(np.uint32), np.dtype(np.int64)):
        raise ValueError(f"evaluate_seats: dtype must be uint32 or int64, got {dtype}")
    return h, b, m


def value_tables() -> tuple[np.ndarray, ...]:
    """The tables a whole-table evaluator reads (:data:`SCORE_TABLES`): what the one-pass settle
    kernel takes for Hold'em (the short deck's module answers with its own)."""
    return SCORE_TABLES


def evaluate_seats_by(
    tables: tuple[np.ndarray, ...], hole: ArrayLike, board: ArrayLike, mask: ArrayLike, dtype: Any = np.uint32
) -> np.ndarray:
    """:func:`evaluate_seats` with other value tables, laid out as :data:`SCORE_TABLES` (the short deck's)."""
    h, b, m = check_seat_arrays(hole, board, mask, dtype)
    out = np.empty(m.shape, dtype)
    _evaluate_seats_kernel(h, b, m, tables, out)
    return out


def evaluate_seats(hole: ArrayLike, board: ArrayLike, mask: ArrayLike, dtype: Any = np.uint32) -> np.ndarray:
    """Scores of whole tables: ``hole[T, S, 2]`` with ``board[T, 5]`` where ``mask[T, S]``, else 0.

    For callers that checked the cards already (the batch driver): an
    invalid hand scores 0 instead of raising. ``dtype`` (``uint32`` or
    ``int64``) lets a caller get the width the pot kernel takes, with no copy.
    """
    return evaluate_seats_by(SCORE_TABLES, hole, board, mask, dtype)
