"""The card codec: ``c = rank * 4 + suit`` as ``uint8``, text like ``"AsKd"``.

Ranks 0..12 are 2..A; suits 0..3 are diamonds, clubs, hearts, spades (spades
highest). ``255`` means "no card" and is written ``--``.
Parsing and formatting work on whole columns at once: the strings' code points
as one numpy array, normalised and looked up in tables, never a Python loop
over cards. (A batch's Arrow text columns are read on the batch side, without
converting them to numpy strings first.)
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, prange
from numpy.typing import ArrayLike

from cardbatch.constants import RANKS, SUITS

from .twins import twin

NO_CARD = 255

# Byte -> rank or suit (upper-case letters; 255 = not one). Shared with the batch side's column reader.
RANK_OF = np.full(256, 255, dtype=np.uint8)
SUIT_OF = np.full(256, 255, dtype=np.uint8)
for _r, _ch in enumerate(RANKS):
    RANK_OF[ord(_ch)] = _r
for _s, _ch in enumerate(SUITS.upper()):
    SUIT_OF[ord(_ch)] = _s

# Text of every code: 52 cards, then "--" for NO_CARD; anything else is invalid.
_TEXT = np.zeros((256, 2), dtype=np.uint8)
for _c in range(52):
    _TEXT[_c] = (ord(RANKS[_c // 4]), ord(SUITS[_c % 4]))
_TEXT[NO_CARD] = (ord("-"), ord("-"))
_FORMATTABLE = np.zeros(256, dtype=bool)
_FORMATTABLE[:52] = True
_FORMATTABLE[NO_CARD] = True

# The spellings text may use, in the order they are normalised (after upper-casing), so that every
# card is two letters: "10" is "T", the suit symbols are letters, spaces go.
SUIT_SYMBOLS = (("♦", "D"), ("♣", "C"), ("♥", "H"), ("♠", "S"), ("♢", "D"), ("♧", "C"), ("♡", "H"), ("♤", "S"))
TEXT_REPLACEMENTS = (("10", "T"), *SUIT_SYMBOLS, (" ", ""))
_INVALID = 0xFFFF  # a code point no card uses: what an embedded NUL becomes


def _as_text(texts: ArrayLike) -> tuple[np.ndarray, bool]:
    """``texts`` as a 1-D numpy ``str`` array, and whether one string came in. Any column that numpy
    can convert is taken (numpy, lists, pyarrow, pandas, polars); nulls and non-strings are refused."""
    if isinstance(texts, str):
        return np.array([texts]), True
    arr = np.asarray(texts)
    if arr.ndim != 1 or arr.dtype.kind not in "UOS":
        raise ValueError("parse: expected a string or a 1-D sequence of strings")
    if arr.dtype.kind == "S":
        return np.char.decode(arr, "utf-8"), False
    if arr.dtype.kind == "O":
        for row, value in enumerate(arr):  # objects are Python values already: one look at each
            if value is None:
                raise ValueError(f"parse: row {row} is null")
            if not isinstance(value, str):
                raise ValueError(f"parse: every element must be a string (row {row} is {type(value).__name__})")
        arr = arr.astype(str)
    return arr, False


def _normalised(arr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The code points of each string after :data:`TEXT_REPLACEMENTS` and upper-casing, left-aligned
    in ``uint32[N, width]`` (0 after the end), and each string's new length."""
    n = arr.shape[0]
    w = arr.dtype.itemsize // 4
    cp = np.ascontiguousarray(arr).view(np.uint32).reshape(n, w).copy() if w else np.zeros((n, 0), np.uint32)
    ends = w - np.argmax(cp[:, ::-1] != 0, axis=1) if w else np.zeros(n, np.int64)
    ends[(cp == 0).all(axis=1)] = 0
    cp[(cp == 0) & (np.arange(w) < ends[:, None])] = _INVALID  # a NUL inside the text is not padding
    lower = (cp >= ord("a")) & (cp <= ord("z"))
    cp[lower] -= 32
    ten = (cp[:, :-1] == ord("1")) & (cp[:, 1:] == ord("0"))
    cp[:, :-1][ten] = ord("T")
    cp[:, 1:][ten] = 0
    for symbol, letter in SUIT_SYMBOLS:
        cp[cp == ord(symbol)] = ord(letter)
    cp[cp == ord(" ")] = 0
    keep = cp != 0
    lengths = keep.sum(axis=1)
    out = np.zeros((n, int(lengths.max()) if n else 0), np.uint32)
    rows, cols = np.nonzero(keep)
    out[rows, (np.cumsum(keep, axis=1) - 1)[rows, cols]] = cp[rows, cols]
    return out, lengths


def parse(texts: ArrayLike) -> np.ndarray:
    """Cards from text: ``"AsKd"`` → ``uint8[2]``; N equal-length strings → ``uint8[N, k]``.

    Accepts rank ``10`` for ``T``, any letter case, and the suit symbols
    ``♦♣♥♠``; ``--`` is "no card" (255). Raises ``ValueError`` naming the first
    bad row and its text.

    >>> parse("AsKd").tolist()
    [51, 44]
    >>> parse(["10h2c", "2♠--"]).tolist()
    [[34, 1], [3, 255]]
    """
    arr, single = _as_text(texts)
    n = arr.shape[0]
    if n == 0:
        return np.zeros((0, 0), dtype=np.uint8)
    data, lengths = _normalised(arr)
    width = int(lengths[0])
    bad_len = np.flatnonzero((lengths != width) | (lengths % 2 == 1) | (lengths == 0))
    if bad_len.size:
        row = int(bad_len[0])
        raise ValueError(
            f"parse: row {row} {str(arr[row])!r} is not a whole number of cards like the first row ({width // 2} cards)"
        )
    data = np.minimum(data[:, :width], 255).astype(np.uint8)  # code points past a byte: no card has them
    ranks = RANK_OF[data[:, 0::2]]
    suits = SUIT_OF[data[:, 1::2]]
    cards = (ranks << 2) | suits
    dash = (data[:, 0::2] == ord("-")) & (data[:, 1::2] == ord("-"))
    cards[dash] = NO_CARD
    bad = ((ranks == 255) | (suits == 255)) & ~dash
    if bad.any():
        row = int(np.flatnonzero(bad.any(axis=1))[0])
        raise ValueError(
            f"parse: row {row} {str(arr[row])!r} holds an unknown card (ranks {RANKS} or 10, suits {SUITS} or ♦♣♥♠)"
        )
    return cards[0] if single else cards


UNREADABLE = 254  # what :func:`parse_each` gives every card of a string that is not whole, known cards


def parse_each(texts: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """Cards from N strings of any lengths, without raising: ``uint8[N, w]`` (255 after each string's
    cards) and each string's card count (half its length once normalised, rounded down).

    The spellings :func:`parse` takes (spaces are dropped); a string that is not a whole number of
    cards, or holds one that is unknown, is :data:`UNREADABLE` in each of its positions, so that a
    batch can keep its row and count its cards as unknown (:func:`parse` raises instead).

    >>> codes, counts = parse_each(["AsKd 2c", "AsX", ""])
    >>> codes.tolist(), counts.tolist()
    ([[51, 44, 1], [254, 255, 255], [255, 255, 255]], [3, 1, 0])
    """
    if not isinstance(texts, str) and np.size(texts) == 0:  # no string (an empty list is no dtype's)
        return np.zeros((0, 0), np.uint8), np.zeros(0, np.int64)
    arr, _ = _as_text(texts)
    data, lengths = _normalised(arr)
    counts = (lengths // 2).astype(np.int64)
    w = int(counts.max())
    data = np.minimum(data[:, : 2 * w], 255).astype(np.uint8)
    ranks = RANK_OF[data[:, 0::2]]
    suits = SUIT_OF[data[:, 1::2]]
    cards = (ranks << 2) | suits
    dash = (data[:, 0::2] == ord("-")) & (data[:, 1::2] == ord("-"))
    inside = np.arange(w) < counts[:, None]
    bad = (((ranks == 255) | (suits == 255)) & ~dash & inside).any(axis=1) | (lengths % 2 == 1)
    cards[dash | ~inside] = NO_CARD
    cards[bad[:, None] & inside] = UNREADABLE
    return cards, counts


def format(cards: ArrayLike) -> Any:  # noqa: A001 - a stable public name
    """Text of cards, the inverse of :func:`parse`.

    ``uint8[k]`` → one string; ``uint8[N, k]`` → a numpy array of N strings.
    Raises ``ValueError`` naming the first row holding a code that is not a card.

    >>> format([51, 44])
    'AsKd'
    >>> format([[34, 1], [3, 255]]).tolist()
    ['Th2c', '2s--']
    """
    arr = np.asarray(cards)
    if arr.dtype.kind not in "ui" or arr.ndim not in (1, 2):
        raise ValueError("format: expected an integer array of shape [k] or [N, k]")
    two_d = arr if arr.ndim == 2 else arr[None, :]
    in_range = (two_d >= 0) & (two_d <= 255)
    codes = np.where(in_range, two_d, 0).astype(np.uint8)
    ok = in_range & _FORMATTABLE[codes]
    if not ok.all():
        row = int(np.flatnonzero(~ok.all(axis=1))[0])
        raise ValueError(f"format: row {row} holds {two_d[row].tolist()}, not all cards 0..51 or 255")
    n, k = two_d.shape
    text = np.ascontiguousarray(_TEXT[codes].reshape(n, 2 * k))
    out = text.view(f"S{2 * k}").reshape(n).astype(f"U{2 * k}") if k else np.full(n, "", dtype="U1")
    return str(out[0]) if arr.ndim == 1 else out


CARD_OK, CARD_BAD, CARD_DUPLICATE, CARD_MISSING = 0, 1, 2, 3


@njit(cache=True, inline="always")
def card_step(c, required, seen, code):
    """One card of a row: returns the updated (seen bitmask, code): 1 a code above 51 (it wins over
    every other), 2 a card twice, 3 a required card missing (255), else the code so far."""
    if c == 255:
        return seen, 3 if required and code == 0 else code
    if c > 51:
        return seen, 1
    bit = np.uint64(1) << np.uint64(c)
    if seen & bit:
        return seen, 2 if code == 0 else code
    return seen | bit, code


@twin
@njit(cache=True, parallel=True)
def _card_status_kernel(cards, required, out):
    for i in prange(cards.shape[0]):
        seen = np.uint64(0)
        code = 0
        for j in range(cards.shape[1]):
            seen, code = card_step(cards[i, j], required[i, j], seen, code)
            if code == 1:
                break
        out[i] = code


@twin
@njit(cache=True, parallel=True)
def _seat_card_status_kernel(hole, board, need_seat, need_board, out):
    T, S, k = hole.shape
    for t in prange(T):
        seen = np.uint64(0)
        code = 0
        for s in range(S):
            for j in range(k):
                seen, code = card_step(hole[t, s, j], need_seat[t, s], seen, code)
        for j in range(board.shape[1]):
            seen, code = card_step(board[t, j], need_board[t], seen, code)
        out[t] = code


def card_status(cards: ArrayLike, required: ArrayLike) -> np.ndarray:
    """Per row of ``uint8[N, k]`` (255 = no card): 0 ok, 1 a code > 51, 2 a card twice, 3 a required card missing.

    ``required[N, k]`` marks the positions that must hold a card (e.g. a
    live seat's hole cards at a showdown). A column-at-a-time check for the
    batch driver: it never raises.
    """
    arr = np.ascontiguousarray(cards, dtype=np.uint8)
    req = np.ascontiguousarray(np.broadcast_to(required, arr.shape), dtype=np.bool_)
    out = np.empty(arr.shape[0], np.uint8)
    _card_status_kernel(arr, req, out)
    return out


def seat_card_status(hole: ArrayLike, board: ArrayLike, need_seat: ArrayLike, need_board: ArrayLike) -> np.ndarray:
    """:func:`card_status` of whole tables without building the ``[T, S*k + B]`` matrix.

    ``hole[T, S, k]`` and ``board[T, B]`` (255 = no card; ``B`` may be 0);
    seat s's cards are required where ``need_seat[T, S]``, the board's where
    ``need_board[T]``. Duplicates are checked across the whole table.
    """
    h = np.ascontiguousarray(hole, dtype=np.uint8)
    b = np.ascontiguousarray(board, dtype=np.uint8)
    ns = np.ascontiguousarray(need_seat, dtype=np.bool_)
    nb = np.ascontiguousarray(need_board, dtype=np.bool_)
    if h.ndim != 3 or b.shape[0] != h.shape[0] or ns.shape != h.shape[:2] or nb.shape != h.shape[:1]:
        raise ValueError("seat_card_status: expected hole [T, S, k], board [T, B], need_seat [T, S], need_board [T]")
    out = np.empty(h.shape[0], np.uint8)
    _seat_card_status_kernel(h, b, ns, nb, out)
    return out


def check_card_array(cards: ArrayLike, sizes: tuple[int, ...], name: str) -> np.ndarray:
    """``cards`` as a C-contiguous ``uint8[N, k]`` (k in ``sizes``), or ``ValueError`` naming the problem.

    Codes outside 0..255 are named by row here; codes 52..255 are left for
    the evaluators' fused check, which names the row too.
    """
    arr = np.asarray(cards)
    if arr.ndim != 2 or arr.shape[1] not in sizes:
        raise ValueError(f"{name}: expected cards of shape [N, k] with k in {sizes}, got {arr.shape}")
    if arr.dtype != np.uint8:
        if arr.dtype.kind not in "ui":
            raise ValueError(f"{name}: expected integer cards, got dtype {arr.dtype}")
        outside = (arr < 0) | (arr > 255)
        if outside.any():
            row = int(np.flatnonzero(outside.any(axis=1))[0])
            raise ValueError(f"{name}: row {row} holds a card outside 0..51: {arr[row].tolist()}")
        arr = arr.astype(np.uint8)
    return np.ascontiguousarray(arr)


def card_problem(row: np.ndarray) -> str | None:
    """Why one hand's cards are invalid (a code above 51, or a card twice), or None."""
    bad = [int(c) for c in row if c > 51]
    if bad:
        return f"card {bad[0]} outside 0..51"
    values, counts = np.unique(row, return_counts=True)
    if (counts > 1).any():
        return f"card {int(values[counts > 1][0])} repeated"
    return None


def check_out(out: np.ndarray | None, n: int, dtype: type) -> np.ndarray:
    """A fresh ``dtype[n]`` array, or ``out`` if it is exactly that (numpy-style ``out=``)."""
    if out is None:
        return np.empty(n, dtype=dtype)
    if not isinstance(out, np.ndarray) or out.dtype != dtype or out.shape != (n,) or not out.flags.c_contiguous:
        raise ValueError(f"out must be a contiguous {np.dtype(dtype).name}[{n}] array")
    return out
