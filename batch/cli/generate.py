"""``cardbatch generate``: synthetic, reproducible game logs (the job: :mod:`cardbatch.batch.generate`)."""

from __future__ import annotations

import argparse
import sys

from cardbatch.batch.cli.common import (
    add_file_mode,
    add_subcommand,
    non_negative_int,
    options_from,
    positive_int,
    show,
)
from cardbatch.games import GAMES, HOLDEM
from cardbatch.plays import PLAYS


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
    p.add_argument(
        "--start-id",
        type=non_negative_int,
        default=0,
        help="the first hand_id (hand i is START_ID + i, dealt from deck START_ID + i): give each file of one "
        "settle run its own range, hand ids must be unique within a run",
    )
    p.add_argument(
        "--max-seats",
        type=positive_int,
        help="most seats at a table (default: 9, or fewer where the game's deck deals fewer)",
    )
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
    p.add_argument(
        "--play",
        choices=tuple(PLAYS),
        default="random",
        help="how the players decide: "
        + "; ".join(f"{x.name}: {x.words}" for x in PLAYS.values())
        + " (tight and loose: games with a board; see the generate guide)",
    )
    p.add_argument(
        "--hide-folded",
        action="store_true",
        help="write folded seats' cards as unknown (255, or -- as text), as public hand histories hide them",
    )
    p.add_argument("--row-group", type=positive_int, default=1 << 20, help="rows per Parquet row group")
    p.add_argument("--out", required=True, metavar="FILE", help="the Parquet file to write")
    add_file_mode(p)
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from cardbatch.batch.generate import Bias, GenerateOptions, run
    from cardbatch.batch.io.jobs import RunOptions

    bias = tuple(Bias.parse(b) for b in args.bias)  # a ValueError names the bad one (exit 2)
    seats = _max_seats(args.game, args.max_seats)
    opts = options_from(GenerateOptions, args, run=options_from(RunOptions, args), bias=bias, max_seats=seats)
    return show(run(opts), args.quiet)


def _max_seats(game: str, given: int | None) -> int:
    """``--max-seats`` as the job takes it: refused for a game whose tables always seat the same number,
    said on stderr (one line) when the game's deck deals fewer seats than asked."""
    from cardbatch.games import game as game_spec

    spec = game_spec(game)
    if given is None:
        return 9
    if not spec.has_hands:
        raise ValueError(f"--max-seats: game {game} always seats {spec.max_seats}")
    if given > spec.dealt_seats:
        print(
            f"cardbatch generate: --max-seats {given}: one {game} deck deals at most {spec.dealt_seats} seats "
            f"(with its burn cards), so tables seat 2..{spec.dealt_seats}",
            file=sys.stderr,
        )
    return given
