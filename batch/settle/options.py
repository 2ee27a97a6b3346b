"""The settle job's options and the shape of its inputs (described for people in docs/formats.md)."""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Literal

import pyarrow as pa

from cardbatch.batch.io.jobs import RunOptions, input_paths, require_whole
from cardbatch.games import game as game_spec
from cardbatch.kernels.pots.api import Options

if TYPE_CHECKING:
    from cardbatch.kernels.equity import Walk

Mode = Literal["resume", "overwrite", "error"]
# what a run does with a folder that already holds cardbatch output: reuse its current parts, settle
# everything again (only cardbatch's own files are replaced), or refuse (exit 2)
MODES: tuple[Mode, ...] = ("resume", "overwrite", "error")
TeamModel = Literal["seed", "proportional"]
TEAM_MODELS: tuple[TeamModel, ...] = ("seed", "proportional")
POT_FIELDS = ("policy", "rake_pct", "rake_cap", "chip_unit", "odd_chips", "orphan_chips")
# The games (their names, seats, cards and required columns): cardbatch.games, one spec each.
# Reason codes and their messages: cardbatch.kernels.reasons (one table for kernels and batch).

# A unit of several small files tags each row with its file's place in the unit; settling carries the
# tag from the input to results and errors (then the runner drops it), so counters stay per input file.
ORIGIN = "__cardbatch_piece"


def _decimal(frac: Fraction) -> str:
    """An exact fraction as the user would write it: ``0.05``, or ``1/3`` where no decimal is exact."""
    den, twos, fives = frac.denominator, 0, 0
    while den % 2 == 0:
        den, twos = den // 2, twos + 1
    while den % 5 == 0:
        den, fives = den // 5, fives + 1
    if den != 1:
        return f"{frac.numerator}/{frac.denominator}"
    digits = max(twos, fives)
    text = f"{frac.numerator * 10**digits // frac.denominator:0{digits + 1}d}"
    return f"{text[:-digits]}.{text[-digits:]}" if digits else text


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


@dataclasses.dataclass(frozen=True)
class SettleOptions:
    """The rules a row is settled by, validated when made and shipped to every worker as is.

    ``pots``: the settlement rules (policy, rake, chip unit, odd chips, orphan chips), a
    :class:`cardbatch.kernels.pots.Options`; ``no_flop_no_drop``: no rake on hands that ended
    before the flop; ``rules``: the three-card rule set's preset name; ``game``: the game of files
    without a ``game`` column (None: Hold'em when there is a ``board``, else Zha Jin Hua);
    ``team_model``: the 2v2 settlement model; ``audit``: an audit run (a mismatch makes its exit
    status 3; the results are the same); ``trips_beat_straight``: in short deck, three of a kind
    ranks above a straight (default: a straight above trips); ``equity``: how each all-in's
    equity is walked (a :class:`cardbatch.kernels.equity.Walk`; None: no equity columns);
    ``fairness``: what a fairness run counts in each batch (a :class:`FairnessOptions`; None: nothing);
    ``by_player``: with ``equity`` or ``fairness`` and a ``player_id`` column, per-player figures (the
    summary's actual against expected net; an all-in test per player): one entry per player, so
    asked for, not made by default.
    """

    pots: Options = Options()
    no_flop_no_drop: bool = False
    rules: str = "zjh"
    game: str | None = None
    team_model: TeamModel = "seed"
    audit: bool = False
    trips_beat_straight: bool = False
    equity: Walk | None = None
    fairness: FairnessOptions | None = None
    by_player: bool = False

    def __post_init__(self) -> None:
        from cardbatch.kernels.threecard import rules_of

        if self.equity is not None:
            from cardbatch.kernels.equity import Walk

            if not isinstance(self.equity, Walk):
                raise ValueError(f"equity must be a cardbatch.kernels.equity.Walk or None, got {self.equity!r}")

        if not isinstance(self.pots, Options):
            raise ValueError(f"pots must be a cardbatch.kernels.pots.Options, got {type(self.pots).__name__}")
        if self.fairness is not None and not isinstance(self.fairness, FairnessOptions):
            raise ValueError(f"fairness must be a FairnessOptions or None, got {self.fairness!r}")
        if self.fairness is not None and self.equity is not None and self.equity.deck != "seen":
            # the tests compare realised shares with their expectation, which only the true deck gives
            raise ValueError(
                f"a fairness run counts every recorded card as seen (--equity-deck seen); {self.equity.deck} puts "
                "the folded cards back in the deck, which is biased where folds depend on the cards: it is for "
                "settle --equity's luck reports"
            )
        if self.fairness is not None and (self.pots.rake_pct or self.no_flop_no_drop):
            # the audit compares shares of the chips the hand paid with equity: no rake, as the command runs it
            raise ValueError("a fairness run settles without rake (rake_pct 0, no_flop_no_drop off)")
        if self.no_flop_no_drop and not self.pots.rake_pct:  # no rake to leave out: an option doing nothing
            raise ValueError("no_flop_no_drop leaves out a rake: give rake_pct too (--rake-pct)")
        if (self.equity is not None or self.fairness is not None) and self.pots.policy.name.lower() != "standard":
            # a per-street policy splits by what each street's bets were against; the walk pays the
            # standard policy's pots, and would report its luck as the policy's
            raise ValueError(
                f"equity is defined for the standard policy only, got policy {self.pots.policy.name.lower()}"
            )
        rules_of(self.rules)  # a ValueError naming the presets
        if self.game is not None:
            spec = game_spec(self.game)  # a ValueError naming the games
            if spec.split_pots and self.pots.policy.name.lower() != "standard":
                raise ValueError(f"game {self.game} splits pots high/low, which the standard policy only defines")
        if self.team_model not in TEAM_MODELS:
            raise ValueError(f"team_model must be one of {', '.join(TEAM_MODELS)}, got {self.team_model!r}")
        if self.by_player and self.equity is None and self.fairness is None:
            raise ValueError("by_player needs equity (--equity) or a fairness run")
        for flag in ("no_flop_no_drop", "audit", "trips_beat_straight", "by_player"):
            if not isinstance(getattr(self, flag), bool):
                raise ValueError(f"{flag} must be True or False, got {getattr(self, flag)!r}")

    @property
    def writes_results(self) -> bool:
        """Whether the run writes each settled row's results (every run but a fairness run without
        ``results``)."""
        return self.fairness is None or self.fairness.results

    @property
    def equity_columns(self) -> bool:
        """Whether the results carry the equity columns (``equity``, and results written)."""
        return self.equity is not None and self.writes_results

    @classmethod
    def of(cls, **options: Any) -> SettleOptions:
        """From flat keywords, as the command line names them: the settlement rules (``policy``,
        ``rake_pct``, ``rake_cap``, ``chip_unit``, ``odd_chips``, ``orphan_chips``) go to ``pots``.

        >>> SettleOptions.of(policy="ratio_rank", game="holdem").pots.policy.name
        'RATIO_RANK'
        """
        rules = {k: options.pop(k) for k in POT_FIELDS if k in options}
        return cls(pots=Options(**rules), **options)

    def as_dict(self) -> dict[str, Any]:
        """Flat and JSON-ready, in the command line's names: what ``summary.json`` and the manifest show."""
        p = self.pots
        return {
            "policy": p.policy.name.lower(),
            "rake_pct": _decimal(p.rake_pct) if p.rake_pct else None,
            "rake_cap": p.rake_cap,
            "no_flop_no_drop": self.no_flop_no_drop,
            "rules": self.rules,
            "odd_chips": p.odd_chips,
            "chip_unit": p.chip_unit,
            "orphan_chips": p.orphan_chips,
            "game": self.game,
            "team_model": self.team_model,
            "audit": self.audit,
            "trips_beat_straight": self.trips_beat_straight,
            "equity": None if self.equity is None else dataclasses.asdict(self.equity),
            "fairness": None if self.fairness is None else dataclasses.asdict(self.fairness),
            "by_player": self.by_player,
        }


@dataclasses.dataclass(frozen=True)
class SettleJob:
    """A whole ``settle`` (or ``audit``) run: the inputs (Parquet files, folders or globs, local or
    ``s3://``), the output folder, the rules, the rows per batch, how to run, and what to do with a
    folder that already holds cardbatch output (``mode``: ``resume``, ``overwrite`` or ``error``)."""

    inputs: tuple[str, ...]
    out: str
    options: SettleOptions = SettleOptions()
    batch_rows: int = 1 << 16
    run: RunOptions = RunOptions()
    mode: Mode = "resume"

    def __post_init__(self) -> None:
        object.__setattr__(self, "inputs", input_paths(self.inputs, "file, folder or glob"))
        if self.mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}, got {self.mode!r}")
        if not isinstance(self.out, str) or not self.out:
            raise ValueError("out: give the output folder")
        require_whole(self.batch_rows, "batch_rows", 1)


def team_schema() -> pa.Schema:
    """The fixed-width schema of team2v2 games (four seats; 0 & 2 against 1 & 3)."""

    def four(t: pa.DataType) -> pa.DataType:
        return pa.list_(t, 4)

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
