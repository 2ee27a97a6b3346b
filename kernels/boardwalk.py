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
    if n == 3:  # the common multiway one
        v0, v1, v2 = vals[0], vals[1], vals[2]
        return (v1 > v0) + (v2 > v0) + 3 * ((v0 > v1) + (v2 > v1)) + 9 * ((v0 > v2) + (v1 > v2))
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
    (see the module's docstring): the preflop all-in. ``seat_*[n]``: the seats' words. The rank
    pass lists the multisets in nested loops (:func:`multisets`' list without its arrays and its
    division a step) and keeps each seat's value of each (``rank_vals[MULTISETS, n]``, by its
    :func:`row`) for :func:`flush_five`. Scratch: ``rows`` (13 used), ``avail``/``avail2``/``suited``
    of 13, ``vals``/``flushv`` of n; ``keys``, ``weights``, ``r``, ``w``, ``key``, ``ix``, ``idx`` and
    ``sub`` are no longer used (the callers still pass them)."""
    for rank in range(13):
        avail[rank] = 0
    for e in range(m):
        avail[rest[e] >> 2] += 1
    one = np.uint64(1)
    tie = first = second = 0  # heads-up: the three orders in registers, not through memory
    # ranks a <= b <= c <= d <= e; at each, the weight so far, and the weight before the run of
    # equal ranks it ends with and that run's length (the run's factor is C(cards of the rank, run))
    for a in range(13):
        wa = avail[a]
        if wa == 0:
            continue
        ka = one << np.uint64(3 * a)
        for b in range(a, 13):
            if b == a:
                rb, bb, wb = 2, 1, _BINOM[avail[b], 2]
            else:
                rb, bb, wb = 1, wa, wa * avail[b]
            if wb == 0:
                continue
            kb = ka + (one << np.uint64(3 * b))
            xb = a + _BINOM[b + 1, 2]
            for c in range(b, 13):
                if c == b:
                    rc, bc, wc = rb + 1, bb, bb * _BINOM[avail[c], rb + 1]
                else:
                    rc, bc, wc = 1, wb, wb * avail[c]
                if wc == 0:
                    continue
                kc = kb + (one << np.uint64(3 * c))
                xc = xb + _BINOM[c + 2, 3]
                for d in range(c, 13):
                    if d == c:
                        rd, bd, wd = rc + 1, bc, bc * _BINOM[avail[d], rc + 1]
                    else:
                        rd, bd, wd = 1, wc, wc * avail[d]
                    if wd == 0:
                        continue
                    kd = kc + (one << np.uint64(3 * d))
                    xd = xc + _BINOM[d + 3, 4]
                    for e in range(d, 13):
                        we = bd * _BINOM[avail[e], rd + 1] if e == d else wd * avail[e]
                        if we == 0:
                            continue
                        add = kd + (one << np.uint64(3 * e))
                        at = xd + _BINOM[e + 4, 5]
                        if n == 2:
                            v0 = value7(seat_rank[0] + add, _ZERO, displace7, values7, flush_values)
                            v1 = value7(seat_rank[1] + add, _ZERO, displace7, values7, flush_values)
                            rank_vals[at, 0] = v0
                            rank_vals[at, 1] = v1
                            tie += we * (v0 == v1)
                            first += we * (v0 > v1)
                            second += we * (v1 > v0)
                            continue
                        for i in range(n):
                            vals[i] = value7(seat_rank[i] + add, _ZERO, displace7, values7, flush_values)
                            rank_vals[at, i] = vals[i]
                        counts[order_index(vals, n)] += we
    if n == 2:
        counts[0] += tie
        counts[1] += second
        counts[2] += first
    flush_five(
        rest, m, n, seat_suit, seat_lane, flush_values, counts, rank_vals, avail, avail2, suited, rows, vals, flushv
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
    """:func:`walk_few`'s second pass (see the module's docstring; :func:`flush_five` is the
    preflop's): for each suit in which some seat can still make five, every completion of ``k``
    cards that deals enough of it, the suit's cards one by one and the others (at most two, of
    other suits) by rank, moved from the order of its rank values (``rank_vals``, by the
    multiset's colex :func:`row`) to the order of its true values. ``avail``: the cards left of
    each rank; ``avail2``, ``suited``, ``idx``, ``sub`` (13, 13, 6, 6) and ``vals``, ``flushv``
    (n): scratch."""
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


@njit(cache=True, inline="always")
def _moved2(rank_vals, at, weight, f0, f1, first, second):
    """Heads-up, one completion's move: (first, second) plus ``weight`` times the change of each
    order's count (a tie's is minus their sum); ``f0``, ``f1``: the seats' flushes, -1 for none."""
    r0 = np.int64(rank_vals[at, 0])
    r1 = np.int64(rank_vals[at, 1])
    a0 = f0 if f0 >= 0 else r0
    a1 = f1 if f1 >= 0 else r1
    first += weight * (np.int64(a0 > a1) - np.int64(r0 > r1))
    second += weight * (np.int64(a1 > a0) - np.int64(r1 > r0))
    return first, second


@njit(cache=True, inline="always")
def _moved(rank_vals, at, weight, n, flushv, vals, counts):
    """One completion's move from the order of its rank values to the order of its true ones."""
    if weight <= 0:
        return
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


@njit(cache=True, inline="always")
def _suit(s, rest, m, avail, avail2, suited):
    """The suit's cards left, their ranks ascending into ``suited`` (returns how many), and the
    other suits' cards left of each rank into ``avail2``."""
    a = 0
    for rank in range(13):
        avail2[rank] = avail[rank]
    for e in range(m):
        if rest[e] & 3 == s:
            suited[a] = rest[e] >> 2
            avail2[rest[e] >> 2] -= 1
            a += 1
    return a


@njit(cache=True, _nrt=False)
def flush_five(
    rest, m, n, seat_suit, seat_lane, flush_values, counts, rank_vals, avail, avail2, suited, g, vals, flushv
):
    """:func:`flush_pass` for five cards to come. A seat holds at most two cards of a suit, so a
    flush takes 3 to 5 of the board's: the suit's cards ``s_0 < s_1 < ...`` (by rank) in nested
    loops, sets of 3, 4 and 5 as they grow, with the board's other ranks x (<= y) inserted.

    The multiset's :func:`row` is a sum of parts that do not depend on each other. Call
    ``c_t(q) = C(s_q + q + t, q + t + 1)`` the part of ``s_q`` with ``t`` other ranks sorted before
    it, ``b_q(x)`` whether ``s_q <= x`` and ``p(x)`` how many are: the row with one x is
    ``sum c_1(q) + sum b_q(x) (c_0(q) - c_1(q)) + C(x + p, p + 1)``, and with x <= y it is
    ``h(x) + g(y)``, ``h(x) = sum b_q(x) (c_0(q) - c_1(q)) + C(x + p(x), p(x) + 1)`` and
    ``g(y) = sum c_2(q) + sum b_q(y) (c_1(q) - c_2(q)) + C(y + p(y) + 1, p(y) + 2)`` (equal ranks
    make the same row whichever side they go). No branch on x or y: the merge this replaces
    mispredicted more than the rest of the pass cost. ``g``: scratch of 13. Heads-up goes to
    :func:`_flush_five_two`."""
    if n == 2:
        _flush_five_two(rest, m, seat_suit, seat_lane, flush_values, counts, rank_vals, avail, avail2, suited, g)
        return
    for s in range(4):
        most = 0
        for i in range(n):
            most = max(most, seat_suit[i, s])
        need = 5 - most
        a = _suit(s, rest, m, avail, avail2, suited)
        for i0 in range(a):
            s0 = suited[i0]
            l0 = np.uint64(1) << np.uint64(s0)
            d0 = _BINOM[s0, 1] - _BINOM[s0 + 1, 2]  # shift 0 minus shift 1
            e0 = _BINOM[s0 + 1, 2] - _BINOM[s0 + 2, 3]  # shift 1 minus shift 2
            for i1 in range(i0 + 1, a):
                s1 = suited[i1]
                l1 = l0 | (np.uint64(1) << np.uint64(s1))
                d1 = _BINOM[s1 + 1, 2] - _BINOM[s1 + 2, 3]
                e1 = _BINOM[s1 + 2, 3] - _BINOM[s1 + 3, 4]
                for i2 in range(i1 + 1, a):
                    s2 = suited[i2]
                    l2 = l1 | (np.uint64(1) << np.uint64(s2))
                    d2 = _BINOM[s2 + 2, 3] - _BINOM[s2 + 3, 4]
                    if need <= 3:  # three of the suit, two other ranks
                        for i in range(n):
                            flushv[i] = flush_values[seat_lane[i, s] | l2] if seat_suit[i, s] + 3 >= 5 else -1
                        e2 = _BINOM[s2 + 3, 4] - _BINOM[s2 + 4, 5]
                        base = _BINOM[s0 + 2, 3] + _BINOM[s1 + 3, 4] + _BINOM[s2 + 4, 5]
                        for y in range(13):
                            b0, b1, b2 = np.int64(s0 <= y), np.int64(s1 <= y), np.int64(s2 <= y)
                            p = b0 + b1 + b2
                            g[y] = base + b0 * e0 + b1 * e1 + b2 * e2 + _BINOM[y + p + 1, p + 2]
                        for x in range(13):
                            ax = avail2[x]
                            if ax == 0:
                                continue
                            b0, b1, b2 = np.int64(s0 <= x), np.int64(s1 <= x), np.int64(s2 <= x)
                            p = b0 + b1 + b2
                            hx = b0 * d0 + b1 * d1 + b2 * d2 + _BINOM[x + p, p + 1]
                            _moved(rank_vals, hx + g[x], _BINOM[ax, 2], n, flushv, vals, counts)
                            for y in range(x + 1, 13):
                                _moved(rank_vals, hx + g[y], ax * avail2[y], n, flushv, vals, counts)
                    for i3 in range(i2 + 1, a):
                        s3 = suited[i3]
                        l3 = l2 | (np.uint64(1) << np.uint64(s3))
                        if need <= 4:  # four of the suit, one other rank
                            for i in range(n):
                                flushv[i] = flush_values[seat_lane[i, s] | l3] if seat_suit[i, s] + 4 >= 5 else -1
                            d3 = _BINOM[s3 + 3, 4] - _BINOM[s3 + 4, 5]
                            base = _BINOM[s0 + 1, 2] + _BINOM[s1 + 2, 3] + _BINOM[s2 + 3, 4] + _BINOM[s3 + 4, 5]
                            for x in range(13):
                                b0, b1, b2, b3 = (
                                    np.int64(s0 <= x),
                                    np.int64(s1 <= x),
                                    np.int64(s2 <= x),
                                    np.int64(s3 <= x),
                                )
                                p = b0 + b1 + b2 + b3
                                at = base + b0 * d0 + b1 * d1 + b2 * d2 + b3 * d3 + _BINOM[x + p, p + 1]
                                _moved(rank_vals, at, avail2[x], n, flushv, vals, counts)
                        for i4 in range(i3 + 1, a):  # all five of the suit: every seat flushes
                            l4 = l3 | (np.uint64(1) << np.uint64(suited[i4]))
                            at = (
                                s0
                                + _BINOM[s1 + 1, 2]
                                + _BINOM[s2 + 2, 3]
                                + _BINOM[s3 + 3, 4]
                                + _BINOM[suited[i4] + 4, 5]
                            )
                            for i in range(n):
                                flushv[i] = flush_values[seat_lane[i, s] | l4]
                            _moved(rank_vals, at, 1, n, flushv, vals, counts)


@njit(cache=True, _nrt=False)
def _flush_five_two(rest, m, seat_suit, seat_lane, flush_values, counts, rank_vals, avail, avail2, suited, g):
    """:func:`flush_five` heads-up: the moves kept in registers (see :func:`_moved2`)."""
    first = second = 0
    for s in range(4):
        c0 = seat_suit[0, s]
        c1 = seat_suit[1, s]
        n0 = seat_lane[0, s]
        n1 = seat_lane[1, s]
        need = 5 - max(c0, c1)
        a = _suit(s, rest, m, avail, avail2, suited)
        for i0 in range(a):
            s0 = suited[i0]
            l0 = np.uint64(1) << np.uint64(s0)
            d0 = _BINOM[s0, 1] - _BINOM[s0 + 1, 2]
            e0 = _BINOM[s0 + 1, 2] - _BINOM[s0 + 2, 3]
            for i1 in range(i0 + 1, a):
                s1 = suited[i1]
                l1 = l0 | (np.uint64(1) << np.uint64(s1))
                d1 = _BINOM[s1 + 1, 2] - _BINOM[s1 + 2, 3]
                e1 = _BINOM[s1 + 2, 3] - _BINOM[s1 + 3, 4]
                for i2 in range(i1 + 1, a):
                    s2 = suited[i2]
                    l2 = l1 | (np.uint64(1) << np.uint64(s2))
                    d2 = _BINOM[s2 + 2, 3] - _BINOM[s2 + 3, 4]
                    if need <= 3:
                        f0 = np.int64(flush_values[n0 | l2]) if c0 + 3 >= 5 else -1
                        f1 = np.int64(flush_values[n1 | l2]) if c1 + 3 >= 5 else -1
                        e2 = _BINOM[s2 + 3, 4] - _BINOM[s2 + 4, 5]
                        base = _BINOM[s0 + 2, 3] + _BINOM[s1 + 3, 4] + _BINOM[s2 + 4, 5]
                        for y in range(13):
                            b0, b1, b2 = np.int64(s0 <= y), np.int64(s1 <= y), np.int64(s2 <= y)
                            p = b0 + b1 + b2
                            g[y] = base + b0 * e0 + b1 * e1 + b2 * e2 + _BINOM[y + p + 1, p + 2]
                        for x in range(13):
                            ax = avail2[x]
                            if ax == 0:
                                continue
                            b0, b1, b2 = np.int64(s0 <= x), np.int64(s1 <= x), np.int64(s2 <= x)
                            p = b0 + b1 + b2
                            hx = b0 * d0 + b1 * d1 + b2 * d2 + _BINOM[x + p, p + 1]
                            first, second = _moved2(rank_vals, hx + g[x], _BINOM[ax, 2], f0, f1, first, second)
                            for y in range(x + 1, 13):
                                first, second = _moved2(rank_vals, hx + g[y], ax * avail2[y], f0, f1, first, second)
                    for i3 in range(i2 + 1, a):
                        s3 = suited[i3]
                        l3 = l2 | (np.uint64(1) << np.uint64(s3))
                        if need <= 4:
                            f0 = np.int64(flush_values[n0 | l3]) if c0 + 4 >= 5 else -1
                            f1 = np.int64(flush_values[n1 | l3]) if c1 + 4 >= 5 else -1
                            d3 = _BINOM[s3 + 3, 4] - _BINOM[s3 + 4, 5]
                            base = _BINOM[s0 + 1, 2] + _BINOM[s1 + 2, 3] + _BINOM[s2 + 3, 4] + _BINOM[s3 + 4, 5]
                            for x in range(13):
                                b0, b1, b2, b3 = (
                                    np.int64(s0 <= x),
                                    np.int64(s1 <= x),
                                    np.int64(s2 <= x),
                                    np.int64(s3 <= x),
                                )
                                p = b0 + b1 + b2 + b3
                                at = base + b0 * d0 + b1 * d1 + b2 * d2 + b3 * d3 + _BINOM[x + p, p + 1]
                                first, second = _moved2(rank_vals, at, avail2[x], f0, f1, first, second)
                        for i4 in range(i3 + 1, a):
                            s4 = suited[i4]
                            l4 = l3 | (np.uint64(1) << np.uint64(s4))
                            at = s0 + _BINOM[s1 + 1, 2] + _BINOM[s2 + 2, 3] + _BINOM[s3 + 3, 4] + _BINOM[s4 + 4, 5]
                            f0 = np.int64(flush_values[n0 | l4])
                            f1 = np.int64(flush_values[n1 | l4])
                            first, second = _moved2(rank_vals, at, 1, f0, f1, first, second)
    counts[0] -= first + second
    counts[1] += second
    counts[2] += first
