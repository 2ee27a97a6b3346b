"""The settle job's options and the shape of its inputs (described for people in docs/formats.md)."""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from typing import Any

import pyarrow as pa

from cardbatch.batch.io.jobs import RunOptions, input_paths, require_whole
from cardbatch.batch.settle.analysis import Analysis, check_together, from_flat, registered
from cardbatch.constants import RESUME_MODES as MODES
from cardbatch.constants import TEAM_MODELS, Mode, TeamModel
from cardbatch.games import game as game_spec
from cardbatch.kernels.pots.api import Options

# MODES: what a run does with a folder that already holds cardbatch output: reuse its current parts,
# settle everything again (only cardbatch's own files are replaced), or refuse (exit 2)
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
class SettleOptions:
    """The rules a row is settled by and the analyses that ride on the run, validated when made and
    shipped to every worker as is.

    ``pots``: the settlement rules (policy, rake, chip unit, odd chips, orphan chips), a
    :class:`cardbatch.kernels.pots.Options`; ``no_flop_no_drop``: no rake on hands that ended
    before the flop; ``rules``: the three-card rule set's preset name; ``game``: the game of files
    without a ``game`` column (None: Hold'em when there is a ``board``, else Zha Jin Hua);
    ``team_model``: the 2v2 settlement model; ``trips_beat_straight``: in short deck, three of a
    kind ranks above a straight (default: a straight above trips); ``analyses``: what the run adds
    to settling (:mod:`.analysis`: the audit's exit status, the equity columns, the fairness
    tests), most easily given by their flat names through :meth:`of`.
    """

    pots: Options = Options()
    no_flop_no_drop: bool = False
    rules: str = "zjh"
    game: str | None = None
    team_model: TeamModel = "seed"
    trips_beat_straight: bool = False
    analyses: tuple[Analysis, ...] = ()

    def __post_init__(self) -> None:
        from cardbatch.kernels.threecard import rules_of

        if not isinstance(self.pots, Options):
            raise ValueError(f"pots must be a cardbatch.kernels.pots.Options, got {type(self.pots).__name__}")
        if self.no_flop_no_drop and not self.pots.rake_pct:  # no rake to leave out: an option doing nothing
            raise ValueError("no_flop_no_drop leaves out a rake: give rake_pct too (--rake-pct)")
        rules_of(self.rules)  # a ValueError naming the presets
        if self.game is not None:
            spec = game_spec(self.game)  # a ValueError naming the games
            if spec.split_pots and self.pots.policy.name.lower() != "standard":
                raise ValueError(f"game {self.game} splits pots high/low, which the standard policy only defines")
        if self.team_model not in TEAM_MODELS:
            raise ValueError(f"team_model must be one of {', '.join(TEAM_MODELS)}, got {self.team_model!r}")
        for flag in ("no_flop_no_drop", "trips_beat_straight"):
            if not isinstance(getattr(self, flag), bool):
                raise ValueError(f"{flag} must be True or False, got {getattr(self, flag)!r}")
        object.__setattr__(self, "analyses", tuple(self.analyses))
        check_together(self.analyses)
        for a in self.analyses:
            a.check(self)

    @property
    def command(self) -> str:
        """The run's name: an analysis's (``audit``, ``fairness``) or ``settle``."""
        return next((a.command for a in self.analyses if a.command), "settle")

    @property
    def writes_results(self) -> bool:
        """Whether the run writes each settled row's results (every run but a fairness run without
        ``results``)."""
        return all(a.writes_results for a in self.analyses)

    @property
    def result_fields(self) -> tuple[tuple[str, pa.DataType], ...]:
        """The columns the analyses add to the results (none when the run writes no results)."""
        if not self.writes_results:
            return ()
        return tuple(f for a in self.analyses for f in a.result_fields())

    def for_unit(self, hive: tuple[tuple[str, str], ...]) -> SettleOptions:
        """The options as one unit of work below the ``key=value`` folders ``hive`` runs them."""
        units = tuple(a.for_unit(hive) for a in self.analyses)
        return self if units == self.analyses else dataclasses.replace(self, analyses=units)

    def unit_counters(self, counters: dict[str, Any]) -> dict[str, Any]:
        """A unit's counters as its analyses file them (:meth:`for_unit`)."""
        for a in self.analyses:
            counters = a.unit_counters(counters)
        return counters

    @classmethod
    def of(cls, **options: Any) -> SettleOptions:
        """From flat keywords, as the command line names them: the settlement rules (``policy``,
        ``rake_pct``, ``rake_cap``, ``chip_unit``, ``odd_chips``, ``orphan_chips``) go to ``pots``,
        the analyses' options (``audit``, ``equity``, ``by_player``, ``fairness``) to the analyses.

        >>> SettleOptions.of(policy="ratio_rank", game="holdem").pots.policy.name
        'RATIO_RANK'
        >>> SettleOptions.of(audit=True).command
        'audit'
        """
        rules = {k: options.pop(k) for k in POT_FIELDS if k in options}
        analyses = from_flat(options)
        return cls(pots=Options(**rules), analyses=analyses, **options)

    def rules_dict(self) -> dict[str, Any]:
        """The settlement rules, flat and JSON-ready, in the command line's names."""
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
            "trips_beat_straight": self.trips_beat_straight,
        }

    def as_dict(self) -> dict[str, Any]:
        """Flat and JSON-ready, in the command line's names: what ``summary.json`` and the manifest
        show (every analysis's options, its values when off included)."""
        out = self.rules_dict()
        for cls in registered():
            out.update(cls.off)
        for a in self.analyses:
            out.update(a.flat())
        return out


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
