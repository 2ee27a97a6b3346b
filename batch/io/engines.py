"""Where a job's units run: this process, a pool of spawned processes, or a Dask cluster, behind one interface.

Every heavy job (settle and its analyses, import, generate, rank-decks,
simulate) cuts its work into units and hands them to an engine from
:func:`start`: a unit in, a small record out, any file written by the unit
itself (see :mod:`.staged`). Its :meth:`Engine.map` yields each unit with its
record as it finishes, or in the units' order with ``ordered=True``; the job
keeps its own progress in its own unit (rows, hands, decks, tables).

- ``InProcess``: the units run here, one after the other: one worker asked
  for, one unit, or a small run (starting workers, each importing and
  loading its kernels, costs more than it saves).
- ``ThreadPool``: threads of this process, for units that release the GIL
  (settle's: Arrow's reading and writing and numba's kernels), which start at
  once and share the kernels this process has loaded.
- ``ProcessPool``: fresh (spawned) processes of this machine, each with its
  share of the cores as numba and Arrow threads.
- ``DaskCluster``: the cluster at ``--scheduler``, or a ``LocalCluster`` of
  ``--workers`` processes; the workers read and write the files themselves,
  so an external cluster needs inputs and outputs every worker can reach
  (``s3://``, or a shared disk).

Every engine stops its workers on Ctrl-C, SIGTERM or an error (:mod:`.lifecycle`).
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import functools
import logging
import os
import socket
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from cardbatch.batch.io.errors import InputError
from cardbatch.batch.io.jobs import RunOptions
from cardbatch.batch.io.lifecycle import blas_threads, init_pool_worker, process_pool, signals_held, thread_pool

U = TypeVar("U")
R = TypeVar("R")

DASK_MISSING = "--engine dask needs Dask: pip install 'cardbatch[dask]'"


class Engine:
    """Runs a job's units. ``name``: the engine's name in summaries (``local`` or ``dask``);
    :attr:`workers`: how many run them (a cluster's, not this machine's); ``external``: a cluster
    this run did not start (its workers compile or load the kernels themselves)."""

    name = "local"
    external = False

    def __init__(self, workers: int) -> None:
        self.workers = workers

    here = False  # the units run in this process (threads or this one), sharing its loaded kernels

    def map(
        self,
        task: Callable[[U], R],
        units: Sequence[U],
        ordered: bool = False,
        meanwhile: Callable[[], object] | None = None,
    ) -> Iterator[tuple[U, R]]:
        """``task(unit)`` for every unit, yielded with its unit as it finishes (``ordered``: in the
        units' order, at most a few units per worker finished ahead of the one awaited).
        ``meanwhile``: called here once the units are handed out, before any is awaited (the run's
        warm-up, while the workers read their first rows)."""
        raise NotImplementedError

    def on_each_worker(self, fn: Callable[..., R], *args: Any) -> dict[str, R]:
        """``fn(*args)`` once on every worker, all at once (a warm-up). A local engine's workers load
        the numba cache this process fills, so it runs here, once."""
        return {"here": fn(*args)}


class InProcess(Engine):
    """The units one after the other in this process."""

    here = True

    def __init__(self) -> None:
        super().__init__(1)

    def map(
        self,
        task: Callable[[U], R],
        units: Sequence[U],
        ordered: bool = False,
        meanwhile: Callable[[], object] | None = None,
    ) -> Iterator[tuple[U, R]]:
        if meanwhile is not None:
            meanwhile()
        for u in units:
            yield u, task(u)


class _Pool(Engine):
    """The units handed to an executor's workers (processes or threads), at most a few waiting each."""

    def __init__(self, pool: cf.Executor, workers: int) -> None:
        super().__init__(workers)
        self.pool = pool

    def map(
        self,
        task: Callable[[U], R],
        units: Sequence[U],
        ordered: bool = False,
        meanwhile: Callable[[], object] | None = None,
    ) -> Iterator[tuple[U, R]]:
        if not ordered:
            futures = {self.pool.submit(task, u): u for u in units}
            if meanwhile is not None:
                meanwhile()
            for f in cf.as_completed(futures):
                yield futures[f], f.result()
            return
        queue = iter(units)
        # a window of two units a worker: the records wait in order without every unit in flight
        window = [(u, self.pool.submit(task, u)) for _, u in zip(range(2 * self.workers), queue)]
        if meanwhile is not None:
            meanwhile()
        while window:
            u, f = window.pop(0)
            done = f.result()
            nxt = next(queue, _END)
            if nxt is not _END:
                window.append((nxt, self.pool.submit(task, nxt)))
            yield u, done


_END: Any = object()


class ProcessPool(_Pool):
    """Spawned processes of this machine, started by :func:`start` and killed when it ends."""


class ThreadPool(_Pool):
    """Threads of this process, for units whose work releases the GIL (Arrow's reading and writing,
    numba's kernels): they start at once and share the kernels this process has loaded; stopped at
    their next part when the run stops (:func:`~.lifecycle.check_stop`)."""

    here = True


class DaskCluster(Engine):
    """A Dask client's cluster (an external one at ``--scheduler``, or a LocalCluster)."""

    name = "dask"

    def __init__(self, client: Any, external: bool, threads: int | None) -> None:
        super().__init__(len(client.scheduler_info()["workers"]))
        self.client = client
        self.external = external
        self.threads = threads

    def map(
        self,
        task: Callable[[U], R],
        units: Sequence[U],
        ordered: bool = False,
        meanwhile: Callable[[], object] | None = None,
    ) -> Iterator[tuple[U, R]]:
        from dask.distributed import as_completed

        futures = self.client.map(functools.partial(_in_threads, task, self.threads), list(units), pure=False)
        if meanwhile is not None:
            meanwhile()
        if ordered:
            for u, f in zip(units, futures):
                yield u, f.result()
        else:
            unit_of = dict(zip(futures, units))
            for f in as_completed(futures):
                yield unit_of[f], f.result()
        self.workers = len(self.client.scheduler_info()["workers"])  # a cluster may grow or shrink while it runs

    def on_each_worker(self, fn: Callable[..., R], *args: Any) -> dict[str, R]:
        return dict(self.client.run(fn, *args))


def _in_threads(task: Callable[[U], R], threads: int | None, unit: U) -> R:
    """A unit on a Dask worker with the run's numba threads: a worker runs its tasks in threads of its
    own, and numba's thread count is a thread's, so the worker-wide setting did not reach them (two
    workers then ran every kernel on every core, each: a simulate run 2.8x slower than the pool)."""
    if threads is not None:
        import numba

        numba.set_num_threads(max(1, min(threads, numba.config.NUMBA_NUM_THREADS)))
    return task(unit)


def check_available(run: RunOptions) -> None:
    """Before anything is written: an :class:`InputError` when ``--engine dask`` is asked for and
    Dask is not installed, or ``--scheduler`` is not an address."""
    if run.engine == "dask":
        try:
            import distributed  # noqa: F401 (first: a submodule loaded earlier does not say Dask is there)
            from distributed.comm.addressing import parse_address, parse_host_port
        except ImportError:
            raise InputError(DASK_MISSING) from None
        if run.scheduler:  # an address without a port is known wrong before anything is written
            try:
                scheme, location = parse_address(run.scheduler)
                if scheme in ("tcp", "tls"):
                    parse_host_port(location)
            except ValueError as exc:
                raise InputError(f"cannot reach the Dask scheduler at {run.scheduler}: {exc}") from None


def local_workers(run: RunOptions, units: int, small: bool = False) -> int:
    """The processes a local run starts: the workers asked for (default: one per core), no more
    than its units; 1 (this process) for a small run whose workers were not asked for."""
    if run.workers is None and small:
        return 1
    return max(1, min(run.workers or os.cpu_count() or 1, units))


@contextlib.contextmanager
def start(
    run: RunOptions, units: int, numba: bool = True, small: bool = False, threads: bool = False
) -> Iterator[Engine]:
    """The engine ``run`` asks for, ready for ``units`` units, stopped when the block ends.
    ``numba``: the units call numba kernels (each worker gets its share of the cores as numba and
    Arrow threads; without, numba is never imported there); ``small``: a run over in less time than
    workers take to start (see :func:`local_workers`); ``threads``: the units release the GIL, so
    local workers are threads of this process (:class:`ThreadPool`) instead of spawned processes."""
    if run.engine == "dask":
        with _dask(run, numba) as engine:
            yield engine
        return
    workers = local_workers(run, units, small)
    if workers == 1:
        yield InProcess()
        return
    share = max(1, (os.cpu_count() or 1) // workers) if numba else None
    if threads:
        with thread_pool(workers, share) as tpool:
            yield ThreadPool(tpool, workers)
        return
    with process_pool(workers, share) as pool:
        yield ProcessPool(pool, workers)


_CHATTY = ("distributed", "asyncio", "tornado", "tornado.application")


class _StopChatter(logging.Filter):
    """Drops the event loop's report of a callback cancelled by Ctrl-C or SIGTERM: the loop thread
    logs it while the main thread is still raising the stop, before the run's handler can quiet it."""

    def filter(self, record: logging.LogRecord) -> bool:
        kind = record.exc_info[0] if record.exc_info else None
        stopped = kind is not None and not issubclass(kind, Exception)  # KeyboardInterrupt, Terminated
        cancelled = "cancel" in record.getMessage().lower() or (kind is not None and "Cancelled" in kind.__name__)
        return not (stopped or cancelled)


def _chatter_outlets() -> list[logging.Filterer]:
    """The loggers of the event loop and Dask, and every handler their records reach (a filter on
    a logger does not see its children's records; one on a handler does)."""
    loggers = [logging.getLogger(n) for n in (*_CHATTY, "")]
    handlers = [h for lg in loggers for h in lg.handlers]
    last = [logging.lastResort] if logging.lastResort is not None else []
    return [*loggers[:-1], *handlers, *last]


def _refused(address: str) -> None:
    """An :class:`~.errors.InputError` at once when nothing listens at a ``tcp://`` scheduler's port
    (the connection refused): Dask's client would try again for its whole timeout (15 s). Any other
    address, or a port that answers or is slow to, is left to the client."""
    scheme, _, rest = address.partition("://")
    host, _, port = rest.rpartition(":")
    if scheme != "tcp" or not host or not port.isdigit():
        return
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=5).close()
    except ConnectionRefusedError as exc:
        raise InputError(f"cannot reach the Dask scheduler at {address}: {exc}") from None
    except OSError:
        return


@contextlib.contextmanager
def _dask(run: RunOptions, numba: bool) -> Iterator[DaskCluster]:
    """A client of ``run.scheduler``'s cluster, or of a LocalCluster of ``run.workers`` processes
    (default: one per core) started here and closed with the block."""
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise InputError(DASK_MISSING) from None
    workers = run.workers or os.cpu_count() or 1
    cluster = client = None
    quiet_stop = _StopChatter()
    filtered = _chatter_outlets()
    for outlet in filtered:
        outlet.addFilter(quiet_stop)
    try:
        with signals_held():  # a cluster is either not started or started whole, so it can be closed
            if run.scheduler:
                _refused(run.scheduler)
                try:
                    client = Client(run.scheduler, timeout="15s")
                except (OSError, TimeoutError, ValueError) as exc:  # ValueError: not an address
                    raise InputError(f"cannot reach the Dask scheduler at {run.scheduler}: {exc}") from None
                if run.workers is not None:  # said, never passed in silence
                    print(
                        f"cardbatch: warning: --workers {run.workers} does nothing with --scheduler: the cluster's "
                        "own workers run the units",
                        file=sys.stderr,
                    )
            else:
                with blas_threads(max(1, (os.cpu_count() or 1) // workers)):  # its workers start here
                    cluster = LocalCluster(
                        n_workers=workers,
                        threads_per_worker=1,
                        processes=True,
                        dashboard_address=":0",  # any free port: a second cluster here warns about 8787 otherwise
                        silence_logs=logging.ERROR,
                    )
                client = Client(cluster)
        threads = max(1, (os.cpu_count() or 1) // workers) if numba else None
        engine = DaskCluster(client, external=bool(run.scheduler), threads=threads)
        client.run(init_pool_worker, threads, False)
        yield engine
    except BaseException:  # interrupted or failed: the cluster's shutdown chatter is not the user's news
        for name in _CHATTY:
            logging.getLogger(name).setLevel(logging.CRITICAL)
        raise
    finally:
        for outlet in filtered:
            outlet.removeFilter(quiet_stop)
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()
