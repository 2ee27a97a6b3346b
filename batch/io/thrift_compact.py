"""Thrift's compact protocol, the encoding of a Parquet file's footer and page headers, read and
written generically: :func:`decode` gives a struct's fields as ``[field id, type, value]`` lists
(every field kept as it was read, so an unchanged struct encodes to its own bytes again) and
:func:`encode` writes them back; a struct given as :class:`Encoded` bytes is written as it is
(a writer encodes its row groups by hand, :func:`varint` and :func:`zigzag`, as it goes).

A module of its own that imports nothing of cardbatch: :mod:`.parquet_concat` (which imports
:mod:`.storage`) and :mod:`.parquet_write` (which :mod:`.storage` chooses) both use it.
"""

from __future__ import annotations

import struct
from typing import Any

# Thrift compact protocol's type codes
STOP, TRUE, FALSE, BYTE, I16, I32, I64, DOUBLE, BINARY, LIST, SET, MAP, STRUCT = range(13)

Field = list[Any]  # [field id, type, value]; a struct is a list of fields


class _Reader:
    def __init__(self, buf: bytes) -> None:
        self.buf, self.pos = buf, 0

    def byte(self) -> int:
        b = self.buf[self.pos]
        self.pos += 1
        return b

    def varint(self) -> int:
        shift = result = 0
        while True:
            b = self.byte()
            result |= (b & 0x7F) << shift
            if not b & 0x80:
                return result
            shift += 7

    def zigzag(self) -> int:
        v = self.varint()
        return (v >> 1) ^ -(v & 1)

    def value(self, t: int) -> Any:
        if t in (TRUE, FALSE):
            return t == TRUE
        if t == BYTE:
            return struct.unpack("b", bytes([self.byte()]))[0]
        if t in (I16, I32, I64):
            return self.zigzag()
        if t == DOUBLE:
            self.pos += 8
            return self.buf[self.pos - 8 : self.pos]
        if t == BINARY:
            n = self.varint()
            self.pos += n
            return self.buf[self.pos - n : self.pos]
        if t in (LIST, SET):
            head = self.byte()
            size, et = head >> 4, head & 0x0F
            if size == 15:
                size = self.varint()
            items = [self.byte() == TRUE if et in (TRUE, FALSE) else self.value(et) for _ in range(size)]
            return [et, items]
        if t == MAP:
            size = self.varint()
            kv = self.byte() if size else 0
            kt, vt = kv >> 4, kv & 0x0F
            return [kt, vt, [(self.value(kt), self.value(vt)) for _ in range(size)]]
        if t == STRUCT:
            return self.fields()
        raise ValueError(f"Parquet footer: unknown Thrift type {t}")

    def fields(self) -> list[Field]:
        out: list[Field] = []
        last = 0
        while True:
            head = self.byte()
            if head == STOP:
                return out
            delta, t = head >> 4, head & 0x0F
            fid = last + delta if delta else self.zigzag()
            out.append([fid, t, self.value(t)])
            last = fid


class Encoded(bytes):
    """A struct already encoded (by :func:`encode`, or by hand): :func:`encode` writes its bytes
    as they are."""


def varint(v: int) -> bytes:
    """An unsigned integer as Thrift writes it (a length, a list's size)."""
    return _varint(v)


def zigzag(v: int) -> bytes:
    """A signed integer (i16, i32, i64) as Thrift writes it."""
    return _zigzag(v)


def _varint(v: int) -> bytes:
    out = bytearray()
    while True:
        if v < 0x80:
            out.append(v)
            return bytes(out)
        out.append((v & 0x7F) | 0x80)
        v >>= 7


def _zigzag(v: int) -> bytes:
    return _varint((v << 1) ^ (v >> 63))


def _value(t: int, v: Any) -> bytes:
    if t in (TRUE, FALSE):
        return b""  # a struct field's bool is its type
    if t == BYTE:
        return struct.pack("b", v)
    if t in (I16, I32, I64):
        return _zigzag(v)
    if t == DOUBLE:
        return bytes(v)
    if t == BINARY:
        return _varint(len(v)) + bytes(v)
    if t in (LIST, SET):
        et, items = v
        head = bytes([(len(items) << 4) | et]) if len(items) < 15 else bytes([0xF0 | et]) + _varint(len(items))
        if et in (TRUE, FALSE):
            return head + bytes(TRUE if x else FALSE for x in items)
        return head + b"".join(_value(et, x) for x in items)
    if t == MAP:
        kt, vt, pairs = v
        if not pairs:
            return b"\x00"
        return _varint(len(pairs)) + bytes([(kt << 4) | vt]) + b"".join(_value(kt, k) + _value(vt, x) for k, x in pairs)
    if t == STRUCT:
        return v if isinstance(v, Encoded) else encode(v)
    raise ValueError(f"Parquet footer: unknown Thrift type {t}")


def encode(fields: list[Field]) -> bytes:
    """A Thrift compact struct (:func:`decode`'s fields) as bytes."""
    out = bytearray()
    last = 0
    for fid, t, v in fields:
        wire = (TRUE if v else FALSE) if t in (TRUE, FALSE) else t
        delta = fid - last
        out += bytes([(delta << 4) | wire]) if 0 < delta <= 15 else bytes([wire]) + _zigzag(fid)
        out += _value(t, v)
        last = fid
    out.append(STOP)
    return bytes(out)


def decode(footer: bytes) -> list[Field]:
    """A Thrift compact struct (a Parquet footer) as its fields, every one kept as read."""
    return _Reader(footer).fields()
