"""Pot settlement over arrays of tables: side pots (SPEC §5) and per-street policies (SPEC §6).

One layering routine (:func:`_layer`) turns a row of contributions into pots:
levels are the distinct positive contributions, a layer holds
``(L[k] - L[k-1]) * (seats with contrib >= L[k])`` chips, its eligible seats
are the live seats with ``contrib >= L[k]``, and adjacent layers of the same
kind with the same eligible set merge into one pot. Kinds: a normal pot, an
uncalled bet (one contributor, who is live: returned, never raked) and an
orphan layer (no live contributor: invalid, or refunded on request). Every
policy distributes those pots:

- ``standard``: each pot to its best eligible hands (SPEC §5), with rake;
- ``presence``, ``ratio_rank``, ``hybrid``: per street (SPEC §6).

Integer chips only. Equal splits give ``amount // k`` (in multiples of
``chip_unit``) and hand the rest out one piece per winner in seat order from
the first seat left of the button (or all of it to that first winner with
``odd_chips="first_winner"``); proportional splits round down and hand out
the remainder the same way.
"""
from __future__ import annotations

import dataclasses
from fractions import Fraction
from typing import Any

import numpy as np
from numba import njit, prange

from .bits import popcount64, trailing_zeros64

POLICIES = ("standard", "presence", "ratio_rank", "hybrid")
REASONS = ("ok", "negative_contrib", "no_live_seat", "orphan_chips", "seat_count", "bad_button")
OK, NEGATIVE_CONTRIB, NO_LIVE_SEAT, ORPHAN_CHIPS, SEAT_COUNT, BAD_BUTTON = range(6)
POT_NORMAL, POT_UNCALLED, POT_ORPHAN = 0, 1, 2
MAX_SEATS = 64
_CHUNK = 256
_ONE = np.uint64(1)
_MIN64 = np.iinfo(np.int64).min
_MAX64 = np.iinfo(np.int64).max


# ---------------------------------------------------------------- layering

@njit(cache=True, inline="always")
def _bit(s):
    return _ONE << np.uint64(s)


@njit(cache=True, inline="always")
def _member(mask, s):
    """All ones (int64 -1) when seat ``s`` is in ``mask``, else 0: a multiplier-free select."""
    return -np.int64((mask >> np.uint64(s)) & _ONE)


@njit(cache=True, inline="always")
def _put_pot(p, lo, hi, amount, mask, best, kind, pot_lo, pot_hi, pot_amount, pot_mask, pot_best, pot_kind):
    pot_lo[p] = lo
    pot_hi[p] = hi
    pot_amount[p] = amount
    pot_mask[p] = mask
    pot_best[p] = best
    pot_kind[p] = kind


@njit(cache=True, inline="always")
def _at_level(c, live, score, cur, floor):
    """One pass at level ``cur``: chips at or below it, the next live level below it (0 if none),
    the live seats at or above it, their best score, the top contribution of every other seat,
    and the chips at or below ``floor`` (the lowest live level, which then needs no pass).

    Masks, not branches or selects: which seats are live and where they stand is random.
    """
    low = np.int64(_MIN64)
    chips = np.int64(0)
    nxt = np.int64(0)
    elig = np.int64(0)
    best = low
    other_top = np.int64(0)
    chips_floor = np.int64(0)
    for s in range(c.shape[0]):
        v = c[s]
        lv = np.int64(live[s])
        up = np.int64(v >= cur)
        e = lv & up
        m = -e
        chips += min(v, cur)
        chips_floor += min(v, floor)
        nxt = max(nxt, v & -(lv & (up ^ 1)))
        elig |= e << s
        best = max(best, (score[s] & m) | (low & ~m))
        other_top = max(other_top, v & ~m)
    return chips, nxt, np.uint64(elig), best, other_top, chips_floor


@njit(cache=True, inline="always")
def _layer(c, live, score, special, use_special, trips_floor, with_winners, pot_lo, pot_hi, pot_amount,
           pot_mask, pot_best, pot_kind):
    """Pots of one contribution row ``c[S]`` (non-negative), main pot first; returns how many.

    Walks down the levels the live seats put in: between two of them every
    layer has the same eligible seats, so each gap is one pot (SPEC §5 merges
    them), except that the top live level, when one live seat alone reached
    it, splits into a called part and that seat's uncalled excess. Above the
    top live level, each layer is an orphan (only folded seats put that much
    in); its mask is its contributors. With ``with_winners``, ``pot_best``
    holds each pot's winners: its best eligible hands, or with ``use_special``
    its best 2-3-5s when its best hand is trips and it has an eligible
    off-suit 2-3-5 (SPEC §2.3); without, the per-street policies, which look
    at the hand's winners first, save that pass.
    Most tables have one live level and no orphan layer: the first pass
    settles them. At the lowest live level every live seat that put chips in
    is eligible, so that level needs no pass either.
    """
    S = c.shape[0]
    big = np.int64(_MAX64)
    low = np.int64(_MIN64)
    total = np.int64(0)
    top = np.int64(0)
    folded_top = np.int64(0)
    live_lo = big
    live_hi = np.int64(0)
    live_mask = np.int64(0)
    best = low
    for s in range(S):  # a live seat that put nothing in (all in on an earlier street) is in no pot
        v = c[s]
        lv = np.int64(live[s]) & np.int64(v > 0)
        m = -lv
        total += v
        top = max(top, v)
        live_lo = min(live_lo, (v & m) | (big & ~m))
        live_hi = max(live_hi, v & m)
        folded_top = max(folded_top, v & ~m)
        best = max(best, (score[s] & m) | (low & ~m))
        live_mask |= lv << s
    npots = 0
    cur = top
    while cur > live_hi:  # orphan layers, one per level a folded seat put in
        nxt = live_hi
        count = np.int64(0)
        added = np.int64(0)
        for s in range(S):
            v = c[s]
            up = np.int64(v >= cur)
            nxt = max(nxt, v & -(up ^ 1))
            count += up
            added |= up << s
        _put_pot(npots, nxt, cur, (cur - nxt) * count, np.uint64(added), 0, POT_ORPHAN,
                 pot_lo, pot_hi, pot_amount, pot_mask, pot_best, pot_kind)
        total -= (cur - nxt) * count
        npots += 1
        cur = nxt
    # the live levels, top down; pot_amount holds chips at or below the pot's top until the walk ends
    first = npots
    best_live = best
    chips_lo = total  # chips at or below live_lo; a pass at a higher level counts them
    while cur > 0:
        if cur == live_lo:  # every live seat put in at least cur: the first pass knows this level
            chips, nxt, elig, best, other_top = chips_lo, np.int64(0), np.uint64(live_mask), best_live, folded_top
        else:
            chips, nxt, elig, best, other_top, chips_lo = _at_level(c, live, score, cur, live_lo)
        won = _winners_at(elig, score, best, special, use_special, trips_floor) if with_winners else elig
        if popcount64(elig) == 1 and other_top < cur:  # nobody called the lone seat's excess
            called = max(other_top, nxt)
            _put_pot(npots, called, cur, chips, elig, won, POT_UNCALLED,
                     pot_lo, pot_hi, pot_amount, pot_mask, pot_best, pot_kind)
            npots += 1
            chips -= cur - called
            cur = called
            if cur == nxt:
                continue
        _put_pot(npots, nxt, cur, chips, elig, won, POT_NORMAL,
                 pot_lo, pot_hi, pot_amount, pot_mask, pot_best, pot_kind)
        npots += 1
        cur = nxt
    for p in range(first, npots):
        pot_amount[p] -= pot_amount[p + 1] if p + 1 < npots else 0
    for p in range(npots // 2):  # the walk made them top pot first
        q = npots - 1 - p
        pot_lo[p], pot_lo[q] = pot_lo[q], pot_lo[p]
        pot_hi[p], pot_hi[q] = pot_hi[q], pot_hi[p]
        pot_amount[p], pot_amount[q] = pot_amount[q], pot_amount[p]
        pot_mask[p], pot_mask[q] = pot_mask[q], pot_mask[p]
        pot_best[p], pot_best[q] = pot_best[q], pot_best[p]
        pot_kind[p], pot_kind[q] = pot_kind[q], pot_kind[p]
    return npots


@njit(cache=True, inline="always")
def _called_pot_count(c, live):
    """How many pots :func:`_layer` makes of row ``c``, or -1 when it has an orphan layer.

    For a caller that needs the count but not the pots: the distinct positive
    live levels, found top down one light pass each (the lowest needs none);
    a lone top seat's excess over everyone else is an uncalled pot of its
    own, and its called part merges with the level below unless a folded
    seat reached above that level.
    """
    S = c.shape[0]
    big = np.int64(_MAX64)
    live_hi = np.int64(0)
    live_lo = big
    folded_top = np.int64(0)
    n_live = 0
    for s in range(S):
        v = c[s]
        lv = np.int64(live[s]) & np.int64(v > 0)
        m = -lv
        live_hi = max(live_hi, v & m)
        live_lo = min(live_lo, (v & m) | (big & ~m))
        folded_top = max(folded_top, v & ~m)
        n_live += lv
    if folded_top > live_hi:
        return -1
    if live_hi == 0:
        return 0
    if live_lo == live_hi:
        return 2 if n_live == 1 and 0 < folded_top < live_hi else 1
    n_top = np.int64(0)
    nxt = np.int64(0)
    for s in range(S):
        v = c[s]
        lv = np.int64(live[s])
        n_top += lv & np.int64(v == live_hi)
        nxt = max(nxt, v & -(lv & np.int64(v < live_hi)))
    count = 2  # the top level and the lowest
    if n_top == 1 and nxt < folded_top < live_hi:  # a folded seat called part of the lone top seat's bet
        count += 1
    cur = nxt
    while cur > live_lo:
        count += 1
        below = np.int64(0)
        for s in range(S):
            v = c[s]
            below = max(below, v & -(np.int64(live[s]) & np.int64(v < cur)))
        cur = below
    return count


@njit(cache=True, inline="always")
def _share_in(c, lo, hi):
    """What a seat with contribution c put into the pot spanning levels (lo, hi]."""
    return min(max(c - lo, 0), hi - lo)


# ---------------------------------------------------------------- splitting

@njit(cache=True, inline="always")
def _split_equal(amount, mask, button, unit, first_winner, out):
    """Split ``amount`` equally among the seats in ``mask`` (SPEC §5.4 odd-chip rule)."""
    S = out.shape[0]
    k = np.int64(popcount64(mask))
    if k == 0 or amount == 0:
        return
    if k == 1:
        out[trailing_zeros64(mask)] += amount
        return
    share = (amount // (k * unit)) * unit
    rest = amount - share * k
    for s in range(S):
        out[s] += share * np.int64((mask >> np.uint64(s)) & _ONE)
    s = button
    while rest > 0:  # seats from the first left of the button; every pass meets a winner
        s = s + 1 if s + 1 < S else 0
        if mask & _bit(s):
            piece = rest if first_winner else min(unit, rest)
            out[s] += piece
            rest -= piece


@njit(cache=True)
def _muldiv(a, b, d):
    """floor(a * b / d) for non-negative int64 a, b and positive d, exact beyond 64 bits."""
    if a == 0 or b == 0:
        return np.int64(0)
    if a <= 9223372036854775807 // b:
        return (a * b) // d
    # 128-bit product by 32-bit limbs, then long division by d
    ua, ub = np.uint64(a), np.uint64(b)
    m32 = np.uint64(0xFFFFFFFF)
    s32 = np.uint64(32)
    a0, a1 = ua & m32, ua >> s32
    b0, b1 = ub & m32, ub >> s32
    p00, p01, p10, p11 = a0 * b0, a0 * b1, a1 * b0, a1 * b1
    mid = (p00 >> s32) + (p01 & m32) + (p10 & m32)
    lo = (p00 & m32) | ((mid & m32) << s32)
    hi = p11 + (p01 >> s32) + (p10 >> s32) + (mid >> s32)
    ud = np.uint64(d)
    q = np.uint64(0)
    r = np.uint64(0)
    for i in range(127, -1, -1):
        bit = (hi >> np.uint64(i - 64)) & _ONE if i >= 64 else (lo >> np.uint64(i)) & _ONE
        top = r >> np.uint64(63)
        r = (r << _ONE) | bit
        if top or r >= ud:
            r -= ud
            if i < 64:
                q |= _ONE << np.uint64(i)
    return np.int64(q)


@njit(cache=True)
def _split_proportional(amount, weights, mask, button, first_winner, out):
    """Split ``amount`` among ``mask`` seats in proportion to ``weights`` (round down, odd-chip rule)."""
    S = out.shape[0]
    total = np.int64(0)
    for s in range(S):
        if mask & _bit(s):
            total += weights[s]
    if amount == 0 or total == 0:
        return amount
    given = np.int64(0)
    for s in range(S):
        if mask & _bit(s):
            part = _muldiv(amount, weights[s], total)
            out[s] += part
            given += part
    rest = amount - given
    s = button
    while rest > 0:  # fewer than one chip per weighted seat is left
        s = s + 1 if s + 1 < S else 0
        if mask & _bit(s) and weights[s] > 0:
            piece = rest if first_winner else 1
            out[s] += piece
            rest -= piece
    return np.int64(0)


@njit(cache=True, inline="always")
def _best_of(mask, score):
    """Bitmask of the seats in ``mask`` with the highest score (in arithmetic: seats are random)."""
    return _seats_at(mask, score, _best_score(mask, score))


@njit(cache=True, inline="always")
def _best_score(mask, score):
    low = np.int64(_MIN64)
    best = low
    for s in range(score.shape[0]):
        m = _member(mask, s)
        best = max(best, (score[s] & m) | (low & ~m))
    return best


@njit(cache=True, inline="always")
def _seats_at(mask, score, best):
    """Bitmask of the seats in ``mask`` whose score is ``best``."""
    won = np.uint64(0)
    for s in range(score.shape[0]):
        won |= (((mask >> np.uint64(s)) & _ONE) & np.uint64(score[s] == best)) << np.uint64(s)
    return won


@njit(cache=True, inline="always")
def _pot_winners(mask, score, special, use_special, trips_floor):
    """Best eligible seats; with the 2-3-5 rule, eligible 2-3-5s beat eligible best trips."""
    return _winners_at(mask, score, _best_score(mask, score), special, use_special, trips_floor)


@njit(cache=True, inline="always")
def _winners_at(mask, score, best, special, use_special, trips_floor):
    """:func:`_pot_winners` when the best score among ``mask`` is known."""
    won = _seats_at(mask, score, best)
    if use_special and won:
        S = score.shape[0]
        if best >= trips_floor:
            spec = np.uint64(0)
            for s in range(S):
                spec |= np.uint64(special[s]) << np.uint64(s)
            spec &= mask
            if spec:
                return _best_of(spec, score)
    return won


# ---------------------------------------------------------------- policies

@njit(cache=True, inline="always")
def _standard(c, live, score, special, use_special, trips_floor, button, unit, first_winner,
              refund, rake_num, rake_den, rake_cap, no_rake, lo, hi, amt, mask, won, kind,
              out, pot_rake):
    """One table, SPEC §5. Returns (status, rake, npots); pot arrays hold the detail."""
    npots = _layer(c, live, score, special, use_special, trips_floor, True, lo, hi, amt, mask, won, kind)
    raked_total = np.int64(0)
    for p in range(npots):
        if kind[p] == POT_ORPHAN and not refund:
            return ORPHAN_CHIPS, np.int64(0), npots
        if kind[p] == POT_NORMAL:
            raked_total += amt[p]
    rake = np.int64(0)
    if rake_num > 0 and not no_rake:
        rake = _muldiv(raked_total, rake_num, rake_den)
        if rake_cap >= 0:
            rake = min(rake, rake_cap)
    left = rake
    for p in range(npots):
        pot_rake[p] = 0
        if kind[p] == POT_NORMAL:
            if left > 0:
                take = min(left, amt[p])
                pot_rake[p] = take
                amt[p] -= take
                left -= take
            _split_equal(amt[p], won[p], button, unit, first_winner, out)
        elif kind[p] == POT_UNCALLED:
            _split_equal(amt[p], mask[p], button, unit, first_winner, out)
            won[p] = mask[p]
        else:  # an orphan layer, refunded to its contributors, folded ones included
            for s in range(c.shape[0]):
                out[s] += _share_in(c[s], lo[p], hi[p])
            won[p] = mask[p]
    return OK, rake, npots


@njit(cache=True, inline="always")
def _hand_winners(live, score, special, use_special, trips_floor):
    S = live.shape[0]
    lm = np.uint64(0)
    for s in range(S):
        lm |= np.uint64(live[s]) << np.uint64(s)
    return _pot_winners(lm, score, special, use_special, trips_floor), lm


@njit(cache=True)
def _to_loser_groups(remaining, weights, losers, score, button, first_winner, out):
    """Hand ``remaining`` to loser groups best first (SPEC §6 ratio_rank); returns what is left."""
    left_mask = losers
    while left_mask and remaining > 0:
        group = _best_of(left_mask, score)
        left_mask &= ~group
        if popcount64(group) == 1:  # the common case: a proportional split to one seat is all of it
            s = trailing_zeros64(group)
            take = min(weights[s], remaining)
            out[s] += take
            remaining -= take
            continue
        need = np.int64(0)
        for s in range(out.shape[0]):
            need += weights[s] & _member(group, s)
        if need <= remaining:
            for s in range(out.shape[0]):
                out[s] += weights[s] & _member(group, s)
            remaining -= need
        else:
            remaining = _split_proportional(remaining, weights, group, button, first_winner, out)
    return remaining


@njit(cache=True, inline="always")
def _rest_to_best(remaining, c, live, score, button, unit, first_winner, out):
    """Chips no winner or loser group could take go to the best live seats that put chips in the street."""
    if remaining > 0:
        contributors = np.uint64(0)
        for s in range(c.shape[0]):
            contributors |= np.uint64(live[s] & (c[s] > 0)) << np.uint64(s)
        _split_equal(remaining, _best_of(contributors, score), button, unit, first_winner, out)


@njit(cache=True, inline="always")
def _street(policy, c, total, live, score, special, winners, live_mask, button, unit, first_winner,
            refund, detail, lo, hi, amt, mask, best, kind, pot_won, weights, out):
    """One street of one table under presence (1), ratio_rank (2) or hybrid (3). Returns (status, npots).

    ``total``: the street's chips. ``ratio_rank`` shares the whole street, so
    unless its pots are wanted (``detail``) or it has orphan layers, it only
    counts them.
    """
    S = c.shape[0]
    npots = _called_pot_count(c, live) if policy == 2 and not detail else -1
    if npots < 0:
        npots = _layer(c, live, score, special, False, 0, False, lo, hi, amt, mask, best, kind)
        for p in range(npots):
            pot_won[p] = 0
            if kind[p] == POT_ORPHAN:
                if not refund:
                    return ORPHAN_CHIPS, npots
                for s in range(S):
                    out[s] += _share_in(c[s], lo[p], hi[p])
                pot_won[p] = mask[p]
                total -= amt[p]
    if total == 0:
        return OK, npots
    if policy == 2:  # ratio_rank over the whole street
        remaining = total
        if popcount64(winners) == 1:  # the common case, without the weights
            w = trailing_zeros64(winners)
            stake = np.int64(0)
            for q in range(S):
                stake += min(c[w], c[q])
            take = min(stake, total)
            out[w] += take
            remaining -= take
        else:
            stake_sum = np.int64(0)
            for s in range(S):
                weights[s] = 0
            for s in range(S):
                if winners & _bit(s):
                    st = np.int64(0)
                    for q in range(S):
                        st += min(c[s], c[q])
                    weights[s] = st
                    stake_sum += st
            if stake_sum >= total:
                remaining = _split_proportional(total, c, winners, button, first_winner, out)
            else:
                for s in range(S):
                    if winners & _bit(s):
                        out[s] += weights[s]
                        remaining -= weights[s]
        if remaining > 0:  # a call (not inlined: it has array arguments) only when the winners left chips
            remaining = _to_loser_groups(remaining, c, live_mask & ~winners, score, button, first_winner, out)
        _rest_to_best(remaining, c, live, score, button, unit, first_winner, out)
        return OK, npots
    # presence and hybrid: pots some winner is eligible for go to those winners. In the others the
    # live contributors take back their part: for hybrid that is its loser groups' share, which
    # always fits (those pots hold their parts plus folded seats' chips), so their order is moot.
    # The folded chips go to the pot's best (presence) or once to the street's best (hybrid).
    folded_rest = np.int64(0)
    for p in range(npots):
        if kind[p] == POT_ORPHAN:
            continue
        won = mask[p] & winners
        if won:
            _split_equal(amt[p], won, button, unit, first_winner, out)
            pot_won[p] = won
            continue
        back = np.int64(0)
        for s in range(S):
            part = _share_in(c[s], lo[p], hi[p]) & _member(mask[p], s)
            out[s] += part
            back += part
        if back < amt[p]:
            if policy == 1:
                _split_equal(amt[p] - back, _best_of(mask[p], score), button, unit, first_winner, out)
            else:
                folded_rest += amt[p] - back
        pot_won[p] = mask[p]
    _rest_to_best(folded_rest, c, live, score, button, unit, first_winner, out)
    return OK, npots


@njit(cache=True, inline="always")
def _load_table(contrib, live, score, t, button, lv, sc, flat, out):
    """Copy table ``t`` into scratch (its contributions summed over streets into ``flat``), zero
    ``out``, and return its reason code; no branches over the seats."""
    _, K, S = contrib.shape
    any_live = False
    negative = False
    for s in range(S):
        v = live[t, s]
        lv[s] = v
        any_live |= v
        sc[s] = score[t, s]
        out[s] = 0
    for s in range(S):  # street by street, in memory order: simple loops vectorize
        c = contrib[t, 0, s]
        negative |= c < 0
        flat[s] = c
    for k in range(1, K):
        for s in range(S):
            c = contrib[t, k, s]
            negative |= c < 0
            flat[s] += c
    if button < 0 or button >= S:
        return BAD_BUTTON
    if negative:
        return NEGATIVE_CONTRIB
    if not any_live:
        return NO_LIVE_SEAT
    return OK


@njit(cache=True, inline="always")
def _keep_pots(t, k, n, lo, hi, amt, prk, mask, won, kind, pot_amount, pot_rake, pot_mask, pot_won, pot_kind,
               pot_lo, pot_hi):
    for p in range(n):
        pot_amount[t, k, p] = amt[p]
        pot_rake[t, k, p] = prk[p]
        pot_mask[t, k, p] = mask[p]
        pot_won[t, k, p] = won[p]
        pot_kind[t, k, p] = kind[p]
        pot_lo[t, k, p] = lo[p]
        pot_hi[t, k, p] = hi[p]


@njit(cache=True, parallel=True)
def _settle_kernel(policy, contrib, live, score, button, special, use_special, trips_floor, unit,
                   first_winner, refund, rake_num, rake_den, rake_cap, no_rake, detail, payout, status,
                   rake, npots, pot_amount, pot_rake, pot_mask, pot_won, pot_kind, pot_lo, pot_hi):
    """Settle every table; ``contrib[T, K, S]`` (K = 1 for standard). Bad tables get status != 0, payout 0.

    Each table's row is copied into per-chunk scratch first: slicing a row
    (``live[t]``) makes a reference-counted view, and those counts cost more
    than the settlement. Pots go to the ``pot_*`` outputs ``[T, K, S]`` only
    when ``detail`` is set (otherwise those are ``[1, 1, 1]``).
    """
    T, K, S = contrib.shape
    for c0 in prange((T + _CHUNK - 1) // _CHUNK):
        flat = np.empty(S, np.int64)
        lv = np.empty(S, np.bool_)
        sc = np.empty(S, np.int64)
        sp = np.zeros(S, np.bool_)
        out = np.empty(S, np.int64)
        weights = np.empty(S, np.int64)
        lo = np.empty(S, np.int64)
        hi = np.empty(S, np.int64)
        amt = np.empty(S, np.int64)
        prk = np.zeros(S, np.int64)
        mask = np.empty(S, np.uint64)
        won = np.empty(S, np.uint64)
        best = np.empty(S, np.uint64)
        kind = np.empty(S, np.int8)
        for t in range(c0 * _CHUNK, min(T, (c0 + 1) * _CHUNK)):
            bt = button[t]
            code = _load_table(contrib, live, score, t, bt, lv, sc, flat, out)
            if code != OK:
                for s in range(S):
                    payout[t, s] = 0
                status[t] = code
                continue
            if use_special:
                for s in range(S):
                    sp[s] = special[t, s]
            if policy == 0:
                code, r, n = _standard(flat, lv, sc, sp, use_special, trips_floor, bt, unit, first_winner,
                                       refund, rake_num, rake_den, rake_cap,
                                       no_rake[t if no_rake.shape[0] > 1 else 0], lo, hi, amt, mask,
                                       won, kind, out, prk)
                rake[t] = r
                npots[t] = n
                if detail and code == OK:
                    _keep_pots(t, 0, n, lo, hi, amt, prk, mask, won, kind, pot_amount, pot_rake, pot_mask,
                               pot_won, pot_kind, pot_lo, pot_hi)
            else:
                winners, live_mask = _hand_winners(lv, sc, sp, use_special, trips_floor)
                total_pots = 0
                for k in range(K):
                    street_total = np.int64(0)
                    for s in range(S):
                        v = contrib[t, k, s]
                        flat[s] = v
                        street_total += v
                    if street_total == 0:  # a street nobody bet on has no pot
                        continue
                    code, n = _street(policy, flat, street_total, lv, sc, sp, winners, live_mask, bt, unit,
                                      first_winner, refund, detail, lo, hi, amt, mask, best, kind, won, weights, out)
                    total_pots += n
                    if code != OK:
                        break
                    if detail:
                        _keep_pots(t, k, n, lo, hi, amt, prk, mask, won, kind, pot_amount, pot_rake, pot_mask,
                                   pot_won, pot_kind, pot_lo, pot_hi)
                if detail and code != OK:
                    for k in range(K):
                        for p in range(S):
                            pot_amount[t, k, p] = 0
                            pot_mask[t, k, p] = 0
                            pot_won[t, k, p] = 0
                            pot_kind[t, k, p] = 0
                            pot_lo[t, k, p] = 0
                            pot_hi[t, k, p] = 0
                rake[t] = 0
                npots[t] = total_pots
            ok = code == OK
            for s in range(S):
                payout[t, s] = out[s] if ok else 0
            status[t] = code


# ---------------------------------------------------------------- wrappers

@dataclasses.dataclass
class Settlement:
    """Everything a settlement computed, for audits and display.

    ``payout[T, S]``; ``rake[T]``; ``pots[T]`` (number of pots, all streets);
    per street k and pot p (``[T, K, S]``, K = 1 for ``standard``; pots beyond
    ``pot_count`` are unused): ``pot_amount`` (after rake), ``pot_rake``,
    ``pot_eligible`` and ``pot_winners`` (seat bitmasks: bit s = seat s; an
    orphan pot's eligible mask is its contributors), ``pot_kind`` (0 normal,
    1 uncalled bet, 2 refunded orphan layer), ``pot_levels`` ``[T, K, S, 2]``.
    """

    payout: np.ndarray
    rake: np.ndarray
    pots: np.ndarray
    pot_count: np.ndarray
    pot_amount: np.ndarray
    pot_rake: np.ndarray
    pot_eligible: np.ndarray
    pot_winners: np.ndarray
    pot_kind: np.ndarray
    pot_levels: np.ndarray
    status: np.ndarray

    @property
    def net(self) -> np.ndarray:
        return self.payout - self._contrib_total

    _contrib_total: np.ndarray = dataclasses.field(default=None, repr=False)


def _as_rate(pct: Any) -> tuple[int, int]:
    if pct is None:
        return 0, 1
    frac = Fraction(str(pct)) if isinstance(pct, float) else Fraction(pct)
    if frac < 0 or frac > 1:
        raise ValueError(f"rake_pct must be in 0..1, got {pct}")
    return frac.numerator, frac.denominator


def _prepare(contrib: Any, live: Any, score: Any, button: Any, policy: str):
    if policy not in POLICIES:
        raise ValueError(f"policy must be one of {', '.join(POLICIES)}, got {policy!r}")
    c = np.asarray(contrib)
    if c.dtype.kind not in "ui" and not (c.dtype.kind == "f" and c.size == 0):
        raise ValueError(f"contrib must be integers (chips), got dtype {c.dtype}")
    if c.ndim == 2:
        c = c[:, None, :]
    if c.ndim != 3:
        raise ValueError(f"contrib must be [T, S] or [T, K, S], got shape {np.shape(contrib)}")
    T, K, S = c.shape
    if S > MAX_SEATS:
        raise ValueError(f"at most {MAX_SEATS} seats per table, got {S}")
    if c.dtype == np.uint64 and (c > _MAX64).any():
        raise ValueError("contrib does not fit int64")
    lv = np.asarray(live)
    if lv.shape != (T, S):
        raise ValueError(f"live must be [T, S] = {(T, S)}, got {lv.shape}")
    if lv.dtype != np.bool_:
        if lv.dtype.kind not in "uib":
            raise ValueError(f"live must be booleans, got dtype {lv.dtype}")
        lv = lv != 0
    sc = np.asarray(score)
    if sc.shape != (T, S) or sc.dtype.kind not in "ui":
        raise ValueError(f"score must be integers [T, S] = {(T, S)}, got {sc.dtype} {sc.shape}")
    if sc.dtype == np.uint64 and (sc > _MAX64).any():
        raise ValueError("score does not fit int64")
    bt = np.broadcast_to(np.asarray(button), (T,))
    if bt.dtype.kind not in "ui":
        raise ValueError(f"button must be integers, got dtype {bt.dtype}")
    return (np.ascontiguousarray(c, dtype=np.int64), np.ascontiguousarray(lv),
            np.ascontiguousarray(sc, dtype=np.int64), np.ascontiguousarray(bt, dtype=np.int64))


def settle_detailed(contrib: Any, live: Any, score: Any, button: Any, policy: str = "standard", *,
                    rake_pct: Any = None, rake_cap: int | None = None, no_flop_no_drop: Any = None,
                    chip_unit: int = 1, odd_chips: str = "button", orphan_chips: str = "error",
                    special: Any = None, trips_floor: int | None = None,
                    raise_on_error: bool = True, detail: bool = True, out: np.ndarray | None = None) -> Settlement:
    """Settle tables and keep every pot (see :class:`Settlement`); options as :func:`settle`.

    With ``raise_on_error=False`` bad tables are not raised: their ``status``
    holds a code from :data:`REASONS` and their payouts are 0 (the batch
    driver sets them aside). ``detail=False`` skips the per-pot arrays
    (what :func:`settle` uses: they cost more than the settlement). ``out``:
    an ``int64[T, S]`` array for the payouts (reuse it across batches: a
    fresh one is page-faulted in by the kernel, serially, which costs more
    than settling on two cores).
    """
    c, lv, sc, bt = _prepare(contrib, live, score, button, policy)
    T, K, S = c.shape
    if policy == "standard":
        K_pots = 1
    else:
        K_pots = K
    if odd_chips not in ("button", "first_winner"):
        raise ValueError(f"odd_chips must be 'button' or 'first_winner', got {odd_chips!r}")
    if orphan_chips not in ("error", "refund"):
        raise ValueError(f"orphan_chips must be 'error' or 'refund', got {orphan_chips!r}")
    if isinstance(chip_unit, bool) or not isinstance(chip_unit, (int, np.integer)) or chip_unit < 1:
        raise ValueError(f"chip_unit must be a positive integer, got {chip_unit!r}")
    num, den = _as_rate(rake_pct)
    if num and policy != "standard":
        raise ValueError("rake is defined for the standard policy only")
    cap = -1 if rake_cap is None else int(rake_cap)
    if rake_cap is not None and cap < 0:
        raise ValueError(f"rake_cap must be >= 0, got {rake_cap}")
    if no_flop_no_drop is None:
        nfnd = np.zeros(1, np.bool_)
    else:
        nfnd = np.ascontiguousarray(np.broadcast_to(np.asarray(no_flop_no_drop, dtype=bool), (T,)))
    use_special = special is not None
    if use_special:
        sp = np.ascontiguousarray(np.asarray(special, dtype=bool))
        if sp.shape != (T, S):
            raise ValueError(f"special must be [T, S] = {(T, S)}, got {sp.shape}")
        if trips_floor is None:
            from .threecard import _trips_floor, rules_of
            trips_floor = _trips_floor(rules_of("zjh"))
    else:
        sp = np.zeros((1, S), np.bool_)
        trips_floor = 0
    if out is None:
        payout = np.empty((T, S), np.int64)
    elif (not isinstance(out, np.ndarray) or out.dtype != np.int64 or out.shape != (T, S)
          or not out.flags.c_contiguous):
        raise ValueError(f"out must be a contiguous int64[{T}, {S}] array")
    else:
        payout = out
    status = np.zeros(T, np.uint8)
    rake = np.zeros(T, np.int64)
    npots = np.zeros(T, np.int64)
    shape = (T, K_pots, S) if detail else (1, 1, 1)
    pot_amount = np.zeros(shape, np.int64)
    pot_rake = np.zeros(shape, np.int64)
    pot_mask = np.zeros(shape, np.uint64)
    pot_won = np.zeros(shape, np.uint64)
    pot_kind = np.zeros(shape, np.int8)
    pot_lo = np.zeros(shape, np.int64)
    pot_hi = np.zeros(shape, np.int64)
    _settle_kernel(POLICIES.index(policy), c, lv, sc, bt, sp, use_special, np.int64(trips_floor),
                   np.int64(chip_unit), odd_chips == "first_winner", orphan_chips == "refund",
                   np.int64(num), np.int64(den), np.int64(cap), nfnd, detail, payout, status, rake, npots,
                   pot_amount, pot_rake, pot_mask, pot_won, pot_kind, pot_lo, pot_hi)
    if raise_on_error and status.any():
        t = int(np.flatnonzero(status)[0])
        raise ValueError(f"settle: table {t} is invalid ({REASONS[status[t]]}): "
                         f"contrib {c[t].tolist() if K > 1 else c[t, 0].tolist()}, live {lv[t].astype(int).tolist()}, "
                         f"button {int(bt[t])}")
    if not detail:
        return Settlement(payout=payout, rake=rake, pots=npots, pot_count=None, pot_amount=None,
                          pot_rake=None, pot_eligible=None, pot_winners=None, pot_kind=None,
                          pot_levels=None, status=status, _contrib_total=None)
    # pots are packed from slot 0 and every used pot has a positive upper level
    pot_count = (pot_hi > 0).sum(axis=2)
    return Settlement(payout=payout, rake=rake, pots=npots, pot_count=pot_count, pot_amount=pot_amount,
                      pot_rake=pot_rake, pot_eligible=pot_mask, pot_winners=pot_won, pot_kind=pot_kind,
                      pot_levels=np.stack([pot_lo, pot_hi], axis=-1), status=status,
                      _contrib_total=c.sum(axis=1))


def settle(contrib: Any, live: Any, score: Any, button: Any, policy: str = "standard",
           out: np.ndarray | None = None, **options: Any) -> np.ndarray:
    """Chips each seat receives, ``int64[T, S]``.

    ``contrib``: chips each seat put in, ``[T, S]`` or per street
    ``[T, K, S]``; ``live``: reached showdown; ``score``: hand values (higher
    wins; ignored where not live); ``button``: seat index per table.
    ``policy``: ``standard`` (SPEC §5, ignores streets), ``presence``,
    ``ratio_rank``, ``hybrid`` (SPEC §6).

    Options: ``rake_pct`` (a fraction, exact: 0.05 is 1/20) and ``rake_cap``
    (per hand) — standard only; ``no_flop_no_drop`` (bool per table: no rake
    where True); ``chip_unit``; ``odd_chips`` = ``"button"`` | ``"first_winner"``;
    ``orphan_chips`` = ``"error"`` | ``"refund"``; ``special`` (bool ``[T, S]``,
    off-suit 2-3-5 hands) with ``trips_floor`` (smallest trips value) for the
    three-card rule that 2-3-5 beats trips. ``out``: an ``int64[T, S]`` array
    to write the payouts into (numpy-style; reuse it across batches). Raises
    ``ValueError`` naming the first invalid table and its reason code.
    """
    return settle_detailed(contrib, live, score, button, policy, detail=False, out=out, **options).payout


def validate(contrib: Any, live: Any, score: Any, button: Any, policy: str = "standard",
             orphan_chips: str = "error") -> np.ndarray:
    """Reason code per table (index into :data:`REASONS`; 0 = ok), without raising."""
    return settle_detailed(contrib, live, score, button, policy, orphan_chips=orphan_chips,
                           raise_on_error=False, detail=False).status
