"""``cardbatch import``: PHH hand histories to Parquet (the job: :mod:`cardbatch.batch.phh.job`)."""

from __future__ import annotations

import argparse
import sys

from cardbatch.batch.cli.common import (
    EXIT_USAGE,
    add_file_mode,
    add_subcommand,
    options_from,
    positive_int,
    show,
)
from cardbatch.games import REGISTRY


def _variants() -> str:
    """``NT and FT (Hold'em), PO (Omaha), ...``: the PHH codes the registry's games are read from
    (the command line loads the registry anyway; the replay module is left for the run)."""
    return ", ".join(f"{' and '.join(g.phh_variants)} ({g.title})" for g in REGISTRY.values() if g.phh_variants)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = add_subcommand(
        sub,
        "import",
        "turn PHH hand histories (.phh, .phhs) into a Parquet file to settle or audit",
        f"Replay every hand of the inputs whose variant is one of {_variants()} into the settle "
        "format (the game column, per-street contributions, dead antes, folds, cards, the recorded "
        "payout); a hand dealing more hole cards a seat is the game of its kind that holds that many. "
        "Other variants (stud, razz, draw) and malformed hands go to OUT's .errors.parquet with a "
        "reason. Amounts become integer chips by one factor per run (--chip, or the smallest that "
        "makes every amount whole).",
    )
    p.add_argument("inputs", nargs="+", metavar="PHH", help=".phh/.phhs files, folders or globs")
    p.add_argument("--out", required=True, metavar="FILE", help="the Parquet file of hands to write")
    p.add_argument("--chip", type=positive_int, help="chips per unit of the files' amounts (default: found)")
    p.add_argument("--workers", type=positive_int, default=1, help="processes parsing files")
    add_file_mode(p)
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from cardbatch.batch.io.errors import InputError
    from cardbatch.batch.io.jobs import RunOptions
    from cardbatch.batch.phh.job import ImportJob, ImportOptions, run

    job = ImportJob(tuple(args.inputs), args.out, ImportOptions(args.chip, options_from(RunOptions, args), args.mode))
    try:
        summary = run(job)
    except (InputError, OSError) as exc:  # unreadable input or a failing disk: nothing is published
        print(f"cardbatch import: {exc}", file=sys.stderr)
        return EXIT_USAGE
    return show(summary, args.quiet)
