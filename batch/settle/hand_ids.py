"""Hand ids that repeat across a run's inputs: counted, so that a name no longer names one hand is said.

A hand is named by its ``hand_id`` in the results, the errors and the report. Logs written a file a
day often number each day's hands from 0: the ids then repeat across files, and a hand the report
names could be any of them. Each part notes the span of its ids as it settles them (:func:`span`:
the least, the greatest, and whether they rise); when every part's ids rise and no two spans meet
(:func:`apart`), no id can repeat and nothing more is read. Otherwise the run reads the inputs'
``hand_id`` columns once more (:func:`repeated`: one column, a sort) and counts the ids seen more
than once; null ids are not counted.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from cardbatch.batch.io import storage
from cardbatch.batch.io.arrays import numpy_of

EXAMPLES = 5  # repeated ids named in the summary and the warning
NONE: dict[str, Any] = {"ids": 0, "rows": 0, "examples": []}


def span(tables: list[pa.Table]) -> list[int] | None:
    """``[least, greatest, rising]`` of the integer ``hand_id``s of ``tables`` (a part's, in its
    order; ``rising`` 1 when each id is above the one before), ``[]`` for none, or None when that
    cannot be told cheaply (no such column, or ids that are not integers)."""
    chunks: list[pa.Array] = []
    for t in tables:
        if "hand_id" not in t.column_names or not pa.types.is_integer(t.schema.field("hand_id").type):
            return None
        chunks.extend(c for c in t.column("hand_id").chunks if len(c) > c.null_count)
    if not chunks:
        return []
    values = np.concatenate([numpy_of(c.drop_null()) for c in chunks])
    rising = bool(np.all(values[1:] > values[:-1]))
    return [int(values.min()), int(values.max()), int(rising)]


def apart(spans: list[list[int] | None]) -> bool:
    """Whether the parts' spans (:func:`span`) prove that no id repeats: each part's ids rise and
    no two parts' ranges meet."""
    if any(s is None or (s and not s[2]) for s in spans):
        return False
    ranges = sorted((s[0], s[1]) for s in spans if s)
    return all(a[1] < b[0] for a, b in zip(ranges, ranges[1:]))


def repeated(paths: list[str]) -> dict[str, Any]:
    """``{"ids": ids seen more than once, "rows": rows holding one of them, "examples": a few}``
    over the ``hand_id`` columns of ``paths`` (files without one are skipped)."""
    columns: list[pa.ChunkedArray] = []
    for path in paths:
        pf = storage.parquet_file(path)
        if "hand_id" in pf.schema_arrow.names:
            columns.append(pf.read(columns=["hand_id"]).column(0))
    return repeated_in(columns)


def repeated_in(columns: list[pa.ChunkedArray]) -> dict[str, Any]:
    """:func:`repeated` over ``hand_id`` columns already read (a table's)."""
    if not columns:
        return dict(NONE)
    ids = pa.chunked_array([c for col in columns for c in col.chunks], columns[0].type) if _one_type(columns) else None
    if ids is None or not pa.types.is_integer(ids.type):  # text ids, or types that differ between files
        return _by_counts(pa.concat_arrays([c.cast(pa.string()) for col in columns for c in col.chunks]))
    values = numpy_of(ids.drop_null())  # in the column's own type: a uint64 beyond int64 stays itself
    if values.size < 2 or bool(np.all(values[1:] > values[:-1])):  # rising: none can repeat
        return dict(NONE)
    values = np.sort(values)
    same = values[1:] == values[:-1]
    if not same.any():
        return dict(NONE)
    first = same & np.concatenate(([True], ~same[:-1]))  # where a run of one id starts repeating
    starts = np.flatnonzero(first)
    rows = int(same.sum()) + int(starts.size)
    return {"ids": int(starts.size), "rows": rows, "examples": [int(v) for v in values[starts[:EXAMPLES]]]}


def _one_type(columns: list[pa.ChunkedArray]) -> bool:
    return all(c.type == columns[0].type for c in columns)


def _by_counts(ids: pa.Array) -> dict[str, Any]:
    counts = pc.value_counts(ids.drop_null())
    many = pc.greater(counts.field("counts"), 1)
    values = pc.filter(counts.field("values"), many)
    rows = int(pc.sum(pc.filter(counts.field("counts"), many)).as_py() or 0)
    return {"ids": len(values), "rows": rows, "examples": values.to_pylist()[:EXAMPLES]}


def warning(found: dict[str, Any]) -> str | None:
    """The line a run prints when ids repeat, or None."""
    if not found.get("ids"):
        return None
    shown = ", ".join(str(v) for v in found["examples"])
    return (
        f"{found['ids']:,} hand_id(s) appear more than once across the inputs ({found['rows']:,} rows; e.g. "
        f"{shown}): a hand named by its id in the results, errors and report may be any of them; give each "
        "file its own ids (cardbatch generate --start-id), or tell them apart by the report's input file"
    )
