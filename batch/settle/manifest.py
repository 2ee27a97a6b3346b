"""What an output folder holds and what it was made from: reruns that are never stale.

A run writes ``DIR/_manifest.json``: each input file's identity (resolved
path, size, modification time and a hash of its Parquet footer), a
fingerprint of every option that changes results, and the cardbatch version.
Parts are named by file identity (``part-<key>-<row group>``), not by a
file's position in the input list, so a rerun reuses exactly the parts of
unchanged files under unchanged options, recomputes the rest, and removes the
parts of files that are gone or changed. Changed options recompute every
part. ``DIR/.lock`` (an advisory lock held for the whole run, released by the
kernel when the process ends, however it ends) makes a second run on the same
folder refuse instead of mixing its parts with the first one's.
"""

from __future__ import annotations

import fcntl
import functools
import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any

from pyarrow.fs import FileType

from cardbatch.batch.io import storage
from cardbatch.batch.io.errors import InputError
from cardbatch.batch.io.inputs import OUTPUT_MANIFEST, is_output_manifest
from cardbatch.batch.settle.analysis import all_tops
from cardbatch.batch.settle.options import SettleOptions

MANIFEST = OUTPUT_MANIFEST
PART_DIRS = ("results", "errors", "_parts")


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("cardbatch")
    except PackageNotFoundError:
        return "0+unknown"


def resolved(paths: list[str]) -> list[str]:
    """Real paths, duplicates dropped (the same file given as relative and absolute path, or through a
    link, is one input)."""
    return list(dict.fromkeys(p if storage.is_uri(p) else os.path.realpath(p) for p in paths))


def file_identity(path: str) -> dict[str, Any]:
    """Resolved path, size, modification time and the SHA-256 of the Parquet footer, with a short key."""
    return file_identity_and_footer(path)[0]


def file_identity_and_footer(path: str) -> tuple[dict[str, Any], bytes]:
    """:func:`file_identity` and the footer's bytes it hashed (the planner parses them, so a file's
    footer is read once)."""
    st = storage.info(path)
    if st.type != FileType.File:
        raise FileNotFoundError(2, "No such file", path)
    size = st.size
    tail, start = storage.read_tail(path, size)  # one read for the length and, mostly, the footer
    footer_len = int.from_bytes(tail[-8:-4], "little") if len(tail) >= 8 else 0
    first = max(size - 8 - footer_len, 0)
    footer = tail[first - start :] if first >= start else storage.read_bytes(path, first, footer_len + 8)
    ident = {"path": path, "size": size, "mtime_ns": st.mtime_ns, "footer_sha256": hashlib.sha256(footer).hexdigest()}
    ident["key"] = hashlib.sha256(json.dumps(ident, sort_keys=True).encode()).hexdigest()[:12]
    return ident, footer


@functools.lru_cache(maxsize=1)
def _code_fingerprint() -> str:
    """SHA-256 of the kernels' and the batch layer's sources and tables, and of the game registry
    (a game's seats, cards and columns are settling rules too)."""
    import cardbatch.batch
    import cardbatch.games
    import cardbatch.kernels
    from cardbatch.kernels.caching import fingerprint

    roots = (Path(cardbatch.kernels.__file__).parent, Path(cardbatch.batch.__file__).parent)
    registry = hashlib.sha256(Path(cardbatch.games.__file__).read_bytes()).hexdigest()
    return hashlib.sha256(("".join(fingerprint(r) for r in roots) + registry).encode()).hexdigest()


def options_fingerprint(opts: SettleOptions, batch_rows: int) -> dict[str, Any]:
    """Everything that changes a part's content or boundaries: the rules, and what of its options
    each analysis says changes a part (an exit status or a test's level does not)."""
    chosen = opts.rules_dict()
    for analysis in opts.analyses:
        chosen.update(analysis.part_key())
    # the code too, not only its version number: parts written by other code (a reinstall of the same
    # version, another output layout) are recomputed, never mixed with this code's parts
    chosen.update(batch_rows=batch_rows, version=_version(), code=_code_fingerprint())
    return {"options": chosen, "sha256": hashlib.sha256(json.dumps(chosen, sort_keys=True).encode()).hexdigest()}


class Lock:
    """An exclusive advisory lock on ``DIR/.lock`` for the life of a run (local outputs; an object
    store has no locks, see :mod:`.storage`)."""

    def __init__(self, out: str):
        self.fd = None
        if storage.is_uri(out):
            return
        self.path = os.path.join(out, LOCK)
        try:  # never through a link (check_folder refused one; this closes the race)
            self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
        except OSError as exc:
            raise InputError(f"cannot write to {out}: {exc.strerror}") from None
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(self.fd, 64, 0).decode(errors="replace").strip() or "?"
            os.close(self.fd)
            raise InputError(
                f"another cardbatch run (pid {holder}) is writing to {out}: wait for it, or choose another --out"
            ) from None
        os.ftruncate(self.fd, 0)
        os.pwrite(self.fd, str(os.getpid()).encode(), 0)

    def release(self) -> None:
        if self.fd is None:
            return
        os.close(self.fd)  # closing drops the lock; the file stays (removing it would race a waiting run)


PART_NAME = re.compile(r"^\.?(part-[0-9a-f]{12}-[0-9]{5}(?:-[0-9]{5})?)\.(parquet|json)(\.tmp)?$")
# files a run writes at the folder's top (each also under its temporary name, ``.NAME.tmp``)
RUN_TOPS = ("_SUCCESS", "summary.json", "report.html")  # what every run writes at the top when it ends
TOP_FILES = (*RUN_TOPS, *all_tops(), MANIFEST)  # and what an analysis writes there besides
LOCK = ".lock"


def part_dirs(opts: SettleOptions) -> tuple[str, ...]:
    """The part folders a run with ``opts`` writes into: a run whose analysis writes no results
    writes no ``results/``, so nothing there concerns it."""
    return tuple(d for d in PART_DIRS if d != "results" or opts.writes_results)


def _reserved(dirs: tuple[str, ...] = PART_DIRS) -> list[str]:
    """Paths below ``--out`` that a run writing into the part folders ``dirs`` writes into or at,
    relative (a link there would lead it out): the folders first, then the rest."""
    from cardbatch.batch.settle.outputs import UNKNOWN_GAME
    from cardbatch.games import GAMES

    kinds = [k for k in ("results", "errors") if k in dirs]
    games = [f"{kind}/game={g}" for kind in kinds for g in (*GAMES, UNKNOWN_GAME)]
    tops = [n for name in TOP_FILES for n in (name, f".{name}.tmp")]
    return [*dirs, *games, *tops, LOCK]


def check_folder(out: str, dirs: tuple[str, ...] = PART_DIRS) -> None:
    """Refuse, before anything is changed, an output folder a run could not write without touching
    what is not its own: a symbolic link where the run writes (it would write behind the link), or,
    in a folder without a cardbatch manifest, a file of the user's at a name the run writes
    (``summary.json``, ``report.html``, ``_SUCCESS``, the manifest, the lock). ``dirs``: the part
    folders the run writes into (:func:`part_dirs`)."""
    if storage.is_uri(out):
        ours = storage.exists(storage.join(out, MANIFEST)) and is_output_manifest(storage.join(out, MANIFEST))
        taken = [] if ours else [n for n in TOP_FILES if storage.exists(storage.join(out, n))]
    else:
        links = [rel for rel in _reserved(dirs) if os.path.islink(os.path.join(out, rel))]
        if links:
            raise InputError(
                f"{out}: {', '.join(links)} is a symbolic link where cardbatch writes; it never writes through a "
                "link: remove the link or choose another --out"
            )
        files = [n for n in dirs if os.path.lexists(os.path.join(out, n)) and not os.path.isdir(os.path.join(out, n))]
        if files:
            raise InputError(
                f"{out}: {', '.join(files)} is not a folder, and cardbatch writes a folder there: choose another --out"
            )
        tops = [n for name in TOP_FILES for n in (name, f".{name}.tmp")] + [LOCK]
        folders = [
            n for n in tops if os.path.lexists(os.path.join(out, n)) and not os.path.isfile(os.path.join(out, n))
        ]
        if folders:
            raise InputError(
                f"{out}: {', '.join(folders)} is not a file, and cardbatch writes a file there: choose another --out"
            )
        ours = is_output_manifest(os.path.join(out, MANIFEST))
        taken = [] if ours else [n for n in _reserved(dirs)[len(dirs) :] if os.path.isfile(os.path.join(out, n))]
        if LOCK in taken and _is_our_lock(os.path.join(out, LOCK)):
            taken.remove(LOCK)
    if taken:
        raise InputError(
            f"{out} holds {', '.join(taken)}, which cardbatch writes, and no cardbatch manifest says they are "
            "cardbatch's: they are left alone; choose another --out or move them"
        )


def _is_our_lock(path: str) -> bool:
    """A lock file as :class:`Lock` leaves it: empty or a process id."""
    try:
        with open(path, "rb") as f:
            text = f.read(64)
    except OSError:
        return False
    return text.strip().isdigit() or not text


def _old_manifest(out: str) -> dict[str, Any]:
    path = storage.join(out, MANIFEST)
    if not is_output_manifest(path):
        return {}
    try:
        found = json.loads(storage.read_text(path))
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


def prepare(
    out: str,
    identities: list[dict[str, Any]],
    fingerprint: dict[str, Any],
    holds: dict[str, list[str]],
    reuse: bool = True,
    tops: tuple[str, ...] = RUN_TOPS,
) -> tuple[int, list[str], list[str], set[str]]:
    """Make ``out`` hold only parts that belong to this run; returns how many finished parts it
    keeps, the files and links below ``out`` that cardbatch did not write (left alone), which of
    those lie where a part of this run could go (relative paths: a task refuses to write there),
    and the names of the finished parts it keeps (a task reuses those and only those).

    A file is ours only when the last manifest listed its part (the manifest is written before a
    run writes any part, so a stopped run's files are listed too) and it lies exactly where that
    part's files go: ``_parts/P.json``, and ``results/game=G/P.parquet`` and
    ``errors/game=G/P.parquet`` for a game G cardbatch writes, each also under its temporary name;
    for a part whose run finished, only the files the manifest says it wrote. A file an earlier run
    found there and left as the user's stays the user's (the manifest's ``foreign``). A link is
    never ours and never followed. A part is kept (reused) only when its options are the
    manifest's, ``reuse`` is on, it is still in ``holds`` (each part of this run to the keys of the
    files it holds) and it is whole: its record and every file it wrote ours, at the size written.
    Every other file of ours goes, temporary files too. The top files the last manifest lists as its
    run's (``tops``: the summary, report and ``_SUCCESS``, and its analyses') go: they appear
    again when every unit is done. A file at the place of one of this run's ``tops`` that the last
    run did not write is the user's: the run stops (InputError) before changing anything.
    """
    old = _old_manifest(out)
    found_tops = old.get("tops")
    theirs_tops = (
        [str(n) for n in found_tops if n in TOP_FILES and n != MANIFEST] if isinstance(found_tops, list) else RUN_TOPS
    )
    users = [n for n in tops if n not in theirs_tops and storage.exists(storage.join(out, n))]
    if old and users:
        raise InputError(
            f"{out} holds {', '.join(users)}, which this run writes, and the last cardbatch run there did not "
            f"write {'them' if len(users) > 1 else 'it'}: left alone; move {'them' if len(users) > 1 else 'it'} or "
            "choose another --out"
        )
    listed = set(old.get("parts", {}))
    found = old.get("written")
    written: dict[str, Any] = found if isinstance(found, dict) else {}
    theirs = set(old.get("foreign", []))  # found at a part's place by an earlier run: the user's for good
    same_options = reuse and old.get("fingerprint", {}).get("sha256") == fingerprint["sha256"]
    foreign: list[str] = []
    at_places: list[str] = []  # the user's files and links where some part's files go
    ours: dict[str, tuple[str, str]] = {}  # relative path -> (path, part)
    for sub in PART_DIRS:
        for path, rel, link in list(storage.entries_below(storage.join(out, sub))):
            full = f"{sub}/{rel.replace(os.sep, '/')}"
            part = part_of(full)
            if part is not None and not link and part in listed and full not in theirs:
                recorded = written.get(part)
                if recorded is None or full in recorded or full == f"_parts/{part}.json":
                    ours[full] = (path, part)
                    continue
            foreign.append(path)
            if part is not None:
                at_places.append(full)
    for name in theirs_tops:  # the last run's (or, without a manifest, none: check_folder saw to it)
        if storage.exists(storage.join(out, name)):
            storage.delete(storage.join(out, name))
    finished: dict[str, Any] = {}
    if same_options:
        for part in holds:
            files = _whole(part, ours, written.get(part))
            if files is not None:
                finished[part] = files
    for full, (path, part) in ours.items():
        if full.rsplit("/", 1)[-1].startswith(".") or part not in finished:
            storage.delete(path)
    # compact (no indent): Python's C encoder, where an indented one took a second for 10,000 files
    content = {
        "version": _version(),
        "fingerprint": fingerprint,
        "files": identities,
        "parts": holds,
        "written": finished,
        "foreign": at_places,
        "tops": list(tops),
    }
    storage.write_text(storage.join(out, MANIFEST), json.dumps(content))
    taken = [full for full in at_places if part_of(full) in holds]
    return len(finished), foreign, taken, set(finished)


def _whole(part: str, ours: dict[str, tuple[str, str]], recorded: Any) -> dict[str, Any] | None:
    """The files of ``part`` (relative path -> size) when it is finished and whole: its record in
    ``_parts/`` is ours, and every file it wrote (by the manifest, or else by the record) is ours,
    a regular file of the size it was written at. None: settle it again."""
    record = f"_parts/{part}.json"
    if record not in ours:
        return None
    if recorded is None:  # a stopped run's finished part: its record says what it wrote
        try:
            recorded = json.loads(storage.read_text(ours[record][0])).get("files")
        except (OSError, ValueError, AttributeError):
            return None
    if not isinstance(recorded, dict):
        return None
    for rel, size in recorded.items():
        if rel not in ours or (size is not None and storage.info(ours[rel][0]).size != size):
            return None
    return recorded


def record_written(out: str, files: dict[str, dict[str, int] | None]) -> None:
    """Add to the folder's manifest the files each finished part wrote (the next run then owns
    exactly those). A part whose summary does not say is left out: the next run takes every file
    at its places as the part's, as for a stopped run."""
    content = _old_manifest(out)
    content["written"] = {**content.get("written", {}), **{p: f for p, f in files.items() if f is not None}}
    storage.write_text(storage.join(out, MANIFEST), json.dumps(content))


def part_of(rel: str) -> str | None:
    """The part whose file goes at ``rel`` (relative to the folder, with ``/``), or None: a part's
    JSON in ``_parts/``, its results and errors in ``game=G`` folders of games cardbatch writes."""
    from cardbatch.batch.settle.outputs import UNKNOWN_GAME
    from cardbatch.games import GAMES

    pieces = rel.split("/")
    m = PART_NAME.match(pieces[-1])
    if m is None or pieces[-1].startswith(".") != bool(m.group(3)):  # ".name.tmp" or "name", never a mix
        return None
    if pieces[0] == "_parts" and len(pieces) == 2 and m.group(2) == "json":
        return m.group(1)
    games = {f"game={g}" for g in (*GAMES, UNKNOWN_GAME)}
    if pieces[0] in ("results", "errors") and len(pieces) == 3 and pieces[1] in games and m.group(2) == "parquet":
        return m.group(1)
    return None


def is_part_place(rel: str) -> bool:
    """Whether ``rel`` (relative to an output folder, with ``/``) is where a part's file goes."""
    return part_of(rel) is not None
