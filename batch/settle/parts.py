"""One unit of work, read, settled and written: the task every engine runs.

A unit's rows are read in tables of about ``batch_rows`` (:func:`unit_tables`),
settled (:func:`~.by_game.settle_by_game`), put in the output schemas
(:mod:`.outputs`) and handed to a sink: :class:`FolderSink` writes
``results/game=G/NAME.parquet`` and ``errors/game=G/NAME.parquet`` under
temporary names and publishes them whole; :class:`MemorySink` keeps the
tables (the DataFrame API). :func:`run_unit` finishes each part with its
counters in ``_parts/NAME.json``, written last: a rerun skips every part whose
JSON exists, so a crash or Ctrl-C costs only the unfinished parts and the
output comes out byte-identical.
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import json
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from cardbatch.batch.io import storage
from cardbatch.batch.io.arrays import arrow_of, numpy_of, scalar_of
from cardbatch.batch.io.errors import InputError
from cardbatch.batch.io.lifecycle import check_stop, request_stop
from cardbatch.batch.settle import hand_ids
from cardbatch.batch.settle.by_game import settle_by_game
from cardbatch.batch.settle.counters import INPUT_COUNTERS, merge_counters
from cardbatch.batch.settle.options import ORIGIN, SettleOptions
from cardbatch.batch.settle.outputs import conform_errors, conform_results, part_path, with_folder_game
from cardbatch.batch.settle.plan import Unit, footer_of
from cardbatch.games import game as game_spec

FAIL_ENV = "CARDBATCH_FAIL_PART"  # testing aid: a unit whose part name matches raises (crash drills)

# Units in this process settle once it is set: the run's warm-up loads (or compiles) the kernels in
# the command's thread while the worker threads read their units' rows (_read_while_warming).
WARM = threading.Event()
WARM.set()
READ_AHEAD = 4  # tables a unit reads before the warm-up ends, at most (a cold cache compiles for a while)


@contextlib.contextmanager
def warm_gate(closed: bool) -> Iterator[Callable[[Callable[[], object]], None]]:
    """Inside (``closed``), units of this process read their rows but settle only once the warm-up
    given to the yielded function has run: the gate closes before any unit is handed out and opens
    however the block ends; a warm-up that fails (Ctrl-C, SIGTERM) stops the units first."""
    if closed:
        WARM.clear()

    def open_after(warm_up: Callable[[], object]) -> None:
        try:
            warm_up()
        except BaseException:  # the units must not go on (a cold cache would compile in every thread)
            request_stop()
            raise
        finally:
            WARM.set()

    try:
        yield open_after
    finally:
        WARM.set()


def _read_while_warming(tables: Iterator[pa.Table]) -> Iterator[pa.Table]:
    """``tables``, of which as many as are read before the warm-up ends are read now (the warm-up
    runs on one core: the other reads meanwhile)."""
    if WARM.is_set():
        return tables
    ahead = []
    for table in tables:
        ahead.append(table)
        if WARM.is_set() or len(ahead) == READ_AHEAD:
            break
    while not WARM.wait(0.05):
        check_stop()
    check_stop()
    return itertools.chain(ahead, tables)


@dataclasses.dataclass(frozen=True)
class UnitContext:
    """What every task of a run shares: the output folder, the rules, the rows per batch, whether
    the kernels' serial builds run (a small run: see :mod:`cardbatch.kernels.twins`), and the paths
    below the folder (relative, with ``/``) where a part of this run could go but a file or link
    that is not cardbatch's lies: a task that would write there stops instead (exit 2)."""

    out: str
    opts: SettleOptions
    batch_rows: int
    serial: bool = False
    taken: frozenset[str] = frozenset()
    finished: frozenset[str] = frozenset()  # the parts the folder holds whole: reused, never settled again
    command: str = "settle"  # how the run is named on stderr
    quiet: bool = False
    read_threads: bool = True  # Arrow decodes a unit's columns in its threads (False: units run side by side)

    def claim(self, rel: str) -> None:
        """Refuse to write ``rel`` (or its temporary name) over what is not cardbatch's."""
        head, _, name = rel.rpartition("/")
        for path in (rel, f"{head}/.{name}.tmp" if head else f".{name}.tmp"):
            if path in self.taken:
                raise InputError(
                    f"{storage.join(self.out, *path.split('/'))} is not a file cardbatch wrote, and a part of this run "
                    "goes there: it is left alone; move it or choose another --out"
                )


class MemorySink:
    """Results and errors kept as tables, by game (the DataFrame API)."""

    def __init__(self) -> None:
        self.results: dict[str, list[pa.Table]] = {}
        self.errors: dict[str, list[pa.Table]] = {}

    def add_results(self, game: str, table: pa.Table) -> None:
        self.results.setdefault(game, []).append(table)

    def add_errors(self, game: str, table: pa.Table) -> None:
        self.errors.setdefault(game, []).append(table)

    def extend(self, other: MemorySink) -> None:
        """``other``'s tables after this sink's own (a unit's, gathered in the units' order)."""
        for game, tables in other.results.items():
            self.results.setdefault(game, []).extend(tables)
        for game, tables in other.errors.items():
            self.errors.setdefault(game, []).extend(tables)

    def close(self) -> None:
        pass

    def abort(self) -> None:
        pass


class FolderSink:
    """One part's files: results written a table at a time (memory holds one batch, not the unit),
    errors (few) gathered and written at :meth:`close`; every file whole or absent."""

    def __init__(self, ctx: UnitContext, name: str) -> None:
        self.ctx, self.out, self.name = ctx, ctx.out, name
        self.writers: dict[str, storage.PublishedParquet] = {}
        self.errors: dict[str, list[pa.Table]] = {}
        self.written: list[str] = []  # what the part wrote, relative to the folder: the manifest lists it

    def _path(self, kind: str, game: str) -> str:
        rel = f"{kind}/game={game}/{self.name}.parquet"
        self.ctx.claim(rel)
        self.written.append(rel)
        return part_path(self.out, kind, game, self.name)

    def add_results(self, game: str, table: pa.Table) -> None:
        if game not in self.writers:
            self.writers[game] = part_writer(self._path("results", game), own=not self.ctx.serial)
        self.writers[game].write(table)

    def add_errors(self, game: str, table: pa.Table) -> None:
        self.errors.setdefault(game, []).append(table)

    def close(self) -> None:
        for writer in self.writers.values():
            writer.close()
        for game, tables in self.errors.items():
            errors = pa.concat_tables(tables, promote_options="permissive")
            write_part(errors, self._path("errors", game), own=not self.ctx.serial)

    def abort(self) -> None:
        for writer in self.writers.values():
            writer.abort()


Sink = MemorySink | FolderSink


def part_writer(path: str, own: bool) -> storage.PublishedParquet:
    """One output file, written a table at a time, whole or absent, with the options of every file
    we write (:data:`~cardbatch.batch.io.storage.WRITE_OPTIONS`). Every table of a part has its
    folder's fixed schema (:mod:`.outputs`), so a part never needs widening. ``own``: through
    cardbatch's own writer (a run bigger than a batch), else pyarrow's (see
    :func:`~cardbatch.batch.io.storage.parquet_writer`)."""
    return storage.PublishedParquet(path, own=own)


def write_part(table: pa.Table, path: str, own: bool) -> None:
    """A whole file at once, through :func:`part_writer` (whole or absent, a full disk included)."""
    part = part_writer(path, own)
    try:
        part.write(table)
        part.close()
    except BaseException:
        part.abort()
        raise


def settle_into(tables: Iterable[pa.Table], unit: Unit, opts: SettleOptions, sink: Sink) -> dict[str, Any]:
    """Settle ``tables`` (rows of ``unit``) into ``sink``; returns their counters, with each input
    file's share under ``by_file`` when the unit holds several files. Nothing is left half written:
    on any error the sink is aborted."""
    tagged = len(unit.pieces) > 1
    counters = []
    by_piece: list[list[dict[str, Any]]] = []
    seen: list[pa.Table] = []  # each table's hand ids (a view), for the part's span
    opts = opts.for_unit(unit.hive)
    fields = opts.result_fields
    try:
        for table in tables:  # the files of a unit share their folders (plan), a game= folder too
            seen.append(table.select([c for c in ("hand_id",) if c in table.column_names]))
            r, e, c = settle_by_game(with_folder_game(table, unit.pieces[0].path), opts)
            c = opts.unit_counters(c)
            if tagged:
                by_piece.append(_piece_counters(r, e, len(unit.pieces)))
                r, e = _untagged(r), _untagged(e)
            for game, part in r.items():
                if part.num_columns and opts.writes_results:
                    sink.add_results(game, conform_results(part, unit.hive, fields))
            for game, part in e.items():
                if part.num_rows:
                    sink.add_errors(game, conform_errors(part, unit.hive))
            counters.append(c)
        sink.close()
    except InputError as exc:  # a column's type, found while reading: name the input too
        sink.abort()
        msg = str(exc)
        raise InputError(msg if msg.startswith(tuple(p.path for p in unit.pieces)) else f"{unit.path}: {msg}") from None
    except BaseException:
        sink.abort()
        raise
    summary = merge_counters(counters)
    summary["hand_ids"] = hand_ids.span(seen)
    if tagged:
        files = [merge_counters([b[k] for b in by_piece]) for k in range(len(unit.pieces))]
        for key in INPUT_COUNTERS:
            if sum(f.get(key, 0) for f in files) != summary.get(key, 0):  # a bug of ours: never a wrong summary
                raise AssertionError(f"{unit.name}: {key} by file does not add up to the part's")
        summary["by_file"] = {p.path: f for p, f in zip(unit.pieces, files)}
    return summary


def run_unit(unit: Unit, ctx: UnitContext) -> list[tuple[str, dict[str, Any]]]:
    """Settle one unit and write its parts; returns each part's name and counters (also saved as
    the part's JSON). A part whose JSON exists is finished: it is read back, not settled again."""
    from cardbatch.batch.io.compiling import announced
    from cardbatch.kernels import twins  # numba, loaded where settling loads it

    # the warm-up compiles what the inputs' first rows reach; a kernel only a later row reaches is
    # compiled here, and said (once a process)
    with twins.serial(ctx.serial), announced(f"cardbatch {ctx.command}", ctx.quiet):
        return _run_unit(unit, ctx)


def _run_unit(unit: Unit, ctx: UnitContext) -> list[tuple[str, dict[str, Any]]]:
    names = unit.part_names
    done = [storage.join(ctx.out, "_parts", f"{name}.json") for name in names]
    finished: dict[str, dict[str, Any]] = {}
    for name, path in zip(names, done):
        if name in ctx.finished:
            finished[name] = json.loads(storage.read_text(path))
    if len(finished) == len(names):
        return [(name, finished[name]) for name in names]
    if os.environ.get(FAIL_ENV) in (unit.name, unit.drill_name):
        raise RuntimeError(f"injected failure in {unit.name} ({FAIL_ENV})")
    out = []
    tables = _read_while_warming(unit_tables(unit, ctx.batch_rows, ctx.read_threads))
    for name, path in zip(names, done):
        if unit.ranges > 1:  # one range of a big row group a part: exactly one table
            range_tables: Iterable[pa.Table] = [next(tables)]
        else:
            range_tables = tables
        if name in finished:
            out.append((name, finished[name]))
            continue
        check_stop()  # a run stopping: the parts finished so far stay, the rest is the rerun's
        t0 = time.perf_counter()
        ctx.claim(f"_parts/{name}.json")
        sink = FolderSink(ctx, name)
        summary = settle_into(range_tables, unit, ctx.opts, sink)
        summary["seconds"] = round(time.perf_counter() - t0, 4)
        summary["files"] = {
            rel: storage.info(storage.join(ctx.out, *rel.split("/"))).size for rel in sorted(sink.written)
        }
        storage.write_text(path, json.dumps(summary, sort_keys=True))
        out.append((name, summary))
    return out


def unit_tables(unit: Unit, batch_rows: int, threads: bool = True) -> Iterator[pa.Table]:
    """The unit's rows in tables of about ``batch_rows``: small row groups, of one file or of
    several, are read together (one ``read_row_groups`` call per file) and joined; a row group
    larger than ``batch_rows`` (a unit of ranges) comes in tables of exactly ``batch_rows`` rows,
    the last one shorter. With several pieces, each row says which one it came from (:data:`ORIGIN`)."""
    pending: list[pa.Table] = []
    pending_rows = 0
    tagged = len(unit.pieces) > 1

    def joined() -> pa.Table:
        nonlocal pending, pending_rows
        out = pending[0] if len(pending) == 1 else pa.concat_tables(pending)
        pending, pending_rows = [], 0
        return out

    for i, piece in enumerate(unit.pieces):
        if piece.table is not None:  # in memory: the plan sliced it
            yield piece.table
            continue
        try:  # a damaged page is the input's fault, not the output's: say so, exit 2
            # CRCs checked where the writer stored them; the plan's footer, when it came along
            if piece.metadata is not None:  # a small file, whole: one read, decoded in this thread
                # (per file, a read per column chunk and the reader's threads cost more than the data:
                # 1.0 against 0.7 ms of CPU for a 500-row file)
                source = pa.BufferReader(storage.read_bytes(piece.path))
                pf = pq.ParquetFile(source, metadata=piece.metadata, page_checksum_verification=True)
            else:
                pf = storage.parquet_file(
                    piece.path, metadata=footer_of(piece.path, piece.key), page_checksum_verification=True
                )
            if unit.ranges > 1:
                yield from _exact_batches(
                    pf.iter_batches(batch_size=batch_rows, row_groups=list(piece.row_groups), use_threads=threads),
                    batch_rows,
                )
                continue
            run: list[int] = []
            in_threads = threads and piece.metadata is None
            for g in piece.row_groups:
                size = pf.metadata.row_group(g).num_rows
                if pending_rows + size > batch_rows and (run or pending):
                    if run:
                        pending.append(_tag(_read_groups(pf, run, in_threads), i, tagged))
                        run = []
                    yield joined()
                run.append(g)
                pending_rows += size
            if run:
                pending.append(_tag(_read_groups(pf, run, in_threads), i, tagged))
        except (OSError, pa.ArrowException) as exc:
            raise InputError(f"{piece.path}: cannot read row group: {exc}") from None
    if pending:
        yield joined()


def _read_groups(pf: pq.ParquetFile, groups: list[int], threads: bool) -> pa.Table:
    """Row groups ``groups`` as one table. Arrow cannot read a nested dictionary column (a list of
    dictionary-encoded strings: cards as text a seat) from several row groups at once ("nested data
    conversions not implemented for chunked array outputs"): those are read a group at a time."""
    try:
        return pf.read_row_groups(groups, use_threads=threads)
    except pa.ArrowNotImplementedError:
        if len(groups) == 1:
            raise
        return pa.concat_tables([pf.read_row_groups([g], use_threads=threads) for g in groups])


def _exact_batches(batches: Iterable[pa.RecordBatch], size: int) -> Iterator[pa.Table]:
    """Tables of exactly ``size`` rows (the last one shorter) from record batches of any sizes."""
    held: list[pa.RecordBatch] = []
    rows = 0
    for b in batches:
        held.append(b)
        rows += b.num_rows
        while rows >= size:
            table = pa.Table.from_batches(held)
            yield table.slice(0, size)
            rest = table.slice(size)
            held, rows = rest.to_batches(), rest.num_rows
    if rows:
        yield pa.Table.from_batches(held)


def _tag(table: pa.Table, piece: int, tagged: bool) -> pa.Table:
    return table.append_column(ORIGIN, arrow_of(np.full(table.num_rows, piece, np.int32))) if tagged else table


def _piece_counters(results: dict[str, pa.Table], errors: dict[str, pa.Table], pieces: int) -> list[dict[str, int]]:
    """Each piece's rows, chips and mismatches, from the rows it gave (which carry :data:`ORIGIN`):
    a card game's chips in are its payouts plus its rake, row by row (the kernels conserve chips)."""
    from cardbatch.batch.io.lists import int_list_parts  # numba, loaded where settling loads it

    out = [dict.fromkeys(INPUT_COUNTERS, 0) for _ in range(pieces)]

    def add(key: str, per_piece: np.ndarray) -> None:
        for k in np.flatnonzero(per_piece):
            out[k][key] += int(per_piece[k])

    for game, table in results.items():
        if not table.num_rows:
            continue
        origin = numpy_of(table.column(ORIGIN))
        add("rows_settled", np.bincount(origin, minlength=pieces))
        if "mismatch" in table.column_names:
            flags = numpy_of(pc.fill_null(table.column("mismatch"), scalar_of(False, pa.bool_())))
            add("mismatches", np.bincount(origin[flags], minlength=pieces))
        if game_spec(game).settles == "balances":  # a 2v2 game moves balances, not chips in a pot
            continue
        values, starts, lengths, _ = int_list_parts(table.column("payout"), "payout")
        paid = _exact_by_piece(values, np.repeat(origin, lengths), pieces)
        raked = _exact_by_piece(numpy_of(table.column("rake")), origin, pieces)
        for k in range(pieces):
            out[k]["chips_paid"] += paid[k]
            out[k]["chips_raked"] += raked[k]
            out[k]["chips_in"] += paid[k] + raked[k]
    for table in errors.values():
        if table.num_rows:
            add("rows_rejected", np.bincount(numpy_of(table.column(ORIGIN)), minlength=pieces))
    return out


def _untagged(tables: dict[str, pa.Table]) -> dict[str, pa.Table]:
    return {g: t.drop_columns([ORIGIN]) if ORIGIN in t.column_names else t for g, t in tables.items()}


def _exact_by_piece(values: np.ndarray, origin: np.ndarray, pieces: int) -> list[int]:
    """Exact per-piece sums of int64 ``values`` as Python ints (high and low halves summed apart)."""
    v = np.asarray(values, np.int64)
    high = np.zeros(pieces, np.int64)
    low = np.zeros(pieces, np.int64)
    np.add.at(high, origin, v >> 32)
    np.add.at(low, origin, v & 0xFFFFFFFF)
    return [(int(h) << 32) + int(lo) for h, lo in zip(high, low)]
