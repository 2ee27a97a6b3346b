"""The ``cardbatch`` command line: one module per subcommand, each turning its arguments into
the job's options dataclass and calling the job (``settle``, ``audit`` and ``fairness``: the settle
job with its analyses; ``import``, ``generate``, ``rank-decks``, ``simulate``, ``compile``).
Argparse lives here and nowhere else; the jobs take options.

Nothing heavy is imported until a command runs (numba, pyarrow and the kernels load inside each
subcommand's ``_run`` or ``_job``), so ``--help`` and ``--version`` answer at once.
"""

from __future__ import annotations

import argparse
import sys

from cardbatch.batch.cli import fairness, generate, phh_import, precompile, rank_decks, settle, simulate
from cardbatch.batch.cli.common import Formatter, Parser, internal_error
from cardbatch.batch.io.errors import InputError, UsageError
from cardbatch.batch.io.exits import EXIT_CODES, EXIT_USAGE
from cardbatch.batch.io.lifecycle import Terminated, install_parent_handlers, stop_message

DESCRIPTION = """Settle, audit and rank card-game logs in bulk.

  cardbatch settle 'logs/*.parquet' --out DIR   settle recorded hands, set bad rows aside
  cardbatch audit  'logs/*.parquet' --out DIR   the same, exit 3 if a recorded payout differs
  cardbatch fairness 'logs/*.parquet' --out DIR is the deal fair? exit 4 if a test says no
  cardbatch import 'hands/*.phhs' --out F       PHH hand histories to a Parquet file of hands
  cardbatch generate --game holdem --out F      synthetic logs to try it on
  cardbatch rank-decks --decks N --out F        deal and rank decks
  cardbatch simulate --game zjh --out DIR       a room's coin economy over many rounds
  cardbatch compile                             fill numba's cache ahead of any run

Run `cardbatch COMMAND --help` for a command's options. Formats: docs/formats.md."""

__all__ = ["build_parser", "main", "run"]


def build_parser() -> argparse.ArgumentParser:
    from cardbatch import __version__

    parser = Parser(prog="cardbatch", description=DESCRIPTION, epilog=EXIT_CODES, formatter_class=Formatter)
    parser.add_argument("--version", action="version", version=f"cardbatch {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in (settle, fairness, phh_import, generate, rank_decks, simulate, precompile):
        command.register(sub)
    return parser


# what a command meets when a path given is not what it must be (missing, not allowed, a folder where a
# file goes or the other way round, a file in the way), or an option's value or options together that
# it cannot use (UsageError: raised where the flags become a job's options, see common.usage)
USER_ERRORS = (
    InputError,
    UsageError,
    FileNotFoundError,
    PermissionError,
    IsADirectoryError,
    NotADirectoryError,
    FileExistsError,
)


def main(argv: list[str] | None = None) -> int:
    install_parent_handlers()
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code: int = args.func(args)
        return code
    except USER_ERRORS as exc:  # a path or a value the user gave: said in one line, exit 2
        print(f"cardbatch {args.command}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except (KeyboardInterrupt, Terminated) as exc:
        return stop_message(exc)
    except Exception as exc:  # a bug of ours: a short line for the user, the traceback in a log
        return internal_error(args.command, exc)


def run() -> None:
    """The ``cardbatch`` program: :func:`main`, then exit without the interpreter's last garbage
    collections. Every file is closed and published before :func:`main` returns; what is left is
    freeing numba's and Arrow's objects one by one, which took 0.13 s of a 0.9 s run (measured on a
    run of 100,000 hands), for memory the process is about to give back whole."""
    import gc

    code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    gc.disable()
    gc.freeze()
    sys.exit(code)


if __name__ == "__main__":
    run()
