"""Progress for people: a bar on a terminal, log lines on stderr otherwise, nothing with ``quiet``.

On a terminal tqdm draws a bar. When stderr is a file or a pipe (a scheduler's
log), a line every ``LOG_EVERY`` seconds and one at the end say how far the
job is: a nightly run's log shows it is alive without a bar's control codes.
``verbose`` writes a line at every step instead (one per part for ``settle``).
Every long command counts what it works through, with its rate: ``settle`` and
``audit`` rows, ``import`` hands, ``generate`` rows, ``rank-decks`` decks,
``simulate`` tables.
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Iterator
from typing import Any

LOG_EVERY = 10.0


class _Silent:
    def update(self, n: int = 1) -> None:
        pass


class _LogLines:
    """``update(n)`` writes ``cardbatch DESC: done/total UNITs (p %), rate UNITs/s, s`` at most every
    ``every`` seconds, and once when the total is reached."""

    def __init__(self, total: int | None, desc: str, unit: str, every: float):
        self.total, self.desc, self.unit, self.every = total, desc, unit, every
        self.done = 0
        self.t0 = self.last = time.monotonic()

    def update(self, n: int = 1) -> None:
        self.done += n
        now = time.monotonic()
        if now - self.last >= self.every or (self.total is not None and self.done >= self.total):
            self.last = now
            share = f" ({100 * self.done / self.total:.0f} %)" if self.total else ""
            of = f"/{self.total:,}" if self.total is not None else ""
            seconds = now - self.t0
            rate = f", {self.done / seconds:,.0f} {self.unit}s/s" if seconds > 0 else ""
            print(
                f"cardbatch {self.desc}: {self.done:,}{of} {self.unit}s{share}{rate}, {seconds:.0f} s",
                file=sys.stderr,
                flush=True,
            )


@contextlib.contextmanager
def progress(
    total: int | None, desc: str, unit: str = "row", quiet: bool = False, verbose: bool = False
) -> Iterator[Any]:
    """Yield an object with ``update(n)``: see the module's docstring for which one."""
    if quiet:
        yield _Silent()
    elif verbose or not sys.stderr.isatty():
        yield _LogLines(total, desc, unit, 0.0 if verbose else LOG_EVERY)
    else:
        from tqdm import tqdm

        with tqdm(total=total, desc=desc, unit=unit, unit_scale=True, file=sys.stderr) as bar:
            yield bar
