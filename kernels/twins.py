"""Kernels compiled twice from one body: parallel (the default) and serial, for small runs.

numba's parallel pass compiles a ``prange`` loop as a gufunc of its own, on
top of the function: the standard pot kernel took 19.2 s to compile against
8.7 s without ``parallel`` (empty cache, 2-vCPU VM), and the batch's other
parallel kernels about twice their serial time too. But the parallel build
also runs faster, even on one thread: the serial standard pot kernel and
Hold'em seat evaluator took 4x as long on a 250,000-row batch (numba
optimises the gufunc's loop better than the plain function's). So the
parallel build serves every big job, and the serial one is for a run that
is over in milliseconds once compiled, where compiling is all the wait: a
``settle`` or ``audit`` run of one batch or less, like the sample
run (the batch driver decides per run; direct calls of the kernels' wrappers
take the parallel builds).

:func:`twin` wraps a ``@njit(parallel=True)`` kernel in a :class:`Twin`
that also holds the same body compiled without ``parallel`` (where
``prange`` is ``range``); a call runs the parallel build unless the code
around it runs :func:`serial` (a context, per thread), so a run compiles
only the builds it uses. The serial build is the same function object's
code under another name: the two cannot drift, and numba, which names its
cache files by a function's qualified name and first line, caches them
apart.

Rejected: choosing by each call's size (a run's last, smaller batch would
compile the other build in every worker), a runtime ``parallel`` flag
(numba compiles both branches), and the serial body as a separate function
(a copy to keep in step).
"""

from __future__ import annotations

import contextlib
import threading
import types
from collections.abc import Iterator
from typing import Any

from numba import njit


class _Depth(threading.local):
    """How many :func:`serial` contexts are open in this thread (a settle run's units may run in
    threads of one process: each unit says which builds it takes)."""

    value = 0


_serial_depth = _Depth()


def _serial_build(kernel: Any, name: str) -> Any:
    """``kernel``'s Python body compiled by ``@njit(cache=True)`` under ``name``."""
    f = kernel.py_func
    copy = types.FunctionType(f.__code__, f.__globals__, name, f.__defaults__, f.__closure__)
    copy.__qualname__ = name
    copy.__doc__ = f.__doc__
    return njit(cache=True)(copy)


class Twin:
    """A parallel kernel and its serial build; a call runs the one :func:`serial` says."""

    def __init__(self, kernel: Any) -> None:
        self.parallel = kernel
        self.serial = _serial_build(kernel, f"{kernel.py_func.__qualname__}_serial")
        self.py_func = kernel.py_func
        self.__doc__ = kernel.py_func.__doc__

    def __call__(self, *args: Any) -> Any:
        return (self.serial if _serial_depth.value else self.parallel)(*args)


def twin(kernel: Any) -> Twin:
    """Decorator over a ``@njit(cache=True, parallel=True)`` kernel: a :class:`Twin`."""
    return Twin(kernel)


@contextlib.contextmanager
def serial(on: bool = True) -> Iterator[None]:
    """Inside, every twin runs its serial build (``on=False``: no change, for callers that decide
    at run time)."""
    _serial_depth.value += bool(on)
    try:
        yield
    finally:
        _serial_depth.value -= bool(on)


def in_serial() -> bool:
    """A :func:`serial` context is open: this run is one a compile would dominate."""
    return _serial_depth.value > 0


__all__ = ["Twin", "in_serial", "serial", "twin"]
