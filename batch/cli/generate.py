"""``cardbatch generate``: synthetic, reproducible game logs (the job: :mod:`cardbatch.batch.generate`)."""

from __future__ import annotations

import argparse

from .common import EXIT_OK, non_negative_int, options_from, positive_int, print_summary


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("generate", help="write synthetic, reproducible game logs (with optional bad rows)")
    p.add_argument("--game", choices=("holdem", "zjh", "team2v2"), default="holdem")
    p.add_argument("--hands", type=non_negative_int, default=10000)
    p.add_argument("--seed", type=non_negative_int, default=0)
    p.add_argument("--max-seats", type=positive_int, default=9)
    p.add_argument("--bad-rate", type=float, default=0.0)
    p.add_argument("--tamper-rate", type=float, default=0.0, help="share of recorded payouts to alter")
    p.add_argument("--streets", action="store_true", help="write contrib_street (per street) instead of contrib")
    p.add_argument("--text-cards", action="store_true", help="cards as 'AsKd' strings")
    p.add_argument("--row-group", type=positive_int, default=1 << 20)
    p.add_argument("--out", required=True)
    p.add_argument("--quiet", action="store_true")
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from ..generate import GenerateOptions, write

    print_summary(write(options_from(GenerateOptions, args)), args.quiet)
    return EXIT_OK
