"""What every subcommand shares: the option groups (inputs, output and mode, run, game and rules, the
equity walk), one name per concept, the old names still accepted, exit codes, options from parsed
arguments, the usage errors and showing a job's summary.

The vocabulary (docs/index.md, "Command-line vocabulary"; tests/batch/cli/test_vocabulary.py holds
every command to it): inputs are positional; ``--out`` and ``--mode``; ``--workers``, ``--engine``,
``--scheduler``, ``--batch-rows``; ``--game``, ``--rules``, ``--trips-beat-straight``; ``--seats`` (seats
at a table); ``--seed``; ``--equity-*``. An old name (:data:`DEPRECATED`) is hidden from ``--help`` and
still does what the new one does, with a one-line note on stderr.

Choices come from the registries, which import nothing heavy (:mod:`cardbatch.games`,
:mod:`cardbatch.plays`, :mod:`cardbatch.constants`, :mod:`cardbatch.batch.io.jobs`): ``--help``
loads neither numba nor pyarrow.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import os
import sys
import textwrap
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NoReturn, TypeVar, cast

from cardbatch.batch.io.errors import UsageError
from cardbatch.batch.io.exits import EXIT_AUDIT, EXIT_CODES, EXIT_INTERNAL, EXIT_OK, EXIT_USAGE  # noqa: F401  (re-exported)
from cardbatch.batch.io.jobs import ENGINES, FILE_MODES, Summary
from cardbatch.constants import (
    DECKS,
    MAX_SAMPLES,
    RESUME_MODES,
    RULE_PRESETS,
    WALK_BUDGET,
    WALK_DECK,
    WALK_SAMPLES,
    WALK_SEED,
)

Group = argparse.ArgumentParser | argparse._ArgumentGroup


class Formatter(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Help that shows each option's default (where it has one: not for flags or unset options, nor
    where the help says it already) and keeps the description's and epilog's lines as written."""

    def _get_help_string(self, action: argparse.Action) -> str:
        if action.default is None or action.default is False or "default" in (action.help or ""):
            return action.help or ""
        return super()._get_help_string(action) or ""


class Parser(argparse.ArgumentParser):
    """The parser of ``cardbatch`` and its commands: no abbreviated options (``--by`` is never taken
    for ``--by-player``), and a mistake in one line on stderr, exit 2 (not argparse's usage block)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        parsed, extras = super().parse_known_args(args, namespace)
        for name in [k for k in vars(parsed) if k.startswith("_cardbatch_")]:  # the old names' bookkeeping
            delattr(parsed, name)
        return parsed, extras

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: {message} (see {self.prog} --help)\n")


def add_subcommand(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], name: str, help_text: str, description: str
) -> argparse.ArgumentParser:
    """A subcommand with the shared help layout, the exit codes as its epilog and ``-q``/``-v``."""
    p: argparse.ArgumentParser = sub.add_parser(
        name,
        help=help_text,
        description=textwrap.fill(description, 78),
        epilog=EXIT_CODES,
        formatter_class=Formatter,
        allow_abbrev=False,
    )
    p.add_argument("-q", "--quiet", action="store_true", help="no progress, no summary (errors still print)")
    p.add_argument("-v", "--verbose", action="store_true", help="more detail on stderr (a line per part)")
    return p


# --- old names, accepted for one release ----------------------------------------------------------

# old option -> its new name, in every command that had it (docs/index.md lists them)
DEPRECATED = {
    "--chip": "--chip-factor",  # import
    "--max-seats": "--seats",  # generate
    "--players": "--seats",  # rank-decks (simulate's --players is the room's population, not seats)
    "--by": "--measure",  # rank-decks (fairness' --by is a column)
    "--in": "DECKS (positional)",  # rank-decks
}


class Deprecated(argparse.Action):
    """An old option name, hidden from ``--help``: it says its new name on stderr (one line) and does
    what the new option does (``target``)."""

    def __init__(self, option_strings: list[str], dest: str, target: argparse.Action, new: str, **kw: Any) -> None:
        super().__init__(option_strings, dest, **kw)
        self.target = target
        self.new = new

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        if self.dest in _given(namespace, "new"):
            parser.error(f"{option_string} is the old name of {self.new}: give one of them")
        if self.dest not in _given(namespace, "old"):  # said once, however often it is given
            print(
                f"{parser.prog}: {option_string} is deprecated and goes in the next release: use {self.new}",
                file=sys.stderr,
            )
        _given(namespace, "old").add(self.dest)
        self.target(parser, namespace, values, option_string)


def _given(namespace: argparse.Namespace, which: str) -> set[str]:
    """The destinations an old (``which="old"``) or a new name has set so far in this parse."""
    found: set[str] = namespace.__dict__.setdefault(f"_cardbatch_{which}_names", set())
    return found


def _watched(target: argparse.Action, old: str, new: str) -> None:
    """Make ``target`` (the new name's action) refuse to be given beside its old name."""

    class Watched(type(target)):  # type: ignore[misc]
        def __call__(
            self,
            parser: argparse.ArgumentParser,
            namespace: argparse.Namespace,
            values: Any,
            option_string: str | None = None,
        ) -> None:
            if option_string is None or option_string in self.option_strings:  # given by its new name
                if self.dest in _given(namespace, "old"):
                    parser.error(f"{old} is the old name of {new}: give one of them")
                _given(namespace, "new").add(self.dest)
            super().__call__(parser, namespace, values, option_string)

    target.__class__ = Watched


def deprecated(group: Group, old: str, target: argparse.Action) -> argparse.Action:
    """Accept ``old`` for ``target`` (an option, or a positional argument given with ``old``)."""
    new = DEPRECATED[old]
    _watched(target, old, new)
    like: dict[str, Any] = {"type": target.type} if target.type is not None else {}
    return group.add_argument(
        old,
        action=Deprecated,
        dest=target.dest,
        target=target,
        new=new,
        nargs=target.nargs if target.option_strings else None,
        const=target.const,
        choices=target.choices,
        metavar=target.metavar,
        default=argparse.SUPPRESS,  # the new option's default stands
        help=argparse.SUPPRESS,
        **like,
    )


# --- values ---------------------------------------------------------------------------------------


def _whole_number(minimum: int, maximum: int | None = None) -> Callable[[str], int]:
    """An argparse type: a whole number from ``minimum`` (to ``maximum``), refused in cardbatch's own words."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, got {value}")
        if maximum is not None and value > maximum:
            raise argparse.ArgumentTypeError(f"must be at most {maximum:,}, got {value:,}")
        return value

    return parse


def _fraction(text: str) -> float:
    """An argparse type: a number in 0..1 (a probability, a share of rows)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"must be in 0..1, got {text}")
    return value


positive_int = _whole_number(1)
non_negative_int = _whole_number(0)
seed_int = _whole_number(0, 2**64 - 1)  # every generator takes a 64-bit seed
seats_int = _whole_number(2)  # seats at a table (the game's deck says how many at most)
probability = _fraction


# --- option groups --------------------------------------------------------------------------------


def add_inputs(p: argparse.ArgumentParser, metavar: str, help_text: str, optional: bool = False) -> argparse.Action:
    """The inputs, positional in every command (``optional``: one or none, else one or more)."""
    if optional:  # SUPPRESS: an absent input leaves the attribute to a deprecated option that names it
        return p.add_argument("input", nargs="?", metavar=metavar, default=argparse.SUPPRESS, help=help_text)
    return p.add_argument("inputs", nargs="+", metavar=metavar, help=help_text)


def add_output(p: argparse.ArgumentParser, metavar: str, help_text: str, resumable: bool = False) -> Group:
    """``--out`` and ``--mode``: a folder that reruns resume in (``resumable``: ``settle``, ``audit``,
    ``fairness``), or files at names the user gives (the other commands)."""
    g = p.add_argument_group("output")
    g.add_argument("--out", required=True, metavar=metavar, help=help_text)
    if resumable:
        g.add_argument(
            "--mode",
            choices=RESUME_MODES,
            default="resume",
            help="an --out that already holds cardbatch output: reuse its current parts, redo everything, "
            "or refuse (exit 2); files cardbatch did not write are never touched",
        )
    else:
        g.add_argument(
            "--mode",
            choices=FILE_MODES,
            default="replace",
            help="an output name that already holds a file: replace it when a run of this same command wrote "
            "it (a file of yours is refused, exit 2), overwrite it whatever wrote it, or refuse any (exit 2); "
            "an input is never an output",
        )
    return g


def add_run_options(
    p: argparse.ArgumentParser,
    workers_help: str,
    workers_default: int | None = None,
    engine: bool = False,
    batch_rows: str | None = None,
) -> Group:
    """How a job runs: ``--workers``; with ``engine``, ``--engine`` and ``--scheduler``; with
    ``batch_rows`` (its help), ``--batch-rows``."""
    g = p.add_argument_group("run")
    g.add_argument("--workers", type=positive_int, default=workers_default, help=workers_help)
    if engine:
        g.add_argument(
            "--engine",
            choices=ENGINES,
            default=ENGINES[0],
            help="this machine (settle, audit, fairness: threads of this process; the other commands: a pool of "
            "worker processes), or Dask",
        )
        g.add_argument("--scheduler", help="Dask scheduler address (default: a LocalCluster on this machine)")
    if batch_rows is not None:
        g.add_argument("--batch-rows", type=positive_int, default=1 << 16, help=batch_rows)
    return g


def add_game_options(
    p: argparse.ArgumentParser,
    games: Sequence[str],
    game_help: str,
    game_default: str | None = None,
    rules: str | None = None,
    trips: str | None = None,
) -> Group:
    """The game and its rules: ``--game`` (``games``, the registry's); with ``rules`` (its default),
    ``--rules`` (the three-card presets); with ``trips`` (its help), ``--trips-beat-straight``."""
    g = p.add_argument_group("game and rules")
    g.add_argument("--game", choices=tuple(games), default=game_default, help=game_help)
    if rules is not None:
        g.add_argument(
            "--rules", choices=RULE_PRESETS, default=rules, help="three-card rule preset (docs/rules.md; zjh games)"
        )
    if trips is not None:
        g.add_argument("--trips-beat-straight", action="store_true", help=trips)
    return g


WALK_OPTIONS = ("equity_budget", "equity_samples", "equity_seed", "equity_deck")


def add_walk_options(p: argparse.ArgumentParser, deck_help: str | None = None) -> Group:
    """The equity walk's options, shared by ``settle``/``audit --equity`` and ``fairness`` (unset:
    None, so that ``settle`` can refuse them without ``--equity``; :func:`walk_from` fills in).
    ``deck_help``: ``--equity-deck``'s help where it differs (``fairness`` refuses ``trackers``)."""
    g = p.add_argument_group("equity walk")
    decks = "; ".join(f"{d.name}: {d.words}" for d in DECKS.values())
    g.add_argument(
        "--equity-deck",
        choices=tuple(DECKS),
        help=deck_help
        or f"which cards the walk counts as out of the deck (default: {WALK_DECK}): {decks} (biased where folds "
        "depend on the cards)",
    )
    g.add_argument(
        "--equity-budget",
        type=_whole_number(0, 2**63 - 1),
        help=f"walk every completion of an all-in's board when there are at most this many, else sample "
        f"(default: {WALK_BUDGET:,})",
    )
    g.add_argument(
        "--equity-samples",
        type=_whole_number(2, MAX_SAMPLES),
        help=f"completions drawn above the budget, 2 to {MAX_SAMPLES:,} (default: {WALK_SAMPLES:,})",
    )
    g.add_argument("--equity-seed", type=seed_int, help=f"seed of the drawn completions (default: {WALK_SEED})")
    return g


def walk_from(args: argparse.Namespace) -> Any:
    """The :class:`cardbatch.kernels.equity.Walk` the walk options ask for."""
    from cardbatch.kernels.equity import Walk

    given = {field: getattr(args, f"equity_{field}", None) for field in ("budget", "samples", "seed", "deck")}
    with usage():
        return Walk(**{k: v for k, v in given.items() if v is not None})


# --- running a command ----------------------------------------------------------------------------

T = TypeVar("T")


@contextlib.contextmanager
def usage() -> Iterator[None]:
    """Where the command line turns its flags into a job's options: their ``ValueError`` (a value out
    of range, options that do not go together) is the user's, raised on as a
    :class:`~cardbatch.batch.io.errors.UsageError` (exit 2). Nowhere else is a ``ValueError`` taken
    for the user's: escaping a job's run, it is a bug of ours (exit 1, the traceback in a log)."""
    try:
        yield
    except UsageError:
        raise
    except (ValueError, OverflowError) as exc:
        raise UsageError(str(exc)) from exc


def options_from(cls: type[T], args: argparse.Namespace, **overrides: Any) -> T:
    """An options dataclass from the parsed arguments of the same names (``overrides`` win); its
    ``ValueError`` is a :class:`~cardbatch.batch.io.errors.UsageError`."""
    fields = dataclasses.fields(cast(Any, cls))  # cls is a dataclass: what the name says
    values = {f.name: getattr(args, f.name) for f in fields if hasattr(args, f.name)}
    values.update(overrides)
    with usage():
        return cls(**values)


def show(summary: Summary, quiet: bool) -> int:
    """A job's :class:`~cardbatch.batch.io.jobs.Summary`: its JSON on stdout and its one line on
    stderr, unless ``--quiet``, then its warnings on stderr; returns the exit status it asks for."""
    if not quiet:
        print(summary.json())
        print(summary.line, file=sys.stderr, flush=True)
    for line in summary.warnings:  # even with --quiet: something asked for did not happen as asked
        print(f"{summary.line.split(':', 1)[0]}: warning: {line}", file=sys.stderr, flush=True)
    return summary.status


def refuse(command: str, message: str) -> int:
    """A usage error found by the command itself: one line on stderr, exit 2."""
    print(f"cardbatch {command}: {message}", file=sys.stderr)
    return EXIT_USAGE


# the commands whose finished parts a rerun reuses
RESUMABLE = ("settle", "audit", "fairness", "import", "generate", "rank-decks", "simulate")


def internal_error(command: str, exc: BaseException) -> int:
    """An unexpected failure: one line on stderr naming a log file that holds the traceback."""
    import tempfile
    import traceback

    fd, path = tempfile.mkstemp(prefix=f"cardbatch-{command}-", suffix=".log")
    with os.fdopen(fd, "w") as log:
        traceback.print_exception(type(exc), exc, exc.__traceback__, file=log)
    resumes = " Finished parts are kept: a rerun resumes." if command in RESUMABLE else ""
    print(
        f"cardbatch {command}: internal error ({type(exc).__name__}: {exc}); the full log is {path}.{resumes}",
        file=sys.stderr,
    )
    return EXIT_INTERNAL
