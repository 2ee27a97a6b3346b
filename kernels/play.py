"""Players who decide by their cards: the behaviour model of ``cardbatch generate --play tight|loose``.

The cards are dealt first; then each hand is bet street by street by players who look at them:

- **Preflop** a seat values its hole cards by Bill Chen's published formula (its best two cards in
  games with more: :func:`chen`), opens with a raise to three big blinds at ``open`` or better,
  moves all in at ``jam`` or better (or at ``open`` when it has ``short`` big blinds or fewer),
  calls a raise at ``call`` or better plus one point per ``call_slope`` big blinds it costs, and
  folds the rest (the big blind checks its option; loose players limp at ``limp``).
- **Later streets** a seat values its made hand and draws on the board so far
  (:func:`made`): 0 nothing, 1 a draw or a weak pair, 2 top pair or an overpair, 3 two pair or
  trips, 4 a straight or better. The first to act bets two thirds of the pot at ``bet`` or better,
  on a draw with probability ``semi``, with nothing with probability ``bluff``; facing a bet a seat
  moves all in at ``raise_at``, calls at ``call_at`` (a draw calls half the pot or less) and folds
  the rest. A bet or raise that would leave less than half the pot behind goes all in.
- **Stacks** of 10 to 200 big blinds (:data:`STACKS_BB`) make short stacks move all in and bigger
  ones build side pots; at most four raises a street. A hand ends when one seat is left, or, when
  at most one live seat has chips behind, runs the board out with no more betting.

Decisions draw from each hand's own stream keyed by (seed, hand id), as the random model's do, so a
range of hands comes out the same on any worker. ``params`` (floats, :data:`PARAMS` order) is a
style of :data:`cardbatch.plays.PLAYS`.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .decks import deck_state, next_word

STACKS_BB = np.array([10, 15, 20, 25, 30, 40, 50, 75, 100, 100, 150, 200], np.int64)
PARAMS = ("open", "jam", "short", "call", "call_slope", "limp", "bet", "semi", "bluff", "raise_at", "call_at")
MAX_RAISES = 4
_SALT = np.uint64(0x5851F42D4C957F2D)
_GAP_COST = np.array([0.0, 1.0, 2.0, 4.0, 5.0])


@njit(cache=True, inline="always")
def _uniform(word):
    return (word >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def chen(a, b):
    """Bill Chen's score of two hole cards (codes): 20 for aces, about 8 for the best tenth of hands.

    >>> from cardbatch.kernels.cards import parse
    >>> [int(chen(*parse([h])[0])) for h in ("AsAh", "AsKs", "AsKd", "7c7d", "7c2d", "2c2d", "JsTs")]
    [20, 12, 10, 7, -1, 5, 9]
    """
    ra, rb = a >> 2, b >> 2
    hi, lo = max(ra, rb), min(ra, rb)
    top = 10.0 if hi == 12 else 8.0 if hi == 11 else 7.0 if hi == 10 else 6.0 if hi == 9 else (hi + 2) / 2.0
    if hi == lo:
        score = max(2.0 * top, 5.0)
    else:
        score = top + (2.0 if (a & 3) == (b & 3) else 0.0)
        gap = hi - lo - 1
        score -= _GAP_COST[min(gap, 4)]
        if gap <= 1 and hi < 10:
            score += 1.0
    return np.ceil(score)


@njit(cache=True)
def preflop_strength(hole):
    """A seat's hole cards' best :func:`chen` score over its pairs of cards (255: no card)."""
    best = -10.0
    for i in range(hole.shape[0]):
        for j in range(i + 1, hole.shape[0]):
            if hole[i] < 52 and hole[j] < 52:
                best = max(best, chen(hole[i], hole[j]))
    return best


@njit(cache=True)
def made(hole, board, k):
    """A seat's made hand and draws with the first ``k`` board cards (see the module's docstring):
    0 nothing, 1 a draw or a weak pair, 2 top pair or an overpair, 3 two pair or trips, 4 a
    straight, flush or better; each using at least one hole card.

    >>> from cardbatch.kernels.cards import parse
    >>> b = parse(["Ks9h2c5d7s"])[0]
    >>> [int(made(parse([h])[0], b, 3)) for h in ("AhQh", "Kd3c", "9c2d", "AsAd", "8h6d", "Qs9s")]
    [0, 2, 3, 2, 0, 1]
    >>> int(made(parse(["8h6d"])[0], b, 5))  # five to nine
    4
    >>> d = parse(["Ks9s2c5d7h"])[0]
    >>> int(made(parse(["As3s"])[0], d, 3)), int(made(parse(["As3s"])[0], d, 5))  # a draw, then nothing
    (1, 0)
    """
    rc = np.zeros(13, np.int64)
    hc = np.zeros(13, np.int64)
    sc = np.zeros(4, np.int64)
    hs = np.zeros(4, np.int64)
    top = -1
    for j in range(k):
        c = board[j]
        rc[c >> 2] += 1
        sc[c & 3] += 1
        top = max(top, c >> 2)
    for j in range(hole.shape[0]):
        c = hole[j]
        if c >= 52:
            continue
        rc[c >> 2] += 1
        hc[c >> 2] += 1
        sc[c & 3] += 1
        hs[c & 3] += 1
    flush = False
    flush_draw = False
    for s in range(4):
        flush |= sc[s] >= 5 and hs[s] >= 1
        flush_draw |= sc[s] == 4 and hs[s] >= 1
    straight = False
    open_ended = False
    for low in range(-1, 9):  # five ranks from low (-1: the ace played low)
        run = 0
        mine = False
        for r in range(low, low + 5):
            x = 12 if r == -1 else r
            if rc[x] > 0:
                run += 1
                mine |= hc[x] > 0
        straight |= run == 5 and mine
    for low in range(0, 10):  # four in a row, open at both ends
        run = 0
        mine = False
        for r in range(low, low + 4):
            if rc[r] > 0:
                run += 1
                mine |= hc[r] > 0
        open_ended |= run == 4 and mine and low + 4 <= 12
    pairs = 0
    trips = False
    strong_pair = False
    weak_pair = False
    for r in range(13):
        if hc[r] == 0 or rc[r] < 2:
            continue
        pairs += 1
        trips |= rc[r] >= 3
        if hc[r] >= 2 and rc[r] == 2:  # a pocket pair: over the board or under it
            strong_pair |= r > top
            weak_pair |= r <= top
        else:
            strong_pair |= r == top
            weak_pair |= r < top
    if flush or straight or (trips and pairs >= 2):
        return 4
    if trips or pairs >= 2:
        return 3
    if strong_pair:
        return 2
    if weak_pair or ((flush_draw or open_ended) and k < 5):
        return 1
    return 0


@njit(cache=True, inline="always")
def _put(i, k, s, amount, contrib, left):
    """Seat ``s`` puts ``amount`` more in on street ``k`` (capped by its chips); returns what it put."""
    put = min(amount, left[s])
    contrib[i, k, s] += put
    left[s] -= put
    return put


@njit(cache=True)
def _play_hand(i, seed, start, hole, board, seats, params, blind, contrib, live, button, ended_at, stack, left, need):
    """One hand of the model (``left``, ``need``: scratch of S)."""
    n, K, S = contrib.shape
    state = deck_state(np.uint64(seed) ^ _SALT, start + i)
    p = seats[i]
    open_c, jam_c, short_bb, call_c = params[0], params[1], params[2], params[3]
    call_slope, limp_c = params[4], params[5]
    bet_m, semi, bluff, raise_m, call_m = params[6], params[7], params[8], params[9], params[10]
    for s in range(S):
        left[s] = 0
        live[i, s] = s < p
        for k in range(K):
            contrib[i, k, s] = 0
        if s < p:
            state, w = next_word(state)
            left[s] = STACKS_BB[w % np.uint64(STACKS_BB.shape[0])] * blind
        stack[i, s] = left[s]
    state, w = next_word(state)
    b = np.int64(w % np.uint64(p))
    button[i] = b
    _put(i, 0, (b + 1) % p, blind // 2, contrib, left)
    _put(i, 0, (b + 2) % p, blind, contrib, left)
    ended = K
    for k in range(K):
        known = 0 if k == 0 else k + 2  # board cards seen on this street
        high = 0  # the street's bet to match
        for s in range(p):
            high = max(high, contrib[i, k, s])
        raises = 0
        for s in range(p):
            need[s] = live[i, s] and left[s] > 0
        first = (b + 3) % p if k == 0 else (b + 1) % p
        at = first
        idle = 0
        while idle < p:  # until a whole turn of the table passes with no one to act
            s = at
            at = (at + 1) % p
            if not need[s] or not live[i, s] or left[s] == 0:
                idle += 1
                continue
            idle = 0
            need[s] = False
            owe = high - contrib[i, k, s]
            pot = np.int64(0)
            for q in range(p):
                for kk in range(k + 1):
                    pot += contrib[i, kk, q]
            state, w = next_word(state)
            u = _uniform(w)
            if k == 0:
                c = preflop_strength(hole[i, s])
                behind = left[s] // blind
                cost = min(owe, left[s]) / blind
                if raises < MAX_RAISES and (c >= jam_c or (c >= open_c and behind <= short_bb)):
                    target = contrib[i, k, s] + left[s]  # all in
                elif raises == 0 and c >= open_c:
                    target = 3 * blind
                elif raises > 0 and raises < MAX_RAISES - 1 and c >= jam_c - 1 and behind > 40:
                    target = 3 * high  # a re-raise a deep stack keeps short of all in
                elif owe == 0:
                    target = high  # the big blind's option: a check
                elif c >= (limp_c if raises == 0 else call_c + cost / call_slope):
                    target = high
                else:
                    target = -1
            else:
                m = made(hole[i, s], board[i], known)
                if owe == 0:
                    bets = m >= bet_m or (m == 1 and u < semi) or (m == 0 and u < bluff)
                    target = high + max(blind, (2 * pot) // 3) if bets and raises < MAX_RAISES else high
                elif m >= raise_m and raises < MAX_RAISES:
                    target = contrib[i, k, s] + left[s]
                elif m >= call_m or (m == 1 and 2 * owe <= pot):
                    target = high
                else:
                    target = -1
            if target < 0:
                live[i, s] = False
                continue
            if target > high and left[s] - (target - contrib[i, k, s]) < (pot + target - contrib[i, k, s]) // 2:
                target = contrib[i, k, s] + left[s]  # a bet that would leave less than half the pot behind: all in
            _put(i, k, s, max(target - contrib[i, k, s], 0), contrib, left)
            if contrib[i, k, s] > high:  # a raise: everyone else still in acts again
                high = contrib[i, k, s]
                raises += 1
                for q in range(p):
                    need[q] = q != s and live[i, q] and left[q] > 0
        alive = 0
        behind = 0
        for s in range(p):
            alive += live[i, s]
            behind += live[i, s] and left[s] > 0
        if alive == 1:
            ended = k + 1
            break
        if behind <= 1:  # no one left to bet against: the board is run out
            break
    ended_at[i] = ended


@njit(cache=True, parallel=True)
def _play_kernel(seed, start, hole, board, seats, params, blind, contrib, live, button, ended_at, stack):
    n, K, S = contrib.shape
    for c0 in prange((n + 1023) // 1024):
        left = np.zeros(S, np.int64)
        need = np.zeros(S, np.bool_)
        for i in range(c0 * 1024, min(n, (c0 + 1) * 1024)):
            _play_hand(
                i, seed, start, hole, board, seats, params, blind, contrib, live, button, ended_at, stack, left, need
            )


def play(
    seed: int,
    start: int,
    hole: np.ndarray,
    board: np.ndarray,
    seats: np.ndarray,
    params: np.ndarray,
    streets: int,
    blind: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The betting of ``hole[n, S, per]`` and ``board[n, 5]`` (every card dealt) by players of style
    ``params``: contributions ``[n, streets, S]``, live flags, button, the street each hand ended
    on (``streets``: at a showdown) and the seats' stacks at the start of the hand ``[n, S]``, as
    :func:`cardbatch.kernels.betting.bets` returns them."""
    n, S, _ = hole.shape
    contrib = np.empty((n, streets, S), np.int64)
    stack = np.empty((n, S), np.int64)
    live = np.empty((n, S), np.bool_)
    button = np.empty(n, np.int64)
    ended_at = np.empty(n, np.int64)
    _play_kernel(
        np.uint64(seed),
        np.int64(start),
        np.ascontiguousarray(hole),
        np.ascontiguousarray(board),
        seats.astype(np.int64),
        np.asarray(params, np.float64),
        np.int64(blind),
        contrib,
        live,
        button,
        ended_at,
        stack,
    )
    return contrib, live, button, ended_at, stack
