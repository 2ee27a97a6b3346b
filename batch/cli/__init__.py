"""The ``cardbatch`` command line: one module per subcommand, each turning its arguments into
the job's options dataclass and calling the job (``settle``/``audit``, ``generate``,
``rank-decks``, ``simulate``). Argparse lives here and nowhere else; the jobs take options."""

from __future__ import annotations

import argparse
import sys

from ..lifecycle import Terminated, install_parent_handlers, stop_message
from . import generate, rank_decks, settle, simulate
from .common import EXIT_USAGE, internal_error

__all__ = ["build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cardbatch", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    for command in (settle, generate, rank_decks, simulate):
        command.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    install_parent_handlers()
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except (FileNotFoundError, PermissionError, ValueError) as exc:
        print(f"cardbatch {args.command}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except (KeyboardInterrupt, Terminated) as exc:
        return stop_message(exc)
    except Exception as exc:  # a bug of ours: a short line for the user, the traceback in a log
        return internal_error(args.command, exc)


if __name__ == "__main__":
    sys.exit(main())
