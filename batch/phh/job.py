"""``cardbatch import``: PHH hand histories (files, folders, globs; local or ``s3://``) to one Parquet file of hands.

Two passes over the inputs. The first, line by line, finds the chip factor F
(docs: import: the smallest integer that makes every amount of every hand whole,
unless ``--chip`` gives it) by scanning the amount fields' text, without
parsing, and cuts each file into units of at most :data:`UNIT_HANDS` hands
at section headers; consecutive units are grouped into tasks of about
:data:`TASK_HANDS` hands (:func:`tasks`). The second parses and replays each
task's hands (:mod:`.replay`) on the run's engine (:mod:`cardbatch.batch.io.engines`:
this process, local worker processes or a Dask cluster); each task writes its
hands and the hands it sets aside as two staged parts (:mod:`cardbatch.batch.io.staged`),
and this process reads the parts in the tasks' order into ``OUT`` and ``OUT``'s
``.errors.parquet``, both under temporary names published when complete. So
the output is the same bytes whatever the engine and the number of workers,
a rerun after a crash reuses the parts of the same plan (the chip factor, the
unit sizes and every input file's path, size and modification time), and
memory is bounded by a task, whatever the size of a file.

``hand_id`` is the first 63 bits of a BLAKE2b digest of the file's path
relative to its input root and the hand's position in the file: the same
input gives the same ids, and a new file does not renumber the others.
A collision (odds about 1 in 10^7 for 21 M hands) stops the run: ids must
be unique.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fnmatch
import glob
import hashlib
import json
import math
import os
import posixpath
import sys
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np
import pyarrow as pa
from pyarrow import fs

from cardbatch.batch.io import engines, owned, pycolumns, staged, storage
from cardbatch.batch.io.errors import InputError
from cardbatch.batch.io.inputs import local_files, visible
from cardbatch.batch.io.jobs import FILE_MODES, FileMode, RunOptions, Summary, input_paths
from cardbatch.batch.phh import hands, notation, replay

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
        ("discards", pa.list_(pa.list_(pa.uint8()))),
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
    run (``workers``, ``engine``, ``scheduler`` as in every job: default one worker per core, a run
    of a few thousand hands in this process); ``mode``: what to do with a file already at the
    output's names (:mod:`cardbatch.batch.io.owned`)."""

    chip: int | None = None
    run: RunOptions = RunOptions()
    mode: FileMode = "replace"

    def __post_init__(self) -> None:
        if self.mode not in FILE_MODES:
            raise ValueError(f"mode must be one of {', '.join(FILE_MODES)}, got {self.mode!r}")
        if self.chip is not None and (isinstance(self.chip, bool) or not isinstance(self.chip, int) or self.chip < 1):
            raise ValueError(f"--chip-factor must be a positive integer, got {self.chip}")


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
    """``hands.parquet`` -> ``hands.errors.parquet`` beside it (a URI's query stays at its end)."""
    head, sep, query = out.partition("?") if storage.is_uri(out) else (out, "", "")
    root, ext = (posixpath if storage.is_uri(out) else os.path).splitext(head)
    return f"{root}.errors{ext or '.parquet'}{sep}{query}"


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
            text = _bytes(path).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(f"{path}: not UTF-8 text ({exc.reason})") from None
        if not with_factor or "." not in text:
            return 1, [Unit(path, rel, 0, -1, 0, 1)]
    try:
        with _lines(path) as lines:
            for raw in lines:
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


def _bytes(path: str, start: int = 0, end: int = -1) -> bytes:
    """Bytes ``[start, end)`` of a file (``end`` -1: to its end), local or a URI. A local file is
    read with ``open``: a corpus of one-hand files is thousands of small reads."""
    if storage.is_uri(path):
        return storage.read_bytes(path, start, None if end < 0 else end - start)
    with open(path, "rb") as f:
        f.seek(start)
        return f.read() if end < 0 else f.read(end - start)


@contextlib.contextmanager
def _lines(path: str, chunk: int = 1 << 20) -> Iterator[Iterator[bytes]]:
    """A file's lines as bytes, each with its ``\\n`` (as iterating a binary file gives them), read
    a chunk at a time from a URI: a big ``.phhs`` on S3 is never held whole."""
    if not storage.is_uri(path):
        with open(path, "rb") as f:
            yield iter(f)
        return
    filesystem, inner = storage.resolve(path)
    with filesystem.open_input_stream(inner) as stream:

        def split() -> Iterator[bytes]:
            rest = b""
            while True:
                data = stream.read(chunk)
                if not data:
                    break
                buf, at = rest + bytes(data), 0
                while (end := buf.find(b"\n", at)) >= 0:
                    yield buf[at : end + 1]
                    at = end + 1
                rest = buf[at:]
            if rest:
                yield rest

        yield split()


def _read(unit: Unit) -> str:
    try:
        return _bytes(unit.path, unit.start, unit.end).decode("utf-8")
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
            hand = hands.replay(fields, factor)
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
        for key, value in (
            ("hand_id", hand_id(rel, position)),
            ("game", hand.game),  # the registry's game of the variant (and of its hole cards)
            ("variant", hand.variant),
            ("button", hand.button),  # the last seat; null in stud and razz
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
            ("discards", hand.discards),  # a draw game's; null in the others
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


# a run of at most this many hands is over before worker processes would have started (each imports
# pyarrow and the replay): it stays in this process unless --workers asks for some
SMALL_HANDS = 4 * TASK_HANDS
KINDS = ("hands", "errors")  # the two parts each task writes (staged.part_name's kinds)


@dataclasses.dataclass(frozen=True)
class Task:
    """Task ``index`` of a run (:func:`tasks`' group of units) and where its two parts go (the
    staging folder of its run's plan)."""

    index: int
    units: tuple[Unit, ...]
    hands: str
    errors: str


def import_task(task: Task) -> tuple[int, int]:
    """A worker's task: import the task's units and write its hands and rejected hands as two
    parts; returns (hands imported, hands set aside)."""
    hands, bad = import_units(task.units)
    staged.write_part(task.errors, bad)
    staged.write_part(task.hands, hands)
    return hands.num_rows, bad.num_rows


def _int64s(array: pa.Array) -> np.ndarray:
    """An int64 array without nulls as a numpy view (``to_numpy`` imports pandas: see pycolumns)."""
    return np.frombuffer(array.buffers()[1], dtype=np.int64)[array.offset : array.offset + len(array)]


# --- the inputs -----------------------------------------------------------------------------------

FileId = tuple[str, str, int, Any]  # path, path relative to its input root, size, modification time (ns)


def phh_files(inputs: list[str]) -> list[FileId]:
    """Every file the inputs name, each once, sorted by its relative path (then its path): local
    files, folders and globs as :func:`~cardbatch.batch.io.inputs.local_files` finds them, and
    ``s3://`` objects, prefixes (searched below for ``.phh``/``.phhs`` names, none starting with
    ``.`` or ``_``) and globs (the root: the prefix before the first wildcard) the same way. With
    each file its size and modification time: what a rerun compares to reuse the parts."""
    found: dict[str, tuple[str, int, Any]] = {}
    for path, rel in local_files([i for i in inputs if not storage.is_uri(i)], SUFFIXES):
        st = os.stat(path)
        found.setdefault(path, (rel, st.st_size, st.st_mtime_ns))
    for given in inputs:
        if storage.is_uri(given):
            for path, rel, size, mtime in _remote_files(given):
                found.setdefault(path, (rel, size, mtime))
    return sorted(((p, rel, size, m) for p, (rel, size, m) in found.items()), key=lambda f: (f[1], f[0]))


def _remote_files(given: str) -> list[FileId]:
    head, sep, query = given.partition("?")
    if glob.has_magic(head.split("://", 1)[1]):
        root = head[: min(head.index(c) for c in "*?[" if c in head)]
        root = root if root.endswith("/") else posixpath.dirname(root)
        matches = [f for f in _listing(root + sep + query) if fnmatch.fnmatchcase(f[0].partition("?")[0], head)]
        if not matches:
            raise FileNotFoundError(f"no file matches {given!r}")
        return matches
    info = storage.info(given)
    if info.type == fs.FileType.File:
        return [(given, posixpath.basename(head), info.size, info.mtime_ns)]
    if info.type == fs.FileType.Directory:
        return [f for f in _listing(given) if f[1].endswith(SUFFIXES) and visible(f[1])]
    raise FileNotFoundError(f"no such file or folder: {given!r}")


def _listing(folder: str) -> list[FileId]:
    """Every object below a URI prefix, as a URI written like ``folder``, with its size and time."""
    filesystem, base = storage.resolve(folder)
    scheme = folder.split("://", 1)[0]
    _, sep, query = folder.partition("?")
    selector = fs.FileSelector(base, recursive=True, allow_not_found=True)
    return [
        (f"{scheme}://{item.path}{sep}{query}", posixpath.relpath(item.path, base), item.size, item.mtime_ns)
        for item in filesystem.get_file_info(selector)
        if item.type == fs.FileType.File
    ]


def _identity(files: list[FileId]) -> str:
    """One digest of every input file's path, relative path, size and modification time."""
    return hashlib.sha256(json.dumps(files, default=str).encode()).hexdigest()


# --- the run --------------------------------------------------------------------------------------


def run_import(inputs: list[str], out: str, options: ImportOptions = ImportOptions()) -> dict[str, Any]:
    """Import every PHH hand of ``inputs`` into ``out`` (and its errors file); returns the summary."""

    t0 = time.perf_counter()
    engines.check_available(options.run)
    found = phh_files([storage.absolute(i) for i in inputs])  # the workers read them, wherever they run
    if not found:  # as settle: an empty import would replace the last good output with nothing
        raise InputError(f"no .phh or .phhs files in {', '.join(inputs)}: nothing to import, {out} is left as it is")
    if out.partition("?")[0].endswith(SUFFIXES):
        raise InputError(
            f"{out}: the output is Parquet, and a name ending in .phh or .phhs would be read as a hand history"
        )
    files = [(path, rel) for path, rel, _, _ in found]
    owned.check_outputs([out, errors_path(out)], "import", options.mode, [path for path, _ in files])
    owned.check_not_read_later([out, errors_path(out)], inputs, SUFFIXES)
    staging = staged.Staging(out, "import")
    identity = _identity(found)
    # a run that had to read every file (a one-hand file needed another chip factor) staged that
    # plan: its rerun reads every file at once, and so finds the same plan and reuses its parts
    prior, read_all = staging.plan(), _plan(0, identity, True)
    every = isinstance(prior, dict) and all(prior.get(k) == v for k, v in read_all.items() if k != "chip_factor")
    factor, units = plan(files, options.chip, lazy=not every)
    try:
        return _import_all(files, factor, units, out, options, t0, staging, _plan(factor, identity, every))
    except FactorChanged:  # a one-hand file with decimal amounts: find the factor from every file
        factor, units = plan(files, options.chip)
        return _import_all(files, factor, units, out, options, t0, staging, _plan(factor, identity, True))


def _plan(factor: int, identity: str, every: bool) -> dict[str, Any]:
    """What the parts of a run depend on (the staging folder's plan)."""
    return {
        "chip_factor": factor,
        "unit_hands": UNIT_HANDS,
        "task_hands": TASK_HANDS,
        "inputs": identity,
        "read": "every file" if every else "one-hand files as imported",
    }


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
    files: list[tuple[str, str]],
    factor: int,
    units: list[Unit],
    out: str,
    options: ImportOptions,
    t0: float,
    staging: staged.Staging,
    planned: dict[str, Any],
) -> dict[str, Any]:
    """:func:`run_import` once the plan is made: the tasks not finished by an earlier run of the same
    plan run on the engine, and every task's parts, in order, make the outputs."""
    from cardbatch.batch.io.progress import progress

    run_opts = options.run
    work = tasks(units)
    reuse = staging.begin(planned)
    finished = {i for i in range(len(work)) if all(staged.part_name(i, k) in reuse for k in KINDS)}
    pending = [Task(i, work[i], *(staging.path(staged.part_name(i, k)) for k in KINDS)) for i in range(len(work))]
    pending = [t for t in pending if t.index not in finished]
    if finished and not run_opts.quiet:
        said = f"reusing {len(finished)} of {len(work)} finished parts of an earlier run"
        print(f"cardbatch import: {said}", file=sys.stderr)
    expected = sum(u.hands for u in units)
    err_out = errors_path(out)
    metadata = {b"cardbatch.chip_factor": str(factor).encode(), b"cardbatch.source": b"phh"}
    ids: list[np.ndarray] = []
    reasons: Counter[str] = Counter()
    read = imported = 0
    workers = 0
    writers: list[storage.PublishedParquet] = []
    try:
        seal = owned.parquet_metadata("import")
        writer = storage.PublishedParquet(out, HANDS_SCHEMA.with_metadata(metadata), seal)
        writers.append(writer)
        err_writer = storage.PublishedParquet(err_out, ERRORS_SCHEMA.with_metadata(metadata), seal)
        writers.append(err_writer)
        with contextlib.ExitStack() as stack:
            done: Iterator[tuple[Task, tuple[int, int]]] = iter(())
            if pending:
                small = expected <= SMALL_HANDS
                engine = stack.enter_context(engines.start(run_opts, len(pending), numba=False, small=small))
                workers = engine.workers
                done = engine.map(import_task, pending, ordered=True)
            total = sum(u.hands for t in pending for u in t.units)
            bar = stack.enter_context(progress(total, "import", "hand", run_opts.quiet, run_opts.verbose))
            for i in range(len(work)):
                if i not in finished:
                    task, counts = next(done)
                    assert task.index == i, (task.index, i)  # an ordered map: the tasks in order
                    bar.update(sum(counts))
                hands, bad = (staged.read_part(staging.path(staged.part_name(i, k))) for k in KINDS)
                if hands.num_rows:
                    writer.write(hands)
                    ids.extend(_int64s(chunk) for chunk in hands.column("hand_id").chunks)
                if bad.num_rows:
                    err_writer.write(bad)
                    reasons.update(bad.column("reason").to_pylist())
                read += hands.num_rows + bad.num_rows
                imported += hands.num_rows
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
    staging.finish()
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
        "engine": run_opts.engine,
        "workers": workers,
        "parts": len(work),
        "parts_reused": len(finished),
        "seconds": round(seconds, 3),
        "hands_per_second": round(read / seconds) if seconds > 0 else None,
    }
