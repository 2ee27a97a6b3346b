"""``cardbatch fairness``: is the deal fair? (The job is :mod:`cardbatch.batch.settle.fairness`.)"""

from __future__ import annotations

import argparse
import sys

from cardbatch.batch.cli.common import (
    EXIT_USAGE,
    RULE_PRESETS,
    add_subcommand,
    add_walk_options,
    positive_int,
    show,
    walk_from,
)
from cardbatch.games import GAMES


def _level(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1, got {text}")
    return value


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = add_subcommand(
        sub,
        "fairness",
        "test whether the deal is fair: all-ins against their equity, cards and categories against their odds",
        "Settle the inputs and walk every all-in as `settle --equity` does, then test the deal: each "
        "group's all-in wins against its summed equity (the favourites, by street, by tenth of equity, by "
        "seat, by player_id), each card slot's cards against their expected counts, three-card categories "
        "against their exact odds. Writes DIR/fairness.json and DIR/fairness.html, the rejected rows "
        "(DIR/errors/) and the summary; the per-hand results only with --results. Exit 4 when a test is "
        "rejected at --level after correcting for the number of tests (Holm).",
    )
    p.add_argument("inputs", nargs="+", metavar="INPUT", help="Parquet files, folders (hive partitions too) or globs")
    p.add_argument("--out", required=True, metavar="DIR", help="output folder (created; reruns resume in it)")
    p.add_argument(
        "--by",
        metavar="COLUMN",
        help="every test again for each value of this input column, or of a COLUMN=value folder of the input "
        "paths (e.g. room; at most 1,000 values, checked before anything is written)",
    )
    p.add_argument("--level", type=_level, default=0.01, help="false-alarm rate of all the tests together")
    add_walk_options(p, deck=False)
    p.add_argument(
        "--equity-deck",
        choices=("seen", "trackers"),
        help="the audit always counts every recorded card as out of the deck (seen, the default); trackers "
        "(folded cards back in the deck) is refused: it is biased where folds depend on the cards",
    )
    p.add_argument(
        "--by-player",
        action="store_true",
        help="with a player_id column: an all-in test per player too (one entry per player in the tallies)",
    )
    p.add_argument(
        "--results",
        action="store_true",
        help="also write every settled hand's results with its equity columns to DIR/results/, as settle "
        "--equity does (off by default: writing them costs more than the audit itself)",
    )
    p.add_argument("--game", choices=GAMES, help="the game of files without a game column (as settle)")
    p.add_argument("--rules", default="zjh", help="three-card rule preset: " + ", ".join(RULE_PRESETS))
    p.add_argument("--trips-beat-straight", action="store_true", help="short deck: three of a kind above a straight")
    p.add_argument("--workers", type=positive_int, help="worker processes (default: one per core)")
    p.add_argument("--engine", choices=("local", "dask"), default="local", help="a process pool, or Dask")
    p.add_argument("--scheduler", help="Dask scheduler address (default: a LocalCluster on this machine)")
    p.add_argument("--batch-rows", type=positive_int, default=1 << 16, help="rows per batch (bounds memory)")
    p.add_argument(
        "--mode",
        choices=("resume", "overwrite", "error"),
        default="resume",
        help="an --out that already holds cardbatch output: reuse its current parts, redo everything, or refuse",
    )
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from cardbatch.batch.io.errors import InputError
    from cardbatch.batch.io.jobs import RunOptions
    from cardbatch.batch.settle.job import run
    from cardbatch.batch.settle.options import FairnessOptions, SettleJob, SettleOptions

    opts = SettleOptions(
        rules=args.rules,
        game=args.game,
        trips_beat_straight=args.trips_beat_straight,
        equity=walk_from(args),
        fairness=FairnessOptions(by=args.by, level=args.level, results=args.results),
        by_player=args.by_player,
    )
    job = SettleJob(
        tuple(args.inputs),
        args.out,
        opts,
        args.batch_rows,
        RunOptions(args.workers, args.engine, args.scheduler, args.quiet, args.verbose),
        args.mode,
    )
    try:
        summary = run(job)
    except InputError as exc:
        print(f"cardbatch fairness: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as exc:
        print(f"cardbatch fairness: cannot write the output ({exc}); a rerun resumes", file=sys.stderr)
        return EXIT_USAGE
    return show(summary, args.quiet)
