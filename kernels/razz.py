"""Razz and the ace-to-five low: the best (lowest) five of a seat's cards, aces low, straights and
flushes not counted; and the eight-or-better low of stud hi/lo.

The ace-to-five low. The ace is the lowest rank; straights and flushes do not count; pairs count
against a hand: any hand without a pair beats any hand with one, one pair beats two pair, two pair
beat three of a kind, then come a full house and four of a kind (the high ranking without straights
and flushes, turned round). 5-4-3-2-A, the wheel, is the best hand. Razz values the best five of a
seat's seven cards so, with no qualifier: every hand has a value, paired hands included.

A value (``uint32``, smaller is better, never 0) is the five cards written as hex digits, the ace a
1 (two .. nine their own digit, ten ``A``, jack ``B``, queen ``C``, king ``D``), grouped as a hand is
read: the cards of the largest group first, the higher group first among equal ones, then the
rest highest first; and the hand's category in the bits from 20 up, Hold'em's code for it (0 no
pair, 1 one pair, 2 two pair, 3 three of a kind, 6 full house, 7 four of a kind):

- 7-5-4-3-2 is ``0x75432``, the wheel ``0x54321``: a hand without a pair is its low as
  :mod:`cardbatch.kernels.lowball` writes lows;
- a pair of kings with 4-3-2 is ``0x1DD432``; threes and twos with an ace, ``0x233221``; three
  nines with 3-A, ``0x399931``; threes full of twos, ``0x633322``; four aces with a two, ``0x711112``.

Values compare as the hands do (the smaller wins, equal values tie); :func:`score_of` turns them
round for the ``score`` of :func:`cardbatch.kernels.pots.settle` (higher wins).

A value depends on the cards' ranks alone, so the kernel is Hold'em's (:mod:`cardbatch.kernels.holdem`)
with tables of its own: the perfect hashes of rank multisets hold razz values (built here from the
rules at import), and the cards' keys carry no suit counts, so no hand takes the flush path. The
best five of a multiset: its ranks lowest first, then a second card of each rank that has one,
lowest first, then a third, and so on; the first five of these.

Eight-or-better, the low half of stud hi/lo: five distinct ranks of eight or lower (aces low) among
the seat's cards, the lowest five of them; :func:`evaluate_low` and :func:`low_seats` give it in
lowball's encoding (the hand in hex, smaller is better, 0 for no qualifying low), the form
:func:`cardbatch.kernels.pots.settle` takes as ``low=``. A hand with such a low has it as its razz
value too.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
from numba import njit, prange
from numpy.typing import ArrayLike

from . import holdem, stud
from . import holdem_tables as _ht
from .cards import card_problem, check_card_array, check_out
from .holdem import BAD_BITS
from .lowball import HEX_OF_MASK, LOW_BIT
from .twins import twin

__all__ = [
    "CLASSES",
    "HAND_SIZES",
    "category_of",
    "dense_rank",
    "describe",
    "evaluate",
    "evaluate_low",
    "evaluate_seats",
    "low_seats",
    "score_of",
    "value_tables",
]
HAND_SIZES = (5, 6, 7)
# each rank code's digit (two .. ace): an ace-to-five low's, the ace 1; a high hand's, the ace 14 (E)
LOW_DIGIT = np.array([*range(2, 14), 1], np.int64)
HIGH_DIGIT = np.arange(2, 15, dtype=np.int64)
_LOW_ORDER = np.array([12, *range(12)])  # rank codes, lowest first when aces are low
# Hold'em's category codes of the hands made of groups of equal ranks
HC, PAIR, TWO_PAIR, TRIPS, FULL_HOUSE, QUADS = (
    _ht.HIGH_CARD,
    _ht.PAIR,
    _ht.TWO_PAIR,
    _ht.TRIPS,
    _ht.FULL_HOUSE,
    _ht.QUADS,
)
SCORE_TOP = 1 << 24  # above every value: score_of's ``SCORE_TOP - value``


def rank_multisets(k: int) -> np.ndarray:
    """Counts per rank code ``int64[M, 13]`` of every multiset of k ranks with at most four of each."""
    combos = np.fromiter(
        itertools.combinations_with_replacement(range(13), k), np.dtype((np.int8, k)), math.comb(12 + k, k)
    )
    counts = np.zeros((len(combos), 13), np.int64)
    rows = np.arange(len(combos))
    for j in range(k):
        counts[rows, combos[:, j]] += 1  # one card a row per column: no index twice
    return counts[counts.max(axis=1) <= 4]


def grouped_values(counts: np.ndarray, digit: np.ndarray) -> np.ndarray:
    """The value of each five-card rank multiset (``counts[M, 13]`` per rank code, five in all):
    ``category << 20`` (Hold'em's code of its groups: no pair .. four of a kind) ``|`` its five
    digits (``digit`` per rank code) in hex, the largest group first, the higher digit first among
    equal groups. Straights and flushes are the caller's."""
    m = counts.shape[0]
    key = np.where(counts > 0, counts * 16 + digit, -1)
    order = np.argsort(-key, axis=1, kind="stable")
    digits = np.repeat(digit[order].ravel(), np.take_along_axis(counts, order, axis=1).ravel()).reshape(m, 5)
    value = np.zeros(m, np.int64)
    for i in range(5):
        value = value << 4 | digits[:, i]
    distinct = (counts > 0).sum(axis=1)
    most = counts.max(axis=1)
    category = np.select(
        [distinct == 5, distinct == 4, (distinct == 3) & (most == 2), distinct == 3, most == 3],
        [HC, PAIR, TWO_PAIR, TRIPS, FULL_HOUSE],
        QUADS,
    )
    return category << 20 | value


def best_low_five(counts: np.ndarray) -> np.ndarray:
    """The counts per rank code of the best ace-to-five five of each multiset of five or more cards:
    one card of each rank lowest first, then a second of each rank that has one, and so on; the
    first five."""
    m = counts.shape[0]
    low = counts[:, _LOW_ORDER]
    present = (low[:, None, :] > np.arange(4)[None, :, None]).reshape(m, 52)  # (copy, rank) in taking order
    taken = present & (np.cumsum(present, axis=1, dtype=np.int8) <= 5)
    chosen = np.empty_like(counts)
    chosen[:, _LOW_ORDER] = taken.reshape(m, 4, 13).sum(axis=1)
    return chosen


def hash_slots(counts: np.ndarray, name: str) -> np.ndarray:
    """The slot of each rank multiset in Hold'em's perfect hash ``name`` (``"7"`` or ``"56"``)."""
    keys = (counts.astype(np.uint64) << (np.uint64(_ht.RANK_BITS) * np.arange(13, dtype=np.uint64))).sum(
        axis=1, dtype=np.uint64
    )
    bucket, slot = _ht.slot_of(keys, _ht.HASH_MULT[name], *_ht.HASH_BITS[name])
    displace = holdem.DISPLACE7 if name == "7" else holdem.DISPLACE56
    return slot ^ displace[bucket].astype(np.int64)


def _hash_values(name: str, sizes: tuple[int, ...]) -> np.ndarray:
    values = np.zeros(1 << _ht.HASH_BITS[name][1], np.uint32)
    for k in sizes:
        counts = rank_multisets(k)
        values[hash_slots(counts, name)] = grouped_values(best_low_five(counts), LOW_DIGIT)
    return values


RANK_KEY = holdem.CARD_KEY & holdem.RANK_MASK  # a card's key without its suit: no hand is a flush
SCORE_TABLES = (
    holdem.DISPLACE7,
    _hash_values("7", (7,)),
    holdem.DISPLACE56,
    _hash_values("56", (5, 6)),
    np.zeros(1 << 13, np.uint32),  # the flush table: never read
    RANK_KEY,
    holdem.CARD_BIT,
)
DISTINCT = np.unique(grouped_values(rank_multisets(5), LOW_DIGIT)).astype(np.uint32)  # best first
CLASSES = int(DISTINCT.size)  # 6,175: every multiset of five ranks is a class of its own


def value_tables() -> tuple[np.ndarray, ...]:
    """Razz's tables in :data:`cardbatch.kernels.holdem.SCORE_TABLES`' layout."""
    return SCORE_TABLES


def evaluate(cards: ArrayLike, out: np.ndarray | None = None) -> np.ndarray:
    """Ace-to-five value (``uint32``, smaller is better) of the best five of each hand in
    ``cards[N, k]``, k = 5, 6 or 7 (razz: 7).

    ``out``: a ``uint32[N]`` array to write into. Raises ``ValueError`` naming the first row with a
    card outside 0..51 or a card twice.

    >>> from cardbatch.kernels.cards import parse
    >>> v = evaluate(parse(["As2d3h4c5sKdKh", "7s5d4h3c2sKdQh", "KsKdKh2c2s3d3h", "9s9d9h9c2s2d2h"]))
    >>> [hex(x) for x in v]
    ['0x54321', '0x75432', '0x23322d', '0x622299']
    >>> [describe(x) for x in v]
    ['5-4-3-2-A', '7-5-4-3-2', 'two pair, threes and twos, king kicker', 'full house, twos full of nines']
    """
    arr = check_card_array(cards, HAND_SIZES, "evaluate")
    out = check_out(out, arr.shape[0], np.uint32)
    if holdem.run_evaluator(SCORE_TABLES, arr, out):
        row = int(np.flatnonzero(out == holdem.INVALID)[0])
        raise ValueError(f"evaluate: row {row} {arr[row].tolist()}: {card_problem(arr[row])}")
    return out


def evaluate_seats(hole: ArrayLike, mask: ArrayLike, dtype: Any = np.uint32) -> np.ndarray:
    """Values of whole tables: ``hole[T, S, k]`` (k = 5, 6 or 7) where ``mask[T, S]``, else 0 (0 is no
    hand's value: it marks a seat not asked, or a hand with a card above 51 or a card twice, and is
    not a better hand). ``dtype``: ``uint32`` or ``int64``.

    >>> from cardbatch.kernels.cards import parse
    >>> hole = parse(["As2d3h4c5sKdKh", "7s5d4h3c2sKdQh", "AhAd9h9c2h2d2c"]).reshape(1, 3, 7)
    >>> [hex(v) for v in evaluate_seats(hole, [[True, False, True]])[0]]
    ['0x54321', '0x0', '0x222119']
    """
    return stud.evaluate_seats_by(SCORE_TABLES, hole, mask, dtype, HAND_SIZES)


def _check_values(values: ArrayLike, name: str) -> tuple[np.ndarray, np.ndarray]:
    """Values as ``uint32`` and their index in :data:`DISTINCT` (:func:`~.stud.values_in`)."""
    return stud.values_in(DISTINCT, values, name, "an ace-to-five value")


def category_of(values: ArrayLike) -> np.ndarray:
    """Hold'em's category code of each value, ``uint8``: 0 no pair, 1 one pair, 2 two pair, 3 three of
    a kind, 6 full house, 7 four of a kind."""
    arr, _ = _check_values(values, "category_of")
    return (arr >> 20).astype(np.uint8)


def dense_rank(values: ArrayLike) -> np.ndarray:
    """Dense rank of each value, ``uint16``: 1 = the wheel (5-4-3-2-A) .. :data:`CLASSES` (6,175) =
    four kings with a queen.

    >>> from cardbatch.kernels.cards import parse
    >>> dense_rank(evaluate(parse(["As2d3h4c5s", "6sAd2h3c4s", "6s5d4h3c2s", "KsKdKhKcQs"]))).tolist()
    [1, 2, 6, 6175]
    """
    _, pos = _check_values(values, "dense_rank")
    return (pos + 1).astype(np.uint16)


def score_of(values: ArrayLike) -> np.ndarray:
    """Values as scores where higher wins, ``int64`` (what :func:`cardbatch.kernels.pots.settle` takes as
    ``score``): :data:`SCORE_TOP` ``- value``, 0 kept as 0 (no hand).

    >>> score_of([0x54321, 0x75432, 0]).tolist()
    [16432351, 16296910, 0]
    """
    arr = np.asarray(values)
    if arr.dtype.kind not in "ui":
        raise ValueError(f"score_of: expected integer values, got dtype {arr.dtype}")
    v = arr.astype(np.int64)
    _check_values(v[v != 0], "score_of")
    return np.where(v == 0, 0, SCORE_TOP - v)


_CHAR = dict(enumerate("?A23456789TJQKA"))
_WORD = dict(enumerate("? ace two three four five six seven eight nine ten jack queen king ace".split()))
_PLURAL = {d: ("sixes" if w == "six" else w + "s") for d, w in _WORD.items()}


def describe_value(value: int) -> str:
    """A readable name of a value laid out as this module's (Hold'em's category code in the bits from
    20 up, the five digits grouped), worded as Hold'em's :func:`~cardbatch.kernels.holdem.describe`
    (groups, then their kickers): deuce-to-seven's values read the same way, straights and flushes
    included. A hand without a pair is named by its cards, highest first, as a low is."""
    v = int(value)
    category = v >> 20
    d = [(v >> s) & 15 for s in (16, 12, 8, 4, 0)]
    words = lambda ds: "-".join(_WORD[x] for x in ds)
    kickers = lambda ds: f"{words(ds)} kicker" + ("s" if len(ds) > 1 else "")
    if category == _ht.STRAIGHT_FLUSH:
        return "royal flush" if d[0] == 14 and d[1] == 13 else f"straight flush, {_WORD[d[0]]} high"
    if category == QUADS:
        return f"four of a kind, {_PLURAL[d[0]]}, {kickers(d[4:])}"
    if category == FULL_HOUSE:
        return f"full house, {_PLURAL[d[0]]} full of {_PLURAL[d[3]]}"
    if category == _ht.FLUSH:
        return f"flush, {words(d)}"
    if category == _ht.STRAIGHT:
        return f"straight, {_WORD[d[0]]} high"
    if category == TRIPS:
        return f"three of a kind, {_PLURAL[d[0]]}, {kickers(d[3:])}"
    if category == TWO_PAIR:
        return f"two pair, {_PLURAL[d[0]]} and {_PLURAL[d[2]]}, {kickers(d[4:])}"
    if category == PAIR:
        return f"pair of {_PLURAL[d[0]]}, {kickers(d[2:])}"
    return "-".join(_CHAR[x] for x in d)


def describe(value: int) -> str:
    """A readable name of one ace-to-five value: the cards of a hand without a pair, highest first
    (``"7-5-4-3-2"``, ``"5-4-3-2-A"``), else the hand's groups and kickers, worded as Hold'em's
    (``"pair of kings, four-three-two kickers"``).

    >>> for value in (0x1DD432, 0x399931, 0x711112):
    ...     print(describe(value))
    pair of kings, four-three-two kickers
    three of a kind, nines, three-ace kickers
    four of a kind, aces, two kicker
    """
    arr, _ = _check_values(np.array([value]).astype(np.int64), "describe")
    return describe_value(int(arr[0]))


# ---------------------------------------------------------------- eight-or-better


def _best_low_of_bits() -> np.ndarray:
    """For each mask of low ranks (ace bit 0 .. eight bit 7): its lowest five as hex digits, 0 if it
    holds fewer than five."""
    out = np.zeros(256, np.int64)
    for mask in range(256):
        if bin(mask).count("1") >= 5:
            lowest = [b for b in range(8) if mask >> b & 1][:5]
            out[mask] = HEX_OF_MASK[sum(1 << b for b in lowest)]
    return out


BEST_LOW_OF_BITS = _best_low_of_bits()


@twin
@njit(cache=True, parallel=True)
def _low_seats_kernel(hole, mask, low_bit, card_bit, best_low, bad, out):
    """Each seat's eight-or-better low (hex digits; 0: none) where ``mask``, 0 elsewhere, ``bad`` for a
    hand with a card above 51 or a card twice."""
    T, S, k = hole.shape
    for t in prange(T):
        for s in range(S):
            total = np.uint64(0)
            bits = np.uint64(0)
            low = 0
            for j in range(k):
                c = hole[t, s, j]
                b = card_bit[c]
                total += b
                bits |= b
                low |= low_bit[c]
            v = best_low[low]
            if not mask[t, s]:
                v = 0
            elif (total != bits) | ((bits & BAD_BITS) != np.uint64(0)):
                v = bad
            out[t, s] = v


def low_seats(hole: ArrayLike, mask: ArrayLike) -> np.ndarray:
    """``int64[T, S]`` eight-or-better low of each seat's ``hole[T, S, k]`` (k = 5, 6 or 7) in ``mask``
    as hex digits (smaller is better; 0 for no qualifying low, a seat not in ``mask``, or a hand with
    a card above 51 or a card twice): what :func:`cardbatch.kernels.pots.settle` takes as ``low=``."""
    h, m = stud.check_hole_arrays(hole, mask, np.int64, HAND_SIZES, "low_seats")
    out = np.empty(m.shape, np.int64)
    _low_seats_kernel(h, m, LOW_BIT, holdem.CARD_BIT, BEST_LOW_OF_BITS, 0, out)
    return out


def evaluate_low(cards: ArrayLike) -> np.ndarray:
    """Each hand's eight-or-better low as hex digits, highest card first (``int64``; 0: none; smaller is
    better): five distinct ranks of eight or lower among the ``cards[N, k]`` (k = 5, 6 or 7), aces low.

    Raises ``ValueError`` naming the first row with a card outside 0..51 or a card twice.

    >>> from cardbatch.kernels.cards import parse
    >>> [hex(v) for v in evaluate_low(parse(["As2d3h4c5sKdKh", "8s6d4h2cAs8d8h", "8s6d4h2c9sKdKh"]))]
    ['0x54321', '0x86421', '0x0']
    """
    arr = check_card_array(cards, HAND_SIZES, "evaluate_low")
    out = np.empty((arr.shape[0], 1), np.int64)
    every = np.ones(out.shape, np.bool_)
    _low_seats_kernel(arr[:, None, :], every, LOW_BIT, holdem.CARD_BIT, BEST_LOW_OF_BITS, -1, out)
    bad = np.flatnonzero(out[:, 0] < 0)
    if bad.size:
        row = int(bad[0])
        raise ValueError(f"evaluate_low: row {row} {arr[row].tolist()}: {card_problem(arr[row])}")
    return out[:, 0]
