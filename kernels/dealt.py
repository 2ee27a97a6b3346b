"""How often each card was dealt to each slot: what the fairness audit's card tests count."""

from __future__ import annotations

import numpy as np
from numba import njit

from .bits import popcount64, trailing_zeros64


@njit(cache=True)
def slot_counts(hole, seats, board, keep, low, hole_obs, board_obs, board_exp):
    """Add the rows ``keep`` whose every seat's cards are real (codes ``low`` to 51) to the slots'
    counts: ``hole_obs[S, per, 52]`` the times each card was dealt as seat s's j-th card;
    ``board_obs[B, 52]`` the times it was the j-th board card, and ``board_exp[B, 52]`` the times
    it was expected there: ``1 / (cards left)`` for every card the hole cards and the earlier board
    cards leave. ``hole[T, S, per]``, ``seats[T]``, ``board[T, B]`` (a code of 52 or more: none)."""
    T, _, per = hole.shape
    B = board.shape[1]
    one = np.uint64(1)
    below = (one << np.uint64(low)) - one  # the cards below the deck: never dealt
    every = np.zeros(B)  # each board slot's shares summed: what every card was expected, less what follows
    for t in range(T):
        if not keep[t]:
            continue
        complete = True
        for s in range(seats[t]):
            for j in range(per):
                complete &= low <= hole[t, s, j] < 52
        if not complete:
            continue
        gone = below
        for s in range(seats[t]):
            for j in range(per):
                c = hole[t, s, j]
                hole_obs[s, j, c] += 1
                gone |= one << np.uint64(c)
        for j in range(B):
            c = board[t, j]
            if c >= 52:
                continue
            if c >= low:
                board_obs[j, c] += 1
                share = 1.0 / (52 - popcount64(gone))
                every[j] += share
                out = gone & ~below  # the cards gone were not expected: their share comes off
                while out:
                    board_exp[j, trailing_zeros64(out)] -= share
                    out &= out - one
            gone |= one << np.uint64(c)
    for j in range(B):
        for x in range(low, 52):
            board_exp[j, x] += every[j]
