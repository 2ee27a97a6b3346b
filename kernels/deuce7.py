"""Deuce-to-seven low on five cards (single and triple draw): the five-card high ranking turned round.

Aces are always high, straights and flushes count against a hand, as pairs do: the best hand is
7-5-4-3-2 of mixed suits, and a hand beats another exactly when it is the weaker high hand. An ace
never plays low, so A-5-4-3-2 is no straight (an ace-high hand) and 6-5-4-3-2 is the lowest
straight.

A value (``uint32``, smaller is better, never 0) is written as :mod:`cardbatch.kernels.razz` writes
its own: the five cards as hex digits (two .. nine their own digit, ten ``A``, jack ``B``, queen
``C``, king ``D``, ace ``E``), the largest group first, higher first among equal groups, under
Hold'em's category code in the bits from 20 up (0 no pair, 1 one pair, 2 two pair, 3 three of a kind,
4 straight, 5 flush, 6 full house, 7 four of a kind, 8 straight flush). 7-5-4-3-2 is ``0x75432``,
A-5-4-3-2 ``0xE5432``, a pair of deuces with 7-4-3 ``0x122743``, 6-5-4-3-2 of one suit ``0x865432``.
Values compare as the hands do (the smaller wins, equal values tie); :func:`score_of` turns them
round for the ``score`` of :func:`cardbatch.kernels.pots.settle` (higher wins).

The kernel is Hold'em's five-card path (:mod:`cardbatch.kernels.holdem`) with tables of its own,
built here from the rules at import: the 5/6-card perfect hash of rank multisets holds the values
of five cards of two or more suits, the flush table those of five cards of one suit.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from . import holdem, stud
from . import holdem_tables as _ht
from .cards import card_problem, check_card_array, check_out
from .razz import HIGH_DIGIT, SCORE_TOP, describe_value, grouped_values, hash_slots, rank_multisets

__all__ = [
    "CLASSES",
    "HAND_SIZES",
    "category_of",
    "dense_rank",
    "describe",
    "evaluate",
    "evaluate_seats",
    "score_of",
    "value_tables",
]
HAND_SIZES = (5,)


def _is_straight(counts: np.ndarray) -> np.ndarray:
    """Five distinct ranks in a row, aces high only."""
    present = counts > 0
    top = 12 - np.argmax(present[:, ::-1], axis=1)
    bottom = np.argmax(present, axis=1)
    return (present.sum(axis=1) == 5) & (top - bottom == 4)


def _build() -> tuple[np.ndarray, ...]:
    counts = rank_multisets(5)
    values56 = np.zeros(1 << _ht.HASH_BITS["56"][1], np.uint32)  # six-card multisets: never read
    plain = grouped_values(counts, HIGH_DIGIT)
    values56[hash_slots(counts, "56")] = np.where(_is_straight(counts), _ht.STRAIGHT << 20 | plain, plain)
    masks = np.array([m for m in range(1 << 13) if bin(m).count("1") == 5])
    suited = (masks[:, None] >> np.arange(13) & 1).astype(np.int64)
    flush = np.zeros(1 << 13, np.uint32)
    category = np.where(_is_straight(suited), _ht.STRAIGHT_FLUSH, _ht.FLUSH)
    flush[masks] = category << 20 | grouped_values(suited, HIGH_DIGIT)  # five distinct ranks: category 0 there
    return (
        holdem.DISPLACE7,
        np.zeros(1 << _ht.HASH_BITS["7"][1], np.uint32),  # seven cards: never read
        holdem.DISPLACE56,
        values56,
        flush,
        holdem.CARD_KEY,
        holdem.CARD_BIT,
    )


SCORE_TABLES = _build()
DISTINCT = np.union1d(SCORE_TABLES[3], SCORE_TABLES[4])[1:].astype(np.uint32)  # best first ([0]: empty slots)
CLASSES = int(DISTINCT.size)  # 7,462, as in Hold'em


def value_tables() -> tuple[np.ndarray, ...]:
    """Deuce-to-seven's tables in :data:`cardbatch.kernels.holdem.SCORE_TABLES`' layout (five cards)."""
    return SCORE_TABLES


def evaluate(cards: ArrayLike, out: np.ndarray | None = None) -> np.ndarray:
    """Deuce-to-seven value (``uint32``, smaller is better) of each hand in ``cards[N, 5]``.

    ``out``: a ``uint32[N]`` array to write into. Raises ``ValueError`` naming the first row with a
    card outside 0..51 or a card twice.

    >>> from cardbatch.kernels.cards import parse
    >>> v = evaluate(parse(["7s5d4h3c2s", "As5d4h3c2s", "6s5d4h3c2s", "7s5s4s3s2s", "2s2d7h4c3s"]))
    >>> [hex(x) for x in v]
    ['0x75432', '0xe5432', '0x465432', '0x575432', '0x122743']
    >>> for x in v:
    ...     print(describe(x))
    7-5-4-3-2
    A-5-4-3-2
    straight, six high
    flush, seven-five-four-three-two
    pair of twos, seven-four-three kickers
    """
    arr = check_card_array(cards, HAND_SIZES, "evaluate")
    out = check_out(out, arr.shape[0], np.uint32)
    if holdem.run_evaluator(SCORE_TABLES, arr, out):
        row = int(np.flatnonzero(out == holdem.INVALID)[0])
        raise ValueError(f"evaluate: row {row} {arr[row].tolist()}: {card_problem(arr[row])}")
    return out


def evaluate_seats(hole: ArrayLike, mask: ArrayLike, dtype: Any = np.uint32) -> np.ndarray:
    """Values of whole tables: ``hole[T, S, 5]`` where ``mask[T, S]``, else 0 (0 is no hand's value: it
    marks a seat not asked, or a hand with a card above 51 or a card twice, and is not a better
    hand). ``dtype``: ``uint32`` or ``int64``.

    >>> from cardbatch.kernels.cards import parse
    >>> hole = parse(["7s5d4h3c2s", "8s6d4h3c2s", "KsKdKhKcAd"]).reshape(1, 3, 5)
    >>> [hex(v) for v in evaluate_seats(hole, [[True, True, False]])[0]]
    ['0x75432', '0x86432', '0x0']
    """
    return stud.evaluate_seats_by(SCORE_TABLES, hole, mask, dtype, HAND_SIZES)


def _check_values(values: ArrayLike, name: str) -> tuple[np.ndarray, np.ndarray]:
    """Values as ``uint32`` and their index in :data:`DISTINCT` (:func:`~.stud.values_in`)."""
    return stud.values_in(DISTINCT, values, name, "a deuce-to-seven value")


def category_of(values: ArrayLike) -> np.ndarray:
    """Hold'em's category code of each value, ``uint8``: 0 no pair .. 8 straight flush."""
    arr, _ = _check_values(values, "category_of")
    return (arr >> 20).astype(np.uint8)


def dense_rank(values: ArrayLike) -> np.ndarray:
    """Dense rank of each value, ``uint16``: 1 = 7-5-4-3-2 .. :data:`CLASSES` (7,462) = a royal flush.

    >>> from cardbatch.kernels.cards import parse
    >>> dense_rank(evaluate(parse(["7s5d4h3c2s", "7s6d4h3c2s", "AsKsQsJsTs"]))).tolist()
    [1, 2, 7462]
    """
    _, pos = _check_values(values, "dense_rank")
    return (pos + 1).astype(np.uint16)


def score_of(values: ArrayLike) -> np.ndarray:
    """Values as scores where higher wins, ``int64`` (what :func:`cardbatch.kernels.pots.settle` takes as
    ``score``): :data:`cardbatch.kernels.razz.SCORE_TOP` ``- value``, 0 kept as 0 (no hand)."""
    arr = np.asarray(values)
    if arr.dtype.kind not in "ui":
        raise ValueError(f"score_of: expected integer values, got dtype {arr.dtype}")
    v = arr.astype(np.int64)
    _check_values(v[v != 0], "score_of")
    return np.where(v == 0, 0, SCORE_TOP - v)


def describe(value: int) -> str:
    """A readable name of one deuce-to-seven value: the cards of a hand without a pair, highest first
    (``"7-5-4-3-2"``), else the hand's category worded as Hold'em's (``"straight, six high"``).

    >>> describe(0x1DD432), describe(0x6EEE22), describe(0x8EDCBA)
    ('pair of kings, four-three-two kickers', 'full house, aces full of twos', 'royal flush')
    """
    arr, _ = _check_values(np.array([value]).astype(np.int64), "describe")
    return describe_value(int(arr[0]))
