"""``cardbatch import``: PHH hand histories (files, folders, globs) to one Parquet file of hands.

Two passes over the inputs. The first, line by line, finds the chip factor F
(docs: import: the smallest integer that makes every amount of every hand whole,
unless ``--chip`` gives it) by scanning the amount fields' text, without
parsing, and cuts each file into units of at most :data:`UNIT_HANDS` hands
at section headers. The second parses and replays each unit's hands
(:mod:`.replay`; in worker processes with ``workers > 1``, at most two
units each in flight, written in input order) and streams row groups to
``OUT`` and the hands it sets aside to ``OUT``'s ``.errors.parquet``, both
under temporary names renamed when complete. Memory is bounded by a unit,
whatever the size of a file.

``hand_id`` is the first 63 bits of a BLAKE2b digest of the file's path
relative to its input root and the hand's position in the file: the same
input gives the same ids, and a new file does not renumber the others.
A collision (odds about 1 in 10^7 for 21 M hands) stops the run: ids must
be unique.
"""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import hashlib
import math
import os
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np
import pyarrow as pa

from cardbatch.batch.io import owned, pycolumns, storage
from cardbatch.batch.io.errors import InputError
from cardbatch.batch.io.inputs import local_files
from cardbatch.batch.io.jobs import FILE_MODES, FileMode, RunOptions, Summary, input_paths
from cardbatch.batch.phh import notation, replay

SUFFIXES = (".phh", ".phhs")
HANDS_SCHEMA = pa.schema(
    [
        ("hand_id", pa.int64()),
        ("game", pa.dictionary(pa.int8(), pa.string())),
        ("variant", pa.string()),
        ("button", pa.int8()),
        ("board", pa.list_(pa.uint8(), 5)),
        ("cards", pa.list_(pa.uint8())),
        ("contrib_street", pa.list_(pa.int64())),
        ("dead", pa.list_(pa.int64())),
        ("folded", pa.list_(pa.bool_())),
        ("payout", pa.list_(pa.int64())),
        ("players", pa.list_(pa.string())),
        ("stack", pa.list_(pa.int64())),
        ("source", pa.string()),
        ("source_hand", pa.string()),
    ]
)
ERRORS_SCHEMA = pa.schema(
    [
        ("source", pa.string()),
        ("position", pa.int64()),
        ("source_hand", pa.string()),
        ("reason", pa.string()),
        ("message", pa.string()),
        ("text", pa.string()),
    ]
)


@dataclasses.dataclass(frozen=True)
class ImportOptions:
    """``chip``: chips per unit of the files' amounts (None: found in a first pass); ``run``: how to
    run (``workers``: processes, 1 or None: in this one; the local engine only); ``mode``: what to
    do with a file already at the output's names (:mod:`cardbatch.batch.io.owned`)."""

    chip: int | None = None
    run: RunOptions = RunOptions()
    mode: FileMode = "replace"

    def __post_init__(self) -> None:
        if self.mode not in FILE_MODES:
            raise ValueError(f"mode must be one of {', '.join(FILE_MODES)}, got {self.mode!r}")
        if self.chip is not None and (isinstance(self.chip, bool) or not isinstance(self.chip, int) or self.chip < 1):
            raise ValueError(f"--chip-factor must be a positive integer, got {self.chip}")
        if self.run.engine != "local":
            raise ValueError("import runs on the local engine only")

    @property
    def workers(self) -> int:
        return self.run.workers or 1


@dataclasses.dataclass(frozen=True)
class ImportJob:
    """A whole ``import`` run: PHH files, folders or globs in, one Parquet file of hands out (and
    the hands set aside in its ``.errors.parquet`` beside it)."""

    inputs: tuple[str, ...]
    out: str
    options: ImportOptions = ImportOptions()

    def __post_init__(self) -> None:
        object.__setattr__(self, "inputs", input_paths(self.inputs, "PHH file, folder or glob"))
        if not isinstance(self.out, str) or not self.out:
            raise ValueError("out: give the Parquet file to write")


def errors_path(out: str) -> str:
    """``hands.parquet`` -> ``hands.errors.parquet`` beside it."""
    root, ext = os.path.splitext(out)
    return f"{root}.errors{ext or '.parquet'}"


UNIT_HANDS = 20_000  # hands per work unit: a worker's memory, whatever the file's size


@dataclasses.dataclass(frozen=True)
class Unit:
    """A run of hands of one file: bytes ``[start, end)`` (``end`` -1: to the end), the first
    hand's position in the file, and the chip factor."""

    path: str
    rel: str
    start: int
    end: int
    first: int
    hands: int = 1
    factor: int = 1
    # a one-hand file the first pass did not read: the import checks that its amounts need no other
    # factor than the run's (:class:`FactorChanged` otherwise), so most files are read once, not twice
    checked: bool = True


class FactorChanged(Exception):
    """A file the first pass did not read needs a chip factor the run's does not divide: the run
    starts again with every file read in the first pass (outputs as if it had been so from the
    start)."""

    def __init__(self, path: str, den: int) -> None:
        super().__init__(path, den)
        self.path, self.den = path, den


def text_denominator(lines: Iterable[str]) -> int:
    """The smallest chip factor the amounts of ``lines`` need (1 when all are whole), read line by
    line as the first pass reads a file. Only a line with a ``.`` can hold a fraction."""
    den = 1
    for line in lines:
        if "." in line:
            d = notation.denominators(line)
            den = den * d // math.gcd(den, d)
    return den


def scan(path: str, rel: str, with_factor: bool, lazy: bool = False) -> tuple[int, list[Unit]]:
    """Pass one over a file, line by line: the smallest chip factor its amounts need (1 unless
    ``with_factor``) and its units of at most :data:`UNIT_HANDS` hands, cut at section headers.
    ``lazy``: a one-hand file is not read (its unit is checked when it is imported)."""
    multi = path.endswith(".phhs")
    den, offset, hands, preamble = 1, 0, 0, False
    starts = [(0, 0)]
    if not multi and lazy:  # checked on import only when the run's factor is being found
        return 1, [Unit(path, rel, 0, -1, 0, 1, checked=not with_factor)]
    if not multi:  # one hand: one unit; the line-by-line pass only when an amount may be fractional
        try:
            with open(path, "rb") as f:
                text = f.read().decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(f"{path}: not UTF-8 text ({exc.reason})") from None
        if not with_factor or "." not in text:
            return 1, [Unit(path, rel, 0, -1, 0, 1)]
    try:
        with open(path, "rb") as f:
            for raw in f:
                line = raw.decode("utf-8")
                if with_factor and "." in line:  # as text_denominator reads a line, without a call a line
                    d = notation.denominators(line)
                    den = den * d // math.gcd(den, d)
                if multi and line.startswith("[") and notation.is_header(line):
                    if hands and hands % UNIT_HANDS == 0:
                        starts.append((offset, hands))
                    hands += 1
                elif multi and not hands and line.strip():
                    preamble = True
                offset += len(raw)
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text ({exc.reason})") from None
    shift = 1 if preamble else 0  # a non-blank preamble before the first header is a hand (position 0)
    total = hands + shift if multi else 1
    units = []
    for k, (start, header) in enumerate(starts):
        first = header + shift if k else 0
        last = starts[k + 1][1] + shift if k + 1 < len(starts) else total
        end = starts[k + 1][0] if k + 1 < len(starts) else -1
        units.append(Unit(path, rel, start, end, first, last - first))
    return den, units


def plan(files: list[tuple[str, str]], chip: int | None, lazy: bool = False) -> tuple[int, list[Unit]]:
    """The run's chip factor (``chip``, or the smallest every amount needs) and its work units.
    ``lazy``: one-hand files are not read here but checked as they are imported (see :class:`Unit`)."""
    factor, units = 1, []
    for path, rel in files:
        den, found = scan(path, rel, chip is None, lazy)
        factor = factor * den // math.gcd(factor, den)
        units.extend(found)
    factor = chip if chip is not None else factor
    return factor, [u if u.factor == factor else dataclasses.replace(u, factor=factor) for u in units]


def _read(unit: Unit) -> str:
    try:
        with open(unit.path, "rb") as f:
            f.seek(unit.start)
            data = f.read() if unit.end < 0 else f.read(unit.end - unit.start)
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{unit.path}: not UTF-8 text ({exc.reason})") from None


def hand_id(rel: str, position: int) -> int:
    digest = hashlib.blake2b(f"{rel}#{position}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little") >> 1


def import_units(units: tuple[Unit, ...]) -> tuple[pa.Table, pa.Table]:
    """The units' hands and rejected hands as two tables (a worker's task: one unit of a big file,
    or many small files at once, so a one-hand file costs no table, write or round trip of its own)."""
    rows: dict[str, list[Any]] = {name: [] for name in HANDS_SCHEMA.names}
    bad: dict[str, list[Any]] = {name: [] for name in ERRORS_SCHEMA.names}
    for unit in units:
        _import_unit(unit, rows, bad)
    return pycolumns.table(rows, HANDS_SCHEMA), pycolumns.table(bad, ERRORS_SCHEMA)


def _import_unit(unit: Unit, rows: dict[str, list[Any]], bad: dict[str, list[Any]]) -> None:
    """Append one unit's hands to ``rows`` and its rejected hands to ``bad`` (column lists)."""
    rel, factor = unit.rel, unit.factor
    text = _read(unit)
    if not unit.checked and "." in text:
        den = text_denominator(text.split("\n"))  # the lines the first pass would have read
        if factor % den:
            raise FactorChanged(unit.path, den)
    for position, name, section in notation.sections(text, unit.path.endswith(".phhs"), unit.first):
        fields: dict[str, Any] = {}
        try:
            fields = notation.parse(section)
            hand = replay.replay(fields, factor)
        except (notation.Malformed, replay.Rejected) as exc:
            source_hand = fields.get("hand", name)
            for key, value in zip(
                ERRORS_SCHEMA.names,
                (
                    rel,
                    position,
                    None if source_hand is None else str(source_hand),
                    getattr(exc, "reason", "malformed"),
                    str(exc),
                    section,
                ),
            ):
                bad[key].append(value)
            continue
        source_hand = fields.get("hand", name)
        n = hand.seats
        for key, value in (
            ("hand_id", hand_id(rel, position)),
            ("game", hand.game),  # the registry's game of the variant (and of its hole cards)
            ("variant", hand.variant),
            ("button", n - 1),
            ("board", hand.board),
            ("cards", hand.cards),
            ("contrib_street", hand.contrib_street),
            ("dead", hand.dead),
            ("folded", hand.folded),
            ("payout", hand.payout),
            ("players", hand.players),
            ("stack", hand.stack),
            ("source", rel),
            ("source_hand", None if source_hand is None else str(source_hand)),
        ):
            rows[key].append(value)


TASK_HANDS = 2_000  # small files go to a task together until they hold about this many hands


def tasks(units: list[Unit]) -> list[tuple[Unit, ...]]:
    """Consecutive units grouped into tasks of about :data:`TASK_HANDS` hands (a big unit alone)."""
    out: list[tuple[Unit, ...]] = []
    group: list[Unit] = []
    hands = 0
    for unit in units:
        if group and hands + unit.hands > TASK_HANDS:
            out.append(tuple(group))
            group, hands = [], 0
        group.append(unit)
        hands += unit.hands
    if group:
        out.append(tuple(group))
    return out


def _results(units: list[Unit], workers: int) -> Iterator[tuple[pa.Table, pa.Table]]:
    """Each task's tables (:func:`tasks`), in order; with workers, at most two tasks each in flight."""
    work = tasks(units)
    if workers <= 1 or len(work) <= 1:
        for task in work:
            yield import_units(task)
        return
    from cardbatch.batch.io.lifecycle import process_pool

    with process_pool(workers, None) as pool:  # the import needs no numba
        queue = iter(work)
        # range first: zip takes from its arguments in order, and a task taken after the range ran out
        # would be dropped
        window: list[cf.Future[tuple[pa.Table, pa.Table]]] = [
            pool.submit(import_units, t) for _, t in zip(range(2 * workers), queue)
        ]
        while window:
            done = window.pop(0).result()
            nxt = next(queue, None)
            if nxt is not None:
                window.append(pool.submit(import_units, nxt))
            yield done


def _int64s(array: pa.Array) -> np.ndarray:
    """An int64 array without nulls as a numpy view (``to_numpy`` imports pandas: see pycolumns)."""
    return np.frombuffer(array.buffers()[1], dtype=np.int64)[array.offset : array.offset + len(array)]


def run_import(inputs: list[str], out: str, options: ImportOptions = ImportOptions()) -> dict[str, Any]:
    """Import every PHH hand of ``inputs`` into ``out`` (and its errors file); returns the summary."""

    t0 = time.perf_counter()
    files = local_files(inputs, SUFFIXES)
    if not files:  # as settle: an empty import would replace the last good output with nothing
        raise InputError(f"no .phh or .phhs files in {', '.join(inputs)}: nothing to import, {out} is left as it is")
    if out.endswith(SUFFIXES):
        raise InputError(
            f"{out}: the output is Parquet, and a name ending in .phh or .phhs would be read as a hand history"
        )
    owned.check_outputs([out, errors_path(out)], "import", options.mode, [path for path, _ in files])
    owned.check_not_read_later([out, errors_path(out)], inputs, SUFFIXES)
    factor, units = plan(files, options.chip, lazy=True)
    try:
        return _import_all(files, factor, units, out, options, t0)
    except FactorChanged:  # a one-hand file with decimal amounts: find the factor from every file
        factor, units = plan(files, options.chip)
        return _import_all(files, factor, units, out, options, t0)


def run(job: ImportJob) -> Summary:
    """Import every PHH hand of ``job.inputs`` into ``job.out``: the ``cardbatch import`` command as one
    call. Raises :class:`~cardbatch.batch.io.errors.InputError` or ``OSError`` when an input cannot be
    read or the output written (nothing is then published)."""
    s = run_import(list(job.inputs), job.out, job.options)
    line = (
        f"cardbatch import: {s['hands_imported']:,} of {s['hands_read']:,} hands to {s['out']}"
        f" ({s['hands_rejected']:,} set aside in {s['errors']}), chip factor {s['chip_factor']}"
    )
    return Summary(s, line, indent=1)


def _import_all(
    files: list[tuple[str, str]], factor: int, units: list[Unit], out: str, options: ImportOptions, t0: float
) -> dict[str, Any]:
    """:func:`run_import` once the plan is made: every unit imported, the outputs published."""
    from cardbatch.batch.io.progress import progress

    err_out = errors_path(out)
    metadata = {b"cardbatch.chip_factor": str(factor).encode(), b"cardbatch.source": b"phh"}
    ids: list[np.ndarray] = []
    reasons: Counter[str] = Counter()
    read = imported = 0
    writers: list[storage.PublishedParquet] = []
    try:
        seal = owned.parquet_metadata("import")
        writer = storage.PublishedParquet(out, HANDS_SCHEMA.with_metadata(metadata), seal)
        writers.append(writer)
        err_writer = storage.PublishedParquet(err_out, ERRORS_SCHEMA.with_metadata(metadata), seal)
        writers.append(err_writer)
        with progress(sum(u.hands for u in units), "import", "hand", options.run.quiet, options.run.verbose) as bar:
            for hands, bad in _results(units, options.workers):
                if hands.num_rows:
                    writer.write(hands)
                    ids.extend(_int64s(chunk) for chunk in hands.column("hand_id").chunks)
                if bad.num_rows:
                    err_writer.write(bad)
                    reasons.update(bad.column("reason").to_pylist())
                read += hands.num_rows + bad.num_rows
                imported += hands.num_rows
                bar.update(hands.num_rows + bad.num_rows)
        expected = sum(u.hands for u in units)
        if read != expected:  # a bug of ours, never the input's: nothing may be lost
            raise AssertionError(f"import read {read} hands of the {expected} the first pass found")
        all_ids = np.concatenate(ids) if ids else np.zeros(0, np.int64)
        if np.unique(all_ids).size != all_ids.size:
            raise InputError("two hands got the same hand_id (a 63-bit digest collision): rename one file")
        writer.close()
        err_writer.close()
    except BaseException:
        for w in writers:
            w.abort()
        raise
    seconds = time.perf_counter() - t0
    return {
        "files": len(files),
        "hands_read": read,
        "hands_imported": imported,
        "hands_rejected": read - imported,
        "rejected_by_reason": dict(sorted(reasons.items())),
        "chip_factor": factor,
        "chip_factor_from": "--chip-factor" if options.chip is not None else "inputs",
        "out": out,
        "errors": err_out,
        "workers": options.workers,
        "seconds": round(seconds, 3),
        "hands_per_second": round(read / seconds) if seconds > 0 else None,
    }
