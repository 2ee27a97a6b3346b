"""The four distribution policies: what each pot (or street) pays to whom.

- ``standard`` (docs: Rules): each pot to its best eligible hands, with rake;
  an uncalled bet goes back to its seat; dead chips are a pot of their own
  (step 7), in front of the others or merged into the main pot.
- ``presence``, ``ratio_rank``, ``hybrid`` (docs: Rules): every street is its own
  pot family; the hand's winners W (the live seats with the best score) take
  the pots or the stakes they reached, the other live seats ("losers", in
  groups of equal score) what is left, and chips no one could take go to the
  best live contributors of that layer (``presence``) or street (the other
  two, orphan layers included: only a street no live seat put chips in is
  ``orphan_chips``).

Each policy is a routine for one table (``standard``) or one street of one
table (``street``) over the scratch arrays of the driver (as separate
arguments: see :mod:`.layering`); both take the lowered rules, scalars only,
as one :class:`KernelRules` tuple (named fields for readers; the kernels index
and unpack it by position, as numba does any tuple).
"""

from __future__ import annotations

import enum
from typing import NamedTuple

import numpy as np
from numba import njit

from cardbatch.constants import POLICIES

from ..bits import popcount64, seat_bit, seat_in, trailing_zeros64
from ..reasons import OK, ORPHAN_CHIPS
from .layering import POT_NORMAL, POT_ORPHAN, POT_UNCALLED, add_dead_pot, called_pot_count, layer, share_in
from .splitting import muldiv, split_equal, split_proportional
from .winners import best_of, best_score, seats_at, winners_at


class KernelRules(NamedTuple):
    """:class:`~cardbatch.kernels.pots.Options` lowered to the scalars the kernels read."""

    use_special: bool  # the three-card 2-3-5 exception applies
    trips_floor: np.int64  # the smallest trips value (with use_special)
    unit: np.int64  # the smallest chip an equal split hands out
    first_winner: bool  # odd chips all to the first winner left of the button
    refund: bool  # orphan layers go back to their contributors
    rake_num: np.int64  # the rake, an exact fraction
    rake_den: np.int64
    rake_cap: np.int64  # -1: no cap
    detail: bool  # keep every pot for settle_detailed


class Policy(enum.IntEnum):
    """How a settlement distributes the chips (the kernels see the integer)."""

    STANDARD = 0
    PRESENCE = 1
    RATIO_RANK = 2
    HYBRID = 3


if POLICIES != tuple(p.name.lower() for p in Policy):  # the names are cardbatch.constants', the codes here
    raise ImportError("cardbatch.constants.POLICIES and the Policy enum disagree")
# plain ints for the kernels: numba freezes module globals as compile-time constants
STANDARD, PRESENCE, RATIO_RANK, HYBRID = (int(p) for p in Policy)
PER_STREET = {"presence": PRESENCE, "ratio_rank": RATIO_RANK, "hybrid": HYBRID}  # what :func:`street` settles


def per_street_code(policy: Policy | str) -> np.int64:
    """The code :func:`street` (and the per-street kernel) takes for ``policy``, a :class:`Policy` or
    its name; ``ValueError`` naming any other value, so that no policy is settled by another's rule."""
    name = policy.name.lower() if isinstance(policy, Policy) else policy
    if name not in PER_STREET:
        raise ValueError(f"{policy!r} is not a per-street policy (one of {', '.join(PER_STREET)})")
    return np.int64(PER_STREET[name])


@njit(cache=True, inline="always")
def standard(c, no_dead, live, score, special, button, no_rake, rules, lo, hi, amt, mask, won, kind, pot_rake, out):
    """One table without dead money and without high/low halves (docs: Rules). Returns (status, rake,
    npots); the pot arrays and ``pot_rake`` hold the detail. ``no_dead``: an empty array (the
    signature is :func:`standard_dead`'s)."""
    use_special, trips_floor = rules[0], rules[1]
    npots = layer(c, live, score, special, use_special, trips_floor, True, lo, hi, amt, mask, won, kind)
    return _pay(c, no_dead, no_dead, _whole, npots, button, no_rake, rules, lo, hi, amt, mask, won, kind, pot_rake, out)


@njit(cache=True, inline="always")
def standard_dead(
    c, dead, low, live, score, special, button, no_rake, rules, lo, hi, amt, mask, won, kind, pot_rake, out
):
    """:func:`standard` for a table with dead chips (step 7) or high/low halves: ``dead``, part of ``c``,
    which this turns into the live chips, is a pot of its own in front of the layers' (or in the main
    pot); ``low``: each seat's low (higher wins, 0 none), or empty for a game without lows."""
    use_special, trips_floor = rules[0], rules[1]
    dead_total = np.int64(0)
    for s in range(dead.shape[0]):
        dead_total += dead[s]
        c[s] -= dead[s]
    npots = layer(c, live, score, special, use_special, trips_floor, True, lo, hi, amt, mask, won, kind)
    if dead_total > 0:
        npots = add_dead_pot(
            c, dead, dead_total, live, score, special, use_special, trips_floor, npots, lo, hi, amt, mask, won, kind
        )
    return _pay(
        c, dead, low, _split_high_low, npots, button, no_rake, rules, lo, hi, amt, mask, won, kind, pot_rake, out
    )


@njit(cache=True, inline="always")
def standard_layers(c, live, score, special, rules, lo, hi, amt, mask, won, kind):
    """The pots of a table without dead chips, as :func:`standard_dead` layers them, without their
    winners: for a caller that pays the same pots for many hands (:func:`standard_raked`, then
    :func:`standard_layered` per hand)."""
    return layer(c, live, score, special, rules[0], rules[1], False, lo, hi, amt, mask, won, kind)


@njit(cache=True, inline="always")
def standard_raked(c, npots, button, rules, lo, hi, amt, mask, won, kind, pot_rake, out):
    """What :func:`standard_dead` pays of :func:`standard_layers`' pots whoever wins: the rake, taken
    from ``amt`` in place, and the uncalled bets and refunded layers, added to ``out``. Returns
    (status, rake). The rest is each normal pot's ``amt`` to its winners (:func:`standard_layered`)."""
    empty = c[:0]
    return _raked(c, empty, npots, button, False, rules, lo, hi, amt, mask, won, kind, pot_rake, out)


@njit(cache=True, inline="always")
def standard_layered(score, special, button, rules, npots, amt, mask, won, kind, out):
    """The normal pots of :func:`standard_raked` (``amt`` after rake) to their winners for these
    scores, added to ``out``: with what that paid, the table's payouts as :func:`standard_dead`
    would have made them. Called once per hand (per order of the seats, in the equity walk)."""
    use_special, trips_floor, unit, first_winner = rules[0], rules[1], rules[2], rules[3]
    for p in range(npots):
        if kind[p] == POT_NORMAL:
            best = best_score(mask[p], score)
            if use_special:
                won[p] = winners_at(mask[p], score, best, special, use_special, trips_floor)
            else:  # the board games: the highest score wins
                won[p] = seats_at(mask[p], score, best)
            split_equal(amt[p], won[p], button, unit, first_winner, out)


@njit(cache=True, inline="always")
def _raked(c, dead, npots, button, no_rake, rules, lo, hi, amt, mask, won, kind, pot_rake, out):
    """:func:`_pay`'s part that does not depend on who won: the rake (taken from the normal pots'
    ``amt`` in order), the uncalled bets and the orphan layers. Returns (status, rake)."""
    _, _, unit, first_winner, refund, rake_num, rake_den, rake_cap, _ = rules
    raked_total = np.int64(0)
    for p in range(npots):
        if kind[p] == POT_ORPHAN and not refund:
            return ORPHAN_CHIPS, np.int64(0)
        if kind[p] == POT_NORMAL:
            raked_total += amt[p]
    rake = np.int64(0)
    if rake_num > 0 and not no_rake:
        rake = muldiv(raked_total, rake_num, rake_den)
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
        elif kind[p] == POT_UNCALLED:
            split_equal(amt[p], mask[p], button, unit, first_winner, out)
            won[p] = mask[p]
        else:  # an orphan layer (or the dead pot, at no level), refunded to its contributors, folded ones included
            for s in range(c.shape[0]):
                out[s] += share_in(c[s], lo[p], hi[p]) if hi[p] > 0 else dead[s]
            won[p] = mask[p]
    return OK, rake


@njit(cache=True, inline="always")
def _pay(c, dead, low, halves, npots, button, no_rake, rules, lo, hi, amt, mask, won, kind, pot_rake, out):
    """Rake and pay the ``npots`` pots of one table (docs: Rules: splitting, rake); ``dead``: the seats' dead
    chips, empty when the table has none; ``low``: the seats' lows for a high/low game, else empty.
    Returns (status, rake, npots)."""
    code, rake = _raked(c, dead, npots, button, no_rake, rules, lo, hi, amt, mask, won, kind, pot_rake, out)
    if code != OK:
        return code, np.int64(0), npots
    unit, first_winner = rules[2], rules[3]
    for p in range(npots):
        if kind[p] == POT_NORMAL:
            if low.shape[0] and halves(amt[p], mask[p], won, p, low, button, unit, first_winner, out):
                continue
            split_equal(amt[p], won[p], button, unit, first_winner, out)
    return OK, rake, npots


@njit(cache=True, inline="always")
def _whole(amount, eligible, won, p, low, button, unit, first_winner, out):
    """:func:`_split_high_low`'s stand-in for the kernels that never split (the parallel standard
    kernel): passed as ``halves``, it keeps that kernel from compiling the split at all."""
    return False


@njit(cache=True)
def _split_high_low(amount, eligible, won, p, low, button, unit, first_winner, out):
    """Pay a pot in halves when one of its ``eligible`` seats has a low (docs: Rules, high/low): the
    low half (whole units, rounded down) to its best lows, the rest, with any odd chip, to its best
    high hands ``won[p]``; ``won[p]`` then holds the winners of either half. False: no low, nothing paid."""
    with_low = np.uint64(0)
    for s in range(low.shape[0]):
        with_low |= np.uint64(low[s] > 0) << np.uint64(s)
    with_low &= eligible
    if with_low == 0:
        return False
    low_won = best_of(with_low, low)
    low_half = (amount // unit // 2) * unit
    split_equal(low_half, low_won, button, unit, first_winner, out)
    split_equal(amount - low_half, won[p], button, unit, first_winner, out)
    won[p] |= low_won
    return True


@njit(cache=True)
def _to_loser_groups(remaining, weights, losers, score, button, first_winner, out):
    """Hand ``remaining`` to loser groups best first (``ratio_rank``, docs: Rules); returns what is left."""
    left_mask = losers
    while left_mask and remaining > 0:
        group = best_of(left_mask, score)
        left_mask &= ~group
        if popcount64(group) == 1:  # the common case: a proportional split to one seat is all of it
            s = trailing_zeros64(group)
            take = min(weights[s], remaining)
            out[s] += take
            remaining -= take
            continue
        need = np.int64(0)
        for s in range(out.shape[0]):
            need += weights[s] & seat_in(group, s)
        if need <= remaining:
            for s in range(out.shape[0]):
                out[s] += weights[s] & seat_in(group, s)
            remaining -= need
        else:
            remaining = split_proportional(remaining, weights, group, button, first_winner, out)
    return remaining


@njit(cache=True, inline="always")
def _live_contributors(c, live):
    """Mask of the live seats that put chips in the street."""
    contributors = np.uint64(0)
    for s in range(c.shape[0]):
        contributors |= np.uint64(live[s] & (c[s] > 0)) << np.uint64(s)
    return contributors


@njit(cache=True, inline="always")
def _rest_to_best(remaining, c, live, score, button, unit, first_winner, out):
    """Chips no winner or loser group could take go to the best live seats that put chips in the street."""
    if remaining > 0:
        split_equal(remaining, best_of(_live_contributors(c, live), score), button, unit, first_winner, out)


@njit(cache=True, inline="always")
def street(
    policy,
    c,
    total,
    live,
    score,
    special,
    winners,
    live_mask,
    button,
    rules,
    lo,
    hi,
    amt,
    mask,
    best,
    kind,
    pot_won,
    weights,
    out,
):
    """One street of one table under ``PRESENCE``, ``RATIO_RANK`` or ``HYBRID``. Returns (status, npots).

    ``total``: the street's chips. ``ratio_rank`` shares the whole street, so
    unless its pots are wanted (``detail``) or it has orphan layers, it only
    counts them. Each policy's rule is named by its own branch; another code
    never gets here (:func:`per_street_code` and the kernel refuse it first).
    """
    use_special, trips_floor, unit, first_winner, refund, _, _, _, detail = rules
    S = c.shape[0]
    npots = called_pot_count(c, live) if policy == RATIO_RANK and not detail else -1
    if npots < 0:
        npots = layer(c, live, score, special, False, 0, False, lo, hi, amt, mask, best, kind)
        # an orphan layer is the layer's problem under presence, the street's under the other two:
        # they hand it to the street's best live contributors, so only a street with none is invalid
        street_scoped = (policy == RATIO_RANK or policy == HYBRID) and _live_contributors(c, live) != 0
        for p in range(npots):
            pot_won[p] = 0
            if kind[p] == POT_ORPHAN and not street_scoped:
                if not refund:
                    return ORPHAN_CHIPS, npots
                for s in range(S):
                    out[s] += share_in(c[s], lo[p], hi[p])
                pot_won[p] = mask[p]
                total -= amt[p]
    if total == 0:
        return OK, npots
    if policy == RATIO_RANK:  # over the whole street
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
                if winners & seat_bit(s):
                    st = np.int64(0)
                    for q in range(S):
                        st += min(c[s], c[q])
                    weights[s] = st
                    stake_sum += st
            if stake_sum >= total:
                remaining = split_proportional(total, c, winners, button, first_winner, out)
            else:
                for s in range(S):
                    if winners & seat_bit(s):
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
            if pot_won[p] == 0:  # street-scoped (hybrid): the street's best live contributors take it
                folded_rest += amt[p]
                pot_won[p] = best_of(_live_contributors(c, live), score)
            continue
        won = mask[p] & winners
        if won:
            split_equal(amt[p], won, button, unit, first_winner, out)
            pot_won[p] = won
            continue
        back = np.int64(0)
        for s in range(S):
            part = share_in(c[s], lo[p], hi[p]) & seat_in(mask[p], s)
            out[s] += part
            back += part
        if back < amt[p]:
            if policy == PRESENCE:
                split_equal(amt[p] - back, best_of(mask[p], score), button, unit, first_winner, out)
            elif policy == HYBRID:
                folded_rest += amt[p] - back
        pot_won[p] = mask[p]
    _rest_to_best(folded_rest, c, live, score, button, unit, first_winner, out)
    return OK, npots
