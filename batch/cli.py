"""The ``cardbatch`` command line: one subcommand per job, imported lazily so start-up stays fast."""
from __future__ import annotations

import argparse
import sys
from typing import Callable

EXIT_OK, EXIT_USAGE, EXIT_AUDIT = 0, 2, 3


def _cmd_evaluate(args: argparse.Namespace) -> int:
    import numpy as np
    import pyarrow.parquet as pq

    from kernels import cards, holdem

    table = pq.read_table(args.input, columns=[args.column])
    hands = cards.parse(table.column(args.column))
    scores = holdem.evaluate(hands)
    order = np.argsort(-scores.astype(np.int64), kind="stable")
    for i in order[: args.top]:
        print(f"{cards.format(hands[i])}\t{holdem.dense_rank(scores[i:i + 1])[0]}\t{holdem.describe(int(scores[i]))}")
    return EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cardbatch", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    ev = sub.add_parser("evaluate", help="evaluate a Parquet column of Hold'em hands (text) and list the best")
    ev.add_argument("input")
    ev.add_argument("--column", default="hand")
    ev.add_argument("--top", type=int, default=10)
    ev.set_defaults(func=_cmd_evaluate)
    for register in _registrars():
        register(sub)
    return parser


def _registrars() -> list[Callable[[argparse._SubParsersAction], None]]:
    from . import generate, rank_decks, settle_cli

    return [settle_cli.register, generate.register, rank_decks.register]


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except (FileNotFoundError, PermissionError, ValueError) as exc:
        print(f"cardbatch {args.command}: {exc}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
