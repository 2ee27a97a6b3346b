"""Pot layering (docs: Rules, pots): one row of contributions to its pots, main pot first.

Levels are the distinct positive contributions; a layer holds
``(L[k] - L[k-1]) * (seats with contrib >= L[k])`` chips; its eligible seats
are the live seats with ``contrib >= L[k]``; adjacent layers of the same kind
with the same eligible set merge into one pot. Kinds: a normal pot, an
uncalled bet (one contributor, who is live: returned, never raked) and an
orphan layer (no live contributor: invalid, or refunded on request).

:func:`layer` does not build every layer: it walks down the distinct
contributions of the live seats, one pass over the seats each. Between two of
them every layer has the same eligible seats, so the gap is one pot; at the
top, a lone live seat's excess splits off as its uncalled bet; above the
highest live contribution each layer is an orphan of its own. Most tables
have one live level and no orphan layer, so the first pass settles them.

Dead money (docs: Rules, dead money) is a pot of its own, set before the layers by
:func:`add_dead_pot` once :func:`layer` has layered the live chips
(``contrib - dead``): its eligible seats are the live seats that put any chip
in, so a seat whose chips are all dead can win it and nothing else; it merges
into the main pot when both have the same kind and eligible seats. Its levels
are ``(0, 0)``: it spans no live level.
"""

# Pots are written into scratch arrays, one slot per pot: ``lo``, ``hi`` (levels), ``amount``, ``mask`` (eligible
# seats), ``best`` (winners), ``kind``. They travel as separate arguments, not as one tuple: a tuple of scratch arrays
# has to be built inside the driver's parallel loop, which numba 0.68 miscompiled (garbage payouts), and unpacking it
# in these per-pot helpers cost reference counts (about 14 % of ``standard`` on one thread).

from __future__ import annotations

import numpy as np
from numba import njit

from ..bits import popcount64
from .winners import best_score, winners_at

POT_NORMAL, POT_UNCALLED, POT_ORPHAN = 0, 1, 2
_MIN64 = np.iinfo(np.int64).min
_MAX64 = np.iinfo(np.int64).max


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
def layer(
    c,
    live,
    score,
    special,
    use_special,
    trips_floor,
    with_winners,
    pot_lo,
    pot_hi,
    pot_amount,
    pot_mask,
    pot_best,
    pot_kind,
):
    """Pots of one contribution row ``c[S]`` (non-negative) into the ``pot_*`` arrays, main pot first;
    returns how many.

    With ``with_winners``, each pot's ``best`` slot holds its winners: its
    best eligible hands, or with ``use_special`` its best 2-3-5s when its best
    hand is trips and it has an eligible off-suit 2-3-5 (docs: Rules, the 2-3-5 rule); without,
    the per-street policies, which look at the hand's winners first, save
    that pass. At the lowest live level every live seat that put chips in is
    eligible, so that level needs no pass either.
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
        _put_pot(
            npots,
            nxt,
            cur,
            (cur - nxt) * count,
            np.uint64(added),
            0,
            POT_ORPHAN,
            pot_lo,
            pot_hi,
            pot_amount,
            pot_mask,
            pot_best,
            pot_kind,
        )
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
        won = winners_at(elig, score, best, special, use_special, trips_floor) if with_winners else elig
        if popcount64(elig) == 1 and other_top < cur:  # nobody called the lone seat's excess
            called = max(other_top, nxt)
            _put_pot(
                npots,
                called,
                cur,
                chips,
                elig,
                won,
                POT_UNCALLED,
                pot_lo,
                pot_hi,
                pot_amount,
                pot_mask,
                pot_best,
                pot_kind,
            )
            npots += 1
            chips -= cur - called
            cur = called
            if cur == nxt:
                continue
        _put_pot(
            npots, nxt, cur, chips, elig, won, POT_NORMAL, pot_lo, pot_hi, pot_amount, pot_mask, pot_best, pot_kind
        )
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
def called_pot_count(c, live):
    """How many pots :func:`layer` makes of row ``c``, or -1 when it has an orphan layer.

    For a caller that needs the count but not the pots: the distinct positive
    live levels, found top down one light pass each (the lowest needs none);
    a lone top seat's excess over everyone else is an uncalled pot of its
    own, and its called part merges with the level below unless a folded
    seat reached above that level.
    """
    # A ``count_only`` flag on :func:`layer` instead measured 282 -> 368 ns per 4-street ratio_rank
    # table (and slowed presence, which then inlines two copies of it), so the two are tied by a test
    # rather than merged.
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
def share_in(c, lo, hi):
    """What a seat with contribution c put into the pot spanning levels (lo, hi]."""
    return min(max(c - lo, 0), hi - lo)


@njit(cache=True, inline="always")
def add_dead_pot(
    c, dead, dead_total, live, score, special, use_special, trips_floor, npots, lo, hi, amt, mask, won, kind
):
    """Put the dead chips (``dead_total`` > 0; ``c`` holds the live chips) in front of the ``npots``
    pots of :func:`layer`, or into its main pot when they agree; returns the new pot count.

    Kind: an orphan when no live seat put chips in (its mask: the seats with
    dead chips); uncalled when its one eligible seat is the only one with dead
    chips (its own chips back, never raked); else a normal pot.
    """
    elig = np.int64(0)
    posted = np.int64(0)
    for s in range(c.shape[0]):
        elig |= (np.int64(live[s]) & np.int64(c[s] + dead[s] > 0)) << s
        posted |= np.int64(dead[s] > 0) << s
    e = np.uint64(elig)
    if elig == 0:
        k, e, w = POT_ORPHAN, np.uint64(posted), np.uint64(0)
    else:
        k = POT_UNCALLED if elig == posted and popcount64(e) == 1 else POT_NORMAL
        w = winners_at(e, score, best_score(e, score), special, use_special, trips_floor)
        if npots > 0 and kind[0] == k and mask[0] == e:
            amt[0] += dead_total
            return npots
    for p in range(npots, 0, -1):
        _put_pot(
            p, lo[p - 1], hi[p - 1], amt[p - 1], mask[p - 1], won[p - 1], kind[p - 1], lo, hi, amt, mask, won, kind
        )
    _put_pot(0, 0, 0, dead_total, e, w, k, lo, hi, amt, mask, won, kind)
    return npots + 1
