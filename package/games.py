"""The games cardbatch knows: one frozen :class:`Game` spec each, and the only place their names are written.

Every module that treats games differently reads a spec from here (:func:`game`) instead of
comparing names, so a game is added by one spec, one evaluator kernel, its tests and its docs
page (docs/development.md). This module imports nothing but the standard library: the command
line builds its ``--game`` choices from it without loading numba, numpy or pyarrow, and the
kernels and every job may import it (tests/test_layout.py).

>>> from cardbatch.games import game, GAMES
>>> GAMES  # doctest: +NORMALIZE_WHITESPACE
('holdem', 'zjh', 'team2v2', 'omaha', 'omaha5', 'omaha6', 'omaha_hilo', 'omaha5_hilo', 'shortdeck',
 'stud', 'stud_hilo', 'razz', 'draw27_single', 'draw27_triple', 'badugi', 'draw5')
>>> game("holdem").hole_cards, game("holdem").board_cards, game("zjh").max_seats, game("omaha6").max_seats
(2, 5, 17, 7)
>>> game("stud").hole_cards, game("stud").max_seats, game("razz").score_order, game("badugi").max_seats
(7, 7, 'low', 13)
>>> game("pineapple")  # doctest: +ELLIPSIS
Traceback (most recent call last):
ValueError: game must be one of holdem, zjh, team2v2, omaha, ..., draw5, got 'pineapple'

(``"zjh"`` also names a three-card *rule preset*, ``--rules zjh``: presets live in
:mod:`cardbatch.kernels.threecard` and are not games.)
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Collection
from types import ModuleType
from typing import Literal


@dataclasses.dataclass(frozen=True)
class Game:
    """What the code needs to know of one game.

    ``name``: as the ``game`` column and ``--game`` spell it; ``title``: for people.
    ``deck_size``: cards in the deck; ``hole_cards``: cards dealt to each seat; ``board_cards``:
    shared cards (0: a game without a board, every hand is the seat's own cards).
    ``min_seats``/``max_seats``: seats a row may have to be settled; ``dealt_seats``: seats one
    shuffled deck deals with the game's burn cards (generate, simulate, rank-decks).
    ``required``: the input columns a file of this game must have (Hold'em and ZJH also need
    ``contrib`` or ``contrib_street``). ``marker``: the column that tells this game's files apart
    when they have no ``game`` column (None: none does; a file with no marker column is Zha Jin
    Hua's, :func:`infer`).
    ``evaluator``: the kernel module under :mod:`cardbatch.kernels` that values hands, a name
    resolved by :meth:`kernel` on first use (None: no hands to value); ``score_type``: the Arrow
    type of the results' ``score``; ``category_names``: the names of its hand categories by code
    (a three-card rule preset may rename them: :func:`cardbatch.kernels.threecard.category_names`);
    ``category_shift``: a score holds its category code in the bits from this one up (None: the
    evaluator's ``category_of`` finds it); ``classes``: the distinct hand values (the evaluator's
    ``dense_rank`` numbers them 1 = best; None: as many as the rule preset's, for three-card games).
    ``rule_presets``: hands are valued under a three-card rule preset (``--rules``).
    ``settles``: ``"pot"`` (chips in pots, paid to seats) or ``"balances"`` (a 2v2 game moves
    balances); ``split_pots``: pots split between a high and a low hand.
    ``betting_rounds``: the streets a simulated table bets (simulate's model);
    ``generated_rounds``/``generated_fold_rate``: the synthetic logs' betting (generate).
    ``lowest_rank``: the deck's lowest rank (0 = two; the short deck's 4 = six): its cards are the
    codes from ``4 * lowest_rank``; ``straight_order_option``: which of trips and a straight ranks
    higher is a table rule (``trips_beat_straight``); ``phh_variants``: the game's PHH variant codes,
    as pokerkit names them (``import`` replays them); ``simulated``:
    ``simulate`` plays it; ``one_pass``: the one-pass settle kernel (:mod:`cardbatch.kernels.onepass`:
    two hole cards, a five-card board, valued by its evaluator's ``value_tables``, pots under the
    standard policy) settles it.
    ``button``: the game is dealt with a button (its ``button`` column is required, and odd chips
    go from the first seat left of it); False (stud and razz, where the cards decide who acts): the
    column is optional, and a row without one (or a null cell) sends odd chips from seat 0.
    ``score_order``: how the evaluator's values order, ``"high"`` (higher wins) or ``"low"``
    (razz, deuce-to-seven, badugi: the smaller wins, 0 is no hand), which its ``SCORE_TOP`` turns
    round before the pots (``SCORE_TOP - value``: its ``score_of``); the results' ``score`` holds
    the evaluator's values either way. ``low_evaluator``: where pots split, the kernel module whose
    ``low_seats`` gives each seat's eight-or-better low (``lowball``: two hole cards and three of the
    board; ``razz``: the best of a seat's own cards). ``cards_as_dealt``: a seat's recorded cards are
    the cards it was dealt, in order (fairness's card tests count them); False for a draw game,
    whose recorded hand is the one it ended with, partly its player's choice.

    Stud and razz seats hold the seven cards they were dealt (down and up alike), a draw game's the
    hand they ended with; none of them has a board.
    """

    name: str
    title: str
    hole_cards: int
    board_cards: int
    min_seats: int
    max_seats: int
    dealt_seats: int
    required: tuple[str, ...]
    marker: str | None
    evaluator: str | None
    score_type: Literal["uint32", "int64"] | None
    category_names: tuple[str, ...]
    category_shift: int | None
    classes: int | None
    rule_presets: bool
    settles: Literal["pot", "balances"]
    betting_rounds: int
    generated_rounds: int
    generated_fold_rate: float
    deck_size: int = 52
    split_pots: bool = False
    lowest_rank: int = 0
    straight_order_option: bool = False
    phh_variants: tuple[str, ...] = ()
    simulated: bool = True
    one_pass: bool = False
    button: bool = True
    score_order: Literal["high", "low"] = "high"
    low_evaluator: str | None = None
    cards_as_dealt: bool = True
    integer_columns: tuple[str, ...] = ("hand_id", "button")
    list_columns: tuple[str, ...] = (
        "contrib",
        "contrib_street",
        "folded",
        "payout",
        "dead",
        "player_id",
        "stack",
        "cards",
        "board",
    )
    result_columns: tuple[str, ...] = (
        "hand_id",
        "score",
        "category",
        "payout",
        "net",
        "rake",
        "pots",
        "recorded_payout",
        "mismatch",
    )

    def __post_init__(self) -> None:
        if self.deck_size != 4 * (13 - self.lowest_rank):
            raise ValueError(
                f"game {self.name}: a deck from rank {self.lowest_rank} holds {4 * (13 - self.lowest_rank)} cards"
            )
        if self.split_pots != (self.low_evaluator is not None):
            raise ValueError(f"game {self.name}: pots split high/low exactly when a low evaluator is named")

    @property
    def deck(self) -> range:
        """The card codes of the deck (``rank * 4 + suit``)."""
        return range(4 * self.lowest_rank, 52)

    @property
    def has_hands(self) -> bool:
        """Seats hold cards that an evaluator values (False for a game that moves balances)."""
        return self.evaluator is not None

    def evaluator_options(self, trips_beat_straight: bool = False) -> dict[str, bool]:
        """The keywords its evaluator takes for the run's table rules: ``trips_beat_straight`` where
        the order of trips and a straight is a table rule (short deck), nothing elsewhere.

        >>> game("shortdeck").evaluator_options(True), game("holdem").evaluator_options(True)
        ({'trips_beat_straight': True}, {})
        """
        return {"trips_beat_straight": trips_beat_straight} if self.straight_order_option else {}

    def kernel(self) -> ModuleType:
        """The evaluator's kernel module, imported now (this loads numba)."""
        if self.evaluator is None:
            raise ValueError(f"game {self.name} has no hand evaluator")
        return importlib.import_module(f"cardbatch.kernels.{self.evaluator}")


_POKER_CATEGORIES = (
    "high card",
    "pair",
    "two pair",
    "three of a kind",
    "straight",
    "flush",
    "full house",
    "four of a kind",
    "straight flush",
)
_HOLDEM = Game(
    name="holdem",
    title="Hold'em",
    hole_cards=2,
    board_cards=5,
    min_seats=2,
    max_seats=23,  # 23 x 2 + 5 = 51 cards: a settled row needs no burn cards
    dealt_seats=22,  # with the three burn cards
    required=("hand_id", "button", "board", "cards", "folded"),
    marker="board",
    evaluator="holdem",
    score_type="uint32",
    category_names=_POKER_CATEGORIES,
    category_shift=20,
    classes=7462,
    rule_presets=False,
    settles="pot",
    betting_rounds=4,
    generated_rounds=4,
    generated_fold_rate=0.25,
    phh_variants=("NT", "FT"),
    one_pass=True,
)
# The games without a board: a seat's hand is its own cards (stud: the seven it was dealt; a draw
# game: the hand it ended with). A settled row needs no burn cards, so the seats are as many as the
# deck holds hands: 7 x 7 = 49 for stud and razz, 10 x 5 = 50 for the five-card draw games, 13 x 4
# = 52 for badugi; synthetic logs deal the seats' final cards straight from the deck (no burns).
_STUD = Game(
    name="stud",
    title="Seven-card stud",
    hole_cards=7,
    board_cards=0,
    min_seats=2,
    max_seats=7,
    dealt_seats=7,
    required=("hand_id", "cards", "folded"),
    marker=None,
    evaluator="stud",
    score_type="uint32",
    category_names=_POKER_CATEGORIES,
    category_shift=20,
    classes=7462,
    rule_presets=False,
    settles="pot",
    betting_rounds=5,  # third to seventh street
    generated_rounds=5,
    generated_fold_rate=0.25,
    phh_variants=("F7S",),
    simulated=False,
    button=False,
)
_DRAW27 = dataclasses.replace(
    _STUD,
    name="draw27_single",
    title="Deuce-to-seven single draw",
    hole_cards=5,
    max_seats=10,
    dealt_seats=10,
    required=("hand_id", "button", "cards", "folded"),
    evaluator="deuce7",
    score_order="low",
    betting_rounds=2,  # before and after the draw
    generated_rounds=2,
    phh_variants=("N2L1D",),
    button=True,
    cards_as_dealt=False,
)
_SPECS = (
    _HOLDEM,
    Game(
        name="zjh",
        title="Zha Jin Hua",
        hole_cards=3,
        board_cards=0,
        min_seats=2,
        max_seats=17,
        dealt_seats=17,
        required=("hand_id", "button", "cards", "folded"),
        marker=None,
        evaluator="threecard",
        score_type="int64",
        category_names=("high card", "pair", "straight", "flush", "straight flush", "trips"),
        category_shift=None,
        classes=None,
        rule_presets=True,
        settles="pot",
        betting_rounds=1,
        generated_rounds=3,
        generated_fold_rate=0.3,
    ),
    Game(
        name="team2v2",
        title="2v2 teams",
        hole_cards=0,
        board_cards=0,
        min_seats=4,
        max_seats=4,
        dealt_seats=4,
        required=("hand_id", "balance", "multiplier", "afk", "winner", "base", "double"),
        marker="balance",
        evaluator=None,
        score_type=None,
        category_names=(),
        category_shift=None,
        classes=None,
        rule_presets=False,
        settles="balances",
        betting_rounds=0,
        generated_rounds=0,
        generated_fold_rate=0.0,
        integer_columns=("hand_id", "winner", "base", "double", "fee"),
        list_columns=("balance", "multiplier", "afk", "payout"),
        result_columns=("hand_id", "delta", "fee", "recorded_delta", "mismatch"),
    ),
    *(
        dataclasses.replace(  # Hold'em with h hole cards, exactly two of which play
            _HOLDEM,
            name=f"omaha{'' if h == 4 else h}{'_hilo' if hilo else ''}",
            title=f"Omaha{'' if h == 4 else f' ({h} cards)'}{' hi/lo eight or better' if hilo else ''}",
            hole_cards=h,
            max_seats=47 // h,  # h cards a seat and the board: a settled row needs no burn cards
            dealt_seats=44 // h,  # with the three burn cards
            evaluator="omaha",
            split_pots=hilo,
            low_evaluator="lowball" if hilo else None,
            result_columns=_HOLDEM.result_columns + (("low",) if hilo else ()),
            phh_variants=(("FO/8",) if hilo else ("PO",)) if h == 4 else (),
            simulated=False,
            one_pass=False,
        )
        for hilo, sizes in ((False, (4, 5, 6)), (True, (4, 5)))
        for h in sizes
    ),
    dataclasses.replace(  # Hold'em with 36 cards and its own order of hands
        _HOLDEM,
        name="shortdeck",
        title="Short-deck (6+) Hold'em",
        max_seats=15,  # 15 x 2 + 5 = 35 of the 36 cards
        dealt_seats=14,  # with the three burn cards
        evaluator="shortdeck",
        category_shift=None,  # the score's top bits are the category's place in the short deck's order
        classes=1404,
        deck_size=36,
        lowest_rank=4,
        straight_order_option=True,
        phh_variants=("NS",),
        simulated=False,
    ),
    _STUD,
    dataclasses.replace(
        _STUD,
        name="stud_hilo",
        title="Seven-card stud hi/lo eight or better",
        split_pots=True,
        low_evaluator="razz",
        result_columns=_STUD.result_columns + ("low",),
        phh_variants=("F7S/8",),
    ),
    dataclasses.replace(
        _STUD,
        name="razz",
        title="Razz",
        evaluator="razz",
        score_order="low",
        classes=6175,
        phh_variants=("FR",),
        # straights and flushes do not count: a hand without a pair is "no pair" (codes 4, 5, 8 never occur)
        category_names=("no pair", *_POKER_CATEGORIES[1:]),
    ),
    _DRAW27,
    dataclasses.replace(
        _DRAW27,
        name="draw27_triple",
        title="Deuce-to-seven triple draw",
        betting_rounds=4,  # around three draws
        generated_rounds=4,
        phh_variants=("F2L3D",),
    ),
    dataclasses.replace(
        _DRAW27,
        name="badugi",
        title="Badugi",
        hole_cards=4,
        max_seats=13,
        dealt_seats=13,
        evaluator="badugi",
        category_names=("no hand", "one card", "two cards", "three cards", "badugi"),  # by the hand's cards
        category_shift=None,
        classes=1092,
        betting_rounds=4,
        generated_rounds=4,
        phh_variants=("FB",),
    ),
    dataclasses.replace(  # pokerkit plays no five-card draw: no PHH code
        _DRAW27, name="draw5", title="Five-card draw", evaluator="stud", score_order="high", phh_variants=()
    ),
)

REGISTRY: dict[str, Game] = {g.name: g for g in _SPECS}
GAMES: tuple[str, ...] = tuple(REGISTRY)
# the specs by name, for code that serves one game only (the PHH importer's Hold'em, the 2v2
# settlement) or picks a default: they name a game without writing its name
HOLDEM, ZJH, TEAM2V2 = _SPECS[:3]
# files without a game column: the first game whose marker column they have, in this order, else
# Zha Jin Hua (a 2v2 file may carry a board column of its own; a stud or draw file is never told
# from its columns: its rows are set aside until the game is named)
_INFERENCE = ("team2v2", "holdem")
_UNMARKED = "zjh"


def game(name: object) -> Game:
    """The spec of the game ``name``; a ``ValueError`` naming the games for any other name (never
    another game's rules)."""
    spec = REGISTRY.get(name) if isinstance(name, str) else None
    if spec is None:
        raise ValueError(f"game must be one of {', '.join(GAMES)}, got {name!r}")
    return spec


def games_with_hands() -> tuple[str, ...]:
    """The games whose seats hold cards an evaluator values, in registry order."""
    return tuple(g.name for g in _SPECS if g.has_hands)


def simulated_games() -> tuple[str, ...]:
    """The games ``simulate`` plays, in registry order (the others are settled, generated and ranked)."""
    return tuple(g.name for g in _SPECS if g.simulated)


def infer(columns: Collection[str]) -> Game:
    """The game of a file without a ``game`` column, from its columns: every column of the team
    schema, then a ``board`` (Hold'em), else Zha Jin Hua."""
    for name in _INFERENCE:
        spec = REGISTRY[name]
        # a game that moves balances is known by all its columns: one of their names in a card game's
        # file is a column of the user's (a Hold'em file may well hold a ``balance``)
        if spec.marker is not None and spec.marker in columns:
            if spec.settles != "balances" or all(c in columns for c in spec.required):
                return spec
    return REGISTRY[_UNMARKED]
