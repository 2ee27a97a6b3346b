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
def _gather_kernel(values, lengths, offsets, flat):
    for t in prange(values.shape[0]):
        base = offsets[t]
        for j in range(lengths[t]):
            flat[base + j] = values[t, j]


def scatter(values: np.ndarray, starts: np.ndarray, lengths: np.ndarray, width: int, fill,
            dtype=None, row_width: np.ndarray | None = None) -> np.ndarray:
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


def padded_to_list(values: np.ndarray, lengths: np.ndarray, value_type: pa.DataType | None = None) -> pa.ListArray:
    """A list column from ``[T, W]`` rows keeping the first ``lengths[t]`` of each."""
    T = values.shape[0]
    lengths = np.ascontiguousarray(lengths, dtype=np.int64)
    offsets = np.zeros(T + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    if values.dtype == object:
        mask = np.arange(values.shape[1])[None, :] < lengths[:, None]
        flat = values[mask]
    else:
        flat = np.empty(int(offsets[-1]), dtype=values.dtype)
        _gather_kernel(np.ascontiguousarray(values), lengths, offsets, flat)
    child = pa.array(flat, type=value_type) if value_type is not None else pa.array(flat)
    return pa.ListArray.from_arrays(pa.array(offsets.astype(np.int32)), child)
