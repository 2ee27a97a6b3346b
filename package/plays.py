"""How the players of ``cardbatch generate`` decide: the styles of ``--play``, one registry (beside
the games': data, read by the command line without loading the kernels).

``random`` is the first model: every seat folds at a fixed rate and bets a random size, whatever
its cards. ``tight`` and ``loose`` decide by their cards (:mod:`cardbatch.kernels.play`, whose
docstring and docs/guide/generate.md say how), as real players do: folded hands are weaker than
the hands that stay, so the deck left for the board is not a random deck, which is what the
fairness audit must be shown. Parameters in :data:`cardbatch.kernels.play.PARAMS` order.
"""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class Play:
    """A style: its ``name``, its ``params`` for the card-dependent model (None: the random model)
    and what it does, in words (``--help``)."""

    name: str
    params: tuple[float, ...] | None
    words: str


# open, jam, short, call, call_slope, limp, bet, semi, bluff, raise_at, call_at
PLAYS = {
    p.name: p
    for p in (
        Play("random", None, "fold at random (0.25 a street), whatever the cards"),
        Play(
            "tight",
            (8, 11, 20, 8, 15, 99, 2, 0.5, 0.05, 3, 2),
            "open about the best tenth of hands, all in with the best, call by strength and price",
        ),
        Play(
            "loose",
            (6, 10, 20, 6, 10, 4, 1, 0.6, 0.15, 3, 1),
            "open a third of hands, limp more, call with draws and weak pairs, bluff more",
        ),
    )
}


def play(name: str) -> Play:
    """The style named ``name``, or a ValueError naming the styles.

    >>> play("tight").params[0], play("random").params
    (8, None)
    >>> play("fish")
    Traceback (most recent call last):
    ValueError: --play: 'fish' is not a style; the styles are random, tight, loose
    """
    if name not in PLAYS:
        raise ValueError(f"--play: {name!r} is not a style; the styles are {', '.join(PLAYS)}")
    return PLAYS[name]
