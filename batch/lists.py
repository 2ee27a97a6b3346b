"""Arrow list columns to padded numpy arrays and back, without Python loops over rows.

Offsets and child values are read as numpy views; sliced arrays keep their
offsets (``ListArray.offsets`` is already sliced; the child is indexed by
those offsets); a fixed-size list's child is taken through ``flatten`` so its
parent's offset is honoured. Booleans are unpacked once per column.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
from numba import njit, prange


def _combine(col) -> pa.Array:
    if isinstance(col, pa.ChunkedArray):
        return col.chunk(0) if col.num_chunks == 1 else col.combine_chunks()
    return col


def list_parts(col) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(values, starts, lengths)`` of a (large/fixed-size) list column; null lists have length 0."""
    arr = _combine(col)
    n = len(arr)
    if pa.types.is_fixed_size_list(arr.type):
        width = arr.type.list_size
        values = arr.flatten()
        vals = values.to_numpy(zero_copy_only=False)
        lengths = np.full(n, width, dtype=np.int64)
        starts = np.arange(n, dtype=np.int64) * width
        if arr.null_count:
            lengths[arr.is_null().to_numpy(zero_copy_only=False)] = 0
        return vals, starts, lengths
    if not (pa.types.is_list(arr.type) or pa.types.is_large_list(arr.type)):
        raise TypeError(f"expected a list column, got {arr.type}")
    offsets = arr.offsets.to_numpy().astype(np.int64)
    lo, hi = int(offsets[0]), int(offsets[-1])
    vals = arr.values.slice(lo, hi - lo).to_numpy(zero_copy_only=False)
    starts = offsets[:-1] - lo
    lengths = np.diff(offsets)
    if arr.null_count:
        lengths = lengths.copy()
        lengths[arr.is_null().to_numpy(zero_copy_only=False)] = 0
    return vals, starts, lengths


@njit(cache=True, parallel=True)
def _scatter_kernel(values, starts, lengths, out):
    T, W = out.shape
    for t in prange(T):
        n = min(lengths[t], W)
        base = starts[t]
        for j in range(n):
            out[t, j] = values[base + j]


@njit(cache=True, parallel=True)
def _scatter_streets_kernel(values, starts, lengths, row_width, out):
    T, K, S = out.shape
    for t in prange(T):
        w = max(row_width[t], 1)
        base = starts[t]
        for p in range(lengths[t]):
            k = p // w
            if k < K and p % w < S:
                out[t, k, p % w] = values[base + p]


@njit(cache=True, parallel=True)
def _gather_kernel(values, rows, all_rows, offsets, flat):
    for i in prange(offsets.shape[0] - 1):
        t = np.int64(i) if all_rows else rows[i]
        base = offsets[i]
        for j in range(offsets[i + 1] - base):
            flat[base + j] = values[t, j]


@njit(cache=True, parallel=True)
def _differs_kernel(values, rows, all_rows, offsets, list_values, starts, lengths, out):
    for i in prange(offsets.shape[0] - 1):
        t = np.int64(i) if all_rows else rows[i]
        n = offsets[i + 1] - offsets[i]
        diff = lengths[t] != n
        if not diff:
            base = starts[t]
            for j in range(n):
                diff |= list_values[base + j] != values[t, j]
        out[i] = diff


def scatter(
    values: np.ndarray,
    starts: np.ndarray,
    lengths: np.ndarray,
    width: int,
    fill,
    dtype=None,
    row_width: np.ndarray | None = None,
) -> np.ndarray:
    """Rows of a flattened list into ``[T, width]`` padded with ``fill``.

    Elements beyond ``width`` are dropped (the caller flags those rows). With
    ``row_width`` (seats per row S_t), element p of row t goes to
    ``[t, p // S_t, p % S_t]`` of a ``[T, width, max S_t]`` array: streets.
    """
    T = len(lengths)
    dtype = dtype or values.dtype
    vals = np.ascontiguousarray(values, dtype=dtype)
    starts = np.ascontiguousarray(starts, dtype=np.int64)
    lengths = np.ascontiguousarray(lengths, dtype=np.int64)
    if row_width is None:
        out = np.full((T, width), fill, dtype=dtype)
        _scatter_kernel(vals, starts, lengths, out)
        return out
    seats = int(row_width.max()) if T else 0
    out = np.full((T, width, max(seats, 1)), fill, dtype=dtype)
    _scatter_streets_kernel(vals, starts, lengths, np.ascontiguousarray(row_width, dtype=np.int64), out)
    return out


def list_offsets(lengths: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
    """``int32`` offsets of a list column holding ``lengths[rows]`` elements per row (all rows if None)."""
    kept = lengths if rows is None else lengths[rows]
    offsets = np.zeros(len(kept) + 1, dtype=np.int64)
    np.cumsum(kept, out=offsets[1:])
    if offsets[-1] > np.iinfo(np.int32).max:
        raise ValueError("a list column of more than 2**31 values: use smaller batches (--batch-rows)")
    return offsets.astype(np.int32)


def _rows_arg(rows: np.ndarray | None) -> tuple[np.ndarray, bool]:
    if rows is None:
        return np.zeros(0, np.int64), True
    return np.ascontiguousarray(rows, dtype=np.int64), False


def gather_flat(values: np.ndarray, offsets: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
    """The first ``offsets[i+1] - offsets[i]`` values of row ``rows[i]`` of ``[T, W]``, concatenated."""
    flat = np.empty(int(offsets[-1]), dtype=values.dtype)
    r, all_rows = _rows_arg(rows)
    _gather_kernel(np.ascontiguousarray(values), r, all_rows, offsets, flat)
    return flat


def differs_from_list(values: np.ndarray, offsets: np.ndarray, col, rows: np.ndarray | None = None) -> np.ndarray:
    """Per kept row: does list column ``col`` differ (length or any value) from the padded ``values`` row?"""
    vals, starts, lengths = list_parts(col)
    out = np.empty(len(offsets) - 1, dtype=np.bool_)
    r, all_rows = _rows_arg(rows)
    _differs_kernel(
        np.ascontiguousarray(values),
        r,
        all_rows,
        offsets.astype(np.int64),
        np.ascontiguousarray(vals, dtype=values.dtype),
        starts,
        lengths,
        out,
    )
    return out


@njit(cache=True, parallel=True)
def _take_kernel(values, starts, rows, offsets, flat):
    for i in prange(rows.shape[0]):
        base = offsets[i]
        src = starts[rows[i]]
        for j in range(offsets[i + 1] - base):
            flat[base + j] = values[src + j]


def take_list(col, rows: np.ndarray) -> pa.Array:
    """``col.take(rows)`` for a list column, through numpy views (Arrow's take is several times slower)."""
    arr = _combine(col)
    if arr.null_count or not pa.types.is_list(arr.type) or pa.types.is_boolean(arr.type.value_type):
        return arr.take(pa.array(rows, pa.int64()))
    vals, starts, lengths = list_parts(arr)
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    offsets = list_offsets(lengths, rows)
    flat = np.empty(int(offsets[-1]), dtype=vals.dtype)
    _take_kernel(vals, starts, rows, offsets, flat)
    return list_array(offsets, flat, arr.type.value_type)


def list_array(offsets: np.ndarray, flat: np.ndarray, value_type: pa.DataType | None = None) -> pa.ListArray:
    """A list column from int32 offsets and its flat values, zero-copy where the types allow."""
    child = pa.array(flat, type=value_type) if value_type is not None else pa.array(flat)
    return pa.ListArray.from_arrays(pa.array(offsets), child)


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
