"""Hand values of whole tables for any game with hands: the one call the settle job, ``generate``
and the other jobs make, whatever the game (its spec says which evaluator and what it needs)."""

from __future__ import annotations

import importlib

import numpy as np
from numpy.typing import ArrayLike

from cardbatch.games import Game

from . import threecard


def seat_values(
    spec: Game,
    hole: ArrayLike,
    board: ArrayLike | None,
    mask: ArrayLike,
    *,
    rules: threecard.Rules | None = None,
    trips_beat_straight: bool = False,
) -> tuple[np.ndarray, np.ndarray | None]:
    """``(score int64[T, S], low int64[T, S] or None)`` of ``hole[T, S, k]`` (on ``board[T, 5]`` for a
    game with a board) where ``mask``, 0 elsewhere and for invalid hands: the score by the game's
    evaluator, higher wins (three-card ``rules``, short deck's ``trips_beat_straight``; a game whose
    smaller value wins turned round: :func:`values_of` gives its values back), the eight-or-better
    low (hex digits, smaller wins, 0: none) where pots split high/low, else None."""
    kernel = spec.kernel()
    low = None
    if spec.low_evaluator is not None:  # imported here: a game without halves never loads its kernel
        lows = importlib.import_module(f"cardbatch.kernels.{spec.low_evaluator}")
        low = lows.low_seats(hole, board, mask) if spec.board_cards else lows.low_seats(hole, mask)
    if spec.board_cards:
        if board is None:
            raise ValueError(f"seat_values: game {spec.name} needs a board")
        options = spec.evaluator_options(trips_beat_straight)
        return kernel.evaluate_seats(hole, board, mask, dtype=np.int64, **options), low
    if spec.rule_presets:
        if rules is None:
            raise ValueError(f"seat_values: game {spec.name} takes a three-card rule preset")
        return kernel.evaluate_seats(hole, mask, rules), None
    values = kernel.evaluate_seats(hole, mask, dtype=np.int64)
    if spec.score_order == "low":  # the smaller wins, 0 no hand: its score_of, in place
        top = np.int64(kernel.SCORE_TOP)
        np.subtract(top, values, out=values, where=values != 0)
    return values, low


def values_of(spec: Game, score: np.ndarray) -> np.ndarray:
    """The evaluator's values of scores :func:`seat_values` gave (the same array for a game whose
    higher value wins; a smaller-wins game's turned back, 0 kept as 0), as the results show them.

    >>> from cardbatch.games import game
    >>> values_of(game("razz"), np.array([16432351, 0])).tolist()
    [344865, 0]
    """
    if spec.score_order != "low":
        return score
    top = np.int64(spec.kernel().SCORE_TOP)
    return np.where(score != 0, top - score, 0).astype(score.dtype, copy=False)
