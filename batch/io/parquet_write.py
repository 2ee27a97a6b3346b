"""A Parquet writer for cardbatch's outputs at under two fifths of the cost of pyarrow's, whose
files read back exactly as pyarrow's do.

pyarrow's ``ParquetWriter`` spends most of a row of cardbatch's results (a dozen columns, five of
them short integer lists) in its generic machinery for nested levels, not in compressing. Here
each column chunk is encoded by one numba kernel (:mod:`cardbatch.kernels.parquet_levels`), its
pages compressed by pyarrow's own LZ4 codec, both without the GIL. Measured on settle's results
(65,536 rows, one thread, ``benchmarks/test_bench_writers.py``): about 220 ns a row against
pyarrow's 590 and Polars' 355 (which writes another schema), of which LZ4 alone is 155 to 170; the
files are the same size as pyarrow's (47 bytes a row).

What it writes, the options of every file cardbatch writes (lz4, no dictionary, no statistics:
:data:`OPTIONS`): data pages v1 of about :data:`PAGE_BYTES` each, ending at row boundaries; PLAIN
values; levels in the RLE/bit-packed hybrid encoding; LZ4_RAW, the codec pyarrow writes for
``compression="lz4"``. The schema is pyarrow's own: once per Arrow schema, pyarrow writes a file of
no rows, and from its footer come the Parquet schema, the ``ARROW:schema`` key-value (the Arrow
types readers take back), ``created_by`` and the column orders; the column chunks' metadata have
the fields pyarrow writes (no statistics; the level histograms of its size statistics). So
pyarrow, DuckDB, Polars, pandas and Spark read the schema and the values they read from pyarrow's
file; the bytes differ (other page sizes, other level runs).

The columns :func:`supports`: booleans, integers (8 to 64 bits, signed or not), floats, strings and
binaries (large ones too), and lists (large lists too) of those; nulls in cells and in lists; sliced
and chunked columns; no rows. Anything else (dictionaries, structs, lists of lists, fixed-size lists,
timestamps, ...) is pyarrow's to write: :func:`cardbatch.batch.io.storage.parquet_writer` chooses.

The interface is the part of ``pyarrow.parquet.ParquetWriter`` cardbatch uses:
``ParquetWriter(where, schema, filesystem=None)``, :meth:`~ParquetWriter.write_table` (row groups
of ``row_group_size`` rows at most; a table of no rows is a row group of none, as pyarrow writes
it), :meth:`~ParquetWriter.add_key_value_metadata`, :meth:`~ParquetWriter.close`, ``with``.

>>> import pyarrow as pa, pyarrow.parquet as pq
>>> table = pa.table({"id": [1, 2], "seats": [[3, 4], None]})
>>> sink = pa.BufferOutputStream()
>>> with ParquetWriter(sink, table.schema) as writer:
...     writer.write_table(table)
>>> pq.read_table(pa.BufferReader(sink.getvalue())).to_pylist()
[{'id': 1, 'seats': [3, 4]}, {'id': 2, 'seats': None}]
"""

from __future__ import annotations

import os
import struct
import threading
from dataclasses import dataclass
from types import TracebackType
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from pyarrow import fs

from cardbatch.batch.io.thrift_compact import (
    BINARY,
    I32,
    I64,
    LIST,
    STRUCT,
    Encoded,
    Field,
    decode,
    encode,
    varint,
    zigzag,
)
from cardbatch.kernels import parquet_levels as kernels

MAGIC = b"PAR1"
PAGE_BYTES = 1 << 20  # a data page's bytes before compression, about: pages end at row boundaries
ROW_GROUP_ROWS = 1 << 20  # the most rows of a row group (pyarrow's default max_row_group_length)
OPTIONS: dict[str, Any] = {"compression": "lz4", "use_dictionary": False, "write_statistics": False}
KEEP_BYTES = 1 << 26  # a thread keeps its encoding buffers up to this size (see _Buffers)

# the Parquet format's numbers
_BOOLEAN, _INT32, _INT64, _FLOAT, _DOUBLE, _BYTE_ARRAY = 0, 1, 2, 4, 5, 6  # physical types
_OPTIONAL = 1  # a field's repetition
_PLAIN, _RLE = 0, 3  # encodings
_DATA_PAGE = 0
_PHYSICAL_BYTES = {_INT32: 4, _INT64: 8, _FLOAT: 4, _DOUBLE: 8, _BOOLEAN: 0, _BYTE_ARRAY: 0}


def _value_kind(t: pa.DataType) -> tuple[int, int] | None:
    """(the kernel's kind, bytes a value in Arrow) of a primitive type written here, else None."""
    if pa.types.is_boolean(t):
        return kernels.BOOL, 0
    if pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_binary(t) or pa.types.is_large_binary(t):
        return kernels.BYTES, 0
    if pa.types.is_integer(t):
        return (kernels.SIGNED if pa.types.is_signed_integer(t) else kernels.UNSIGNED), t.bit_width // 8
    if pa.types.is_float32(t) or pa.types.is_float64(t):
        return kernels.COPY, t.bit_width // 8
    return None


def supports(schema: pa.Schema) -> bool:
    """Whether this writer writes every column of ``schema`` (else pyarrow's is the writer).

    >>> supports(pa.schema([("id", pa.int64()), ("cards", pa.list_(pa.uint8())), ("name", pa.string())]))
    True
    >>> supports(pa.schema([("at", pa.timestamp("ms"))])), supports(pa.schema([("x", pa.list_(pa.list_(pa.int8())))]))
    (False, False)
    """
    if not len(schema):
        return False
    for field in schema:
        t = field.type
        if pa.types.is_list(t) or pa.types.is_large_list(t):
            t = t.value_type
        if _value_kind(t) is None:
            return False
    return True


@dataclass(frozen=True)
class _Column:
    """How one column is written: its kernel's settings and the constant part of its metadata."""

    name: str
    is_list: bool
    nullable: bool  # the cell (a list's: the list)
    element_nullable: bool
    kind: int
    sw: int  # a value's bytes in Arrow
    dw: int  # ... and in Parquet (0: booleans and strings)
    max_rep: int
    max_def: int
    d_empty: int  # an empty list's definition level
    byte_array: bool
    prefix: bytes  # the chunk's ColumnMetaData fields that do not depend on the rows, encoded


def _get(fields: list[Field], fid: int) -> Any:
    return next((f[2] for f in fields if f[0] == fid), None)


class _Template:
    """What pyarrow writes for a schema: the footer of its file of no rows, and each column's plan."""

    def __init__(self, schema: pa.Schema) -> None:
        sink = pa.BufferOutputStream()
        pq.write_table(pa.Table.from_batches([], schema=schema), sink, **OPTIONS)  # (empty_table imports pandas)
        data = sink.getvalue().to_pybytes()
        (length,) = struct.unpack("<I", data[-8:-4])
        self.footer = decode(data[-8 - length : -8])
        pairs = _get(self.footer, 5)
        self.key_values = [(_get(kv, 1), _get(kv, 2) or b"") for kv in (pairs[1] if pairs else [])]
        self.empty_group = Encoded(encode(_get(self.footer, 4)[1][0]))  # a table of no rows' row group
        chunks = _get(_get(self.footer, 4)[1][0], 1)[1]
        elements = _get(self.footer, 2)[1][1:]  # depth first, after the root
        self.head = [  # the footer's fields before its rows: the version, the schema (encoded once)
            [f[0], f[1], [STRUCT, [Encoded(encode(e)) for e in f[2][1]]]] if f[0] == 2 else f
            for f in self.footer
            if f[0] not in (3, 4, 5)
        ]
        self.columns: list[_Column] = []
        at = 0
        for field, chunk in zip(schema, chunks):
            head = elements[at]
            is_list = _get(head, 5) is not None  # a group: the list, its repeated group, its element
            leaf = elements[at + 2] if is_list else head
            at += 3 if is_list else 1
            found = _value_kind(field.type.value_type if is_list else field.type)
            assert found is not None, field
            kind, sw = found
            physical = _get(leaf, 1)
            dw = _PHYSICAL_BYTES[physical]
            if kind in (kernels.SIGNED, kernels.UNSIGNED) and sw == dw:
                kind = kernels.COPY
            if kind in (kernels.COPY, kernels.SIGNED, kernels.UNSIGNED) and not 0 < sw <= dw:
                raise TypeError(f"{field.name}: pyarrow writes {field.type} as Parquet's physical type {physical}")
            nullable = _get(head, 3) == _OPTIONAL
            element_nullable = _get(leaf, 3) == _OPTIONAL
            d_empty = int(nullable) if is_list else 0
            self.columns.append(
                _Column(
                    name=field.name,
                    is_list=is_list,
                    nullable=nullable,
                    element_nullable=element_nullable,
                    kind=kind,
                    sw=sw,
                    dw=dw,
                    max_rep=int(is_list),
                    max_def=d_empty + 1 + int(element_nullable) if is_list else int(nullable),
                    d_empty=d_empty,
                    byte_array=physical == _BYTE_ARRAY,
                    prefix=_prefix(_get(chunk, 3)),
                )
            )


_TEMPLATES: dict[bytes, _Template] = {}
_TEMPLATES_LOCK = threading.Lock()


def _prefix(meta: list[Field]) -> bytes:
    """A column chunk's ColumnMetaData up to its codec (type, encodings, path, codec): the fields
    that are the same in every row group, encoded without the struct's end."""
    fields = [f for f in meta if f[0] in (1, 3, 4)] + [[2, LIST, [I32, [_RLE, _PLAIN]]]]
    return encode(sorted(fields, key=lambda f: f[0]))[:-1]


def _list_head(n: int, element_type: int) -> bytes:
    return bytes([(n << 4) | element_type]) if n < 15 else bytes([0xF0 | element_type]) + varint(n)


def _template(schema: pa.Schema) -> _Template:
    key = schema.serialize().to_pybytes()  # metadata included: pyarrow writes it into the footer
    with _TEMPLATES_LOCK:
        found = _TEMPLATES.get(key)
    if found is None:
        found = _Template(schema)
        with _TEMPLATES_LOCK:
            if len(_TEMPLATES) >= 64:
                _TEMPLATES.clear()
            _TEMPLATES[key] = found
    return found


def _readonly(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)  # every bitmap and value buffer the kernels take is, so they compile once
    return a


_NO_BYTES = _readonly(np.zeros(0, np.uint8))
_NO_OFFSETS = np.zeros(1, np.int64)


def _bytes_of(buf: pa.Buffer | None) -> np.ndarray:
    return _NO_BYTES if buf is None else _readonly(np.frombuffer(buf, np.uint8))


class _Buffers(threading.local):
    """A thread's buffers, kept from one column chunk to the next (up to :data:`KEEP_BYTES` each):
    fresh memory costs a page fault every 4 KiB, as much as encoding a list column."""

    def __init__(self) -> None:
        self.out = np.empty(0, np.uint8)
        self.scratch = np.empty(0, np.int64)
        self.offsets = [np.empty(0, np.int64), np.empty(0, np.int64)]

    def bytes(self, n: int) -> np.ndarray:
        if self.out.size < n:
            if n > KEEP_BYTES:
                return np.empty(n, np.uint8)
            self.out = np.empty(max(n, self.out.size * 3 // 2), np.uint8)
        return self.out

    def runs(self, n: int) -> np.ndarray:
        if self.scratch.size < n:
            if n * 8 > KEEP_BYTES:
                return np.empty(n, np.int64)
            self.scratch = np.empty(max(n, self.scratch.size * 3 // 2), np.int64)
        return self.scratch[:n]

    def offsets_of(self, which: int, buf: pa.Buffer, large: bool, start: int, n: int) -> np.ndarray:
        """The ``n + 1`` offsets from ``start`` of ``buf`` (int32, or int64 when ``large``) as int64."""
        kept = self.offsets[which]
        if kept.size < n + 1:
            kept = np.empty(max(n + 1, kept.size * 3 // 2), np.int64)
            if kept.size * 8 <= KEEP_BYTES:
                self.offsets[which] = kept
        np.copyto(kept[: n + 1], np.frombuffer(buf, np.int64 if large else np.int32)[start : start + n + 1])
        return kept[: n + 1]


_BUFFERS = _Buffers()


def page_header(uncompressed: int, compressed: int, values: int) -> bytes:
    """A data page v1's header, as pyarrow writes it without statistics (Thrift, by hand: the
    generic :func:`~.thrift_compact.encode` took as long as encoding a small column)."""
    return (
        b"\x15\x00\x15"  # type DATA_PAGE, then uncompressed_page_size
        + zigzag(uncompressed)
        + b"\x15"
        + zigzag(compressed)
        + b"\x2c\x15"  # data_page_header: num_values, then PLAIN, RLE, RLE and empty statistics
        + zigzag(values)
        + b"\x15\x00\x15\x06\x15\x06\x1c\x00\x00\x00"
    )


# a column chunk's pages: their bodies (one buffer), where each ends in it (from 0), their levels,
# the histograms of the definition and repetition levels, the strings' bytes
_Pages = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]


class ParquetWriter:
    """Writes tables of one schema to a Parquet file (see the module docstring).

    ``where``: a path of ``filesystem`` (when None: a local path, or a URI), or a writable pyarrow
    stream or file object, which :meth:`close` leaves open. ``data_page_size``: a page's bytes
    before compression, about (:data:`PAGE_BYTES`). ``options``: :data:`OPTIONS`' values only, the
    ones this writer writes."""

    def __init__(
        self,
        where: str | os.PathLike[str] | Any,
        schema: pa.Schema,
        filesystem: fs.FileSystem | None = None,
        data_page_size: int | None = None,
        **options: Any,
    ) -> None:
        if {**OPTIONS, **options} != OPTIONS:
            raise ValueError(f"this writer writes {OPTIONS}, not {options}")
        if not supports(schema):
            raise TypeError(f"this writer does not write {schema}: pyarrow's does")
        self.schema = schema
        self.where = where
        self._template = _template(schema)
        self._codec = pa.Codec("lz4_raw")
        self._page_bytes = data_page_size or PAGE_BYTES
        self._buffers = _BUFFERS
        self._groups: list[Encoded] = []
        self._rows = 0
        self._key_values: dict[bytes, bytes] = {}
        self.is_open = False
        if isinstance(where, (str, os.PathLike)):
            path = os.fspath(where)
            if filesystem is None:  # as pyarrow's: a URI names its file system
                filesystem, path = fs.FileSystem.from_uri(path) if "://" in path else (fs.LocalFileSystem(), path)
            self._sink = filesystem.open_output_stream(path, compression=None)
            self._own = True
        else:
            self._sink = where
            self._own = False
        self.is_open = True
        self._at = 0
        self._write(MAGIC)

    def __enter__(self) -> ParquetWriter:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def __del__(self) -> None:  # as pyarrow's: a writer dropped open writes its footer
        if getattr(self, "is_open", False):
            try:
                self.close()
            except Exception:
                pass

    def _write(self, data: bytes | pa.Buffer) -> None:
        self._sink.write(data)
        self._at += data.size if isinstance(data, pa.Buffer) else len(data)

    def write(self, table_or_batch: pa.Table | pa.RecordBatch, row_group_size: int | None = None) -> None:
        if isinstance(table_or_batch, pa.RecordBatch):
            table_or_batch = pa.Table.from_batches([table_or_batch])
        self.write_table(table_or_batch, row_group_size)

    def write_batch(self, batch: pa.RecordBatch, row_group_size: int | None = None) -> None:
        self.write(batch, row_group_size)

    def write_table(self, table: pa.Table, row_group_size: int | None = None) -> None:
        """``table`` in row groups of ``row_group_size`` rows (at most :data:`ROW_GROUP_ROWS`); a
        table of no rows is a row group of none."""
        if not self.is_open:
            raise ValueError("the Parquet file is closed")
        if not table.schema.equals(self.schema, check_metadata=False):
            raise ValueError(
                "Table schema does not match schema used to create file: "
                f"\ntable:\n{table.schema} vs. \nfile:\n{self.schema}"
            )
        size = ROW_GROUP_ROWS if row_group_size is None else min(row_group_size, ROW_GROUP_ROWS)
        if table.num_rows == 0:
            self._groups.append(self._template.empty_group)
            return
        if size <= 0:
            raise ValueError(f"row_group_size must be positive, not {row_group_size}")
        for start in range(0, table.num_rows, size):
            self._row_group(table.slice(start, size))

    def _row_group(self, table: pa.Table) -> None:
        """Write a row group; its RowGroup struct (Thrift, by hand) is kept for the footer."""
        start = self._at
        chunks = []
        uncompressed = compressed = 0
        for column, plan in zip(table.columns, self._template.columns):
            one = column.chunk(0) if column.num_chunks == 1 else column.combine_chunks()
            chunk, u, c = self._chunk(plan, one)
            chunks.append(chunk)
            uncompressed += u
            compressed += c
        self._groups.append(
            Encoded(
                b"\x19"  # columns, then total_byte_size, num_rows, file_offset, total_compressed_size
                + _list_head(len(chunks), STRUCT)
                + b"".join(chunks)
                + b"\x16"
                + zigzag(uncompressed)
                + b"\x16"
                + zigzag(table.num_rows)
                + b"\x26"
                + zigzag(start)
                + b"\x16"
                + zigzag(compressed)
                + b"\x00"
            )
        )
        self._rows += table.num_rows

    def _chunk(self, plan: _Column, arr: pa.Array) -> tuple[bytes, int, int]:
        """Write one column chunk: its ColumnChunk struct (Thrift, by hand), its bytes before and
        after compression."""
        if arr.null_count and not plan.nullable:
            raise pa.ArrowInvalid(f"Column '{plan.name}' is declared non-nullable but contains nulls")
        if len(arr) and arr.null_count == len(arr):
            pages = self._all_null(plan, len(arr))
        else:
            pages = self._encode(plan, arr)
        out, ends, levels, def_hist, rep_hist, string_bytes = pages
        first = self._at
        uncompressed = compressed = 0
        for p in range(len(levels)):
            body = out[ends[p] : ends[p + 1]]
            packed = self._codec.compress(body)
            header = page_header(body.size, packed.size, int(levels[p]))
            self._write(header)
            self._write(packed)
            uncompressed += len(header) + body.size
            compressed += len(header) + packed.size
        sizes = b""  # SizeStatistics, as pyarrow writes them: the strings' bytes, the levels' histograms
        if plan.byte_array or plan.max_def or plan.max_rep:
            reps = rep_hist.tolist() if plan.max_rep else []
            defs = def_hist.tolist() if plan.max_def else []
            if plan.byte_array:
                sizes += b"\x16" + zigzag(string_bytes)
            sizes += (b"\x19" if plan.byte_array else b"\x29") + _list_head(len(reps), I64)
            sizes += b"".join(zigzag(x) for x in reps)
            sizes += b"\x19" + _list_head(len(defs), I64) + b"".join(zigzag(x) for x in defs)
        chunk = (
            b"\x26\x00\x1c"  # file_offset 0, then meta_data
            + plan.prefix
            + b"\x16"  # num_values, total_uncompressed_size, total_compressed_size, data_page_offset
            + zigzag(int(levels.sum()))
            + b"\x16"
            + zigzag(uncompressed)
            + b"\x16"
            + zigzag(compressed)
            + b"\x26"
            + zigzag(first)
            + b"\x49\x1c\x15\x00\x15\x00\x15"  # encoding_stats: DATA_PAGE, PLAIN, the page count
            + zigzag(len(levels))
            + b"\x00"
            + (b"\x3c" + sizes + b"\x00" if sizes else b"")
            + b"\x00\x00"
        )
        return chunk, uncompressed, compressed

    def _all_null(self, plan: _Column, n: int) -> _Pages:
        """The one page of a column chunk of nulls: every level 0, one RLE run each; no values."""
        run = bytearray()
        v = n << 1
        while v >= 0x80:
            run.append((v & 0x7F) | 0x80)
            v >>= 7
        run += bytes([v, 0])
        section = struct.pack("<I", len(run)) + run
        body = np.frombuffer(section * (plan.max_rep + 1), np.uint8)  # max_def > 0: the column is nullable
        hist = np.zeros(plan.max_def + 1, np.int64)
        hist[0] = n
        rep = np.array([n, 0], np.int64)
        return body, np.array([0, body.size]), np.array([n]), hist, rep, 0

    def _encode(self, plan: _Column, arr: pa.Array) -> _Pages:
        """The column chunk's pages, encoded by the kernels (see :mod:`cardbatch.kernels.parquet_levels`)."""
        n = len(arr)
        buffers = arr.buffers()
        row_valid, has_row_valid = (_bytes_of(buffers[0]), True) if arr.null_count else (_NO_BYTES, False)
        offsets, leaf = _NO_OFFSETS, arr
        if plan.is_list:
            offsets = self._buffers.offsets_of(0, buffers[1], pa.types.is_large_list(arr.type), arr.offset, n)
            leaf = arr.values
            if offsets[0] < 0 or offsets[n] > len(leaf):
                raise ValueError(f"column {plan.name}: offsets outside the list's values")
        leaf_valid, has_leaf_valid = _NO_BYTES, False
        if plan.is_list and leaf.null_count:
            if not plan.element_nullable:
                raise pa.ArrowInvalid(
                    f"Column '{arr.type.value_field.name}' is declared non-nullable but contains nulls"
                )
            leaf_valid, has_leaf_valid = _bytes_of(leaf.buffers()[0]), True
        values = leaf.buffers()
        data_bit = 0
        strings = _NO_OFFSETS
        if plan.kind == kernels.BYTES:
            large = pa.types.is_large_string(leaf.type) or pa.types.is_large_binary(leaf.type)
            strings = self._buffers.offsets_of(1, values[1], large, leaf.offset, len(leaf))
            data = _bytes_of(values[2])
            if strings[0] < 0 or strings[len(leaf)] > data.size:
                raise ValueError(f"column {plan.name}: string offsets outside the characters")
        elif plan.kind == kernels.BOOL:
            data, data_bit = _bytes_of(values[1]), leaf.offset
        else:
            data = _bytes_of(values[1])[leaf.offset * plan.sw : (leaf.offset + len(leaf)) * plan.sw]
        page_rows, page_levels, bound, most_levels = kernels.plan_pages(
            n,
            row_valid,
            arr.offset,
            has_row_valid,
            plan.is_list,
            offsets,
            plan.kind,
            plan.dw,
            strings,
            self._page_bytes,
        )
        out = self._buffers.bytes(bound)
        ends, def_hist, rep_hist, string_bytes = kernels.encode_pages(
            row_valid,
            arr.offset,
            has_row_valid,
            plan.is_list,
            offsets,
            leaf_valid,
            leaf.offset,
            has_leaf_valid,
            plan.kind,
            data,
            data_bit,
            plan.sw,
            plan.dw,
            strings,
            plan.max_rep,
            plan.max_def,
            plan.d_empty,
            page_rows,
            page_levels,
            out,
            self._buffers.runs(3 * (most_levels + 1)),
        )
        assert ends[-1] <= bound, "the kernel wrote past the bound it gave"
        return out, ends, page_levels, def_hist, rep_hist, int(string_bytes)

    def add_key_value_metadata(self, key_value_metadata: dict[str, str] | dict[bytes, bytes]) -> None:
        """Key-values for the footer, beside the schema's (a later value of a key replaces an earlier)."""
        for k, v in key_value_metadata.items():
            key = k.encode() if isinstance(k, str) else bytes(k)
            self._key_values[key] = v.encode() if isinstance(v, str) else bytes(v)

    def close(self) -> None:
        """Write the footer; close the file when this writer opened it."""
        if not self.is_open:
            return
        self.is_open = False
        try:
            self._write(self._footer())
        finally:
            if self._own:
                self._sink.close()

    def _footer(self) -> bytes:
        pairs = dict(self._template.key_values)
        pairs.update(self._key_values)
        meta = self._template.head + [[3, I64, self._rows], [4, LIST, [STRUCT, self._groups]]]
        if pairs:
            meta.append([5, LIST, [STRUCT, [[[1, BINARY, k], [2, BINARY, v]] for k, v in pairs.items()]]])
        meta.sort(key=lambda f: f[0])
        footer = encode(meta)
        return footer + struct.pack("<I", len(footer)) + MAGIC


def warm_up() -> None:
    """Write a few rows of every kind of column to memory: numba compiles (or loads from its cache)
    the writer's kernels now, in the run's warm-up, not in the first worker that writes a part."""
    from cardbatch.batch.io.pycolumns import column

    kinds = {
        "b": pa.bool_(),
        "i": pa.int64(),
        "h": pa.int16(),
        "u": pa.uint8(),
        "f": pa.float64(),
        "s": pa.string(),
        "li": pa.list_(pa.int64()),
        "lu": pa.list_(pa.uint8()),
        "lb": pa.list_(pa.bool_()),
        "ls": pa.list_(pa.string()),
    }
    cells: dict[str, list[Any]] = {
        "b": [True, None, False],
        "i": [1, None, -2],
        "h": [3, None, 4],
        "u": [5, None, 6],
        "f": [0.5, None, 1.5],
        "s": ["a", None, "bc"],
        "li": [[1, 2], None, []],
        "lu": [[7], None, [8, 9]],
        "lb": [[True, False], None, []],
        "ls": [["x", "y"], None, []],
    }
    schema = pa.schema([(name, t) for name, t in kinds.items()])
    table = pa.Table.from_arrays([column(cells[name], t) for name, t in kinds.items()], schema=schema)
    sink = pa.BufferOutputStream()
    writer = ParquetWriter(sink, schema)
    writer.write_table(table)
    writer.close()
