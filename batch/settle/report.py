"""``DIR/report.html``: what a settle or audit run did, on one self-contained page.

Whoever checks last night's run opens one file: no server, no network, no
script. Charts are inline SVG drawn here (horizontal bars: a chart of counts
by name needs nothing more, and matplotlib stays an optional extra). The page
is built from the run's totals (the summary) and from the output folders:

- rejected rows: counts by reason from the summary, up to
  :data:`EXAMPLES` example rows per reason read from ``errors/`` (reading stops
  once every reason has its examples);
- mismatches (``audit``): the rows of ``results/`` whose ``mismatch`` is true,
  by size (chips that differ, summed over seats, in decades), by seat, and the
  ten largest; the other rows are not read (the ``mismatch`` column first);
- chips in, paid and raked, and the identities the run checks
  (rows in = settled + rejected, chips in = paid + raked);
- per game and per input, and how long each part took.

Every example and mismatch row names the input it came from, and the timing chart each part's
input files, from the folder's ``_manifest.json`` (each part's file keys, each key's path): paths
are shown relative to :func:`input_root` (the deepest folder above every input and above its
``name=value`` folders, so those are always shown). A row of a part that holds one file names that
file; a part of several small files, read together, names its files (``one of a.parquet,
b.parquet``): the results do not say which of them a row came from. Numbers are written one way:
thousands separated, whole numbers without decimals, others with a fixed number of decimals.
"""

from __future__ import annotations

import datetime
import html
import json
import os
import re
from collections.abc import Collection, Sequence
from collections.abc import Set as AbstractSet
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from cardbatch.batch.io import lists, storage
from cardbatch.batch.io.arrays import numpy_of, scalar_of
from cardbatch.batch.io.pycolumns import column

EXAMPLES = 3  # example rows per rejection reason
LARGEST = 10  # mismatched hands listed
SLOWEST = 25  # parts drawn in the timing chart

_CSS = """
body { font: 15px/1.45 system-ui, sans-serif; margin: 24px auto; max-width: 1100px; color: #1a1a1a; }
h1 { font-size: 24px; margin-bottom: 4px; } h2 { font-size: 19px; margin-top: 32px;
  border-bottom: 1px solid #ccc; padding-bottom: 4px; }
.meta { color: #555; } .ok { color: #1b7a1b; } .bad { color: #b00020; font-weight: 600; }
table { border-collapse: collapse; margin: 8px 0; } td, th { padding: 3px 10px; border-bottom: 1px solid #e4e4e4; }
th { text-align: left; background: #f4f4f4; } td.n { text-align: right; font-variant-numeric: tabular-nums; }
.cards { display: flex; flex-wrap: wrap; gap: 12px; } .card { border: 1px solid #ddd; border-radius: 6px;
  padding: 8px 14px; min-width: 140px; } .card b { display: block; font-size: 22px; }
code { font-size: 13px; } svg text { font: 13px system-ui, sans-serif; } svg { max-width: 100%; }
"""


def write_report(out: str, summary: dict[str, Any], files: Collection[str], sections: Sequence[str] = ()) -> str:
    """Write ``out/report.html`` from the run's summary and the files its parts wrote (relative to
    ``out``: nothing else in the folder is read), with the run's analyses' ``sections`` (HTML)
    before the timings; returns its path."""
    page = render(
        summary,
        reject_examples(out, summary, files),
        mismatch_breakdown(out, files) if summary.get("mismatches") else None,
        part_sources(out, files),
        sections,
    )
    path = storage.join(out, "report.html")
    storage.write_text(path, page)
    return path


def render(
    summary: dict[str, Any],
    examples: dict[str, list[dict[str, Any]]],
    mismatches: dict[str, Any] | None,
    sources: dict[str, Any] | None = None,
    sections: Sequence[str] = (),
) -> str:
    """The page's HTML (a pure function of its inputs, so a test can build one without a run);
    ``sources`` (:func:`part_sources`) names the input files of each part; ``sections``: the
    analyses' own (:meth:`~cardbatch.batch.settle.analysis.Analysis.report_section`)."""
    opts = summary.get("options", {})
    src = Sources(summary, sources)
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    parts = [
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
        "<title>cardbatch run report</title>",
        f"<style>{_CSS}</style></head><body>",
        "<h1>cardbatch run report</h1>",
        f"<p class='meta'>cardbatch {esc(summary.get('cardbatch_version', '?'))}, written {when}; "
        f"{summary.get('files', 0):,} input files in {summary.get('parts', 0):,} parts "
        f"({summary.get('parts_reused', 0):,} reused from an earlier run); policy "
        f"<code>{esc(opts.get('policy', '?'))}</code>, rake <code>{esc(opts.get('rake_pct') or 'none')}</code>, "
        f"{_rules(summary)}inputs below <code>{esc(src.root or '.')}</code>.</p>",
        _totals(summary),
        _repeated(summary),
        _by_game(summary),
        _by_input(summary, src),
        _rejects(summary, examples, src),
        _mismatch_section(summary, mismatches, src),
        *sections,
        _timings(summary, src),
        "</body></html>",
    ]
    return "\n".join(parts)


def esc(value: object) -> str:
    return html.escape(str(value))


def _n(value: object, decimals: int = 1) -> str:
    """A number as the page writes every number: thousands separated, a whole number without
    decimals, another with ``decimals``; anything else as text."""
    if isinstance(value, bool):
        return esc(value)
    if isinstance(value, (int, np.integer)):
        return f"{int(value):,}"
    if isinstance(value, (float, np.floating)):
        return f"{float(value):,.{decimals}f}"
    return esc(value)


def table(head: list[str], rows: list[list[Any]], numeric: AbstractSet[int] = frozenset(), decimals: int = 1) -> str:
    th = "".join(f"<th>{esc(h)}</th>" for h in head)
    body = "".join(
        "<tr>"
        + "".join(
            f"<td class='n'>{_n(v, decimals)}</td>" if i in numeric else f"<td>{esc(v)}</td>" for i, v in enumerate(r)
        )
        + "</tr>"
        for r in rows
    )
    return f"<table><tr>{th}</tr>{body}</table>"


def bars(items: list[tuple[str, float]], unit: str, title: str, decimals: int = 3) -> str:
    """A horizontal bar chart as inline SVG, as wide as the page: one bar per ``(label, value)``,
    the value written at the bar's end in ``unit`` (a float with ``decimals``); ``title`` is the
    chart's accessible name."""
    if not items:
        return ""
    longest = max(len(str(label)) for label, _ in items)
    width, row_h = 1000, 24
    label_w = int(min(480, max(120, 7.2 * longest + 16)))  # about 7 px a character at 13 px
    top = max(v for _, v in items) or 1
    height = row_h * len(items) + 8
    rows = []
    for i, (label, value) in enumerate(items):
        y = 4 + i * row_h
        w = (width - label_w - 140) * value / top
        shown = _n(value, decimals)
        rows.append(
            f"<text x='{label_w - 8}' y='{y + 16}' text-anchor='end'>{esc(label)}</text>"
            f"<rect x='{label_w}' y='{y + 3}' width='{w:.1f}' height='{row_h - 7}' fill='#4472c4'/>"
            f"<text x='{label_w + w + 6:.1f}' y='{y + 16}'>{shown} {esc(unit)}</text>"
        )
    return (
        f"<svg role='img' aria-label='{esc(title)}' width='100%' height='{height}' preserveAspectRatio='xMinYMin meet' "
        f"viewBox='0 0 {width} {height}' xmlns='http://www.w3.org/2000/svg'><title>{esc(title)}</title>"
        + "".join(rows)
        + "</svg>"
    )


def _check(ok: bool, text: str) -> str:
    return f"<li class='{'ok' if ok else 'bad'}'>{'✓' if ok else '✗'} {esc(text)}</li>"


def _totals(s: dict[str, Any]) -> str:
    read, settled, rejected = s.get("rows_read", 0), s.get("rows_settled", 0), s.get("rows_rejected", 0)
    chips_in, paid, raked = s.get("chips_in", 0), s.get("chips_paid", 0), s.get("chips_raked", 0)
    cards = [
        ("rows read", read),
        ("rows settled", settled),
        ("rows rejected", rejected),
        ("mismatches", s.get("mismatches", 0)),
        ("chips in", chips_in),
        ("chips paid", paid),
        ("chips raked", raked),
    ]
    if "coins_moved" in s:
        cards += [("2v2 coins moved", s["coins_moved"]), ("2v2 fees", s.get("coins_fee", 0))]
    html_cards = "".join(f"<div class='card'>{esc(k)}<b>{_n(v)}</b></div>" for k, v in cards)
    checks = (
        _check(read == settled + rejected, f"rows read {read:,} = settled {settled:,} + rejected {rejected:,}")
        + _check(chips_in == paid + raked, f"chips in {chips_in:,} = paid {paid:,} + raked {raked:,}")
        + _check(not s.get("mismatches"), f"{s.get('mismatches', 0):,} recomputed payouts differ from the recorded")
    )
    return f"<h2>Totals</h2><div class='cards' id='totals'>{html_cards}</div><ul>{checks}</ul>"


_SPLIT = ["rows_read", "rows_settled", "rows_rejected", "mismatches", "chips_in", "chips_paid", "chips_raked"]


NO_CHIPS = "—"  # a chip figure of a game that settles coins (2v2 tables), in both tables alike
_COINS = ["coins_moved", "coins_fee"]
_NO_CHIPS_NOTE = (
    f"<p class='meta'>{NO_CHIPS}: not counted in chips (2v2 tables move coins: see the coins columns "
    "and the totals).</p>"
)


def _by_game(s: dict[str, Any]) -> str:
    games = s.get("by_game", {})
    coins = [k for k in _COINS if any(k in c for c in games.values())]
    rows = [
        [g]
        + [c.get(k, 0) if "chips" not in k or "chips_in" in c else NO_CHIPS for k in _SPLIT]
        + [c.get(k, NO_CHIPS) for k in coins]
        for g, c in sorted(games.items())
    ]
    head = ["game"] + [k.replace("_", " ") for k in _SPLIT] + ["2v2 " + k.replace("_", " ") for k in coins]
    note = _NO_CHIPS_NOTE if any("chips_in" not in c for c in games.values()) else ""
    return "<h2>By game</h2>" + table(head, rows, set(range(1, len(head)))) + note


def _by_input(s: dict[str, Any], src: Sources) -> str:
    keys = ["rows"] + _SPLIT[1:]
    chipless = {g for g, c in s.get("by_game", {}).items() if "chips_in" not in c}
    rows = []
    for i in s.get("inputs", []):
        games = src.games_of(str(i["path"]))
        coins_only = bool(games) and games <= chipless
        rows.append(
            [src.shown(str(i["path"]))] + [NO_CHIPS if coins_only and "chips" in k else i.get(k, 0) for k in keys]
        )
    note = _NO_CHIPS_NOTE if any(NO_CHIPS in r for r in rows) else ""
    return "<h2>By input</h2>" + table(["input"] + [k.replace("_", " ") for k in keys], rows, set(range(1, 8))) + note


def _rules(s: dict[str, Any]) -> str:
    """The three-card rule preset, where a game valued by one was read (else it changed nothing)."""
    from cardbatch.games import REGISTRY

    read = [g for g, c in (s.get("by_game") or {}).items() if c.get("rows_read") and g in REGISTRY]
    if not any(REGISTRY[g].rule_presets for g in read):
        return ""
    return f"rules <code>{esc((s.get('options') or {}).get('rules', '?'))}</code>; "


def _repeated(s: dict[str, Any]) -> str:
    """A warning when hand ids repeat across the inputs: the pages name a hand by its id."""
    found = s.get("repeated_hand_ids") or {}
    if not found.get("ids"):
        return ""
    shown = ", ".join(esc(v) for v in found.get("examples", []))
    return (
        f"<p class='bad'>{found['ids']:,} hand ids appear more than once across the inputs "
        f"({found.get('rows', 0):,} rows; e.g. {shown}). A hand below is named by its id and its input file; "
        "give each file its own ids to tell them apart everywhere.</p>"
    )


def _rejects(s: dict[str, Any], examples: dict[str, list[dict[str, Any]]], src: Sources) -> str:
    reasons = sorted(s.get("rejected_by_reason", {}).items(), key=lambda kv: (-kv[1], kv[0]))
    if not reasons:
        return "<h2>Rejected rows</h2><p class='ok'>No row was set aside.</p>"
    rows = []
    for reason, count in reasons:
        shown = examples.get(reason, [])
        first = (
            "; ".join(f"hand {x['hand_id']} ({x['game']}, {src.of_part(x.get('part'))}): {x['message']}" for x in shown)
            or "(no example read)"
        )
        rows.append([reason, count, first])
    return (
        "<h2>Rejected rows by reason</h2>"
        + bars([(r, c) for r, c in reasons], "rows", "rejected rows by reason")
        + f"<p>Up to {EXAMPLES} examples per reason; every rejected row is in <code>errors/</code>.</p>"
        + table(["reason", "rows", "examples"], rows, {1})
        + (_ONE_OF if src.grouped([x.get("part") for xs in examples.values() for x in xs]) else "")
    )


def _mismatch_section(s: dict[str, Any], m: dict[str, Any] | None, src: Sources) -> str:
    if not s.get("mismatches"):
        return "<h2>Mismatches</h2><p class='ok'>Every recorded payout matched (or none was recorded).</p>"
    if m is None:  # mismatches counted, but results/ is gone: say what is known
        return f"<h2>Mismatches ({s['mismatches']:,} hands)</h2><p>The results are no longer there to break down.</p>"
    largest = [
        [r["hand_id"], r["game"], src.of_part(r.get("part")), r["size"], r["payout"], r["recorded"]]
        for r in m["largest"]
    ]
    return (
        f"<h2>Mismatches ({s['mismatches']:,} hands)</h2>"
        "<h3>By size: chips that differ, summed over the hand's seats</h3>"
        + bars(m["by_size"], "hands", "mismatched hands by size")
        + "<h3>By seat: hands where the seat's payout differs</h3>"
        + bars(m["by_seat"], "hands", "mismatched hands by seat")
        + f"<h3>The {len(largest)} largest</h3>"
        + table(["hand_id", "game", "input", "chips that differ", "our payout", "recorded"], largest, {3})
        + (_ONE_OF if src.grouped([r.get("part") for r in m["largest"]]) else "")
    )


def _timings(s: dict[str, Any], src: Sources) -> str:
    t = s.get("timings", {})
    parts = [p for p in t.get("parts", []) if p.get("seconds") is not None]
    slow = sorted(parts, key=lambda p: -p["seconds"])[:SLOWEST]
    secs = np.array([p["seconds"] for p in parts]) if parts else np.zeros(0)
    stats = (
        f"{len(parts):,} parts run: median {_n(float(np.median(secs)), 3)} s, slowest {_n(float(secs.max()), 3)} s, "
        f"total {_n(float(secs.sum()), 3)} s of worker time on {_workers(s.get('workers'))}."
        if parts
        else "Every part was reused from an earlier run."
    )
    head = table(
        ["step", "seconds"],
        [
            ["compile ahead (numba, cached after the first run)", t.get("compile_ahead_seconds", 0.0)],
            ["settle the parts (the warm-up runs while they read their first rows)", t.get("settle_seconds", "")],
            ["whole run, this report included", s.get("wall_seconds", "")],
        ],
        {1},
        decimals=3,
    )
    drawn = [
        [
            _part_label(p, src),
            src.of_part(str(p.get("part")), every=True, fallback=str(p.get("path", "?"))),
            p.get("rows", 0),
            float(p["seconds"]),
        ]
        for p in slow
    ]
    return (
        "<h2>How long each part took</h2>"
        + head
        + f"<p>{esc(stats)}</p>"
        + bars([(label, secs) for label, _, _, secs in drawn], "s", "seconds per part, slowest first")
        + (
            "<h3>The parts drawn, and their input files</h3>"
            + table(["part", "input files", "rows", "seconds"], drawn, {2, 3}, decimals=3)
            if drawn
            else ""
        )
    )


def _part_label(part: dict[str, Any], src: Sources | None = None) -> str:
    """``day=D/file.parquet, row group G`` for a part of one file, ``day=D/: 4 files (a.parquet, …)``
    for a part of several (its name is a hash of the files' identities)."""
    files = src.parts.get(str(part.get("part")), []) if src is not None else []
    if len(files) > 1 and src is not None:
        shown = sorted(src.shown(f) for f in files)
        folder = _common_folder(shown)
        return f"{folder}{shown[0][len(folder) :]} and {len(files) - 1:,} more files"
    path = str(part.get("path", "?"))
    name = src.shown(path) if src is not None else path.replace("\\", "/").rsplit("/", 1)[-1]
    return f"{name}, row group {part.get('first_row_group', '?')}"


_NAME_VALUE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
SHOWN_FILES = 12  # a grouped part's files named in one cell; the rest are counted


def input_root(paths: list[str]) -> str:
    """The folder a page shows input paths relative to: the deepest one holding every input, less
    its trailing ``name=value`` folders (so every shown path keeps those), with a trailing ``/``;
    ``""`` when the inputs share no folder.

    >>> input_root(["/logs/day=1/h.parquet", "/logs/day=2/h.parquet"]), input_root(["/logs/day=1/h.parquet"])
    ('/logs/', '/logs/')
    >>> input_root(["s3://b/x/a.parquet", "s3://b/x/y/c.parquet"]), input_root(["/a/b.parquet", "/c/d.parquet"])
    ('s3://b/x/', '')
    """
    if not paths:
        return ""
    common: list[str] | None = None
    for p in paths:
        folders = p.replace("\\", "/").split("/")[:-1]
        if common is None:
            common = folders
        else:
            k = 0
            while k < min(len(common), len(folders)) and common[k] == folders[k]:
                k += 1
            common = common[:k]
    common = common or []
    while common and _NAME_VALUE.match(common[-1]):
        common = common[:-1]
    if not [c for c in common if c and not c.endswith(":")]:  # "/" or "s3://": no root a reader knows
        return ""
    return "/".join(common) + "/"


def shown_path(path: str, root: str) -> str:
    """``path`` relative to ``root`` (:func:`input_root`), with ``/``."""
    p = path.replace("\\", "/")
    return p[len(root) :] if root and p.startswith(root) else p


def _common_folder(shown: list[str]) -> str:
    """The folder (with a trailing ``/``) every one of ``shown`` lies in, or ``""``."""
    folders = {s.rsplit("/", 1)[0] + "/" if "/" in s else "" for s in shown}
    return folders.pop() if len(folders) == 1 else ""


class Sources:
    """Which input files each part holds (``_manifest.json``) and which games it wrote, shown
    relative to the inputs' root."""

    def __init__(self, summary: dict[str, Any], sources: dict[str, Any] | None):
        self.root = input_root([str(i["path"]) for i in summary.get("inputs", [])])
        self.parts: dict[str, list[str]] = dict((sources or {}).get("parts", {}))
        self._games: dict[str, set[str]] = {}
        for part, games in (sources or {}).get("games", {}).items():
            for f in self.parts.get(part, []):
                self._games.setdefault(f, set()).update(games)

    def shown(self, path: str) -> str:
        return shown_path(path, self.root)

    def games_of(self, path: str) -> set[str]:
        """The games the parts holding ``path`` wrote (empty when unknown)."""
        return self._games.get(path, set())

    def of_part(self, part: str | None, every: bool = False, fallback: str = "?") -> str:
        """The input a row of ``part`` came from: its file, or for a part of several small files read
        together, ``one of`` them (every one with ``every``, else the first :data:`SHOWN_FILES`):
        ``day=D/, one of a.parquet, b.parquet``."""
        files = self.parts.get(part or "", [])
        if not files:
            return self.shown(fallback) if fallback != "?" else fallback
        shown = sorted(self.shown(f) for f in files)
        if len(shown) == 1:
            return shown[0]
        folder = _common_folder(shown)
        names = [f[len(folder) :] for f in shown]
        listed = names if every or len(names) <= SHOWN_FILES else names[:SHOWN_FILES]
        more = f", and {len(names) - len(listed):,} more" if len(listed) < len(names) else ""
        lead = f"{folder}, " if folder else ""
        return f"{lead}{'' if every else 'one of '}{', '.join(listed)}{more}"

    def grouped(self, parts: list[str | None]) -> bool:
        """Whether any of ``parts`` holds several files."""
        return any(len(self.parts.get(p or "", [])) > 1 for p in parts)


_ONE_OF = (
    "<p class='meta'><i>one of</i>: a part that read several small files together; the output does not say "
    "which of them the row came from (its <code>name=value</code> folders are exact).</p>"
)


def part_sources(out: str, files: Collection[str]) -> dict[str, Any]:
    """From the folder's manifest: each part's input files (``parts``: name -> resolved paths), and
    from the files the run's parts wrote (relative to ``out``), the games each wrote (``games``)."""
    from cardbatch.batch.settle.manifest import MANIFEST

    try:
        found = json.loads(storage.read_text(storage.join(out, MANIFEST)))
    except (OSError, ValueError):
        found = {}
    found = found if isinstance(found, dict) else {}
    paths = {str(f.get("key")): str(f.get("path")) for f in found.get("files", []) if isinstance(f, dict)}
    parts = {str(p): [paths[k] for k in keys if k in paths] for p, keys in (found.get("parts") or {}).items()}
    games: dict[str, list[str]] = {}
    for f in sorted(files):
        pieces = f.split("/")
        if len(pieces) == 3 and pieces[0] in ("results", "errors") and pieces[1].startswith("game="):
            g = games.setdefault(_part_name(pieces[2]), [])
            if pieces[1][5:] not in g:
                g.append(pieces[1][5:])
    return {"parts": parts, "games": games}


def _part_name(file_name: str) -> str:
    """``part-K-G`` of ``part-K-G.parquet``."""
    return file_name.rsplit("/", 1)[-1].split(".", 1)[0]


def parts_below(out: str, kind: str, files: Collection[str]) -> list[tuple[str, str]]:
    """(path, path relative to ``out/kind``) of the run's own files in ``out/kind`` (``files``: what
    the run's parts wrote, relative to ``out``): nothing else in the folder is read."""
    return [(storage.join(out, *f.split("/")), f.split("/", 1)[1]) for f in sorted(files) if f.startswith(kind + "/")]


def reject_examples(out: str, summary: dict[str, Any], files: Collection[str]) -> dict[str, list[dict[str, Any]]]:
    """Up to :data:`EXAMPLES` rows per reason from the run's files in ``errors/``, until all are found."""
    wanted = set(summary.get("rejected_by_reason", {}))
    found: dict[str, list[dict[str, Any]]] = {}
    for path, rel in parts_below(out, "errors", files):
        if not wanted:
            break
        t = storage.parquet_file(path).read(columns=["hand_id", "reason", "message"])
        t = t.filter(pc.is_in(t.column("reason"), column(sorted(wanted), pa.string())))
        for hand_id, reason, message in zip(*(t.column(c).to_pylist() for c in t.column_names)):
            if reason in wanted:
                found.setdefault(reason, []).append(
                    {"hand_id": hand_id, "game": _game_of(rel), "message": message, "part": _part_name(rel)}
                )
                if len(found[reason]) == EXAMPLES:
                    wanted.discard(reason)
    return found


def _game_of(rel: str) -> str:
    """The game of a part from its hive folder (``game=G/…``)."""
    return rel.split("=", 1)[1].split("/", 1)[0] if rel.startswith("game=") else "?"


def mismatch_breakdown(out: str, files: Collection[str]) -> dict[str, Any]:
    """The mismatched rows of the run's files in ``results/``: counts by size decade and by seat,
    and the largest."""
    sizes: list[np.ndarray] = []
    seats: dict[int, int] = {}
    largest: list[dict[str, Any]] = []
    for path, rel in parts_below(out, "results", files):
        pf = storage.parquet_file(path)
        flag = pf.read(columns=["mismatch"]).column(0)
        if not pc.any(flag).as_py():
            continue
        game = _game_of(rel)
        t = pf.read(columns=["hand_id", "payout", "recorded_payout", "delta", "recorded_delta"])
        t = t.filter(pc.fill_null(flag, scalar_of(False, pa.bool_())))
        ours = pc.coalesce(t.column("payout"), t.column("delta"))
        theirs = pc.coalesce(t.column("recorded_payout"), t.column("recorded_delta"))
        size = mismatch_sizes(ours, theirs, seats)
        sizes.append(size)
        ids = numpy_of(t.column("hand_id"))
        for k in np.argsort(-size, kind="stable")[:LARGEST]:
            largest.append(
                {
                    "hand_id": int(ids[k]),
                    "game": game,
                    "part": _part_name(rel),
                    "size": int(size[k]),
                    "payout": json.dumps(ours[int(k)].as_py()),
                    "recorded": json.dumps(theirs[int(k)].as_py()),
                }
            )
    size = np.concatenate(sizes) if sizes else np.zeros(0, np.int64)
    largest = sorted(largest, key=lambda r: (-int(r["size"]), int(r["hand_id"])))[:LARGEST]
    return {
        "by_size": size_decades(size),
        "by_seat": [(f"seat {k}", v) for k, v in sorted(seats.items())],
        "largest": largest,
    }


def mismatch_sizes(ours: pa.ChunkedArray, theirs: pa.ChunkedArray, seats: dict[int, int]) -> np.ndarray:
    """Chips that differ per row, summed over seats (a null, or a seat missing on one side, counts
    as 0), counting into ``seats`` the rows where each seat differs."""
    a_values, a_starts, a_lengths, _ = lists.int_list_parts(ours, "payout")
    b_values, b_starts, b_lengths, _ = lists.int_list_parts(theirs, "recorded payout")
    width = int(max(a_lengths.max(initial=0), b_lengths.max(initial=0)))
    a = lists.padded_rows(a_values, a_starts, a_lengths, width)  # the mismatched rows: few, no kernel
    b = lists.padded_rows(b_values, b_starts, b_lengths, width)
    if max(np.abs(a).max(initial=0), np.abs(b).max(initial=0)) > 2**61:  # near int64's limit: exact ints
        a, b = a.astype(object), b.astype(object)
    for seat, count in enumerate((a != b).sum(axis=0)):
        if count:
            seats[seat] = seats.get(seat, 0) + int(count)
    return np.abs(a - b).sum(axis=1) if width else np.zeros(len(a), np.int64)


def size_decades(size: np.ndarray) -> list[tuple[str, int]]:
    """Counts of sizes in decades: 0, 1-9, 10-99, …"""
    if size.size == 0:
        return []
    edges = [0, 1] + [10**k for k in range(1, int(np.log10(max(size.max(), 1))) + 2)]
    out = [("0 chips (a null, or the seats differ in count)", int((size == 0).sum()))] if (size == 0).any() else []
    for lo, hi in zip(edges[1:], edges[2:]):
        count = int(((size >= lo) & (size < hi)).sum())
        if count:
            out.append((f"{lo:,}-{hi - 1:,} chips", count))
    return out


def _workers(n: object) -> str:
    """``1 worker``, ``2 workers``."""
    return f"{n} worker" if n == 1 else f"{n} workers"


def settle_line(command: str, s: dict[str, Any], out: str) -> str:
    """What a settle or audit run did, in one line: rows, reasons, chips, mismatches, where the output is."""
    reasons = ", ".join(f"{k} {v:,}" for k, v in s.get("rejected_by_reason", {}).items())  # most first
    rejected = f"{s['rows_rejected']:,} rejected" + (f" ({reasons})" if reasons else "")
    not_ours = s.get("not_ours", [])
    written = "results/, errors/, summary.json" + (", report.html" if s.get("report") else "")
    line = (
        f"cardbatch {command}: {s['rows_read']:,} rows: {s['rows_settled']:,} settled, {rejected}; "
        f"chips in {s['chips_in']:,} = paid {s['chips_paid']:,} + raked {s['chips_raked']:,}; "
        f"{s['mismatches']:,} mismatches; {s['wall_seconds']:.1f} s; output in {os.path.join(out, '')} ({written})"
    )
    if not_ours:
        shown = ", ".join(not_ours[:3]) + ("…" if len(not_ours) > 3 else "")
        line += f"; left alone {len(not_ours)} file(s) and link(s) cardbatch did not write: {shown}"
    return line
