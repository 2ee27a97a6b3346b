"""Input and output formats of the batch driver (described for people in data/FORMAT.md)."""
from __future__ import annotations

import dataclasses

import pyarrow as pa

GAMES = ("holdem", "zjh", "team2v2")
CARDS_PER_SEAT = {"holdem": 2, "zjh": 3}
MAX_SEATS = {"holdem": 23, "zjh": 17}
MIN_SEATS = 2

# Every reason a row can be set aside for; the order is stable (codes in summaries).
REASONS = (
    "missing_value",     # a required cell is null
    "seat_count",        # list lengths disagree, or too few / too many seats
    "bad_card",          # a card code outside 0..51, unreadable text, or a card missing at showdown
    "duplicate_card",    # the same card twice at one table (board included)
    "negative_contrib",  # a contribution below zero
    "no_live_seat",      # every seat folded
    "orphan_chips",      # chips that only folded seats put in above every live seat
    "bad_button",        # button outside the table's seats
    "unknown_game",      # the game column names a game this tool does not settle
    "negative_balance",  # team2v2: a balance below zero
    "bad_multiplier",    # team2v2: a multiplier below 1
    "bad_winner",        # team2v2: winner not 0 or 1
    "bad_stake",         # team2v2: base or double below 1
    "negative_fee",      # team2v2: fee below zero
)
MESSAGES = {
    "missing_value": "a required value is null",
    "seat_count": "list lengths do not agree with the number of seats (or seats outside 2..max)",
    "bad_card": "a card is outside 0..51, unreadable, or missing where the showdown needs it",
    "duplicate_card": "the same card appears twice at the table",
    "negative_contrib": "a contribution is below zero",
    "no_live_seat": "every seat folded",
    "orphan_chips": "folded seats put in chips above every live seat's contribution",
    "bad_button": "the button is not one of the table's seats",
    "unknown_game": "the game column names a game cardbatch does not settle",
    "negative_balance": "a balance is below zero",
    "bad_multiplier": "a multiplier is below 1",
    "bad_winner": "winner is not team 0 or 1",
    "bad_stake": "base or double is below 1",
    "negative_fee": "the fee is below zero",
}

HAND_REQUIRED = {"holdem": ("hand_id", "button", "board", "cards", "folded"),
                 "zjh": ("hand_id", "button", "cards", "folded")}
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
    game: str | None = None          # for files without a game column
    team_model: str = "seed"
    audit: bool = False


def team_schema() -> pa.Schema:
    """The fixed-width schema of team2v2 games (four seats; 0 & 2 against 1 & 3)."""
    four = lambda t: pa.list_(t, 4)  # noqa: E731
    return pa.schema([("hand_id", pa.int64()), ("balance", four(pa.int64())), ("multiplier", four(pa.int64())),
                      ("afk", four(pa.bool_())), ("winner", pa.int8()), ("base", pa.int64()),
                      ("double", pa.int64()), ("fee", pa.int64())])
