"""``cardbatch settle`` and ``cardbatch audit``: the nightly job's command line.

The job itself is :func:`cardbatch.batch.settle.job.run`.
"""

from __future__ import annotations

import argparse
from fractions import Fraction
from typing import Any

from cardbatch.batch.cli.common import (
    WALK_OPTIONS,
    add_game_options,
    add_inputs,
    add_output,
    add_run_options,
    add_subcommand,
    add_walk_options,
    non_negative_int,
    options_from,
    positive_int,
    refuse,
    show,
    usage,
    walk_from,
)
from cardbatch.constants import ODD_CHIPS, POLICIES, RULE_PRESETS, TEAM_MODELS
from cardbatch.constants import ORPHAN_CHIPS_RULES as ORPHAN_CHIPS
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
        add_inputs(p, "INPUT", "Parquet files, folders (hive partitions too) or globs")
        add_output(p, "DIR", "output folder (created; reruns resume in it)", resumable=True)
        g = add_game_options(
            p,
            GAMES,
            "the game of files without a game column or game=G folder (default: Hold'em for a board and "
            "two hole cards a seat, so name short deck; Zha Jin Hua without a board; Omaha is never guessed)",
            rules=RULE_PRESETS[0],
            trips="short deck: three of a kind ranks above a straight (default: a straight above trips)",
        )
        g.add_argument(
            "--policy",
            choices=POLICIES,
            default=POLICIES[0],
            help="pot policy (see the docs' Rules; hi/lo games: standard only)",
        )
        g.add_argument("--rake-pct", help="rake as a fraction, e.g. 0.05 (exact decimal); standard policy only")
        g.add_argument("--rake-cap", type=non_negative_int, help="most rake per hand, in chips")
        g.add_argument("--no-flop-no-drop", action="store_true", help="no rake when the board is empty")
        g.add_argument("--odd-chips", choices=ODD_CHIPS, default=ODD_CHIPS[0], help="who gets a split's odd chips")
        g.add_argument("--chip-unit", type=positive_int, default=1, help="smallest chip: splits are in its multiples")
        g.add_argument(
            "--orphan-chips",
            choices=ORPHAN_CHIPS,
            default=ORPHAN_CHIPS[0],
            help="chips only folded seats reached: set the row aside, or give them back",
        )
        g.add_argument("--team-model", choices=TEAM_MODELS, default=TEAM_MODELS[0], help="2v2 settlement model")
        e = p.add_argument_group("equity")
        e.add_argument(
            "--equity",
            action="store_true",
            help="games with a board: each all-in's street, expected payouts and equities (needs stack "
            "and contrib_street columns; see the docs' Equity and fairness)",
        )
        e.add_argument(
            "--by-player",
            action="store_true",
            help="with --equity and a player_id column: each player's actual against all-in adjusted net in the "
            "summary and the report (one entry per player)",
        )
        add_walk_options(p)
        add_run_options(
            p,
            "units settled at once, each in a thread of this process (default: one per core; a run of at "
            "most --batch-rows rows settles in this thread)",
            engine=True,
            batch_rows="rows per batch and about per unit of work (bounds memory)",
        )
        p.set_defaults(func=_run, audit=name == "audit")


def _walk(args: argparse.Namespace) -> Any:
    """The equity walk the flags ask for, or None without ``--equity``."""
    if not args.equity:
        return None
    return walk_from(args)


def _analyses(args: argparse.Namespace) -> Any:
    """The analyses the flags ask for (the audit's exit status, the equity walk), by the registry."""
    from cardbatch.batch.settle.analysis import from_flat

    return from_flat({"audit": args.audit, "equity": _walk(args), "by_player": args.by_player})


def _job(args: argparse.Namespace) -> Any:
    """The settle job the flags ask for."""
    from cardbatch.batch.io.jobs import RunOptions
    from cardbatch.batch.settle.options import SettleJob, SettleOptions
    from cardbatch.kernels.pots import Options

    return SettleJob(
        tuple(args.inputs),
        args.out,
        options_from(SettleOptions, args, pots=options_from(Options, args), analyses=_analyses(args)),
        args.batch_rows,
        options_from(RunOptions, args),
        args.mode,
    )


def _run(args: argparse.Namespace) -> int:
    given = [f"--{name.replace('_', '-')}" for name in WALK_OPTIONS if getattr(args, name, None) is not None]
    if given and not args.equity:  # as the Python API: a walk option without the walk is a mistake
        return refuse(args.command, f"{', '.join(given)}: only with --equity")
    if args.rake_pct is not None:
        try:
            if not 0 <= Fraction(args.rake_pct) <= 1:
                raise ValueError
        except (ValueError, ZeroDivisionError):
            return refuse(args.command, "--rake-pct must be a number in 0..1")
    with usage():  # the options' refusals are the user's (exit 2)
        job = _job(args)
    return settle_and_show(job, args)


def settle_and_show(job: Any, args: argparse.Namespace) -> int:
    """Run a settle job (``settle``, ``audit``, ``fairness``) and show its summary: input it cannot
    read, or an output it cannot write, is exit 2 (finished parts stay: a rerun resumes)."""
    from cardbatch.batch.io.errors import InputError
    from cardbatch.batch.settle.job import run

    try:
        summary = run(job)
    except InputError as exc:
        return refuse(args.command, str(exc))
    except OSError as exc:  # a full or failing disk: finished parts stay, a rerun resumes
        return refuse(args.command, f"cannot write the output ({exc}); finished parts are kept and a rerun resumes")
    return show(summary, args.quiet)
