"""Settle a batch of board-game hands (two hole cards a seat: Hold'em, short deck) in one pass.

One loop per table reads the columns' own buffers (list offsets, values, the
``folded`` bits) and does everything the reference path does in separate steps:
the checks that give a row its reason (in the documented order, the first
problem found wins), the seats' hand values (the board's cards summed once a
table, two cards added a seat), the pots under the standard policy (dead money
and rake included, by the same per-table routines as :mod:`.pots`), and the
results' list values at each row's place. No padded ``[T, S]`` intermediates,
no numpy temporaries: scratch is a few arrays of the table's width per chunk
of tables.

Arguments travel as tuples of arrays (as pynndescent passes them); every list
column comes as ``(values, starts, lengths)``, starts and lengths ``int64[T]``
(a null cell has length 0; the wrapper marks null cells and null elements):

- ``rows = (pre int16[T], button int64[T], game_not_given uint8[T] or [0])``:
  ``pre`` holds the codes the wrapper found first (missing values, a hand id
  beyond int64), ``button`` is -1 where it does not fit;
- ``folded = (bits uint8[], first_bit, starts, lengths)``: the bit-packed
  ``list<bool>`` values and the bit their element 0 sits at;
- ``chips = (values int64[], starts, lengths, big uint8[T], per_street)``:
  ``big`` marks rows holding a value beyond int64;
- ``dead = (values, starts, lengths, big, missing)`` (``has_dead`` else empty);
- ``hole = (codes uint8[], starts, counts)`` and ``board`` the same: card codes
  (255 no card, 254 unreadable), ``counts`` how many cards the row gave;
- ``recorded = (values int64[], starts, lengths, given uint8[T], malformed uint8[T])``
  (``lengths`` of size 0: no recorded payouts);
- ``game = (S, min_seats, max_seats, lowest_card, no_flop_no_drop, has_dead)``.

Dead money is rare and its pot one more routine (inlined here it doubled the compile time):
a table with dead chips gets the code :data:`DEFERRED` once its checks, values and chips are
written, and the wrapper settles those tables with :func:`cardbatch.kernels.pots.settle_detailed`.

Outputs: ``codes int16[T]``; per element (at the row's place in a list column
holding every row, ``place[T + 1]``) ``score uint32``, ``payout`` and
``chips`` (each seat's total) ``int64``; per row ``rake``, ``npots``,
``mismatch`` and ``compared``. :func:`compact` then packs the settled rows'
elements together.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .cards import card_step
from .holdem import board_words, seat_value
from .pots.policies import standard
from .reasons import (
    BAD_BUTTON,
    BAD_CARD,
    BAD_DEAD_MONEY,
    DUPLICATE_CARD,
    GAME_NOT_GIVEN,
    MISSING_VALUE,
    NEGATIVE_CONTRIB,
    NO_LIVE_SEAT,
    OK,
    OVERFLOW,
    SEAT_COUNT,
)
from .twins import twin

CHUNK = 256  # tables per parallel task: scratch is allocated once per chunk
_MAX64 = np.iinfo(np.int64).max
_NO_CARD = 255
DEFERRED = 255  # a code no reason has: a table with dead chips, which the pots' rows kernel settles


@njit(cache=True, inline="always")
def _front_checks(t, n, rows, chips, dead, hole, board, game):
    """The reasons found from list lengths alone, in the reference's order: seat count, the chips'
    shape, dead money, a game not named, the cards' counts."""
    pre, _, gng = rows
    cvals, cstarts, clen, cbig, per_street = chips
    S, min_seats, max_seats, _, _, has_dead = game
    code = pre[t]
    if code == OK and (n < min_seats or n > max_seats):
        code = SEAT_COUNT
    cl = clen[t]
    if per_street:
        k = cl // n if n > 0 else 0
        if code == OK and (cl != k * n or k < 1):
            code = SEAT_COUNT
    elif code == OK and cl != n:
        code = SEAT_COUNT
    if has_dead:
        _, _, dlen, dbig, dmissing = dead
        if code == OK and dmissing[t]:
            code = MISSING_VALUE
        if code == OK and dlen[t] != n:
            code = SEAT_COUNT
        if code == OK and dbig[t]:
            code = OVERFLOW
    if code == OK and gng.shape[0] and gng[t]:
        code = GAME_NOT_GIVEN
    if code == OK and hole[2][t] != 2 * n:
        code = SEAT_COUNT
    if code == OK and board[2][t] > 5:
        code = SEAT_COUNT
    return code


@njit(cache=True, inline="always")
def _card_code(t, n, lv, showdown, hole, board, lowest_card):
    """BAD_CARD, DUPLICATE_CARD or OK for the table's cards: a live seat's at a showdown and the
    board's are required; no card twice at the table; none below ``lowest_card`` (the short deck)."""
    hvals, hstarts, _ = hole
    bvals, bstarts, bcount = board
    seen = np.uint64(0)
    status = 0
    low = False
    h0 = hstarts[t]
    for s in range(n):
        required = lv[s] and showdown
        for j in range(2):
            c = hvals[h0 + 2 * s + j]
            seen, status = card_step(c, required, seen, status)
            low |= c < lowest_card
    b0 = bstarts[t]
    nb = bcount[t]
    for j in range(5):
        c = bvals[b0 + j] if j < nb else np.uint8(_NO_CARD)
        seen, status = card_step(c, showdown, seen, status)
        low |= c < lowest_card
    if status == 2:
        return DUPLICATE_CARD
    if status != 0 or low:
        return BAD_CARD
    return OK


@njit(cache=True, inline="always")
def _chips_code(t, n, chips, flat):
    """Each seat's chips summed over its streets into ``flat``; OVERFLOW when the row's positive chips
    do not fit int64 (or a value did not), NEGATIVE_CONTRIB for a value below zero, else OK."""
    cvals, cstarts, clen, cbig, _ = chips
    for s in range(flat.shape[0]):
        flat[s] = 0
    c0 = cstarts[t]
    cl = clen[t]
    positive = np.int64(0)
    over = cbig[t] != 0
    negative = False
    s = 0
    for i in range(cl):  # street by street: element i is seat i % n (no division: a wrapping counter)
        v = cvals[c0 + i]
        if v > 0:
            over |= positive > _MAX64 - v
            positive += v
        negative |= v < 0
        flat[s] += v
        s += 1
        if s == n:
            s = 0
    if over:
        return OVERFLOW
    return NEGATIVE_CONTRIB if negative else OK


@twin
@njit(cache=True, parallel=True)
def settle_board_batch(rows, folded, chips, dead, hole, board, recorded, game, tables, rules, place, out):
    """Check, value and settle every table of a batch (see the module's docstring); writes ``out``."""
    pre, button, _ = rows
    fbits, fbit0, fstarts, flen = folded
    S, _, _, lowest_card, no_flop_no_drop, has_dead = game
    displace7, values7, _, _, flush_values, card_key, card_bit = tables
    codes, score, payout, seat_chips, rake, npots, mismatch, compared = out
    rvals, rstarts, rlen, rgiven, rmalformed = recorded
    dvals, dstarts, _, _, _ = dead
    bvals, bstarts, bcount = board
    hvals, hstarts, _ = hole
    T = pre.shape[0]
    for c0 in prange((T + CHUNK - 1) // CHUNK):
        # scratch one array at a time, as the pot kernels allocate theirs (.pots.driver: a tuple of
        # arrays built inside a parallel loop was miscompiled by numba 0.68)
        flat = np.empty(S, np.int64)
        total = np.empty(S, np.int64)
        lv = np.empty(S, np.bool_)
        sc = np.empty(S, np.int64)
        sp = np.zeros(S, np.bool_)
        no_dead = np.empty(0, np.int64)
        pay = np.empty(S, np.int64)
        lo = np.empty(S + 1, np.int64)
        hi = np.empty(S + 1, np.int64)
        amt = np.empty(S + 1, np.int64)
        prk = np.zeros(S + 1, np.int64)
        mask = np.empty(S + 1, np.uint64)
        won = np.empty(S + 1, np.uint64)
        kind = np.empty(S + 1, np.int8)
        for t in range(c0 * CHUNK, min(T, (c0 + 1) * CHUNK)):
            n = flen[t]
            code = _front_checks(t, n, rows, chips, dead, hole, board, game)
            if code != OK:
                codes[t] = code
                continue
            nlive = 0
            bit = fbit0 + fstarts[t]
            for s in range(S):
                alive = False
                if s < n:
                    b = bit + s
                    alive = ((fbits[b >> 3] >> (b & 7)) & 1) == 0
                lv[s] = alive
                nlive += alive
            showdown = nlive >= 2
            code = _card_code(t, n, lv, showdown, hole, board, lowest_card)
            chips_code = _chips_code(t, n, chips, flat)
            if code == OK and chips_code == OVERFLOW:
                code = OVERFLOW
            bt = button[t]
            if code == OK and (bt < 0 or bt >= n):
                code = BAD_BUTTON
            if code == OK and chips_code == NEGATIVE_CONTRIB:  # the pot routine's first check
                code = NEGATIVE_CONTRIB
            if code == OK and nlive == 0:
                code = NO_LIVE_SEAT
            if code != OK:
                codes[t] = code
                continue
            for s in range(n, S):
                flat[s] = 0
            for s in range(S):
                total[s] = flat[s]
                sc[s] = 0
            if showdown:
                bk, btotal, bbits = board_words(bvals, bstarts[t], card_key, card_bit)
                h0 = hstarts[t]
                for s in range(n):
                    if lv[s]:
                        v, _ = seat_value(
                            bk,
                            btotal,
                            bbits,
                            hvals[h0 + 2 * s],
                            hvals[h0 + 2 * s + 1],
                            displace7,
                            values7,
                            flush_values,
                            card_key,
                            card_bit,
                        )
                        sc[s] = v
            nr = False
            if no_flop_no_drop:
                nr = True
                nb = bcount[t]
                for j in range(min(nb, 5)):
                    nr &= bvals[bstarts[t] + j] == _NO_CARD
            any_dead = False
            if has_dead:
                d0 = dstarts[t]
                bad_dead = False
                for s in range(n):
                    d = dvals[d0 + s]
                    any_dead |= d != 0
                    bad_dead |= (d < 0) | (d > flat[s])
                if any_dead and bad_dead:
                    codes[t] = BAD_DEAD_MONEY
                    continue
            p0 = place[t]
            for s in range(n):
                score[p0 + s] = np.uint32(sc[s])
                seat_chips[p0 + s] = total[s]
            if any_dead:  # settled by the wrapper through the pots' rows kernel, from score and seat_chips
                codes[t] = DEFERRED
                continue
            for s in range(S):
                pay[s] = 0
            code, r, npot = standard(flat, no_dead, lv, sc, sp, bt, nr, rules, lo, hi, amt, mask, won, kind, prk, pay)
            codes[t] = code
            if code != OK:
                continue
            rake[t] = r
            npots[t] = npot
            for s in range(n):
                payout[p0 + s] = pay[s]
            if rlen.shape[0]:
                differs = rlen[t] != n or rmalformed[t] != 0
                if not differs:
                    r0 = rstarts[t]
                    for s in range(n):
                        differs |= rvals[r0 + s] != pay[s]
                mismatch[t] = differs
                compared[t] = rgiven[t]


@njit(cache=True)
def compact(codes, place, score, payout, seat_chips, kept_offsets):
    """Move the settled rows' elements of ``score``, ``payout`` and ``seat_chips`` (laid out by
    ``place``) together, in row order, and write their offsets; returns how many elements are kept."""
    T = codes.shape[0]
    g = 0
    w = np.int64(0)
    kept_offsets[0] = 0
    for t in range(T):
        if codes[t] != OK:
            continue
        p0 = place[t]
        n = place[t + 1] - p0
        if w != p0:
            for s in range(n):
                score[w + s] = score[p0 + s]
                payout[w + s] = payout[p0 + s]
                seat_chips[w + s] = seat_chips[p0 + s]
        w += n
        g += 1
        kept_offsets[g] = w
    return w
