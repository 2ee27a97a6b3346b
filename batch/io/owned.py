"""Which files a command may write: an input is never an output, and a file cardbatch did not write
is the user's.

Every file a command writes at a name the user chose (``import``'s, ``generate``'s and
``rank-decks``' Parquet files and figures, ``simulate``'s folder) carries a mark naming the command
that wrote it: the Parquet footer's key-value metadata, a PNG text chunk, a JSON key (all
``cardbatch <command>``). Before anything is written, :func:`check_outputs` refuses (``InputError``,
exit 2):

- an output that is one of the inputs, however the path spells it (a link, ``..``, a hard link);
- an output that is a symbolic link (nothing is written through a link) or a folder;
- two outputs of one run at the same name;
- an existing file at an output's name that does not carry this command's mark (the user's), unless
  the mode is ``overwrite``; with mode ``error``, any existing file.

So a run replaces only what a run of the same command wrote, and :func:`remove_ours` removes only
files of that mark. ``settle``'s folder keeps its own manifest (:mod:`cardbatch.batch.settle.manifest`).
"""

from __future__ import annotations

import glob
import json
import os
import struct
from collections.abc import Iterable, Sequence

import pyarrow as pa

from cardbatch.batch.io import storage
from cardbatch.batch.io.errors import InputError
from cardbatch.batch.io.jobs import FILE_MODES, FileMode

MARK_KEY = "cardbatch.written_by"  # Parquet metadata and JSON key
PNG_KEY = "Software"  # the PNG text chunk matplotlib writes anyway


def mark(command: str) -> str:
    """The mark a file written by ``command`` carries: ``cardbatch import`` and so on."""
    return f"cardbatch {command}"


def parquet_metadata(command: str) -> dict[bytes, bytes]:
    """The key-value metadata that marks a Parquet file as ``command``'s (merge into the schema's)."""
    return {MARK_KEY.encode(): mark(command).encode()}


def marked(schema: pa.Schema, command: str) -> pa.Schema:
    """``schema`` with ``command``'s mark added to its metadata."""
    return schema.with_metadata({**(schema.metadata or {}), **parquet_metadata(command)})


def png_metadata(command: str) -> dict[str, str]:
    """matplotlib's ``savefig(metadata=...)`` that marks a PNG figure as ``command``'s."""
    return {PNG_KEY: mark(command)}


def mark_of(path: str) -> str | None:
    """The mark of the file at ``path`` (``cardbatch <command>``), or None: a file of the user's, or
    one that cannot be read. Parquet, PNG and JSON files are told by their first bytes."""
    try:
        head = storage.read_bytes(path, 0, 8)
        if head[:4] == b"PAR1":
            meta = storage.parquet_file(path).schema_arrow.metadata or {}
            found = meta.get(MARK_KEY.encode())
            return found.decode(errors="replace") if found is not None else None
        if head == b"\x89PNG\r\n\x1a\n":
            return _png_text(storage.read_bytes(path, 0, 1 << 16)).get(PNG_KEY)
        if head[:1] == b"{":
            found = json.loads(storage.read_text(path))
            value = found.get(MARK_KEY) if isinstance(found, dict) else None
            return value if isinstance(value, str) else None
    except (OSError, ValueError, pa.ArrowException):  # unreadable: not a file of ours
        return None
    return None


def _png_text(data: bytes) -> dict[str, str]:
    """The tEXt chunks before the image data of a PNG's first bytes."""
    found: dict[str, str] = {}
    at = 8
    while at + 8 <= len(data):
        (length,) = struct.unpack(">I", data[at : at + 4])
        kind = data[at + 4 : at + 8]
        if kind == b"IDAT":
            break
        if kind == b"tEXt":
            key, _, value = data[at + 8 : at + 8 + length].partition(b"\0")
            found[key.decode("latin-1")] = value.decode("latin-1")
        at += 12 + length
    return found


def _real(path: str) -> str:
    return path if storage.is_uri(path) else os.path.realpath(path)


def _same(a: str, b: str) -> bool:
    """Whether two paths name one file: the same real path, or (both existing) one inode."""
    if _real(a) == _real(b):
        return True
    if storage.is_uri(a) or storage.is_uri(b):
        return False
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def check_outputs(outputs: Sequence[str], command: str, mode: FileMode = "replace", inputs: Iterable[str] = ()) -> None:
    """Refuse (``InputError``), before anything is written, outputs ``command`` may not write (see
    the module docstring). ``inputs``: the files the run reads."""
    if mode not in FILE_MODES:
        raise InputError(f"--mode must be one of {', '.join(FILE_MODES)}, got {mode!r}")
    read = list(inputs)
    for i, out in enumerate(outputs):
        for other in outputs[:i]:
            if _same(out, other):
                raise InputError(f"two of this run's outputs, {other} and {out}, are one file: give them other names")
        for given in read:
            if _same(out, given):
                raise InputError(f"{out} is an input of this run: an input is never an output; choose another --out")
        if not storage.is_uri(out) and os.path.islink(out):
            raise InputError(f"{out} is a symbolic link: cardbatch never writes through a link; choose another --out")
        if not storage.exists(out):
            continue
        if storage.is_dir(out):
            raise InputError(f"{out} is a folder, and cardbatch writes a file there: choose another --out")
        if mode == "error":
            raise InputError(f"{out} already exists (--mode error): choose another --out")
        if mode == "replace" and mark_of(out) != mark(command):
            raise InputError(
                f"{out} exists and no run of cardbatch {command} wrote it: it is left alone; move it, choose "
                "another --out, or give --mode overwrite to write over it"
            )


def check_folder_apart(out: str, inputs: Iterable[str]) -> None:
    """Refuse (``InputError``) an output folder that is an input, or holds one: a folder, the root
    of a glob or a file the run reads. (An output folder inside an input folder is fine: the inputs
    skip a folder that holds cardbatch output.) Without this, the first run would work and every
    rerun find its inputs gone, inside a folder of cardbatch output."""
    real_out = _real(out).rstrip("/")
    for given in inputs:
        base = given
        if not storage.is_uri(given) and glob.has_magic(given):
            root = given[: min(given.index(c) for c in "*?[" if c in given)]
            base = root if root.endswith(os.sep) else os.path.dirname(root)
        real_in = _real(base or ".").rstrip("/")
        sep = "/" if storage.is_uri(given) else os.sep
        if real_in == real_out or real_in.startswith(real_out + sep):
            where = "is" if real_in == real_out else "lies inside"
            raise InputError(
                f"the input {given} {where} the output folder {out}: an input is never an output (a rerun would "
                "find its inputs inside cardbatch output and skip them); choose an --out outside the inputs"
            )


def check_holds_no_input(out: str, inputs: Iterable[str], paths: Iterable[str] = ()) -> None:
    """Refuse (``InputError``) an existing local output folder that holds a Parquet file the run
    reads or would read: below an input folder, matched by an input glob, or one file with an input
    (a hard link). Once the folder holds cardbatch's manifest, inputs skip it: the file would be
    settled once and then left out of every later run of the same inputs, in silence. Files under
    ``results/``, ``errors/`` and ``_parts/`` (cardbatch's parts) do not count. ``paths``: the
    input files found."""
    if storage.is_uri(out) or not os.path.isdir(out):
        return
    real_out = os.path.realpath(out)
    held: list[str] = []
    for here, dirs, names in os.walk(real_out):
        if here == real_out:
            dirs[:] = [d for d in dirs if d not in ("results", "errors", "_parts")]
        dirs[:] = [d for d in dirs if not d.startswith((".", "_"))]
        held.extend(os.path.join(here, n) for n in names if n.endswith(".parquet") and not n.startswith((".", "_")))
    if not held:
        return
    found = [p for p in paths if not storage.is_uri(p)]
    for given in inputs:
        if storage.is_uri(given):
            continue
        if glob.has_magic(given):
            matched = {os.path.realpath(m) for m in glob.glob(given, recursive=True)}
            hit = [f for f in held if f in matched]
        elif os.path.isdir(given):
            base = os.path.realpath(given)
            hit = [f for f in held if f.startswith(base + os.sep)]
        else:
            hit = []
        hit += [f for f in held for p in found if _same(f, p)]
        if hit:
            raise InputError(
                f"the output folder {out} holds {hit[0]}, an input of this run ({given}): an input is never an "
                "output (once cardbatch writes there, later runs of these inputs would skip it); choose an --out "
                "that holds no input"
            )


def remove_ours(paths: Iterable[str], command: str) -> list[str]:
    """Remove each file of ``paths`` that carries ``command``'s mark (never a link, never a file of
    the user's); returns those removed."""
    gone = []
    for path in paths:
        if not storage.is_uri(path) and os.path.islink(path):
            continue
        if storage.exists(path) and not storage.is_dir(path) and mark_of(path) == mark(command):
            storage.delete(path)
            gone.append(path)
    return gone
