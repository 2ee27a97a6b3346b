"""Walking the completions of a board by ranks: the loops the equity kernel and the heads-up table share.

A completion adds its weight to the count of the live seats' order (:func:`order_index`), which
is all the pots need to be paid (:mod:`cardbatch.kernels.equity`).

Seven cards that hold a flush cannot hold quads or a full house (either would need an eighth
card), so a seat's value on a board is its flush's when it has one, and otherwise depends on the
ranks of its seven cards alone. The walk therefore goes in two passes:

1. **By ranks.** Every multiset of ``k`` ranks the rest of the deck can deal (at most 6,188 for
   five cards, against 1.7 million boards), weighted by how many sets of cards deal it (the
   product over its ranks of C(cards left of the rank, times taken)), is counted at the order of
   the seats' values as if nobody could flush.
2. **Flushes.** For each suit in which some seat can still make five, every completion that deals
   ``j`` cards of the suit, enough for a flush (those cards one by one, the others by multisets of
   the other suits' ranks), moves its weight from the order of the rank values to the order of
   the true ones. A flush takes three of the board's five cards, so only one suit can make one on
   a board: no completion is moved twice.

The seats' words (:func:`add_card`): each live seat's hole cards and the known board as a rank key
(3-bit counts, :data:`cardbatch.kernels.holdem.RANK_MASK`'s part of a card key), each suit's card
count and each suit's 13-bit rank mask (what the flush table reads).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .holdem import value7

MULTISETS = 6188  # C(17, 5): the most multisets of ranks a walk lists (five cards to come)
_ZERO = np.uint64(0)
_BINOM = np.array([[math.comb(x, t) for t in range(6)] for x in range(18)], np.int64)  # C(x, t), x <= 17


@njit(cache=True, inline="always")
def order_index(vals, n):
    """The index of the live seats' order: ``sum(r_i * n**i)``, ``r_i`` the seats above seat i."""
    if n == 2:  # the common all-in, without the general loops
        return (vals[1] > vals[0]) + 2 * (vals[0] > vals[1])
    code = 0
    mult = 1
    for i in range(n):
        vi = vals[i]
        r = 0
        for j in range(n):
            r += vals[j] > vi
        code += r * mult
        mult *= n
    return code


@njit(cache=True, inline="always")
def add_card(i, card, seat_rank, seat_suit, seat_lane):
    """Add a card (code: ``4 * rank + suit``) to seat ``i``'s words."""
    rank = card >> 2
    suit = card & 3
    seat_rank[i] += np.uint64(1) << np.uint64(3 * rank)
    seat_suit[i, suit] += 1
    seat_lane[i, suit] |= np.uint64(1) << np.uint64(rank)


@njit(cache=True, _nrt=False)
def multisets(k, avail, keys, weights, rows, r, w, key, ix):
    """Every multiset of ``k`` ranks that ``avail[13]`` (cards left of each rank) can deal: its rank
    key into ``keys``, how many sets of cards deal it into ``weights``, its :func:`row` into
    ``rows``; returns how many there are. ``r``, ``w``, ``key``, ``ix``: scratch of ``k + 1``
    entries (the ranks taken so far, in order)."""
    if k == 0:
        keys[0] = _ZERO
        weights[0] = 1
        rows[0] = 0
        return 1
    found = 0
    p = 0
    r[0] = -1
    w[0] = 1
    key[0] = _ZERO
    ix[0] = 0
    while p >= 0:
        r[p] += 1
        rank = r[p]
        if rank > 12:
            p -= 1
            continue
        taken = 0  # this rank's cards already taken (the ranks go up, so they are the last ones)
        q = p - 1
        while q >= 0 and r[q] == rank:
            taken += 1
            q -= 1
        left = avail[rank] - taken
        if left <= 0:
            continue
        # C(a, t) * (a - t) / (t + 1) = C(a, t + 1): exact in integers
        w[p + 1] = w[p] * left // (taken + 1)
        key[p + 1] = key[p] + (np.uint64(1) << np.uint64(3 * rank))
        ix[p + 1] = ix[p] + _BINOM[rank + p, p + 1]
        if p == k - 1:
            keys[found] = key[p + 1]
            weights[found] = w[p + 1]
            rows[found] = ix[p + 1]
            found += 1
        else:
            p += 1
            r[p] = rank - 1
    return found


@njit(cache=True, _nrt=False)
def row(ranks, k):
    """The index of a multiset of ``k`` ranks (``ranks`` ascending) among all multisets of ``k`` of
    the 13 ranks: ``sum C(ranks[i] + i, i + 1)``, the colex rank of the distinct ``ranks[i] + i``."""
    x = 0
    for i in range(k):
        x += _BINOM[ranks[i] + i, i + 1]
    return x


@njit(cache=True, _nrt=False)
def walk_five(
    rest,
    m,
    n,
    seat_rank,
    seat_suit,
    seat_lane,
    displace7,
    values7,
    flush_values,
    counts,
    keys,
    weights,
    rows,
    rank_vals,
    avail,
    avail2,
    r,
    w,
    key,
    ix,
    suited,
    idx,
    sub,
    vals,
    flushv,
):
    """Add every five-card board of ``rest[:m]`` (card codes) to the live seats' order ``counts``
    (see the module's docstring): the preflop all-in. ``seat_*[n]``: the seats' words; the rank
    pass keeps each seat's value of each multiset (``rank_vals[MULTISETS, n]``, by its :func:`row`)
    for the flush pass. The rest is scratch: ``keys``/``weights``/``rows`` of :data:`MULTISETS`
    entries, ``avail``/``avail2``/``suited`` of 13, ``r``/``w``/``key``/``ix``/``idx``/``sub``
    of 6, ``vals``/``flushv`` of n."""
    for rank in range(13):
        avail[rank] = 0
    for e in range(m):
        avail[rest[e] >> 2] += 1
    found = multisets(5, avail, keys, weights, rows, r, w, key, ix)
    tie = first = second = 0  # heads-up: the three orders in registers, not through memory
    for e in range(found):
        add = keys[e]
        at = rows[e]
        if n == 2:
            v0 = value7(seat_rank[0] + add, _ZERO, displace7, values7, flush_values)
            v1 = value7(seat_rank[1] + add, _ZERO, displace7, values7, flush_values)
            rank_vals[at, 0] = v0
            rank_vals[at, 1] = v1
            tie += weights[e] * (v0 == v1)
            first += weights[e] * (v0 > v1)
            second += weights[e] * (v1 > v0)
            continue
        for i in range(n):
            vals[i] = value7(seat_rank[i] + add, _ZERO, displace7, values7, flush_values)
            rank_vals[at, i] = vals[i]
        counts[order_index(vals, n)] += weights[e]
    if n == 2:
        counts[0] += tie
        counts[1] += second
        counts[2] += first
    flush_pass(
        5,
        rest,
        m,
        n,
        seat_suit,
        seat_lane,
        flush_values,
        counts,
        rank_vals,
        avail,
        avail2,
        suited,
        idx,
        sub,
        vals,
        flushv,
    )


@njit(cache=True, _nrt=False)
def walk_few(
    k,
    rest,
    m,
    n,
    seat_rank,
    seat_suit,
    seat_lane,
    displace7,
    values7,
    flush_values,
    counts,
    avail,
    avail2,
    suited,
    idx,
    sub,
    rank_vals,
    vals,
    flushv,
):
    """:func:`walk_counts` for up to two cards to come (the flop's and the turn's all-ins): the rank
    pass keeps each seat's value of each rank pair (``rank_vals[169, n]``), which the flush pass
    reads instead of valuing the ranks again; ``idx``/``sub`` (6) and ``flushv`` (n): scratch."""
    for rank in range(13):
        avail[rank] = 0
    for e in range(m):
        avail[rest[e] >> 2] += 1
    one = np.uint64(1)
    if k == 0:
        for i in range(n):
            rank_vals[0, i] = value7(seat_rank[i], _ZERO, displace7, values7, flush_values)
            vals[i] = rank_vals[0, i]
        counts[order_index(vals, n)] += 1
    tie = first = second = 0  # heads-up: the three orders in registers, not through memory
    for a in range(13 if k > 0 else 0):
        if avail[a] == 0:
            continue
        ka = one << np.uint64(3 * a)
        for b in range(a, a + 1 if k == 1 else 13):
            weight = avail[a]
            add = ka
            row = a
            if k == 2:
                weight = avail[a] * (avail[a] - 1) // 2 if b == a else avail[a] * avail[b]
                add = ka + (one << np.uint64(3 * b))
                row = a + _BINOM[b + 1, 2]  # the multiset's colex row, as flush_pass reads it
            if weight == 0:
                continue
            if n == 2:
                v0 = value7(seat_rank[0] + add, _ZERO, displace7, values7, flush_values)
                v1 = value7(seat_rank[1] + add, _ZERO, displace7, values7, flush_values)
                rank_vals[row, 0] = v0
                rank_vals[row, 1] = v1
                tie += weight * (v0 == v1)
                first += weight * (v0 > v1)
                second += weight * (v1 > v0)
                continue
            for i in range(n):
                rank_vals[row, i] = value7(seat_rank[i] + add, _ZERO, displace7, values7, flush_values)
                vals[i] = rank_vals[row, i]
            counts[order_index(vals, n)] += weight
    if n == 2:  # order_index: 0 a tie, 1 the second seat above, 2 the first
        counts[0] += tie
        counts[1] += second
        counts[2] += first
    flush_pass(
        k,
        rest,
        m,
        n,
        seat_suit,
        seat_lane,
        flush_values,
        counts,
        rank_vals,
        avail,
        avail2,
        suited,
        idx,
        sub,
        vals,
        flushv,
    )


@njit(cache=True, _nrt=False)
def flush_pass(
    k, rest, m, n, seat_suit, seat_lane, flush_values, counts, rank_vals, avail, avail2, suited, idx, sub, vals, flushv
):
    """The walks' second pass (see the module's docstring): for each suit in which some seat can
    still make five, every completion of ``k`` cards that deals enough of it, the suit's cards one
    by one and the others (at most two, of other suits) by rank, moved from the order of its rank
    values (``rank_vals``, by the multiset's colex :func:`row`) to the order of its true values.
    ``avail``: the cards left of each rank; ``avail2``, ``suited``, ``idx``, ``sub`` (13, 13, 6, 6)
    and ``vals``, ``flushv`` (n): scratch."""
    for s in range(4):
        most = 0
        for i in range(n):
            most = max(most, seat_suit[i, s])
        need = max(5 - most, 0)
        if need > k:
            continue
        a = 0
        for rank in range(13):
            avail2[rank] = avail[rank]
        for e in range(m):
            if rest[e] & 3 == s:
                suited[a] = rest[e] >> 2
                avail2[rest[e] >> 2] -= 1
                a += 1
        for j in range(need, min(k, a) + 1):
            others = k - j
            for q in range(j):
                idx[q] = q
            while True:  # every j of the suit's a cards left (their ranks ascending)
                lane = _ZERO
                for q in range(j):
                    sub[q] = suited[idx[q]]
                    lane |= np.uint64(1) << np.uint64(sub[q])
                for i in range(n):  # each seat's flush, -1 without one
                    flushv[i] = flush_values[seat_lane[i, s] | lane] if seat_suit[i, s] + j >= 5 else -1
                # the other cards, of other suits, by rank: none, x, or x <= y
                for x in range(13 if others > 0 else 1):
                    for y in range(x, x + 1 if others < 2 else 13):
                        weight = 1
                        if others == 1:
                            weight = avail2[x]
                        elif others == 2:
                            weight = avail2[x] * (avail2[x] - 1) // 2 if y == x else avail2[x] * avail2[y]
                        if weight <= 0:
                            continue
                        # the board's ranks, ascending, and their multiset's row (inline: a call
                        # with arrays costs more than the rest of this loop)
                        p = 0
                        o = 0
                        at = 0
                        for q in range(k):
                            other = x if o == 0 else y
                            if o < others and (p >= j or other <= sub[p]):
                                rank = other
                                o += 1
                            else:
                                rank = sub[p]
                                p += 1
                            at += _BINOM[rank + q, q + 1]
                        if n == 2:
                            r0, r1 = np.int64(rank_vals[at, 0]), np.int64(rank_vals[at, 1])
                            a0 = flushv[0] if flushv[0] >= 0 else r0
                            a1 = flushv[1] if flushv[1] >= 0 else r1
                            before = (r1 > r0) + 2 * (r0 > r1)
                            after = (a1 > a0) + 2 * (a0 > a1)
                        else:
                            for i in range(n):
                                vals[i] = rank_vals[at, i]
                            before = order_index(vals, n)
                            for i in range(n):
                                if flushv[i] >= 0:
                                    vals[i] = flushv[i]
                            after = order_index(vals, n)
                        if after != before:
                            counts[before] -= weight
                            counts[after] += weight
                q = j - 1
                while q >= 0 and idx[q] == a - j + q:
                    q -= 1
                if q < 0:
                    break
                idx[q] += 1
                for q2 in range(q + 1, j):
                    idx[q2] = idx[q2 - 1] + 1
