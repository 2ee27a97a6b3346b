"""The settle job's options and the shape of its inputs (described for people in docs/formats.md)."""

from __future__ import annotations

import dataclasses

import pyarrow as pa

GAMES = ("holdem", "zjh", "team2v2")
CARDS_PER_SEAT = {"holdem": 2, "zjh": 3}
MAX_SEATS = {"holdem": 23, "zjh": 17}
MIN_SEATS = 2

# Reason codes and their messages: cardbatch.kernels.reasons (one table for kernels and batch).

HAND_REQUIRED = {
    "holdem": ("hand_id", "button", "board", "cards", "folded"),
    "zjh": ("hand_id", "button", "cards", "folded"),
}
# A unit of several small files tags each row with its file's place in the unit; settling carries the
# tag from the input to results and errors (then the runner drops it), so counters stay per input file.
ORIGIN = "__cardbatch_piece"
TEAM_REQUIRED = ("hand_id", "balance", "multiplier", "afk", "winner", "base", "double")


@dataclasses.dataclass(frozen=True)
class SettleOptions:
    """What the user chose on the command line; shipped to every worker."""

    policy: str = "standard"
    rake_pct: str | None = None
    rake_cap: int | None = None
    no_flop_no_drop: bool = False
    rules: str = "zjh"
    odd_chips: str = "button"
    chip_unit: int = 1
    orphan_chips: str = "error"
    game: str | None = None  # for files without a game column
    team_model: str = "seed"
    audit: bool = False


def team_schema() -> pa.Schema:
    """The fixed-width schema of team2v2 games (four seats; 0 & 2 against 1 & 3)."""
    four = lambda t: pa.list_(t, 4)  # noqa: E731
    return pa.schema(
        [
            ("hand_id", pa.int64()),
            ("balance", four(pa.int64())),
            ("multiplier", four(pa.int64())),
            ("afk", four(pa.bool_())),
            ("winner", pa.int8()),
            ("base", pa.int64()),
            ("double", pa.int64()),
            ("fee", pa.int64()),
        ]
    )
