"""Decks from a counter-based generator, and the seeds' dealing orders.

Deck ``i`` of seed ``s`` depends only on ``(s, i)``: its 64-bit stream is
SplitMix64 started at ``mix(s) ^ mix(i + golden)``, so any slice of decks can be
made on any worker and comes out identical. Shuffling is a forward
Fisher-Yates; each bounded draw uses Lemire's multiply-shift on a 16-bit word
(four per SplitMix64 output) with rejection, so it is exactly uniform. Forward order means the first m
positions are final after m steps: dealing kernels shuffle only what they deal.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, prange
from numpy.typing import ArrayLike

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_LOW16 = np.uint64(0xFFFF)
_U30, _U27, _U31, _U16 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(16)

MAX_ZJH_PLAYERS = 17
MAX_HOLDEM_PLAYERS = 22


@njit(cache=True, inline="always")
def mix(z):
    """SplitMix64's output function: a 64-bit word mixed to look uniform."""
    z = (z ^ (z >> _U30)) * _M1
    z = (z ^ (z >> _U27)) * _M2
    return z ^ (z >> _U31)


@njit(cache=True, inline="always")
def next_word(state):
    """Advance a SplitMix64 stream: the new state and its 64-bit output."""
    state += GOLDEN
    return state, mix(state)


@njit(cache=True, inline="always")
def deck_state(seed, index):
    """Initial SplitMix64 state of deck ``index`` of ``seed``."""
    return mix(np.uint64(seed)) ^ mix(np.uint64(index) + GOLDEN)


@njit(cache=True, inline="always")
def shuffle_prefix(deck, state, m):
    """Forward Fisher-Yates on ``deck`` (52 cards) for its first m positions; returns the state."""
    word = np.uint64(0)
    have = 0
    for i in range(m):
        bound = np.uint64(52 - i)
        while True:
            if have == 0:
                state, word = next_word(state)
                have = 4
            x = word & _LOW16
            word >>= _U16
            have -= 1
            prod = x * bound
            low = prod & _LOW16
            # Lemire: only a low part below bound can be biased; the modulo is rare
            if low >= bound or low >= (np.uint64(1 << 16) - bound) % bound:
                break
        j = np.uint64(i) + (prod >> _U16)  # unsigned: no negative-index fix-up in the swap
        t = deck[i]
        deck[i] = deck[j]
        deck[j] = t
    return state


@njit(cache=True, parallel=True)
def _deal_decks_kernel(n, seed, start, out):
    for i in prange(n):
        for c in range(52):
            out[i, c] = c
        shuffle_prefix(out[i], deck_state(seed, start + i), 51)


def check_count(value: Any, name: str, lo: int = 0, hi: int | None = None) -> int:
    """``value`` as an int in ``lo..hi``, or a ``ValueError`` naming ``name`` (for every wrapper that
    takes a count, a seed or an index)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    if value < lo or (hi is not None and value > hi):
        raise ValueError(f"{name} must be in {lo}..{hi if hi is not None else '∞'}, got {value}")
    return int(value)


def deal_decks(n: int, seed: int, start: int = 0) -> np.ndarray:
    """Decks ``start .. start+n-1`` of ``seed`` as ``uint8[n, 52]``, each a uniform shuffle.

    A deck depends only on ``(seed, its index)``, so any range comes out the same anywhere:

    >>> d = deal_decks(3, seed=7)
    >>> d.shape, sorted(d[0].tolist()) == list(range(52))
    ((3, 52), True)
    >>> (deal_decks(1, seed=7, start=2) == d[2:]).all()
    np.True_
    """
    n = check_count(n, "n")
    seed = check_count(seed, "seed", 0, 2**64 - 1)
    start = check_count(start, "start", 0, 2**63 - 1)
    out = np.empty((n, 52), dtype=np.uint8)
    _deal_decks_kernel(n, np.uint64(seed), np.int64(start), out)
    return out


def zjh_positions(players: int) -> np.ndarray:
    """Deck positions of each ZJH player's cards: player j gets j, j+P, j+2P."""
    players = check_count(players, "players", 1, MAX_ZJH_PLAYERS)
    return hand_positions(players, 3)


def hand_positions(players: int, per: int) -> np.ndarray:
    """Deck positions of a game without a board: ``per`` cards each, one at a time around the table
    (player j gets j, j+P, ..: stud's seven, a draw game's final hand). Callers check that the cards
    fit the deck.

    >>> hand_positions(3, 4).tolist()
    [[0, 3, 6, 9], [1, 4, 7, 10], [2, 5, 8, 11]]
    """
    return (np.arange(players)[:, None] + players * np.arange(per)[None, :]).astype(np.int64)


def holdem_positions(players: int) -> tuple[np.ndarray, np.ndarray]:
    """Deck positions of hole cards (j, j+P) and board (2P+1, 2P+2, 2P+3, 2P+5, 2P+7; burns between)."""
    players = check_count(players, "players", 2, MAX_HOLDEM_PLAYERS)
    return board_positions(players, 2)


def board_positions(players: int, per: int) -> tuple[np.ndarray, np.ndarray]:
    """Deck positions of a board game's deal: ``per`` hole cards each, one at a time around the table
    (player j gets j, j+P, ..), then the board with a burn card before the flop, turn and river.
    Callers check that the cards fit the deck."""
    hole = np.arange(players)[:, None] + players * np.arange(per)[None, :]
    board = per * players + np.array([1, 2, 3, 5, 7])
    return hole.astype(np.int64), board.astype(np.int64)


def from_rank(decks: np.ndarray, lowest_rank: int) -> np.ndarray:
    """Shuffled 52-card decks ``uint8[n, 52]`` as shuffled decks of the cards from ``lowest_rank`` up
    (the short deck's 36 from the six): each row's cards of those ranks in the order dealt, which
    is again a uniform shuffle.

    >>> d = from_rank(deal_decks(2, seed=7), 4)
    >>> d.shape, sorted(d[1].tolist()) == list(range(16, 52))
    ((2, 36), True)
    """
    if lowest_rank == 0:
        return decks
    keep = decks >= 4 * lowest_rank
    return decks[keep].reshape(decks.shape[0], 4 * (13 - lowest_rank))


def check_decks(decks: ArrayLike) -> np.ndarray:
    arr = np.asarray(decks)
    if arr.ndim != 2 or arr.shape[1] != 52 or arr.dtype.kind not in "ui":
        raise ValueError(f"decks must be an integer array [n, 52], got {arr.dtype} {arr.shape}")
    bad = (np.sort(arr, axis=1) != np.arange(52)).any(axis=1)
    if bad.any():
        raise ValueError(f"decks: row {int(np.flatnonzero(bad)[0])} is not a permutation of 0..51")
    return arr.astype(np.uint8, copy=False)


def deal_zjh(decks: ArrayLike, players: int) -> np.ndarray:
    """Each player's three cards, ``uint8[n, players, 3]``, in the seed's dealing order."""
    return check_decks(decks)[:, zjh_positions(players)]


def deal_holdem(decks: ArrayLike, players: int) -> tuple[np.ndarray, np.ndarray]:
    """``(hole uint8[n, players, 2], board uint8[n, 5])`` in seed 001's dealing order (with burns)."""
    arr = check_decks(decks)
    hole, board = holdem_positions(players)
    return arr[:, hole], arr[:, board]
