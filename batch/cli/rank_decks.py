"""``cardbatch rank-decks``: deal or read decks and rank every seat (the job: :mod:`cardbatch.batch.rank_decks`)."""

from __future__ import annotations

import argparse
import sys

from cardbatch.batch.cli.common import (
    EXIT_USAGE,
    MEASURES,
    RULE_PRESETS,
    add_file_mode,
    add_subcommand,
    non_negative_int,
    options_from,
    positive_int,
    show,
)
from cardbatch.games import ZJH, games_with_hands


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = add_subcommand(
        sub,
        "rank-decks",
        "deal or read decks, rank every seat, write Parquet",
        "Deal decks from a seed (or read them with --in), evaluate every seat and write one row per "
        "deck: its seats' values and best, second and margin; --detail adds cards and ranks.",
    )
    p.add_argument("--game", choices=games_with_hands(), default=ZJH.name, help="the game dealt")
    p.add_argument("--rules", default="zjh", help="three-card preset: " + ", ".join(RULE_PRESETS))
    p.add_argument("--decks", type=positive_int, default=1000, help="how many decks to deal (ignored with --in)")
    p.add_argument("--players", type=positive_int, default=6, help="seats dealt per deck")
    p.add_argument("--seed", type=non_negative_int, default=0, help="the run's seed (deck i depends on seed and i)")
    p.add_argument("--in", dest="input", help="rank given decks: Parquet with a 52-card list column")
    p.add_argument("--column", default="deck", help="the deck column of --in")
    p.add_argument("--out", required=True, metavar="FILE", help="the Parquet file to write")
    p.add_argument("--top", type=non_negative_int, help="keep only the K best decks by --by")
    p.add_argument(
        "--by",
        choices=MEASURES,
        default="best",
        help="the measure --top ranks decks by: the best or second value, the margin between them as packed "
        "values or in hand classes (margin_classes, the margin the output and the figure show), the winners",
    )
    p.add_argument(
        "--detail",
        action="store_true",
        help="also write every seat's cards, category, rank in its deck, global rank and win flag "
        "(about 3x the output of the default: deck, each seat's value, best, second, margin)",
    )
    p.add_argument(
        "--plot",
        action="store_true",
        help="also draw OUT's .png: the best hands' categories, the margins and the top decks (cardbatch[plots])",
    )
    add_file_mode(p)
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from cardbatch.batch.io.errors import InputError
    from cardbatch.batch.io.jobs import RunOptions
    from cardbatch.batch.rank_decks import PLOT_MISSING, RankDecksOptions, run

    try:
        summary = run(options_from(RankDecksOptions, args, run=options_from(RunOptions, args)))
    except InputError as exc:  # decks that are not decks, or an output it may not write: nothing is written
        print(f"cardbatch rank-decks: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if summary.figures.get("plot") == PLOT_MISSING:  # said even with --quiet: the figure asked for is missing
        print(
            "cardbatch rank-decks: --plot: the figure was not drawn, matplotlib is not installed "
            "(pip install 'cardbatch[plots]'); the Parquet output is complete",
            file=sys.stderr,
        )
    return show(summary, args.quiet)
