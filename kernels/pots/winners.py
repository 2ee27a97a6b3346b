"""Winner selection over seat masks: the best hands among a set of seats (docs: Rules, pots).

Seats are bits of a ``uint64`` mask. Which seats are eligible and where the
best hand sits are random from table to table, so every routine here reduces
with arithmetic selects over all seats instead of branching per seat. With the
three-card 2-3-5 rule (docs: Rules, the 2-3-5 rule) a set whose best hand is trips loses to its
off-suit 2-3-5 hands (``special``), which no single value can order.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..bits import seat_in

_MIN64 = np.iinfo(np.int64).min
_ONE = np.uint64(1)


@njit(cache=True, inline="always")
def best_of(mask, score):
    """Bitmask of the seats in ``mask`` with the highest score."""
    return seats_at(mask, score, best_score(mask, score))


@njit(cache=True, inline="always")
def best_score(mask, score):
    low = np.int64(_MIN64)
    best = low
    for s in range(score.shape[0]):
        m = seat_in(mask, s)
        best = max(best, (score[s] & m) | (low & ~m))
    return best


@njit(cache=True, inline="always")
def seats_at(mask, score, best):
    """Bitmask of the seats in ``mask`` whose score is ``best``."""
    won = np.uint64(0)
    for s in range(score.shape[0]):
        won |= (((mask >> np.uint64(s)) & _ONE) & np.uint64(score[s] == best)) << np.uint64(s)
    return won


@njit(cache=True, inline="always")
def winners_at(mask, score, best, special, use_special, trips_floor):
    """Winners among ``mask`` when their best score is known: the seats holding it, or with
    ``use_special``, when that best is trips (``>= trips_floor``), the best eligible 2-3-5s."""
    won = seats_at(mask, score, best)
    if use_special and won and best >= trips_floor:  # three-card trips only: a call, not inlined everywhere
        return _trips_or_235(won, mask, score, special)
    return won


@njit(cache=True)
def _trips_or_235(won, mask, score, special):
    """``won`` (trips), unless ``mask`` holds off-suit 2-3-5 hands: then the best of those."""
    spec = np.uint64(0)
    for s in range(score.shape[0]):
        spec |= np.uint64(special[s]) << np.uint64(s)
    spec &= mask
    return best_of(spec, score) if spec else won


@njit(cache=True, inline="always")
def hand_winners(live, score, special, use_special, trips_floor):
    """The hand's winners among its live seats, and the live mask."""
    S = live.shape[0]
    lm = np.uint64(0)
    for s in range(S):
        lm |= np.uint64(live[s]) << np.uint64(s)
    return winners_at(lm, score, best_score(lm, score), special, use_special, trips_floor), lm
