"""The output datasets: one fixed schema per game, partitioned by game, input partition keys kept.

``DIR/results/game=G/part-….parquet`` and ``DIR/errors/game=G/…``: each folder
opens as one dataset in DuckDB, Polars, pandas or pyarrow (hive partitioning),
whatever the types of the inputs, because every part of a game is written in
that game's schema:

- results: :data:`RESULT_SCHEMA`, one for all games (each game's columns
  null in the others' rows; ``recorded_payout``/``mismatch`` null where the
  input recorded nothing);
- errors: ``hand_id`` int64, ``reason``, ``message``, then the original row's
  columns in canonical types (integers as int64, integer lists as
  list<int64>, text as string, …), so parts from inputs of different types
  line up by name (``union_by_name``; the set of columns follows the input).
  The input's ``game`` column becomes ``game_given`` (the partition says the
  game; for rows of an unknown game, ``game=unknown`` and ``game_given`` the
  value found).

A value that does not fit its canonical type (an unsigned 64-bit id or
payout above int64) is written as null, and in ``errors/`` its exact value
goes to ``extra`` as text (``{"hand_id": "18446744073709551615"}``), so a
rejected row's identity is never lost; its row was already set aside or
flagged (``overflow``, ``mismatch``). Hive keys of an input's path
(``…/date=2026-11-01/…``) become string columns of both datasets.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from cardbatch.batch.io.arrays import numpy_of, repeated_text, scalar_of
from cardbatch.batch.io.columns import is_text

_I64 = pa.int64()
_LIST_I64 = pa.list_(pa.int64())
# One schema for every game, so that every part in results/ has the same columns and types and
# any reader opens the folder as one table (pandas and pyarrow take the first file's schema): card
# games fill the hand columns, team games the 2v2 ones, the others are null. score is list<int64>
# for both card games (docs: Formats).
RESULT_SCHEMA = pa.schema(
    [
        ("hand_id", _I64),
        ("score", _LIST_I64),
        ("category", pa.list_(pa.uint8())),
        ("payout", _LIST_I64),
        ("net", _LIST_I64),
        ("rake", _I64),
        ("pots", pa.int16()),
        ("recorded_payout", _LIST_I64),
        ("delta", _LIST_I64),
        ("fee", _LIST_I64),
        ("recorded_delta", _LIST_I64),
        ("mismatch", pa.bool_()),
        ("low", _LIST_I64),  # high/low games: each seat's eight-or-better low (docs: Formats)
    ]
)
# The errors' columns: ours, then every input column of docs/formats.md in one type each. Cards and
# board come as codes or as text: codes go to ``cards``/``board``, text to ``cards_text`` /
# ``board_text`` (one string; a list of strings is joined by spaces). Any other input column goes,
# with its value as JSON, into ``extra`` (so does a column of a known name whose type
# cannot be cast to the schema's). So every part has these columns in these types, and
# every reader (pandas included) opens errors/ as one table.
_LIST_BOOL = pa.list_(pa.bool_())
ERROR_SCHEMA = pa.schema(
    [
        ("hand_id", _I64),
        ("reason", pa.string()),
        ("message", pa.string()),
        ("game_given", pa.string()),
        ("button", _I64),
        ("board", _LIST_I64),
        ("board_text", pa.string()),
        ("cards", _LIST_I64),
        ("cards_text", pa.string()),
        ("contrib", _LIST_I64),
        ("contrib_street", _LIST_I64),
        ("folded", _LIST_BOOL),
        ("payout", _LIST_I64),
        ("player_id", _LIST_I64),
        ("dead", _LIST_I64),
        ("stack", _LIST_I64),
        ("balance", _LIST_I64),
        ("multiplier", _LIST_I64),
        ("afk", _LIST_BOOL),
        ("winner", _I64),
        ("base", _I64),
        ("double", _I64),
        ("fee", _I64),
        ("extra", pa.string()),
    ]
)
_TEXT_TWINS = {"cards": "cards_text", "board": "board_text"}
UNKNOWN_GAME = "unknown"
_HIVE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$")


def hive_keys(path: str) -> tuple[tuple[str, str], ...]:
    """The ``name=value`` folders of a path, outermost first (a later one of the same name wins)."""
    found: dict[str, str] = {}
    for part in str(path).split("?")[0].replace("\\", "/").split("/")[:-1]:
        m = _HIVE.match(part)
        if m and m.group(1).lower() != "game":  # game is our own partition (a game=G folder names the game)
            found[m.group(1)] = m.group(2)
    return tuple(found.items())


def folder_game(path: str) -> str | None:
    """The game a ``game=G`` folder of ``path`` names (the innermost; ``GAME=G`` too), or None."""
    found = None
    for part in str(path).split("?")[0].replace("\\", "/").split("/")[:-1]:
        m = _HIVE.match(part)
        if m and m.group(1).lower() == "game":
            found = m.group(2)
    return found


def with_folder_game(table: pa.Table, path: str) -> pa.Table:
    """``table`` with a ``game`` column from a ``game=G`` folder of its ``path`` when it has none of
    its own, or its null cells filled from it: a folder that names the game names it for every row
    whose cell does not (docs: Formats, the games)."""
    game = folder_game(path)
    if game is None:
        return table
    if "game" in table.column_names:  # a null cell takes the folder's game (docs: column, then folder)
        return fill_game(table, game)
    return table.append_column("game", repeated_text(game, table.num_rows, dictionary=True))


def fill_game(table: pa.Table, game: str) -> pa.Table:
    """``table`` with the null cells of its ``game`` column set to ``game`` (a table without nulls
    there is returned as it is)."""
    games = table.column("game")
    if not games.null_count:
        return table
    if pa.types.is_dictionary(games.type):
        games = games.cast(games.type.value_type)
    if pa.types.is_null(games.type):
        games = games.cast(pa.string())
    filled = pc.fill_null(games, pa.scalar(game, games.type))
    return table.set_column(table.schema.get_field_index("game"), "game", filled)


def _fits_int64(arr: pa.Array) -> pa.Array:
    """Integers as int64; unsigned values above int64's range become null."""
    if pa.types.is_uint64(arr.type):
        arr = pc.if_else(pc.greater(arr, pa.scalar(2**63 - 1, pa.uint64())), pa.scalar(None, arr.type), arr)
    return arr.cast(_I64)


def _canonical_array(arr: pa.Array) -> pa.Array:
    t = arr.type
    if pa.types.is_dictionary(t):
        return _canonical_array(arr.dictionary_decode())
    if pa.types.is_integer(t):
        return _fits_int64(arr)
    if pa.types.is_floating(t):
        return arr.cast(pa.float64())
    if pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t):
        return arr.cast(pa.string())
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        child = t.value_type
        target = _I64 if pa.types.is_integer(child) else pa.string() if is_text(child) else child
        try:
            return arr.cast(pa.list_(target))
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):  # a value above int64, or a dictionary
            lists = arr.cast(pa.list_(child))
            lengths = numpy_of(pc.fill_null(pc.list_value_length(lists), scalar_of(0, pa.int32())))
            offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
            return pa.ListArray.from_arrays(pa.array(offsets), _canonical_array(lists.flatten()), mask=lists.is_null())
    return arr


def canonical(col: pa.ChunkedArray | pa.Array) -> pa.Array:
    """A column in its canonical type (see the module docstring); one already in it is itself (a
    settled batch's columns are: no copy of every row on the way to the writer)."""
    if isinstance(col, pa.ChunkedArray):
        col = col.chunk(0) if col.num_chunks == 1 else col.combine_chunks()
    if col.type == _I64 or col.type == _LIST_I64:
        return col
    return _canonical_array(col)


def _with_keys(table: pa.Table, keys: tuple[tuple[str, str], ...]) -> pa.Table:
    for name, value in keys:
        column = repeated_text(value, table.num_rows)
        if name in table.column_names:  # the input had a column of the key's name: the path wins
            table = table.set_column(table.column_names.index(name), name, column)
        else:
            table = table.append_column(name, column)
    return table


def result_schema(extra: tuple[tuple[str, pa.DataType], ...] = ()) -> pa.Schema:
    """:data:`RESULT_SCHEMA`, with the columns the run's analyses add (``extra``, after ``low``):
    every part of a run has the same columns, whichever its game."""
    if not extra:
        return RESULT_SCHEMA
    return pa.schema([*RESULT_SCHEMA, *(pa.field(n, t) for n, t in extra)])


def conform_results(
    table: pa.Table, keys: tuple[tuple[str, str], ...] = (), extra: tuple[tuple[str, pa.DataType], ...] = ()
) -> pa.Table:
    """``table`` in :func:`result_schema` (the columns of other games null), then the key columns."""
    schema = result_schema(extra)
    columns = []
    for field in schema:
        if field.name in table.column_names:
            col = canonical(table.column(field.name)) if field.type in (_I64, _LIST_I64) else table.column(field.name)
            columns.append(col.cast(field.type))
        else:
            columns.append(pa.nulls(table.num_rows, field.type))
    return _with_keys(pa.Table.from_arrays(columns, schema=schema), keys)


def _as_text(col: pa.Array) -> pa.Array:
    """Card text as one string per row (a list of strings joined by spaces)."""
    t = col.type
    if pa.types.is_dictionary(t):
        return _as_text(col.dictionary_decode())
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        return pc.binary_join(col.cast(pa.list_(pa.string())), scalar_of(" ", pa.string()))
    return col.cast(pa.string())


# Columns the errors table makes itself: an input column of one of these names is the user's, and
# goes to ``extra`` under its own name (``reason`` and ``message`` arrive marked: rejects.INPUT_MARK).
MADE_HERE = ("reason", "message", "game_given", "board_text", "cards_text", "extra")
_INPUT_MARK = "__cardbatch_input:"


def conform_errors(table: pa.Table, keys: tuple[tuple[str, str], ...] = ()) -> pa.Table:
    """Rejected rows in :data:`ERROR_SCHEMA` (see there), then the key columns."""
    n = table.num_rows
    slots: dict[str, str] = {}  # a column of the schema -> the column of ``table`` it comes from
    theirs = []  # input columns named like ours: to extra, whatever their type
    for name in table.column_names:
        if name.startswith(_INPUT_MARK) or (name in MADE_HERE and name not in ("reason", "message")):
            theirs.append(name)
        else:
            slots["game_given" if name == "game" else name] = name
    given = {k: canonical(table.column(v)) for k, v in slots.items()}
    # a value beyond int64 (an unsigned 64-bit hand_id, say) is null in its column: its exact value
    # goes to extra as text, so the row's identity is never lost
    lost = [k for k in given if _nulls(given[k]) > _nulls(table.column(slots[k]))]
    for name, twin in _TEXT_TWINS.items():  # text cards to their own column
        if name in given and _is_text_column(given[name].type):
            given[twin] = _as_text(given.pop(name))
            slots[twin] = slots.pop(name)
            lost = [twin if k == name else k for k in lost]
    cast = {}
    for field in ERROR_SCHEMA:
        if field.name in given and field.name != "extra":
            try:
                cast[field.name] = given[field.name].cast(field.type)
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                pass  # a known name with another type: its values go to extra, not lost
    extra = [slots[k] for k in given if k not in cast or k in lost] + theirs
    columns = []
    for field in ERROR_SCHEMA:
        if field.name == "extra":
            columns.append(_extra_json(table, extra, n))
        else:
            columns.append(cast.get(field.name, pa.nulls(n, field.type)))
    return _with_keys(pa.Table.from_arrays(columns, schema=ERROR_SCHEMA), keys)


def _is_text_column(t: pa.DataType) -> bool:
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        t = t.value_type
    return is_text(t)


def _nulls(col: pa.Array | pa.ChunkedArray) -> int:
    """Null values of a column, and of its lists' elements."""
    t = col.type
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        return int(col.null_count + pc.list_flatten(col).null_count)
    return int(col.null_count)


def _exact(value: Any) -> Any:
    """Integers beyond int64 as text (JSON readers that take numbers as doubles would round them)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and not -(2**63) <= value < 2**63:
        return str(value)
    if isinstance(value, list):
        return [_exact(v) for v in value]
    return value


def _extra_json(table: pa.Table, names: list[str], n: int) -> pa.Array:
    """The input's columns the schema does not name (or whose values it cannot hold), as one JSON
    object per row (rejected rows only: few, so a Python round trip is fine here)."""
    if not names:
        return pa.nulls(n, pa.string())
    import json

    rows = table.select(names).to_pylist()
    shown = {k: ("game_given" if k == "game" else k.removeprefix(_INPUT_MARK)) for k in names}
    return pa.array([json.dumps({shown[k]: _exact(v) for k, v in r.items()}, default=str) for r in rows], pa.string())


def part_path(out: str, kind: str, game: str, name: str) -> str:
    """Where a unit's part of one game goes: ``out/kind/game=G/name.parquet`` (a path or a URI)."""
    from cardbatch.batch.io.storage import join

    return join(out, kind, f"game={game}", f"{name}.parquet")
