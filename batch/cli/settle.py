"""``cardbatch settle`` and ``cardbatch audit``: the nightly job's command line.

The job itself is :func:`cardbatch.batch.runner.run`.
"""

from __future__ import annotations

import argparse
import sys
from fractions import Fraction

from ..formats import SettleOptions
from .common import EXIT_AUDIT, EXIT_OK, EXIT_USAGE, non_negative_int, options_from, positive_int, print_summary


def register(sub: argparse._SubParsersAction) -> None:
    for name, help_text in (
        ("settle", "settle recorded hands from Parquet files, folders or globs"),
        ("audit", "settle, then exit 3 if any recomputed payout differs from the recorded one"),
    ):
        p = sub.add_parser(name, help=help_text)
        p.add_argument("inputs", nargs="+", metavar="INPUT")
        p.add_argument("--out", required=True)
        p.add_argument("--policy", choices=("standard", "presence", "ratio_rank", "hybrid"), default="standard")
        p.add_argument("--rake-pct", help="rake as a fraction, e.g. 0.05 (exact decimal)")
        p.add_argument("--rake-cap", type=non_negative_int)
        p.add_argument("--no-flop-no-drop", action="store_true", help="no rake when the board is empty")
        p.add_argument("--rules", default="zjh", help="three-card rule preset for zjh hands")
        p.add_argument("--odd-chips", choices=("button", "first_winner"), default="button")
        p.add_argument("--chip-unit", type=positive_int, default=1)
        p.add_argument("--orphan-chips", choices=("error", "refund"), default="error")
        p.add_argument("--game", choices=("holdem", "zjh", "team2v2"), help="for files without a game column")
        p.add_argument("--team-model", choices=("seed", "proportional"), default="seed")
        p.add_argument("--workers", type=positive_int, help="processes (default: all cores)")
        p.add_argument("--engine", choices=("local", "dask"), default="local")
        p.add_argument("--scheduler", help="Dask scheduler address (default: a LocalCluster)")
        p.add_argument(
            "--batch-rows",
            type=positive_int,
            default=1 << 16,
            help="rows per batch and about per unit of work (bounds memory)",
        )
        p.add_argument("--quiet", action="store_true")
        p.set_defaults(func=_run, audit=name == "audit")


def _run(args: argparse.Namespace) -> int:
    from cardbatch.kernels.threecard import rules_of

    from ..runner import InputError, run

    if args.rake_pct is not None:
        try:
            if not 0 <= Fraction(args.rake_pct) <= 1:
                raise ValueError
        except (ValueError, ZeroDivisionError):
            print(f"cardbatch {args.command}: --rake-pct must be a number in 0..1", file=sys.stderr)
            return EXIT_USAGE
    rules_of(args.rules)
    opts = options_from(SettleOptions, args)
    try:
        summary = run(
            args.inputs,
            args.out,
            opts,
            workers=args.workers,
            engine=args.engine,
            scheduler=args.scheduler,
            batch_rows=args.batch_rows,
            quiet=args.quiet,
        )
    except InputError as exc:
        print(f"cardbatch {args.command}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as exc:  # a full or failing disk: finished parts stay, a rerun resumes
        print(
            f"cardbatch {args.command}: cannot write the output ({exc}); finished parts are kept and a rerun resumes",
            file=sys.stderr,
        )
        return EXIT_USAGE
    print_summary(summary, args.quiet, indent=1, sort_keys=True)
    if args.audit and summary.get("mismatches", 0):
        return EXIT_AUDIT
    return EXIT_OK
