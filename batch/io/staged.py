"""One output file built from parts that units write on any worker: staged beside it, published whole.

A job whose output is one file (``import``, ``generate``, ``rank-decks``) or a
folder of a few (``simulate``) cuts its work into units; each unit writes
its share as a *part*, an Arrow IPC file in a hidden staging folder beside
the output (``.NAME.parts/``, on the output's own storage, so a Dask worker on
another machine writes it to ``s3://`` as well as a local worker to disk).
The parent then reads the parts in order into the output's one writer
(:class:`~.storage.PublishedParquet`: a temporary name, published when
complete), and removes the staging folder.

What this gives every such job:

- **whole or absent**: a part is written under a temporary name and renamed
  (or uploaded whole), and so is the output: a crash or a SIGKILL at any
  moment leaves no half-written file at a name a reader looks at;
- **resume**: the staging folder's ``plan.json`` records what the run was
  asked (inputs, options), and the parts sit in a folder named by its
  digest; a run of the same plan reuses every part that is there, so a run
  stopped after most of its units redoes only the rest. A run of another
  plan removes them and starts its own;
- **the same bytes whatever the engine**: the output is written by one
  writer in one process, in the units' order, so it does not depend on which
  worker ran which unit, or on how many there were;
- **ownership**: the staging folder is cardbatch's only while it holds
  cardbatch's ``plan.json``; a folder or file of the user's at that name stops
  the run before anything is written, and a file the user put inside it is
  left where it is (the folder then stays too).
"""

from __future__ import annotations

import hashlib
import json
import os
import posixpath
import re
from collections.abc import Iterable, Iterator
from typing import Any

import pyarrow as pa
from pyarrow import fs

from cardbatch.batch.io import storage
from cardbatch.batch.io.errors import InputError

PLAN = "plan.json"
_DIGEST = re.compile(r"^[0-9a-f]{16}$")
_PART = re.compile(r"^part-\d{6}(\.[a-z_]+)?\.(arrow|parquet)(\.tmp)?$")
MARK_KEY = "cardbatch.staged_by"


def part_name(index: int, kind: str = "", ext: str = "arrow") -> str:
    """The file name of unit ``index``'s part (``kind``: which of a unit's several tables; ``ext``:
    ``arrow`` for :func:`write_part`'s, ``parquet`` for :func:`write_parquet_part`'s)."""
    return f"part-{index:06d}{'.' + kind if kind else ''}.{ext}"


class Staging:
    """The staging folder of ``out`` for ``command``'s runs (see the module docstring)."""

    def __init__(self, out: str, command: str) -> None:
        head, _, query = storage.absolute(str(out)).partition("?")  # workers may run in another folder
        pathmod = posixpath if storage.is_uri(out) else os.path
        folder, name = pathmod.split(head.rstrip("/" + os.sep) or head)  # a folder's output: DIR/ is DIR
        staged = pathmod.join(folder, f".{name}.parts")
        self.folder = f"{staged}?{query}" if query else staged
        self.command = command
        self.digest: str | None = None

    def path(self, name: str) -> str:
        """Where the part file ``name`` (:func:`part_name`) of this run's plan is written (after
        :meth:`begin`: the parts of each plan have a folder of their own, named by the plan's digest, so
        a unit of an earlier run still finishing on a cluster never writes into this run's parts)."""
        if self.digest is None:
            raise RuntimeError("Staging.path before Staging.begin")
        return storage.join(self.folder, self.digest, name)

    def begin(self, plan: dict[str, Any]) -> frozenset[str]:
        """Make the staging folder ready for a run of ``plan`` (JSON-able: what the run was asked);
        returns the names of the parts an earlier run of the same plan finished, to be reused.
        Raises :class:`InputError` for a folder or file at its name that cardbatch did not make."""
        text = json.dumps({MARK_KEY: f"cardbatch {self.command}", "plan": plan}, sort_keys=True, default=str)
        self.digest = hashlib.blake2b(text.encode(), digest_size=8).hexdigest()
        if not storage.is_uri(self.folder) and os.path.islink(self.folder):
            raise InputError(
                f"{self.folder} is a symbolic link: cardbatch stages its parts there and never writes through a link"
            )
        try:
            return self._begin(text)
        except (OSError, pa.ArrowException) as exc:  # an unwritable folder, an unreachable store
            raise InputError(f"cannot write to {self.folder}: {exc}") from None

    def _begin(self, text: str) -> frozenset[str]:
        assert self.digest is not None
        reuse: set[str] = set()
        if storage.exists(self.folder):
            if not storage.is_dir(self.folder) or not self._ours():
                raise InputError(
                    f"{self.folder} exists and cardbatch did not make it: cardbatch {self.command} stages its "
                    "parts at that name; move it, or choose another output name"
                )
            for digest, name in self._parts():
                path = storage.join(self.folder, digest, name)
                if digest == self.digest and not name.endswith(".tmp") and _whole(path):
                    reuse.add(name)
                else:  # another plan's parts, or a part a stopped run (or anyone) left broken
                    storage.delete(path)
            self._drop_empty(keep=self.digest)
        storage.mkdir(storage.join(self.folder, self.digest))
        storage.write_text(storage.join(self.folder, PLAN), text)
        return frozenset(reuse)

    def _marked(self) -> dict[str, Any] | None:
        """The folder's ``plan.json`` when it is cardbatch's (None: no folder, no plan, or not ours)."""
        try:
            found = json.loads(storage.read_text(storage.join(self.folder, PLAN)))
        except (OSError, ValueError, pa.ArrowException):
            return None
        return found if isinstance(found, dict) and MARK_KEY in found else None

    def _ours(self) -> bool:
        return self._marked() is not None

    def plan(self) -> Any:
        """The plan an earlier run left in the folder (None: none, or not cardbatch's)."""
        marked = self._marked()
        return marked.get("plan") if marked is not None else None

    def _parts(self) -> Iterator[tuple[str, str]]:
        """(plan digest, name) of every part file (finished or not) in the folder: never a file of
        anyone else's, nor a link."""
        for _, rel, link in storage.entries_below(self.folder):
            digest, _, name = rel.replace(os.sep, "/").partition("/")
            if not link and _DIGEST.match(digest) and "/" not in name and _PART.match(name):
                yield digest, name

    def _drop_empty(self, keep: str | None = None) -> None:
        """Remove the plans' folders left empty (a local disk; an object store has no empty folder)."""
        if storage.is_uri(self.folder):
            return
        for entry in os.scandir(self.folder):
            if entry.name != keep and _DIGEST.match(entry.name) and entry.is_dir(follow_symlinks=False):
                try:
                    os.rmdir(entry.path)
                except OSError:
                    pass  # a file of the user's inside: it stays

    def finish(self) -> None:
        """Remove the parts and the plan once the output is published; the folder too, unless
        something else was put in it."""
        for digest, name in self._parts():
            storage.delete(storage.join(self.folder, digest, name))
        storage.delete(storage.join(self.folder, PLAN))
        if storage.is_uri(self.folder):  # the empty folder markers create_dir left, when nothing else is below
            if storage.exists(self.folder) and not any(True for _ in storage.files_below(self.folder)):
                filesystem, path = storage.resolve(self.folder)
                filesystem.delete_dir(path)
            return
        self._drop_empty()
        try:
            os.rmdir(self.folder)
        except OSError:
            pass  # a file of the user's inside: it stays, and so does the folder


def _whole(path: str) -> bool:
    """A part whose file ends as its format ends (its footer reads): a part cut short, or replaced by
    anything else, is made again instead of failing every rerun."""
    from cardbatch.batch.io import parquet_concat

    try:
        if path.partition("?")[0].endswith(".parquet"):
            parquet_concat.footer_of(path)
        else:
            filesystem, p = storage.resolve(path)
            with filesystem.open_input_file(p) as source:
                pa.ipc.open_file(source).schema  # noqa: B018 (reads the footer)
        return True
    except (OSError, ValueError, pa.ArrowException):
        return False


def write_part(path: str, table: pa.Table) -> None:
    """A unit's part, whole or absent: an uncompressed Arrow IPC file (written and read back at
    memory speed) under a temporary name, then renamed (or, on an object store, uploaded whole)."""
    tmp = f"{path}.tmp"
    filesystem, p = storage.resolve(tmp)
    if isinstance(filesystem, fs.LocalFileSystem):
        storage.fresh(p)
    with filesystem.open_output_stream(p) as sink, pa.ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table)
    storage.publish(tmp, path)


def write_parquet_part(
    path: str, table: pa.Table, row_group: int = storage.ROW_GROUP_MAX, key_values: dict[bytes, bytes] | None = None
) -> None:
    """A unit's part as the output's own Parquet (:data:`~.storage.WRITE_OPTIONS`, row groups of
    ``row_group`` rows, from contiguous arrays so its bytes depend on the rows alone), whole or
    absent; the parent joins such parts by copying their bytes (:mod:`.parquet_concat`).
    ``key_values``: the part's own footer metadata (its counters), not carried into the output."""
    tmp = f"{path}.tmp"
    table = table.combine_chunks() if any(c.num_chunks > 1 for c in table.columns) else table
    writer = storage.parquet_writer(tmp, table.schema, **storage.WRITE_OPTIONS)
    try:
        writer.write_table(table, row_group_size=row_group)
        if key_values:
            writer.add_key_value_metadata(key_values)
    finally:
        writer.close()
    storage.publish(tmp, path)


def read_part(path: str) -> pa.Table:
    """A part written by :func:`write_part` (memory-mapped when local)."""
    filesystem, p = storage.resolve(path)
    if isinstance(filesystem, fs.LocalFileSystem):
        with pa.memory_map(p) as source:
            return pa.ipc.open_file(source).read_all()
    with filesystem.open_input_file(p) as source:
        return pa.ipc.open_file(source).read_all()


def parts_in_order(staging: Staging, names: Iterable[str]) -> Iterator[pa.Table]:
    """Each named part's table, in the order given."""
    for name in names:
        yield read_part(staging.path(name))
