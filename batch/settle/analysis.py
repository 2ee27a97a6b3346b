"""What an analysis adds to a settle run, and the registry of analyses.

A settle run reads rows, settles them and writes the results, the rejected rows and a summary. An
*analysis* rides on that run: it may check the inputs before anything is written, add columns to
each batch's results and counters to its summary, write files of its own when the run ends, and
give the run its line, its warnings and its exit status. ``audit``, ``equity`` and ``fairness``
are the three; each is one frozen dataclass (its options) subclassing :class:`Analysis`, in its
own module, listed once in :data:`REGISTERED`. The run's steps (plan, parts, manifest, assemble,
job) call the analyses a :class:`~cardbatch.batch.settle.options.SettleOptions` holds through this
interface and never name one.

Adding an analysis: a module with a frozen dataclass subclassing :class:`Analysis` that overrides
what it needs (docs/development.md walks through ``audit``), and its ``"module:Class"`` in
:data:`REGISTERED`.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING, Any, ClassVar

from cardbatch.batch.io.exits import EXIT_OK

if TYPE_CHECKING:
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    from cardbatch.games import Game

# The run's options, a cardbatch.batch.settle.options.SettleOptions: named Any here, since that
# module imports this one (and an import circle is refused, even one for type checking alone).
SettleOptions = Any

# Every analysis, as "module:Class", in the order they take their flat options (SettleOptions.of):
# an analysis that builds on another's options (fairness walks every all-in, as --equity does)
# comes first, so that it takes them.
REGISTERED = (
    "cardbatch.batch.settle.fairness.analysis:Fairness",
    "cardbatch.batch.settle.equity.analysis:Equity",
    "cardbatch.batch.settle.audit:Audit",
)


@dataclasses.dataclass(frozen=True)
class Batch:
    """A batch's settled rows as an analysis sees them: ``table`` (the settled rows only, in order),
    ``payout`` (their payouts, flat, seat by seat), the game's spec and the run's options."""

    table: pa.Table
    payout: np.ndarray
    spec: Game
    opts: SettleOptions


@dataclasses.dataclass(frozen=True)
class Analysis:
    """One analysis of a settle run: its options are the dataclass's fields; every step has a
    default that does nothing, so an analysis overrides only what it adds."""

    name: ClassVar[str]
    command: ClassVar[str | None] = None  # the run's name when this analysis is on ("cardbatch audit")
    keys: ClassVar[tuple[str, ...]] = ()  # the flat option names it takes (the command line's)
    off: ClassVar[dict[str, Any]] = {}  # those options' values when it is off (the summary shows them)
    counters: ClassVar[tuple[str, ...]] = ()  # the summary keys it adds (two analyses never share one)
    tops: ClassVar[tuple[str, ...]] = ()  # the files it writes at the top of the output folder

    @classmethod
    def from_flat(cls, flat: dict[str, Any]) -> Analysis | None:
        """This analysis from flat options (the command line's names), taking its keys out of
        ``flat``; None when they leave it off."""
        return None

    def flat(self) -> dict[str, Any]:
        """Its options under their flat names, JSON-ready (the summary's ``options``)."""
        return dict(self.off)

    def part_key(self) -> dict[str, Any]:
        """What of its options changes a part's content (the manifest's fingerprint: a change there
        settles the parts again)."""
        return self.flat()

    def check(self, opts: SettleOptions) -> None:
        """Refuse (``ValueError``) settlement rules it cannot work under."""

    def check_inputs(self, paths: Sequence[str], parsed: dict[str, pq.FileMetaData]) -> None:
        """Refuse (:class:`~cardbatch.batch.io.errors.InputError`) inputs it cannot use, before the
        output folder is touched."""

    def check_schema(self, path: str, schema: pa.Schema) -> None:
        """Refuse an input file whose columns it cannot use (InputError naming the file)."""

    def for_unit(self, hive: tuple[tuple[str, str], ...]) -> Analysis:
        """Itself as one unit of work sees it (``hive``: the unit's ``key=value`` folders)."""
        return self

    def unit_counters(self, counters: dict[str, Any]) -> dict[str, Any]:
        """A unit's counters, as :meth:`for_unit`'s variant files them."""
        return counters

    @property
    def writes_results(self) -> bool:
        """Whether a run with it writes each settled row's results."""
        return True

    def result_fields(self) -> tuple[tuple[str, pa.DataType], ...]:
        """The columns it adds to the results, after settle's own."""
        return ()

    def add(self, batch: Batch) -> tuple[dict[str, pa.Array], dict[str, Any]]:
        """Its columns for the batch's settled rows (those of :meth:`result_fields`, when the run
        writes results) and its counters (summed over batches, parts and workers)."""
        return {}, {}

    def finish(self, out: str, total: dict[str, Any], opts: SettleOptions) -> None:
        """At the run's end, before ``_SUCCESS``: write its files into ``out`` (:attr:`tops`) and
        shape its entry of the summary ``total``."""

    def line(self, figures: dict[str, Any], out: str) -> str | None:
        """The run's one line, when this analysis gives it (None: settle's line)."""
        return None

    def status(self, figures: dict[str, Any]) -> int:
        """The run's exit status as this analysis judges it (the run takes the highest)."""
        return EXIT_OK

    def warnings(self, figures: dict[str, Any]) -> list[str]:
        """What the run says on stderr for it: something asked for that did not happen as asked."""
        return []

    def repeated_ids_note(self) -> str:
        """What it adds to the warning about hand ids given more than once."""
        return ""

    def report_section(self, summary: dict[str, Any]) -> str:
        """Its section of ``report.html`` (HTML; empty: none)."""
        return ""


@cache
def registered() -> tuple[type[Analysis], ...]:
    """The analysis classes of :data:`REGISTERED`, imported on first use."""
    found = []
    for entry in REGISTERED:
        module, name = entry.split(":")
        cls = getattr(importlib.import_module(module), name)
        if not (isinstance(cls, type) and issubclass(cls, Analysis)):
            raise TypeError(f"{entry} is not an Analysis")
        found.append(cls)
    return tuple(found)


def from_flat(flat: dict[str, Any]) -> tuple[Analysis, ...]:
    """The analyses flat options ask for, each taking its keys out of ``flat``."""
    return tuple(a for cls in registered() if (a := cls.from_flat(flat)) is not None)


def flat_keys() -> tuple[str, ...]:
    """Every flat option name an analysis takes."""
    return tuple(dict.fromkeys(k for cls in registered() for k in cls.keys))


def all_tops() -> tuple[str, ...]:
    """Every file an analysis may write at the top of an output folder."""
    return tuple(dict.fromkeys(t for cls in registered() for t in cls.tops))


def check_together(analyses: tuple[Analysis, ...]) -> None:
    """Refuse a set of analyses that cannot run together: one given twice, or two that would add
    the same summary key (each would count the other's figures)."""
    seen: dict[str, str] = {}
    for a in analyses:
        if not isinstance(a, Analysis):
            raise ValueError(f"analyses must be Analysis objects, got {a!r}")
    names = [a.name for a in analyses]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ValueError(f"analysis {', '.join(twice)} given twice")
    for a in analyses:
        for key in a.counters:
            if key in seen:
                raise ValueError(f"{seen[key]} and {a.name} cannot run together: both count {key}; give one")
            seen[key] = a.name
