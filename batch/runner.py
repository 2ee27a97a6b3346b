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
import glob
import json
import logging
import os
import sys
import time
from collections.abc import Iterable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from pyarrow.fs import FileType as fs_types

from . import manifest, storage
from .formats import GAMES, HAND_REQUIRED, TEAM_REQUIRED, InputError, SettleOptions
from .lifecycle import init_pool_worker, process_pool
from .outputs import UNKNOWN_GAME, conform_errors, conform_results, hive_keys, part_path

FAIL_ENV = "CARDBATCH_FAIL_PART"  # testing aid: a unit whose part name matches raises (crash drills)


@dataclasses.dataclass(frozen=True)
class Unit:
    """Consecutive row groups of one input file; its parts are named by the file's identity key."""

    path: str
    file_index: int
    key: str
    row_groups: tuple[int, ...]
    hive: tuple[tuple[str, str], ...] = ()  # name=value folders of the path, written as columns

    @property
    def name(self) -> str:
        return f"part-{self.key}-{self.row_groups[0]:05d}"

    @property
    def drill_name(self) -> str:
        """``part-F-G`` by input position: what ``CARDBATCH_FAIL_PART`` names (crash drills)."""
        return f"part-{self.file_index:05d}-{self.row_groups[0]:05d}"


def expand_inputs(inputs: Iterable[str]) -> list[str]:
    """Files, folders (recursively, hive partitions included) and globs, sorted and de-duplicated."""
    found: list[str] = []
    for item in inputs:
        remote = storage.is_uri(item)
        globbed = not remote and any(ch in item for ch in "*?[")
        matches = sorted(glob.glob(item, recursive=True)) if globbed else [item]
        if not matches:
            raise InputError(f"no input matches {item!r}")
        for m in matches:
            try:
                kind = storage.info(m).type
            except (OSError, pa.ArrowException) as exc:
                raise InputError(f"cannot reach {m!r}: {exc}") from None
            if kind == fs_types.Directory:
                found.extend(_parquet_files(m))
            elif kind == fs_types.File:
                found.append(m)
            else:
                raise InputError(f"input {m!r} does not exist")
    if not found:
        raise InputError("no Parquet files in the inputs")
    return list(dict.fromkeys(found))


def _parquet_files(folder: str) -> list[str]:
    """The Parquet files below ``folder`` (a path or a URI), through pyarrow's filesystem layer,
    skipping what pyarrow's dataset readers skip: any file or folder whose name starts with ``.`` or ``_``."""
    files = []
    for path, rel in storage.files_below(folder):
        if rel.endswith(".parquet") and not any(part.startswith((".", "_")) for part in rel.split("/")):
            files.append(path if storage.is_uri(folder) else os.path.join(folder, rel))
    return sorted(files)


def infer_game(names, opts: SettleOptions) -> str:
    """The game of a file without a game column: ``--game``, else the team schema, board = Hold'em, else ZJH."""
    if opts.game:
        return opts.game
    return "team2v2" if "balance" in names else ("holdem" if "board" in names else "zjh")


def check_schema(path: str, schema: pa.Schema, opts: SettleOptions) -> None:
    """Stop the run on a file this tool cannot read (a clear message naming file and column)."""
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
                or (name == "cards" and _is_text(t))
            ):
                raise InputError(f"{path}: column {name} must be a list, got {t}")


def _is_text(t: pa.DataType) -> bool:
    """A string column, plain, large, view or dictionary-encoded."""
    if pa.types.is_dictionary(t):
        t = t.value_type
    return pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t)


def plan(paths: list[str], keys: list[str], batch_rows: int, opts: SettleOptions) -> tuple[list[Unit], list[int]]:
    """Units of consecutive row groups holding about ``batch_rows`` rows each, and each file's rows."""
    units = []
    file_rows = []
    for fi, (path, key) in enumerate(zip(paths, keys)):
        try:
            meta = storage.parquet_file(path)
        except (OSError, pa.ArrowException) as exc:
            raise InputError(f"cannot read {path}: {exc}") from None
        check_schema(path, meta.schema_arrow, opts)
        file_rows.append(meta.metadata.num_rows)
        groups: list[int] = []
        rows = 0
        for g in range(meta.metadata.num_row_groups):
            groups.append(g)
            rows += meta.metadata.row_group(g).num_rows
            if rows >= batch_rows:
                units.append(Unit(path, fi, key, tuple(groups), hive_keys(path)))
                groups, rows = [], 0
        if groups:
            units.append(Unit(path, fi, key, tuple(groups), hive_keys(path)))
    return units, file_rows


def settle_by_game(table: pa.Table, opts: SettleOptions) -> tuple[dict[str, pa.Table], dict[str, pa.Table], dict]:
    """Settle one Arrow table, split by its ``game`` column when there is one: (results by game,
    errors by game, counters with a ``by_game`` split). Rows of a game we do not know are errors
    under ``unknown``."""
    from .lists import without_views

    table = without_views(table)
    from .hands import settle_hands
    from .rejects import CODE, error_rows
    from .teams import settle_teams

    def one(sub: pa.Table, game: str):
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
    results, errors, counters = {}, {}, []
    unknown = []
    for game in sorted(str(v) for v in names):
        mask = pc.fill_null(pc.equal(games, game), False) if game != "None" else games.is_null()
        rows = np.flatnonzero(mask.to_numpy(zero_copy_only=False))
        sub = table.take(pa.array(rows))
        if game in GAMES:
            results[game], errors[game], c = one(sub, game)
        else:
            codes = np.full(len(rows), CODE["unknown_game"], np.int16)
            c = {
                "rows_read": len(rows),
                "rows_settled": 0,
                "rows_rejected": len(rows),
                "rejected_by_reason": {"unknown_game": len(rows)},
            }
            unknown.append(error_rows(sub, np.arange(len(rows)), codes))
            c["by_game"] = {game: dict(c)}
        counters.append(c)
    if unknown:
        errors[UNKNOWN_GAME] = pa.concat_tables(unknown, promote_options="permissive")
    return results, errors, merge_counters(counters)


def settle_table(table: pa.Table, opts: SettleOptions) -> tuple[pa.Table, pa.Table, dict]:
    """:func:`settle_by_game` with the games' results and errors each in one table (for callers that
    look at a batch as a whole; the run writes each game apart)."""
    results, errors, counters = settle_by_game(table, opts)

    def joined(parts: dict[str, pa.Table]) -> pa.Table:
        tables = [t for t in parts.values() if t.num_columns]
        return pa.concat_tables(tables, promote_options="permissive") if tables else pa.table({})

    return joined(results), joined(errors), counters


def merge_counters(items: list[dict]) -> dict:
    """Counters added up key by key, nested ones (reasons, games) too."""
    out: dict = {}
    for c in items:
        for k, v in c.items():
            if isinstance(v, dict):
                out[k] = merge_counters([out.get(k, {}), v])
            else:
                out[k] = out.get(k, 0) + v
    return out


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


def _tables_of(pf: pq.ParquetFile, row_groups: tuple[int, ...], batch_rows: int) -> Iterable[pa.Table]:
    """The unit's rows in tables of at most about ``batch_rows``: a row group whole when it fits
    (one chunk per column, no batch straddling two groups), else in record batches."""
    for g in row_groups:
        try:  # a damaged page is the input's fault, not the output's: say so, exit 2
            if pf.metadata.row_group(g).num_rows <= batch_rows:
                tables = [pf.read_row_group(g)]
            else:
                tables = (pa.Table.from_batches([b]) for b in pf.iter_batches(batch_size=batch_rows, row_groups=[g]))
            yield from tables
        except (OSError, pa.ArrowException) as exc:
            raise InputError(f"cannot read row group {g}: {exc}") from None


def run_unit(unit: Unit, out_dir: str, opts: SettleOptions, batch_rows: int) -> dict:
    """Settle one unit and write its parts; returns its counters (also saved as the part JSON)."""
    out = out_dir
    done = storage.join(out, "_parts", f"{unit.name}.json")
    if storage.exists(done):
        return json.loads(storage.read_text(done))
    t0 = time.perf_counter()
    if os.environ.get(FAIL_ENV) in (unit.name, unit.drill_name):
        raise RuntimeError(f"injected failure in {unit.name} ({FAIL_ENV})")
    pf = storage.parquet_file(unit.path, page_checksum_verification=True)  # where the writer stored CRCs
    errors: dict[str, list[pa.Table]] = {}
    counters = []
    results: dict[str, storage.PublishedParquet] = {}
    try:
        for table in _tables_of(pf, unit.row_groups, batch_rows):
            r, e, c = settle_by_game(table, opts)
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
        raise InputError(f"{unit.path}: {exc}") from None
    except BaseException:
        for writer in results.values():
            writer.abort()
        raise
    summary = merge_counters(counters)
    for game, parts in errors.items():
        _write_part(pa.concat_tables(parts, promote_options="permissive"), part_path(out, "errors", game, unit.name))
    summary["seconds"] = round(time.perf_counter() - t0, 4)
    storage.write_text(done, json.dumps(summary, sort_keys=True))
    return summary


def run(
    inputs: list[str],
    out_dir: str,
    opts: SettleOptions,
    workers: int | None = None,
    engine: str = "local",
    scheduler: str | None = None,
    batch_rows: int = 1 << 16,
    quiet: bool = False,
    verbose: bool = False,
) -> dict:
    """Settle every input into ``out_dir``; returns the summary (also written as summary.json).

    ``quiet``: no progress on stderr; ``verbose``: a progress line per finished part."""

    t0 = time.perf_counter()
    if engine == "dask":
        try:
            import distributed  # noqa: F401
        except ImportError:
            raise InputError("--engine dask needs Dask: pip install 'cardbatch[dask]'") from None
    paths = manifest.resolved(expand_inputs(inputs))
    try:
        identities = [manifest.file_identity(p) for p in paths]
    except OSError as exc:
        raise InputError(f"cannot read {exc.filename}: {exc.strerror}") from None
    units, file_rows = plan(paths, [i["key"] for i in identities], batch_rows, opts)
    inputs = [{"path": p, "rows": n} for p, n in zip(paths, file_rows)]
    out = out_dir
    try:
        for sub in manifest.PART_DIRS:
            storage.mkdir(storage.join(out, sub))
        probe = storage.join(out, "_parts", ".write-probe")
        storage.write_text(probe, "")
        storage.delete(probe)
    except (OSError, pa.ArrowException) as exc:
        raise InputError(f"cannot write to {out_dir}: {exc}") from None
    lock = manifest.Lock(out)
    try:
        return _run_locked(
            units, inputs, identities, out, opts, workers, engine, scheduler, batch_rows, (quiet, verbose), t0
        )
    finally:
        lock.release()


def _run_locked(units, inputs, identities, out, opts, workers, engine, scheduler, batch_rows, talk, t0) -> dict:
    from cardbatch import __version__

    from .progress import progress

    quiet, verbose = talk
    out_dir = out
    fingerprint = manifest.options_fingerprint(opts, batch_rows)
    reused = manifest.prepare(out, identities, fingerprint, {u.name for u in units})
    if reused and not quiet:
        print(f"cardbatch: reusing {reused} of {len(units)} finished parts of an earlier run", file=sys.stderr)
    asked = workers
    workers = workers or os.cpu_count() or 1
    summaries: list[tuple[Unit, dict]] = []
    warm = None
    if (engine == "local" or not scheduler) and len(units) > reused:  # a remote cluster compiles on its own
        from .warmup import compile_ahead

        warm = compile_ahead(settle_table, sorted({u.path for u in units}), opts, quiet=quiet)
    t_settle = time.perf_counter()
    with progress(total=len(units), desc="settle", unit="part", quiet=quiet, verbose=verbose) as bar:
        if engine == "dask":
            summaries, workers = _run_dask(units, out_dir, opts, workers, scheduler, batch_rows, bar)
        elif workers == 1 or len(units) <= 1:
            workers = 1  # in this process
            for u in units:
                summaries.append((u, run_unit(u, out_dir, opts, batch_rows)))
                bar.update(1)
        else:
            import concurrent.futures as cf

            threads = max(1, (os.cpu_count() or 1) // workers)
            workers = min(workers, len(units))  # the pool starts no more processes than units
            with process_pool(workers, threads) as pool:
                futures = {pool.submit(run_unit, u, out_dir, opts, batch_rows): u for u in units}
                for f in cf.as_completed(futures):
                    summaries.append((futures[f], f.result()))
                    bar.update(1)
    settled_at = time.perf_counter()
    total = merge_counters([_counters(s) for _, s in summaries])
    by_input: dict[str, list[dict]] = {}
    for u, s in summaries:
        by_input.setdefault(u.path, []).append(_counters(s))
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
                **dataclasses.asdict(opts),
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
                        {"part": u.name, "path": u.path, "row_groups": len(u.row_groups), "seconds": s.get("seconds")}
                        for u, s in summaries
                    ),
                    key=lambda p: p["part"],
                ),
            },
        }
    )
    for key in ("rows_read", "rows_settled", "rows_rejected", "chips_in", "chips_paid", "chips_raked", "mismatches"):
        total.setdefault(key, 0)
    total.setdefault("rejected_by_reason", {})
    if total["rows_read"] != total["rows_settled"] + total["rows_rejected"]:
        raise AssertionError("rows lost: read != settled + rejected")
    from .report import write_report

    try:
        total["report"] = write_report(out, total)
    except (OSError, pa.ArrowException, ValueError, KeyError) as exc:  # the results stand without their page
        total["report"] = f"not written: {exc}"
        print(f"cardbatch: report.html not written ({exc}); the results and summary are complete", file=sys.stderr)
    total["wall_seconds"] = round(time.perf_counter() - t0, 3)
    storage.write_text(storage.join(out, "summary.json"), json.dumps(total, indent=1, sort_keys=True))
    return total


def _counters(part: dict) -> dict:
    """A part's counters without its timing (which is not added up)."""
    return {k: v for k, v in part.items() if k != "seconds"}


def _input_totals(parts: list[dict]) -> dict:
    """One input's rows and chips, added up over its parts (every game together)."""
    t = merge_counters(parts)
    keys = ("rows_settled", "rows_rejected", "mismatches", "chips_in", "chips_paid", "chips_raked")
    return {k: t.get(k, 0) for k in keys}


def _run_dask(units, out_dir, opts, workers, scheduler, batch_rows, bar) -> tuple[list[tuple[Unit, dict]], int]:
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
        threads = max(1, (os.cpu_count() or 1) // workers)
        client.run(init_pool_worker, threads, False)
        futures = client.map(run_unit, units, out_dir=out_dir, opts=opts, batch_rows=batch_rows, pure=False)
        unit_of = dict(zip(futures, units))
        out = []
        for f in as_completed(futures):
            out.append((unit_of[f], f.result()))
            bar.update(1)
        return out, len(client.scheduler_info()["workers"])  # the cluster's, not this machine's
    except BaseException:  # interrupted or failed: the cluster's shutdown chatter is not the user's news
        for name in ("distributed", "asyncio", "tornado"):
            logging.getLogger(name).setLevel(logging.CRITICAL)
        raise
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
