"""``cardbatch generate``: synthetic, reproducible game logs (the job: :mod:`cardbatch.batch.generate`)."""

from __future__ import annotations

import argparse

from cardbatch.batch.cli.common import (
    add_subcommand,
    non_negative_int,
    options_from,
    positive_int,
    show,
)
from cardbatch.games import GAMES, HOLDEM


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = add_subcommand(
        sub,
        "generate",
        "write synthetic, reproducible game logs (with optional bad rows)",
        "Write a Parquet file of synthetic hands in the input format (docs/formats.md): the same "
        "seed gives the same file.",
    )
    p.add_argument("--game", choices=GAMES, default=HOLDEM.name, help="the game logged")
    p.add_argument("--hands", type=non_negative_int, default=10000, help="rows to write")
    p.add_argument("--seed", type=non_negative_int, default=0, help="the file's seed")
    p.add_argument("--max-seats", type=positive_int, default=9, help="most seats at a table")
    p.add_argument("--bad-rate", type=float, default=0.0, help="share of rows made invalid (for trying the errors)")
    p.add_argument("--tamper-rate", type=float, default=0.0, help="share of recorded payouts to alter")
    p.add_argument("--streets", action="store_true", help="write contrib_street (per street) instead of contrib")
    p.add_argument("--text-cards", action="store_true", help="cards as 'AsKd' strings")
    p.add_argument(
        "--bias",
        action="append",
        default=[],
        metavar="KIND=RATE",
        help="a dishonest dealer, to try the fairness audit: seat0=RATE (seat 0's losing cards re-dealt at that "
        "rate) or card=CARD:RATE (the card moved into seat 0's hand at that rate); may be repeated",
    )
    p.add_argument("--row-group", type=positive_int, default=1 << 20, help="rows per Parquet row group")
    p.add_argument("--out", required=True, metavar="FILE", help="the Parquet file to write")
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from cardbatch.batch.generate import Bias, GenerateOptions, run
    from cardbatch.batch.io.jobs import RunOptions

    bias = tuple(Bias.parse(b) for b in args.bias)  # a ValueError names the bad one (exit 2)
    return show(run(options_from(GenerateOptions, args, run=options_from(RunOptions, args), bias=bias)), args.quiet)
