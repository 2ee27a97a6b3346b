"""Arrow columns to numpy and back through their buffers: the same values pyarrow's own conversions
give, for every width, slice and null, and a settle run that never imports pandas."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pyarrow as pa
import pytest
from conftest import SAMPLES
from hypothesis import given
from hypothesis import strategies as st

from cardbatch.batch.io.arrays import arrow_of, numpy_of, scalar_of

TYPES = [pa.int8(), pa.int16(), pa.int32(), pa.int64(), pa.uint8(), pa.uint16(), pa.uint32(), pa.uint64()]


def _bounds(t: pa.DataType) -> tuple[int, int]:
    info = np.iinfo(t.to_pandas_dtype())
    return int(info.min), int(info.max)


@st.composite
def int_arrays(draw: st.DrawFn) -> tuple[pa.DataType, list[int | None], int, int]:
    t = draw(st.sampled_from(TYPES))
    lo, hi = _bounds(t)
    values = draw(st.lists(st.one_of(st.none(), st.integers(lo, hi)), max_size=40))
    start = draw(st.integers(0, len(values)))
    return t, values, start, draw(st.integers(0, len(values) - start))


@given(int_arrays())
def test_numbers_read_as_pyarrow_reads_them(case):
    t, values, start, length = case
    arr = pa.array(values, t).slice(start, length)
    np.testing.assert_array_equal(numpy_of(arr), arr.to_numpy(zero_copy_only=False))
    assert numpy_of(arr).dtype == arr.to_numpy(zero_copy_only=False).dtype
    chunked = pa.chunked_array([arr, arr])
    np.testing.assert_array_equal(numpy_of(chunked), chunked.to_numpy())


@given(st.lists(st.booleans(), max_size=70), st.data())
def test_booleans_unpack_from_any_offset(values, data):
    start = data.draw(st.integers(0, len(values)))
    arr = pa.array(values, pa.bool_()).slice(start, data.draw(st.integers(0, len(values) - start)))
    got = numpy_of(arr)
    assert got.dtype == np.bool_ and got.tolist() == arr.to_pylist()


@given(int_arrays(), st.data())
def test_numpy_becomes_the_array_pa_array_makes(case, data):
    t, values, _, _ = case
    raw = np.array([0 if v is None else v for v in values], t.to_pandas_dtype())
    mask = np.array([v is None for v in values], np.bool_)
    assert arrow_of(raw, mask=mask).equals(pa.array(raw, mask=mask))
    assert arrow_of(raw).equals(pa.array(raw))
    flags = np.array(data.draw(st.lists(st.booleans(), min_size=len(values), max_size=len(values))), np.bool_)
    assert arrow_of(flags, mask=mask).equals(pa.array(flags, mask=mask))


@pytest.mark.parametrize(
    "value, t", [("", pa.string()), ("", pa.large_string()), (False, pa.bool_()), (0, pa.int32()), (7, pa.uint8())]
)
def test_a_scalar_is_pyarrows(value, t):
    assert scalar_of(value, t).equals(pa.scalar(value, t))


def test_a_cast_is_checked_as_pyarrow_checks_it():
    assert arrow_of(np.array([1, 2]), pa.int8()).equals(pa.array([1, 2], pa.int8()))
    with pytest.raises(pa.ArrowInvalid):
        arrow_of(np.array([300]), pa.int8())  # never a silent wrap to 44


def test_a_settle_process_never_imports_pandas(tmp_path):
    """pandas costs 0.11 s to import, in every process that converts one column the pyarrow way: the
    samples (codes and text cards, rejected rows, mismatches, the report) settle without it."""
    code = (
        "import sys\n"
        "from cardbatch.batch.cli import main\n"
        f"assert main(['settle', *{SAMPLES!r}, '--out', {str(tmp_path / 'out')!r}, '-q']) == 0\n"
        "assert 'pandas' not in sys.modules, 'pandas was imported'\n"
    )
    # a real process: what is tested is what a fresh process imports
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr


def test_the_api_on_a_path_never_imports_pandas():
    code = (
        "import sys, cardbatch\n"
        f"s = cardbatch.settle({SAMPLES!r})\n"
        "assert s.results.num_rows and s.errors.num_rows\n"
        "assert 'pandas' not in sys.modules, 'pandas was imported'\n"
    )
    # a real process: what is tested is what a fresh process imports
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
