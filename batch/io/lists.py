"""Arrow list columns to padded numpy arrays and back, without Python loops over rows.

Offsets and child values are read as numpy views; sliced arrays keep their
offsets (``ListArray.offsets`` is already sliced; the child is indexed by
those offsets); a fixed-size list's child is sliced from its parent's offset
(``flatten`` would drop null cells' slots and shift every later row). Null
cells and null elements never become data: they read as length 0 and as 0,
and :func:`missing_rows` names the rows that hold them. Booleans are
unpacked once per column.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from cardbatch.batch.io.arrays import arrow_of, numpy_of, scalar_of
from cardbatch.batch.io.errors import InputError, UsageError
from cardbatch.kernels import lists as kernels


def combined(col: pa.Array | pa.ChunkedArray) -> pa.Array:
    """One array of a column."""
    if isinstance(col, pa.ChunkedArray):
        return col.chunk(0) if col.num_chunks == 1 else col.combine_chunks()
    return col


def _plain(arr: pa.Array) -> pa.Array:
    """``arr`` with string views as large strings and list views as large lists, at every level.

    List views are rebuilt by a gather, not cast: pyarrow 26's cast from
    ``list_view`` to ``large_list`` loses elements (``[[1, 2], [3]]`` became
    ``[[1, 2], []]``), a silent wrong this reader must never inherit.
    """
    t = arr.type
    if pa.types.is_string_view(t):
        return arr.cast(pa.large_string())
    if pa.types.is_binary_view(t):
        return arr.cast(pa.large_binary())
    if pa.types.is_dictionary(t):  # Polars' categoricals: a dictionary of string views
        return pa.DictionaryArray.from_arrays(arr.indices, _plain(arr.dictionary))
    if pa.types.is_list_view(t) or pa.types.is_large_list_view(t):
        starts = numpy_of(arr.offsets).astype(np.int64)
        lengths = numpy_of(arr.sizes).astype(np.int64)
        if arr.null_count:
            lengths = np.where(numpy_of(arr.is_null()), 0, lengths)
        index, offsets = _gather_index(starts, lengths)
        child = _plain(arr.values).take(pa.array(index))
        mask = arr.is_null() if arr.null_count else None
        return pa.LargeListArray.from_arrays(pa.array(offsets), child, mask=mask)
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        inner = _plain(arr.values)
        if inner is arr.values:
            return arr
        mask = arr.is_null() if arr.null_count else None
        if pa.types.is_fixed_size_list(t):  # its child from the parent's offset, as _layout reads it
            size = t.list_size
            return pa.FixedSizeListArray.from_arrays(inner.slice(arr.offset * size, len(arr) * size), size, mask=mask)
        return type(arr).from_arrays(arr.offsets, inner, mask=mask)
    return arr


def _has_view(t: pa.DataType) -> bool:
    if pa.types.is_string_view(t) or pa.types.is_binary_view(t) or pa.types.is_list_view(t):
        return True
    if pa.types.is_large_list_view(t):
        return True
    if pa.types.is_dictionary(t):
        return _has_view(t.value_type)
    return (pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t)) and _has_view(
        t.value_type
    )


def without_views(table: pa.Table) -> pa.Table:
    """``table`` with view layouts (``string_view``, ``list_view``) read into plain ones, which every
    reader here and Arrow's own kernels (``take``) handle."""
    for i, field in enumerate(table.schema):
        if _has_view(field.type):
            column = pa.chunked_array([_plain(c) for c in table.column(i).chunks])
            table = table.set_column(i, field.name, column)
    return table


def _layout(col: pa.Array | pa.ChunkedArray) -> tuple[pa.Array, np.ndarray, np.ndarray, np.ndarray | None]:
    """``(child, starts, lengths, null_cells)`` of a (large/fixed-size) list column.

    ``child`` covers exactly the rows' elements (a fixed-size list's child
    from its parent's offset, null cells' slots included, so every row stays
    at ``row * width``); null cells get length 0; ``null_cells`` is None when
    there are none.
    """
    arr = combined(col)
    n = len(arr)
    if pa.types.is_fixed_size_list(arr.type):
        width = arr.type.list_size
        child = arr.values.slice(arr.offset * width, n * width)
        starts = np.arange(n, dtype=np.int64) * width
        lengths = np.full(n, width, dtype=np.int64)
    elif pa.types.is_list(arr.type) or pa.types.is_large_list(arr.type):
        offsets = numpy_of(arr.offsets).astype(np.int64)
        lo, hi = int(offsets[0]), int(offsets[-1])
        child = arr.values.slice(lo, hi - lo)
        starts = offsets[:-1] - lo
        lengths = np.diff(offsets)
    else:
        raise TypeError(f"expected a list column, got {arr.type}")
    null_cells = None
    if arr.null_count:
        null_cells = numpy_of(arr.is_null())
        lengths = np.where(null_cells, 0, lengths)
    return child, starts, lengths, null_cells


def list_layout(col: pa.Array | pa.ChunkedArray) -> tuple[pa.Array, np.ndarray, np.ndarray]:
    """``(child, starts, lengths)`` of a (large/fixed-size) list column, the child still an Arrow array
    (for lists of strings, which :func:`list_parts` would turn into Python objects); null cells have
    length 0."""
    child, starts, lengths, _ = _layout(col)
    return child, starts, lengths


def _filled(child: pa.Array) -> np.ndarray:
    """A child's values as numpy, null elements as 0 / False / "" (rows holding them are flagged by
    :func:`missing_rows`): never NaN, never a float for an integer column."""
    if child.null_count:
        t = child.type
        zero = "" if pa.types.is_string(t) or pa.types.is_large_string(t) else (False if pa.types.is_boolean(t) else 0)
        child = pc.fill_null(child, scalar_of(zero, t))
    values: np.ndarray = numpy_of(child)
    return values


def list_parts(col: pa.Array | pa.ChunkedArray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(values, starts, lengths)`` of a (large/fixed-size) list column; null cells have length 0
    and null elements read as 0 (see :func:`missing_rows` for which rows hold either)."""
    child, starts, lengths, _ = _layout(col)
    return _filled(child), starts, lengths


_MAX64 = np.iinfo(np.int64).max


def _as_int64(values: np.ndarray, name: str) -> tuple[np.ndarray, np.ndarray]:
    """``values`` as int64 by value, and a mask of those that do not fit (for an ``overflow`` row).

    Any integer width is read by value. Floats are accepted when every value
    is a whole number (a Parquet writer's float64 for chips); a fractional or
    non-finite one stops the run, as do strings: neither is ever truncated.
    """
    kind = values.dtype.kind
    if kind == "i":
        return values.astype(np.int64, copy=False), np.zeros(values.shape, np.bool_)
    if kind == "u":
        big = values > _MAX64
        return np.where(big, 0, values).astype(np.int64), big
    if kind == "b":
        raise InputError(f"column {name} holds booleans where integers belong")
    if kind == "f":
        with np.errstate(invalid="ignore"):
            whole = np.isfinite(values) & (values == np.floor(values))
        if not whole.all():
            raise InputError(f"column {name} holds fractional or non-finite numbers: chips are never truncated")
        big = np.abs(values) >= 2.0**63
        return np.where(big, 0, values).astype(np.int64), big
    raise InputError(f"column {name} must hold integers, got {values.dtype}")


def _rows_with(flags: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """``bool[T]``: rows holding at least one flagged element (a prefix count, no loop over rows)."""
    if not flags.any():
        return np.zeros(len(lengths), np.bool_)
    before = np.zeros(len(flags) + 1, np.int64)
    np.cumsum(flags, out=before[1:])
    differs: np.ndarray = before[starts + lengths] > before[starts]
    return differs


def int_list_parts(col: pa.Array | pa.ChunkedArray, name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(values int64, starts, lengths, out_of_range bool[T])`` of an integer list column."""
    values, starts, lengths = list_parts(col)
    ints, big = _as_int64(values, name)
    return ints, starts, lengths, _rows_with(big, starts, lengths)


def int_column(col: pa.Array | pa.ChunkedArray, name: str, fill: int) -> tuple[np.ndarray, np.ndarray]:
    """``(values int64, out_of_range bool[T])`` of a scalar integer column, nulls as ``fill``."""
    arr = combined(col)
    nulls = numpy_of(arr.is_null()) if arr.null_count else None
    if nulls is not None:
        arr = pc.fill_null(arr, scalar_of(0, arr.type))
    values, big = _as_int64(numpy_of(arr), name)
    if nulls is not None:
        values = np.where(nulls, fill, values)
    return values, big


def _gather_index(starts: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Indices of the elements of rows at ``starts`` with ``lengths``, in row order, and the offsets
    of those rows packed one after another."""
    offsets = np.zeros(len(lengths) + 1, np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return np.repeat(starts - offsets[:-1], lengths) + np.arange(offsets[-1], dtype=np.int64), offsets


def elements_of(starts: np.ndarray, lengths: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Indices into a list column's values of every element of ``rows``, however wide the rows."""
    return _gather_index(starts[rows], lengths[rows])[0]


def exact_sum(values: np.ndarray) -> int:
    """The exact sum of int64 ``values`` as a Python int, however many (no wrap-around)."""
    v = np.ascontiguousarray(values, dtype=np.int64).reshape(-1)
    if v.size == 0:
        return 0
    high, low = kernels.exact_halves(v)  # each half sums far below 2**63 for any batch that fits in memory
    return (int(high) << 32) + int(low)


def sums_overflow(values: np.ndarray) -> np.ndarray:
    """``bool[T]``: rows of a non-negative ``int64[T, ...]`` whose sum does not fit int64."""
    per_row = int(np.prod(values.shape[1:])) if values.ndim > 1 else 1
    if len(values) == 0 or per_row == 0:
        return np.zeros(len(values), np.bool_)
    flat = values.reshape(len(values), per_row)
    suspect = np.flatnonzero(flat.max(axis=1, initial=0) > _MAX64 // max(per_row, 1))
    out = np.zeros(len(values), np.bool_)
    for t in suspect:  # rare: rows with a value near int64's limit, summed exactly
        out[t] = sum(int(x) for x in flat[t] if x > 0) > _MAX64
    return out


def missing_rows(col: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """``bool[T]``: the cell is null or, for a list column, holds a null element."""
    arr = combined(col)
    if not (pa.types.is_list(arr.type) or pa.types.is_large_list(arr.type) or pa.types.is_fixed_size_list(arr.type)):
        return numpy_of(arr.is_null()) if arr.null_count else np.zeros(len(arr), np.bool_)
    return _missing(*_layout(arr))


def _missing(child: pa.Array, starts: np.ndarray, lengths: np.ndarray, null_cells: np.ndarray | None) -> np.ndarray:
    missing = np.zeros(len(lengths), np.bool_) if null_cells is None else null_cells.copy()
    if child.null_count:
        missing |= _rows_with(numpy_of(child.is_null()), starts, lengths)
    return missing


def frozen(a: np.ndarray, dtype: Any = None) -> np.ndarray:
    """A contiguous, read-only view (a copy only where the layout or dtype needs one), bool as uint8.

    numba compiles one version of a kernel per argument type, and read-only
    is part of the type: Arrow's buffers arrive read-only, numpy's arrays
    writable. Passing every input read-only, and bytes as uint8, leaves one
    version per kernel and width, which the run compiles ahead of its
    workers (:mod:`cardbatch.batch.settle.warmup`).
    """
    a = np.ascontiguousarray(a, dtype=dtype)
    if a.dtype == np.bool_:
        a = a.view(np.uint8)
    if a.flags.writeable:
        a = a.view()
        a.flags.writeable = False
    return a


def _bytes_as_uint8(out: np.ndarray) -> np.ndarray:
    return out.view(np.uint8) if out.dtype == np.bool_ else out


def scatter(
    values: np.ndarray,
    starts: np.ndarray,
    lengths: np.ndarray,
    width: int,
    fill: Any,
    dtype: Any = None,
    row_width: np.ndarray | None = None,
) -> np.ndarray:
    """Rows of a flattened list into ``[T, width]`` padded with ``fill``.

    Elements beyond ``width`` are dropped (the caller flags those rows). With
    ``row_width`` (seats per row S_t), element p of row t goes to
    ``[t, p // S_t, p % S_t]`` of a ``[T, width, max S_t]`` array: streets.
    """
    T = len(lengths)
    dtype = dtype or values.dtype
    vals = frozen(values, dtype)
    starts = frozen(starts, np.int64)
    lengths = frozen(lengths, np.int64)
    if row_width is None:
        out = np.full((T, width), fill, dtype=dtype)
        kernels.scatter_rows(vals, starts, lengths, _bytes_as_uint8(out))
        return out
    seats = int(row_width.max()) if T else 0
    out = np.full((T, width, max(seats, 1)), fill, dtype=dtype)
    kernels.scatter_streets(vals, starts, lengths, frozen(row_width, np.int64), _bytes_as_uint8(out))
    return out


def scatter_chips(
    values: np.ndarray, starts: np.ndarray, lengths: np.ndarray, row_width: np.ndarray, streets: int, seats: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Chips per street and seat, as :func:`scatter` with ``row_width`` places them in a
    ``int64[T, streets, seats]`` (0 beyond a row's), with in the same pass each seat's total
    ``[T, seats]`` and ``bool[T]``: rows whose sum does not fit int64 (:func:`sums_overflow`: their
    totals are then not to be read)."""
    T = len(lengths)
    out = np.empty((T, streets, seats), np.int64)
    total = np.empty((T, seats), np.int64)
    suspect = np.empty(T, np.bool_)
    limit = _MAX64 // max(streets * seats, 1)
    vals, rw = frozen(values, np.int64), frozen(row_width, np.int64)
    kernels.chips_by_street(vals, frozen(starts, np.int64), frozen(lengths, np.int64), rw, limit, out, total, suspect)
    overflow = np.zeros(T, np.bool_)
    overflow[suspect] = sums_overflow(out[suspect])  # rare: a value near int64's limit, summed exactly
    return out, total, overflow


def padded_rows(values: np.ndarray, starts: np.ndarray, lengths: np.ndarray, width: int) -> np.ndarray:
    """``[R, width]``: each row's first ``lengths`` values from ``starts`` (0 beyond), in numpy alone:
    for a few rows (no kernel to compile or load, as :func:`scatter` has)."""
    seat = np.arange(width)[None, :]
    inside = seat < np.asarray(lengths)[:, None]
    idx = np.where(inside, np.asarray(starts)[:, None] + seat, 0)
    return np.where(inside, values[idx] if values.size else 0, 0).astype(values.dtype, copy=False)


def list_offsets(lengths: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
    """``int32`` offsets of a list column holding ``lengths[rows]`` elements per row (all rows if None)."""
    kept = lengths if rows is None else lengths[rows]
    offsets = np.zeros(len(kept) + 1, dtype=np.int64)
    np.cumsum(kept, out=offsets[1:])
    if offsets[-1] > np.iinfo(np.int32).max:
        raise UsageError("a list column of more than 2**31 values: use smaller batches (--batch-rows)")
    return offsets.astype(np.int32)


def _rows_arg(rows: np.ndarray | None) -> tuple[np.ndarray, bool]:
    if rows is None:
        return frozen(np.zeros(0, np.int64)), True
    return frozen(rows, np.int64), False


def gather_flat(values: np.ndarray, offsets: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
    """The first ``offsets[i+1] - offsets[i]`` values of row ``rows[i]`` of ``[T, W]``, concatenated."""
    flat = np.empty(int(offsets[-1]), dtype=values.dtype)
    r, all_rows = _rows_arg(rows)
    kernels.gather_rows(frozen(values), r, all_rows, frozen(offsets, np.int64), _bytes_as_uint8(flat))
    return flat


def differs_from_list(
    values: np.ndarray,
    offsets: np.ndarray,
    col: pa.Array | pa.ChunkedArray,
    rows: np.ndarray | None = None,
    name: str = "payout",
) -> tuple[np.ndarray, np.ndarray]:
    """Per kept row: does list column ``col`` differ (length or any value) from the padded ``values``
    row, and was anything recorded at all (``False`` for a null cell, which is not compared)?

    A recorded row with a null element, or a value beyond int64, differs.
    """
    vals, starts, lengths, recorded, malformed = recorded_list(col, name)
    out = np.empty(len(offsets) - 1, dtype=np.bool_)
    r, all_rows = _rows_arg(rows)
    kernels.rows_differ(
        frozen(values, np.int64),
        r,
        all_rows,
        frozen(offsets, np.int64),
        frozen(vals, np.int64),
        frozen(starts, np.int64),
        frozen(lengths, np.int64),
        _bytes_as_uint8(out),
    )
    if rows is not None:
        malformed, recorded = malformed[rows], recorded[rows]
    return out | malformed, recorded


def recorded_list(
    col: pa.Array | pa.ChunkedArray, name: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(values int64, starts, lengths, recorded, malformed)`` of a recorded integer list column:
    ``recorded`` is False for a null cell (nothing to compare), ``malformed`` True for a row holding a
    null element or a value beyond int64 (it differs from any figure)."""
    child, starts, lengths, null_cells = _layout(col)
    vals, big = _as_int64(_filled(child), name)
    recorded = np.ones(len(lengths), np.bool_) if null_cells is None else ~null_cells
    malformed = (_missing(child, starts, lengths, null_cells) & recorded) | _rows_with(big, starts, lengths)
    return vals, starts, lengths, recorded, malformed


def take_list(col: pa.Array | pa.ChunkedArray, rows: np.ndarray) -> pa.Array:
    """``col.take(rows)`` for a list column, through numpy views (Arrow's take is several times slower)."""
    arr = combined(col)
    if arr.null_count or not pa.types.is_list(arr.type) or pa.types.is_boolean(arr.type.value_type):
        return arr.take(arrow_of(np.asarray(rows, np.int64)))
    vals, starts, lengths = list_parts(arr)
    rows = frozen(rows, np.int64)
    offsets = list_offsets(lengths, rows)
    flat = np.empty(int(offsets[-1]), dtype=vals.dtype)
    kernels.take_elements(
        frozen(vals), frozen(starts, np.int64), rows, frozen(offsets, np.int64), _bytes_as_uint8(flat)
    )
    return list_array(offsets, flat, arr.type.value_type)


def list_array(offsets: np.ndarray, flat: np.ndarray, value_type: pa.DataType | None = None) -> pa.ListArray:
    """A list column from int32 offsets and its flat values, zero-copy where the types allow."""
    child = arrow_of(flat, value_type)
    return pa.ListArray.from_arrays(arrow_of(offsets), child)


def padded_to_list(
    values: np.ndarray, lengths: np.ndarray, value_type: pa.DataType | None = None, rows: np.ndarray | None = None
) -> pa.ListArray:
    """A list column from ``[T, W]`` rows (``rows`` of them, in that order) keeping the first ``lengths[t]``."""
    lengths = np.ascontiguousarray(lengths, dtype=np.int64)
    offsets = list_offsets(lengths, rows)
    if values.dtype == object:
        kept = values if rows is None else values[rows]
        mask = np.arange(values.shape[1])[None, :] < (lengths if rows is None else lengths[rows])[:, None]
        flat = kept[mask]
    else:
        flat = gather_flat(values, offsets, rows)
    return list_array(offsets, flat, value_type)
