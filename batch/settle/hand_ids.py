"""Hand ids that repeat across a run's inputs: counted, so that a name no longer names one hand is said.

A hand is named by its ``hand_id`` in the results, the errors and the report. Logs written a file a
day often number each day's hands from 0: the ids then repeat across files, and a hand the report
names could be any of them. The run reads the inputs' ``hand_id`` columns once (one column, a few
milliseconds a million rows when the ids rise through the files, a sort when they do not) and
counts the ids seen more than once; null ids are not counted.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from cardbatch.batch.io import storage

EXAMPLES = 5  # repeated ids named in the summary and the warning


def repeated(paths: list[str]) -> dict[str, Any]:
    """``{"ids": ids seen more than once, "rows": rows holding one of them, "examples": a few}``
    over the ``hand_id`` columns of ``paths`` (files without one are skipped)."""
    columns: list[pa.ChunkedArray] = []
    for path in paths:
        pf = storage.parquet_file(path)
        if "hand_id" in pf.schema_arrow.names:
            columns.append(pf.read(columns=["hand_id"]).column(0))
    if not columns:
        return {"ids": 0, "rows": 0, "examples": []}
    ids = pa.chunked_array([c for col in columns for c in col.chunks], columns[0].type) if _one_type(columns) else None
    if ids is None or not pa.types.is_integer(ids.type):  # text ids, or types that differ between files
        return _by_counts(pa.concat_arrays([c.cast(pa.string()) for col in columns for c in col.chunks]))
    values = ids.drop_null().to_numpy().astype(np.int64, copy=False)
    if values.size < 2 or bool(np.all(values[1:] > values[:-1])):  # rising: none can repeat
        return {"ids": 0, "rows": 0, "examples": []}
    values = np.sort(values)
    same = values[1:] == values[:-1]
    if not same.any():
        return {"ids": 0, "rows": 0, "examples": []}
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
