"""Every reason a row can be set aside for: one table for the kernels and the batch driver.

A reason's code is its index in :data:`REASONS` (0 = ok). Kernels write these
codes into their ``status`` arrays (:mod:`cardbatch.kernels.pots` and
:mod:`cardbatch.kernels.team` each use the subset they can detect); the batch
driver gives every rejected row one of them and writes its name and message.
The order is stable: codes are shared between processes and summaries.
"""

from __future__ import annotations

REASONS: tuple[str, ...] = (
    "ok",
    "missing_value",  # a required cell is null
    "seat_count",  # list lengths disagree, or too few / too many seats
    "bad_card",  # a card code outside 0..51, unreadable text, or a card missing at showdown
    "duplicate_card",  # the same card twice at one table (board included)
    "negative_contrib",  # a contribution below zero
    "no_live_seat",  # every seat folded
    "orphan_chips",  # chips that only folded seats put in above every live seat
    "bad_button",  # button outside the table's seats
    "unknown_game",  # the game column names a game this tool does not settle
    "negative_balance",  # team2v2: a balance below zero
    "bad_multiplier",  # team2v2: a multiplier below 1
    "bad_winner",  # team2v2: winner not 0 or 1
    "bad_stake",  # team2v2: base or double below 1
    "negative_fee",  # team2v2: fee below zero
    "overflow",  # a value or a sum that cannot be settled exactly in int64
    "bad_dead_money",  # dead chips below zero or above the seat's contribution
    "dead_money_policy",  # dead chips under a per-street policy, which has no rule for them
    "split_pot_policy",  # a high/low game under a per-street policy, which has no rule for halves
    "game_not_given",  # a row whose cards fit several games (Omaha or its hi/lo? stud or razz?), none named
)
(
    OK,
    MISSING_VALUE,
    SEAT_COUNT,
    BAD_CARD,
    DUPLICATE_CARD,
    NEGATIVE_CONTRIB,
    NO_LIVE_SEAT,
    ORPHAN_CHIPS,
    BAD_BUTTON,
    UNKNOWN_GAME,
    NEGATIVE_BALANCE,
    BAD_MULTIPLIER,
    BAD_WINNER,
    BAD_STAKE,
    NEGATIVE_FEE,
    OVERFLOW,
    BAD_DEAD_MONEY,
    DEAD_MONEY_POLICY,
    SPLIT_POT_POLICY,
    GAME_NOT_GIVEN,
) = range(len(REASONS))
CODE: dict[str, int] = {name: code for code, name in enumerate(REASONS)}

MESSAGES: dict[str, str] = {
    "missing_value": "a required value is null",
    "seat_count": "list lengths do not agree with the number of seats (or seats outside 2..max)",
    "bad_card": "a card is outside 0..51 or the game's deck (short deck: six to ace), unreadable, or missing "
    "where the showdown needs it",
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
    "overflow": "a value or a sum of chips does not fit a 64-bit integer, so it cannot be settled exactly",
    "bad_dead_money": "dead chips are below zero or above the seat's contribution",
    "dead_money_policy": "dead chips are defined for the standard policy only (docs: Rules, dead money)",
    "split_pot_policy": "a high/low game's pots split in halves under the standard policy only (docs: Rules)",
    "game_not_given": "a board and more than two hole cards a seat (an Omaha game: high only or hi/lo?), or "
    "no board and 4, 5 or 7 cards a seat (badugi, a draw game, stud or razz?): cardbatch never guesses the "
    "game: name it with a game column, a game=G folder or --game (game= in Python)",
}
