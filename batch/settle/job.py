"""Run a settlement over many Parquet files: units of work, parts on disk, engines, the summary.

A unit is ``(file, row groups)``. Each unit reads its row groups in record
batches, settles them and writes ``results/part-F-G.parquet`` and
``errors/part-F-G.parquet`` under temporary names, renames them, and only then
writes ``_parts/part-F-G.json`` (its counters). A rerun skips every unit whose
JSON exists, so a crash or Ctrl-C costs only the unfinished units and the
output comes out byte-identical. ``summary.json`` is written last, from the
part JSONs.

Engines: ``local`` runs units in-process (one worker) or in a spawned process
pool; ``dask`` ships the same units to a Dask cluster (a ``LocalCluster`` if no
scheduler address is given) whose workers read and write the parts themselves.
The batch layer knows files and columns; cards and chips are the kernels'.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import logging
import os
import sys
import time
from collections.abc import Collection, Iterable
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from cardbatch.batch.io import storage
from cardbatch.batch.io.columns import is_text
from cardbatch.batch.io.errors import InputError
from cardbatch.batch.io.inputs import is_output_manifest, parquet_inputs
from cardbatch.batch.io.jobs import Summary
from cardbatch.batch.io.lifecycle import init_pool_worker, process_pool
from cardbatch.batch.settle import manifest
from cardbatch.batch.settle.counters import INPUT_COUNTERS, Counters, merge_counters
from cardbatch.batch.settle.options import GAMES, HAND_REQUIRED, ORIGIN, TEAM_REQUIRED, Mode, SettleJob, SettleOptions
from cardbatch.batch.settle.outputs import UNKNOWN_GAME, conform_errors, conform_results, hive_keys, part_path

SUCCESS = "_SUCCESS"  # written last, removed first: a folder without it is incomplete (Spark's marker)
# what the summary gives for each input file (and a unit of several files counts file by file)
FAIL_ENV = "CARDBATCH_FAIL_PART"  # testing aid: a unit whose part name matches raises (crash drills)


@dataclasses.dataclass(frozen=True)
class Piece:
    """Consecutive row groups of one input file (``rows`` rows in all)."""

    path: str
    file_index: int
    key: str
    row_groups: tuple[int, ...]
    rows: int
    # the footer the plan parsed, shipped along so a worker does not read and parse it again
    metadata: pq.FileMetaData | None = dataclasses.field(default=None, compare=False, repr=False)


@dataclasses.dataclass(frozen=True)
class Unit:
    """What one task settles and writes as one part per game: consecutive row groups of one file, or
    several whole small files of one schema in one partition folder. Its parts are named by the
    files' identity keys, so an unchanged file keeps its part's name across reruns."""

    pieces: tuple[Piece, ...]
    hive: tuple[tuple[str, str], ...] = ()  # name=value folders of the paths, written as columns

    @property
    def path(self) -> str:
        return self.pieces[0].path

    @property
    def rows(self) -> int:
        return sum(p.rows for p in self.pieces)

    @property
    def name(self) -> str:
        first = self.pieces[0]
        if len(self.pieces) == 1:
            return f"part-{first.key}-{first.row_groups[0]:05d}"
        keys = ",".join(p.key for p in self.pieces)  # whole files: their keys say everything
        return f"part-{hashlib.sha256(keys.encode()).hexdigest()[:12]}-{len(self.pieces) % 100000:05d}"

    @property
    def drill_name(self) -> str:
        """``part-F-G`` by input position: what ``CARDBATCH_FAIL_PART`` names (crash drills)."""
        first = self.pieces[0]
        return f"part-{first.file_index:05d}-{first.row_groups[0]:05d}"


def infer_game(names: Collection[str], opts: SettleOptions) -> str:
    """The game of a file without a game column: ``--game``, else the team schema, board = Hold'em, else ZJH."""
    if opts.game:
        return opts.game
    return "team2v2" if "balance" in names else ("holdem" if "board" in names else "zjh")


def check_schema(path: str, schema: pa.Schema, opts: SettleOptions) -> None:
    """Stop the run on a file this tool cannot read (a clear message naming file and column)."""
    twice = sorted({n for n in schema.names if schema.names.count(n) > 1})
    if twice:
        raise InputError(f"{path}: column(s) {', '.join(twice)} appear more than once (duplicate_column)")
    names = set(schema.names)
    game = infer_game(names, opts)
    required = (
        TEAM_REQUIRED
        if game == "team2v2"
        else HAND_REQUIRED[game] + (("contrib",) if "contrib_street" not in names else ())
    )
    missing = [c for c in required if c not in names]
    if missing:
        raise InputError(f"{path}: missing column(s) {', '.join(missing)} for game {game} (missing_column)")
    for name, kinds in (("hand_id", "integer"), ("button", "integer"), ("winner", "integer")):
        if name in names and not pa.types.is_integer(schema.field(name).type):
            raise InputError(f"{path}: column {name} must be an {kinds}, got {schema.field(name).type}")
    for name in ("contrib", "contrib_street", "folded", "cards"):
        if name in names:
            t = schema.field(name).type
            if not (
                pa.types.is_list(t)
                or pa.types.is_large_list(t)
                or pa.types.is_fixed_size_list(t)
                or pa.types.is_list_view(t)
                or pa.types.is_large_list_view(t)
                or (name == "cards" and is_text(t))
            ):
                raise InputError(f"{path}: column {name} must be a list, got {t}")


def plan(
    paths: list[str],
    keys: list[str],
    batch_rows: int,
    opts: SettleOptions,
    footers: list[bytes] | None = None,
    parsed: dict[str, pq.FileMetaData] | None = None,
) -> tuple[list[Unit], list[int], dict[str, list[str]]]:
    """Units of about ``batch_rows`` rows each, each file's rows, and each part's file keys.

    A file of at least ``batch_rows`` rows gives units of consecutive row
    groups (a big row group is split into batches when it is read). Smaller
    files are grouped: consecutive files of the same schema and partition
    folder go into one unit until, past half of ``batch_rows`` rows, a file
    whose key marks a cut (:func:`_cut_after`; about ``batch_rows`` rows a
    unit) or, rarely, until it holds ``MAX_UNIT_BATCHES`` batches. So a
    changed, added or removed file changes its own unit (and the next one or
    two when a cut moves), not every unit after it. A unit is read and settled
    in batches of ``batch_rows`` rows.
    """
    units: list[Unit] = []
    file_rows = []
    group: list[Piece] = []
    group_rows = 0
    group_like: tuple[pa.Schema, tuple[tuple[str, str], ...]] | None = None

    def close_group() -> None:
        nonlocal group, group_rows, group_like
        if group:
            units.append(Unit(tuple(group), hive_keys(group[0].path)))
        group, group_rows, group_like = [], 0, None

    for fi, (path, key) in enumerate(zip(paths, keys)):
        try:
            meta = _footer(path, footers[fi] if footers else None)
            schema = meta.schema.to_arrow_schema()
            if parsed is not None:
                parsed[path] = meta
        except (OSError, pa.ArrowException) as exc:
            raise InputError(f"cannot read {path}: {exc}") from None
        check_schema(path, schema, opts)
        n = meta.num_rows
        file_rows.append(n)
        sizes = [meta.row_group(g).num_rows for g in range(meta.num_row_groups)]
        if not sizes:  # no row group: nothing to read, no part
            continue
        if n < batch_rows:
            like = (schema.remove_metadata(), hive_keys(path))
            if group and like != group_like:
                close_group()
            group.append(Piece(path, fi, key, tuple(range(len(sizes))), n, meta))
            group_rows += n
            group_like = like
            if (group_rows >= batch_rows // 2 and _cut_after(key, n, batch_rows - batch_rows // 2)) or (
                group_rows >= MAX_UNIT_BATCHES * batch_rows
            ):
                close_group()
            continue
        close_group()
        groups: list[int] = []
        rows = 0
        for g, size in enumerate(sizes):
            groups.append(g)
            rows += size
            if rows >= batch_rows:
                units.append(Unit((Piece(path, fi, key, tuple(groups), rows),), hive_keys(path)))
                groups, rows = [], 0
        if groups:
            units.append(Unit((Piece(path, fi, key, tuple(groups), rows),), hive_keys(path)))
    close_group()
    holds = {u.name: sorted({p.key for p in u.pieces}) for u in units}
    return units, file_rows, holds


# A cap on a group of small files: with cuts drawn at a file's chance rows / (batch_rows / 2) past
# half a batch, a group reaches it with odds below e**-14 (a cap at 1x batch_rows made every cut
# after a changed file move; no minimum left a third of the parts under 10 % of a batch).
MAX_UNIT_BATCHES = 8


def _footer(path: str, footer: bytes | None) -> pq.FileMetaData:
    """A file's Parquet metadata, from its footer's bytes when the caller has read them already."""
    if footer is not None:
        return pq.read_metadata(pa.BufferReader(footer))
    return storage.parquet_file(path).metadata


@functools.lru_cache(maxsize=2)
def _footer_of(path: str, key: str) -> pq.FileMetaData:
    """A big file's metadata, parsed once per worker process for all its units (a file of tiny row
    groups has a footer of megabytes: each of its units parsed it again). ``key`` (the file's
    identity) keeps a changed file from reusing an old footer."""
    return storage.parquet_file(path).metadata


def _cut_after(key: str, rows: int, span: int) -> bool:
    """Whether a group of small files may end after this one: drawn from the file's key with chance
    ``rows / span``, so where groups end depends on the files near the cut only (content-defined,
    as rsync and backup tools cut streams; a minimum size keeps the parts from being tiny)."""
    return int(key[:8], 16) < (rows / span) * 0x1_0000_0000


def settle_by_game(
    table: pa.Table, opts: SettleOptions
) -> tuple[dict[str, pa.Table], dict[str, pa.Table], dict[str, Any]]:
    """Settle one Arrow table, split by its ``game`` column when there is one: (results by game,
    errors by game, counters with a ``by_game`` split). Rows of a game we do not know are errors
    under ``unknown``."""
    from cardbatch.batch.io.lists import without_views

    table = without_views(table)
    from cardbatch.batch.settle.poker import settle_hands
    from cardbatch.batch.settle.rejects import CODE, error_rows
    from cardbatch.batch.settle.team2v2 import settle_teams

    def one(sub: pa.Table, game: str) -> tuple[pa.Table, pa.Table, dict[str, Any]]:
        required = TEAM_REQUIRED if game == "team2v2" else HAND_REQUIRED[game]
        missing = [c for c in required if c not in sub.column_names]
        if missing:  # the game column names a game whose columns this file lacks
            raise InputError(f"missing column(s) {', '.join(missing)} for game {game} (missing_column)")
        r, e, c = settle_teams(sub, opts) if game == "team2v2" else settle_hands(sub, game, opts)
        c["by_game"] = {game: dict(c)}
        return r, e, c

    if "game" not in table.column_names:
        game = infer_game(table.column_names, opts)
        r, e, c = one(table, game)
        return {game: r}, {game: e}, c
    games = table.column("game")
    if isinstance(games, pa.ChunkedArray):
        games = games.combine_chunks()
    if pa.types.is_dictionary(games.type):
        games = games.dictionary_decode()
    names = [v for v in pc.unique(games).to_pylist()]
    if len(names) == 1 and names[0] in GAMES and games.null_count == 0:
        r, e, c = one(table, names[0])  # one game per file: no split, no copy
        return {names[0]: r}, {names[0]: e}, c
    results: dict[str, pa.Table] = {}
    errors: dict[str, pa.Table] = {}
    counters: list[dict[str, Any]] = []
    unknown = []
    for game in sorted(str(v) for v in names):
        mask = pc.fill_null(pc.equal(games, game), False) if game != "None" else games.is_null()
        rows = np.flatnonzero(mask.to_numpy(zero_copy_only=False))
        sub = table.take(pa.array(rows))
        if game in GAMES:
            results[game], errors[game], c = one(sub, game)
        else:
            codes = np.full(len(rows), CODE["unknown_game"], np.int16)
            c = Counters(len(rows), 0, len(rows), {"unknown_game": len(rows)}).as_dict()
            unknown.append(error_rows(sub, np.arange(len(rows)), codes))
            c["by_game"] = {game: dict(c)}
        counters.append(c)
    if unknown:
        errors[UNKNOWN_GAME] = pa.concat_tables(unknown, promote_options="permissive")
    return results, errors, merge_counters(counters)


def settle_table(table: pa.Table, opts: SettleOptions) -> tuple[pa.Table, pa.Table, dict[str, Any]]:
    """:func:`settle_by_game` with the games' results and errors each in one table (for callers that
    look at a batch as a whole; the run writes each game apart)."""
    results, errors, counters = settle_by_game(table, opts)

    def joined(parts: dict[str, pa.Table]) -> pa.Table:
        tables = [t for t in parts.values() if t.num_columns]
        return pa.concat_tables(tables, promote_options="permissive") if tables else pa.table({})

    return joined(results), joined(errors), counters


def _part_writer(path: str) -> storage.PublishedParquet:
    """One output part, written a table at a time (memory holds one batch, not the unit), whole or
    absent. Every table of a part has its folder's fixed schema (:mod:`.outputs`), so a part never
    needs widening. No dictionary encoding (numeric outputs wrote 10-60 % faster without) and no
    statistics: the writes are the job's largest cost."""
    return storage.PublishedParquet(path, compression="zstd", use_dictionary=False, write_statistics=False)


def _write_part(table: pa.Table, path: str) -> None:
    """A whole part at once, through :func:`_part_writer` (whole or absent, a full disk included)."""
    part = _part_writer(path)
    try:
        part.write(table)
        part.close()
    except BaseException:
        part.abort()
        raise


def _tables_of(unit: Unit, batch_rows: int) -> Iterable[pa.Table]:
    """The unit's rows in tables of about ``batch_rows``: small row groups, of one file or of
    several, are read together (one ``read_row_groups`` call per file) and joined; a row group
    larger than ``batch_rows`` is split into record batches. With several pieces, each row says
    which one it came from (:data:`ORIGIN`)."""
    pending: list[pa.Table] = []
    pending_rows = 0
    tagged = len(unit.pieces) > 1

    def joined() -> pa.Table:
        nonlocal pending, pending_rows
        out = pending[0] if len(pending) == 1 else pa.concat_tables(pending)
        pending, pending_rows = [], 0
        return out

    for i, piece in enumerate(unit.pieces):
        try:  # a damaged page is the input's fault, not the output's: say so, exit 2
            # CRCs checked where the writer stored them; the plan's footer, when it came along
            if piece.metadata is not None:  # a small file, whole: one read, decoded in this thread
                # (per file, a read per column chunk and the reader's threads cost more than the data:
                # 1.0 against 0.7 ms of CPU for a 500-row file)
                source = pa.BufferReader(storage.read_bytes(piece.path))
                pf = pq.ParquetFile(source, metadata=piece.metadata, page_checksum_verification=True)
            else:
                pf = storage.parquet_file(
                    piece.path, metadata=_footer_of(piece.path, piece.key), page_checksum_verification=True
                )
            run: list[int] = []
            threads = piece.metadata is None
            for g in piece.row_groups:
                size = pf.metadata.row_group(g).num_rows
                if size > batch_rows:
                    if pending:
                        yield joined()
                    for b in pf.iter_batches(batch_size=batch_rows, row_groups=[g]):
                        yield _tag(pa.Table.from_batches([b]), i, tagged)
                    continue
                if pending_rows + size > batch_rows and (run or pending):
                    if run:
                        pending.append(_tag(pf.read_row_groups(run, use_threads=threads), i, tagged))
                        run = []
                    yield joined()
                run.append(g)
                pending_rows += size
            if run:
                pending.append(_tag(pf.read_row_groups(run, use_threads=threads), i, tagged))
        except (OSError, pa.ArrowException) as exc:
            raise InputError(f"{piece.path}: cannot read row group: {exc}") from None
    if pending:
        yield joined()


def _tag(table: pa.Table, piece: int, tagged: bool) -> pa.Table:
    return table.append_column(ORIGIN, pa.array(np.full(table.num_rows, piece, np.int32))) if tagged else table


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
        origin = table.column(ORIGIN).to_numpy()
        add("rows_settled", np.bincount(origin, minlength=pieces))
        if "mismatch" in table.column_names:
            flags = pc.fill_null(table.column("mismatch"), False).to_numpy(zero_copy_only=False)
            add("mismatches", np.bincount(origin[flags], minlength=pieces))
        if game == "team2v2":  # a 2v2 game moves balances, not chips in a pot
            continue
        values, starts, lengths, _ = int_list_parts(table.column("payout"), "payout")
        paid = _exact_by_piece(values, np.repeat(origin, lengths), pieces)
        raked = _exact_by_piece(table.column("rake").to_numpy(zero_copy_only=False), origin, pieces)
        for k in range(pieces):
            out[k]["chips_paid"] += paid[k]
            out[k]["chips_raked"] += raked[k]
            out[k]["chips_in"] += paid[k] + raked[k]
    for table in errors.values():
        if table.num_rows:
            add("rows_rejected", np.bincount(table.column(ORIGIN).to_numpy(), minlength=pieces))
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


def run_unit(unit: Unit, out_dir: str, opts: SettleOptions, batch_rows: int, serial: bool = False) -> dict[str, Any]:
    """Settle one unit and write its parts; returns its counters (also saved as the part JSON), with
    each input file's share under ``by_file`` when the unit holds several files. ``serial``: the
    kernels' serial builds (a small run: see :mod:`cardbatch.kernels.twins`)."""
    from cardbatch.kernels import twins  # numba, loaded where settling loads it

    with twins.serial(serial):
        return _run_unit(unit, out_dir, opts, batch_rows)


def _run_unit(unit: Unit, out_dir: str, opts: SettleOptions, batch_rows: int) -> dict[str, Any]:
    out = out_dir
    done = storage.join(out, "_parts", f"{unit.name}.json")
    if storage.exists(done):
        finished: dict[str, Any] = json.loads(storage.read_text(done))
        return finished
    t0 = time.perf_counter()
    if os.environ.get(FAIL_ENV) in (unit.name, unit.drill_name):
        raise RuntimeError(f"injected failure in {unit.name} ({FAIL_ENV})")
    tagged = len(unit.pieces) > 1
    errors: dict[str, list[pa.Table]] = {}
    counters = []
    by_piece: list[list[dict[str, Any]]] = []
    results: dict[str, storage.PublishedParquet] = {}
    try:
        for table in _tables_of(unit, batch_rows):
            r, e, c = settle_by_game(table, opts)
            if tagged:
                by_piece.append(_piece_counters(r, e, len(unit.pieces)))
                r, e = _untagged(r), _untagged(e)
            for game, part in r.items():
                if part.num_columns:
                    if game not in results:
                        results[game] = _part_writer(part_path(out, "results", game, unit.name))
                    results[game].write(conform_results(part, unit.hive))
            for game, part in e.items():
                if part.num_rows:
                    errors.setdefault(game, []).append(conform_errors(part, unit.hive))
            counters.append(c)
        for writer in results.values():
            writer.close()
    except InputError as exc:  # a column's type, found while reading: name the file too
        for writer in results.values():
            writer.abort()
        msg = str(exc)
        raise InputError(msg if msg.startswith(tuple(p.path for p in unit.pieces)) else f"{unit.path}: {msg}") from None
    except BaseException:
        for writer in results.values():
            writer.abort()
        raise
    summary = merge_counters(counters)
    for game, parts in errors.items():
        _write_part(pa.concat_tables(parts, promote_options="permissive"), part_path(out, "errors", game, unit.name))
    if tagged:
        files = [merge_counters([b[k] for b in by_piece]) for k in range(len(unit.pieces))]
        for key in INPUT_COUNTERS:
            if sum(f.get(key, 0) for f in files) != summary.get(key, 0):  # a bug of ours: never a wrong summary
                raise AssertionError(f"{unit.name}: {key} by file does not add up to the part's")
        summary["by_file"] = {p.path: f for p, f in zip(unit.pieces, files)}
    summary["seconds"] = round(time.perf_counter() - t0, 4)
    storage.write_text(done, json.dumps(summary, sort_keys=True))
    return summary


def settle_files(
    inputs: list[str],
    out_dir: str,
    opts: SettleOptions,
    workers: int | None = None,
    engine: str = "local",
    scheduler: str | None = None,
    batch_rows: int = 1 << 16,
    quiet: bool = False,
    verbose: bool = False,
    mode: Mode = "resume",
) -> dict[str, Any]:
    """Settle every input into ``out_dir``; returns the summary's figures (also written as
    summary.json). :func:`run` is the same with its options in one value.

    ``quiet``: no progress on stderr; ``verbose``: a progress line per finished part; ``mode``: what
    to do with a folder that already holds cardbatch output (``resume``, ``overwrite``, ``error``)."""

    t0 = time.perf_counter()
    if engine == "dask":
        try:
            import distributed  # noqa: F401
        except ImportError:
            raise InputError("--engine dask needs Dask: pip install 'cardbatch[dask]'") from None
    paths = manifest.resolved(parquet_inputs(inputs))
    try:
        identities, footers = zip(*(manifest.file_identity_and_footer(p) for p in paths))
    except OSError as exc:
        raise InputError(f"cannot read {exc.filename}: {exc.strerror}") from None
    parsed: dict[str, pq.FileMetaData] = {}
    units, file_rows, holds = plan(paths, [i["key"] for i in identities], batch_rows, opts, list(footers), parsed)
    identities = list(identities)
    input_rows = [{"path": p, "rows": n} for p, n in zip(paths, file_rows)]
    out = out_dir
    try:
        for sub in manifest.PART_DIRS:
            storage.mkdir(storage.join(out, sub))
        probe = storage.join(out, "_parts", ".write-probe")
        storage.write_text(probe, "")
        storage.delete(probe)
    except (OSError, pa.ArrowException) as exc:
        raise InputError(f"cannot write to {out_dir}: {exc}") from None
    from cardbatch.kernels import twins  # numba, loaded where settling loads it

    # a run of one batch or less is over in milliseconds once compiled: its kernels' serial builds
    # compile in half the time (every other run takes the parallel builds, which also run faster);
    # the workers are told, and this process settles, reports and warms up under the same choice
    small = sum(u.rows for u in units) <= batch_rows
    lock = manifest.Lock(out)
    try:
        with twins.serial(small):
            return _run_locked(
                units,
                holds,
                input_rows,
                identities,
                out,
                opts,
                workers,
                engine,
                scheduler,
                batch_rows,
                (quiet, verbose),
                t0,
                parsed,
                small,
                mode,
            )
    finally:
        lock.release()


def run(job: SettleJob) -> Summary:
    """Settle (or audit) ``job.inputs`` into ``job.out``: the ``cardbatch settle`` command as one call.

    Raises :class:`~cardbatch.batch.io.errors.InputError` for input it cannot read as asked (a
    schema, a column's type, an unwritable output) and ``OSError`` for a failing disk; bad rows are
    set aside, never raised.
    """
    r = job.run
    figures = settle_files(
        list(job.inputs),
        job.out,
        job.options,
        workers=r.workers,
        engine=r.engine,
        scheduler=r.scheduler,
        batch_rows=job.batch_rows,
        quiet=r.quiet,
        verbose=r.verbose,
        mode=job.mode,
    )
    command = "audit" if job.options.audit else "settle"
    status = 3 if job.options.audit and figures.get("mismatches", 0) else 0
    return Summary(figures, settle_line(command, figures, job.out), status, indent=1, sort_keys=True)


def settle_line(command: str, s: dict[str, Any], out: str) -> str:
    """What a settle or audit run did, in one line: rows, reasons, chips, mismatches, where the output is."""
    reasons = ", ".join(f"{k} {v:,}" for k, v in sorted(s.get("rejected_by_reason", {}).items(), key=lambda kv: -kv[1]))
    rejected = f"{s['rows_rejected']:,} rejected" + (f" ({reasons})" if reasons else "")
    not_ours = s.get("not_ours", [])
    return (
        f"cardbatch {command}: {s['rows_read']:,} rows: {s['rows_settled']:,} settled, {rejected}; "
        f"chips in {s['chips_in']:,} = paid {s['chips_paid']:,} + raked {s['chips_raked']:,}; "
        f"{s['mismatches']:,} mismatches; {s['wall_seconds']:.1f} s; output in {out}/ "
        + (
            "(results/, errors/, summary.json, report.html)"
            if str(s.get("report", "")).endswith(".html")
            else "(results/, errors/, summary.json)"
        )
        + (
            f"; left alone {len(not_ours)} file(s) cardbatch did not write: {', '.join(not_ours[:3])}"
            if not_ours
            else ""
        )
        + ("…" if len(not_ours) > 3 else "")
    )


def _run_locked(
    units: list[Unit],
    holds: dict[str, list[str]],
    inputs: list[dict[str, Any]],
    identities: list[dict[str, Any]],
    out: str,
    opts: SettleOptions,
    workers: int | None,
    engine: str,
    scheduler: str | None,
    batch_rows: int,
    talk: tuple[bool, bool],
    t0: float,
    parsed: dict[str, pq.FileMetaData],
    small: bool,
    mode: Mode,
) -> dict[str, Any]:
    from cardbatch import __version__
    from cardbatch.batch.io.progress import progress

    quiet, verbose = talk
    out_dir = out
    if mode == "error" and is_output_manifest(storage.join(out, manifest.MANIFEST)):
        raise InputError(
            f"{out} already holds cardbatch output (--mode error): give another --out, or --mode resume "
            "(reuse what is current) or --mode overwrite (settle everything again)"
        )
    success = storage.join(out, SUCCESS)
    if storage.exists(success):  # the folder is incomplete from here until the run ends
        storage.delete(success)
    fingerprint = manifest.options_fingerprint(opts, batch_rows)
    reused, foreign = manifest.prepare(out, identities, fingerprint, holds, reuse=mode != "overwrite")
    if foreign and not quiet:
        shown = "\n  ".join(foreign[:20]) + (f"\n  … and {len(foreign) - 20} more" if len(foreign) > 20 else "")
        print(
            f"cardbatch: left alone {len(foreign)} file(s) in {out} that cardbatch did not write "
            f"(readers of results/ and errors/ may trip on them):\n  {shown}",
            file=sys.stderr,
        )
    if reused and not quiet:
        print(f"cardbatch: reusing {reused} of {len(units)} finished parts of an earlier run", file=sys.stderr)
    asked = workers
    workers = workers or os.cpu_count() or 1
    summaries: list[tuple[Unit, dict[str, Any]]] = []
    warm = None
    first = sorted({u.path for u in units}) if len(units) > reused else []  # the heads to warm up with
    if (engine == "local" or not scheduler) and first:  # an external cluster's workers warm up in _run_dask
        from cardbatch.batch.settle.warmup import compile_ahead

        warm = compile_ahead(
            settle_table, first, opts, quiet=quiet, metadata={p: parsed[p] for p in first}, serial=small
        )
        parsed.clear()  # the parent's copy of the footers is not needed any more
    t_settle = time.perf_counter()
    # progress in rows (a 2 M-row file is not "2/2 parts"), a unit's rows when it is done
    with progress(total=sum(u.rows for u in units), desc="settle", unit="row", quiet=quiet, verbose=verbose) as bar:
        if engine == "dask":
            summaries, workers, dask_warm = _run_dask(
                units, out_dir, opts, workers, scheduler, batch_rows, bar, small, first
            )
            warm = dask_warm or warm
        elif workers == 1 or len(units) <= 1 or (asked is None and small):
            # in this process: also, unless --workers was given, a run of one batch of rows or less,
            # for which starting workers (each imports and loads the kernels) costs more than it saves
            workers = 1
            for u in units:
                summaries.append((u, run_unit(u, out_dir, opts, batch_rows, small)))
                bar.update(u.rows)
        else:
            import concurrent.futures as cf

            threads = max(1, (os.cpu_count() or 1) // (workers or 1))
            workers = min(workers, len(units))  # the pool starts no more processes than units
            with process_pool(workers, threads) as pool:
                futures = {pool.submit(run_unit, u, out_dir, opts, batch_rows, small): u for u in units}
                for f in cf.as_completed(futures):
                    summaries.append((futures[f], f.result()))
                    bar.update(futures[f].rows)
    settled_at = time.perf_counter()
    total = merge_counters([_counters(s) for _, s in summaries])
    by_input: dict[str, list[dict[str, Any]]] = {}
    for u, s in summaries:
        for path, share in s.get("by_file", {u.path: s}).items():
            by_input.setdefault(path, []).append(_counters(share))
    wall = settled_at - t0
    total.update(
        {
            "files": len(inputs),
            "parts": len(units),
            "parts_reused": reused,
            "engine": engine,
            "workers": workers,
            "wall_seconds": round(wall, 3),
            "compile_ahead": warm,
            "cardbatch_version": __version__,
            "options": {
                **opts.as_dict(),
                "workers": asked,
                "engine": engine,
                "scheduler": scheduler,
                "batch_rows": batch_rows,
            },
            "inputs": [{**i, **_input_totals(by_input.get(i["path"], []))} for i in inputs],
            "hands_per_second": round(total.get("rows_read", 0) / wall) if wall > 0 else None,
            "timings": {
                "compile_ahead_seconds": (warm or {}).get("seconds", 0.0),
                "settle_seconds": round(settled_at - t_settle, 3),
                "parts": sorted(
                    (
                        {
                            "part": u.name,
                            "path": u.path,
                            "files": len(u.pieces),
                            "row_groups": sum(len(p.row_groups) for p in u.pieces),
                            "rows": u.rows,
                            "seconds": s.get("seconds"),
                        }
                        for u, s in summaries
                    ),
                    key=lambda p: str(p["part"]),
                ),
            },
        }
    )
    for key in ("rows_read", "rows_settled", "rows_rejected", "chips_in", "chips_paid", "chips_raked", "mismatches"):
        total.setdefault(key, 0)
    total.setdefault("rejected_by_reason", {})
    if total["rows_read"] != total["rows_settled"] + total["rows_rejected"]:
        raise AssertionError("rows lost: read != settled + rejected")
    from cardbatch.batch.settle.report import write_report

    try:
        total["report"] = write_report(out, total)
    except (OSError, pa.ArrowException, ValueError, KeyError) as exc:  # the results stand without their page
        total["report"] = f"not written: {exc}"
        print(f"cardbatch: report.html not written ({exc}); the results and summary are complete", file=sys.stderr)
    if foreign:
        total["not_ours"] = foreign
    total["wall_seconds"] = round(time.perf_counter() - t0, 3)
    storage.write_text(storage.join(out, "summary.json"), json.dumps(total, indent=1, sort_keys=True))
    storage.write_text(success, "")  # last: readers may require it (docs: settle, the output folder)
    return total


def _counters(part: dict[str, Any]) -> dict[str, Any]:
    """A part's counters without its timing (which is not added up) and its split by file."""
    return {k: v for k, v in part.items() if k not in ("seconds", "by_file")}


def _input_totals(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """One input's rows and chips, added up over its parts (every game together)."""
    t = merge_counters(parts)
    return {k: t.get(k, 0) for k in INPUT_COUNTERS}


def _run_dask(
    units: list[Unit],
    out_dir: str,
    opts: SettleOptions,
    workers: int | None,
    scheduler: str | None,
    batch_rows: int,
    bar: Any,
    serial: bool = False,
    warm_paths: list[str] | None = None,
) -> tuple[list[tuple[Unit, dict[str, Any]]], int, dict[str, Any] | None]:
    """Settle the units on a Dask cluster: ``scheduler``'s, or a LocalCluster of ``workers`` processes.
    On an external cluster every worker first compiles (or loads) the kernels the run needs from the
    heads of ``warm_paths``, all at once: returns the parts, the cluster's workers and that warm-up."""
    from dask.distributed import Client, LocalCluster, as_completed

    cluster = None
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
            dashboard_address=None,
            silence_logs=logging.ERROR,
        )
        client = Client(cluster)
    try:
        threads = max(1, (os.cpu_count() or 1) // (workers or 1))
        client.run(init_pool_worker, threads, False)
        warm = None
        if scheduler and warm_paths:
            from cardbatch.batch.settle.warmup import warm_worker

            t0 = time.perf_counter()
            each = client.run(warm_worker, settle_table, warm_paths, opts, serial)
            warm = {
                "compiled": "compiled or loaded on every Dask worker, before the first task (client.run)",
                "seconds": round(time.perf_counter() - t0, 3),
                "workers": len(each),
                "worker_seconds": sorted(round(float(v), 3) for v in each.values()),
            }
        futures = client.map(
            run_unit, units, out_dir=out_dir, opts=opts, batch_rows=batch_rows, serial=serial, pure=False
        )
        unit_of = dict(zip(futures, units))
        out = []
        for f in as_completed(futures):
            out.append((unit_of[f], f.result()))
            bar.update(unit_of[f].rows)
        return out, len(client.scheduler_info()["workers"]), warm  # the cluster's workers, not this machine's
    except BaseException:  # interrupted or failed: the cluster's shutdown chatter is not the user's news
        for name in ("distributed", "asyncio", "tornado"):
            logging.getLogger(name).setLevel(logging.CRITICAL)
        raise
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
