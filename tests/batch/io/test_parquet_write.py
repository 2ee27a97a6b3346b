"""cardbatch's own Parquet writer (batch/io/parquet_write.py): every table it writes reads back, in
pyarrow, DuckDB and Polars, with the schema and values of the table and of pyarrow's own file; its
footer is pyarrow's but for sizes and offsets; parquet_concat joins its files; storage chooses it
for the options every output has."""

from __future__ import annotations

import math
import struct
import subprocess
import sys

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import SAMPLES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pyarrow import fs

from cardbatch.batch.io import parquet_concat, parquet_write, storage, thrift_compact
from cardbatch.batch.io.parquet_write import ParquetWriter

INTS = [pa.int8(), pa.int16(), pa.int32(), pa.int64(), pa.uint8(), pa.uint16(), pa.uint32(), pa.uint64()]
TEXTS = [pa.string(), pa.large_string(), pa.binary(), pa.large_binary()]
PRIMITIVES = [pa.bool_(), *INTS, pa.float32(), pa.float64(), *TEXTS]


def _ours(table: pa.Table, path=None, row_group_size=None, key_values=None, **options) -> bytes | None:
    """``table`` written by this writer (to ``path``, else returned as bytes)."""
    sink = pa.BufferOutputStream() if path is None else str(path)
    with ParquetWriter(sink, table.schema, **options) as writer:
        writer.write_table(table, row_group_size=row_group_size)
        if key_values:
            writer.add_key_value_metadata(key_values)
    return None if path is not None else sink.getvalue().to_pybytes()


def _pyarrows(table: pa.Table, path=None, row_group_size=None, key_values=None) -> bytes | None:
    sink = pa.BufferOutputStream() if path is None else str(path)
    with pq.ParquetWriter(sink, table.schema, **storage.WRITE_OPTIONS) as writer:
        writer.write_table(table, row_group_size=row_group_size)
        if key_values:
            writer.add_key_value_metadata(key_values)
    return None if path is not None else sink.getvalue().to_pybytes()


def _read(data: bytes) -> pa.Table:
    return pq.read_table(pa.BufferReader(data))


def _footer(data: bytes) -> list:
    (length,) = struct.unpack("<I", data[-8:-4])
    return thrift_compact.decode(data[-8 - length : -8])


def _same_reads(ours: bytes, theirs: bytes, table: pa.Table) -> None:
    """pyarrow reads ``ours`` as ``table`` and as ``theirs``: schema (metadata included) and values."""
    got, want = _read(ours), _read(theirs)
    assert got.schema.equals(want.schema, check_metadata=True), (got.schema, want.schema)
    assert got.equals(want)
    assert got.equals(table.cast(got.schema)) and got.schema.equals(table.schema)
    a, b = pq.ParquetFile(pa.BufferReader(ours)).metadata, pq.ParquetFile(pa.BufferReader(theirs)).metadata
    assert a.metadata == b.metadata  # the footer's key-values (pyarrow orders them its own way)
    assert [a.row_group(g).num_rows for g in range(a.num_row_groups)] == [
        b.row_group(g).num_rows for g in range(b.num_row_groups)
    ]


# --- random tables -----------------------------------------------------------------------------


def _values(t: pa.DataType):
    if pa.types.is_boolean(t):
        return st.booleans()
    if pa.types.is_integer(t):
        info = np.iinfo(t.to_pandas_dtype())
        return st.integers(int(info.min), int(info.max))
    if pa.types.is_floating(t):
        return st.floats(allow_nan=False, width=t.bit_width)
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return st.text(max_size=8)
    return st.binary(max_size=8)


@st.composite
def _column(draw, n: int) -> tuple[pa.Field, pa.Array]:
    """A column of ``n`` rows of a random supported type, sliced out of a longer array (its
    offsets do not start at 0), with nulls where its field allows them: null cells, null lists
    (some over elements), empty lists, null elements."""
    t = draw(st.sampled_from(PRIMITIVES))
    is_list = draw(st.booleans())
    nullable = draw(st.booleans())
    element_nullable = draw(st.booleans())
    skip = draw(st.integers(0, 3))
    total = n + skip + draw(st.integers(0, 2))
    if not is_list:
        items = draw(st.lists(_values(t) | (st.none() if nullable else st.nothing()), min_size=total, max_size=total))
        return pa.field("c", t, nullable), pa.array(items, t).slice(skip, n)
    lengths = draw(st.lists(st.integers(0, 4), min_size=total, max_size=total))
    lead = draw(st.integers(0, 2))  # the child starts before the first row's elements
    count = lead + sum(lengths)
    maybe_null = st.none() if element_nullable else st.nothing()
    child = pa.array(draw(st.lists(_values(t) | maybe_null, min_size=count, max_size=count)), t)
    offsets = np.concatenate([[0], np.cumsum(lengths)]) + lead
    mask = None
    if nullable and draw(st.booleans()):
        mask = pa.array(draw(st.lists(st.booleans(), min_size=total, max_size=total)), pa.bool_())
    large = draw(st.booleans())
    value_field = pa.field("element", t, element_nullable)
    kind = pa.LargeListArray if large else pa.ListArray
    arr = kind.from_arrays(pa.array(offsets, pa.int64() if large else pa.int32()), child, mask=mask)
    list_type = pa.large_list(value_field) if large else pa.list_(value_field)
    return pa.field("c", list_type, nullable), arr.cast(list_type).slice(skip, n)


@st.composite
def _tables(draw) -> tuple[pa.Table, int]:
    """A table of 0 to 40 rows and 1 to 5 columns, maybe chunked, and a row group size."""
    n = draw(st.integers(0, 40))
    fields, arrays = [], []
    for k in range(draw(st.integers(1, 5))):
        field, arr = draw(_column(n))
        fields.append(field.with_name(f"c{k}"))
        arrays.append(arr)
    table = pa.Table.from_arrays(arrays, schema=pa.schema(fields))
    cut = draw(st.integers(0, n))
    if draw(st.booleans()):  # chunked columns
        table = pa.concat_tables([table.slice(0, cut), table.slice(cut)])
    return table, draw(st.integers(1, max(n, 1) + 1))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_tables())
def test_random_tables_read_back_as_written_and_as_pyarrows_file(drawn):
    table, rows = drawn
    _same_reads(_ours(table, row_group_size=rows), _pyarrows(table, row_group_size=rows), table)


@settings(max_examples=40, deadline=None)
@given(_tables(), st.integers(16, 200))
def test_pages_of_a_few_bytes(drawn, page_bytes):
    """Pages end at row boundaries, many a column chunk when they are small."""
    table, rows = drawn
    ours = _ours(table, row_group_size=rows, data_page_size=page_bytes)
    _same_reads(ours, _pyarrows(table, row_group_size=rows), table)


def _fields(fields: list, drop: set[int]) -> list:
    return [f for f in fields if f[0] not in drop]


def _chunk_shape(chunk: list) -> list:
    """A column chunk's metadata without its sizes and offsets (total sizes, first page)."""
    meta = next(f[2] for f in chunk if f[0] == 3)
    return _fields(meta, {6, 7, 9})


def test_the_footer_is_pyarrows_but_for_sizes_and_offsets():
    """Schema, key-values, created_by, column orders, each chunk's type, encodings, codec, value count,
    page encodings and size statistics (the level histograms: the levels are the same): as pyarrow
    writes them, for every type, nullable or not, with nulls, empty and null lists."""
    rng = np.random.default_rng(46)
    n = 5000
    columns, fields = {}, []
    base = _every_type(n, 46, nulls=0.0)
    for k, t in enumerate(PRIMITIVES):
        for nullable in (True, False):
            plain = base.column(f"cell_{t}").combine_chunks()
            if nullable:
                plain = pa.concat_arrays([plain.slice(0, n // 2), pa.nulls(n - n // 2, t)])
            lengths = rng.integers(0, 4, n)
            offsets = pa.array(np.concatenate([[0], np.cumsum(lengths)]), pa.int32())
            child = pa.concat_arrays([plain] * 4).slice(0, int(lengths.sum()))
            mask = pa.array(rng.random(n) < 0.2) if nullable else None
            listed = pa.ListArray.from_arrays(offsets, child, mask=mask)
            value_field = pa.field("element", t, nullable)
            name = f"{k}_{int(nullable)}"
            columns[f"p{name}"] = plain
            columns[f"l{name}"] = listed.cast(pa.list_(value_field))
            fields += [pa.field(f"p{name}", t, nullable), pa.field(f"l{name}", pa.list_(value_field), nullable)]
    table = pa.Table.from_pydict(columns, schema=pa.schema(fields, metadata={"note": "kept"}))
    ours, theirs = _ours(table, key_values={"k": "v"}), _pyarrows(table, key_values={"k": "v"})
    _same_reads(ours, theirs, table)
    a, b = _footer(ours), _footer(theirs)
    assert _fields(a, {4, 5}) == _fields(b, {4, 5})
    kv = [next(f[2] for f in x if f[0] == 5) for x in (a, b)]
    assert sorted(map(repr, kv[0][1])) == sorted(map(repr, kv[1][1]))
    (ga,), (gb,) = (next(f[2] for f in x if f[0] == 4)[1] for x in (a, b))
    assert _fields(ga, {1, 2, 5, 6}) == _fields(gb, {1, 2, 5, 6})  # num_rows
    ca, cb = (next(f[2] for f in g if f[0] == 1)[1] for g in (ga, gb))
    assert len(ca) == len(cb) == 2 * 2 * len(PRIMITIVES)
    for x, y in zip(ca, cb):
        assert _chunk_shape(x) == _chunk_shape(y)


def test_nulls_where_the_schema_has_none_are_refused_as_pyarrow_refuses_them():
    schema = pa.schema([pa.field("x", pa.int32(), nullable=False)])
    table = pa.Table.from_arrays([pa.array([1, None], pa.int32())], schema=schema)
    with pytest.raises(pa.ArrowInvalid, match="non-nullable"):
        _pyarrows(table)
    with pytest.raises(pa.ArrowInvalid, match="non-nullable"):
        _ours(table)


def test_key_values_and_tables_of_no_rows_as_pyarrow():
    """A later value of a key replaces an earlier one; a table of no rows is a row group of none;
    a writer given nothing writes no row group; the schema's metadata stays."""
    schema = pa.schema([("a", pa.int64()), ("b", pa.list_(pa.string()))], metadata={"s": "1", "a": "0"})
    table = pa.table({"a": [1, 2, 3], "b": [["x"], None, []]}, schema=schema)
    files = []
    for make in (ParquetWriter, lambda sink, schema: pq.ParquetWriter(sink, schema, **storage.WRITE_OPTIONS)):
        sink = pa.BufferOutputStream()
        writer = make(sink, schema)
        writer.write_table(table.slice(0, 0))
        writer.write_table(table, row_group_size=2)
        writer.add_key_value_metadata({"a": "1", "b": "2"})
        writer.add_key_value_metadata({b"c": b"3", b"a": b"4"})
        writer.close()
        files.append(sink.getvalue().to_pybytes())
    _same_reads(*files, table)
    assert pq.ParquetFile(pa.BufferReader(files[0])).metadata.row_group(0).num_rows == 0
    empty = [pa.BufferOutputStream(), pa.BufferOutputStream()]
    ParquetWriter(empty[0], schema).close()
    pq.ParquetWriter(empty[1], schema, **storage.WRITE_OPTIONS).close()
    _same_reads(*(e.getvalue().to_pybytes() for e in empty), table.slice(0, 0))


def test_the_page_header_is_thrifts():
    """The page header written by hand is the generic codec's encoding of pyarrow's header."""
    for sizes in ((0, 0, 0), (1, 2, 3), (1 << 20, 12345, 65536), (2**31 - 1, 2**30, 2**31 - 1)):
        uncompressed, compressed, values = sizes
        fields = [
            [1, thrift_compact.I32, 0],
            [2, thrift_compact.I32, uncompressed],
            [3, thrift_compact.I32, compressed],
            [5, thrift_compact.STRUCT, [[1, 5, values], [2, 5, 0], [3, 5, 3], [4, 5, 3], [5, 12, []]]],
        ]
        assert parquet_write.page_header(*sizes) == thrift_compact.encode(fields)


def test_options_and_types_it_does_not_write_are_refused():
    schema = pa.schema([("a", pa.int64())])
    with pytest.raises(ValueError, match="this writer writes"):
        ParquetWriter(pa.BufferOutputStream(), schema, compression="zstd")
    for t in (pa.timestamp("ms"), pa.dictionary(pa.int8(), pa.string()), pa.list_(pa.list_(pa.int8()))):
        assert not parquet_write.supports(pa.schema([("x", t)]))
        with pytest.raises(TypeError):
            ParquetWriter(pa.BufferOutputStream(), pa.schema([("x", t)]))
    for t in (pa.struct([("a", pa.int8())]), pa.list_(pa.int8(), 3), pa.float16(), pa.date32(), pa.string_view()):
        assert not parquet_write.supports(pa.schema([("x", t)]))
    assert not parquet_write.supports(pa.schema([]))


# --- other readers, joined files, the outputs ----------------------------------------------------


def _every_type(n: int, seed: int, nulls: float = 0.1) -> pa.Table:
    """Every supported type, as a cell and as a list, with nulls (``nulls`` of them), empty and null
    lists, unicode."""
    rng = np.random.default_rng(seed)
    cols = {}
    words = ["", "a", "é", "€uro", "😀😀", "mixed ascii and ü"]
    for t in PRIMITIVES:
        if pa.types.is_boolean(t):
            items = [bool(x) for x in rng.random(4 * n) < 0.5]
        elif pa.types.is_integer(t):
            info = np.iinfo(t.to_pandas_dtype())
            items = [int(x) for x in rng.integers(info.min, info.max, 4 * n, endpoint=True, dtype=t.to_pandas_dtype())]
        elif pa.types.is_floating(t):
            items = [float(x) for x in rng.normal(size=4 * n).astype(t.to_pandas_dtype())]
        else:
            items = [words[k] for k in rng.integers(0, len(words), 4 * n)]
            if pa.types.is_binary(t) or pa.types.is_large_binary(t):
                items = [w.encode() for w in items]
        items = [None if rng.random() < nulls else x for x in items]
        cols[f"cell_{t}"] = pa.array(items[:n], t)
        lengths = rng.integers(0, 5, n)
        offsets = pa.array(np.concatenate([[0], np.cumsum(lengths)]), pa.int32())
        mask = pa.array(rng.random(n) < nulls)
        cols[f"list_{t}"] = pa.ListArray.from_arrays(offsets, pa.array(items[: int(lengths.sum())], t), mask=mask)
    return pa.table(cols)


@pytest.fixture(scope="module")
def two_files(tmp_path_factory) -> tuple[list[str], list[pa.Table], str]:
    folder = tmp_path_factory.mktemp("pw")
    tables = [_every_type(3000, 1), _every_type(1000, 2)]
    paths = []
    for k, t in enumerate(tables):
        path = folder / f"ours{k}.parquet"
        _ours(t, path, row_group_size=700)
        paths.append(str(path))
    theirs = folder / "theirs.parquet"
    _pyarrows(tables[0], theirs, row_group_size=700)
    return paths, tables, str(theirs)


def test_duckdb_and_polars_read_it_as_they_read_pyarrows_file(two_files):
    duckdb = pytest.importorskip("duckdb")
    pl = pytest.importorskip("polars")
    (ours, _), _, theirs = two_files

    def duck(path: str) -> pa.Table:
        found = duckdb.connect().sql(f"select * from '{path}'").arrow()
        return found.read_all() if hasattr(found, "read_all") else found  # a reader since DuckDB 1.4

    got, want = duck(ours), duck(theirs)
    assert got.schema == want.schema and got.equals(want) and got.num_rows == 3000
    assert pl.read_parquet(ours).equals(pl.read_parquet(theirs))


def test_parquet_concat_joins_its_files(two_files, tmp_path):
    paths, tables, _ = two_files
    out = str(tmp_path / "joined.parquet")
    assert parquet_concat.concat(paths, out, {b"cardbatch.written_by": b"test"}) == sum(t.num_rows for t in tables)
    got = pq.read_table(out)
    assert got.equals(pa.concat_tables(tables))
    assert pq.ParquetFile(out).metadata.num_row_groups == math.ceil(3000 / 700) + math.ceil(1000 / 700)


@pytest.fixture(scope="module")
def outputs() -> dict[str, pa.Table]:
    """settle's results and errors of the sample hands, in their documented schemas."""
    from cardbatch.batch.settle.by_game import settle_table
    from cardbatch.batch.settle.options import SettleOptions
    from cardbatch.batch.settle.outputs import ERROR_SCHEMA, RESULT_SCHEMA, conform_errors, conform_results

    results, errors = [], []
    for sample in SAMPLES:
        hands = pq.read_table(sample)
        r, e, _ = settle_table(hands, SettleOptions())
        results.append(conform_results(r))
        errors.append(conform_errors(e))
    bad = pa.table({"hand_id": pa.array([7, 8], pa.int64()), "reason": ["x", "y"], "message": ["é", None]})
    errors.append(conform_errors(bad))
    out = {"results": pa.concat_tables(results), "errors": pa.concat_tables(errors, promote_options="permissive")}
    assert out["results"].schema.equals(RESULT_SCHEMA) and out["results"].num_rows > 1000
    assert [f.name for f in ERROR_SCHEMA] == out["errors"].column_names[: len(ERROR_SCHEMA)]
    return out


@pytest.mark.parametrize("kind", ["results", "errors"])
def test_the_outputs_read_back_as_pyarrows(outputs, kind):
    table = outputs[kind]
    assert parquet_write.supports(table.schema)
    _same_reads(_ours(table, row_group_size=1000), _pyarrows(table, row_group_size=1000), table)


# --- wired in ------------------------------------------------------------------------------------


def test_storage_gives_it_when_asked_for_the_outputs_options_and_pyarrow_otherwise(tmp_path):
    table = _every_type(50, 3)
    path = str(tmp_path / "a" / "x.parquet")
    writer = storage.parquet_writer(path, table.schema, own=True, **storage.WRITE_OPTIONS)
    assert isinstance(writer, ParquetWriter)
    writer.write_table(table)
    writer.close()
    assert pq.read_table(path).equals(table)
    for schema, options, own in (
        (table.schema, storage.WRITE_OPTIONS, False),  # not asked for: pyarrow's, whatever the process loaded
        (table.schema, {"compression": "zstd"}, True),
        (pa.schema([("at", pa.timestamp("ms"))]), storage.WRITE_OPTIONS, True),
    ):
        other = storage.parquet_writer(path, schema, own=own, **options)
        assert isinstance(other, pq.ParquetWriter)
        other.close()
    published = storage.PublishedParquet(str(tmp_path / "p.parquet"), seal={b"mark": b"m"}, own=True)
    published.write(table.slice(0, 30))
    published.write(table.slice(30))
    assert isinstance(published.writer, ParquetWriter)
    published.close()
    assert pq.read_table(tmp_path / "p.parquet").equals(table)
    assert pq.ParquetFile(tmp_path / "p.parquet").metadata.metadata[b"mark"] == b"m"


def test_a_files_writer_never_depends_on_what_the_process_loaded(tmp_path):
    """From a session: import's errors file was written by one writer in a process that had loaded
    numba and by the other in a fresh one, so the same run's bytes differed."""
    code = (
        "import sys, pyarrow as pa\n"
        "import numba\n"
        "from cardbatch.batch.io import storage\n"
        f"w = storage.parquet_writer({str(tmp_path / 'x.parquet')!r}, pa.schema([('a', pa.int64())]), "
        "**storage.WRITE_OPTIONS)\n"
        "w.close()\n"
        "print(type(w).__module__)\n"
    )
    # a real process: what is tested is a fresh process that has loaded numba
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    assert out.split() == ["pyarrow.parquet.core"]


def test_it_writes_through_a_file_system_of_pyarrows(tmp_path):
    """A file system that is not the local one (as an object store is): the file is opened on it."""
    table = _every_type(100, 4)
    subtree = fs.SubTreeFileSystem(str(tmp_path), fs.LocalFileSystem())
    with ParquetWriter("inner.parquet", table.schema, filesystem=subtree) as writer:
        writer.write_table(table)
    assert pq.read_table(tmp_path / "inner.parquet").equals(table)


@pytest.mark.slow  # a moto S3 server
def test_storage_writes_it_to_s3(s3_server, monkeypatch):
    from conftest import S3_BUCKET

    env, s3 = s3_server
    for key in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_DEFAULT_REGION", "AWS_ENDPOINT_URL"):
        monkeypatch.setenv(key, env[key])
    table = _every_type(2000, 5)
    out = f"s3://{S3_BUCKET}/parquet_write/x.parquet"
    published = storage.PublishedParquet(out, table.schema, own=True)
    assert isinstance(published.writer, ParquetWriter)
    published.write(table)
    published.close()
    with s3.open_input_file(f"{S3_BUCKET}/parquet_write/x.parquet") as f:
        assert pq.read_table(f).equals(table)
