"""The domain's names and defaults that the kernels define and the command line offers, written once:
the card alphabet, the three-card rule presets' names, the ranking measures, the equity walk's decks
and defaults. Standard library only (as :mod:`cardbatch.games` and :mod:`cardbatch.plays`): the
command line builds its ``--help`` from here without loading numba, numpy or pyarrow, and the
kernels import the same names (:mod:`cardbatch.kernels.cards`, :mod:`~cardbatch.kernels.threecard`,
:mod:`~cardbatch.kernels.ranking`, :mod:`~cardbatch.kernels.equity`).

>>> RANKS[12] + SUITS[3], len(RANKS) * len(SUITS)
('As', 52)
>>> RULE_PRESETS[0], MEASURES[0], tuple(DECKS), WALK_BUDGET
('zjh', 'best', ('seen', 'trackers'), 100000)
"""

from __future__ import annotations

import dataclasses
from typing import Literal

# The card codec's alphabet: code = rank * 4 + suit; ranks 0..12 are 2..A, suits 0..3 are
# diamonds, clubs, hearts, spades (spades highest).
RANKS = "23456789TJQKA"
SUITS = "dchs"

# The three-card rule presets (``--rules``), the first the default; what each rules is
# cardbatch.kernels.threecard.PRESETS (docs/rules.md).
RULE_PRESETS = ("zjh", "zjh_suited", "teen_patti", "three_card_poker")

# What rank-decks ranks decks by (``--measure``): the best or second seat's value, the margin
# between them as packed values or in hand classes, the number of tied winners.
MEASURES = ("best", "second", "margin", "margin_classes", "winners")


@dataclasses.dataclass(frozen=True)
class Deck:
    """Which cards an all-in's walk counts as out of the deck, besides the live seats' and the board's.

    ``seen`` (the default, and the only rule of the fairness audit): every card the row records,
    the folded seats' included. On a fair deal the all-in's expected payout is then exactly the
    expectation of the realised one, whatever the players' decisions: folds depend on the cards
    (folded hands are weak, so the cards left are richer in high ones). ``trackers``: the folded
    seats' cards go back into the deck, as poker trackers count a player's all-in luck (what the
    players saw at the table); on logs where folds depend on the cards its expectations are off
    (the favourite's realised share ran 0.42 points above them over 2 million fair 6-max all-ins).
    Cards recorded as unknown (255) stay in the deck under both rules."""

    name: str
    folded_seen: bool
    words: str


# The equity walk's decks (``--equity-deck``), the first the default.
DECKS = {
    d.name: d
    for d in (
        Deck("seen", True, "every recorded card is out of the deck, the folded seats' included"),
        Deck("trackers", False, "the folded seats' cards go back into the deck, as poker trackers count luck"),
    )
}

# The equity walk's defaults (cardbatch.kernels.equity.Walk) and the most samples it draws
# (a table's samples: about a second of one core at most).
WALK_BUDGET = 100_000
WALK_SAMPLES = 10_000
WALK_SEED = 0
WALK_DECK = next(iter(DECKS))  # seen
MAX_SAMPLES = 10_000_000

# Settlement's choices (cardbatch.kernels.pots and cardbatch.batch.settle.options take them): the
# pot policies (docs/rules.md; the kernels' Policy enum numbers them in this order), where an odd
# chip goes, what becomes of chips no live seat may win, the 2v2 settlement models, and what a
# settle run does with a folder holding an earlier run's output.
POLICIES = ("standard", "presence", "ratio_rank", "hybrid")
OddChips = Literal["button", "first_winner"]
OrphanChips = Literal["error", "refund"]
ODD_CHIPS: tuple[OddChips, ...] = ("button", "first_winner")
ORPHAN_CHIPS_RULES: tuple[OrphanChips, ...] = ("error", "refund")
TeamModel = Literal["seed", "proportional"]
TEAM_MODELS: tuple[TeamModel, ...] = ("seed", "proportional")
Mode = Literal["resume", "overwrite", "error"]
RESUME_MODES: tuple[Mode, ...] = ("resume", "overwrite", "error")
