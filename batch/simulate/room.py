"""The simulated room of ``cardbatch simulate``: every parameter, one dataclass (no heavy imports,
so the command line can show its defaults without loading the kernels)."""

from __future__ import annotations

import dataclasses
from fractions import Fraction

from cardbatch.constants import RULE_PRESETS
from cardbatch.games import REGISTRY, TEAM2V2, simulated_games
from cardbatch.games import game as game_spec


@dataclasses.dataclass
class Room:
    """A room's game, population, stakes, betting model and seed (see ``cardbatch simulate --help``);
    checked when made."""

    game: str = TEAM2V2.name
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

    def __post_init__(self) -> None:
        if not game_spec(self.game).simulated:  # a ValueError naming the games: never another game's rules
            raise ValueError(f"simulate plays {', '.join(simulated_games())}, not {self.game}")
        for name in ("afk_p", "double_p", "fold_p", "allin_p"):
            p = getattr(self, name)
            if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0 <= p <= 1:
                raise ValueError(f"{name.replace('_', '-')} is a probability: 0 <= p <= 1, got {p!r}")
        if self.bet_max < 1:
            raise ValueError(f"bet-max must be >= 1, got {self.bet_max}")
        if self.players < 1 or self.rounds < 0 or self.tables_per_round < 1:
            raise ValueError("players >= 1, rounds >= 0 and tables-per-round >= 1 please")
        most = max_seats(self.game)
        if not 2 <= self.seats <= most:
            raise ValueError(f"{self.game}: 2 <= seats <= {most} please (the seats one deck deals with its burn cards)")
        if self.start_balance < 0 or self.base < 1:
            raise ValueError("start-balance >= 0 and base >= 1 please")
        # every value a flag, a --sweep or a rooms file can give is checked here, when the room is
        # made, so that a room of the set that cannot be played stops the command before any is
        if self.double < 1 or self.fee < 0:
            raise ValueError(f"double >= 1 and fee >= 0 please, got double {self.double} and fee {self.fee}")
        if not 0 <= self.seed < 2**64:
            raise ValueError(f"seed must be in 0..2**64 - 1, got {self.seed}")
        if self.rules not in RULE_PRESETS:
            raise ValueError(f"rules must be one of {', '.join(RULE_PRESETS)}, got {self.rules!r}")
        if self.rake_pct is not None:
            try:
                pct = Fraction(self.rake_pct)
            except (TypeError, ValueError, ZeroDivisionError):
                pct = Fraction(-1)
            if not 0 <= pct <= 1:
                raise ValueError(f"rake-pct must be a number in 0..1, got {self.rake_pct!r}")
        if self.rake_cap is not None and self.rake_cap < 0:
            raise ValueError(f"rake-cap must be >= 0, got {self.rake_cap}")
        # every coin that can ever be in the room (rebuys included, one per player a round) fits int64 exactly
        if self.players * self.start_balance * (1 + (self.rounds if self.rebuy else 0)) >= 2**63:
            raise ValueError("players x start-balance (x rounds with --rebuy) must stay below 2**63 coins")


def max_seats(game: str) -> int:
    """The most seats a simulated table of ``game`` may have: those one deck deals with its burn
    cards (its spec's ``dealt_seats``). A game without cards seats its own fixed teams and ignores
    ``seats``, which is held to the card games' largest."""
    spec = game_spec(game)
    if spec.has_hands:
        return spec.dealt_seats
    return max(REGISTRY[g].dealt_seats for g in simulated_games() if REGISTRY[g].has_hands)
