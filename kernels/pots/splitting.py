"""Chip splitting in whole chips (equal splits and proportional shares, docs: Rules).

Equal splits give ``amount // k`` (in multiples of ``unit``, the smallest
chip) and hand the rest out one piece per winner in seat order from the first
seat left of the button, or all of it to that first winner
(``first_winner``). Proportional splits round each share down and hand the
remainder out the same way, one chip per weighted seat. Products of two chip
counts can pass 2**63, so :func:`muldiv` works in 128 bits.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..bits import popcount64, seat_bit, trailing_zeros64

_ONE = np.uint64(1)


@njit(cache=True, inline="always")
def split_equal(amount, mask, button, unit, first_winner, out):
    """Split ``amount`` equally among the seats in ``mask`` (the odd-chip rule, docs: Rules)."""
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
    if rest > 0:  # only a split that does not divide: a call, not inlined into every kernel
        _odd_chips(rest, mask, button, unit, first_winner, out)


@njit(cache=True)
def _odd_chips(rest, mask, button, unit, first_winner, out):
    """Hand ``rest`` out in pieces of ``unit`` (or all of it with ``first_winner``), seats of ``mask``
    from the first left of the button (docs: Rules, splitting a pot)."""
    S = out.shape[0]
    s = button
    while rest > 0:  # every pass meets a winner
        s = s + 1 if s + 1 < S else 0
        if mask & seat_bit(s):
            piece = rest if first_winner else min(unit, rest)
            out[s] += piece
            rest -= piece


@njit(cache=True)
def muldiv(a, b, d):
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
def split_proportional(amount, weights, mask, button, first_winner, out):
    """Split ``amount`` among ``mask`` seats in proportion to ``weights`` (round down, odd-chip rule);
    returns what could not be given (all of it when the weights sum to 0)."""
    S = out.shape[0]
    total = np.int64(0)
    for s in range(S):
        if mask & seat_bit(s):
            total += weights[s]
    if amount == 0 or total == 0:
        return amount
    given = np.int64(0)
    for s in range(S):
        if mask & seat_bit(s):
            part = muldiv(amount, weights[s], total)
            out[s] += part
            given += part
    rest = amount - given
    s = button
    while rest > 0:  # fewer than one chip per weighted seat is left
        s = s + 1 if s + 1 < S else 0
        if mask & seat_bit(s) and weights[s] > 0:
            piece = rest if first_winner else 1
            out[s] += piece
            rest -= piece
    return np.int64(0)
