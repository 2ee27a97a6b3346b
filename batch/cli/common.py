"""What every subcommand shares: exit codes, options from parsed arguments, showing a job's summary."""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import textwrap
from collections.abc import Callable
from typing import Any, TypeVar, cast

from cardbatch.batch.io.exits import EXIT_AUDIT, EXIT_CODES, EXIT_INTERNAL, EXIT_OK, EXIT_USAGE  # noqa: F401  (re-exported)
from cardbatch.batch.io.jobs import Summary

# Named here, not imported from the kernels, so that --help does not load numba
# (tests/batch/cli/test_cli.py checks they equal threecard.PRESETS and ranking.MEASURES).
RULE_PRESETS = ("zjh", "zjh_suited", "teen_patti", "three_card_poker")
MEASURES = ("best", "second", "margin", "margin_classes", "winners")


class Formatter(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Help that shows each option's default (where it has one: not for flags or unset options, nor
    where the help says it already) and keeps the description's and epilog's lines as written."""

    def _get_help_string(self, action: argparse.Action) -> str:
        if action.default is None or action.default is False or "default" in (action.help or ""):
            return action.help or ""
        return super()._get_help_string(action) or ""


def add_subcommand(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], name: str, help_text: str, description: str
) -> argparse.ArgumentParser:
    """A subcommand with the shared help layout, the exit codes as its epilog and ``-q``/``-v``."""
    p: argparse.ArgumentParser = sub.add_parser(
        name, help=help_text, description=textwrap.fill(description, 78), epilog=EXIT_CODES, formatter_class=Formatter
    )
    p.add_argument("-q", "--quiet", action="store_true", help="no progress, no summary (errors still print)")
    p.add_argument("-v", "--verbose", action="store_true", help="more detail on stderr (a line per part)")
    return p


T = TypeVar("T")


def options_from(cls: type[T], args: argparse.Namespace, **overrides: Any) -> T:
    """An options dataclass from the parsed arguments of the same names (``overrides`` win)."""
    fields = dataclasses.fields(cast(Any, cls))  # cls is a dataclass: what the name says
    values = {f.name: getattr(args, f.name) for f in fields if hasattr(args, f.name)}
    values.update(overrides)
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


FILE_MODE_HELP = (
    "an output name that already holds a file: replace it when a run of this same command wrote it (a file "
    "of yours is refused, exit 2), overwrite it whatever wrote it, or refuse any (exit 2); an input is never "
    "an output"
)


def add_file_mode(p: argparse.ArgumentParser) -> None:
    """``--mode`` of the commands that write files at names the user gives (``import``, ``generate``,
    ``rank-decks``, ``simulate``)."""
    from cardbatch.batch.io.jobs import FILE_MODES

    p.add_argument("--mode", choices=FILE_MODES, default="replace", help=FILE_MODE_HELP)


RESUMABLE = ("settle", "audit")  # the commands whose finished parts a rerun reuses


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


positive_int = _whole_number(1)
non_negative_int = _whole_number(0)


# Named here, not read from cardbatch.kernels.equity.Walk, so that --help does not load numba
# (tests/batch/cli/test_cli.py checks they equal Walk's defaults and limits).
EQUITY_BUDGET, EQUITY_SAMPLES, EQUITY_MAX_SAMPLES = 100_000, 10_000, 10_000_000
EQUITY_DECKS = ("seen", "trackers")  # cardbatch.kernels.equity.DECKS, the first the default
WALK_OPTIONS = ("equity_budget", "equity_samples", "equity_seed", "equity_deck")


def add_walk_options(p: argparse.ArgumentParser, deck: bool = True) -> None:
    """The equity walk's options, shared by ``settle``/``audit --equity`` and ``fairness`` (unset:
    None, so that ``settle`` can refuse them without ``--equity``; :func:`walk_from` fills in).
    ``deck``: offer ``--equity-deck`` (not to ``fairness``, whose tests hold only with every
    recorded card seen)."""
    if deck:
        p.add_argument(
            "--equity-deck",
            choices=EQUITY_DECKS,
            help="which cards the walk counts as out of the deck: seen (default) every card the row records, "
            "the folded seats' included, the deck the board really came from; trackers puts the folded seats' "
            "cards back, as poker trackers count a player's luck (biased where folds depend on the cards)",
        )
    p.add_argument(
        "--equity-budget",
        type=_whole_number(0, 2**63 - 1),
        help=f"walk every completion of an all-in's board when there are at most this many, else sample "
        f"(default: {EQUITY_BUDGET:,})",
    )
    p.add_argument(
        "--equity-samples",
        type=_whole_number(2, EQUITY_MAX_SAMPLES),
        help=f"completions drawn above the budget, 2 to {EQUITY_MAX_SAMPLES:,} (default: {EQUITY_SAMPLES:,})",
    )
    p.add_argument("--equity-seed", type=_whole_number(0, 2**64 - 1), help="seed of the drawn completions (default: 0)")


def walk_from(args: argparse.Namespace) -> Any:
    """The :class:`cardbatch.kernels.equity.Walk` the walk options ask for."""
    from cardbatch.kernels.equity import Walk

    budget, samples, seed = args.equity_budget, args.equity_samples, args.equity_seed
    deck = getattr(args, "equity_deck", None)
    return Walk(
        budget=EQUITY_BUDGET if budget is None else budget,
        samples=EQUITY_SAMPLES if samples is None else samples,
        seed=0 if seed is None else seed,
        deck=EQUITY_DECKS[0] if deck is None else deck,
    )
