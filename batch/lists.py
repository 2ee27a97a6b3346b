"""Arrow list columns to padded numpy arrays and back, without Python loops over rows.

Offsets and child values are read as numpy views; sliced arrays keep their
offsets (``ListArray.offsets`` is already sliced; the child is indexed by
those offsets); a fixed-size list's child is taken through ``flatten`` so its
parent's offset is honoured. Booleans are unpacked once per column.
"""
from __future__ import annotations

import numpy as np
import pyarrow as pa


def _combine(col) -> pa.Array:
    return col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col


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


def scatter(values: np.ndarray, starts: np.ndarray, lengths: np.ndarray, width: int, fill,
            dtype=None, row_width: np.ndarray | None = None) -> np.ndarray:
    """Rows of a flattened list into ``[T, width]`` (or ``[T, K, row_width]`` street-major, see below).

    Elements beyond ``width`` are dropped (the caller flags those rows).
    With ``row_width`` (per-row seat count S_t), element p of a row goes to
    ``[t, p // S_t, p % S_t]`` of a ``[T, width // ?, max S]`` array: the
    caller passes ``width = K`` streets and the result is ``[T, K, max S]``.
    """
    T = len(lengths)
    dtype = dtype or values.dtype
    total = int(lengths.sum())
    rows = np.repeat(np.arange(T), lengths)
    pos = np.arange(total) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    src = np.repeat(starts, lengths) + pos
    if row_width is None:
        out = np.full((T, width), fill, dtype=dtype)
        keep = pos < width
        out[rows[keep], pos[keep]] = values[src[keep]]
        return out
    seats = int(row_width.max()) if T else 0
    rw = np.repeat(np.maximum(row_width, 1), lengths)
    street, seat = pos // rw, pos % rw
    out = np.full((T, width, max(seats, 1)), fill, dtype=dtype)
    keep = street < width
    out[rows[keep], street[keep], seat[keep]] = values[src[keep]]
    return out


def padded_to_list(values: np.ndarray, lengths: np.ndarray, value_type: pa.DataType | None = None) -> pa.ListArray:
    """A list column from ``[T, W]`` rows keeping the first ``lengths[t]`` of each."""
    T, W = values.shape
    mask = np.arange(W)[None, :] < lengths[:, None]
    flat = values[mask]
    offsets = np.zeros(T + 1, dtype=np.int32)
    np.cumsum(lengths, out=offsets[1:])
    child = pa.array(flat, type=value_type) if value_type is not None else pa.array(flat)
    return pa.ListArray.from_arrays(pa.array(offsets), child)
