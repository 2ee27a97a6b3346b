"""What every subcommand shares: exit codes, options from parsed arguments, the JSON summary."""

from __future__ import annotations

import argparse
import dataclasses
import json
from typing import Any, TypeVar

EXIT_OK, EXIT_USAGE, EXIT_AUDIT = 0, 2, 3

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
