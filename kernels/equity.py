"""All-in equity of board games with two hole cards a seat (Hold'em, short deck).

For a table at the moment it was all-in, every completion of the board (or, above a budget,
a seeded sample of them) is dealt from the cards the row does not record: not the live seats',
nor the board's, nor (by default, :class:`Deck`) the folded seats' recorded cards; the live
seats are valued on it and the pots are paid by the settlement's own routine
(:func:`cardbatch.kernels.pots.policies.standard_dead`: side pots, ties, odd chips, rake, dead
money). Each seat's expected payout is the average of its payouts.

The walk does not call the pot routine per completion. Who wins what depends only on the order
of the live seats' values (ties included), so a completion only adds one to the count of its
order, an index ``sum(r_i * n**i)`` where ``r_i`` is how many live seats beat seat ``i``. The
pots are then paid once per order that occurred, with stand-in values that rank the seats the
same way, and weighted by its count: the same payouts, exactly. Above :data:`MAX_COUNTED` live
seats (``n**n`` orders) each completion is paid as it comes.

The exact walk goes by ranks (:mod:`.boardwalk`: the multisets of ranks to come, weighted by the
card sets that deal them, then the completions that make a flush); pots without dead chips are
layered once a table and only their winners found per order. Drawn completions (above the
budget) and tables of more than :data:`MAX_COUNTED` live seats go card by card: the board's key
and bits built one card a level, each seat adding its own two cards' words.

Arguments, padded per table (the batch layer passes only the all-in tables):
``chips int64[T, S]`` each seat's chips in (dead chips included), ``dead int64[T, S]`` its dead
chips, ``live bool[T, S]``, ``hole uint8[T, S, 2]``, ``board uint8[T, 5]`` (255: no card),
``known int64[T]`` the board cards known at the all-in (0, 3 or 4), ``button int64[T]``,
``seeds uint64[T]``; ``game = (lowest_card, budget, samples, keys, counts)``: the deck's lowest
card code, the most completions walked exactly (or the samples, if more), the samples drawn
above that, and the heads-up preflop table (:mod:`.headsup`; empty arrays: none, as for the
short deck), whose counts serve a heads-up preflop all-in whatever the budget.
Outputs: ``ev float64[T, S]`` expected payout, ``sq float64[T, S, 2]`` its standard error (0 when
exact) and the payout's variance over the completions, ``drawn int64[T]`` completions walked or
sampled, ``exact bool[T]``, ``status int16[T]`` (0, a pot routine's status, or -(1 + i) for the
table's problem i of :data:`INPUT_PROBLEMS`: the input is checked here, a table at a time).

The routines that allocate nothing run without numba's reference counts (``_nrt=False``): an
atomic increment and decrement per array per call was half of a turn all-in's time.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from typing import Any

import numpy as np
from numba import get_num_threads, njit, prange
from numpy.typing import ArrayLike

from cardbatch.constants import (  # the names --help reads without numba; Deck re-exported
    DECKS,
    MAX_SAMPLES,
    WALK_BUDGET,
    WALK_DECK,
    WALK_SAMPLES,
    WALK_SEED,
    Deck,  # noqa: F401
)

from .boardwalk import MULTISETS, add_card, order_index, walk_few, walk_five
from .headsup import load as load_headsup
from .headsup import lookup
from .holdem import KEY_INIT, SCORE_TABLES, value7
from .pots.api import Options, rows_beyond_int64
from .pots.policies import standard_dead, standard_layered, standard_layers, standard_raked
from .reasons import OK

SLICE_DRAWS = 20_000_000  # completions a call of the kernel walks at most: signals are handled between calls
MAX_COUNTED = 6  # up to 6 live seats (6**6 = 46,656 orders) a completion counts its order
RANK_WALK = 100_000  # a walk by ranks costs at most about as much as this many completions counted (~1 ms)
_NO_CARD = 255
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@njit(cache=True, inline="always")
def _mix(state):
    """splitmix64: the next state and a 64-bit draw (a generator of our own: a table's draws depend
    on its seed alone, whichever thread walks it)."""
    state = state + _GOLDEN
    z = state
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return state, z ^ (z >> np.uint64(31))


@njit(cache=True)
def combinations(m, k):
    """C(m, k), or -1 beyond int64."""
    if k < 0 or k > m:
        return 0
    k = min(k, m - k)
    c = 1
    for i in range(k):
        c = c * (m - i) // (i + 1)
        if c > 1 << 61:
            return -1
    return c


@njit(cache=True, inline="always")
def _pay_into(c, dead, low, lv, sc, sp, button, rules, lo, hi, amt, mask, won, kind, prk, pay, tmp):
    """One payment of the table's pots for values ``sc`` into ``pay`` (``tmp``: a copy of the chips,
    which the routine turns into the live chips). Returns the pot routine's status."""
    for s in range(c.shape[0]):
        tmp[s] = c[s]
        pay[s] = 0
    code, _, _ = standard_dead(tmp, dead, low, lv, sc, sp, button, False, rules, lo, hi, amt, mask, won, kind, prk, pay)
    return code


# what the kernel's status says of a table whose input it cannot take (as minus its index + 1)
INPUT_PROBLEMS = (
    "known board cards must be 0, 3, 4 or 5",
    "no live seat",
    "chips below zero, or dead chips beyond a seat's chips",
    "the chips in sum beyond int64",
    "the button is not a seat",
    "a live seat's or the known board's card is missing, repeated or not in the deck",
    "too few cards left in the deck to complete the board",
    "a folded seat's recorded card is repeated or not in the deck",
)
_INT64_MAX = np.iinfo(np.int64).max


@njit(cache=True, _nrt=False)
def _bad_input(t, chips, dead, live, hole, board, known, button, lowest_card, folded_seen, used):
    """Table ``t``'s first problem (1 + its index in :data:`INPUT_PROBLEMS`), or 0 when the walk can
    take it: then ``used[52]`` marks the cards out of the deck: its live seats', the known board's
    and, with ``folded_seen``, its folded seats' recorded cards (255: unknown, left in the deck)."""
    kt = known[t]
    if kt != 0 and kt != 3 and kt != 4 and kt != 5:
        return 1
    S = chips.shape[1]
    n = 0
    for s in range(S):
        n += live[t, s]
    if n == 0:
        return 2
    for s in range(S):
        if chips[t, s] < 0 or dead[t, s] < 0 or dead[t, s] > chips[t, s]:
            return 3
    total = np.int64(0)
    for s in range(S):
        if total > _INT64_MAX - chips[t, s]:
            return 4
        total += chips[t, s]
    if button[t] < 0 or button[t] >= S:
        return 5
    for card in range(52):
        used[card] = False
    for s in range(S):
        for j in range(2 if live[t, s] else 0):
            card = np.int64(hole[t, s, j])
            if card < lowest_card or card > 51 or used[card]:
                return 6
            used[card] = True
    for j in range(kt):
        card = np.int64(board[t, j])
        if card < lowest_card or card > 51 or used[card]:
            return 6
        used[card] = True
    for s in range(S if folded_seen else 0):
        for j in range(0 if live[t, s] else 2):
            card = np.int64(hole[t, s, j])
            if card == _NO_CARD:
                continue
            if card < lowest_card or card > 51 or used[card]:
                return 8
            used[card] = True
    left = 0
    for card in range(lowest_card, 52):
        left += not used[card]
    if left < 5 - kt:
        return 7
    return 0


@njit(cache=True, _nrt=False)
def _tables(first, stop, chips, dead, live, hole, board, known, button, seeds, game, tables, rules, out, work):
    """Tables ``first`` to ``stop`` (see the module's docstring), in the chunk's scratch ``work``: one
    function for them all, the arrays unpacked once (a call per table costs as much as a turn walk)."""
    ev, sq, drawn, exact, status = out
    lowest_card, budget, samples, hu_keys, hu_counts, folded_seen = game
    displace7, values7, _, _, flush_values, card_key, card_bit = tables
    c, dd, lv, seats, used, rest, seat_rank, seat_suit, seat_lane, skey, sbits, counts = work[0]
    vals, flushed, sc, sp, lo, hi, amt, prk, mask, won, kind, pay, tmp, sum1, sum2, pk, pb, idx, amt0 = work[1]
    keys, weights, rows, rank5, avail, avail2, r, w, key, ix, suited, idx5, sub, rank_vals, flushv = work[2]
    low = work[3]
    S = chips.shape[1]
    for t in range(first, stop):
        bad = _bad_input(t, chips, dead, live, hole, board, known, button, lowest_card, folded_seen, used)
        if bad:
            status[t] = -bad
            continue
        n = 0
        for s in range(S):
            c[s] = chips[t, s]
            dd[s] = dead[t, s]
            lv[s] = live[t, s]
            sum1[s] = 0.0
            sum2[s] = 0.0
            sc[s] = 0
            sp[s] = False
            if lv[s]:
                seats[n] = s
                seat_rank[n] = 0
                for u in range(4):
                    seat_suit[n, u] = 0
                    seat_lane[n, u] = 0
                for j in range(2):
                    add_card(n, hole[t, s, j], seat_rank, seat_suit, seat_lane)
                skey[n] = card_key[hole[t, s, 0]] + card_key[hole[t, s, 1]]
                sbits[n] = card_bit[hole[t, s, 0]] | card_bit[hole[t, s, 1]]
                n += 1
        bkey = KEY_INIT
        bbits = np.uint64(0)
        for j in range(known[t]):
            b = board[t, j]
            bkey += card_key[b]
            bbits |= card_bit[b]
            for i in range(n):
                add_card(i, b, seat_rank, seat_suit, seat_lane)
        m = 0
        for card in range(lowest_card, 52):
            if not used[card]:
                rest[m] = card
                m += 1
        k = 5 - known[t]
        total = combinations(m, k)
        counted = n <= MAX_COUNTED
        norders = n**n if counted else 1
        for o in range(max(norders, 4)):
            counts[o] = 0
        tabled = False
        if n == 2 and k == 5 and m == 48 and hu_keys.shape[0] > 0:  # heads-up preflop, no card seen but theirs: tabled
            a, b = seats[0], seats[1]
            tabled = lookup(hu_keys, hu_counts, hole[t, a, 0], hole[t, a, 1], hole[t, b, 0], hole[t, b, 1], counts)
        # walked: at most the budget's completions (drawing more than there are walks them), and heads-up
        # preflop whatever the budget, as the table served it: by ranks, about RANK_WALK completions' work
        walk = tabled or (total >= 0 and (total <= max(budget, samples) or (n == 2 and k == 5)))
        draws = total if walk else samples
        code = OK
        if walk and counted and not tabled and k <= 2:
            walk_few(
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
                idx5,
                sub,
                rank_vals,
                vals,
                flushv,
            )
        elif walk and counted and not tabled:
            walk_five(
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
                rank5,
                avail,
                avail2,
                r,
                w,
                key,
                ix,
                suited,
                idx5,
                sub,
                vals,
                flushv,
            )
        elif not tabled:  # drawn, or walked card by card and paid as it comes (more than MAX_COUNTED seats)
            pk[0] = bkey
            pb[0] = bbits
            for j in range(k):
                idx[j] = j
                pk[j + 1] = pk[j] + card_key[rest[j]]
                pb[j + 1] = pb[j] | card_bit[rest[j]]
            state = seeds[t]
            for d in range(draws):
                if not walk:  # k cards drawn without replacement: a partial shuffle of ``rest``
                    for j in range(k):
                        state, z = _mix(state)
                        x = j + np.int64(((z >> np.uint64(32)) * np.uint64(m - j)) >> np.uint64(32))
                        rest[j], rest[x] = rest[x], rest[j]
                        pk[j + 1] = pk[j] + card_key[rest[j]]
                        pb[j + 1] = pb[j] | card_bit[rest[j]]
                for i in range(n):
                    vals[i] = value7(pk[k] + skey[i], pb[k] | sbits[i], displace7, values7, flush_values)
                if counted:
                    counts[order_index(vals, n)] += 1
                else:
                    for i in range(n):
                        sc[seats[i]] = vals[i]
                    code = _pay_into(
                        c, dd, low, lv, sc, sp, button[t], rules, lo, hi, amt, mask, won, kind, prk, pay, tmp
                    )
                    if code != OK:
                        break
                    for s in range(S):
                        x = np.float64(pay[s])
                        sum1[s] += x
                        sum2[s] += x * x
                if walk and k > 0 and d + 1 < draws:  # the next combination of k of the m cards
                    i = k - 1
                    while idx[i] == m - k + i:
                        i -= 1
                    idx[i] += 1
                    for j in range(i + 1, k):
                        idx[j] = idx[j - 1] + 1
                    for j in range(i, k):
                        pk[j + 1] = pk[j] + card_key[rest[idx[j]]]
                        pb[j + 1] = pb[j] | card_bit[rest[idx[j]]]
        if counted and code == OK:
            layered = True  # no dead chips: the pots are layered once, their winners found per order
            for s in range(S):
                layered &= dd[s] == 0
            npots = 0
            if layered:  # the rake, uncalled bets and refunds once (into ``tmp``); per order, who wins each pot
                npots = standard_layers(c, lv, sc, sp, rules, lo, hi, amt0, mask, won, kind)
                for s in range(S):
                    tmp[s] = 0
                code, _ = standard_raked(c, npots, button[t], rules, lo, hi, amt0, mask, won, kind, prk, tmp)
            for o in range(norders if code == OK else 0):
                weight = counts[o]
                if weight == 0:
                    continue
                x = o
                for i in range(n):  # stand-in values that rank the seats as the order does
                    sc[seats[i]] = n - x % n
                    x //= n
                if layered:
                    for s in range(S):
                        pay[s] = tmp[s]
                    standard_layered(sc, sp, button[t], rules, npots, amt0, mask, won, kind, pay)
                else:
                    code = _pay_into(
                        c, dd, low, lv, sc, sp, button[t], rules, lo, hi, amt, mask, won, kind, prk, pay, tmp
                    )
                if code != OK:
                    break
                for s in range(S):
                    x = np.float64(pay[s])  # in floats before the weight: a count times a big pot overflows int64
                    sum1[s] += weight * x
                    sum2[s] += weight * (x * x)
        status[t] = code
        drawn[t] = draws
        exact[t] = walk
        for s in range(S):
            mean = sum1[s] / draws if draws > 0 else 0.0
            ev[t, s] = mean
            spread = max(sum2[s] / draws - mean * mean, 0.0) if draws > 0 else 0.0
            if walk or draws < 2:
                sq[t, s, 0] = 0.0
                sq[t, s, 1] = spread
            else:
                sq[t, s, 1] = spread * draws / (draws - 1)
                sq[t, s, 0] = math.sqrt(sq[t, s, 1] / draws)


@njit(cache=True)
def _chunk(first, stop, chips, dead, live, hole, board, known, button, seeds, game, tables, rules, out, norders):
    """Tables ``first`` to ``stop``, with their scratch allocated once (a turn all-in is a few
    hundred nanoseconds of work: allocating per table would double it)."""
    S = chips.shape[1]
    five = 1  # the preflop walk's scratch (a few hundred kB: allocating it per chunk cost as much as a turn walk)
    for t in range(first, stop):
        n = 0
        for s in range(S):
            n += live[t, s]
        if known[t] == 0 and n <= MAX_COUNTED:
            five = MULTISETS
    work = (
        (
            np.empty(S, np.int64),
            np.empty(S, np.int64),
            np.empty(S, np.bool_),
            np.empty(S, np.int64),
            np.empty(52, np.bool_),
            np.empty(52, np.int64),
            np.empty(S, np.uint64),
            np.empty((S, 4), np.int64),
            np.empty((S, 4), np.uint64),
            np.empty(S, np.uint64),
            np.empty(S, np.uint64),
            np.zeros(max(norders, 4), np.int64),
        ),
        (
            np.empty(S, np.int64),
            np.empty(S, np.bool_),
            np.zeros(S, np.int64),
            np.zeros(S, np.bool_),
            np.empty(S + 1, np.int64),
            np.empty(S + 1, np.int64),
            np.empty(S + 1, np.int64),
            np.zeros(S + 1, np.int64),
            np.empty(S + 1, np.uint64),
            np.empty(S + 1, np.uint64),
            np.empty(S + 1, np.int8),
            np.zeros(S, np.int64),
            np.empty(S, np.int64),
            np.zeros(S, np.float64),
            np.zeros(S, np.float64),
            np.empty(6, np.uint64),
            np.empty(6, np.uint64),
            np.empty(6, np.int64),
            np.empty(S + 1, np.int64),
        ),
        (
            np.empty(five, np.uint64),
            np.empty(five, np.int64),
            np.empty(five, np.int64),
            np.empty((five, S), np.uint32),
            np.empty(13, np.int64),
            np.empty(13, np.int64),
            np.empty(6, np.int64),
            np.empty(6, np.int64),
            np.empty(6, np.uint64),
            np.empty(6, np.int64),
            np.empty(13, np.int64),
            np.empty(6, np.int64),
            np.empty(6, np.int64),
            np.empty((169, S), np.int64),
            np.empty(S, np.int64),
        ),
        np.empty(0, np.int64),
    )
    _tables(first, stop, chips, dead, live, hole, board, known, button, seeds, game, tables, rules, out, work)


CHUNK = 64  # the fewest tables a thread takes at a time, with one allocation of scratch
MAX_CHUNK = 2048


@njit(cache=True, parallel=True)
def equity_kernel(chips, dead, live, hole, board, known, button, seeds, game, tables, rules, out, threads):
    """Every table's equity, chunks of tables in parallel (see the module's docstring): four chunks
    a thread at least (``threads``: numba's, passed in: a kernel that asks for them cannot be cached),
    so that threads given heavier tables do not leave the others waiting."""
    T = chips.shape[0]
    most = 0
    for t in range(T):
        n = 0
        for s in range(chips.shape[1]):
            n += live[t, s]
        if n <= MAX_COUNTED:
            most = max(most, n)
    norders = most**most  # the most orders a table counts (one with more seats pays as it goes)
    size = min(max(T // (4 * max(threads, 1)), CHUNK), MAX_CHUNK)
    chunks = (T + size - 1) // size
    for ch in prange(chunks):
        first = ch * size
        _chunk(
            first,
            min(first + size, T),
            chips,
            dead,
            live,
            hole,
            board,
            known,
            button,
            seeds,
            game,
            tables,
            rules,
            out,
            norders,
        )


@dataclasses.dataclass(frozen=True)
class Walk:
    """How far the equity walk goes: every completion of the board when there are at most
    ``budget`` of them (a heads-up preflop all-in's whatever the budget: walked by ranks, it costs
    about :data:`RANK_WALK` completions' work), else ``samples`` completions drawn with ``seed``
    (with each table's own seed, see :func:`all_in_equity`); ``deck``: which recorded cards are out
    of the deck (a :data:`DECKS` name).

    >>> Walk().budget, Walk(budget=0).samples, Walk().deck
    (100000, 10000, 'seen')
    >>> Walk(samples=1)
    Traceback (most recent call last):
    ValueError: samples must be between 2 and 10,000,000, got 1
    >>> Walk(deck="folded")
    Traceback (most recent call last):
    ValueError: deck must be one of seen, trackers, got 'folded'
    """

    budget: int = WALK_BUDGET
    samples: int = WALK_SAMPLES
    seed: int = WALK_SEED
    deck: str = WALK_DECK

    def __post_init__(self) -> None:
        for name in ("budget", "samples", "seed"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                raise ValueError(f"{name} must be a whole number, got {value!r}")
        if not 0 <= self.budget < 2**63:
            raise ValueError(f"budget must be between 0 and 2**63 - 1, got {self.budget}")
        if not 2 <= self.samples <= MAX_SAMPLES:  # one sample has no standard error to report
            raise ValueError(f"samples must be between 2 and {MAX_SAMPLES:,}, got {self.samples}")
        if not 0 <= self.seed < 2**64:
            raise ValueError(f"seed must be between 0 and 2**64 - 1, got {self.seed}")
        if self.deck not in DECKS:
            raise ValueError(f"deck must be one of {', '.join(DECKS)}, got {self.deck!r}")


@dataclasses.dataclass(frozen=True)
class Equity:
    """Each table's all-in equity: ``ev_payout[T, S]`` (expected chips paid to each seat),
    ``equity_se[T, S]`` (its standard error, 0 when every completion was walked), ``drawn[T]``
    (completions walked or drawn), ``exact[T]``, ``payout_var[T, S]`` (the variance of the seat's
    payout over the completions: what a fairness test weighs an all-in's outcome by)."""

    ev_payout: np.ndarray
    equity_se: np.ndarray
    drawn: np.ndarray
    exact: np.ndarray
    payout_var: np.ndarray

    @property
    def equity(self) -> np.ndarray:
        """Each seat's share of what the table pays out (rows sum to one; NaN where it pays nothing)."""
        paid = self.ev_payout.sum(axis=1, keepdims=True)
        with np.errstate(invalid="ignore", divide="ignore"):
            return self.ev_payout / paid


NO_TABLE = (np.zeros(0, np.int64), np.zeros((0, 3), np.uint32))


@functools.cache
def _headsup() -> tuple[np.ndarray, np.ndarray]:
    """The heads-up preflop table (:mod:`.headsup`), loaded once a process."""
    return load_headsup()


def _seeds(seed: int, hand_ids: np.ndarray) -> np.ndarray:
    """A table's seed from the walk's and the hand's: its draws do not depend on the batch around it."""
    mixed = hand_ids.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(seed & 0xFFFFFFFFFFFFFFFF)
    return mixed ^ (mixed >> np.uint64(29))


def all_in_equity(
    chips: ArrayLike,
    live: ArrayLike,
    hole: ArrayLike,
    board: ArrayLike,
    known: ArrayLike,
    button: ArrayLike,
    *,
    dead: ArrayLike | None = None,
    options: Options | None = None,
    walk: Walk = Walk(),
    hand_ids: ArrayLike | None = None,
    tables: tuple[np.ndarray, ...] = SCORE_TABLES,
    lowest_card: int = 0,
    headsup: bool = True,
) -> Equity:
    """Expected payouts of tables all-in with ``known[t]`` board cards dealt (0, 3, 4 or 5): the
    rest of the board is walked (or drawn, per ``walk``) from the cards the table does not show
    (``walk.deck``: whether folded seats' recorded cards count as shown; 255 is unknown), and
    each completion's pots paid under ``options`` (the standard policy's rules). ``chips[T, S]``
    each seat's chips in, ``live[T, S]``, ``hole[T, S, 2]`` and ``board[T, 5]`` card codes (a
    live seat's and the known board's must be real and distinct; a folded seat's too where
    recorded, 255 where not: pad seats a table does not have with 255), ``button[T]``; ``dead`` the
    seats' dead chips (part of ``chips``); ``hand_ids`` seed each table's draws (default: its
    index); ``tables``/``lowest_card``: another evaluator's tables and deck (the short deck's);
    ``headsup``: Hold'em's heads-up preflop all-ins from the table of :mod:`.headsup` (False: walked,
    or sampled above the budget, like any other).

    >>> from cardbatch.kernels.cards import parse
    >>> hole = parse(["AsAh", "KsKh"]).reshape(1, 2, 2)
    >>> board = parse(["2c7d9hTs4c"])
    >>> e = all_in_equity([[100, 100]], [[True, True]], hole, board, [3], [0])
    >>> bool(e.exact[0]), int(e.drawn[0]), [round(float(x), 4) for x in e.ev_payout[0]]
    (True, 990, [183.2323, 16.7677])
    """
    opts = _standard(options)
    if not isinstance(walk, Walk):
        raise ValueError(f"walk must be a Walk, got {type(walk).__name__}")
    if isinstance(lowest_card, bool) or not isinstance(lowest_card, (int, np.integer)) or not 0 <= lowest_card <= 51:
        raise ValueError(f"lowest_card must be a card code (0 to 51), got {lowest_card!r}")
    lowest_card = int(lowest_card)
    c, d, lv, h, b, kn, bt, ids = _arrays(chips, dead, live, hole, board, known, button, hand_ids, 2)
    T, S = c.shape
    out = (
        np.zeros((T, S), np.float64),
        np.zeros((T, S, 2), np.float64),
        np.zeros(T, np.int64),
        np.zeros(T, np.bool_),
        np.zeros(T, np.int16),
    )
    tabled = headsup and tables is SCORE_TABLES and lowest_card == 0
    hu_keys, hu_counts = _headsup() if tabled else NO_TABLE
    seen = np.int64(DECKS[walk.deck].folded_seen)
    game = (np.int64(lowest_card), np.int64(walk.budget), np.int64(walk.samples), hu_keys, hu_counts, seen)
    rules = opts.lower(False, 0, False)
    seeds = _seeds(walk.seed, ids)
    threads = get_num_threads()
    for z in slices(lv, kn, lowest_card, walk):  # a long run still answers Ctrl-C and SIGTERM between them
        part = tuple(x[z] for x in out)
        equity_kernel(c[z], d[z], lv[z], h[z], b[z], kn[z], bt[z], seeds[z], game, tables, rules, part, threads)
    bad = np.flatnonzero(out[4])
    if bad.size:
        t, code = int(bad[0]), int(out[4][bad[0]])
        if code < 0:  # input the walk cannot take (checked in the kernel: whole-array checks cost as much as a walk)
            got = f" (got {int(kn[t])})" if code == -1 else ""
            raise ValueError(f"table {t}: {INPUT_PROBLEMS[-code - 1]}{got}")
        raise ValueError(f"table {t}: its pots cannot be paid (orphan chips, and the rules keep them)")
    return Equity(out[0], out[1][:, :, 0], out[2], out[3], out[1][:, :, 1])


_COMB = np.array([[math.comb(m, k) for k in range(6)] for m in range(53)], np.int64)
PAID_EACH = 16  # a completion paid as it comes (more than MAX_COUNTED seats) costs about this many counted ones


def slices(lv: np.ndarray, kn: np.ndarray, lowest_card: int, walk: Walk) -> list[slice]:
    """The tables in runs of about :data:`SLICE_DRAWS` counted completions' work each (well under a
    second): one kernel call per run, since a call costs microseconds and a long batch must still
    return to Python, where Ctrl-C and SIGTERM are answered, between runs."""
    T = lv.shape[0]
    if T == 0:
        return []
    n = lv.sum(axis=1)
    left = np.clip((52 - lowest_card) - 2 * n - kn, 0, 52)
    total = _COMB[left, np.clip(5 - kn, 0, 5)]
    walked = (total <= max(walk.budget, walk.samples)) | ((n == 2) & (kn == 0))
    draws = np.where(walked, total, walk.samples)
    cost = np.where(n > MAX_COUNTED, draws * PAID_EACH, np.where(walked, np.minimum(total, RANK_WALK), draws))
    ends = np.cumsum(np.maximum(cost, 1))
    cuts = np.unique(np.searchsorted(ends, np.arange(SLICE_DRAWS, ends[-1], SLICE_DRAWS), side="left") + 1)
    edges = [0, *(int(c) for c in cuts if 0 < c < T), T]
    return [slice(a, b) for a, b in zip(edges[:-1], edges[1:])]


def _standard(options: Options | None) -> Options:
    """The pot rules, which must be the standard policy's: the walk pays the pots as it does."""
    opts = Options() if options is None else options
    if not isinstance(opts, Options):
        raise ValueError(f"options must be a cardbatch.kernels.pots.Options, got {type(opts).__name__}")
    if opts.policy.name.lower() != "standard":
        raise ValueError(f"equity is defined for the standard policy only, got policy {opts.policy.name.lower()}")
    return opts


def _arrays(
    chips: ArrayLike,
    dead: ArrayLike | None,
    live: ArrayLike,
    hole: ArrayLike,
    board: ArrayLike,
    known: ArrayLike,
    button: ArrayLike,
    hand_ids: ArrayLike | None,
    per: int | None,
) -> tuple[np.ndarray, ...]:
    """The walks' inputs as the kernels take them (chips, dead, live, hole, board, known, button,
    hand ids), each a whole number of its kind and of its table's shape (``per`` hole cards a
    seat; None: as given), or a ValueError."""
    c = _chips(chips, "chips")
    if c.ndim != 2:
        raise ValueError(f"chips must be [tables, seats], got shape {c.shape}")
    T, S = c.shape
    lv = np.ascontiguousarray(live, dtype=np.bool_)
    h = _cards(hole, "hole")
    b = _cards(board, "board")
    kn = _whole(known, "known")
    bt = _whole(button, "button")
    d = np.zeros((T, S), np.int64) if dead is None else _chips(dead, "dead")
    ids = np.arange(T, dtype=np.int64) if hand_ids is None else _chips(hand_ids, "hand_ids")
    cards = per if per is not None else (h.shape[2] if h.ndim == 3 else 0)
    for name, arr, shape in (
        ("live", lv, (T, S)),
        ("hole", h, (T, S, cards)),
        ("board", b, (T, 5)),
        ("known", kn, (T,)),
        ("button", bt, (T,)),
        ("dead", d, (T, S)),
        ("hand_ids", ids, (T,)),
    ):
        if arr.shape != shape:
            raise ValueError(f"{name} must have shape {shape}, got {arr.shape}")
    return c, d, lv, h, b, kn, bt, ids


def _whole(values: ArrayLike, name: str) -> np.ndarray:
    """``values`` as int64: integers, or floats that hold whole numbers (a fraction would be cut);
    else a ValueError."""
    a = np.asarray(values)
    if a.dtype.kind == "f" and a.size and not (np.isfinite(a).all() and (a == np.floor(a)).all()):
        bad = np.argwhere(~(np.isfinite(a) & (a == np.floor(a))))[0]
        where = f"table {int(bad[0])}: " if a.ndim else ""
        raise ValueError(f"{where}{name} must be whole numbers, got {float(a[tuple(bad)])!r}")
    if a.dtype.kind not in "uif" or (a.dtype.kind == "f" and a.size and np.abs(a).max() >= 2**63):
        raise ValueError(f"{name} must be whole numbers, got dtype {a.dtype}")
    return _chips(a.astype(np.int64) if a.dtype.kind == "f" else a, name)


def _cards(values: ArrayLike, name: str) -> np.ndarray:
    """Card codes as uint8 (see :func:`_whole`). A code outside 0..255 becomes 254, not a card:
    the kernel refuses it where a card is needed (uint8 would wrap it to another card)."""
    a = np.asarray(values)
    if a.dtype.kind == "u" and a.dtype != np.uint8 and a.size:
        a = np.where(a > 255, 254, a).astype(np.int64)  # beyond int64 too: not a card either way
    if a.dtype != np.uint8:
        a = _whole(a, name)
    if a.dtype != np.uint8 and a.size:
        a = np.where((a < 0) | (a > 255), 254, a)
    return np.ascontiguousarray(a, dtype=np.uint8)


def _chips(values: ArrayLike, name: str) -> np.ndarray:
    """``values`` as int64, or a ValueError: not integers, or beyond int64 (chips: below zero is
    the kernel's, which names the table)."""
    a = np.asarray(values)
    if a.dtype.kind not in "ui" and not (a.size == 0 and a.dtype.kind == "f"):
        raise ValueError(f"{name} must be integers, got dtype {a.dtype}")
    if a.dtype == np.uint64 and (a > np.iinfo(np.int64).max).any():
        raise ValueError(f"{name} do not fit int64")
    return np.ascontiguousarray(a, dtype=np.int64)


@functools.lru_cache(maxsize=16)
def _index_combinations(m: int, k: int) -> np.ndarray:
    """Every k of range(m) as rows (lexicographic), for the games walked through their evaluators."""
    import itertools

    flat = np.fromiter(itertools.chain.from_iterable(itertools.combinations(range(m), k)), np.uint8)
    return flat.reshape(-1, k) if k else np.zeros((1, 0), np.uint8)


def _ranks(values: np.ndarray, none: np.ndarray | None = None) -> np.ndarray:
    """Per row, each seat's count of seats strictly better (``values``: higher is better); a seat in
    ``none`` (no low) ranks below every seat with one, by a rank of its own (n)."""
    better = (values[:, None, :] > values[:, :, None]).sum(axis=2)
    if none is not None:
        better = np.where(none, values.shape[1], better)
    return better.astype(np.int16)


def all_in_equity_by_evaluator(
    spec: Any,
    chips: ArrayLike,
    live: ArrayLike,
    hole: ArrayLike,
    board: ArrayLike,
    known: ArrayLike,
    button: ArrayLike,
    *,
    dead: ArrayLike | None = None,
    options: Options | None = None,
    walk: Walk = Walk(),
    hand_ids: ArrayLike | None = None,
) -> Equity:
    """:func:`all_in_equity` for the other board games (Omaha, five- and six-card Omaha, their hi/lo):
    every completion of each table's board (or a seeded sample above the budget) valued by the
    game's own evaluators (:func:`cardbatch.kernels.showdown.seat_values`: high and, for hi/lo, low
    hands) and the pots paid by the settlement (:func:`cardbatch.kernels.pots.settle_detailed`,
    halves included) once per order of the live seats' high and low hands (with the values of the
    first completion that gave it), weighted by how often it came. ``hole[T, S, h]``; the rest as
    :func:`all_in_equity`."""
    from .pots import settle_detailed
    from .showdown import seat_values

    opts = _standard(options)
    c, d, lv, h, b, kn, bt, ids = _arrays(chips, dead, live, hole, board, known, button, hand_ids, None)
    T, S = c.shape
    if ((c < 0) | (d < 0) | (d > c)).any() or rows_beyond_int64(c).any():
        t = int(np.flatnonzero(((c < 0) | (d < 0) | (d > c)).any(axis=1) | rows_beyond_int64(c))[0])
        raise ValueError(f"table {t}: chips below zero, dead chips beyond a seat's chips, or a sum beyond int64")
    per = h.shape[2]
    ev = np.zeros((T, S))
    se = np.zeros((T, S))
    var = np.zeros((T, S))
    drawn = np.zeros(T, np.int64)
    exact = np.zeros(T, np.bool_)
    low_card = 4 * spec.lowest_rank
    for t in range(T):
        seats = np.flatnonzero(lv[t])
        n = seats.size
        if n == 0 or not 0 <= bt[t] < S or kn[t] not in (0, 3, 4, 5):
            raise ValueError(f"table {t}: no live seat, a button that is not a seat, or a known board of {kn[t]}")
        used = np.zeros(52, bool)
        folded = h[t, np.flatnonzero(~lv[t])].ravel() if DECKS[walk.deck].folded_seen else h[t, :0].ravel()
        folded = folded[folded != _NO_CARD].astype(np.int64)  # recorded cards of folded seats: seen
        cards = np.concatenate([h[t, seats].ravel(), b[t, : kn[t]]]).astype(np.int64)
        if (cards < low_card).any() or (cards > 51).any() or np.unique(cards).size != cards.size:
            raise ValueError(
                f"table {t}: a live seat's or the known board's card is missing, repeated or not in the deck"
            )
        used[cards] = True
        wrong = (folded < low_card) | (folded > 51)
        if wrong.any() or used[folded[~wrong]].any() or np.unique(folded).size < folded.size:
            raise ValueError(f"table {t}: {INPUT_PROBLEMS[7]}")
        used[folded] = True
        rest = np.flatnonzero(~used[low_card:]).astype(np.uint8) + np.uint8(low_card)
        k = 5 - int(kn[t])
        if rest.size < k:
            raise ValueError(f"table {t}: {INPUT_PROBLEMS[6]}")
        total = combinations(rest.size, k)
        if 0 <= total <= walk.budget:
            picks = rest[_index_combinations(rest.size, k)]
            exact[t] = True
        else:
            rng = np.random.default_rng([walk.seed & 0xFFFFFFFFFFFFFFFF, int(ids[t]) & 0xFFFFFFFFFFFFFFFF])
            picks = rest[np.argsort(rng.random((walk.samples, rest.size)), axis=1)[:, :k]]
        K = len(picks)
        drawn[t] = K
        boards = np.empty((K, 5), np.uint8)
        boards[:, : kn[t]] = b[t, : kn[t]]
        boards[:, kn[t] :] = picks
        holes = np.ascontiguousarray(np.broadcast_to(h[t, seats][None], (K, n, per)))
        high, low = seat_values(spec, holes, boards, np.ones((K, n), bool))
        orders = _ranks(high)
        if low is not None:
            lows = np.where(low == 0, np.iinfo(np.int64).max, low)  # smaller is better; 0: no low
            orders = np.concatenate([orders, _ranks(-lows, none=low == 0)], axis=1)
        found, first, counts = np.unique(orders, axis=0, return_index=True, return_counts=True)
        P = len(found)
        stand_high = np.zeros((P, S), np.int64)  # each order's values: those of its first completion
        stand_high[:, seats] = high[first]
        stand_low = None
        if low is not None:
            stand_low = np.zeros((P, S), np.int64)
            stand_low[:, seats] = low[first]
        paid = settle_detailed(
            np.repeat(c[t][None], P, 0),
            np.repeat(lv[t][None], P, 0),
            stand_high,
            np.full(P, bt[t]),
            options=opts,
            dead=np.repeat(d[t][None], P, 0),
            low=stand_low,
            detail=False,
        ).payout.astype(np.float64)
        w = counts.astype(np.float64)[:, None]
        mean = (w * paid).sum(axis=0) / K
        spread = np.maximum((w * paid * paid).sum(axis=0) / K - mean * mean, 0.0)
        ev[t] = mean
        var[t] = spread if exact[t] or K < 2 else spread * K / (K - 1)
        se[t] = 0.0 if exact[t] or K < 2 else np.sqrt(var[t] / K)
    return Equity(ev, se, drawn, exact, var)
