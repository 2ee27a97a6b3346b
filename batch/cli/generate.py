"""``cardbatch generate``: synthetic, reproducible game logs (the job: :mod:`cardbatch.batch.generate`)."""

from __future__ import annotations

import argparse
import sys

from cardbatch.batch.cli.common import (
    add_game_options,
    add_output,
    add_run_options,
    add_subcommand,
    deprecated,
    non_negative_int,
    options_from,
    positive_int,
    probability,
    seats_int,
    seed_int,
    show,
    usage,
)
from cardbatch.batch.io.errors import UsageError
from cardbatch.games import GAMES, HOLDEM
from cardbatch.plays import PLAYS


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = add_subcommand(
        sub,
        "generate",
        "write synthetic, reproducible game logs (with optional bad rows)",
        "Write a Parquet file of synthetic hands in the input format (docs/formats.md): the same "
        "seed gives the same file, on one worker or many. A run stopped before its end leaves no file at "
        "--out; run it again and it reuses the rows it had made.",
    )
    add_output(p, "FILE", "the Parquet file to write")
    g = add_game_options(p, GAMES, "the game logged", game_default=HOLDEM.name)
    seats = g.add_argument(
        "--seats",
        dest="max_seats",
        type=seats_int,
        metavar="SEATS",
        help="most seats at a table: tables seat 2..SEATS (default: 9, or fewer where the game's deck deals fewer)",
    )
    deprecated(g, "--max-seats", seats)
    g.add_argument(
        "--play",
        choices=tuple(PLAYS),
        default="random",
        help="how the players decide: "
        + "; ".join(f"{x.name}: {x.words}" for x in PLAYS.values())
        + " (tight and loose: games with a board; see the generate guide)",
    )
    h = p.add_argument_group("hands")
    h.add_argument("--hands", type=positive_int, default=10000, help="rows to write")
    h.add_argument("--seed", type=seed_int, default=0, help="the file's seed")
    h.add_argument(
        "--start-id",
        type=non_negative_int,
        default=0,
        help="the first hand_id (hand i is START_ID + i, dealt from deck START_ID + i): give each file of one "
        "settle run its own range, hand ids must be unique within a run",
    )
    h.add_argument(
        "--bad-rate", type=probability, default=0.0, help="share of rows made invalid (for trying the errors)"
    )
    h.add_argument("--tamper-rate", type=probability, default=0.0, help="share of recorded payouts to alter")
    h.add_argument(
        "--bias",
        action="append",
        default=[],
        metavar="KIND=RATE",
        help="a dishonest dealer, to try the fairness audit: seat0=RATE (seat 0's losing cards re-dealt at that "
        "rate) or card=CARD:RATE (the card moved into seat 0's hand at that rate); may be repeated",
    )
    w = p.add_argument_group("file layout")
    w.add_argument("--streets", action="store_true", help="write contrib_street (per street) instead of contrib")
    w.add_argument("--text-cards", action="store_true", help="cards as 'AsKd' strings")
    w.add_argument(
        "--hide-folded",
        action="store_true",
        help="write folded seats' cards as unknown (255, or -- as text), as public hand histories hide them",
    )
    w.add_argument("--row-group", type=positive_int, default=1 << 20, help="rows per Parquet row group")
    add_run_options(
        p,
        "worker processes, each making 1,048,576 rows at a time (default: one per core; a run of at most "
        "1,048,576 rows runs in this process); the file is the same whatever the workers and the engine",
        engine=True,
    )
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from cardbatch.batch.generate import Bias, GenerateOptions, run
    from cardbatch.batch.io.jobs import RunOptions

    with usage():
        bias = tuple(Bias.parse(b) for b in args.bias)  # a ValueError names the bad one (exit 2)
    seats = _max_seats(args.game, args.max_seats)
    opts = options_from(GenerateOptions, args, run=options_from(RunOptions, args), bias=bias, max_seats=seats)
    return show(run(opts), args.quiet)


def _max_seats(game: str, given: int | None) -> int:
    """``--seats`` as the job takes it: refused for a game whose tables always seat the same number,
    said on stderr (one line) when the game's deck deals fewer seats than asked."""
    from cardbatch.games import game as game_spec

    spec = game_spec(game)
    if given is None:
        return 9
    if not spec.has_hands:
        raise UsageError(f"--seats: game {game} always seats {spec.max_seats}")
    if given > spec.dealt_seats:
        burns = " (with its burn cards)" if spec.board_cards else ""  # a game without a board burns none
        print(
            f"cardbatch generate: --seats {given}: one {game} deck deals at most {spec.dealt_seats} seats"
            f"{burns}, so tables seat 2..{spec.dealt_seats}",
            file=sys.stderr,
        )
    return given
