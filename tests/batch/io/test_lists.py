"""Arrow list columns to padded arrays and back, including sliced arrays and nulls."""

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardbatch.batch.io.lists import (
    differs_from_list,
    gather_flat,
    list_offsets,
    list_parts,
    padded_to_list,
    scatter,
    take_list,
)

rows = st.lists(st.one_of(st.none(), st.lists(st.integers(-5, 300), max_size=7)), min_size=1, max_size=30)


def expected(pyrows, width, fill):
    out = np.full((len(pyrows), width), fill, np.int64)
    for t, r in enumerate(pyrows):
        for j, v in enumerate((r or [])[:width]):
            out[t, j] = v
    return out


@pytest.mark.slow  # 200 hypothesis examples: 3 s
@settings(max_examples=200, deadline=None)
@given(rows, st.integers(0, 10), st.integers(0, 10), st.sampled_from(["list", "large"]))
def test_sliced_lists_scatter_like_python(pyrows, lo, hi, kind):
    typ = pa.list_(pa.int64()) if kind == "list" else pa.large_list(pa.int64())
    arr = pa.array(pyrows, typ)
    lo = min(lo, len(pyrows))
    sliced = arr.slice(lo, max(0, len(pyrows) - lo - min(hi, len(pyrows) - lo)))
    py = sliced.to_pylist()
    vals, starts, lengths = list_parts(sliced)
    assert lengths.tolist() == [len(r or []) for r in py]
    assert (scatter(vals, starts, lengths, 5, -1, np.int64) == expected(py, 5, -1)).all()
    back = padded_to_list(expected(py, 8, 0), lengths, pa.int64())
    assert back.to_pylist() == [r or [] for r in py]


def test_sliced_fixed_size_list_uses_parent_offset():
    arr = pa.FixedSizeListArray.from_arrays(pa.array(np.arange(20, dtype=np.uint8)), 5)
    sliced = arr.slice(1, 2)
    vals, starts, lengths = list_parts(sliced)
    assert scatter(vals, starts, lengths, 5, 255, np.uint8).tolist() == [[5, 6, 7, 8, 9], [10, 11, 12, 13, 14]]


def test_chunked_bool_lists():
    col = pa.chunked_array([pa.array([[True, False], [False]]), pa.array([[True, True, False]])])
    vals, starts, lengths = list_parts(col)
    got = scatter(vals.astype(bool), starts, lengths, 3, True, np.bool_)
    assert got.tolist() == [[True, False, True], [False, True, True], [True, True, False]]


def test_street_major_scatter():
    # two rows: 2 seats x 2 streets, and 3 seats x 1 street
    arr = pa.array([[1, 2, 3, 4], [5, 6, 7]], pa.list_(pa.int64()))
    vals, starts, lengths = list_parts(arr)
    got = scatter(vals, starts, lengths, 2, 0, np.int64, row_width=np.array([2, 3]))
    assert got.tolist() == [[[1, 2, 0], [3, 4, 0]], [[5, 6, 7], [0, 0, 0]]]


@pytest.mark.slow  # 200 hypothesis examples: 6 s
@settings(max_examples=200, deadline=None)
@given(rows, st.integers(0, 10), st.data())
def test_take_gather_and_differs_like_python(pyrows, lo, data):
    arr = pa.array(pyrows, pa.list_(pa.int64())).slice(min(lo, len(pyrows)))
    py = arr.to_pylist()
    n = len(py)
    rows = np.array(data.draw(st.lists(st.integers(0, max(n - 1, 0)), max_size=12)) if n else [], np.int64)
    assert take_list(arr, rows).to_pylist() == [py[r] for r in rows]  # nulls stay null (Arrow's take)
    lengths = np.array([len(r or []) for r in py], np.int64)
    padded = expected(py, 8, 0)
    offsets = list_offsets(lengths, rows)
    assert gather_flat(padded, offsets, rows).tolist() == [v for r in rows for v in (py[r] or [])]
    assert gather_flat(padded, list_offsets(lengths)).tolist() == [v for r in py for v in (r or [])]
    other = padded.copy()
    if n:
        other[rows[::2], 0] += 1  # only rows that have a first value really differ
    want = [bool(lengths[r]) and other[r, 0] != padded[r, 0] for r in rows]
    assert differs_from_list(other, offsets, arr, rows)[0].tolist() == want
    short = np.maximum(lengths - 1, 0)  # a recorded list of another length differs
    assert differs_from_list(padded, list_offsets(short, rows), arr, rows)[0].tolist() == [
        bool(lengths[r]) for r in rows
    ]


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.booleans())
def test_scatter_chips_is_scatter_summed(seed, streets):
    """The chips' one pass places, sums and flags rows as scatter, a sum and sums_overflow do, rows
    of the wrong length and values near int64's limit included."""
    from cardbatch.batch.io.lists import scatter_chips, sums_overflow

    rng = np.random.default_rng(seed)
    T = int(rng.integers(0, 40))
    seats = rng.integers(0, 7, T)
    K = int(rng.integers(1, 5)) if streets else 1
    lengths = np.where(rng.random(T) < 0.8, seats * K, rng.integers(0, 30, T))
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
    values = rng.integers(0, 1000, int(lengths.sum())).astype(np.int64)
    values[rng.random(values.size) < 0.05] = np.iinfo(np.int64).max // int(rng.integers(1, 4))
    S = int(max(seats.max() if T else 1, 1)) - int(rng.integers(0, 2))  # sometimes fewer seats than a row has
    S = max(S, 1)
    width = seats if streets else np.full(T, S)
    got, total, overflow = scatter_chips(values, starts, lengths, width, K, S)
    if streets:
        full = scatter(values, starts, lengths, K, 0, np.int64, row_width=seats)
        full = np.concatenate([full, np.zeros((T, K, max(S - full.shape[2], 0)), np.int64)], axis=2)[:, :, :S]
    else:
        full = scatter(values, starts, lengths, S, 0, np.int64)[:, None, :]
    assert (got == full).all()
    wrap = sums_overflow(full)
    assert (overflow == wrap).all()
    with np.errstate(over="ignore"):
        assert (total[~wrap] == full.sum(axis=1)[~wrap]).all()


@given(st.lists(st.integers(-(2**63), 2**63 - 1), max_size=50))
def test_exact_sum_is_pythons_sum_whatever_the_values(values):
    from cardbatch.batch.io.lists import exact_sum

    assert exact_sum(np.array(values, np.int64)) == sum(values)
