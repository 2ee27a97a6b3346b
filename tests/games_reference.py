"""Slow, plain-Python references for Omaha high, eight-or-better lows, short deck and high/low pots,
written from the rules for tests only (none of them calls cardbatch's kernels).

Cards are ``rank * 4 + suit`` (rank 0 = two .. 12 = ace), as everywhere in cardbatch.

- Omaha (high and low): every hand of exactly two hole cards and three board cards.
- Eight-or-better low: five distinct ranks, all eight or lower, aces low; straights and flushes do
  not count. Lows compare from the highest card down; the smallest is the best.
- Short deck: 36 cards (six .. ace); A-6-7-8-9 is the lowest straight; a flush beats a full house;
  a straight beats three of a kind, or the other way round with ``trips_beat_straight``.
- High/low pots: each normal pot in a high half and a low half when one of its eligible seats has a
  low (the low half in whole chip units, rounded down; the odd chip to the high half); pots as
  :mod:`pots_reference` forms them.
"""

from __future__ import annotations

import functools
import itertools
from collections import Counter

from holdem_reference import five_card_score
from pots_reference import Orphan, best, layers, split_equal

# ---------------------------------------------------------------- Omaha high


def omaha_high(hole, board) -> int:
    """Best Hold'em score (holdem_reference's packing) of two hole cards and three board cards."""
    hole = [int(c) for c in hole]
    board = [int(c) for c in board]
    return max(
        five_card_score(tuple(pair) + tuple(three))
        for pair in itertools.combinations(hole, 2)
        for three in itertools.combinations(board, 3)
    )


# ---------------------------------------------------------------- eight-or-better low


def low_value(rank: int) -> int:
    """A rank's value in a low: ace 1, two 2 .. king 13."""
    return 1 if rank == 12 else rank + 2


def five_card_low(hand) -> tuple[int, ...] | None:
    """The low of five cards, highest card first (e.g. (8, 6, 4, 2, 1)), or None if they make no
    eight-or-better low (a pair, or a card above eight)."""
    values = sorted((low_value(int(c) // 4) for c in hand), reverse=True)
    if len(set(values)) != 5 or values[0] > 8:
        return None
    return tuple(values)


def omaha_low(hole, board) -> tuple[int, ...] | None:
    """Best (smallest) eight-or-better low of two hole cards and three board cards, or None."""
    lows = [
        five_card_low(tuple(pair) + tuple(three))
        for pair in itertools.combinations([int(c) for c in hole], 2)
        for three in itertools.combinations([int(c) for c in board], 3)
    ]
    lows = [v for v in lows if v is not None]
    return min(lows) if lows else None


def low_as_hex(low: tuple[int, ...] | None) -> int:
    """A low as hex digits, highest card first (8-6-4-2-A is 0x86421); 0 for none."""
    if low is None:
        return 0
    v = 0
    for d in low:
        v = v << 4 | d
    return v


# ---------------------------------------------------------------- short deck

SD_CATEGORIES = (  # weakest first, a straight above trips (pokerkit's order)
    "high card",
    "pair",
    "two pair",
    "trips",
    "straight",
    "full house",
    "flush",
    "quads",
    "straight flush",
)
# Hold'em's category code of each (0 high card .. 8 straight flush: there a full house beats a flush)
HOLDEM_CODE = {
    "high card": 0,
    "pair": 1,
    "two pair": 2,
    "trips": 3,
    "straight": 4,
    "flush": 5,
    "full house": 6,
    "quads": 7,
    "straight flush": 8,
}


def short_deck_order(trips_beat_straight: bool) -> tuple[str, ...]:
    """The categories weakest first."""
    if trips_beat_straight:
        return ("high card", "pair", "two pair", "straight", "trips", "full house", "flush", "quads", "straight flush")
    return SD_CATEGORIES


def short_deck_five(hand, trips_beat_straight: bool = False) -> tuple[int, tuple[int, ...], str]:
    """(strength, tie-break ranks, category name) of five short-deck cards: compare the first two as a
    tuple; higher is better. Raises ValueError for a card below a six."""
    cards = [int(c) for c in hand]
    if any(c < 16 or c > 51 for c in cards) or len(set(cards)) != 5:
        raise ValueError(f"not five short-deck cards: {cards}")
    ranks = sorted((c // 4 for c in cards), reverse=True)
    flush = len({c % 4 for c in cards}) == 1
    counts = Counter(ranks)
    groups = sorted(counts.items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
    by_group = tuple(r for r, _ in groups)
    shape = sorted(counts.values(), reverse=True)
    straight_top = None
    if len(counts) == 5:
        if ranks[0] - ranks[4] == 4:
            straight_top = ranks[0]
        elif ranks == [12, 7, 6, 5, 4]:  # A-6-7-8-9: the ace plays below the six
            straight_top = 7
    if straight_top is not None and flush:
        name, tie = "straight flush", (straight_top,)
    elif shape[0] == 4:
        name, tie = "quads", by_group
    elif flush:
        name, tie = "flush", tuple(ranks)
    elif shape == [3, 2]:
        name, tie = "full house", by_group
    elif straight_top is not None:
        name, tie = "straight", (straight_top,)
    elif shape[0] == 3:
        name, tie = "trips", by_group
    elif shape[:2] == [2, 2]:
        name, tie = "two pair", by_group
    elif shape[0] == 2:
        name, tie = "pair", by_group
    else:
        name, tie = "high card", tuple(ranks)
    return short_deck_order(trips_beat_straight).index(name), tie, name


def short_deck_best(hand, trips_beat_straight: bool = False) -> tuple[int, tuple[int, ...], str]:
    """Best five of 5..7 short-deck cards, as :func:`short_deck_five`."""
    return max(
        (short_deck_five(five, trips_beat_straight) for five in itertools.combinations(hand, 5)),
        key=lambda v: (v[0], v[1]),
    )


# ---------------------------------------------------------------- high/low pots


def settle_hilo(contrib, live, score, low, button, unit=1, first_winner=False, pokerkit_conventions=False):
    """Payouts of one table with high/low halves (the standard policy, no rake, no dead chips).

    ``low``: each seat's low, higher wins, 0 none (ignored where not live). Each normal pot goes in
    halves when one of its eligible seats has a low: ``amount // unit // 2 * unit`` to its best
    low(s), the rest to its best high hand(s), each half split as :func:`pots_reference.split_equal`
    (``first_winner``: every odd chip to the first winner left of the button); otherwise the pot goes
    wholly to high. An uncalled bet goes back whole. Raises :class:`pots_reference.Orphan` for a layer
    with no live contributor.

    ``pokerkit_conventions``: pokerkit 0.7.7's rule instead (``State._begin_chips_pushing`` and
    ``push_chips``): every pot has a low half as soon as one live seat *at the table* has a low, and
    a low half none of whose eligible seats has a low is shared by all of them (their missing lows
    compare equal: ``None == None``).
    """
    S = len(contrib)
    pots = layers(list(contrib), list(live))
    if any(p["kind"] == "orphan" for p in pots):
        raise Orphan
    table_low = any(low[s] > 0 for s in range(S) if live[s])
    out = [0] * S

    def pay(amount, winners):
        for s, v in enumerate(split_equal(amount, winners, button, S, unit, first_winner)):
            out[s] += v

    for p in pots:
        eligible = p["eligible"]
        if p["kind"] == "uncalled":
            pay(p["amount"], eligible)
            continue
        with_low = {s for s in eligible if low[s] > 0}
        halves = table_low if pokerkit_conventions else bool(with_low)
        if not halves:
            pay(p["amount"], best(eligible, score))
            continue
        low_half = p["amount"] // unit // 2 * unit
        pay(p["amount"] - low_half, best(eligible, score))
        pay(low_half, best(with_low, low) if with_low else eligible)
    return out


# ---------------------------------------------------------------- comparing orders


def dense_order(items) -> list[int]:
    """Each item's place among the distinct values of ``items`` (0 the smallest), using only their
    own ``<`` (e.g. pokerkit's hands, weaker < stronger): what ``np.unique(..., return_inverse=True)``
    gives a list of numbers."""
    order = sorted(range(len(items)), key=functools.cmp_to_key(lambda i, j: _cmp(items[i], items[j])))
    out = [0] * len(items)
    place = 0
    for k, i in enumerate(order):
        if k and _cmp(items[order[k - 1]], items[i]) < 0:
            place += 1
        out[i] = place
    return out


def _cmp(a, b) -> int:
    return -1 if a < b else (1 if b < a else 0)
