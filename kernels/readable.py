"""Readable forms of deck rankings: card text, category names, and margins in hand classes.

A packed value says nothing to a reader (a Hold'em margin of 7,375,552 is two
packed scores subtracted). So a margin is also counted in *hand classes*: the
difference of the two hands' dense ranks, 0 for a tie, 1 when the runner-up
holds the next weaker class. Hold'em has 7,462 classes (phevaluator's dense
rank); a three-card rule set has as many as its 22,100 hands have distinct
values. Plain numpy over whole columns: table lookups (Hold'em's through
:func:`cardbatch.kernels.holdem.dense_rank`), and elementwise string
concatenation over object arrays for the card text.
"""

from __future__ import annotations

import functools
import operator

import numpy as np

from cardbatch.games import REGISTRY, Game, games_with_hands

from . import threecard
from .cards import RANKS, SUITS

_CARD_TEXT = np.array([RANKS[c >> 2] + SUITS[c & 3] for c in range(52)] + ["??"] * 204, dtype=object)

GAMES = games_with_hands()  # the games these forms know; any other name is a ValueError, never a borrowed rule


def _known(game: str) -> Game:
    """The spec of ``game`` if it is one of :data:`GAMES`, else a ``ValueError`` naming it."""
    spec = REGISTRY.get(game) if isinstance(game, str) else None
    if spec is None or not spec.has_hands:
        raise ValueError(f"game must be one of {', '.join(GAMES)}, got {game!r}")
    return spec


def _rules(spec: Game, rules: str | threecard.Rules) -> tuple[str | threecard.Rules, ...]:
    """The rule preset as the evaluator takes it: an argument for a game valued under one, else none."""
    return (rules,) if spec.rule_presets else ()


def category_names(game: str, rules: str | threecard.Rules = "zjh") -> tuple[str, ...]:
    """The category names of ``game``, indexed by the category codes its evaluator returns."""
    spec = _known(game)
    return tuple(spec.kernel().category_names(rules)) if spec.rule_presets else spec.category_names


def categories(values: np.ndarray, game: str, rules: str | threecard.Rules = "zjh") -> np.ndarray:
    """Category code of each value (``uint8``)."""
    spec = _known(game)
    result: np.ndarray = spec.kernel().category_of(values, *_rules(spec, rules))
    return result


def describe(value: int, game: str, rules: str | threecard.Rules = "zjh") -> str:
    """One value of ``game`` in words (``"Pair of Kings"``)."""
    spec = _known(game)
    return str(spec.kernel().describe(value, *_rules(spec, rules)))


def cards_per_seat(game: str) -> int:
    """The hole cards a seat of ``game`` is dealt."""
    return _known(game).hole_cards


@functools.lru_cache(maxsize=16)
def _three_card_classes(rules: threecard.Rules) -> np.ndarray:
    """``int32[max value + 1]``: each value's class, 1 = the weakest (a direct lookup: a sorted
    search cost 100 ms per million decks, 20 % of a lean ``rank-decks`` run; this, 13-23 ms)."""
    values = threecard.distinct_values(rules)
    lookup = np.zeros(int(values[-1]) + 1, np.int32)
    lookup[values] = np.arange(1, len(values) + 1, dtype=np.int32)
    return lookup


def hand_class(values: np.ndarray, game: str, rules: str | threecard.Rules = "zjh") -> np.ndarray:
    """``int32`` class of each value, higher = better: 1 .. 7,462 for Hold'em, 1 .. the number of
    distinct values for a three-card rule set."""
    spec = _known(game)
    if spec.rule_presets:
        return _three_card_classes(threecard.rules_of(rules))[np.asarray(values)]
    if spec.classes is None:  # a game without rule presets must rank a fixed set of classes
        raise ValueError(f"game {spec.name} names no hand classes")
    ranks = spec.kernel().dense_rank(values).astype(np.int32)  # 1 = the best class
    return (spec.classes + 1 - ranks).astype(np.int32)


def margin_classes(best: np.ndarray, second: np.ndarray, game: str, rules: str | threecard.Rules = "zjh") -> np.ndarray:
    """How many hand classes the best hand of each deck stands above the runner-up (0: a tie)."""
    return hand_class(best, game, rules) - hand_class(second, game, rules)


def cards_text(cards: np.ndarray, per: int) -> np.ndarray:
    """``[n, k]`` card codes as one string per row, ``per`` cards to a word: ``"AsKd 7c7h"``
    (255, a card never dealt, is ``??``)."""
    text = _CARD_TEXT[np.asarray(cards)]
    words = [functools.reduce(operator.add, (text[:, j + i] for i in range(per))) for j in range(0, text.shape[1], per)]
    return functools.reduce(lambda a, b: a + " " + b, words)
