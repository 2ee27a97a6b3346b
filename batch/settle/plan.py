"""Inputs to units of work: what each task reads, and the parts it writes.

A :class:`Unit` is what one task settles: consecutive row groups of one file,
several whole small files of one schema in one partition folder, or a slice
of an in-memory table. It writes one *part* per game (``part-F-G``): a unit
whose single row group holds more than ``batch_rows`` rows writes one part
per range of ``batch_rows`` rows (``part-F-G-R``), each finished on its own,
so an interrupted run keeps every finished range. Parts are named by the
files' identity keys, so an unchanged file keeps its parts' names across
reruns. The batch layer knows files and columns; cards and chips are the
kernels'.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
from collections.abc import Callable, Collection

import pyarrow as pa
import pyarrow.parquet as pq

from cardbatch.batch.io import storage
from cardbatch.batch.io.columns import is_text
from cardbatch.batch.io.errors import InputError
from cardbatch.batch.settle.options import SettleOptions
from cardbatch.batch.settle.outputs import folder_game, hive_keys
from cardbatch.games import REGISTRY, infer
from cardbatch.games import game as game_spec


@dataclasses.dataclass(frozen=True)
class Piece:
    """Consecutive row groups of one input file (``rows`` rows in all), or an in-memory ``table``
    (``path`` then only names it in messages)."""

    path: str
    file_index: int
    key: str
    row_groups: tuple[int, ...]
    rows: int
    # the footer the plan parsed, shipped along so a worker does not read and parse it again
    metadata: pq.FileMetaData | None = dataclasses.field(default=None, compare=False, repr=False)
    table: pa.Table | None = dataclasses.field(default=None, compare=False, repr=False)


@dataclasses.dataclass(frozen=True)
class Unit:
    """What one task settles (see the module docstring). ``ranges`` > 1: one row group cut into that
    many parts of ``batch_rows`` rows (the last one shorter), read once, finished one by one."""

    pieces: tuple[Piece, ...]
    hive: tuple[tuple[str, str], ...] = ()  # name=value folders of the paths, written as columns
    ranges: int = 1

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
    def part_names(self) -> tuple[str, ...]:
        """The parts this unit writes, in the order of their rows."""
        if self.ranges == 1:
            return (self.name,)
        return tuple(f"{self.name}-{k:05d}" for k in range(self.ranges))

    @property
    def drill_name(self) -> str:
        """``part-F-G`` by input position: what the crash drills' variable names."""
        first = self.pieces[0]
        return f"part-{first.file_index:05d}-{first.row_groups[0]:05d}"


def infer_game(names: Collection[str], opts: SettleOptions) -> str:
    """The game of a file without a game column: ``--game``, else from its columns
    (:func:`cardbatch.games.infer`: all the 2v2 columns, a board = Hold'em, else ZJH)."""
    if opts.game:
        return opts.game
    return infer(names).name


_LIST_KINDS = (
    pa.types.is_list,
    pa.types.is_large_list,
    pa.types.is_fixed_size_list,
    pa.types.is_list_view,
    pa.types.is_large_list_view,
)
# The columns each game reads, by the type they must have, are its spec's (integer_columns,
# list_columns); any other column is the user's: it goes to errors' extra, whatever its type.
_TEXT_TOO = ("cards", "board")
_FLAGS = ("folded", "afk")  # lists of true/false a seat


def _is_list(t: pa.DataType) -> bool:
    return any(kind(t) for kind in _LIST_KINDS)


def _is_text_or_dictionary(t: pa.DataType) -> bool:
    return is_text(t) or (pa.types.is_dictionary(t) and is_text(t.value_type))


def check_columns(label: str, schema: pa.Schema, game: str, types: bool = True) -> None:
    """Stop on columns ``game`` reads that it cannot read: one missing (``missing_column``), or of
    another type (an integer column that is not integers, a list column that is not a list of
    values; cards and board may be text; not checked unless ``types``). ``label`` names the input
    in the message."""
    at = f"{label}: " if label else ""
    names = set(schema.names)
    spec = game_spec(game)
    team = spec.settles == "balances"
    required = spec.required + (("contrib",) if not team and "contrib_street" not in names else ())
    missing = [c for c in required if c not in names]
    if missing:
        raise InputError(f"{at}missing column(s) {', '.join(missing)} for game {game} (missing_column)")
    if not types:
        return
    for name in spec.integer_columns:
        t = schema.field(name).type if name in names else None
        if t is not None and not (pa.types.is_integer(t) or pa.types.is_null(t)):  # null: every cell null
            raise InputError(f"{at}column {name} must be an integer, got {schema.field(name).type}")
    for name in spec.list_columns:
        if name not in names:
            continue
        t = schema.field(name).type
        if name in _TEXT_TOO and _is_text_or_dictionary(t):
            continue
        if not _is_list(t) or _is_list(t.value_type) or pa.types.is_struct(t.value_type):
            raise InputError(f"{at}column {name} must be a list of values, got {t}")
        if name in _TEXT_TOO and not (pa.types.is_integer(t.value_type) or _is_text_or_dictionary(t.value_type)):
            raise InputError(f"{at}column {name} must hold card codes or card text, got {t}")
        if name in _FLAGS and not (pa.types.is_boolean(t.value_type) or pa.types.is_integer(t.value_type)):
            # text or fractions are never read as flags: "False" is a non-empty string, 0.5 is not 0
            raise InputError(f"{at}column {name} must hold booleans (or integers, 0 for false), got {t}")


def check_schema(
    path: str,
    schema: pa.Schema,
    opts: SettleOptions,
    head: Callable[[list[str]], pa.Table] | None = None,
    types: bool = True,
) -> None:
    """Stop the run on an input this tool cannot read (a clear message naming input and column).
    With a ``game`` column, each game's columns are checked when its rows are settled. ``head``
    gives the input's first rows of the named columns, for a game told from the columns. Without
    ``types``, the columns' names only (an empty frame's types say little: pandas gives null or
    double)."""
    twice = sorted({n for n in schema.names if schema.names.count(n) > 1})
    if twice:
        raise InputError(f"{path}: column(s) {', '.join(twice)} appear more than once (duplicate_column)")
    if not types:
        if "game" not in schema.names and folder_game(path) is None:
            check_columns(path, schema, infer_game(schema.names, opts), types=False)
        return
    for analysis in opts.analyses:
        analysis.check_schema(path, schema)
    if "game" in schema.names:
        t = schema.field("game").type
        if not (_is_text_or_dictionary(t) or pa.types.is_null(t)):
            raise InputError(f"{path}: column game must be text (a game's name), got {t}")
        return
    named = folder_game(path)
    if named is not None:  # a game=G folder names its files' game (another name: unknown_game rows)
        if named in REGISTRY:
            check_columns(path, schema, named)
        return
    game = infer_game(schema.names, opts)
    if opts.game is None and "button" not in schema.names and game_spec(game).button:
        # told from the columns: rows of another game's card count (stud's 7 a seat, dealt without a
        # button) are set aside as game_not_given, button or not; the rest ask for it when read, and
        # when the first rows are the told game's, they ask now, before any output is made
        if head is None or _all_not_told(head, schema, game):
            schema = schema.append(pa.field("button", pa.int64()))
    check_columns(path, schema, game)


HEAD_ROWS = 1024  # the rows that tell whether a file without a button is the told game's


def _all_not_told(head: Callable[[list[str]], pa.Table], schema: pa.Schema, game: str) -> bool:
    """Whether every one of the first rows is another game's card count (set aside when read)."""
    from cardbatch.batch.settle.cardcols import not_told_rows

    spec = game_spec(game)
    wanted = {"cards", "folded", "contrib", "contrib_street", *spec.required}
    return bool(not_told_rows(head([n for n in schema.names if n in wanted]), spec).all())


def _file_head(path: str, meta: pq.FileMetaData) -> Callable[[list[str]], pa.Table]:
    """The first rows of a file's columns, read when asked for; none when the first row group has
    none or cannot be read (the run reads it again, and says what is wrong with it there)."""

    def head(columns: list[str]) -> pa.Table:
        empty = meta.schema.to_arrow_schema().empty_table().select(columns)
        if meta.num_row_groups == 0:
            return empty
        try:
            batches = storage.parquet_file(path).iter_batches(batch_size=HEAD_ROWS, row_groups=[0], columns=columns)
            first = next(batches, None)
        except (OSError, pa.ArrowException):
            return empty
        return empty if first is None else pa.Table.from_batches([first])

    return head


# A cap on a group of small files: with cuts drawn at a file's chance rows / (batch_rows / 2) past
# half a batch, a group reaches it with odds below e**-14 (a cap at 1x batch_rows made every cut
# after a changed file move; no minimum left a third of the parts under 10 % of a batch).
MAX_UNIT_BATCHES = 8


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
    groups; a row group of more than ``batch_rows`` rows is a unit of its own
    that writes a part per ``batch_rows`` rows. Smaller files are grouped:
    consecutive files of the same schema and partition folder go into one
    unit until, past half of ``batch_rows`` rows, a file whose key marks a cut
    (:func:`_cut_after`; about ``batch_rows`` rows a unit) or, rarely, until it
    holds ``MAX_UNIT_BATCHES`` batches. So a changed, added or removed file
    changes its own unit (and the next one or two when a cut moves), not
    every unit after it. A unit is read and settled in batches of
    ``batch_rows`` rows.
    """
    units: list[Unit] = []
    file_rows = []
    group: list[Piece] = []
    group_rows = 0
    group_like: tuple[pa.Schema, tuple[tuple[str, str], ...], str | None] | None = None

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
        check_schema(path, schema, opts, _file_head(path, meta))
        n = meta.num_rows
        file_rows.append(n)
        sizes = [meta.row_group(g).num_rows for g in range(meta.num_row_groups)]
        if not sizes:  # no row group: nothing to read, no part
            continue
        if n < batch_rows:
            like = (schema.remove_metadata(), hive_keys(path), folder_game(path))
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
        units.extend(_file_units(path, fi, key, sizes, batch_rows))
    close_group()
    holds = {name: sorted({p.key for p in u.pieces}) for u in units for name in u.part_names}
    return units, file_rows, holds


def _file_units(path: str, fi: int, key: str, sizes: list[int], batch_rows: int) -> list[Unit]:
    """A big file's units: consecutive row groups up to ``batch_rows`` rows, and each row group
    larger than that alone, cut into ranges."""
    hive = hive_keys(path)
    units: list[Unit] = []
    groups: list[int] = []
    rows = 0

    def close() -> None:
        nonlocal groups, rows
        if groups:
            units.append(Unit((Piece(path, fi, key, tuple(groups), rows),), hive))
        groups, rows = [], 0

    for g, size in enumerate(sizes):
        if size > batch_rows:
            close()
            units.append(Unit((Piece(path, fi, key, (g,), size),), hive, -(-size // batch_rows)))
            continue
        groups.append(g)
        rows += size
        if rows >= batch_rows:
            close()
    close()
    return units


def plan_table(table: pa.Table, label: str, batch_rows: int, opts: SettleOptions) -> list[Unit]:
    """Units over an in-memory table: slices of ``batch_rows`` rows (no copy), named ``label`` in
    messages. The table's schema is checked as a file's would be."""
    if table.num_rows == 0:  # no rows, nothing to settle: the columns it names are checked, not their types
        check_schema(label, table.schema, opts, types=False)
        return []
    check_schema(label, table.schema, opts, lambda columns: table.slice(0, HEAD_ROWS).select(columns))
    return [
        Unit(
            (
                Piece(
                    label,
                    0,
                    "memory",
                    (k,),
                    min(batch_rows, table.num_rows - start),
                    None,
                    table.slice(start, batch_rows),
                ),
            )
        )
        for k, start in enumerate(range(0, table.num_rows, batch_rows))
    ]


def _footer(path: str, footer: bytes | None) -> pq.FileMetaData:
    """A file's Parquet metadata, from its footer's bytes when the caller has read them already."""
    if footer is not None:
        return pq.read_metadata(pa.BufferReader(footer))
    return storage.parquet_file(path).metadata


@functools.lru_cache(maxsize=2)
def footer_of(path: str, key: str) -> pq.FileMetaData:
    """A big file's metadata, parsed once per worker process for all its units (a file of tiny row
    groups has a footer of megabytes: each of its units parsed it again). ``key`` (the file's
    identity) keeps a changed file from reusing an old footer."""
    return storage.parquet_file(path).metadata


def _cut_after(key: str, rows: int, span: int) -> bool:
    """Whether a group of small files may end after this one: drawn from the file's key with chance
    ``rows / span``, so where groups end depends on the files near the cut only (content-defined,
    as rsync and backup tools cut streams; a minimum size keeps the parts from being tiny)."""
    return int(key[:8], 16) < (rows / span) * 0x1_0000_0000
