"""What a job's inputs name: files, folders (hive partitions included) and globs, local or ``s3://``
(Parquet, :func:`parquet_inputs`), or local text files by suffix (:func:`local_files`).

A folder that holds a cardbatch output manifest is an output of ours, never an input, however it
is reached (a folder, a glob): an ``--out`` inside the input folder is skipped on every run.
"""

from __future__ import annotations

import functools
import glob
import json
import os
from collections.abc import Iterable

import pyarrow as pa
from pyarrow.fs import FileType as fs_types

from cardbatch.batch.io import storage
from cardbatch.batch.io.errors import InputError

OUTPUT_MANIFEST = "_manifest.json"  # what marks a folder cardbatch writes its outputs to


def is_output_manifest(path: str) -> bool:
    """Whether ``path`` is a manifest cardbatch wrote (a file of that name from another tool is not)."""
    try:
        if not storage.exists(path):
            return False
        found = json.loads(storage.read_text(path))
    except (OSError, ValueError):
        return False
    return isinstance(found, dict) and "fingerprint" in found and "files" in found


def parquet_inputs(inputs: Iterable[str]) -> list[str]:
    """Files, folders (recursively, hive partitions included) and globs, sorted and de-duplicated.

    A folder that holds a cardbatch manifest is an output of ours, never an
    input: an ``--out`` inside the input folder is skipped, however it is
    reached (folder or glob)."""
    found: list[str] = []
    for item in inputs:
        remote = storage.is_uri(item)
        globbed = not remote and any(ch in item for ch in "*?[")
        matches = sorted(glob.glob(item, recursive=True)) if globbed else [item]
        if globbed:
            matches = [m for m in matches if not _inside_output(os.path.dirname(os.path.abspath(m)))]
        if not matches:
            raise InputError(f"no input matches {item!r}")
        for m in matches:
            try:
                kind = storage.info(m).type
            except (OSError, pa.ArrowException) as exc:
                raise InputError(f"cannot reach {m!r}: {exc}") from None
            if kind == fs_types.Directory:
                if not globbed and not remote and _inside_output(os.path.abspath(m)):
                    raise InputError(
                        f"{m} lies in a folder of cardbatch output (it holds a cardbatch manifest): its files are "
                        "outputs, never inputs; move what you want read out of it"
                    )
                found.extend(_parquet_files(m))
            elif kind == fs_types.File:
                found.append(m)
            else:
                raise InputError(f"input {m!r} does not exist")
    if not found:
        raise InputError("no Parquet files in the inputs (folders holding cardbatch output are skipped)")
    return list(dict.fromkeys(found))


@functools.lru_cache(maxsize=4096)
def _inside_output(folder: str) -> bool:
    """Whether a local folder or one of its parents holds a cardbatch manifest."""
    if is_output_manifest(os.path.join(folder, OUTPUT_MANIFEST)):
        return True
    parent = os.path.dirname(folder)
    return parent != folder and _inside_output(parent)


def _parquet_files(folder: str) -> list[str]:
    """The Parquet files below ``folder`` (a path or a URI), through pyarrow's filesystem layer,
    skipping what pyarrow's dataset readers skip (any file or folder whose name starts with ``.``
    or ``_``) and every folder that holds a cardbatch manifest (our own output)."""
    below = list(storage.files_below(folder))
    outputs = [
        rel.replace("\\", "/")[: -len(OUTPUT_MANIFEST)]
        for path, rel in below
        if rel.replace("\\", "/").split("/")[-1] == OUTPUT_MANIFEST and is_output_manifest(path)
    ]
    if not storage.is_uri(folder) and _inside_output(os.path.abspath(folder)):
        return []
    files = []
    for path, rel in below:
        rel = rel.replace("\\", "/")
        if not rel.endswith(".parquet") or any(part.startswith((".", "_")) for part in rel.split("/")):
            continue
        if any(rel.startswith(o) for o in outputs):
            continue
        files.append(path if storage.is_uri(folder) else os.path.join(folder, rel))
    return sorted(files)


def glob_root(pattern: str) -> str:
    """The folder before a glob's first wildcard (``""``: the current one)."""
    root = pattern[: min(pattern.index(c) for c in "*?[" if c in pattern)]
    return root if root.endswith(os.sep) else os.path.dirname(root)


def visible(rel: str) -> bool:
    """Whether a path relative to an input folder is read from it: no part of it starts with ``.``
    or ``_`` (what pyarrow's dataset readers skip, and so does every input folder here)."""
    return not any(part.startswith((".", "_")) for part in rel.split(os.sep))


def local_files(inputs: list[str], suffixes: tuple[str, ...]) -> list[tuple[str, str]]:
    """``(path, path relative to its input root)`` of every local file the inputs name, sorted by that
    relative path, each once: the import's inputs, whose relative paths name the hands they hold.

    A folder is searched recursively for names ending in one of ``suffixes`` (names starting
    with ``.`` or ``_`` skipped); a glob's root is the folder before its first wildcard; a file's
    root is its folder.
    """
    found: dict[str, str] = {}
    for given in inputs:
        if os.path.isdir(given):
            for folder, dirs, names in os.walk(given):
                dirs[:] = sorted(d for d in dirs if not d.startswith((".", "_")))
                # relpath once a folder, not once a file (it normalises both paths every call)
                base, rel = os.path.abspath(folder), os.path.relpath(folder, given)
                for name in names:
                    if name.endswith(suffixes) and not name.startswith((".", "_")):
                        found.setdefault(os.path.join(base, name), name if rel == "." else os.path.join(rel, name))
        elif glob.has_magic(given):
            root = glob_root(given)
            matches = [p for p in glob.glob(given, recursive=True) if os.path.isfile(p)]
            if not matches:
                raise FileNotFoundError(f"no file matches {given!r}")
            for path in matches:
                found.setdefault(os.path.abspath(path), os.path.relpath(path, root or "."))
        elif os.path.isfile(given):
            found.setdefault(os.path.abspath(given), os.path.basename(given))
        else:
            raise FileNotFoundError(f"no such file or folder: {given!r}")
    return sorted(found.items(), key=lambda item: (item[1], item[0]))
