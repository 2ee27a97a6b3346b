"""The groups of ``fairness --by COLUMN``: an input column, or a ``COLUMN=value`` folder of the paths.

A group is named by its value as text (``room=a``). A ``name=value`` folder names the group of every
row below it, as it names the column the results get (the folder wins over a column of the same
name). :func:`check_groups` reads the column once before the run changes its output folder, so a
column of too many values stops the run while the folder's earlier output is still whole.
"""

from __future__ import annotations

import copy
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from cardbatch.batch.io import storage
from cardbatch.batch.io.errors import InputError
from cardbatch.batch.settle.outputs import hive_keys

MAX_VALUES = 1000  # distinct values of a --by column: more is a column of ids, not of groups


def folder_value(by: str | None, hive: tuple[tuple[str, str], ...]) -> str | None:
    """The group a ``by=value`` folder of a unit's paths names, or None (no such folder)."""
    return dict(hive).get(by) if by is not None else None


def group_name(value: Any) -> str:
    """A value's group: its text, a whole float as the integer (pandas writes an integer column with
    nulls as floats: room 1 is one group whether a file holds 1 or 1.0).

    >>> [group_name(v) for v in (1, 1.0, -0.0, 1.5, "1", "a")]
    ['1', '1', '0', '1.5', '1', 'a']
    """
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _values(column: pa.ChunkedArray) -> set[str]:
    """A column's distinct non-null values, as the tallies name them."""
    try:
        found = pc.unique(column).to_pylist()
    except (pa.ArrowNotImplementedError, pa.ArrowInvalid):  # a type unique cannot hash (nested ones)
        found = column.to_pylist()
    return {group_name(v) for v in found if v is not None}


def check_groups(paths: list[str], by: str, parsed: dict[str, pq.FileMetaData] | None = None) -> None:
    """Stop (InputError) when ``by`` has more than :data:`MAX_VALUES` values over all ``paths``:
    from their ``by=value`` folders, else their column (read one row group at a time)."""
    seen: set[str] = set()
    for path in paths:
        value = folder_value(by, hive_keys(path))
        if value is not None:
            seen.add(value)
        else:
            meta = (parsed or {}).get(path)
            pf = storage.parquet_file(path, metadata=meta) if meta is not None else storage.parquet_file(path)
            for g in range(pf.num_row_groups):
                seen |= _values(pf.read_row_group(g, columns=[by]).column(0))
                if len(seen) > MAX_VALUES:
                    break
        if len(seen) > MAX_VALUES:
            raise InputError(
                f"{path}: --by {by}: more than {MAX_VALUES:,} distinct values over the inputs; name a column of "
                "groups (a room, a day), not of ids"
            )


def with_folder_group(counters: dict[str, Any], by: str, value: str) -> dict[str, Any]:
    """A unit's counters with its whole tallies (``all``) also under ``by=value``: every row of a
    unit lies below the same folders (the plan never mixes folders in a unit)."""
    out = dict(counters)
    if "fairness" in out:
        out["fairness"] = _scoped(out["fairness"], by, value)
    if "by_game" in out:
        out["by_game"] = {
            g: ({**c, "fairness": _scoped(c["fairness"], by, value)} if "fairness" in c else c)
            for g, c in out["by_game"].items()
        }
    return out


def _scoped(tallies: dict[str, Any], by: str, value: str) -> dict[str, Any]:
    if "all" not in tallies:
        return tallies
    return {**tallies, f"{by}={value}": copy.deepcopy(tallies["all"])}
