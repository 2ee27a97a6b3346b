"""``batch/pycolumns``: Arrow columns built from numpy buffers equal ``pa.array``'s, nulls included,
and the import builds its tables without importing pandas (what the module is for)."""

from __future__ import annotations

import subprocess
import sys

import pyarrow as pa
import pytest
from conftest import TEST_DATA
from hypothesis import given, settings
from hypothesis import strategies as st

from cardbatch.batch.io import pycolumns
from cardbatch.batch.phh.job import ERRORS_SCHEMA, HANDS_SCHEMA


def _cells(kind: pa.DataType, nullable: bool = True) -> st.SearchStrategy:
    if pa.types.is_dictionary(kind):
        inner = _cells(kind.value_type, False)
    elif pa.types.is_fixed_size_list(kind):
        return st.lists(_cells(kind.value_type, False), min_size=kind.list_size, max_size=kind.list_size)
    elif pa.types.is_list(kind):
        inner = st.lists(_cells(kind.value_type, False), max_size=6)
    elif pa.types.is_string(kind):
        inner = st.text(max_size=8)
    elif pa.types.is_boolean(kind):
        inner = st.booleans()
    else:
        info = (kind.bit_width, pa.types.is_signed_integer(kind))
        lo, hi = (-(2 ** (info[0] - 1)), 2 ** (info[0] - 1) - 1) if info[1] else (0, 2 ** info[0] - 1)
        inner = st.integers(lo, hi)
    return st.none() | inner if nullable else inner


KINDS = sorted({str(f.type): f.type for f in (*HANDS_SCHEMA, *ERRORS_SCHEMA)}.items())


@pytest.mark.parametrize("kind", [k for _, k in KINDS], ids=[name for name, _ in KINDS])
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_a_column_equals_pa_array(kind, data):
    values = data.draw(st.lists(_cells(kind, not pa.types.is_fixed_size_list(kind)), max_size=40))
    built = pycolumns.column(values, kind)
    built.validate(full=True)
    assert built.equals(pa.array(values, kind))


def test_a_null_fixed_size_list_is_refused():
    with pytest.raises(ValueError, match="fixed-size list"):
        pycolumns.column([None], pa.list_(pa.uint8(), 5))


def test_the_import_command_never_imports_pandas_or_numba(tmp_path):
    """pandas and numba are a third and a quarter of a second of start-up each, in a command whose
    one-hand-per-file inputs take about two seconds in all."""

    sample = TEST_DATA / "phh"
    code = (
        "import sys, runpy;"
        f"sys.argv = ['cardbatch', 'import', {str(sample)!r}, '--out', {str(tmp_path / 'h.parquet')!r}, '-q'];"
        'exec(\'try:\\n runpy.run_module("cardbatch", run_name="__main__")\\nexcept SystemExit:\\n pass\');'
        "print(sorted(m for m in ('pandas', 'numba') if m in sys.modules))"
    )
    # a real process: which modules an import loads is seen only in a process that loaded none
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    assert out.strip().splitlines()[-1] == "[]"
    assert (tmp_path / "h.parquet").exists()
