"""Process lifecycle: how a run stops (Ctrl-C, SIGTERM, a dead parent) and how workers go with it.

The parent turns SIGTERM into :class:`Terminated` (SIGINT is already
``KeyboardInterrupt``), so both unwind through the same ``finally`` blocks:
the engines then kill their workers instead of waiting for them. Workers
ignore SIGINT (a terminal's Ctrl-C reaches the whole process group; the
parent decides) and watch their parent: when it is gone, even after a
SIGKILL that ran no handler, they exit too, so no worker outlives its run.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import multiprocessing as mp
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator

from cardbatch.batch.io.exits import EXIT_INTERRUPTED, EXIT_TERMINATED

RESUME = "interrupted; run the same command again to resume"


class Terminated(BaseException):
    """SIGTERM, raised where the parent is (a BaseException, like KeyboardInterrupt)."""


def _raise_terminated(signum: int, frame: object) -> None:
    raise Terminated()


def install_parent_handlers() -> None:
    """In the command's process: SIGTERM raises :class:`Terminated`."""
    signal.signal(signal.SIGTERM, _raise_terminated)


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """Ctrl-C and SIGTERM wait until the block ends, then raise as usual. For starting what cannot
    be stopped half-started: a Dask LocalCluster interrupted while its workers start can no longer
    be closed (Dask's exit hook then prints a traceback)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    held = (signal.SIGINT, signal.SIGTERM)
    before = {s: signal.getsignal(s) for s in held}
    for s in held:
        signal.signal(s, lambda signum, frame: caught.append(signum))
    try:
        yield
    finally:
        for s, handler in before.items():
            signal.signal(s, handler)
    if caught:
        raise Terminated() if caught[0] == signal.SIGTERM else KeyboardInterrupt()


def _watch_parent(parent: int) -> None:
    while True:
        time.sleep(0.5)
        if os.getppid() != parent:
            os._exit(EXIT_TERMINATED)


def init_worker() -> None:
    """In every worker process, first: leave Ctrl-C to the parent, and die with it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    threading.Thread(target=_watch_parent, args=(os.getppid(),), daemon=True, name="cardbatch-parent").start()


def stop_message(exc: BaseException) -> int:
    """Print the one line for an interrupted run and return its exit status."""
    print(RESUME, file=sys.stderr)
    return EXIT_TERMINATED if isinstance(exc, Terminated) else EXIT_INTERRUPTED


def init_pool_worker(threads: int | None, own_process: bool = True) -> None:
    """Each worker, first: numba's threads (at most what the worker's numba allows; None: the
    work needs no numba, which is then not imported); for our own pool's processes also the
    lifecycle (ignore Ctrl-C, die with the parent). Dask workers belong to their cluster, which
    stops them."""
    if own_process:
        init_worker()
    if threads is None:
        return
    # pyarrow's threads to the worker's share too: two pools of two threads on two cores ran each
    # unit slower than one thread each
    import pyarrow as pa

    pa.set_cpu_count(max(1, threads))
    import numba

    numba.set_num_threads(max(1, min(threads, numba.config.NUMBA_NUM_THREADS)))


def kill_pool(pool: cf.ProcessPoolExecutor) -> None:
    """Cancel what has not started and kill the workers (a unit in flight leaves no finished part)."""
    processes = list(getattr(pool, "_processes", {}).values())  # the executor offers no public handle
    results = getattr(pool, "_result_queue", None)  # shutdown() lets go of it
    pool.shutdown(wait=False, cancel_futures=True)
    for p in processes:
        if p.is_alive():
            p.kill()
    for p in processes:
        p.join(timeout=5)
    # A worker killed while it sent its record leaves the pool's manager thread reading a message that
    # never ends, and the interpreter's exit joins that thread: the process hung after its last line.
    # With this process's end of the result pipe closed too, no writer is left and the read ends.
    if results is not None:
        results._writer.close()


class _Pool(cf.ProcessPoolExecutor):
    """A process pool whose ``submit`` holds Ctrl-C and SIGTERM: a submit may start a worker, and
    one interrupted while it receives its start-up data prints a traceback of its own."""

    def submit(self, fn, /, *args, **kwargs):  # type: ignore[no-untyped-def]
        with signals_held():
            return super().submit(fn, *args, **kwargs)


def _init_thread(threads: int | None) -> None:
    if threads is None:  # work without numba
        return
    import numba

    numba.set_num_threads(max(1, min(threads, numba.config.NUMBA_NUM_THREADS)))  # a thread's own setting


class Stopped(BaseException):
    """Raised in a worker thread at its next part once the run is stopping (:func:`check_stop`)."""


_STOPPING = threading.Event()


def request_stop() -> None:
    """The run is stopping: units of this process's threads raise :class:`Stopped` at their next
    :func:`check_stop` (set before anything lets them go on, so none starts a part)."""
    _STOPPING.set()


def check_stop() -> None:
    """In a unit, between parts: raise :class:`Stopped` once the run stops (a worker thread cannot
    be killed; it ends at its next part, leaving the finished ones)."""
    if _STOPPING.is_set():
        raise Stopped()


@contextlib.contextmanager
def thread_pool(workers: int, threads: int | None) -> Iterator[cf.ThreadPoolExecutor]:
    """A pool of ``workers`` threads of this process, each running its kernels on ``threads`` numba
    threads (None: the work needs no numba). On Ctrl-C, SIGTERM or an error the units not started
    are cancelled and the running ones stop at their next part (:func:`check_stop`), waited for
    before the block ends, so nothing writes into the output once the run has unwound."""
    pool = cf.ThreadPoolExecutor(
        workers, thread_name_prefix="cardbatch-worker", initializer=_init_thread, initargs=(threads,)
    )
    _STOPPING.clear()
    try:
        yield pool
    except BaseException:
        _STOPPING.set()
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    finally:
        _STOPPING.clear()
    pool.shutdown()


BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


@contextlib.contextmanager
def blas_threads(threads: int) -> Iterator[None]:
    """Worker processes started in the block get ``threads`` BLAS threads (read from the environment
    when numpy loads, so set before they start): BLAS's threads spin after each call, and with a
    thread per core in every worker they took the cores from the workers' own kernels."""
    before = {name: os.environ.get(name) for name in BLAS_THREADS}
    os.environ.update({name: str(max(1, threads)) for name in BLAS_THREADS})
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@contextlib.contextmanager
def process_pool(workers: int, threads: int | None) -> Iterator[cf.ProcessPoolExecutor]:
    """A pool of fresh (spawned) worker processes, each with ``threads`` numba threads (None: no
    numba) and as many BLAS threads; on Ctrl-C, SIGTERM or an error they are killed, not waited for."""
    with blas_threads(threads or 1):
        pool = _Pool(
            max_workers=workers, mp_context=mp.get_context("spawn"), initializer=init_pool_worker, initargs=(threads,)
        )
        try:
            yield pool
        except BaseException:
            kill_pool(pool)
            raise
        pool.shutdown()
