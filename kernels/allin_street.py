"""When a hand went all-in: the first street after which no more betting could happen."""

from __future__ import annotations

import numpy as np
from numba import njit, prange


@njit(cache=True, parallel=True)
def all_in_streets(stack, contrib, live, streets):
    """``int8[T]``: the first of the first ``streets`` streets (0 preflop, 1 flop, 2 turn) after which
    at most one live seat had chips behind, at a table of two or more live seats; -1 where there is
    none. ``stack[T, S]``, ``contrib[T, K, S]`` (chips per street), ``live[T, S]``.

    >>> st = np.array([[100, 100, 50]])
    >>> c = np.array([[[10, 20, 50], [90, 80, 0], [0, 0, 0], [0, 0, 0]]])
    >>> int(all_in_streets(st, c, np.array([[True, True, True]]), 3)[0])  # seat 2 all-in preflop, 0 and 1 bet on
    1
    >>> int(all_in_streets(st, c, np.array([[False, True, True]]), 3)[0])  # seat 0 folded: no one left to bet
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
            betting = 0
            for s in range(S):
                put = 0
                for q in range(k + 1):
                    put += contrib[t, q, s]
                betting += live[t, s] and stack[t, s] - put > 0
            if betting <= 1:
                out[t] = k
                break
    return out
