"""Where inputs and outputs live: local paths or URIs (``s3://bucket/key``), one interface for both.

Everything goes through pyarrow's filesystem layer (``pyarrow.fs``), so an
S3-compatible store needs no shared disk: each worker opens the URIs it is
given. Credentials and endpoint come from the usual environment
(``AWS_ACCESS_KEY_ID``, ``AWS_SECRET_ACCESS_KEY``, ``AWS_ENDPOINT_URL``, …) or
from the URI's query (``?endpoint_override=host:port&scheme=http``).

Writes are whole or absent: locally a temporary name renamed into place; on an
object store the object appears only when its upload completes, so a part is
written under a temporary key and copied to its name (a server-side copy)
once it is complete (:class:`PublishedParquet` does both, for every Parquet
file the commands write a table at a time). Object stores have no file locks: two runs writing to
the same remote ``--out`` at once are not detected.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, TypeAlias

import pyarrow as pa
import pyarrow.parquet as pq
from pyarrow import fs

from cardbatch.batch.io.errors import InputError

if TYPE_CHECKING:
    from cardbatch.batch.io.parquet_write import ParquetWriter

# what parquet_writer gives: cardbatch's own writer, or pyarrow's
Writer: TypeAlias = "ParquetWriter | pq.ParquetWriter"


def is_uri(path: str) -> bool:
    return "://" in str(path)


# The URI schemes cardbatch reads and writes. pyarrow knows more (gs://, hdfs://), but some of them
# block in C while they look for credentials or a server (a gs:// path with no network waited for
# minutes and could not be interrupted): refused by name instead, before any is opened.
SCHEMES = ("s3", "file")


def resolve(path: str) -> tuple[fs.FileSystem, str]:
    """The filesystem and the path within it; :class:`~.errors.InputError` for a URI scheme
    other than :data:`SCHEMES`."""
    path = str(path)
    if is_uri(path):
        scheme = path.split("://", 1)[0].lower()
        if scheme not in SCHEMES:
            raise InputError(f"{path}: cardbatch reads and writes local paths and s3:// URIs, not {scheme}://")
        filesystem, inner = fs.FileSystem.from_uri(path)
        return filesystem, str(inner)
    return _LOCAL, os.path.abspath(path)


_LOCAL = fs.LocalFileSystem()


def absolute(path: str) -> str:
    """A local path made absolute (a URI as it is): what a worker is given, which may run in
    another folder, or on another machine, than the command."""
    return path if is_uri(path) else os.path.abspath(path)


def join(base: str, *parts: str) -> str:
    """``base/part/…`` for a local path or a URI (keeping a URI's query, if any, at the end)."""
    base = str(base)
    if is_uri(base):
        head, _, query = base.partition("?")
        joined = posixpath.join(head.rstrip("/"), *parts)
        return f"{joined}?{query}" if query else joined
    return os.path.join(base, *parts)


def _with_path(like: str, path_in_fs: str) -> str:
    """A path found inside ``like``'s filesystem, written the way ``like`` is (URI or local)."""
    if not is_uri(like):
        return path_in_fs
    scheme = str(like).split("://", 1)[0]
    _, _, query = str(like).partition("?")
    return f"{scheme}://{path_in_fs}" + (f"?{query}" if query else "")


def info(path: str) -> fs.FileInfo:
    """What is at ``path``; an object store that cannot be reached is an :class:`InputError` (exit 2,
    one line), the first question any command asks of its inputs and outputs."""
    filesystem, p = resolve(path)
    if not is_uri(path):
        return filesystem.get_file_info(p)
    try:
        return filesystem.get_file_info(p)
    except OSError as exc:
        raise InputError(f"cannot reach {path}: {exc}") from None


def exists(path: str) -> bool:
    return bool(info(path).type != fs.FileType.NotFound)


def is_dir(path: str) -> bool:
    return bool(info(path).type == fs.FileType.Directory)


def files_below(folder: str) -> Iterator[tuple[str, str]]:
    """(path written like ``folder``, path relative to it) of every file below ``folder``."""
    filesystem, base = resolve(folder)
    for item in filesystem.get_file_info(fs.FileSelector(base, recursive=True, allow_not_found=True)):
        if item.type == fs.FileType.File:
            rel = posixpath.relpath(item.path, base) if is_uri(folder) else os.path.relpath(item.path, base)
            yield _with_path(folder, item.path), rel


def entries_below(folder: str) -> Iterator[tuple[str, str, bool]]:
    """(path written like ``folder``, path relative to it, is a link) of every file below ``folder``
    and every symbolic link (to a file or a folder), never following a link: what lies behind one
    is not ``folder``'s. Only a local folder can hold links."""
    if is_uri(folder):
        for path, rel in files_below(folder):
            yield path, rel, False
        return
    base = os.path.abspath(folder)
    if os.path.islink(base) or not os.path.isdir(base):
        return
    for here, dirs, names in os.walk(base, followlinks=False):
        for name in sorted(dirs + names):
            path = os.path.join(here, name)
            link = os.path.islink(path)
            if link or name in names:
                yield path, os.path.relpath(path, base), link


def mkdir(path: str) -> None:
    filesystem, p = resolve(path)
    filesystem.create_dir(p, recursive=True)


def read_bytes(path: str, offset: int = 0, length: int | None = None) -> bytes:
    filesystem, p = resolve(path)
    with filesystem.open_input_file(p) as f:
        f.seek(offset)
        return bytes(f.read() if length is None else f.read(length))


def read_tail(path: str, size: int, guess: int = 1 << 16) -> tuple[bytes, int]:
    """The last ``guess`` bytes of a file of ``size`` bytes (all of it when smaller), in one read,
    and their offset in the file: a Parquet footer and its length usually fit."""
    filesystem, p = resolve(path)
    start = max(size - guess, 0)
    with filesystem.open_input_file(p) as f:
        f.seek(start)
        return f.read(size - start), start


def read_text(path: str) -> str:
    return read_bytes(path).decode()


def write_text(path: str, text: str) -> None:
    """Whole or absent (see the module docstring)."""
    write_bytes(path, text.encode())


def write_bytes(path: str, data: bytes) -> None:
    """Whole or absent (see the module docstring)."""
    filesystem, p = resolve(path)
    if isinstance(filesystem, fs.LocalFileSystem):
        tmp = posixpath.join(posixpath.dirname(p), f".{posixpath.basename(p)}.tmp")
        fresh(tmp)
        with filesystem.open_output_stream(tmp) as f:
            f.write(data)
        os.replace(tmp, p)
    else:
        with filesystem.open_output_stream(p) as f:  # an object appears when its upload completes
            f.write(data)


def delete(path: str) -> None:
    filesystem, p = resolve(path)
    filesystem.delete_file(p)


def temporary_for(path: str, tag: str = "") -> str:
    """The temporary name a file is written under: ``.name{tag}.tmp`` beside it."""
    head, _, query = str(path).partition("?")
    d, name = (posixpath if is_uri(path) else os.path).split(head)
    tmp = (posixpath if is_uri(path) else os.path).join(d, f".{name}{tag}.tmp")
    return f"{tmp}?{query}" if query else tmp


def publish(tmp: str, path: str) -> None:
    """Move a finished temporary file to its name: a rename, or a server-side copy and a delete."""
    filesystem, t = resolve(tmp)
    _, p = resolve(path)
    if isinstance(filesystem, fs.LocalFileSystem):
        os.replace(t, p)
    else:
        filesystem.copy_file(t, p)
        filesystem.delete_file(t)


def parquet_file(path: str, **kwargs: Any) -> pq.ParquetFile:
    filesystem, p = resolve(path)
    return pq.ParquetFile(filesystem.open_input_file(p), **kwargs)


def parquet_writer(path: str, schema: pa.Schema, own: bool = False, **kwargs: Any) -> Writer:
    """A Parquet writer of ``schema`` at ``path`` (local or a URI): pyarrow's, with ``kwargs``;
    ``own``: cardbatch's own (:mod:`.parquet_write`: the same schema and values read back, at under
    two fifths of pyarrow's cost) where the options are :data:`WRITE_OPTIONS` and it writes the
    column types. Asked for by name, by the jobs whose writing it speeds up (a settle run bigger
    than a batch): loading its kernels costs 0.13 s (compiling them into an empty cache 4.5 s), and
    a file's bytes must not depend on what else the process happened to load."""
    filesystem, p = resolve(path)
    if isinstance(filesystem, fs.LocalFileSystem):
        os.makedirs(os.path.dirname(p), exist_ok=True)
        fresh(p)
    if own and kwargs == WRITE_OPTIONS:
        from cardbatch.batch.io import parquet_write

        if parquet_write.supports(schema):
            return parquet_write.ParquetWriter(p, schema, filesystem=filesystem)
    return pq.ParquetWriter(p, schema, filesystem=filesystem, **kwargs)


def fresh(path: str) -> None:
    """Make way for a new local file at ``path``, a name of cardbatch's own (a temporary name):
    a symbolic link there is refused (writing would go through it), and an earlier file is
    unlinked first (a stopped run's leftover; writing into it would also write into every hard
    link of it)."""
    from cardbatch.batch.io.errors import InputError

    if os.path.islink(path):
        raise InputError(
            f"{path} is a symbolic link where cardbatch writes a temporary file: it never writes through a link"
        )
    if os.path.lexists(path):
        os.unlink(path)


# Row groups sized for readers: a writer given small tables (a unit of a few rows, one imported hand
# per file) gathers them until they hold ROW_GROUP_MIN rows, and never writes a row group larger
# than ROW_GROUP_MAX (DuckDB, Polars and Spark read row groups in parallel and skip them by
# statistics; thousands of tiny ones cost a footer entry and a read each).
ROW_GROUP_MIN = 1 << 16
ROW_GROUP_MAX = 1 << 20


class RowGroups:
    """Tables written to a Parquet writer (:data:`Writer`) in row groups of a whole multiple of
    ROW_GROUP_MIN rows, at most ROW_GROUP_MAX (the last one may be smaller), or of exactly ``size`` rows when
    given: :meth:`write` gathers, :meth:`flush` writes what is gathered. Whole multiples, so that a
    file settled with the default ``--batch-rows`` (ROW_GROUP_MIN) splits into full batches: a row
    group of 65,536 rows and a few more was settled as a full part and a part of a few rows. Each
    row group is written from contiguous arrays, so the file's bytes do not depend on how the rows
    were cut into tables."""

    def __init__(self, writer: Writer, size: int | None = None):
        self.writer = writer
        self.size = size
        self.pending: list[pa.Table] = []
        self.rows = 0

    def write(self, table: pa.Table) -> None:
        self.pending.append(table)
        self.rows += table.num_rows
        step = self.size or ROW_GROUP_MIN
        if self.rows >= step:
            self._write(self.rows - self.rows % step)

    def flush(self) -> None:
        if self.pending:
            self._write(self.rows)

    def _write(self, rows: int) -> None:
        """The first ``rows`` gathered rows; the rest stays gathered."""
        table = self.pending[0] if len(self.pending) == 1 else pa.concat_tables(self.pending)
        head = table.slice(0, rows)
        if any(c.num_chunks > 1 for c in head.columns):
            head = head.combine_chunks()
        self.writer.write_table(head, row_group_size=self.size or ROW_GROUP_MAX)
        rest = table.slice(rows)
        self.pending, self.rows = ([rest] if rest.num_rows else []), rest.num_rows


# Every Parquet file cardbatch writes: lz4, no dictionary encoding, no statistics (docs/decisions.md,
# "Writing the outputs": of every writer measured, the one that made the job fastest end to end
# while every reader still opens the files in their documented types).
WRITE_OPTIONS: dict[str, Any] = {"compression": "lz4", "use_dictionary": False, "write_statistics": False}


class PublishedParquet:
    """A Parquet file written a table at a time under its temporary name (:func:`temporary_for`)
    and published by :meth:`close` (:func:`publish`), so it is whole or absent; :meth:`abort`
    leaves nothing behind. Row groups are sized for readers (:class:`RowGroups`). With ``schema``
    the file is opened at once (no rows is still a file), else at the first table; ``options`` go
    to the writer after :data:`WRITE_OPTIONS`; ``row_group``: row groups of exactly that many rows;
    ``own``: as :func:`parquet_writer` takes it."""

    def __init__(
        self,
        path: str,
        schema: pa.Schema | None = None,
        seal: dict[bytes, bytes] | None = None,
        row_group: int | None = None,
        own: bool = False,
        **options: Any,
    ) -> None:
        self.path = path
        self.seal = seal
        self.row_group = row_group
        self.tmp = temporary_for(path)
        self.options = {"own": own, **WRITE_OPTIONS, **options}
        self.writer: Writer | None = None
        self.groups: RowGroups | None = None
        if schema is not None:
            self.writer = parquet_writer(self.tmp, schema, **self.options)
            self.groups = RowGroups(self.writer, row_group)

    def write(self, table: pa.Table) -> None:
        """Add ``table`` (in row groups of :class:`RowGroups`' sizes, whatever the tables' sizes)."""
        if self.writer is None:
            self.writer = parquet_writer(self.tmp, table.schema, **self.options)
            self.groups = RowGroups(self.writer, self.row_group)
        assert self.groups is not None
        self.groups.write(table)

    def close(self) -> None:
        if self.writer is not None:
            assert self.groups is not None
            self.groups.flush()
            if self.seal:
                self.writer.add_key_value_metadata(self.seal)
            self.writer.close()
            publish(self.tmp, self.path)

    def abort(self) -> None:
        try:
            if self.writer is not None:
                self.writer.close()
        except BaseException:
            pass
        try:
            if exists(self.tmp):
                delete(self.tmp)
        except OSError:
            pass
