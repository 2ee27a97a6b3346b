"""Walking the completions of a board: the loops the equity kernel and the heads-up table share.

A completion adds one to the count of the live seats' order (:func:`order_index`), which is all
the pots need to be paid (:mod:`cardbatch.kernels.equity`). The cards still to come are walked
as nested loops that add one card's words (key and bit) a level. At the last level, when no seat
can make a flush with one card more, the cards of one rank give every seat the same value: the
walk values them once and counts them once a card (the rest of the deck is in code order, so a
rank's cards are a run of it).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .holdem import FLUSH_BITS, ONE_PER_SUIT, value7


@njit(cache=True, inline="always")
def order_index(vals, n):
    """The index of the live seats' order: ``sum(r_i * n**i)``, ``r_i`` the seats above seat i."""
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
def _visit(key, bits, w, n, skey, sbits, vals, displace7, values7, flush_values, counts):
    """Value the live seats on one board (its cards' summed key and bits) and add ``w`` to the count
    of their order."""
    if n == 2:  # the common all-in, without the general order's loops
        v0 = value7(key + skey[0], bits | sbits[0], displace7, values7, flush_values)
        v1 = value7(key + skey[1], bits | sbits[1], displace7, values7, flush_values)
        counts[(v1 > v0) + 2 * (v0 > v1)] += w
    else:
        for i in range(n):
            vals[i] = value7(key + skey[i], bits | sbits[i], displace7, values7, flush_values)
        counts[order_index(vals, n)] += w


@njit(cache=True, inline="always")
def _last(start, m, ck, cb, run_end, key, bits, n, skey, sbits, vals, displace7, values7, flush_values, counts):
    """The last card to come, from ``start`` on (see the module's docstring)."""
    suited = False
    for i in range(n):
        suited |= ((key + skey[i] + ONE_PER_SUIT) & FLUSH_BITS) != np.uint64(0)
    if suited:
        for e in range(start, m):
            _visit(key + ck[e], bits | cb[e], 1, n, skey, sbits, vals, displace7, values7, flush_values, counts)
    else:
        e = start
        while e < m:
            end = run_end[e]
            _visit(key + ck[e], bits, end - e, n, skey, sbits, vals, displace7, values7, flush_values, counts)
            e = end


@njit(cache=True)
def walk_counts(k, rest, ck, cb, key0, bits0, n, skey, sbits, vals, displace7, values7, flush_values, counts):
    """Add every completion of k cards of ``rest`` (codes, ascending; ``ck``/``cb`` their keys and
    bits) to the orders' ``counts``; False for a k it has no loops for (the caller walks it)."""
    m = rest.shape[0]
    run_end = np.empty(m, np.int64)  # the end of each card's run of its rank
    for j in range(m - 1, -1, -1):
        run_end[j] = run_end[j + 1] if j + 1 < m and (rest[j + 1] >> 2) == (rest[j] >> 2) else j + 1
    if k == 0:
        _visit(key0, bits0, 1, n, skey, sbits, vals, displace7, values7, flush_values, counts)
    elif k == 1:
        _last(0, m, ck, cb, run_end, key0, bits0, n, skey, sbits, vals, displace7, values7, flush_values, counts)
    elif k == 2:
        for a in range(m):
            ka, ba = key0 + ck[a], bits0 | cb[a]
            _last(a + 1, m, ck, cb, run_end, ka, ba, n, skey, sbits, vals, displace7, values7, flush_values, counts)
    elif k == 5:
        for a in range(m):
            ka, ba = key0 + ck[a], bits0 | cb[a]
            for b in range(a + 1, m):
                kb, bb = ka + ck[b], ba | cb[b]
                for c in range(b + 1, m):
                    kc, bc = kb + ck[c], bb | cb[c]
                    for d in range(c + 1, m):
                        kd, bd = kc + ck[d], bc | cb[d]
                        _last(
                            d + 1,
                            m,
                            ck,
                            cb,
                            run_end,
                            kd,
                            bd,
                            n,
                            skey,
                            sbits,
                            vals,
                            displace7,
                            values7,
                            flush_values,
                            counts,
                        )
    else:
        return False
    return True
