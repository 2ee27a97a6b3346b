"""``cardbatch rank-decks``: deal or read decks and rank every seat (the job: :mod:`cardbatch.batch.rank_decks`)."""

from __future__ import annotations

import argparse
import sys

from cardbatch.batch.cli.common import (
    add_game_options,
    add_inputs,
    add_output,
    add_run_options,
    add_subcommand,
    deprecated,
    non_negative_int,
    options_from,
    positive_int,
    refuse,
    seats_int,
    seed_int,
    show,
)
from cardbatch.batch.io.errors import UsageError
from cardbatch.constants import MEASURES, RULE_PRESETS
from cardbatch.games import ZJH, games_with_hands


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = add_subcommand(
        sub,
        "rank-decks",
        "deal or read decks, rank every seat, write Parquet",
        "Deal decks from a seed (or read them from DECKS), evaluate every seat and write one row per "
        "deck: its seats' values and best, second and margin; --detail adds cards and ranks. A run stopped "
        "before its end leaves no file at --out; run it again and it reuses the decks it had ranked.",
    )
    given = add_inputs(
        p, "DECKS", "rank given decks instead of dealing them: Parquet with a 52-card list column", optional=True
    )
    add_output(p, "FILE", "the Parquet file to write")
    g = add_game_options(p, games_with_hands(), "the game dealt", game_default=ZJH.name, rules=RULE_PRESETS[0])
    seats = g.add_argument(
        "--seats", dest="players", type=seats_int, default=6, metavar="N", help="seats dealt per deck"
    )
    d = p.add_argument_group("decks")
    d.add_argument(
        "--decks", type=positive_int, default=1000, metavar="N", help="how many decks to deal (ignored with DECKS)"
    )
    d.add_argument("--seed", type=seed_int, default=0, help="the run's seed (deck i depends on seed and i)")
    d.add_argument("--column", default="deck", help="the deck column of DECKS")
    deprecated(d, "--in", given)
    deprecated(g, "--players", seats)
    r = p.add_argument_group("ranking")
    r.add_argument("--top", type=non_negative_int, metavar="K", help="keep only the K best decks by --measure")
    measure = r.add_argument(
        "--measure",
        dest="by",
        choices=MEASURES,
        default=MEASURES[0],
        help="the measure --top ranks decks by: the best or second value, the margin between them as packed "
        "values or in hand classes (margin_classes, the margin the output and the figure show), the winners",
    )
    deprecated(r, "--by", measure)
    r.add_argument(
        "--detail",
        action="store_true",
        help="also write every seat's cards, category, rank in its deck, global rank and win flag "
        "(about 3x the output of the default: deck, each seat's value, best, second, margin)",
    )
    r.add_argument(
        "--plot",
        action="store_true",
        help="also draw OUT's .png: the best hands' categories, the margins and the top decks (cardbatch[plots])",
    )
    add_run_options(
        p,
        "worker processes, each ranking 1,048,576 decks at a time (default: one per core; a run of at most "
        "1,048,576 decks runs in this process); the file is the same whatever the workers and the engine",
        engine=True,
    )
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from cardbatch.batch.io.errors import InputError
    from cardbatch.batch.io.jobs import RunOptions
    from cardbatch.batch.rank_decks import PLOT_MISSING, RankDecksOptions, run
    from cardbatch.games import game

    dealt = game(args.game).dealt_seats
    if args.players > dealt:  # the deal's limit, known before the kernels load
        raise UsageError(f"--seats {args.players}: one {args.game} deck deals at most {dealt} players")
    opts = options_from(RankDecksOptions, args, input=getattr(args, "input", None), run=options_from(RunOptions, args))
    try:
        summary = run(opts)
    except InputError as exc:  # decks that are not decks, or an output it may not write: nothing is written
        return refuse("rank-decks", str(exc))
    if summary.figures.get("plot") == PLOT_MISSING:  # said even with --quiet: the figure asked for is missing
        print(
            "cardbatch rank-decks: --plot: the figure was not drawn, matplotlib is not installed "
            "(pip install 'cardbatch[plots]'); the Parquet output is complete",
            file=sys.stderr,
        )
    return show(summary, args.quiet)
