"""When a hand went all-in: the first street after which no more betting could happen."""

from __future__ import annotations

import numpy as np
from numba import njit, prange


@njit(cache=True, parallel=True)
def all_in_streets(stack, contrib, live, streets):
    """``int8[T]``: the first of the first ``streets`` streets (0 preflop, 1 flop, 2 turn) after which
    at most one seat still in the hand had chips behind, at a table of two or more live seats; -1
    where there is none. ``stack[T, S]``, ``contrib[T, K, S]`` (chips per street), ``live[T, S]``.

    A seat is still in after street k when it is live (it reached the end of the hand), or when it
    folded later: the log does not say when a seat folded, but one that had put in as much as any
    seat by the end of street k (it called every bet so far), or put chips in on a later street,
    had not folded yet. Counting it as folded from the start would place hands where it folded to
    a bet on a later street, a decision made by the cards that came, at the earlier street: then
    the hands chosen would depend on their boards, and their equity would not be their expectation.

    >>> st = np.array([[100, 100, 50]])
    >>> c = np.array([[[10, 20, 50], [90, 80, 0], [0, 0, 0], [0, 0, 0]]])
    >>> int(all_in_streets(st, c, np.array([[True, True, True]]), 3)[0])  # seat 2 all-in preflop, 0 and 1 bet on
    1
    >>> int(all_in_streets(st, c, np.array([[False, True, True]]), 3)[0])  # seat 0 bet the flop, then folded
    1
    >>> c = np.array([[[50, 50, 50], [0, 0, 0], [0, 0, 0], [0, 0, 0]]])
    >>> int(all_in_streets(st, c, np.array([[False, True, True]]), 3)[0])  # seat 0 called; folded when? not placed
    -1
    >>> c = np.array([[[10, 50, 50], [0, 0, 0], [0, 0, 0], [0, 0, 0]]])
    >>> int(all_in_streets(st, c, np.array([[False, True, True]]), 3)[0])  # seat 0 folded to the all-in
    0
    """
    T, K, S = contrib.shape
    out = np.full(T, -1, np.int8)
    for t in prange(T):
        seats = 0
        for s in range(S):
            seats += live[t, s]
        if seats < 2:
            continue
        for k in range(min(K, streets)):
            top = 0
            for s in range(S):
                put = 0
                for q in range(k + 1):
                    put += contrib[t, q, s]
                top = max(top, put)
            betting = 0
            for s in range(S):
                put = 0
                for q in range(k + 1):
                    put += contrib[t, q, s]
                later = 0
                for q in range(k + 1, K):
                    later += contrib[t, q, s]
                still_in = live[t, s] or put >= top or later > 0
                betting += still_in and stack[t, s] - put > 0
            if betting <= 1:
                out[t] = k
                break
    return out
