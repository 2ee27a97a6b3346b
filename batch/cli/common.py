"""What every subcommand shares: exit codes, options from parsed arguments, the JSON summary."""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
from typing import Any, TypeVar

EXIT_OK, EXIT_INTERNAL, EXIT_USAGE, EXIT_AUDIT = 0, 1, 2, 3

T = TypeVar("T")


def options_from(cls: type[T], args: argparse.Namespace, **overrides: Any) -> T:
    """An options dataclass from the parsed arguments of the same names (``overrides`` win)."""
    values = {f.name: getattr(args, f.name) for f in dataclasses.fields(cls) if hasattr(args, f.name)}
    values.update(overrides)
    return cls(**values)


def print_summary(summary: dict, quiet: bool, **dumps: Any) -> None:
    """The job's summary as JSON on stdout, unless ``--quiet``."""
    if not quiet:
        print(json.dumps(summary, **dumps))


def internal_error(command: str, exc: BaseException) -> int:
    """An unexpected failure: one line on stderr naming a log file that holds the traceback."""
    import tempfile
    import traceback

    fd, path = tempfile.mkstemp(prefix=f"cardbatch-{command}-", suffix=".log")
    with os.fdopen(fd, "w") as log:
        traceback.print_exception(type(exc), exc, exc.__traceback__, file=log)
    print(
        f"cardbatch {command}: internal error ({type(exc).__name__}: {exc}); the full log is {path}. "
        "Finished parts are kept: a rerun resumes.",
        file=sys.stderr,
    )
    return EXIT_INTERNAL


def _whole_number(minimum: int):
    """An argparse type: a whole number >= ``minimum``, refused in cardbatch's own words."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, got {value}")
        return value

    return parse


positive_int = _whole_number(1)
non_negative_int = _whole_number(0)
