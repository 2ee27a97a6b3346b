"""The ``cardbatch`` command line: one subcommand per job, imported lazily so start-up stays fast."""
from __future__ import annotations

import argparse
import json
import sys
from typing import Callable

EXIT_OK, EXIT_USAGE, EXIT_AUDIT = 0, 2, 3


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cardbatch", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    for register in _registrars():
        register(sub)
    return parser


def _registrars() -> list[Callable[[argparse._SubParsersAction], None]]:
    from . import generate, rank_decks, settle_cli, simulate

    return [settle_cli.register, generate.register, rank_decks.register, simulate.register]


def summary_command(job: Callable[[argparse.Namespace], dict]) -> Callable[[argparse.Namespace], int]:
    """A subcommand that runs ``job`` and prints its summary as JSON unless ``--quiet``."""
    def run(args: argparse.Namespace) -> int:
        summary = job(args)
        if not args.quiet:
            print(json.dumps(summary))
        return EXIT_OK

    return run


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
