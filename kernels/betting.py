"""The betting model of ``cardbatch generate``: synthetic, reproducible contributions per street.

One hand per iteration, each from its own counter-based stream keyed by
(seed, hand id) (:func:`cardbatch.kernels.decks.deck_state`), so any slice of
hands comes out the same on any worker. Stacks are drawn from
:data:`_STACKS` (in half blinds); blinds are posted left of the button; on
each street every seat still in folds with probability ``fold_p`` or puts in
the street's bet (drawn from :data:`_BETS`, in big blinds), capped by its
stack, so short stacks go all in. A hand ends when one seat is left. Last, a
folded seat's chips are trimmed so that it never has chips above every live
seat (they would have come back uncalled). The full model is described for
people in docs/guide/generate.md.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .decks import deck_state, next_word

_STACKS = np.array([20, 60, 100, 150, 300, 1000, 2500], np.int64)  # in half blinds
_BETS = np.array([0, 1, 2, 4, 8, 25], np.int64)  # in big blinds
_SALT = np.uint64(0xB5AD4ECEDA1CE2A9)


@njit(cache=True, inline="always")
def _uniform(word):
    return (word >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True, parallel=True)
def _bets_kernel(seed, start, seats, streets, fold_p, blind, contrib, live, button, ended_at, stack):
    """The betting model, one hand per iteration, each from its own stream keyed by (seed, hand id)."""
    n, K, S = contrib.shape
    for c0 in prange((n + 1023) // 1024):
        left = np.zeros(S, np.int64)
        for i in range(c0 * 1024, min(n, (c0 + 1) * 1024)):
            _bet_hand(i, seed, start, seats, fold_p, blind, contrib, live, button, ended_at, stack, left)


@njit(cache=True, inline="always")
def _bet_hand(i, seed, start, seats, fold_p, blind, contrib, live, button, ended_at, stack, left):
    """One hand of the betting model (``left`` is scratch for the stacks; ``stack`` gets them as dealt)."""
    n, K, S = contrib.shape
    state = deck_state(np.uint64(seed) ^ _SALT, start + i)
    p = seats[i]
    for s in range(S):
        left[s] = 0
        live[i, s] = s < p
        for k in range(K):
            contrib[i, k, s] = 0
        if s < p:
            state, w = next_word(state)
            left[s] = _STACKS[w % np.uint64(7)] * blind // 2
        stack[i, s] = left[s]
    state, w = next_word(state)
    b = np.int64(w % np.uint64(p))
    button[i] = b
    for j in range(2):
        seat = (b + 1 + j) % p
        put = min((blind // 2) if j == 0 else blind, left[seat])
        contrib[i, 0, seat] += put
        left[seat] -= put
    ended = K
    for k in range(K):
        if ended <= k:
            break
        stay = 0
        first = -1
        for s in range(p):
            if live[i, s]:
                if first < 0:
                    first = s
                state, w = next_word(state)
                if _uniform(w) < fold_p:
                    live[i, s] = False
                else:
                    stay += 1
        if stay == 0:  # the last seat standing never folds
            live[i, first] = True
        state, w = next_word(state)
        bet = _BETS[w % np.uint64(6)] * blind
        nlive = 0
        for s in range(p):
            if live[i, s]:
                nlive += 1
                put = min(max(bet - contrib[i, k, s], 0), left[s])
                contrib[i, k, s] += put
                left[s] -= put
        if nlive == 1:
            ended = k + 1
    ended_at[i] = ended
    # a folded seat never has chips above every live seat (they would have come back uncalled):
    # cap it per street, then in total, trimming its latest streets first
    live_total = np.int64(0)
    for s in range(p):
        if live[i, s]:
            tot = np.int64(0)
            for k in range(K):
                tot += contrib[i, k, s]
            live_total = max(live_total, tot)
    for k in range(K):
        top = np.int64(0)
        for s in range(p):
            if live[i, s]:
                top = max(top, contrib[i, k, s])
        for s in range(p):
            if not live[i, s]:
                contrib[i, k, s] = min(contrib[i, k, s], top)
    for s in range(p):
        if not live[i, s]:
            tot = np.int64(0)
            for k in range(K):
                tot += contrib[i, k, s]
            excess = tot - live_total
            for k in range(K - 1, -1, -1):
                if excess <= 0:
                    break
                take = min(excess, contrib[i, k, s])
                contrib[i, k, s] -= take
                excess -= take


def bets(
    seed: int, start: int, n: int, S: int, seats: np.ndarray, streets: int, fold_p: float, blind: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Contributions ``[n, K, S]``, live flags, button, the street each hand ended on and the seats'
    stacks at the start of the hand ``[n, S]``."""
    contrib = np.empty((n, streets, S), np.int64)
    stack = np.empty((n, S), np.int64)
    live = np.empty((n, S), np.bool_)
    button = np.empty(n, np.int64)
    ended_at = np.empty(n, np.int64)
    _bets_kernel(
        seed, np.int64(start), seats.astype(np.int64), streets, fold_p, blind, contrib, live, button, ended_at, stack
    )
    return contrib, live, button, ended_at, stack
