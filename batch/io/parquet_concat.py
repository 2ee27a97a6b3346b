"""Parquet files of one schema joined into one file by copying their bytes, not by decoding them.

A job whose output is one big file (``generate``, ``rank-decks``) has its units
write their share as whole Parquet files, in parallel, on any worker. The
parent then joins them: each part's row groups (the column chunks, already
encoded and compressed) are copied as they are, one part after the other, and
a new footer lists every row group, its offsets moved by where its part
landed. The parent's work is a copy, so the job scales with its workers; and
the file is a function of the parts alone, so it has the same bytes whatever
worker wrote which part.

The footer is Thrift's compact protocol (the Parquet format's ``FileMetaData``):
:func:`decode` and :func:`encode` read and write it generically (every field
kept as it was read, so an unchanged footer encodes to its own bytes again),
and :func:`_moved` changes only the offsets and ordinals.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable

from cardbatch.batch.io import storage
from cardbatch.batch.io.thrift_compact import BINARY, LIST, STRUCT, Field, decode, encode

MAGIC = b"PAR1"
ARROW_SCHEMA = b"ARROW:schema"  # the key-value pair pyarrow reads the Arrow types back from
COPY_BYTES = 1 << 26  # copied a block at a time: a part of any size costs this much memory

# FileMetaData, RowGroup, ColumnChunk and ColumnMetaData field ids (parquet.thrift)
_FILE_NUM_ROWS, _FILE_ROW_GROUPS, _FILE_KEY_VALUES = 3, 4, 5
_RG_COLUMNS, _RG_FILE_OFFSET, _RG_ORDINAL = 1, 5, 7
_CC_OFFSETS = (2, 4, 6)  # file_offset, offset_index_offset, column_index_offset
_CC_META = 3
_CM_OFFSETS = (9, 10, 11, 14)  # data_page_offset, index_page_offset, dictionary_page_offset, bloom_filter_offset


def _get(fields: list[Field], fid: int) -> Field | None:
    return next((f for f in fields if f[0] == fid), None)


def _shift(fields: list[Field], fids: Iterable[int], by: int) -> None:
    for f in fields:
        if f[0] in fids and f[2]:  # 0 is "not set"; every real offset is past the leading magic
            f[2] += by


def _moved(row_group: list[Field], by: int, ordinal: int) -> list[Field]:
    """A row group's metadata with every offset moved ``by`` bytes and its ordinal set."""
    _shift(row_group, (_RG_FILE_OFFSET,), by)
    ordinal_field = _get(row_group, _RG_ORDINAL)
    if ordinal_field is not None:
        ordinal_field[2] = ordinal
    columns = _get(row_group, _RG_COLUMNS)
    for chunk in columns[2][1] if columns else []:
        _shift(chunk, _CC_OFFSETS, by)
        meta = _get(chunk, _CC_META)
        if meta is not None:
            _shift(meta[2], _CM_OFFSETS, by)
    return row_group


def footer_of(path: str) -> tuple[list[Field], int]:
    """A Parquet file's decoded footer and where its body ends (where the footer starts)."""
    size = storage.info(path).size
    tail, start = storage.read_tail(path, size)
    length = struct.unpack("<I", tail[-8:-4])[0] if len(tail) >= 8 else -1
    if tail[-4:] != MAGIC or not 0 <= length <= size - 12:
        raise ValueError(f"{path}: not a Parquet file")
    begin = size - 8 - length
    footer = tail[begin - start : -8] if begin >= start else storage.read_bytes(path, begin, length)
    return decode(footer), size - 8 - length


def concat(parts: list[str], out: str, key_values: dict[bytes, bytes] | None = None) -> int:
    """Join the Parquet files ``parts`` (one schema, written by one writer's settings) into ``out``,
    whole or absent (a temporary name, published when complete), adding ``key_values`` to the
    footer's key-value metadata; returns the rows. The parts are left in place."""
    if not parts:
        raise ValueError("concat: no part to join")
    first: list[Field] | None = None
    schema: bytes = b""
    groups: list[list[Field]] = []
    rows = 0
    tmp = storage.temporary_for(out)
    filesystem, p = storage.resolve(tmp)
    if not storage.is_uri(tmp):
        storage.fresh(p)
    try:
        with filesystem.open_output_stream(p) as sink:
            sink.write(MAGIC)
            at = len(MAGIC)
            for part in parts:
                meta, body_end = footer_of(part)
                this_schema = encode([f for f in meta if f[0] == 2])
                if first is None:
                    first, schema = meta, this_schema
                elif this_schema != schema:
                    raise ValueError(f"concat: {part} has another schema than {parts[0]}")
                found = _get(meta, _FILE_ROW_GROUPS)
                for group in found[2][1] if found else []:
                    groups.append(_moved(group, at - len(MAGIC), len(groups)))
                rows += _get(meta, _FILE_NUM_ROWS)[2]  # type: ignore[index]
                for offset in range(len(MAGIC), body_end, COPY_BYTES):
                    sink.write(storage.read_bytes(part, offset, min(COPY_BYTES, body_end - offset)))
                at += body_end - len(MAGIC)
            assert first is not None
            footer = _footer(first, groups, rows, key_values or {})
            sink.write(footer + struct.pack("<I", len(footer)) + MAGIC)
        storage.publish(tmp, out)
    except BaseException:
        if storage.exists(tmp):
            storage.delete(tmp)
        raise
    return rows


def _footer(first: list[Field], groups: list[list[Field]], rows: int, key_values: dict[bytes, bytes]) -> bytes:
    """The joined file's footer: the first part's, with every row group and the rows added up; its
    key-value metadata is the Arrow schema (every part's) and ``key_values``, never a part's own."""
    meta = [list(f) for f in first]
    _get(meta, _FILE_NUM_ROWS)[2] = rows  # type: ignore[index]
    found = _get(meta, _FILE_ROW_GROUPS)
    if found is not None:
        found[2] = [STRUCT, groups]
    kv = _get(meta, _FILE_KEY_VALUES)
    kept = [pair for pair in (kv[2][1] if kv else []) if _get(pair, 1) and _get(pair, 1)[2] == ARROW_SCHEMA]  # type: ignore[index]
    pairs = kept + [[[1, BINARY, k], [2, BINARY, v]] for k, v in key_values.items()]
    meta = [f for f in meta if f[0] != _FILE_KEY_VALUES]
    if pairs:
        meta.append([_FILE_KEY_VALUES, LIST, [STRUCT, pairs]])
        meta.sort(key=lambda f: f[0])
    return encode(meta)
