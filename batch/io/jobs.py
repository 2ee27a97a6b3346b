"""What every job takes beside its own options, and what every job returns.

Each job is one call, ``run(options) -> Summary``: ``cardbatch.batch.settle.job.run``,
``cardbatch.batch.phh.job.run``, ``cardbatch.batch.generate.run``, ``cardbatch.batch.rank_decks.run``,
``cardbatch.batch.simulate.job.run``. The command line only turns its flags into the options and
prints the summary; Python callers make the same call.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Mapping
from typing import Any, Literal

Engine = Literal["local", "dask"]
ENGINES: tuple[Engine, ...] = ("local", "dask")
# what a command that writes files at names the user gives does with a file already there
# (cardbatch.batch.io.owned): replace one its own command wrote, overwrite any, or refuse any
FileMode = Literal["replace", "overwrite", "error"]
FILE_MODES: tuple[FileMode, ...] = ("replace", "overwrite", "error")


def require_whole(value: object, name: str, least: int) -> None:
    """``ValueError`` unless ``value`` is a whole number (not a bool) of at least ``least``."""
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise ValueError(f"{name} must be a whole number >= {least}, got {value!r}")


def input_paths(inputs: str | Iterable[str], what: str) -> tuple[str, ...]:
    """A job's inputs as a tuple of paths (one path given alone is one input); ``ValueError`` naming
    ``what`` a job takes when there is none."""
    paths = (inputs,) if isinstance(inputs, str) else tuple(inputs)
    if not paths or not all(isinstance(p, str) and p for p in paths):
        raise ValueError(f"inputs: give at least one {what}")
    return paths


@dataclasses.dataclass(frozen=True)
class RunOptions:
    """How a job runs, not what it computes: ``workers`` (processes; None: the job's default),
    ``engine`` and Dask's ``scheduler`` address (jobs that only run locally refuse ``dask``),
    ``quiet`` (no progress, no summary) and ``verbose`` (a progress line per finished part)."""

    workers: int | None = None
    engine: Engine = "local"
    scheduler: str | None = None
    quiet: bool = False
    verbose: bool = False

    def __post_init__(self) -> None:
        if self.workers is not None:
            require_whole(self.workers, "workers", 1)
        if self.engine not in ENGINES:
            raise ValueError(f"engine must be one of {', '.join(ENGINES)}, got {self.engine!r}")
        if self.scheduler is not None and self.engine != "dask":
            raise ValueError("--scheduler (a Dask scheduler's address) needs --engine dask")


@dataclasses.dataclass(frozen=True)
class Summary:
    """What a job did. ``figures``: its counters (what ``summary.json`` holds and the command prints
    on stdout); ``line``: the one human line (stderr); ``status``: the exit status it asks for (0, or
    3 for an audit that found mismatches). ``indent``/``sort_keys``: how its JSON is printed.
    ``warnings``: lines about what the input or an option did not allow (an option that did little, ids
    that repeat), printed on stderr even with ``--quiet``."""

    figures: Mapping[str, Any]
    line: str
    status: int = 0
    indent: int | None = None
    sort_keys: bool = False
    warnings: tuple[str, ...] = ()

    def json(self) -> str:
        """The figures as the command prints them."""
        return json.dumps(dict(self.figures), indent=self.indent, sort_keys=self.sort_keys)
