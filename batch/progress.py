"""A progress bar on a terminal (tqdm when installed), silent otherwise or with ``quiet``."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator


class _Silent:
    def update(self, n: int = 1) -> None:
        pass


@contextlib.contextmanager
def progress(total: int | None, desc: str, unit: str = "row", quiet: bool = False) -> Iterator:
    """Yield an object with ``update(n)``: a tqdm bar on a terminal, a no-op when quiet or piped."""
    if quiet or not sys.stderr.isatty():
        yield _Silent()
        return
    try:
        from tqdm import tqdm
    except ImportError:
        yield _Silent()
        return
    with tqdm(total=total, desc=desc, unit=unit, unit_scale=True, file=sys.stderr) as bar:
        yield bar
