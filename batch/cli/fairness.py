"""``cardbatch fairness``: is the deal fair? (The job is :mod:`cardbatch.batch.settle.fairness`.)"""

from __future__ import annotations

import argparse
from typing import Any

from cardbatch.batch.cli.common import (
    add_game_options,
    add_inputs,
    add_output,
    add_run_options,
    add_subcommand,
    add_walk_options,
    options_from,
    usage,
    walk_from,
)
from cardbatch.batch.cli.settle import settle_and_show
from cardbatch.constants import RULE_PRESETS
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
    add_inputs(p, "INPUT", "Parquet files, folders (hive partitions too) or globs")
    add_output(p, "DIR", "output folder (created; reruns resume in it)", resumable=True)
    t = p.add_argument_group("tests")
    t.add_argument(
        "--by",
        metavar="COLUMN",
        help="every test again for each value of this input column, or of a COLUMN=value folder of the input "
        "paths (e.g. room; at most 1,000 values, checked before anything is written)",
    )
    t.add_argument("--level", type=_level, default=0.01, help="false-alarm rate of all the tests together")
    t.add_argument(
        "--by-player",
        action="store_true",
        help="with a player_id column: an all-in test per player too (one entry per player in the tallies)",
    )
    t.add_argument(
        "--results",
        action="store_true",
        help="also write every settled hand's results with its equity columns to DIR/results/, as settle "
        "--equity does (off by default: writing them costs more than the audit itself)",
    )
    add_game_options(
        p,
        GAMES,
        "the game of files without a game column (as settle)",
        rules=RULE_PRESETS[0],
        trips="short deck: three of a kind above a straight",
    )
    add_walk_options(
        p,
        deck_help="the audit always counts every recorded card as out of the deck (seen, the default); trackers "
        "(folded cards back in the deck) is refused: it is biased where folds depend on the cards",
    )
    add_run_options(
        p,
        "units settled at once, each in a thread of this process (default: one per core)",
        engine=True,
        batch_rows="rows per batch (bounds memory)",
    )
    p.set_defaults(func=_run)


def _job(args: argparse.Namespace) -> Any:
    """The settle job that runs the tests, as the flags ask."""
    from cardbatch.batch.io.jobs import RunOptions
    from cardbatch.batch.settle.fairness.options import FairnessOptions
    from cardbatch.batch.settle.options import SettleJob, SettleOptions

    opts = SettleOptions.of(
        rules=args.rules,
        game=args.game,
        trips_beat_straight=args.trips_beat_straight,
        equity=walk_from(args),
        fairness=FairnessOptions(by=args.by, level=args.level, results=args.results),
        by_player=args.by_player,
    )
    return SettleJob(tuple(args.inputs), args.out, opts, args.batch_rows, options_from(RunOptions, args), args.mode)


def _run(args: argparse.Namespace) -> int:
    with usage():  # the options' refusals are the user's (exit 2)
        job = _job(args)
    return settle_and_show(job, args)
