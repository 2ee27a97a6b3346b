"""The settle run: inputs to units, the output folder's rules, the engine, the summary.

:func:`run` (the command line's ``settle``, with any analysis) plans the inputs into
units (:mod:`.plan`), makes the output folder hold only parts of this run
(:mod:`.manifest`), warms the kernels up (:mod:`.warmup`), runs every unit on
an engine (:mod:`cardbatch.batch.io.engines`, each unit through :func:`~.parts.run_unit`) and
writes ``summary.json``, the report and ``_SUCCESS``, in that order.
:func:`settle_in_memory` (the DataFrame API) runs the same units in this
process into tables instead of files. The batch layer knows files and columns;
cards and chips are the kernels'.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import sys
import time
from collections.abc import Callable, Iterable
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from cardbatch.batch.io import engines, owned, storage
from cardbatch.batch.io.arrays import repeated_text
from cardbatch.batch.io.errors import InputError
from cardbatch.batch.io.exits import EXIT_OK
from cardbatch.batch.io.inputs import is_output_manifest, parquet_inputs
from cardbatch.batch.io.jobs import Engine as EngineName
from cardbatch.batch.io.jobs import RunOptions, Summary
from cardbatch.batch.settle import hand_ids, manifest
from cardbatch.batch.settle.by_game import settle_by_game, settle_table
from cardbatch.batch.settle.counters import INPUT_COUNTERS, merge_counters
from cardbatch.batch.settle.options import SettleJob, SettleOptions
from cardbatch.batch.settle.outputs import ERROR_SCHEMA, result_schema
from cardbatch.batch.settle.parts import MemorySink, UnitContext, run_unit, settle_into, unit_tables, warm_gate
from cardbatch.batch.settle.plan import Unit, plan, plan_table
from cardbatch.constants import Mode

__all__ = ["run", "settle_by_game", "settle_files", "settle_in_memory", "settle_table"]

SUCCESS = "_SUCCESS"  # written last, removed first: a folder without it is incomplete (Spark's marker)


def run(job: SettleJob) -> Summary:
    """Settle ``job.inputs`` into ``job.out`` with the options' analyses: the ``cardbatch settle``
    command as one call.

    Raises :class:`~cardbatch.batch.io.errors.InputError` for input it cannot read as asked (a
    schema, a column's type, an unwritable output, a folder it may not write into) and ``OSError``
    for a failing disk; bad rows are set aside, never raised.
    """
    figures = settle_files(
        list(job.inputs),
        job.out,
        job.options,
        workers=job.run.workers,
        engine=job.run.engine,
        scheduler=job.run.scheduler,
        batch_rows=job.batch_rows,
        quiet=job.run.quiet,
        verbose=job.run.verbose,
        mode=job.mode,
    )
    from cardbatch.batch.settle.report import settle_line

    opts = job.options
    lines = [a.line(figures, job.out) for a in opts.analyses]
    line = next((x for x in lines if x is not None), None) or settle_line(opts.command, figures, job.out)
    found = warnings(figures, opts)
    return Summary(figures, line, status_of(job.options, figures), indent=1, sort_keys=True, warnings=found)


def warnings(figures: dict[str, Any], opts: SettleOptions) -> tuple[str, ...]:
    """What a run says on stderr beside its line: ids that repeat across the inputs, what each
    analysis could not do as asked, and a game's option that no row of the run was of that game to
    use."""
    found = []
    repeated = hand_ids.warning(figures.get("repeated_hand_ids") or {})
    if repeated:
        found.append(repeated + "".join(a.repeated_ids_note() for a in opts.analyses))
    for analysis in opts.analyses:
        found.extend(analysis.warnings(figures))
    found.extend(unused_options(figures, opts))
    return tuple(found)


def unused_options(figures: dict[str, Any], opts: SettleOptions) -> list[str]:
    """A game's option given away from its default when no row of that game was read: it did nothing."""
    from cardbatch.games import REGISTRY

    specs = [REGISTRY[g] for g, c in (figures.get("by_game") or {}).items() if c.get("rows_read") and g in REGISTRY]
    found = []
    for given, flag, used, which in (
        (opts.rules != SettleOptions.rules, f"--rules {opts.rules}", any(g.rule_presets for g in specs), "three-card"),
        (opts.trips_beat_straight, "--trips-beat-straight", any(g.straight_order_option for g in specs), "short-deck"),
        (
            opts.team_model != SettleOptions.team_model,
            f"--team-model {opts.team_model}",
            any(g.settles == "balances" for g in specs),
            "2v2",
        ),
    ):
        if given and not used:
            found.append(f"{flag}: no {which} rows were read, so it changed nothing")
    if opts.no_flop_no_drop and not any(g.board_cards for g in specs):  # a hand without a board has no flop
        found.append(
            "--no-flop-no-drop: no rows of a game with a flop were read (stud, razz, the draw games and "
            "Zha Jin Hua have none: their rake is taken as without it), so it changed nothing"
        )
    return found


def status_of(opts: SettleOptions, figures: dict[str, Any]) -> int:
    """The highest exit status the run's analyses ask for, else 0."""
    return max((a.status(figures) for a in opts.analyses), default=EXIT_OK)


def settle_files(
    inputs: list[str],
    out_dir: str,
    opts: SettleOptions,
    workers: int | None = None,
    engine: EngineName = "local",
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
    out_dir = storage.absolute(out_dir)  # the workers write there, wherever they run
    run_opts = RunOptions(workers, engine, scheduler, quiet, verbose)
    engines.check_available(run_opts)
    owned.check_folder_apart(out_dir, inputs)
    held = owned.held_parquet(out_dir, manifest.is_part_place)
    owned.check_holds_no_input(out_dir, inputs, held)
    paths = manifest.resolved(parquet_inputs(inputs))
    owned.check_reads_nothing_in(out_dir, held, paths)
    try:
        identities, footers = zip(*(manifest.file_identity_and_footer(p) for p in paths))
    except OSError as exc:
        raise InputError(f"cannot read {exc.filename}: {exc.strerror}") from None
    parsed: dict[str, pq.FileMetaData] = {}
    units, file_rows, holds = plan(paths, [i["key"] for i in identities], batch_rows, opts, list(footers), parsed)
    planned = RunPlan(
        units, holds, [{"path": p, "rows": n} for p, n in zip(paths, file_rows)], list(identities), parsed
    )
    for analysis in opts.analyses:  # before the folder changes: what an analysis cannot use stops here
        analysis.check_inputs(paths, parsed)
    dirs = manifest.part_dirs(opts)
    manifest.check_folder(out_dir, dirs)
    try:
        for sub in dirs:
            storage.mkdir(storage.join(out_dir, sub))
    except (OSError, pa.ArrowException) as exc:
        raise InputError(f"cannot write to {out_dir}: {exc}") from None
    from cardbatch.kernels import twins  # numba, loaded where settling loads it

    # a run of one batch or less is over in milliseconds once compiled: its kernels' serial builds
    # compile in half the time (every other run takes the parallel builds, which also run faster);
    # the workers are told, and this process settles, reports and warms up under the same choice
    small = sum(u.rows for u in units) <= batch_rows
    ctx = UnitContext(out_dir, opts, batch_rows, small, command=opts.command, quiet=quiet)
    lock = manifest.Lock(out_dir)
    try:
        with twins.serial(small):
            return _run_locked(planned, ctx, run_opts, mode, t0)
    finally:
        lock.release()


@dataclasses.dataclass(frozen=True)
class RunPlan:
    """What a run found in its inputs: the units, each part's file keys (``holds``), each input's
    rows, the inputs' identities (the manifest's ``files``) and the footers the plan parsed."""

    units: list[Unit]
    holds: dict[str, list[str]]
    inputs: list[dict[str, Any]]
    identities: list[dict[str, Any]]
    parsed: dict[str, pq.FileMetaData]


def _run_locked(planned: RunPlan, ctx: UnitContext, run_opts: RunOptions, mode: Mode, t0: float) -> dict[str, Any]:
    from cardbatch.batch.io.progress import progress

    out, opts, quiet = ctx.out, ctx.opts, run_opts.quiet
    units, holds, inputs, identities, parsed = (
        planned.units,
        planned.holds,
        planned.inputs,
        planned.identities,
        planned.parsed,
    )
    if mode == "error" and is_output_manifest(storage.join(out, manifest.MANIFEST)):
        raise InputError(
            f"{out} already holds cardbatch output (--mode error): give another --out, or --mode resume "
            "(reuse what is current) or --mode overwrite (settle everything again)"
        )
    fingerprint = manifest.options_fingerprint(opts, ctx.batch_rows)
    tops = manifest.RUN_TOPS + tuple(t for a in opts.analyses for t in a.tops)
    reused, foreign, taken, finished = manifest.prepare(
        out, identities, fingerprint, holds, reuse=mode != "overwrite", tops=tops
    )
    ctx = dataclasses.replace(ctx, taken=frozenset(taken), finished=frozenset(finished))
    if foreign and not quiet:
        shown = "\n  ".join(foreign[:20]) + (f"\n  … and {len(foreign) - 20} more" if len(foreign) > 20 else "")
        print(
            f"cardbatch: left alone {len(foreign)} file(s) and link(s) in {out} that cardbatch did not write "
            f"(readers of results/ and errors/ may trip on them):\n  {shown}",
            file=sys.stderr,
        )
    if reused and not quiet:
        print(f"cardbatch: reusing {reused} of {len(holds)} finished parts of an earlier run", file=sys.stderr)
    first = sorted({u.path for u in units}) if len(holds) > reused else []  # the heads to warm up with
    warmed: list[dict[str, Any]] = []

    def warm_up() -> None:
        from cardbatch.batch.settle.warmup import compile_ahead

        heads = {p: parsed[p] for p in first}
        parsed.clear()  # the parent's copy of the footers is not needed any more
        warmed.append(compile_ahead(settle_table, first, opts, quiet=quiet, metadata=heads, serial=ctx.serial))

    if first and run_opts.engine == "dask" and not run_opts.scheduler:  # a LocalCluster's workers load its cache
        warm_up()
    t_settle = time.perf_counter()
    done: list[tuple[Unit, list[tuple[str, dict[str, Any]]]]] = []
    with (
        engines.start(run_opts, len(units), small=ctx.serial, threads=True) as engine,
        progress(
            total=sum(u.rows for u in units), desc=opts.command, unit="row", quiet=quiet, verbose=run_opts.verbose
        ) as bar,
    ):
        # units side by side in threads: each decodes its own columns (Arrow's threads would only contend)
        task = functools.partial(run_unit, ctx=dataclasses.replace(ctx, read_threads=engine.workers == 1))
        if engine.external and first:  # its workers compile (or load) the kernels themselves, all at once
            warmed.append(_warm_cluster(engine, first, ctx))

        gated = engine.here and bool(first)  # the units of this process read their rows while it warms up
        with warm_gate(gated) as open_after:
            for unit, parts in engine.map(task, units, meanwhile=(lambda: open_after(warm_up)) if gated else None):
                done.append((unit, parts))
                bar.update(unit.rows)
    warm = warmed[0] if warmed else None
    settled_at = time.perf_counter()
    written = {name: s.get("files") for _, parts in done for name, s in parts}
    manifest.record_written(out, written)
    total = summarise(done, inputs, opts, t0, settled_at)
    total["repeated_hand_ids"] = repeated_ids(done, lambda: hand_ids.repeated([i["path"] for i in inputs]))
    total.update(
        {
            "parts": len(holds),
            "parts_reused": reused,
            "engine": run_opts.engine,
            "workers": engine.workers,
            "compile_ahead": warm,
            "options": {
                **opts.as_dict(),
                "workers": run_opts.workers,
                "engine": run_opts.engine,
                "scheduler": run_opts.scheduler,
                "batch_rows": ctx.batch_rows,
            },
        }
    )
    total["timings"].update(
        {
            "compile_ahead_seconds": (warm or {}).get("seconds", 0.0),
            "settle_seconds": round(settled_at - t_settle, 3),
        }
    )
    from cardbatch.batch.settle.report import write_report

    try:
        sections = [a.report_section(total) for a in opts.analyses]
        total["report"] = write_report(out, total, {f for files in written.values() for f in files or ()}, sections)
    except (OSError, pa.ArrowException, ValueError, KeyError) as exc:  # the results stand without their page
        total["report"] = None
        total["report_error"] = str(exc)
        print(f"cardbatch: report.html not written ({exc}); the results and summary are complete", file=sys.stderr)
    for analysis in opts.analyses:  # before _SUCCESS: a finished folder holds every analysis's files
        analysis.finish(out, total, opts)
    if foreign:
        total["not_ours"] = foreign
    total["wall_seconds"] = round(time.perf_counter() - t0, 3)
    storage.write_text(storage.join(out, "summary.json"), json.dumps(total, indent=1, sort_keys=True))
    storage.write_text(storage.join(out, SUCCESS), "")  # last: readers may require it (docs: settle, the output folder)
    return total


def _warm_cluster(engine: engines.Engine, first: list[str], ctx: UnitContext) -> dict[str, Any]:
    """Every worker of an external cluster settles the heads of ``first`` before the first unit,
    which compiles (or loads from its machine's cache) every kernel the run needs."""
    from cardbatch.batch.settle.warmup import warm_worker

    t0 = time.perf_counter()
    each = engine.on_each_worker(warm_worker, settle_table, first, ctx.opts, ctx.serial)
    return {
        "compiled": "compiled or loaded on every Dask worker, before the first task (client.run)",
        "seconds": round(time.perf_counter() - t0, 3),
        "workers": len(each),
        "worker_seconds": sorted(round(float(v), 3) for v in each.values()),
    }


def summarise(
    done: Iterable[tuple[Unit, list[tuple[str, dict[str, Any]]]]],
    inputs: list[dict[str, Any]],
    opts: SettleOptions,
    t0: float,
    settled_at: float,
) -> dict[str, Any]:
    """The run's figures from its parts' counters: totals, each input's share, each part's time.
    Checks that no row was lost (a bug of ours if one was)."""
    from cardbatch import __version__

    # in part order, whatever order they finished in: float sums (an analysis's tallies) then come out
    # the same to the last bit on every run, a resumed one too
    parts = sorted(((unit, name, s) for unit, named in done for name, s in named), key=lambda p: p[1])
    total = merge_counters([_counters(s) for _, _, s in parts])
    by_input: dict[str, list[dict[str, Any]]] = {}
    for u, _, s in parts:
        for path, share in s.get("by_file", {u.path: s}).items():
            by_input.setdefault(path, []).append(_counters(share))
    wall = settled_at - t0
    for key in ("rows_read", "rows_settled", "rows_rejected", "chips_in", "chips_paid", "chips_raked", "mismatches"):
        total.setdefault(key, 0)
    total.setdefault("rejected_by_reason", {})
    # most first, ties by name: the same order on every run
    total["rejected_by_reason"] = dict(sorted(total["rejected_by_reason"].items(), key=lambda kv: (-kv[1], kv[0])))
    if total["rows_read"] != total["rows_settled"] + total["rows_rejected"]:
        raise AssertionError("rows lost: read != settled + rejected")
    total.update(
        {
            "files": len(inputs),
            "wall_seconds": round(wall, 3),
            "cardbatch_version": __version__,
            "inputs": [{**i, **_input_totals(by_input.get(i["path"], []))} for i in inputs],
            "hands_per_second": round(total["rows_read"] / wall) if wall > 0 else None,
            "timings": {
                "parts": sorted(
                    (
                        {
                            "part": name,
                            "path": u.path,
                            "files": len(u.pieces),
                            "row_groups": sum(len(p.row_groups) for p in u.pieces),
                            "first_row_group": u.pieces[0].row_groups[0],
                            "rows": s.get("rows_read", 0),
                            "seconds": s.get("seconds"),
                        }
                        for u, name, s in parts
                    ),
                    key=lambda p: str(p["part"]),
                ),
            },
        }
    )
    return total


def repeated_ids(
    done: Iterable[tuple[Unit, list[tuple[str, dict[str, Any]]]]], count: Callable[[], dict[str, Any]]
) -> dict[str, Any]:
    """The run's ``repeated_hand_ids``: none when the parts' id spans do not overlap, else ``count()``
    (which reads the ids again: a file's, or the caller's table)."""
    spans = [s.get("hand_ids") for _, parts in done for _, s in parts]
    return dict(hand_ids.NONE) if hand_ids.apart(spans) else count()


def _counters(part: dict[str, Any]) -> dict[str, Any]:
    """A part's counters without its timing (which is not added up), its split by file and the
    files it wrote."""
    return {k: v for k, v in part.items() if k not in ("seconds", "by_file", "files", "hand_ids")}


def _input_totals(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """One input's rows and chips, added up over its parts (every game together)."""
    t = merge_counters(parts)
    return {k: t.get(k, 0) for k in INPUT_COUNTERS}


def _unit_in_memory(
    unit: Unit, opts: SettleOptions, batch_rows: int, serial: bool, read_threads: bool
) -> tuple[MemorySink, dict[str, Any]]:
    """One unit settled into tables of its own (its thread's), with its counters."""
    from cardbatch.kernels import twins  # numba, loaded where settling loads it

    sink = MemorySink()
    with twins.serial(serial):
        return sink, settle_into(unit_tables(unit, batch_rows, read_threads), unit, opts, sink)


def settle_in_memory(
    source: pa.Table | list[str],
    label: str,
    opts: SettleOptions,
    batch_rows: int = 1 << 16,
    workers: int | None = None,
) -> tuple[pa.Table, pa.Table, dict[str, Any]]:
    """Settle an Arrow table (``label`` names it in messages and the summary) or Parquet inputs in
    this process, through the same units as a run, into tables: (results, errors, figures). Results
    and errors have the files' columns plus ``game``, empty tables included; figures are the
    summary's, less what only a folder has (parts, report, reuse). ``workers``: units settled at
    once, each in a thread of this process (default: one per core; a table of one batch or less:
    this thread)."""
    t0 = time.perf_counter()
    if isinstance(source, pa.Table):
        units = plan_table(source, label, batch_rows, opts)
        inputs = [{"path": label, "rows": source.num_rows}]
    else:
        paths = manifest.resolved(parquet_inputs(source))
        keys = [f"{k:012x}" for k in range(len(paths))]
        units, file_rows, _ = plan(paths, keys, batch_rows, opts)
        inputs = [{"path": p, "rows": n} for p, n in zip(paths, file_rows)]
    small = sum(u.rows for u in units) <= batch_rows  # as a run of the command line chooses
    sink = MemorySink()
    done = []
    with engines.start(RunOptions(workers=workers), len(units), small=small, threads=True) as engine:
        task = functools.partial(
            _unit_in_memory, opts=opts, batch_rows=batch_rows, serial=small, read_threads=engine.workers == 1
        )
        for unit, (part, counters) in engine.map(task, units, ordered=True):  # gathered in the units' order
            sink.extend(part)
            done.append((unit, [(unit.name, counters)]))
    figures = summarise(done, inputs, opts, t0, time.perf_counter())
    if isinstance(source, pa.Table):
        table = source
        figures["repeated_hand_ids"] = repeated_ids(
            done, lambda: hand_ids.repeated_in([table.column("hand_id")] if "hand_id" in table.column_names else [])
        )
    else:
        figures["repeated_hand_ids"] = repeated_ids(done, lambda: hand_ids.repeated([i["path"] for i in inputs]))
    figures.update(
        {"engine": "in-process", "workers": engine.workers, "options": {**opts.as_dict(), "batch_rows": batch_rows}}
    )
    return (
        _gathered(sink.results, result_schema(opts.result_fields)),
        _gathered(sink.errors, ERROR_SCHEMA),
        figures,
    )


def _gathered(by_game: dict[str, list[pa.Table]], schema: pa.Schema) -> pa.Table:
    """One table of every game's tables with ``game`` last, as a reader of the partitioned folder
    sees them; no rows: the schema's columns and ``game``."""
    tables = []
    for game in sorted(by_game):
        t = pa.concat_tables(by_game[game], promote_options="permissive")
        tables.append(t.append_column("game", repeated_text(game, t.num_rows)))
    if not tables:
        empty = pa.Table.from_arrays([pa.nulls(0, f.type) for f in schema], schema=schema)  # empty_table imports pandas
        return empty.append_column("game", pa.nulls(0, pa.string()))
    return pa.concat_tables(tables, promote_options="permissive")
