"""A fairness run's own options: its groups, its level and whether it writes the per-hand results."""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class FairnessOptions:
    """A fairness run: what each batch counts besides settling it, and how its tests are judged.
    ``by``: an input column whose values each get every test again (``--by room``; None: the whole
    run only); ``level``: the family-wise false-alarm rate the tests are held to, together;
    ``results``: also write every settled row's results with its equity columns, as
    ``settle --equity`` does (off: the run writes its verdict, the rejected rows and the summary;
    the per-hand results are a settle run's, and writing them is most of what the audit would
    add to settling).

    >>> FairnessOptions(by="game")
    Traceback (most recent call last):
    ValueError: --by game: every test is already run for each game apart; name another column
    >>> FairnessOptions(level=2)
    Traceback (most recent call last):
    ValueError: level must be between 0 and 1, got 2
    """

    by: str | None = None
    level: float = 0.01
    results: bool = False

    def __post_init__(self) -> None:
        if self.by is not None and (not isinstance(self.by, str) or not self.by):
            raise ValueError(f"by must be a column name, got {self.by!r}")
        if self.by is not None and self.by.lower() == "game":  # GAME=G folders name the game too
            raise ValueError("--by game: every test is already run for each game apart; name another column")
        if not isinstance(self.level, (int, float)) or not 0 < self.level < 1:
            raise ValueError(f"level must be between 0 and 1, got {self.level!r}")
        if not isinstance(self.results, bool):
            raise ValueError(f"results must be True or False, got {self.results!r}")
