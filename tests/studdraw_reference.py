"""Slow, plain-Python references for the games without a board (razz and the ace-to-five low,
deuce-to-seven, badugi, stud's eight-or-better low), written from the rules for tests only (none
of them calls cardbatch's kernels); and the numpy helpers their exhaustive tests share.

Cards are ``rank * 4 + suit`` (rank 0 = two .. 12 = ace), as everywhere in cardbatch. A hand's
key is a tuple that compares as the hands do, the smaller the better: ``(category, digits)`` with
the category's place in the game's order and the cards' digits grouped as a hand is read (the
largest group first, the higher card first among equal groups). ``as_value`` writes a key in the
kernels' packed form (Hold'em's category code from bit 20, then the five digits in hex).
"""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
from games_reference import five_card_low

# Hold'em's category codes, by name
HIGH_CARD, PAIR, TWO_PAIR, TRIPS, STRAIGHT, FLUSH, FULL_HOUSE, QUADS, STRAIGHT_FLUSH = range(9)
# the shapes of a hand's groups (the counts of its ranks, largest first), and their category
SHAPES = {
    (1, 1, 1, 1, 1): HIGH_CARD,
    (2, 1, 1, 1): PAIR,
    (2, 2, 1): TWO_PAIR,
    (3, 1, 1): TRIPS,
    (3, 2): FULL_HOUSE,
    (4, 1): QUADS,
}


def _grouped(digits: list[int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(shape, digits grouped: the largest group first, the higher digit first among equal groups)."""
    counts = Counter(digits)
    groups = sorted(counts.items(), key=lambda dc: (dc[1], dc[0]), reverse=True)
    shape = tuple(c for _, c in groups)
    return shape, tuple(d for d, c in groups for _ in range(c))


def ace_to_five(hand) -> tuple[int, tuple[int, ...]]:
    """Key of five cards as an ace-to-five low: aces are 1, straights and flushes do not count,
    a pair is worse than no pair, two pair worse still, then trips, a full house, quads."""
    digits = [1 if int(c) // 4 == 12 else int(c) // 4 + 2 for c in hand]
    shape, grouped = _grouped(digits)
    return SHAPES[shape], grouped


def razz(hand) -> tuple[int, tuple[int, ...]]:
    """The best (smallest) ace-to-five key of any five of the cards."""
    return min(ace_to_five(five) for five in itertools.combinations(hand, 5))


def deuce_to_seven(hand) -> tuple[int, tuple[int, ...]]:
    """Key of five cards as a deuce-to-seven low: the high hand's ranking (aces high only, so
    A-2-3-4-5 is no straight), the weaker high hand the better low."""
    digits = [int(c) // 4 + 2 for c in hand]
    shape, grouped = _grouped(digits)
    flush = len({int(c) % 4 for c in hand}) == 1
    straight = shape == (1, 1, 1, 1, 1) and max(digits) - min(digits) == 4
    if straight and flush:
        return STRAIGHT_FLUSH, grouped
    if flush:  # five cards of one suit are five ranks
        return FLUSH, grouped
    if straight:
        return STRAIGHT, grouped
    return SHAPES[shape], grouped


def badugi(hand) -> tuple[int, tuple[int, ...]]:
    """Key of four cards at badugi: (4 - the cards in the hand, its digits highest first, aces 1),
    the hand the largest subset with no rank and no suit twice, the lowest of those."""
    cards = [int(c) for c in hand]
    for n in range(4, 0, -1):
        hands = [
            tuple(sorted((1 if c // 4 == 12 else c // 4 + 2 for c in sub), reverse=True))
            for sub in itertools.combinations(cards, n)
            if len({c // 4 for c in sub}) == n and len({c % 4 for c in sub}) == n
        ]
        if hands:
            return 4 - n, min(hands)
    raise AssertionError("one card is always a hand")


def as_value(key: tuple[int, tuple[int, ...]]) -> int:
    """A five-card key as the kernels pack it: category << 20 | the digits in hex."""
    category, digits = key
    value = category
    for d in digits:
        value = value << 4 | d
    return value


def badugi_value(key: tuple[int, tuple[int, ...]]) -> int:
    """A badugi key as the kernel packs it: (4 - cards) << 16 | the digits in hex."""
    missing, digits = key
    value = 0
    for d in digits:
        value = value << 4 | d
    return missing << 16 | value


def eight_or_better(hand) -> int:
    """The best eight-or-better low of any five of the cards as hex digits, highest first; 0 for none."""
    lows = [low for five in itertools.combinations(hand, 5) if (low := five_card_low(five)) is not None]
    if not lows:
        return 0
    value = 0
    for d in min(lows):
        value = value << 4 | d
    return value


# ---------------------------------------------------------------- numpy helpers


def combinations(n: int, k: int) -> np.ndarray:
    """Every k-subset of range(n) in lexicographic order, ``uint8[C(n, k), k]``, built by numpy (all
    2,598,960 five-card hands in a fraction of a second)."""
    c = np.arange(n, dtype=np.int64)[:, None]
    for _ in range(k - 1):
        last = c[:, -1]
        more = n - 1 - last  # the values that may follow each row's last
        rows = np.repeat(np.arange(len(c)), more)
        step = np.arange(more.sum()) - np.repeat(np.cumsum(more) - more, more)
        c = np.hstack([c[rows], (last[rows] + 1 + step)[:, None]])
    return c.astype(np.uint8)


def rank_classes(hands: np.ndarray, suited: bool) -> tuple[np.ndarray, np.ndarray]:
    """Each hand's class: its rank multiset, and (``suited``) whether all its cards are of one suit.
    Returns (the first hand of each class, each hand's class): a value that depends on nothing
    else is the same for every hand of a class."""
    key = (np.int64(5) ** (hands >> 2).astype(np.int64)).sum(axis=1)  # counts per rank in base 5
    if suited:
        one_suit = ((hands & 3) == (hands[:, :1] & 3)).all(axis=1)
        key = key * 2 + one_suit
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    return first, inverse.ravel()


SUIT_PERMUTATIONS = np.array(list(itertools.permutations(range(4))), np.uint8)


def suit_classes(hands: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each hand's class under relabelling of the suits (the smallest sorted relabelled hand):
    (the first hand of each class, each hand's class)."""
    relabelled = (hands[None] & np.uint8(0xFC)) | SUIT_PERMUTATIONS[:, hands & 3]  # [24, N, k]
    relabelled.sort(axis=2)
    weights = np.int64(52) ** np.arange(hands.shape[1] - 1, -1, -1)
    key = (relabelled.astype(np.int64) * weights).sum(axis=2).min(axis=0)
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    return first, inverse.ravel()
