"""Hand values of whole tables for any game with hands: the one call the settle job, ``generate``
and the other jobs make, whatever the game (its spec says which evaluator and what it needs)."""

from __future__ import annotations

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
    evaluator (three-card ``rules``, short deck's ``trips_beat_straight``), the low (higher wins,
    0: none) for a high/low game, else None."""
    kernel = spec.kernel()
    if spec.board_cards:
        if board is None:
            raise ValueError(f"seat_values: game {spec.name} needs a board")
        options = spec.evaluator_options(trips_beat_straight)
        score = kernel.evaluate_seats(hole, board, mask, dtype=np.int64, **options)
        low = None
        if spec.split_pots:  # imported here: a Hold'em run never loads the Omaha kernels
            from . import lowball

            low = lowball.low_seats(hole, board, mask)
        return score, low
    if rules is None:
        raise ValueError(f"seat_values: game {spec.name} takes a three-card rule preset")
    return kernel.evaluate_seats(hole, mask, rules), None
