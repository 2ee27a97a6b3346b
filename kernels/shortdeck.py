"""Short-deck (6+) Hold'em: 36 cards (six through ace), best five of 5, 6 or 7 cards.

The rules that differ from Hold'em: the ace also plays low in A-6-7-8-9, the lowest straight
(nine high); a flush beats a full house; and which of three of a kind and a straight ranks
higher is a table rule: a straight above trips by default (pokerkit's order), or trips above a
straight (``trips_beat_straight``). Cards below a six are not in the deck: such a hand is invalid.

A score packs like Hold'em's, ``strength << 20 | r1 << 16 | .. | r5`` (ranks 0..12, two..ace),
where the strength is the category's place in the game's order (:data:`ORDERS`), so higher is
better and equal is a tie within one order. The ``category`` a score reports is Hold'em's code
for the same hand (0 high card .. 8 straight flush; :func:`category_of`).

The evaluator is the Hold'em kernel itself with tables of its own: the rank multisets of the
short deck sit in the Hold'em perfect hash's slots (its ranks are a subset of Hold'em's), so
only the values change. The tables are built from the rules at import (about 20 ms).
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from . import holdem
from . import holdem_tables as _ht
from .cards import check_card_array, check_out

LOWEST_RANK = 4  # six: the ranks below are not in the deck
DECK = np.arange(4 * LOWEST_RANK, 52, dtype=np.uint8)
# Hold'em's category codes
HC, PAIR, TWO_PAIR, TRIPS = _ht.HIGH_CARD, _ht.PAIR, _ht.TWO_PAIR, _ht.TRIPS
STRAIGHT, FLUSH, FULL_HOUSE, QUADS, STRAIGHT_FLUSH = (
    _ht.STRAIGHT,
    _ht.FLUSH,
    _ht.FULL_HOUSE,
    _ht.QUADS,
    _ht.STRAIGHT_FLUSH,
)
# the categories weakest first: a score's strength is its category's place here
ORDERS = {
    False: (HC, PAIR, TWO_PAIR, TRIPS, STRAIGHT, FULL_HOUSE, FLUSH, QUADS, STRAIGHT_FLUSH),  # pokerkit's
    True: (HC, PAIR, TWO_PAIR, STRAIGHT, TRIPS, FULL_HOUSE, FLUSH, QUADS, STRAIGHT_FLUSH),
}
_WHEEL = (1 << 12) | (0b1111 << 4)  # A-6-7-8-9


def _straight_top(present: int) -> int:
    """Top rank of the best short-deck straight of a rank mask, or -1 (A-6-7-8-9 tops at nine)."""
    for top in range(12, 7, -1):
        want = 0b11111 << (top - 4)
        if present & want == want:
            return top
    return 7 if present & _WHEEL == _WHEEL else -1


def _score_of_counts(counts: list[int], order: tuple[int, ...]) -> int:
    """Best five-card score of a rank multiset with no flush, in ``order``."""
    strength = {cat: i for i, cat in enumerate(order)}
    desc = [r for r in range(12, -1, -1)]
    by = {n: [r for r in desc if counts[r] >= n] for n in (1, 2, 3, 4)}
    if by[4]:
        q = by[4][0]
        return _ht.pack(strength[QUADS], [q, next(r for r in by[1] if r != q)])
    if by[3]:
        t = by[3][0]
        pairs = [r for r in by[2] if r != t]
        if pairs:
            return _ht.pack(strength[FULL_HOUSE], [t, pairs[0]])
    candidates = []
    top = _straight_top(sum(1 << r for r in range(13) if counts[r]))
    if top >= 0:
        candidates.append(_ht.pack(strength[STRAIGHT], [top]))
    if by[3]:
        t = by[3][0]
        candidates.append(_ht.pack(strength[TRIPS], [t] + [r for r in by[1] if r != t][:2]))
    elif len(by[2]) >= 2:
        hi, lo = by[2][0], by[2][1]
        candidates.append(_ht.pack(strength[TWO_PAIR], [hi, lo, next(r for r in by[1] if r not in (hi, lo))]))
    elif by[2]:
        p = by[2][0]
        candidates.append(_ht.pack(strength[PAIR], [p] + [r for r in by[1] if r != p][:3]))
    else:
        candidates.append(_ht.pack(strength[HC], by[1][:5]))
    return max(candidates)


def _score_of_flush(mask: int, order: tuple[int, ...]) -> int:
    """Score of the cards of one suit (a rank mask with five or more ranks)."""
    top = _straight_top(mask)
    if top >= 0:
        return _ht.pack(order.index(STRAIGHT_FLUSH), [top])
    return _ht.pack(order.index(FLUSH), [r for r in range(12, -1, -1) if mask >> r & 1][:5])


def _multisets(k: int):
    for combo in itertools.combinations_with_replacement(range(LOWEST_RANK, 13), k):
        counts = [0] * 13
        for r in combo:
            counts[r] += 1
        if max(counts) <= 4:
            yield counts


def _hash_values(name: str, sizes: tuple[int, ...], displace: np.ndarray, order: tuple[int, ...]) -> np.ndarray:
    """A values table for the Hold'em perfect hash ``name`` holding the short-deck scores."""
    counts = [c for k in sizes for c in _multisets(k)]
    keys = np.array([_ht.rank_key(c) for c in counts], np.uint64)
    bucket, slot = _ht.slot_of(keys, _ht.HASH_MULT[name], *_ht.HASH_BITS[name])
    values = np.zeros(1 << _ht.HASH_BITS[name][1], np.uint32)
    values[slot ^ displace[bucket].astype(np.int64)] = [_score_of_counts(c, order) for c in counts]
    return values


def _build(trips_beat_straight: bool) -> tuple[np.ndarray, ...]:
    order = ORDERS[trips_beat_straight]
    flush = np.zeros(1 << 13, np.uint32)
    for mask in range(1 << 13):
        if bin(mask).count("1") >= 5 and mask & ((1 << LOWEST_RANK) - 1) == 0:
            flush[mask] = _score_of_flush(mask, order)
    bad = np.uint64(1 << 15)  # an unused bit: the kernel's check finds it
    card_bit = np.where(np.arange(256) >= 4 * LOWEST_RANK, holdem.CARD_BIT, bad).astype(np.uint64)
    return (
        holdem.DISPLACE7,
        _hash_values("7", (7,), holdem.DISPLACE7, order),
        holdem.DISPLACE56,
        _hash_values("56", (5, 6), holdem.DISPLACE56, order),
        flush,
        holdem.CARD_KEY,
        card_bit,
    )


# the kernel's tables (holdem.SCORE_TABLES's layout) per order: False = a straight beats trips
SCORE_TABLES = {False: _build(False), True: _build(True)}
# Hold'em's category of each strength, per order
_CATEGORY_OF_STRENGTH = {tbs: np.array(order, np.uint8) for tbs, order in ORDERS.items()}


def _distinct(trips_beat_straight: bool) -> np.ndarray:
    """The distinct five-card values of an order, ascending (the 5-card hash's and the flush table's)."""
    t = SCORE_TABLES[trips_beat_straight]
    values = np.union1d(t[3], t[4])
    return values[values > 0]


DISTINCT = {tbs: _distinct(tbs) for tbs in (False, True)}
CLASSES = int(DISTINCT[False].size)  # hand classes: the same number in either order


def _tables(trips_beat_straight: bool) -> tuple[np.ndarray, ...]:
    if not isinstance(trips_beat_straight, (bool, np.bool_)):
        raise ValueError(f"trips_beat_straight must be True or False, got {trips_beat_straight!r}")
    return SCORE_TABLES[bool(trips_beat_straight)]


def value_tables(trips_beat_straight: bool = False) -> tuple[np.ndarray, ...]:
    """The short deck's tables in :data:`cardbatch.kernels.holdem.SCORE_TABLES`' layout, under either
    order of trips and straights: what the one-pass settle kernel takes."""
    return _tables(trips_beat_straight)


def _problem(row: np.ndarray) -> str:
    low = [int(c) for c in row if c < 4 * LOWEST_RANK]
    if low:
        return f"card {low[0]} is not in the short deck (six through ace: codes 16..51)"
    bad = [int(c) for c in row if c > 51]
    if bad:
        return f"card {bad[0]} outside 0..51"
    values, counts = np.unique(row, return_counts=True)
    return f"card {int(values[counts > 1][0])} repeated"


def evaluate(cards: ArrayLike, trips_beat_straight: bool = False, out: np.ndarray | None = None) -> np.ndarray:
    """Packed ``uint32`` short-deck score of each hand in ``cards[N, k]``, k = 5, 6 or 7.

    Raises ``ValueError`` naming the first row with a card below a six, outside 0..51, or twice.

    >>> from cardbatch.kernels.cards import parse
    >>> s = evaluate(parse(["As6d7h8c9s", "Ts9s8s7sKs", "AsAdAhKcKd", "QsQdQh7c8d", "TsJdQhKcAd"]))
    >>> for v in s:
    ...     print(describe(v))
    straight, nine high
    flush, king-ten-nine-eight-seven
    full house, aces full of kings
    three of a kind, queens, eight-seven kickers
    straight, ace high
    >>> bool(s[1] > s[2]), bool(s[0] > s[3]), bool(evaluate(parse(["As6d7h8c9s"]), True)[0] < s[3])
    (True, True, True)
    """
    arr = check_card_array(cards, (5, 6, 7), "evaluate")
    out = check_out(out, arr.shape[0], np.uint32)
    nbad = holdem.run_evaluator(_tables(trips_beat_straight), arr, out)
    if nbad:
        row = int(np.flatnonzero(out == holdem.INVALID)[0])
        raise ValueError(f"evaluate: row {row} {arr[row].tolist()}: {_problem(arr[row])}")
    return out


def evaluate_seats(
    hole: ArrayLike, board: ArrayLike, mask: ArrayLike, dtype: Any = np.uint32, trips_beat_straight: bool = False
) -> np.ndarray:
    """Scores of whole tables, ``hole[T, S, 2]`` on ``board[T, 5]`` where ``mask[T, S]``, else 0 (an
    invalid hand, a card below six included, scores 0): :func:`cardbatch.kernels.holdem.evaluate_seats`
    with the short deck's tables."""
    return holdem.evaluate_seats_by(_tables(trips_beat_straight), hole, board, mask, dtype)


def category_of(scores: ArrayLike, trips_beat_straight: bool = False) -> np.ndarray:
    """Hold'em's category code of each short-deck score (0 high card .. 8 straight flush)."""
    arr = np.asarray(scores)
    if arr.dtype.kind not in "ui":
        raise ValueError(f"category_of: expected integer scores, got dtype {arr.dtype}")
    strength = arr.astype(np.int64) >> 20
    if ((strength < 0) | (strength > 8)).any():
        row = int(np.flatnonzero(((strength < 0) | (strength > 8)).reshape(-1))[0])
        raise ValueError(f"category_of: row {row} value {int(arr.reshape(-1)[row])} is not a short-deck score")
    _tables(trips_beat_straight)
    return _CATEGORY_OF_STRENGTH[bool(trips_beat_straight)][strength]


def dense_rank(scores: ArrayLike, trips_beat_straight: bool = False) -> np.ndarray:
    """Dense rank of each short-deck score, ``uint16``: 1 = the best class (a royal flush) ..
    :data:`CLASSES` (1,404) = the weakest (J-9-8-7-6 off-suit); ``ValueError`` for a value that
    is not a short-deck score of that order."""
    distinct = DISTINCT[bool(_tables(trips_beat_straight) is SCORE_TABLES[True])]
    flat = np.asarray(scores).reshape(-1)
    if flat.dtype.kind not in "ui":
        raise ValueError(f"dense_rank: expected integer scores, got dtype {flat.dtype}")
    pos = np.searchsorted(distinct, flat).clip(0, distinct.size - 1)
    ok = distinct[pos] == flat
    if not ok.all():
        row = int(np.flatnonzero(~ok)[0])
        raise ValueError(f"dense_rank: row {row} value {int(flat[row])} is not a short-deck score")
    return (distinct.size - pos).astype(np.uint16).reshape(np.shape(scores))


def describe(score: int, trips_beat_straight: bool = False) -> str:
    """A readable name of one short-deck score (as :func:`cardbatch.kernels.holdem.describe` names it)."""
    v = int(score)
    category = int(category_of(np.array([v]), trips_beat_straight)[0])
    return holdem.describe(category << 20 | (v & 0xFFFFF))
