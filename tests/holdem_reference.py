"""A slow, obviously correct Hold'em evaluator written from the rules (SPEC §3), for tests only.

Five cards are classified by counting ranks and suits; six or seven cards take
the best of every five-card subset.
"""

from __future__ import annotations

import itertools
from collections import Counter


def five_card_score(hand: tuple[int, ...]) -> int:
    ranks = sorted((c // 4 for c in hand), reverse=True)
    suits = {c % 4 for c in hand}
    counts = Counter(ranks)
    # ranks ordered by (count, rank), most significant first
    groups = sorted(counts.items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
    flush = len(suits) == 1
    distinct = sorted(counts, reverse=True)
    straight_top = None
    if len(distinct) == 5:
        if distinct[0] - distinct[4] == 4:
            straight_top = distinct[0]
        elif distinct == [12, 3, 2, 1, 0]:
            straight_top = 3
    shape = sorted(counts.values(), reverse=True)
    if straight_top is not None and flush:
        category, order = 8, [straight_top]
    elif shape[0] == 4:
        category, order = 7, [g[0] for g in groups]
    elif shape[:2] == [3, 2]:
        category, order = 6, [g[0] for g in groups]
    elif flush:
        category, order = 5, ranks
    elif straight_top is not None:
        category, order = 4, [straight_top]
    elif shape[0] == 3:
        category, order = 3, [g[0] for g in groups]
    elif shape[:2] == [2, 2]:
        category, order = 2, [g[0] for g in groups]
    elif shape[0] == 2:
        category, order = 1, [g[0] for g in groups]
    else:
        category, order = 0, ranks
    value = category << 20
    for i, r in enumerate(order):
        value |= r << (16 - 4 * i)
    return value


def best_score(hand) -> int:
    return max(five_card_score(five) for five in itertools.combinations([int(c) for c in hand], 5))
