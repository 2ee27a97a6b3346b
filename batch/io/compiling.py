"""Say so when a command stops to compile: a first run on a fresh numba cache compiles each kernel it
reaches (seconds to most of a minute), and a command that sits silent that long looks hung.

:func:`announced` prints one line on stderr at the first compilation inside it (numba announces a
compilation only after a cache miss, so a warm run prints nothing), once a process. Numba is
imported only when the block starts compiling's bookkeeping, by a caller that loads kernels anyway.
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Iterator
from typing import Any

_SAID: set[str] = set()  # what this process has said already


@contextlib.contextmanager
def announced(what: str, quiet: bool = False) -> Iterator[None]:
    """Within the block, the first kernel compiled prints ``what: compiling ...`` on stderr, once a
    process (``quiet``: nothing)."""
    if quiet:
        yield
        return
    from numba.core import event as ev

    owner = threading.get_ident()  # numba's listeners are the process's: hear this thread's compiling only

    class _Say(ev.Listener):
        def on_start(self, event: Any) -> None:
            if threading.get_ident() == owner and what not in _SAID:
                _SAID.add(what)
                print(
                    f"{what}: compiling the kernels this input needs (once; numba's cache keeps them for later runs)",
                    file=sys.stderr,
                    flush=True,
                )

        def on_end(self, event: Any) -> None:
            pass

    with ev.install_listener("numba:compile", _Say()):
        yield
