"""Compile ahead: fill numba's on-disk cache for a settle run before its workers start.

A cold run compiles every kernel it calls, and each pool worker used to do it
again (two workers: twice the CPU). :func:`compile_ahead` does it once, on a
few rows from the head of each input, so the workers only load the cache:

1. The head rows go through :func:`~.by_game.settle_table`, stopped at the
   first compilation. If every kernel loads from the cache (a warm run) that
   is all (a few tenths of a second).
2. Otherwise two processes compile side by side: one the pot kernel of the
   run's policy family (for ``standard``, on the 2-vCPU VM: ~5 s for the
   serial build a small run takes, ~15 s for the parallel one), the other
   everything else, by settling the head rows with every
   button made invalid, so no row reaches the pot kernel. Once its pot kernel
   is done, the first process settles the heads too, from the last one
   backwards, so that with several inputs (the sample run's four: about 10 s of
   other kernels against 5 s of pots) the two share the rest; whatever one
   of them has cached, the other loads.
3. The head rows are settled once more here, now from the cache: whatever the
   second step missed is compiled now, once, before the pool.
"""

# Measured on the sample run (empty cache, 2-vCPU VM): the two compilations in one process took 22 s; side by side,
# see docs/performance.md. Rejected: compiling in threads (numba holds one compiler lock per process); compiling by
# explicit signatures (they would have to track every dtype the decoders produce; the head rows are the run's own
# types).

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from numba.core import event as ev

from cardbatch.batch.io import storage
from cardbatch.batch.io.lifecycle import process_pool
from cardbatch.batch.settle.options import SettleOptions
from cardbatch.batch.settle.outputs import with_folder_game

HEAD_ROWS = 8


def heads(paths: Iterable[str], metadata: Mapping[str, pq.FileMetaData] | None = None) -> list[pa.Table]:
    """The first rows of one input per distinct schema (unreadable inputs are skipped: the run reports
    them); ``metadata``: footers the caller has parsed already (a file of tiny row groups has one of
    megabytes)."""
    seen: list[pa.Schema] = []
    out = []
    for path in paths:
        try:
            pf = storage.parquet_file(path, metadata=(metadata or {}).get(path))
            if pf.metadata.num_rows == 0 or any(pf.schema_arrow.equals(s) for s in seen):
                continue
            seen.append(pf.schema_arrow)
            found = _per_game(pf) if "game" in pf.schema_arrow.names else None
            batch = found or next(pf.iter_batches(batch_size=HEAD_ROWS, row_groups=[0]))
        except (OSError, pa.ArrowException, StopIteration):
            continue
        head = with_folder_game(pa.Table.from_batches([batch]), path)
        out.append(head)
        out.extend(_variants(head))
    return out


SCAN_ROWS = 1 << 16  # rows of a file's first row group searched for the games it mixes


def _per_game(pf: pq.ParquetFile) -> pa.RecordBatch | None:
    """The first :data:`HEAD_ROWS` rows of each game among a file's first :data:`SCAN_ROWS` rows (a
    log that mixes games, as ``import`` writes them: the first rows alone reach one game's kernels),
    or None when they hold one game."""
    games = next(pf.iter_batches(batch_size=SCAN_ROWS, row_groups=[0], columns=["game"])).column(0)
    if pa.types.is_dictionary(games.type):
        games = games.dictionary_decode()
    if len(pc.unique(games)) < 2:  # one game: no Python loop over the rows
        return None
    values = games.to_pylist()
    firsts: dict[object, list[int]] = {}
    for i, v in enumerate(values):
        rows = firsts.setdefault(v, [])
        if len(rows) < HEAD_ROWS:
            rows.append(i)
    if len(firsts) < 2:
        return None
    last = max(max(rows) for rows in firsts.values())
    batch = next(pf.iter_batches(batch_size=last + 1, row_groups=[0]))
    picked = sorted(i for rows in firsts.values() for i in rows)
    return batch.take(pa.array(picked, pa.int64()))


def _variants(head: pa.Table) -> list[pa.Table]:
    """Copies of a head that reach the kernels its file may call but its first rows may not: with a
    ``dead`` column, every seat's chips dead (the dead-money kernel runs only for tables that
    have some; an imported log's first hands rarely do)."""
    if "dead" not in head.column_names or "contrib" not in head.column_names:
        return []
    contrib = head.column("contrib")
    try:
        dead = contrib.cast(head.schema.field("dead").type)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return []
    return [head.set_column(head.column_names.index("dead"), "dead", dead)]


Settle = Callable[[pa.Table, SettleOptions], object]


def _settle_heads(settle_table: Settle, tables: list[pa.Table], opts: SettleOptions, serial: bool) -> None:
    """Settle each head, ignoring errors: the run itself meets them and reports them with their file.
    ``serial``: through the kernels' serial builds, as a small run does (:mod:`cardbatch.kernels.twins`)."""
    from cardbatch.batch.io import parquet_write
    from cardbatch.kernels import twins

    with twins.serial(serial):
        for table in tables:
            try:
                settle_table(table, opts)
            except Exception:  # noqa: BLE001 (the warm-up must never change what a run does)
                pass
    if not serial:  # the writer every part of a run bigger than a batch goes through
        parquet_write.warm_up()


def _without_buttons(table: pa.Table) -> pa.Table:
    if "button" not in table.column_names:
        return table
    i = table.column_names.index("button")
    return table.set_column(i, "button", pa.array(np.full(table.num_rows, -1, np.int64)))


def _compile_rest(settle_table: Settle, tables: list[pa.Table], opts: SettleOptions, serial: bool) -> float:
    t0 = time.perf_counter()
    _settle_heads(settle_table, [_without_buttons(t) for t in tables], opts, serial)
    return time.perf_counter() - t0


def _compile_pots(
    policy: str, settle_table: Settle, tables: list[pa.Table], opts: SettleOptions, serial: bool
) -> tuple[float, float]:
    """The pot kernel, then the other kernels from the last head backwards: the other process goes
    forwards, so the two meet in the middle (seconds: the pot kernel's, the whole step's)."""
    from cardbatch.kernels import pots, twins

    t0 = time.perf_counter()
    with twins.serial(serial):
        pots.settle_detailed(
            np.zeros((1, 1, 2), np.int64), [[True, True]], [[1, 2]], [0], policy, raise_on_error=False, detail=False
        )
    t1 = time.perf_counter()
    if len(tables) > 1:  # one head: the other process compiles it alone
        _settle_heads(settle_table, [_without_buttons(t) for t in reversed(tables)], opts, serial)
    return t1 - t0, time.perf_counter() - t0


class _Cold(BaseException):  # not an Exception: nothing on the way may swallow it
    """A kernel missed the cache and was about to be compiled."""


class _StopAtCompile(ev.Listener):
    def on_start(self, event: ev.Event) -> None:
        raise _Cold()

    def on_end(self, event: ev.Event) -> None:
        pass


def _all_cached(settle_table: Settle, tables: list[pa.Table], opts: SettleOptions, serial: bool) -> bool:
    """Settle the head rows if every kernel they need loads from the cache; False at the first
    one that would have to be compiled (numba announces a compilation only after a cache miss)."""
    try:
        with ev.install_listener("numba:compile", _StopAtCompile()):
            _settle_heads(settle_table, tables, opts, serial)
        return True
    except _Cold:
        return False


def warm_worker(settle_table: Settle, paths: list[str], opts: SettleOptions, serial: bool) -> float:
    """On a worker of an external cluster, before its first task: settle the heads of ``paths`` here,
    which compiles (or loads from this machine's cache) every kernel the run needs. Every worker runs
    it at once (Dask's ``client.run``); returns its seconds."""
    t0 = time.perf_counter()
    _settle_heads(settle_table, heads(paths), opts, serial)
    return time.perf_counter() - t0


def compile_ahead(
    settle_table: Settle,
    paths: Iterable[str],
    opts: SettleOptions,
    processes: int = 2,
    quiet: bool = True,
    metadata: Mapping[str, pq.FileMetaData] | None = None,
    serial: bool = False,
) -> dict[str, Any]:
    """Make sure the kernels that ``settle_table`` calls on ``paths`` are in numba's cache (the run's
    own function is passed in, a module-level one the pool can pickle); returns what it did and how long."""
    t0 = time.perf_counter()
    tables = heads(paths, metadata)
    if not tables or _all_cached(settle_table, tables, opts, serial):
        return {"compiled": False, "seconds": round(time.perf_counter() - t0, 3)}
    if not quiet:  # a first run says so instead of sitting silent
        print(
            "cardbatch: compiling the kernels this run needs (once; cached for later runs)", file=sys.stderr, flush=True
        )
    with process_pool(max(1, processes), 1) as pool:
        pots_f = pool.submit(_compile_pots, opts.pots.policy.name.lower(), settle_table, tables, opts, serial)
        rest_f = pool.submit(_compile_rest, settle_table, tables, opts, serial)
        (pots_s, pots_process_s), rest_s = pots_f.result(), rest_f.result()
    t1 = time.perf_counter()
    _settle_heads(settle_table, tables, opts, serial)
    return {
        "compiled": True,
        "seconds": round(time.perf_counter() - t0, 3),
        "pot_kernel_seconds": round(pots_s, 3),
        "pot_process_seconds": round(pots_process_s, 3),
        "other_kernels_seconds": round(rest_s, 3),
        "leftover_seconds": round(time.perf_counter() - t1, 3),
    }
