"""Badugi: four cards, aces low; the hand is the largest set of them with no two of a rank and no two
of a suit.

A four-card hand (a badugi) beats every three-card hand, three cards beat two, two beat one; among
hands of as many cards the lower wins, compared from the highest card down, so A-2-3-4 of four suits
is the best hand and a lone king the worst. Of a seat's four cards the hand is the best of its
subsets with distinct ranks and distinct suits (the largest such subsets, the lowest of them).

A value (``uint32``, smaller is better, never 0) is ``(4 - cards in the hand) << 16`` ``|`` the
hand's ranks as hex digits, highest first, the ace a 1 (two .. nine their own digit, ten ``A``,
jack ``B``, queen ``C``, king ``D``): A-2-3-4 is ``0x4321``, a three-card 7-5-2 ``0x10752``, a
lone king ``0x3000D``. Values compare as the hands do (the smaller wins, equal values tie);
:func:`score_of` turns them round for the ``score`` of :func:`cardbatch.kernels.pots.settle`
(higher wins).

The kernel tries the fifteen subsets of a seat's cards, each card a word of its rank bit and its
suit bit: a subset is a hand when its cards' words sum to their OR (no bit twice). Its key is
``(4 - its cards) << 16 | its rank bits`` (among hands of one size, the lower hand has the smaller
rank bits: compared from the highest card down, as integers compare), the smallest key is the
hand, and a table turns its rank bits into hex digits.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, prange
from numpy.typing import ArrayLike

from .cards import card_problem, check_card_array
from .holdem import BAD_BITS, CARD_BIT
from .stud import check_hole_arrays, values_in
from .twins import twin

__all__ = ["CLASSES", "HAND_SIZES", "category_of", "dense_rank", "describe", "evaluate", "evaluate_seats", "score_of"]
HAND_SIZES = (4,)
SCORE_TOP = 1 << 24  # above every value: score_of's ``SCORE_TOP - value``

# a card's word: its rank bit, aces low (ace bit 0, two bit 1 .. king bit 12), and its suit bit
# above (bit 16 + suit); 0 for a code above 51. Four cards of one rank carry into bit 14 at most,
# never into the suits: cards' words sum to their OR exactly when no rank and no suit is twice.
CARD_WORD = np.zeros(256, np.uint32)
CARD_WORD[:52] = 1 << (((np.arange(52) >> 2) + 1) % 13) | 1 << (16 + (np.arange(52) & 3))
_RANKS = np.uint32(0x1FFF)
_SIZE = np.uint32(0xF0000)
_NONE = np.uint32(0xFFFFFFFF)


def _hex_of_ranks() -> np.ndarray:
    """For each rank mask of one to four ranks: the ranks as hex digits, highest first (ace 1)."""
    out = np.zeros(1 << 13, np.uint32)
    for mask in range(1, 1 << 13):
        ranks = [b + 1 for b in range(12, -1, -1) if mask >> b & 1]
        if len(ranks) <= 4:
            out[mask] = int("".join(f"{r:x}" for r in ranks), 16)
    return out


HEX_OF_RANKS = _hex_of_ranks()
TABLES = (CARD_WORD, HEX_OF_RANKS, CARD_BIT)


@njit(cache=True, inline="always")
def _key(m, n, w0, w1, w2, w3):
    """``(4 - n) << 16 | the rank bits`` of the n cards of subset ``m`` (bits 0..3: which of the four;
    literals, so the selection folds away) if they make a hand, else _NONE. Among hands of one size
    the lower hand has the smaller rank bits (compared from the highest card down, as integers
    compare), so the smallest key is the hand's."""
    a = w0 if m & 1 else np.uint32(0)
    b = w1 if m & 2 else np.uint32(0)
    c = w2 if m & 4 else np.uint32(0)
    d = w3 if m & 8 else np.uint32(0)
    bits = a | b | c | d
    key = np.uint32((4 - n) << 16) | (bits & _RANKS)
    return key if a + b + c + d == bits else _NONE


@njit(cache=True, inline="always")
def _value(w0, w1, w2, w3, hex_of_ranks):
    """The value of four cards given their words: the smallest key of the fifteen subsets, every one
    tried. No branch to mispredict: 110 M hands/s on one thread, against 56 M trying the sizes in
    turn and stopping at the first that holds a hand."""
    k = _key(15, 4, w0, w1, w2, w3)
    k = min(
        k,
        min(
            min(_key(7, 3, w0, w1, w2, w3), _key(11, 3, w0, w1, w2, w3)),
            min(_key(13, 3, w0, w1, w2, w3), _key(14, 3, w0, w1, w2, w3)),
        ),
    )
    k = min(
        k,
        min(
            min(_key(3, 2, w0, w1, w2, w3), _key(5, 2, w0, w1, w2, w3)),
            min(_key(6, 2, w0, w1, w2, w3), _key(9, 2, w0, w1, w2, w3)),
        ),
    )
    k = min(k, min(_key(10, 2, w0, w1, w2, w3), _key(12, 2, w0, w1, w2, w3)))
    k = min(
        k,
        min(
            min(_key(1, 1, w0, w1, w2, w3), _key(2, 1, w0, w1, w2, w3)),
            min(_key(4, 1, w0, w1, w2, w3), _key(8, 1, w0, w1, w2, w3)),
        ),
    )
    return (k & _SIZE) | hex_of_ranks[k & _RANKS]


@twin
@njit(cache=True, parallel=True)
def _evaluate_seats_kernel(hole, mask, tables, out):
    """Each seat's value of ``hole[t, s, :4]`` where ``mask``; 0 elsewhere and for a hand with a card
    above 51 or a card twice."""
    card_word, hex_of_ranks, card_bit = tables
    T, S, _ = hole.shape
    for t in prange(T):
        for s in range(S):
            c0 = hole[t, s, 0]
            c1 = hole[t, s, 1]
            c2 = hole[t, s, 2]
            c3 = hole[t, s, 3]
            b0 = card_bit[c0]
            b1 = card_bit[c1]
            b2 = card_bit[c2]
            b3 = card_bit[c3]
            bits = b0 | b1 | b2 | b3
            invalid = (b0 + b1 + b2 + b3 != bits) | ((bits & BAD_BITS) != np.uint64(0))
            v = _value(card_word[c0], card_word[c1], card_word[c2], card_word[c3], hex_of_ranks)
            out[t, s] = 0 if invalid or not mask[t, s] else v


def evaluate_seats(hole: ArrayLike, mask: ArrayLike, dtype: Any = np.uint32) -> np.ndarray:
    """Values of whole tables: ``hole[T, S, 4]`` where ``mask[T, S]``, else 0 (0 is no hand's value: it
    marks a seat not asked, or a hand with a card above 51 or a card twice, and is not a better
    hand). ``dtype``: ``uint32`` or ``int64``.

    >>> from cardbatch.kernels.cards import parse
    >>> hole = parse(["As2d3h4c", "As2s3h4c", "KsKdKhKc"]).reshape(1, 3, 4)
    >>> [hex(v) for v in evaluate_seats(hole, [[True, True, True]])[0]]
    ['0x4321', '0x10431', '0x3000d']
    """
    h, m = check_hole_arrays(hole, mask, dtype, HAND_SIZES)
    out = np.empty(m.shape, np.uint32)  # one build of the kernel (int64 by a copy: half the compiling)
    _evaluate_seats_kernel(h, m, TABLES, out)
    return out if np.dtype(dtype) == np.dtype(np.uint32) else out.astype(dtype)


def evaluate(cards: ArrayLike) -> np.ndarray:
    """Badugi value (``uint32``, smaller is better) of each hand in ``cards[N, 4]``.

    Raises ``ValueError`` naming the first row with a card outside 0..51 or a card twice.

    >>> from cardbatch.kernels.cards import parse
    >>> v = evaluate(parse(["4c3d2hAs", "Kc2d3h4s", "As2s3d4h", "7c7d5h2h", "AcAdAhAs"]))
    >>> [hex(x) for x in v]
    ['0x4321', '0xd432', '0x10431', '0x20072', '0x30001']
    >>> [describe(x) for x in v]
    ['a badugi, 4-3-2-A', 'a badugi, K-4-3-2', 'three cards, 4-3-A', 'two cards, 7-2', 'one card, A']
    """
    arr = check_card_array(cards, HAND_SIZES, "evaluate")
    out = evaluate_seats(arr[:, None, :], np.ones((arr.shape[0], 1), np.bool_))[:, 0]
    bad = np.flatnonzero(out == 0)  # no hand's value is 0
    if bad.size:
        row = int(bad[0])
        raise ValueError(f"evaluate: row {row} {arr[row].tolist()}: {card_problem(arr[row])}")
    return out


DISTINCT = np.unique(
    [(4 - bin(m).count("1")) << 16 | int(HEX_OF_RANKS[m]) for m in range(1, 1 << 13) if bin(m).count("1") <= 4]
).astype(np.uint32)  # best first
CLASSES = int(DISTINCT.size)  # 1,092: 715 badugis, 286 three-card hands, 78 two-card, 13 one-card


def _check_values(values: ArrayLike, name: str) -> tuple[np.ndarray, np.ndarray]:
    """Values as ``uint32`` and their index in :data:`DISTINCT` (:func:`~.stud.values_in`)."""
    return values_in(DISTINCT, values, name, "a badugi value")


def category_of(values: ArrayLike) -> np.ndarray:
    """The number of cards in each value's hand, ``uint8``: 4 a badugi .. 1 a lone card."""
    arr, _ = _check_values(values, "category_of")
    return (4 - (arr >> 16)).astype(np.uint8)


def dense_rank(values: ArrayLike) -> np.ndarray:
    """Dense rank of each value, ``uint16``: 1 = A-2-3-4 (a badugi) .. :data:`CLASSES` (1,092) = a lone king.

    >>> from cardbatch.kernels.cards import parse
    >>> dense_rank(evaluate(parse(["4c3d2hAs", "5c3d2hAs", "KcQdJhTs", "As2s3d4h", "KsKdKhKc"]))).tolist()
    [1, 2, 715, 718, 1092]
    """
    _, pos = _check_values(values, "dense_rank")
    return (pos + 1).astype(np.uint16)


def score_of(values: ArrayLike) -> np.ndarray:
    """Values as scores where higher wins, ``int64`` (what :func:`cardbatch.kernels.pots.settle` takes as
    ``score``): :data:`SCORE_TOP` ``- value``, 0 kept as 0 (no hand)."""
    arr = np.asarray(values)
    if arr.dtype.kind not in "ui":
        raise ValueError(f"score_of: expected integer values, got dtype {arr.dtype}")
    v = arr.astype(np.int64)
    _check_values(v[v != 0], "score_of")
    return np.where(v == 0, 0, SCORE_TOP - v)


_CHAR = "?A23456789TJQK"
_SIZE_NAME = ("a badugi", "three cards", "two cards", "one card")


def describe(value: int) -> str:
    """A readable name of one badugi value: the hand's size and its cards, highest first
    (``"a badugi, 4-3-2-A"``, ``"three cards, 7-5-2"``)."""
    arr, _ = _check_values(np.array([value]).astype(np.int64), "describe")
    v = int(arr[0])
    digits = f"{v & 0xFFFF:x}"
    return f"{_SIZE_NAME[v >> 16]}, {'-'.join(_CHAR[int(d, 16)] for d in digits)}"
