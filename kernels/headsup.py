"""Heads-up preflop all-ins of Hold'em, from a table the project computes itself.

Walking the 1,712,304 boards of a heads-up preflop all-in by ranks takes a quarter of a
millisecond; a night's logs hold thousands of them. Who wins depends on the four hole cards only up to a renaming of the
suits (and which seat is which), so the 812,175 matchups fall into 47,008 classes; for each, the
table holds how many of the boards the first hand wins, the second wins, and how many tie, as
walking them says. The equity kernel pays the pots from those counts exactly as from a walk.

``python -m cardbatch.kernels.headsup`` walks every class again and writes the table
(``headsup_table.npz`` beside this module: 6 s on two cores); the tests walk every class again
and compare.

A matchup's class is its key: over the 24 renamings of the suits and both orders of the hands,
the least of ``hand0 << 12 | hand1``, a hand ``high << 6 | low`` (its two card codes, the higher
first). :func:`class_of` gives the key and whether the hands came out swapped.
"""

from __future__ import annotations

import itertools
import sys
import time
from pathlib import Path

import numpy as np
from numba import njit, prange

from .boardwalk import MULTISETS, add_card, walk_five

BOARDS = 1_712_304  # C(48, 5): the boards of a heads-up preflop all-in
PATH = Path(__file__).with_name("headsup_table.npz")
_PERMS = np.array(list(itertools.permutations(range(4))), np.int64)


@njit(cache=True, inline="always")
def _hand(a, b):
    return (a << 6) | b if a > b else (b << 6) | a


@njit(cache=True)
def class_of(a0, a1, b0, b1):
    """(key, swapped) of the matchup ``(a0, a1)`` against ``(b0, b1)`` (card codes)."""
    best = np.int64(1) << 40
    swapped = False
    for p in range(24):
        x0 = (a0 >> 2) * 4 + _PERMS[p, a0 & 3]
        x1 = (a1 >> 2) * 4 + _PERMS[p, a1 & 3]
        y0 = (b0 >> 2) * 4 + _PERMS[p, b0 & 3]
        y1 = (b1 >> 2) * 4 + _PERMS[p, b1 & 3]
        ha = _hand(x0, x1)
        hb = _hand(y0, y1)
        k1 = (ha << 12) | hb
        k2 = (hb << 12) | ha
        if k1 < best:
            best = k1
            swapped = False
        if k2 < best:
            best = k2
            swapped = True
    return best, swapped


@njit(cache=True, inline="always")
def lookup(keys, counts, a0, a1, b0, b1, out):
    """The matchup's board counts into ``out[4]`` as the equity kernel counts orders (index 0 a tie,
    1 the second hand wins, 2 the first wins); False when the table does not hold its class."""
    key, swapped = class_of(np.int64(a0), np.int64(a1), np.int64(b0), np.int64(b1))
    i = np.searchsorted(keys, key)
    if i >= keys.shape[0] or keys[i] != key:
        return False
    first, second, tie = counts[i, 0], counts[i, 1], counts[i, 2]
    if swapped:
        first, second = second, first
    out[0] = tie
    out[1] = second
    out[2] = first
    out[3] = 0
    return True


@njit(cache=True)
def _classes():
    """Every class's key and one matchup of it (its four cards), in key order."""
    n = 1326 * 1225 // 2
    keys = np.empty(n, np.int64)
    cards = np.empty((n, 4), np.int64)
    i = 0
    for a0 in range(52):
        for a1 in range(a0 + 1, 52):
            for b0 in range(a0, 52):
                for b1 in range(b0 + 1, 52):
                    if b0 == a0 and b1 <= a1:
                        continue
                    if b0 == a0 or b0 == a1 or b1 == a0 or b1 == a1:
                        continue
                    k, _ = class_of(a0, a1, b0, b1)
                    keys[i] = k
                    cards[i, 0] = a0
                    cards[i, 1] = a1
                    cards[i, 2] = b0
                    cards[i, 3] = b1
                    i += 1
    order = np.argsort(keys[:i], kind="mergesort")
    keys = keys[:i][order]
    cards = cards[:i][order]
    first = np.ones(i, np.bool_)
    for j in range(1, i):
        first[j] = keys[j] != keys[j - 1]
    return keys[first], cards[first]


@njit(cache=True, parallel=True)
def _walk_all(cards, tables, out):
    displace7, values7, _, _, flush_values, _, _ = tables
    for i in prange(cards.shape[0]):
        used = np.zeros(52, np.bool_)
        for j in range(4):
            used[cards[i, j]] = True
        rest = np.empty(48, np.int64)
        m = 0
        for c in range(52):
            if not used[c]:
                rest[m] = c
                m += 1
        seat_rank = np.zeros(2, np.uint64)
        seat_suit = np.zeros((2, 4), np.int64)
        seat_lane = np.zeros((2, 4), np.uint64)
        for j in range(4):
            add_card(j // 2, cards[i, j], seat_rank, seat_suit, seat_lane)
        counts = np.zeros(4, np.int64)
        walk_five(
            rest,
            m,
            2,
            seat_rank,
            seat_suit,
            seat_lane,
            displace7,
            values7,
            flush_values,
            counts,
            np.empty(MULTISETS, np.uint64),
            np.empty(MULTISETS, np.int64),
            np.empty(MULTISETS, np.int64),
            np.empty((MULTISETS, 2), np.uint32),
            np.empty(13, np.int64),
            np.empty(13, np.int64),
            np.empty(6, np.int64),
            np.empty(6, np.int64),
            np.empty(6, np.uint64),
            np.empty(6, np.int64),
            np.empty(13, np.int64),
            np.empty(6, np.int64),
            np.empty(6, np.int64),
            np.empty(2, np.int64),
            np.empty(2, np.int64),
        )
        out[i, 0] = counts[2]
        out[i, 1] = counts[1]
        out[i, 2] = counts[0]


def oriented(cards: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """``counts`` of matchups ``cards[N, 4]`` (first hand's wins, second's, ties) as their classes'
    keys order the hands: a matchup whose key came from its hands swapped has its wins swapped."""
    out = counts.copy()
    for i, (a0, a1, b0, b1) in enumerate(cards.astype(np.int64)):
        if class_of(a0, a1, b0, b1)[1]:
            out[i, 0], out[i, 1] = counts[i, 1], counts[i, 0]
    return out


def walk_classes(cards: np.ndarray) -> np.ndarray:
    """``uint32[N, 3]``: boards the first hand wins, the second wins, and tied, for each matchup of
    ``cards[N, 4]`` (two cards a hand), by walking every board."""
    from .holdem import SCORE_TABLES

    out = np.zeros((len(cards), 3), np.uint32)
    _walk_all(np.ascontiguousarray(cards, np.int64), SCORE_TABLES, out)
    return out


def classes() -> tuple[np.ndarray, np.ndarray]:
    """Every class's key and one matchup of it, in key order."""
    return _classes()


def load() -> tuple[np.ndarray, np.ndarray]:
    """(keys int64[N], counts uint32[N, 3]) of the shipped table; empty arrays when it is missing
    (the kernel then walks heads-up preflop all-ins, or samples them, like any other)."""
    if not PATH.exists():
        return np.zeros(0, np.int64), np.zeros((0, 3), np.uint32)
    with np.load(PATH) as z:
        return z["keys"], z["counts"]


def main() -> None:
    t0 = time.perf_counter()
    keys, cards = classes()
    print(f"{len(keys):,} classes in {time.perf_counter() - t0:.1f} s; walking them", file=sys.stderr, flush=True)
    counts = oriented(cards, walk_classes(cards))
    if not (counts.astype(np.int64).sum(axis=1) == BOARDS).all():
        raise SystemExit("a class's counts do not add up to the boards: nothing written")
    np.savez_compressed(PATH, keys=keys, counts=counts, cards=cards.astype(np.uint8))
    print(f"wrote {PATH} in {time.perf_counter() - t0:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
