"""Arrow arrays from Python lists, built from numpy buffers instead of ``pa.array``.

``pa.array`` imports pandas the first time it runs (pyarrow checks every
argument for pandas types), a third of a second: a one-hand-per-file
``cardbatch import`` of 10,000 hands takes about two seconds in all, so the
import builds its columns here. The values go to numpy once per column
(lists flattened with their offsets, strings joined with theirs, a null as
a cleared validity bit) and become Arrow buffers without a copy.

Types: integers, booleans, strings, (fixed-size) lists of those, lists of
such lists, and dictionaries of strings; a cell may be None (null) unless the
type is a fixed-size list. Elements inside a list are never null here.
"""

from __future__ import annotations

from itertools import chain
from typing import Any

import numpy as np
import pyarrow as pa


def _validity(values: list[Any]) -> tuple[pa.Buffer | None, int]:
    """The validity bitmap of ``values`` (None where every cell is valid) and the null count."""
    nulls = [v is None for v in values]
    count = sum(nulls)
    if not count:
        return None, 0
    bits = np.packbits(~np.array(nulls, dtype=bool), bitorder="little")
    return pa.py_buffer(bits), count


def _offsets(lengths: list[int]) -> pa.Buffer:
    offsets = np.zeros(len(lengths) + 1, dtype=np.int32)
    np.cumsum(lengths, out=offsets[1:])
    return pa.py_buffer(offsets)


def _strings(values: list[Any], validity: pa.Buffer | None, nulls: int) -> pa.Array:
    """A string column; a None cell (cleared in ``validity``) takes no bytes."""
    encoded = [b"" if v is None else v.encode() for v in values]
    buffers = [validity, _offsets([len(b) for b in encoded]), pa.py_buffer(b"".join(encoded))]
    return pa.Array.from_buffers(pa.string(), len(values), buffers, null_count=nulls)


def _flat(values: list[Any], kind: pa.DataType) -> pa.Array:
    """A column without nulls of a primitive or string type."""
    n = len(values)
    if pa.types.is_string(kind):
        return _strings(values, None, 0)
    if pa.types.is_boolean(kind):
        bits = np.packbits(np.array(values, dtype=bool), bitorder="little")
        return pa.Array.from_buffers(kind, n, [None, pa.py_buffer(bits)])
    return pa.Array.from_buffers(kind, n, [None, pa.py_buffer(np.array(values, dtype=kind.to_pandas_dtype()))])


def column(values: list[Any], kind: pa.DataType) -> pa.Array:
    """``values`` (a cell each, None for null) as an Arrow array of type ``kind``; equal to
    ``pa.array(values, kind)``."""
    n = len(values)
    if pa.types.is_dictionary(kind):
        plain = column(values, kind.value_type)
        return plain.dictionary_encode().cast(kind)
    validity, nulls = _validity(values)
    cells = values if not nulls else [v for v in values if v is not None]
    if pa.types.is_fixed_size_list(kind):
        if nulls:
            raise ValueError("a fixed-size list column with a null cell")
        child = _flat(list(chain.from_iterable(values)), kind.value_type)
        return pa.FixedSizeListArray.from_arrays(child, kind.list_size)
    if pa.types.is_list(kind):
        flat = list(chain.from_iterable(cells))
        child = column(flat, kind.value_type) if pa.types.is_list(kind.value_type) else _flat(flat, kind.value_type)
        lengths = [0 if v is None else len(v) for v in values]
        return pa.Array.from_buffers(kind, n, [validity, _offsets(lengths)], null_count=nulls, children=[child])
    if pa.types.is_string(kind):
        return _strings(values, validity, nulls)
    if not nulls:
        return _flat(values, kind)
    dense = _flat([False if v is None else v for v in values], kind)  # 0 under a null: any value would do
    return pa.Array.from_buffers(kind, n, [validity, dense.buffers()[1]], null_count=nulls)


def table(columns: dict[str, list[Any]], schema: pa.Schema) -> pa.Table:
    """The table of ``schema`` whose columns are ``columns[name]``."""
    return pa.Table.from_arrays([column(columns[f.name], f.type) for f in schema], schema=schema)
