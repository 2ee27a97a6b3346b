"""``cardbatch rank-decks``: deal or read decks and rank every seat (the job: :mod:`cardbatch.batch.rank_decks`)."""

from __future__ import annotations

import argparse

from cardbatch.kernels import ranking, threecard

from .common import EXIT_OK, non_negative_int, options_from, positive_int, print_summary


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("rank-decks", help="deal or read decks, rank every seat, write Parquet")
    p.add_argument("--game", choices=("zjh", "holdem"), default="zjh")
    p.add_argument("--rules", default="zjh", help="three-card preset: " + ", ".join(threecard.PRESETS))
    p.add_argument("--decks", type=positive_int, default=1000, help="how many decks to deal (ignored with --in)")
    p.add_argument("--players", type=positive_int, default=6)
    p.add_argument("--seed", type=non_negative_int, default=0)
    p.add_argument("--in", dest="input", help="rank given decks: Parquet with a 52-card list column")
    p.add_argument("--column", default="deck", help="the deck column of --in (default: deck)")
    p.add_argument("--out", required=True)
    p.add_argument("--top", type=non_negative_int, help="keep only the K best decks by --by")
    p.add_argument("--by", choices=ranking.MEASURES, default="best")
    p.add_argument(
        "--detail",
        action="store_true",
        help="also write every seat's cards, category, rank in its deck, global rank and win flag "
        "(about 5x the output of the default: deck, each seat's value, best, second, margin)",
    )
    p.add_argument("--quiet", action="store_true")
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from ..rank_decks import RankDecksOptions, run

    print_summary(run(options_from(RankDecksOptions, args), quiet=args.quiet), args.quiet)
    return EXIT_OK
