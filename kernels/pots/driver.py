"""The settlement kernels: every table of a batch, in parallel chunks, through one policy.

Two kernels, one per policy family (``standard``; the per-street ones), so
that a run compiles only the family it uses. Each is a :class:`~..twins.Twin`:
parallel (``prange`` over chunks of tables), and the same body compiled
serial for small runs.

Arguments travel as tuples of arrays (as pynndescent passes them):
``tables = (contrib[T, K, S], live[T, S], score[T, S], button[T],
special[T, S] or [1, S], no_rake[T] or [1], dead[T, S] or [1, 0])``, ``rules`` as lowered by
:meth:`Options.lower` (see :mod:`.policies`), ``results = (payout[T, S],
status[T], rake[T], npots[T])`` and ``pot_out = (amount, rake, eligible,
winners, kind, lo, hi)``, each ``[T, K, S]`` when the pots are kept
(``detail``) or ``[1, 1, 1]``; the standard family keeps one more pot
per table (``S + 1``: a dead pot that does not merge comes on top of the
layers' at most ``S``).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ..reasons import BAD_BUTTON, BAD_DEAD_MONEY, DEAD_MONEY_POLICY, NEGATIVE_CONTRIB, NO_LIVE_SEAT, OK
from ..twins import twin
from .policies import HYBRID, PRESENCE, RATIO_RANK, standard, standard_dead, street
from .winners import hand_winners

CHUNK = 256  # tables per parallel task: scratch is allocated once per chunk


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


@njit(cache=True)
def _load_dead(dead, t, flat, dd):
    """Copy table ``t``'s dead chips into ``dd`` (empty: the input has none); BAD_DEAD_MONEY unless
    ``0 <= dead <= contrib``, DEAD_MONEY_POLICY (for the per-street kernel to use) when any is
    positive, else OK."""
    bad = False
    positive = False
    for s in range(dd.shape[0]):
        d = dead[t, s]
        bad |= (d < 0) | (d > flat[s])
        positive |= d > 0
        dd[s] = d
    if bad:
        return BAD_DEAD_MONEY
    return DEAD_MONEY_POLICY if positive else OK


@njit(cache=True, inline="always")
def _keep_pots(t, k, n, lo, hi, amt, prk, mask, won, kind, pot_out):
    pot_amount, pot_rake, pot_mask, pot_won, pot_kind, pot_lo, pot_hi = pot_out
    for p in range(n):
        pot_amount[t, k, p] = amt[p]
        pot_rake[t, k, p] = prk[p]
        pot_mask[t, k, p] = mask[p]
        pot_won[t, k, p] = won[p]
        pot_kind[t, k, p] = kind[p]
        pot_lo[t, k, p] = lo[p]
        pot_hi[t, k, p] = hi[p]


@njit(cache=True, inline="always")
def _clear_pots(t, pot_out):
    pot_amount, _, pot_mask, pot_won, pot_kind, pot_lo, pot_hi = pot_out
    for k in range(pot_amount.shape[1]):
        for p in range(pot_amount.shape[2]):
            pot_amount[t, k, p] = 0
            pot_mask[t, k, p] = 0
            pot_won[t, k, p] = 0
            pot_kind[t, k, p] = 0
            pot_lo[t, k, p] = 0
            pot_hi[t, k, p] = 0


@njit(cache=True, inline="always")
def _finish(t, code, out, payout, status):
    ok = code == OK
    for s in range(out.shape[0]):
        payout[t, s] = out[s] if ok else 0
    status[t] = code


# One kernel per policy family, so a run compiles only the family it uses: as one kernel with a
# runtime branch the pair took 53 s to compile (empty cache, 2-vCPU VM), the standard family
# alone 13 s. Rejected: a literal ``per_street`` argument (numba.literally) to prune the other
# branch: with cache=True every call re-dispatched (7 s a call) and nothing was pruned.
@twin
@njit(cache=True, parallel=True)
def settle_standard_kernel(tables, rules, results, pot_out):
    """Settle every table under ``STANDARD``; ``contrib[T, 1, S]``. Bad tables get status != 0, payout 0.

    Dead chips and the pots' detail are not looked at here: :func:`settle_rows_kernel`
    settles the tables that have dead chips again, after this, and every table when the
    detail is asked for.
    """
    # Each table's row is copied into per-chunk scratch first: slicing a row (``live[t]``) makes a
    # reference-counted view, and those counts cost more than the settlement. The argument tuples are
    # unpacked once, here, and the scratch arrays go to the helpers one by one: a tuple of arrays built
    # inside the parallel loop was miscompiled by numba 0.68 (garbage payouts; right with
    # ``parallel=False``), and the chunk as a function of its own, called from the loop, ran at half the
    # speed (6.1 against 13.1 M standard tables/s on one thread).
    contrib, live, score, button, special, no_rake, _ = tables
    use_special = rules[0]
    payout, status, rake, npots = results
    T, _, S = contrib.shape
    for c0 in prange((T + CHUNK - 1) // CHUNK):
        flat = np.empty(S, np.int64)
        lv = np.empty(S, np.bool_)
        sc = np.empty(S, np.int64)
        sp = np.zeros(S, np.bool_)
        no_dead = np.empty(0, np.int64)
        out = np.empty(S, np.int64)
        lo = np.empty(S, np.int64)
        hi = np.empty(S, np.int64)
        amt = np.empty(S, np.int64)
        prk = np.zeros(S, np.int64)
        mask = np.empty(S, np.uint64)
        won = np.empty(S, np.uint64)
        kind = np.empty(S, np.int8)
        for t in range(c0 * CHUNK, min(T, (c0 + 1) * CHUNK)):
            bt = button[t]
            code = _load_table(contrib, live, score, t, bt, lv, sc, flat, out)
            if code == OK:
                if use_special:
                    for s in range(S):
                        sp[s] = special[t, s]
                nr = no_rake[t if no_rake.shape[0] > 1 else 0]
                code, r, n = standard(flat, no_dead, lv, sc, sp, bt, nr, rules, lo, hi, amt, mask, won, kind, prk, out)
                rake[t] = r
                npots[t] = n
            _finish(t, code, out, payout, status)


# Dead money is rare, and its pot is one more routine: the kernel above with it inlined took 27-32 s
# to compile (empty cache, 2-vCPU VM) against 16-18 s without it and the pots' detail, at the same
# speed. So tables with dead chips are settled again, after it, by this smaller kernel, which is
# compiled only when an input has any, a game splits pots high/low, or the detail is asked for (the
# batch never asks). Rejected: the dead-money helpers as calls from the parallel kernel (19-24 s; and
# a call that takes the scratch arrays can halve the kernel's speed). It is a parallel twin since
# hi/lo games settle every table here: its serial build took 397 ns a hi/lo table (one thread).
@twin
@njit(cache=True, parallel=True)
def settle_rows_kernel(tables, rules, results, pot_out, rows, low):
    """Settle the tables ``rows`` (each once) with what :func:`settle_standard_kernel` leaves out:
    their dead money (docs: Rules, dead money), high/low halves (``low[T, S]``: each seat's low,
    higher wins, 0 none; ``[1, 0]`` for a game without lows) and, with ``detail``, every pot;
    other arguments as there."""
    contrib, live, score, button, special, no_rake, dead = tables
    hilo = low.shape[1] > 0
    use_special = rules[0]
    detail = rules[8]
    payout, status, rake, npots = results
    S = contrib.shape[2]
    R = rows.shape[0]
    for c0 in prange((R + CHUNK - 1) // CHUNK):
        flat = np.empty(S, np.int64)
        lv = np.empty(S, np.bool_)
        sc = np.empty(S, np.int64)
        sp = np.zeros(S, np.bool_)
        dd = np.empty(dead.shape[1], np.int64)
        lw = np.zeros(S if hilo else 0, np.int64)
        out = np.empty(S, np.int64)
        lo = np.empty(S + 1, np.int64)  # the dead pot comes on top of the layers' at most S
        hi = np.empty(S + 1, np.int64)
        amt = np.empty(S + 1, np.int64)
        prk = np.zeros(S + 1, np.int64)
        mask = np.empty(S + 1, np.uint64)
        won = np.empty(S + 1, np.uint64)
        kind = np.empty(S + 1, np.int8)
        for i in range(c0 * CHUNK, min(R, (c0 + 1) * CHUNK)):
            t = rows[i]
            bt = button[t]
            code = _load_table(contrib, live, score, t, bt, lv, sc, flat, out)
            if code == OK:
                code = _load_dead(dead, t, flat, dd)
                code = OK if code == DEAD_MONEY_POLICY else code
            rake[t] = 0
            npots[t] = 0
            if detail:
                _clear_pots(t, pot_out)
            if code == OK:
                if use_special:
                    for s in range(S):
                        sp[s] = special[t, s]
                if hilo:
                    for s in range(S):
                        lw[s] = low[t, s]
                nr = no_rake[t if no_rake.shape[0] > 1 else 0]
                code, r, n = standard_dead(
                    flat, dd, lw, lv, sc, sp, bt, nr, rules, lo, hi, amt, mask, won, kind, prk, out
                )
                rake[t] = r
                npots[t] = n
                if detail and code == OK:
                    _keep_pots(t, 0, n, lo, hi, amt, prk, mask, won, kind, pot_out)
            _finish(t, code, out, payout, status)


@twin
@njit(cache=True, parallel=True)
def settle_streets_kernel(policy, tables, rules, results, pot_out):
    """Settle every table street by street under ``PRESENCE``, ``RATIO_RANK`` or ``HYBRID``;
    ``contrib[T, K, S]``. Scratch and arguments as :func:`settle_standard_kernel`. Any other
    ``policy`` code is a ``ValueError`` before any table (raised here, outside the parallel loop,
    which a raise inside would make serial)."""
    if policy != PRESENCE and policy != RATIO_RANK and policy != HYBRID:
        raise ValueError(
            "settle_streets_kernel: not a per-street policy code (presence 1, ratio_rank 2, hybrid 3)", policy
        )
    contrib, live, score, button, special, _, dead = tables
    use_special, trips_floor, _, _, _, _, _, _, detail = rules
    payout, status, rake, npots = results
    T, K, S = contrib.shape
    D = dead.shape[1]
    for c0 in prange((T + CHUNK - 1) // CHUNK):
        dd = np.empty(D, np.int64)
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
        for t in range(c0 * CHUNK, min(T, (c0 + 1) * CHUNK)):
            bt = button[t]
            code = _load_table(contrib, live, score, t, bt, lv, sc, flat, out)
            if code == OK and D:
                code = _load_dead(dead, t, flat, dd)
            if code == OK:
                if use_special:
                    for s in range(S):
                        sp[s] = special[t, s]
                winners, live_mask = hand_winners(lv, sc, sp, use_special, trips_floor)
                total_pots = 0
                for k in range(K):
                    street_total = np.int64(0)
                    for s in range(S):
                        v = contrib[t, k, s]
                        flat[s] = v
                        street_total += v
                    if street_total == 0:  # a street nobody bet on has no pot
                        continue
                    code, n = street(
                        policy,
                        flat,
                        street_total,
                        lv,
                        sc,
                        sp,
                        winners,
                        live_mask,
                        bt,
                        rules,
                        lo,
                        hi,
                        amt,
                        mask,
                        best,
                        kind,
                        won,
                        weights,
                        out,
                    )
                    total_pots += n
                    if code != OK:
                        break
                    if detail:
                        _keep_pots(t, k, n, lo, hi, amt, prk, mask, won, kind, pot_out)
                if detail and code != OK:
                    _clear_pots(t, pot_out)
                rake[t] = 0
                npots[t] = total_pots
            _finish(t, code, out, payout, status)
