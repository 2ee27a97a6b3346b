"""The list kernels of the batch layer's column readers (:mod:`cardbatch.batch.io.lists`): Arrow
list columns arrive here as flat numpy ``values`` with each row's ``starts`` and ``lengths``, and
leave as padded ``[T, W]`` (or ``[T, streets, seats]``) arrays, or the other way. Numpy in, numpy
out; each has a serial twin (:mod:`.twins`) for runs of one batch."""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from cardbatch.kernels.twins import twin


@twin
@njit(cache=True, parallel=True)
def scatter_rows(values: np.ndarray, starts: np.ndarray, lengths: np.ndarray, out: np.ndarray) -> None:
    """Each row's list (``values[starts[t]:starts[t]+lengths[t]]``) into ``out[t, :]``, cut at its width."""
    T, W = out.shape
    for t in prange(T):
        n = min(lengths[t], W)
        base = starts[t]
        for j in range(n):
            out[t, j] = values[base + j]


@twin
@njit(cache=True, parallel=True)
def scatter_streets(
    values: np.ndarray, starts: np.ndarray, lengths: np.ndarray, row_width: np.ndarray, out: np.ndarray
) -> None:
    """Each row's flat per-street list (``row_width[t]`` values a street) into ``out[t, street, seat]``."""
    T, K, S = out.shape
    for t in prange(T):
        w = max(row_width[t], 1)
        base = starts[t]
        for p in range(lengths[t]):
            k = p // w
            if k < K and p % w < S:
                out[t, k, p % w] = values[base + p]


@twin
@njit(cache=True, parallel=True)
def gather_rows(values: np.ndarray, rows: np.ndarray, all_rows: bool, offsets: np.ndarray, flat: np.ndarray) -> None:
    """The rows ``rows`` (every row when ``all_rows``) of ``values[T, W]``, flat: row i's first
    ``offsets[i+1] - offsets[i]`` values at ``flat[offsets[i]:]``."""
    for i in prange(offsets.shape[0] - 1):
        t = np.int64(i) if all_rows else rows[i]
        base = offsets[i]
        for j in range(offsets[i + 1] - base):
            flat[base + j] = values[t, j]


@twin
@njit(cache=True, parallel=True)
def rows_differ(
    values: np.ndarray,
    rows: np.ndarray,
    all_rows: bool,
    offsets: np.ndarray,
    list_values: np.ndarray,
    starts: np.ndarray,
    lengths: np.ndarray,
    out: np.ndarray,
) -> None:
    """``out[i]``: whether row ``rows[i]`` (row i when ``all_rows``) of ``values`` differs from its
    list in ``list_values`` (another length or another value)."""
    for i in prange(offsets.shape[0] - 1):
        t = np.int64(i) if all_rows else rows[i]
        n = offsets[i + 1] - offsets[i]
        diff = lengths[t] != n
        if not diff:
            base = starts[t]
            for j in range(n):
                diff |= list_values[base + j] != values[t, j]
        out[i] = diff


@twin
@njit(cache=True, parallel=True)
def chips_by_street(
    values: np.ndarray,
    starts: np.ndarray,
    lengths: np.ndarray,
    row_width: np.ndarray,
    limit: int,
    out: np.ndarray,
    total: np.ndarray,
    suspect: np.ndarray,
) -> None:
    """Chips per street and seat (as :func:`scatter_streets`) with each seat's total, in one pass;
    ``suspect[t]``: a value above ``limit`` (its sums may not fit int64)."""
    T, K, S = out.shape
    for t in prange(T):
        w = max(row_width[t], 1)
        base = starts[t]
        for s in range(S):
            total[t, s] = 0
            for k in range(K):
                out[t, k, s] = 0
        big = False
        for p in range(lengths[t]):
            k = p // w
            s = p % w
            if k < K and s < S:
                v = values[base + p]
                out[t, k, s] = v
                total[t, s] += v
                big |= v > limit
        suspect[t] = big


@twin
@njit(cache=True, parallel=True)
def take_elements(
    values: np.ndarray, starts: np.ndarray, rows: np.ndarray, offsets: np.ndarray, flat: np.ndarray
) -> None:
    """The lists of rows ``rows`` (``starts`` into ``values``), flat at ``offsets``."""
    for i in prange(rows.shape[0]):
        base = offsets[i]
        src = starts[rows[i]]
        for j in range(offsets[i + 1] - base):
            flat[base + j] = values[src + j]


@njit(cache=True, nogil=True)
def exact_halves(values: np.ndarray) -> tuple[int, int]:
    """The sums of ``values``' high and low 32-bit halves (``v >> 32`` and ``v & 0xFFFFFFFF``), in one
    pass: their exact total is ``(high << 32) + low`` in Python's integers, never wrapped for fewer
    than 2**31 values."""
    high = 0
    low = 0
    for v in values:
        high += v >> 32
        low += v & 0xFFFFFFFF
    return high, low
