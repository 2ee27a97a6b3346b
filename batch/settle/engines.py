"""Where the units run: this process, a pool of spawned processes, or a Dask cluster, behind one call.

:func:`map_units` runs :func:`~.parts.run_unit` on every unit and yields each
unit with its parts' counters as they finish. ``local`` runs units in this
process (one worker, or a run of one batch or less) or in a spawned process
pool; ``dask`` ships the same units to a Dask cluster (a ``LocalCluster`` if
no scheduler address is given) whose workers read and write the parts
themselves. Every engine stops its workers on Ctrl-C, SIGTERM or an error.
"""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import functools
import logging
import os
import time
from collections.abc import Callable, Iterator
from typing import Any

from cardbatch.batch.io.errors import InputError
from cardbatch.batch.io.jobs import RunOptions
from cardbatch.batch.io.lifecycle import init_pool_worker, process_pool, signals_held
from cardbatch.batch.settle.by_game import settle_table
from cardbatch.batch.settle.parts import UnitContext, run_unit
from cardbatch.batch.settle.plan import Unit

Done = tuple[Unit, list[tuple[str, dict[str, Any]]]]


@dataclasses.dataclass
class Engine:
    """What a run learns from its engine once it is done: the workers that ran it (a cluster's, not
    this machine's) and the Dask workers' warm-up, when there was one."""

    workers: int = 1
    warm: dict[str, Any] | None = None


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


def map_units(
    units: list[Unit], ctx: UnitContext, run: RunOptions, warm_paths: list[str], engine: Engine
) -> Iterator[Done]:
    """Every unit through :func:`~.parts.run_unit` on the chosen engine, yielded as it finishes.

    Locally, a run in this process: one worker asked for, one unit, or (unless workers were
    asked for) a small run (``ctx.serial``: one batch of rows or less), for which starting workers
    (each imports and loads the kernels) costs more than it saves."""
    task = functools.partial(run_unit, ctx=ctx)
    workers = run.workers or os.cpu_count() or 1
    if run.engine == "dask":
        yield from _dask(units, task, workers, run.scheduler, ctx, warm_paths, engine)
    elif workers == 1 or len(units) <= 1 or (run.workers is None and ctx.serial):
        engine.workers = 1
        for u in units:
            yield u, task(u)
    else:
        threads = max(1, (os.cpu_count() or 1) // workers)
        engine.workers = min(workers, len(units))  # the pool starts no more processes than units
        with process_pool(engine.workers, threads) as pool:
            futures = {pool.submit(task, u): u for u in units}
            for f in cf.as_completed(futures):
                yield futures[f], f.result()


def _dask(
    units: list[Unit],
    task: Callable[[Unit], list[tuple[str, dict[str, Any]]]],
    workers: int,
    scheduler: str | None,
    ctx: UnitContext,
    warm_paths: list[str],
    engine: Engine,
) -> Iterator[Done]:
    """Settle the units on a Dask cluster: ``scheduler``'s, or a LocalCluster of ``workers`` processes.
    On an external cluster every worker first compiles (or loads) the kernels the run needs from the
    heads of ``warm_paths``, all at once."""
    try:
        from dask.distributed import Client, LocalCluster, as_completed
    except ImportError:
        raise InputError("--engine dask needs Dask: pip install 'cardbatch[dask]'") from None

    cluster = client = None
    quiet_stop = _StopChatter()
    filtered = _chatter_outlets()
    for outlet in filtered:
        outlet.addFilter(quiet_stop)
    try:
        with signals_held():  # a cluster is either not started or started whole, so it can be closed
            if scheduler:
                try:
                    client = Client(scheduler, timeout="15s")
                except (OSError, TimeoutError) as exc:
                    raise InputError(f"cannot reach the Dask scheduler at {scheduler}: {exc}") from None
            else:
                cluster = LocalCluster(
                    n_workers=workers,
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=":0",  # any free port: a second cluster here warns about 8787 otherwise
                    silence_logs=logging.ERROR,
                )
                client = Client(cluster)
        assert client is not None
        threads = max(1, (os.cpu_count() or 1) // workers)
        client.run(init_pool_worker, threads, False)
        if scheduler and warm_paths:
            from cardbatch.batch.settle.warmup import warm_worker

            t0 = time.perf_counter()
            each = client.run(warm_worker, settle_table, warm_paths, ctx.opts, ctx.serial)
            engine.warm = {
                "compiled": "compiled or loaded on every Dask worker, before the first task (client.run)",
                "seconds": round(time.perf_counter() - t0, 3),
                "workers": len(each),
                "worker_seconds": sorted(round(float(v), 3) for v in each.values()),
            }
        futures = client.map(task, units, pure=False)
        unit_of = dict(zip(futures, units))
        for f in as_completed(futures):
            yield unit_of[f], f.result()
        engine.workers = len(client.scheduler_info()["workers"])  # the cluster's workers, not this machine's
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
