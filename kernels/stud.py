"""Seven-card stud and five-card draw, high: the best five of a seat's own cards, as a Hold'em score.

A game without a board values each seat's cards alone: stud's seven (down and up cards alike),
a draw game's five after the last draw. The high hand is the best five of them under Hold'em's
ranking, so the value is :mod:`cardbatch.kernels.holdem`'s packed ``uint32`` score
(``category << 20 | r1 << 16 | .. | r5``, ranks 0..12 two..ace, higher is better, equal is a tie)
and Hold'em's own kernel computes it; :func:`category_of`, :func:`dense_rank` and :func:`describe`
are Hold'em's.

The whole-table form, ``hole[T, S, k]`` with a seat mask, is shared by every game without a board
that values hands through tables laid out as :data:`cardbatch.kernels.holdem.SCORE_TABLES` (the
perfect hashes' values of rank multisets, a flush table, the cards' keys and bits): razz's and
deuce-to-seven's modules call :func:`evaluate_seats_by` with tables of their own, as the short
deck calls Hold'em's.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, prange
from numpy.typing import ArrayLike

from . import holdem
from .cards import check_card_array
from .holdem import (  # a stud or draw hand's score is Hold'em's: the same readers
    BAD_BITS,
    KEY_INIT,
    SCORE_TABLES,
    category_of,
    dense_rank,
    describe,
    five_card_value,
    value7,
)
from .twins import twin

__all__ = [
    "HAND_SIZES",
    "category_of",
    "check_hole_arrays",
    "dense_rank",
    "describe",
    "evaluate",
    "evaluate_seats",
    "evaluate_seats_by",
    "value_tables",
]
HAND_SIZES = (5, 7)  # five-card draw, seven-card stud


def evaluate(cards: ArrayLike, out: np.ndarray | None = None) -> np.ndarray:
    """Packed ``uint32`` Hold'em score of each hand in ``cards[N, k]``: k = 7 for seven-card stud (the
    best five of the seven), k = 5 for five-card draw (the five as they are).

    ``out``: a ``uint32[N]`` array to write into. Raises ``ValueError`` naming the first row with a
    card outside 0..51 or a card twice.

    >>> from cardbatch.kernels.cards import parse
    >>> s = evaluate(parse(["AsAd7c7h2s5d9c", "KhQhJhTh9h2c3c"]))
    >>> [describe(v) for v in s]
    ['two pair, aces and sevens, nine kicker', 'straight flush, king high']
    >>> describe(evaluate(parse(["5c4d3h2sAc"]))[0])  # five-card draw: the wheel is a straight
    'straight, five high'
    """
    arr = check_card_array(cards, HAND_SIZES, "evaluate")
    return holdem.evaluate(arr, out)


def check_hole_arrays(
    hole: ArrayLike, mask: ArrayLike, dtype: Any, sizes: tuple[int, ...], name: str = "evaluate_seats"
) -> tuple[np.ndarray, np.ndarray]:
    """``hole[T, S, k]`` (k in ``sizes``) and ``mask[T, S]`` as contiguous arrays for a whole-table
    evaluator of a game without a board, and ``dtype`` one it writes (``uint32`` or ``int64``);
    ``ValueError`` naming ``name`` else."""
    h = np.ascontiguousarray(hole, dtype=np.uint8)
    m = np.ascontiguousarray(mask, dtype=np.bool_)
    if h.ndim != 3 or h.shape[2] not in sizes or m.shape != h.shape[:2]:
        shown = " or ".join(map(str, sizes))
        raise ValueError(f"{name}: expected hole [T, S, k] (k = {shown}) and mask [T, S], got {h.shape}, {m.shape}")
    if np.dtype(dtype) not in (np.dtype(np.uint32), np.dtype(np.int64)):
        raise ValueError(f"{name}: dtype must be uint32 or int64, got {dtype}")
    return h, m


@twin
@njit(cache=True, parallel=True)
def _evaluate_seats_kernel(hole, mask, tables, out):
    """Each seat's value of ``hole[t, s, :k]`` (k = 7 through the 7-card hash, else the 5/6-card one)
    through ``tables`` (laid out as Hold'em's SCORE_TABLES) where ``mask``; 0 elsewhere and for a
    hand with a card above 51 or a card twice."""
    displace7, values7, displace56, values56, flush_values, card_key, card_bit = tables
    T, S, k = hole.shape
    for t in prange(T):
        for s in range(S):
            key = KEY_INIT
            total = np.uint64(0)
            bits = np.uint64(0)
            for j in range(k):
                c = hole[t, s, j]
                key += card_key[c]
                b = card_bit[c]
                total += b
                bits |= b
            invalid = (total != bits) | ((bits & BAD_BITS) != np.uint64(0))
            if k == 7:
                v = value7(key, bits, displace7, values7, flush_values)
            else:
                v = five_card_value(key, bits, displace56, values56, flush_values)
            out[t, s] = 0 if invalid or not mask[t, s] else v


def values_in(distinct: np.ndarray, values: ArrayLike, name: str, what: str) -> tuple[np.ndarray, np.ndarray]:
    """``values`` as ``uint32`` and their index in ``distinct`` (a game's every value, sorted): the
    readers of razz, deuce-to-seven and badugi check their values so. ``ValueError`` naming the
    function ``name`` and the first value that is not ``what`` (``"an ace-to-five value"``)."""
    arr = np.asarray(values)
    if arr.dtype.kind not in "ui":
        raise ValueError(f"{name}: expected integer values, got dtype {arr.dtype}")
    flat = arr.reshape(-1)
    pos = np.searchsorted(distinct, flat).clip(0, distinct.size - 1)
    ok = distinct[pos] == flat
    if not ok.all():
        row = int(np.flatnonzero(~ok)[0])
        raise ValueError(f"{name}: row {row} value {int(flat[row])} is not {what}")
    return flat.astype(np.uint32).reshape(arr.shape), pos.reshape(arr.shape)


def evaluate_seats_by(
    tables: tuple[np.ndarray, ...],
    hole: ArrayLike,
    mask: ArrayLike,
    dtype: Any = np.uint32,
    sizes: tuple[int, ...] = HAND_SIZES,
) -> np.ndarray:
    """:func:`evaluate_seats` through other value tables laid out as
    :data:`cardbatch.kernels.holdem.SCORE_TABLES` (razz's, deuce-to-seven's), for ``k`` in ``sizes``:
    the table's value where ``mask``, 0 elsewhere and for an invalid hand."""
    h, m = check_hole_arrays(hole, mask, dtype, sizes)
    out = np.empty(m.shape, np.uint32)  # one build of the kernel (int64 by a copy: half the compiling)
    _evaluate_seats_kernel(h, m, tables, out)
    return out if np.dtype(dtype) == np.dtype(np.uint32) else out.astype(dtype)


def evaluate_seats(hole: ArrayLike, mask: ArrayLike, dtype: Any = np.uint32) -> np.ndarray:
    """Scores of whole tables: ``hole[T, S, k]`` (k = 7 stud, 5 draw) where ``mask[T, S]``, else 0.

    For callers that checked the cards already (the batch driver): an invalid hand (a card above
    51 or a card twice) scores 0 instead of raising, as in
    :func:`cardbatch.kernels.holdem.evaluate_seats`. ``dtype``: ``uint32`` or ``int64``.

    >>> from cardbatch.kernels.cards import parse
    >>> hole = parse(["AsAd7c7h2s5d9c", "KhQhJhTh9h2c3c", "2h3h4h5h6h8h8d"]).reshape(1, 3, 7)
    >>> evaluate_seats(hole, [[True, True, False]]).tolist()  # the third seat is not asked
    [[2905856, 9109504, 0]]
    """
    return evaluate_seats_by(SCORE_TABLES, hole, mask, dtype)


def value_tables() -> tuple[np.ndarray, ...]:
    """The tables :func:`evaluate_seats` reads: Hold'em's (:data:`cardbatch.kernels.holdem.SCORE_TABLES`)."""
    return SCORE_TABLES
