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

import fnmatch
import glob
import json
import os
import re
import struct
from collections.abc import Callable, Iterable, Sequence

import pyarrow as pa
import pyarrow.parquet as pq

from cardbatch.batch.io import storage
from cardbatch.batch.io.errors import InputError
from cardbatch.batch.io.inputs import glob_root, visible
from cardbatch.batch.io.jobs import FILE_MODES, FileMode

_RESERVED = re.compile(r"^\..+\.(parts|tmp)$")  # staging folders and temporary files (.staged, .storage)
MARK_KEY = "cardbatch.written_by"  # Parquet metadata and JSON key
PNG_KEY = "Software"  # the PNG text chunk matplotlib writes anyway


def mark(command: str) -> str:
    """The mark a file written by ``command`` carries: ``cardbatch import`` and so on."""
    return f"cardbatch {command}"


def parquet_metadata(command: str) -> dict[bytes, bytes]:
    """The key-value metadata that marks a Parquet file as ``command``'s (merge into the schema's)."""
    return {MARK_KEY.encode(): mark(command).encode()}


def seal(writer: pq.ParquetWriter, command: str) -> None:
    """Mark the Parquet file ``writer`` writes as ``command``'s, just before it is closed: in the
    file's own key-value metadata, not in the Arrow schema, so a table read from the file and
    written again elsewhere (pyarrow, Polars, pandas) does not carry the mark; the file becomes the
    user's."""
    writer.add_key_value_metadata(parquet_metadata(command))


def png_metadata(command: str) -> dict[str, str]:
    """matplotlib's ``savefig(metadata=...)`` that marks a PNG figure as ``command``'s."""
    return {PNG_KEY: mark(command)}


def mark_of(path: str) -> str | None:
    """The mark of the file at ``path`` (``cardbatch <command>``), or None: a file of the user's, or
    one that cannot be read. Parquet, PNG and JSON files are told by their first bytes."""
    try:
        head = storage.read_bytes(path, 0, 8)
        if head[:4] == b"PAR1":
            meta = storage.parquet_file(path).metadata.metadata or {}
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


def same_file(a: str, b: str) -> bool:
    """Whether two paths name one file: the same real path, or (both existing) one inode."""
    return bool(_Files([b]).holds(a))


class _Files:
    """Paths as the files they name, to ask of any path whether it is one of them: by real path
    (a file not there yet, a URI) or by inode (a hard link). Built once; each question is a
    ``stat``, however many paths there are (an import reads thousands of one-hand files)."""

    def __init__(self, paths: Iterable[str]) -> None:
        self.real: set[str] = set()
        self.inodes: set[tuple[int, int]] = set()
        for p in paths:
            self.real.add(_real(p))
            inode = _inode(p)
            if inode is not None:
                self.inodes.add(inode)

    def holds(self, path: str) -> bool:
        return _real(path) in self.real or (_inode(path) or (-1, -1)) in self.inodes


def _inode(path: str) -> tuple[int, int] | None:
    if storage.is_uri(path):
        return None
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def check_outputs(outputs: Sequence[str], command: str, mode: FileMode = "replace", inputs: Iterable[str] = ()) -> None:
    """Refuse (``InputError``), before anything is written, outputs ``command`` may not write (see
    the module docstring). ``inputs``: the files the run reads."""
    if mode not in FILE_MODES:
        raise InputError(f"--mode must be one of {', '.join(FILE_MODES)}, got {mode!r}")
    read = _Files(inputs)
    for i, out in enumerate(outputs):
        for other in outputs[:i]:
            if same_file(out, other):
                raise InputError(f"two of this run's outputs, {other} and {out}, are one file: give them other names")
        if any(_RESERVED.match(part) for part in out.partition("?")[0].replace(os.sep, "/").split("/")):
            raise InputError(
                f"{out}: names of the form .NAME.parts and .NAME.tmp are cardbatch's own (where it stages parts "
                "and writes temporary files); choose another name"
            )
        if out.endswith(("/", os.sep)):
            raise InputError(f"{out} names a folder, and cardbatch writes a file there: give the file's name")
        if read.holds(out):
            raise InputError(f"{out} is an input of this run: an input is never an output; choose another --out")
        if not storage.is_uri(out) and os.path.islink(out):
            raise InputError(f"{out} is a symbolic link: cardbatch never writes through a link; choose another --out")
        tmp = storage.temporary_for(out)
        if not storage.is_uri(out) and os.path.islink(tmp):
            raise InputError(
                f"{tmp}, the temporary name cardbatch writes {out} under, is a symbolic link: it never writes "
                "through a link; remove it or choose another --out"
            )
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
            base = glob_root(given)
        real_in = _real(base or ".").rstrip("/")
        sep = "/" if storage.is_uri(given) else os.sep
        if real_in == real_out or real_in.startswith(real_out + sep):
            where = "is" if real_in == real_out else "lies inside"
            raise InputError(
                f"the input {given} {where} the output folder {out}: an input is never an output (a rerun would "
                "find its inputs inside cardbatch output and skip them); choose an --out outside the inputs"
            )


def check_not_read_later(outputs: Sequence[str], inputs: Iterable[str], suffixes: tuple[str, ...]) -> None:
    """Refuse (``InputError``) an output that the same inputs would name on the next run: inside
    an input folder with a name it reads (``suffixes``), or matched by an input glob. The first run
    would work, and the next one read its own output (or refuse it as an input): a nightly job
    that works once."""
    given = [g for g in inputs if not storage.is_uri(g)]
    for out in outputs:
        if storage.is_uri(out):
            continue
        real = os.path.realpath(out)
        for g in given:
            if glob.has_magic(g):
                root = glob_root(g)
                rest = g[len(root) :].lstrip(os.sep) if root else g
                hit = fnmatch.fnmatchcase(real, os.path.join(os.path.realpath(root or "."), rest))
            elif os.path.isdir(g):
                base = os.path.realpath(g)
                hit = (
                    real.startswith(base + os.sep) and real.endswith(suffixes) and visible(os.path.relpath(real, base))
                )
            else:
                hit = False
            if hit:
                raise InputError(
                    f"{out} would be read as an input ({g}) by the next run of the same command: an input is never "
                    "an output; write it outside the inputs"
                )


def held_parquet(out: str, ours: Callable[[str], bool] = lambda rel: False) -> list[str]:
    """The real paths of the Parquet files below an existing local output folder, ``results/`` and
    ``errors/`` included, but for those where cardbatch writes its own parts (``ours``: a path
    relative to the folder, with ``/``); read once a run, for the two checks below."""
    if storage.is_uri(out) or not os.path.isdir(out):
        return []
    real_out = os.path.realpath(out)
    held: list[str] = []
    for here, dirs, names in os.walk(real_out):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for n in names:
            full = os.path.join(here, n)
            if n.endswith(".parquet") and not ours(os.path.relpath(full, real_out).replace(os.sep, "/")):
                held.append(full)
    return held


def check_holds_no_input(out: str, inputs: Iterable[str], held: list[str]) -> None:
    """Refuse (``InputError``) an output folder that holds (``held``: :func:`held_parquet`) a
    Parquet file below an input folder or matched by an input glob. Once the folder holds
    cardbatch's manifest, inputs skip it: the file would be settled once and then left out of every
    later run of the same inputs, in silence. Checked before the inputs are listed (a rerun's
    listing no longer sees such a file)."""
    if not held:
        return
    for given in inputs:
        if storage.is_uri(given):
            continue
        if glob.has_magic(given):
            matched = {os.path.realpath(m) for m in glob.glob(given, recursive=True)}
            hit = [f for f in held if f in matched]
        elif os.path.isdir(given):
            base = os.path.realpath(given)
            hit = [f for f in held if f.startswith(base + os.sep) and visible(os.path.relpath(f, base))]
        else:
            hit = []
        if hit:
            _holds(out, hit[0], f" ({given})")


def check_reads_nothing_in(out: str, held: list[str], paths: Iterable[str]) -> None:
    """Refuse (``InputError``) input files (``paths``, as listed) that lie below the output folder,
    or are one file with a Parquet file it holds (a hard link): the same silent skip on later runs."""
    if storage.is_uri(out):
        return
    real_out = os.path.realpath(out)
    found = [p for p in paths if not storage.is_uri(p)]
    inside = [p for p in found if os.path.realpath(p).startswith(real_out + os.sep)]
    if inside:
        _holds(out, inside[0], "")
    if held:
        read = _Files(found)
        linked = [f for f in held if read.holds(f)]
        if linked:
            _holds(out, linked[0], "")


def _holds(out: str, path: str, given: str) -> None:
    raise InputError(
        f"the output folder {out} holds {path}, an input of this run{given}: an input is never an output (once "
        "cardbatch writes there, later runs of these inputs would skip it); choose an --out that holds no input"
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
