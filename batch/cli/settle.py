"""``cardbatch settle`` and ``cardbatch audit``: the nightly job's command line.

The job itself is :func:`cardbatch.batch.settle.job.run`.
"""

from __future__ import annotations

import argparse
import sys
from fractions import Fraction
from typing import Any

from cardbatch.batch.cli.common import (
    EXIT_USAGE,
    RULE_PRESETS,
    WALK_OPTIONS,
    add_subcommand,
    add_walk_options,
    non_negative_int,
    options_from,
    positive_int,
    show,
    walk_from,
)
from cardbatch.games import GAMES


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    for name, help_text, description in (
        (
            "settle",
            "settle recorded hands from Parquet files, folders or globs",
            "Settle every hand of the inputs: results in DIR/results/, rows that cannot be settled in "
            "DIR/errors/ with a reason, totals in DIR/summary.json. A rerun reuses finished parts.",
        ),
        (
            "audit",
            "settle, then exit 3 if any recomputed payout differs from the recorded one",
            "Settle as `settle` does and compare each payout with the recorded one (the `mismatch` "
            "column); exit 3 when any differs.",
        ),
    ):
        p = add_subcommand(sub, name, help_text, description)
        p.add_argument(
            "inputs", nargs="+", metavar="INPUT", help="Parquet files, folders (hive partitions too) or globs"
        )
        p.add_argument("--out", required=True, metavar="DIR", help="output folder (created; reruns resume in it)")
        p.add_argument(
            "--policy",
            choices=("standard", "presence", "ratio_rank", "hybrid"),
            default="standard",
            help="pot policy (see the docs' Rules; hi/lo games: standard only)",
        )
        p.add_argument("--rake-pct", help="rake as a fraction, e.g. 0.05 (exact decimal); standard policy only")
        p.add_argument("--rake-cap", type=non_negative_int, help="most rake per hand, in chips")
        p.add_argument("--no-flop-no-drop", action="store_true", help="no rake when the board is empty")
        p.add_argument(
            "--rules", default="zjh", help="three-card rule preset for zjh hands: " + ", ".join(RULE_PRESETS)
        )
        p.add_argument(
            "--odd-chips", choices=("button", "first_winner"), default="button", help="who gets a split's odd chips"
        )
        p.add_argument("--chip-unit", type=positive_int, default=1, help="smallest chip: splits are in its multiples")
        p.add_argument(
            "--orphan-chips",
            choices=("error", "refund"),
            default="error",
            help="chips only folded seats reached: set the row aside, or give them back",
        )
        p.add_argument(
            "--game",
            choices=GAMES,
            help="the game of files without a game column or game=G folder (default: Hold'em for a board and "
            "two hole cards a seat, so name short deck; Zha Jin Hua without a board; Omaha is never guessed)",
        )
        p.add_argument(
            "--trips-beat-straight",
            action="store_true",
            help="short deck: three of a kind ranks above a straight (default: a straight above trips)",
        )
        p.add_argument(
            "--equity",
            action="store_true",
            help="games with a board: each all-in's street, expected payouts and equities (needs stack "
            "and contrib_street columns; see the docs' Equity and fairness)",
        )
        add_walk_options(p)
        p.add_argument(
            "--by-player",
            action="store_true",
            help="with --equity and a player_id column: each player's actual against all-in adjusted net in the "
            "summary and the report (one entry per player)",
        )
        p.add_argument("--team-model", choices=("seed", "proportional"), default="seed", help="2v2 settlement model")
        p.add_argument(
            "--workers",
            type=positive_int,
            help="worker processes (default: one per core; a run of at most --batch-rows rows settles in this process)",
        )
        p.add_argument("--engine", choices=("local", "dask"), default="local", help="a process pool, or Dask")
        p.add_argument("--scheduler", help="Dask scheduler address (default: a LocalCluster on this machine)")
        p.add_argument(
            "--batch-rows",
            type=positive_int,
            default=1 << 16,
            help="rows per batch and about per unit of work (bounds memory)",
        )
        p.add_argument(
            "--mode",
            choices=("resume", "overwrite", "error"),
            default="resume",
            help="an --out that already holds cardbatch output: reuse its current parts, settle everything "
            "again, or refuse (exit 2); files cardbatch did not write are never touched",
        )
        p.set_defaults(func=_run, audit=name == "audit")


def _walk(args: argparse.Namespace) -> Any:
    """The equity walk the flags ask for, or None without ``--equity``."""
    if not args.equity:
        return None
    return walk_from(args)


def _run(args: argparse.Namespace) -> int:
    from cardbatch.batch.io.errors import InputError
    from cardbatch.batch.io.jobs import RunOptions
    from cardbatch.batch.settle.job import run
    from cardbatch.batch.settle.options import SettleJob, SettleOptions
    from cardbatch.kernels.pots import Options

    given = [f"--{name.replace('_', '-')}" for name in WALK_OPTIONS if getattr(args, name, None) is not None]
    if given and not args.equity:  # as the Python API: a walk option without the walk is a mistake
        print(f"cardbatch {args.command}: {', '.join(given)}: only with --equity", file=sys.stderr)
        return EXIT_USAGE
    if args.rake_pct is not None:
        try:
            if not 0 <= Fraction(args.rake_pct) <= 1:
                raise ValueError
        except (ValueError, ZeroDivisionError):
            print(f"cardbatch {args.command}: --rake-pct must be a number in 0..1", file=sys.stderr)
            return EXIT_USAGE
    job = SettleJob(
        tuple(args.inputs),
        args.out,
        options_from(SettleOptions, args, pots=options_from(Options, args), equity=_walk(args)),
        args.batch_rows,
        options_from(RunOptions, args),
        args.mode,
    )
    try:
        summary = run(job)
    except InputError as exc:
        print(f"cardbatch {args.command}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as exc:  # a full or failing disk: finished parts stay, a rerun resumes
        print(
            f"cardbatch {args.command}: cannot write the output ({exc}); finished parts are kept and a rerun resumes",
            file=sys.stderr,
        )
        return EXIT_USAGE
    return show(summary, args.quiet)
