"""The simulated room of ``cardbatch simulate``: every parameter, one dataclass (no heavy imports,
so the command line can show its defaults without loading the kernels)."""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass
class Room:
    """A room's game, population, stakes, betting model and seed (see ``cardbatch simulate --help``)."""

    game: str = "team2v2"
    players: int = 10000
    rounds: int = 100
    tables_per_round: int = 1000
    seats: int = 5
    start_balance: int = 10000
    base: int = 100
    double: int = 1
    fee: int = 0
    caps: bool = True
    afk_p: float = 0.02
    double_p: float = 0.3
    fold_p: float = 0.3
    allin_p: float = 0.05
    bet_max: int = 4
    rake_pct: str | None = None
    rake_cap: int | None = None
    rebuy: bool = False
    rules: str = "zjh"
    seed: int = 0
