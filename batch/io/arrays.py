"""Arrow arrays to numpy and back through their buffers, without pyarrow's pandas bridge.

``Array.to_numpy`` and ``pa.array`` both import pandas the first time they
run (pyarrow's conversion code checks for pandas types): about 0.11 s of a
command that settles 100,000 hands in 0.7 s, paid by every process that
converts one column. These two cover what the settle path converts (numbers
and booleans, with or without nulls) and hand anything else to pyarrow.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa


def numpy_of(arr: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """``arr`` as numpy, as ``arr.to_numpy(zero_copy_only=False)`` gives it: a view of a column of
    numbers without nulls, a copy of booleans; a column with nulls (or of another type) goes
    through pyarrow."""
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.chunk(0) if arr.num_chunks == 1 else arr.combine_chunks()
    t = arr.type
    if arr.null_count == 0 and (pa.types.is_integer(t) or pa.types.is_floating(t)):
        data = arr.buffers()[1]
        if data is None:  # no rows
            return np.empty(0, t.to_pandas_dtype())
        return np.frombuffer(data, t.to_pandas_dtype(), len(arr), arr.offset * t.bit_width // 8)
    if arr.null_count == 0 and pa.types.is_boolean(t):
        data = arr.buffers()[1]
        if data is None:
            return np.empty(0, np.bool_)
        bits = np.frombuffer(data, np.uint8)
        first = arr.offset
        out = np.unpackbits(bits[first // 8 : (first + len(arr) + 7) // 8 + 1], bitorder="little")
        return out[first % 8 : first % 8 + len(arr)].astype(np.bool_)
    values: np.ndarray = arr.to_numpy(zero_copy_only=False)
    return values


_TYPES = {
    np.dtype(t.to_pandas_dtype()): t
    for t in (
        pa.int8(),
        pa.int16(),
        pa.int32(),
        pa.int64(),
        pa.uint8(),
        pa.uint16(),
        pa.uint32(),
        pa.uint64(),
        pa.float32(),
        pa.float64(),
    )
}


def _validity(mask: np.ndarray | None) -> tuple[pa.Buffer | None, int]:
    """A validity bitmap from a numpy mask (True: null), and the null count."""
    if mask is None:
        return None, 0
    nulls = int(np.count_nonzero(mask))
    if not nulls:
        return None, 0
    return pa.py_buffer(np.packbits(~np.asarray(mask, np.bool_), bitorder="little")), nulls


def arrow_of(values: Any, type: pa.DataType | None = None, mask: np.ndarray | None = None) -> pa.Array:
    """A numpy array of numbers or booleans as an Arrow array (``pa.array(values, type, mask=mask)``):
    numbers without a copy when ``type`` is theirs; ``mask``: True where the value is null."""
    values = np.asarray(values)
    if values.dtype == np.bool_:
        if type is not None and type != pa.bool_():
            return pa.array(values, type, mask=mask)
        validity, nulls = _validity(mask)
        data = pa.py_buffer(np.packbits(values, bitorder="little"))
        return pa.Array.from_buffers(pa.bool_(), len(values), [validity, data], null_count=nulls)
    own = _TYPES.get(values.dtype)
    if own is None or values.ndim != 1:
        return pa.array(values, type, mask=mask)
    if type is not None and type != own:  # a cast, checked as pyarrow checks it
        return pa.array(values, type, mask=mask)
    values = np.ascontiguousarray(values)
    validity, nulls = _validity(mask)
    return pa.Array.from_buffers(own, len(values), [validity, pa.py_buffer(values)], null_count=nulls)


def scalar_of(value: str | int | bool, type: pa.DataType) -> pa.Scalar:
    """``pa.scalar(value, type)`` for a string, number or boolean (``fill_null``'s value), built as
    a one-row array: ``pa.scalar`` imports pandas too."""
    if pa.types.is_string(type) or pa.types.is_large_string(type):
        from cardbatch.batch.io.pycolumns import column

        return column([value], pa.string()).cast(type)[0]
    if pa.types.is_boolean(type):
        return arrow_of(np.array([value], np.bool_))[0]
    if type in _TYPES.values():
        return arrow_of(np.array([value], type.to_pandas_dtype()))[0]
    return pa.scalar(value, type)


def repeated_text(value: str, n: int, dictionary: bool = False) -> pa.Array:
    """``value`` ``n`` times as a string column (``dictionary``: dictionary-encoded), without a Python
    list of ``n`` strings (and without ``pa.array``, which imports pandas)."""
    from cardbatch.batch.io.pycolumns import column

    one = pa.DictionaryArray.from_arrays(arrow_of(np.zeros(n, np.int32)), column([value], pa.string()))
    return one if dictionary else one.cast(pa.string())
