"""``cardbatch import``: PHH hand histories to Parquet (the job: :mod:`cardbatch.batch.phh.job`)."""

from __future__ import annotations

import argparse

from cardbatch.batch.cli.common import (
    add_inputs,
    add_output,
    add_run_options,
    add_subcommand,
    deprecated,
    options_from,
    positive_int,
    refuse,
    show,
    usage,
)
from cardbatch.games import REGISTRY


def _variants() -> str:
    """``NT and FT (Hold'em), PO (Omaha), ...``: the PHH codes the registry's games are read from
    (the command line loads the registry anyway; the replay module, which reads every one of them,
    is left for the run)."""
    read = (g for g in REGISTRY.values() if g.phh_variants)
    return ", ".join(f"{' and '.join(g.phh_variants)} ({g.title})" for g in read)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = add_subcommand(
        sub,
        "import",
        "turn PHH hand histories (.phh, .phhs) into a Parquet file to settle or audit",
        f"Replay every hand of the inputs whose variant is one of {_variants()} into the settle "
        "format (the game column, per-street contributions, dead antes, folds, cards, the recorded "
        "payout); a hand dealing more hole cards a seat is the game of its kind that holds that many; a "
        "stud seat's cards are the seven it was dealt, a draw game's the hand it ended with (what it threw "
        "away in a discards column). "
        "Other variants and malformed hands go to OUT's .errors.parquet with a "
        "reason. Amounts become integer chips by one factor per run (--chip-factor, or the smallest that "
        "makes every amount whole). Inputs and --out may be s3:// URIs; a rerun after an interrupted run reuses "
        "the hands it finished.",
    )
    add_inputs(p, "PHH", ".phh/.phhs files, folders or globs")
    add_output(p, "FILE", "the Parquet file of hands to write")
    chip = p.add_argument(
        "--chip-factor",
        dest="chip",
        type=positive_int,
        metavar="F",
        help="chips per unit of the files' amounts (default: the smallest that makes every amount whole)",
    )
    deprecated(p, "--chip", chip)
    add_run_options(
        p,
        "processes replaying the hands; with --engine dask, the LocalCluster's (default: one per core; an import "
        "of at most 8,000 hands runs in this process unless --workers is given)",  # phh.job.SMALL_HANDS
        engine=True,
    )
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from cardbatch.batch.io.errors import InputError
    from cardbatch.batch.io.jobs import RunOptions
    from cardbatch.batch.phh.job import ImportJob, ImportOptions, run

    with usage():
        job = ImportJob(
            tuple(args.inputs), args.out, ImportOptions(args.chip, options_from(RunOptions, args), args.mode)
        )
    try:
        summary = run(job)
    except (InputError, OSError) as exc:  # unreadable input or a failing disk: nothing is published
        return refuse("import", str(exc))
    return show(summary, args.quiet)
