"""``DIR/fairness.html``: the run it judges (inputs, rows, date, options), the verdict, what was
rejected in words (which cards, dealt how often against how often expected), how to read a test,
a calibration chart per game and every test with its Holm threshold and adjusted p-value, in
sections by game and ``--by`` group (rejected ones first), on one page (inline SVG, no script,
no network)."""

from __future__ import annotations

import datetime
import html
import math
from typing import Any

_CSS = """
body { font: 15px/1.45 system-ui, sans-serif; margin: 24px auto; max-width: 1100px; color: #1a1a1a; }
h2 { font-size: 19px; margin-top: 28px; border-bottom: 1px solid #ccc; }
.ok { color: #1b7a1b; font-weight: 600; } .bad { color: #b00020; font-weight: 600; }
table { border-collapse: collapse; } td, th { padding: 3px 10px; border-bottom: 1px solid #e4e4e4; }
th { text-align: left; background: #f4f4f4; } td.n { text-align: right; font-variant-numeric: tabular-nums; }
svg text { font: 12px system-ui, sans-serif; } svg { max-width: 100%; height: auto; }
code { font-size: 12px; color: #555; } .meta { color: #444; } details.section { margin: 10px 0; }
summary { cursor: pointer; font-size: 16px; padding: 4px 0; }
"""


def _calibration(groups: dict[str, dict[str, float]]) -> str:
    """Observed share against equity, one point a tenth of equity, with 2-sigma bars and the diagonal."""
    W, H, M = 360, 360, 40
    inner = W - 2 * M

    def at(x: float, y: float) -> tuple[float, float]:
        return M + x * inner, H - M - y * inner

    parts = [f'<svg width="{W}" height="{H}" viewBox="0 0 {W} {H}" role="img" aria-label="calibration">']
    x0, y0 = at(0, 0)
    x1, y1 = at(1, 1)
    parts.append(f'<rect x="{M}" y="{M}" width="{inner}" height="{inner}" fill="none" stroke="#bbb"/>')
    parts.append(f'<line x1="{x0}" y1="{y0}" x2="{x1}" y2="{y1}" stroke="#999" stroke-dasharray="4 3"/>')
    for tick in (0, 0.5, 1):
        tx, ty = at(tick, 0)
        parts.append(f'<text x="{tx}" y="{ty + 16}" text-anchor="middle">{tick:g}</text>')
        lx, ly = at(0, tick)
        parts.append(f'<text x="{lx - 6}" y="{ly + 4}" text-anchor="end">{tick:g}</text>')
    parts.append(f'<text x="{W / 2}" y="{H - 6}" text-anchor="middle">equity (mean of the tenth)</text>')
    parts.append(f'<text x="12" y="{H / 2}" transform="rotate(-90 12 {H / 2})" text-anchor="middle">share won</text>')
    for g in groups.values():
        if g["n"] <= 0:
            continue
        ex, ob, sd = g["e"] / g["n"], g["x"] / g["n"], math.sqrt(max(g["v"], 0)) / g["n"]
        cx, cy = at(ex, ob)
        _, top = at(ex, min(ob + 2 * sd, 1.05))
        _, bottom = at(ex, max(ob - 2 * sd, -0.05))
        parts.append(f'<line x1="{cx}" y1="{top}" x2="{cx}" y2="{bottom}" stroke="#4a6fa5"/>')
        parts.append(f'<circle cx="{cx}" cy="{cy}" r="4" fill="#4a6fa5"><title>{g["n"]} seats</title></circle>')
    parts.append("</svg>")
    return "".join(parts)


def prob(p: float) -> str:
    """A probability, one way everywhere on the page: three decimals, or below 0.001 as
    ``m.m × 10<sup>e</sup>`` (HTML; a p-value too small for a float is said to be so).

    >>> prob(0.0472), prob(7.26e-05), prob(0.0)
    ('0.047', '7.3 × 10<sup>-5</sup>', 'below 10<sup>-300</sup>')
    """
    if p >= 0.001:
        return f"{p:.3f}"
    if p <= 0:
        return "below 10<sup>-300</sup>"
    e = math.floor(math.log10(p))
    m = round(p / 10**e, 1)
    if m >= 10:
        m, e = 1.0, e + 1
    return f"{m:.1f} × 10<sup>{e}</sup>"


def _count(v: float) -> str:
    """A count (an int: ``1,213``) or an expected count (a float: ``384.6``, ``309.0``), with
    thousands separators."""
    return f"{v:,}" if isinstance(v, int) else f"{v:,.1f}"


def _statistic(t: dict[str, Any]) -> str:
    if t["family"] == "allin":
        return f"z = {t['statistic']:,.2f}"
    return f"χ² = {t['statistic']:,.1f} ({t['df']} df)"


def _off(t: dict[str, Any], many: int = 3) -> str:
    """What a test found furthest from fair, in words: the cards (or categories) dealt more or less
    often than expected (those :data:`CLEAR` standard deviations off, else the furthest; at most
    ``many``), or an all-in group's share won against its equity."""
    if t["family"] == "allin":
        return f"won {_count(float(t['won']))} pots' worth where {_count(float(t['expected']))} were expected"
    kind = "dealt" if t["family"] == "cards" else "seen"
    cells = (t.get("most_off") or [])[:many]
    clear = [c for c in cells if abs(c["z"]) >= CLEAR] or cells[:1]
    return "; ".join(
        f"{html.escape(str(c['name']))} {kind} {_count(c['observed'])} times where {_count(float(c['expected']))} "
        f"were expected ({_ratio(c['observed'], c['expected'])})"
        for c in clear
    )


CLEAR = 4.0  # standard deviations: a card this far off is named; by chance alone, one in 16,000


def _ratio(observed: float, expected: float) -> str:
    if expected <= 0:
        return "none expected"
    r = observed / expected
    return f"{r:,.2f} times as often"


def _scope_title(game: str, scope: str) -> str:
    return f"{game}, whole run" if scope == "all" else f"{game}, {scope}"


def _sections(tests: list[dict[str, Any]]) -> list[tuple[str, str, list[dict[str, Any]]]]:
    """The tests by game and ``--by`` group: the groups with a rejected test first (most clearly
    rejected first), then each game's whole run, then the other groups by name; in each, the
    smallest p-value first."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for t in tests:
        game = str(t.get("game") or t["name"].split(" ", 1)[0].rstrip(":"))
        groups.setdefault((game, str(t.get("scope", "all"))), []).append(t)

    def order(item: tuple[tuple[str, str], list[dict[str, Any]]]) -> tuple[int, float, str, str]:
        (game, scope), ts = item
        rejected = any(t["rejected"] for t in ts)
        rank = 0 if rejected else 1 if scope == "all" else 2
        return rank, min(t.get("adjusted_p", t["p_value"]) for t in ts) if rejected else 0.0, game, scope

    return [
        (game, scope, sorted(ts, key=lambda t: t["p_value"])) for (game, scope), ts in sorted(groups.items(), key=order)
    ]


def _context(verdict: dict[str, Any], summary: dict[str, Any] | None) -> str:
    """The run the verdict is of: when, its inputs and rows, and its options."""
    from cardbatch.batch.settle.report import input_root, shown_path

    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    rows = ", ".join(f"{html.escape(g)} {n:,}" for g, n in sorted((verdict.get("rows") or {}).items()))
    by = verdict.get("by")
    opts = [f"level {verdict['level']} for all tests together (Holm's correction)"]
    opts.append(f"<code>--by {html.escape(str(by))}</code>" if by else "no <code>--by</code>")
    items = [f"<li>Written {when}.</li>"]
    if summary:
        inputs = summary.get("inputs") or []
        root = input_root([str(i["path"]) for i in inputs])
        shown = [
            f"{html.escape(shown_path(str(i['path']), root))} ({i.get('rows', 0):,} rows)" for i in inputs[:MAX_INPUTS]
        ]
        more = f", and {len(inputs) - MAX_INPUTS:,} more" if len(inputs) > MAX_INPUTS else ""
        items.append(
            f"<li>{len(inputs):,} input file{'s' if len(inputs) != 1 else ''} below "
            f"<code>{html.escape(root or '.')}</code>: {', '.join(shown)}{more}.</li>"
        )
        equity = (summary.get("options") or {}).get("equity") or {}
        if equity.get("budget"):
            opts.append(f"all-ins walked exactly up to {equity['budget']:,} boards, else {equity['samples']:,} sampled")
        if (summary.get("options") or {}).get("by_player"):
            opts.append("<code>--by-player</code>")
    items.append(f"<li>Rows tested: {rows or 'none'}.</li>")
    if verdict.get("rules") and any(t["family"] == "categories" for t in verdict["tests"]):
        opts.append(f"three-card rules <code>{html.escape(str(verdict['rules']))}</code>")
    items.append(f"<li>Options: {'; '.join(opts)}.</li>")
    return f"<ul class='meta' id='run'>{''.join(items)}</ul>"


MAX_INPUTS = 20  # input files named at the head of the page


_HOW = (
    "<p>Each test compares what was dealt (or won) with what a fair deal gives. Its <b>p-value</b> is the "
    "chance that a fair deal lands this far off or further. With {m} tests some p-values are small by chance, "
    "so each test has its own <b>threshold</b> (Holm's method): the smallest p-value is held to the level "
    "divided by the number of tests, the next to the level divided by one less, and so on. A test is "
    "<b>rejected</b> when its p-value is at or below its threshold (and so is every smaller one); its "
    "<b>adjusted p</b> is the smallest level at which it would be, so a test is rejected exactly when its "
    "adjusted p is at most the level ({level}). A fair deal gets any test rejected with a chance of at most "
    "{level}.</p>"
)


def render(verdict: dict[str, Any], summary: dict[str, Any] | None = None) -> str:
    """The page, from ``fairness.json``'s content and, when given, the run's summary (its inputs and
    options, named at the head of the page)."""
    tests = verdict["tests"]
    rejected = [t for t in sorted(tests, key=lambda t: t["p_value"]) if t["rejected"]]
    head = (
        f'<p class="bad">{len(rejected)} of {len(tests)} tests rejected: the deal does not look fair.</p>'
        if rejected
        else f'<p class="ok">No test rejected ({len(tests)} tests): nothing here says the deal is unfair.</p>'
    )
    out = [
        f"<!doctype html><html><head><meta charset='utf-8'><title>cardbatch fairness</title><style>{_CSS}</style>"
        "</head><body><h1>Fairness of the deal</h1>",
        _context(verdict, summary),
        head,
    ]
    if rejected:
        out.append("<h2>What was rejected</h2><ul id='rejected'>")
        for t in rejected:
            game, scope = str(t.get("game", "")), str(t.get("scope", "all"))
            out.append(
                f"<li><b>{html.escape(_scope_title(game, scope))}: {html.escape(t.get('what', t['name']))}</b>: "
                f"{_off(t)} (p-value {prob(t['p_value'])}, threshold {prob(t.get('threshold', 0.0))}; "
                f"<code>{html.escape(t['name'])}</code>)</li>"
            )
        out.append("</ul>")
    out.append(_HOW.format(m=f"{len(tests):,}", level=verdict["level"]))
    out.append(f"<p>{verdict['skipped']:,} groups too small to test.</p>")
    not_run = verdict.get("not_run") or []
    if not_run:
        out.append("<h2>Not run: cards the log does not record</h2><ul id='not-run'>")
        for r in not_run:
            out.append(f"<li><b>{html.escape(r['tests'])}</b>: {html.escape(r['reason'])}.</li>")
        out.append("</ul>")
    whole = verdict.get("groups_of_every_row") or []
    if whole:
        out.append(f"<p>Not tested again, as they hold every row of their game: {html.escape(', '.join(whole))}.</p>")
    for game, groups in sorted(verdict.get("calibration", {}).items()):
        if groups:
            out.append(f"<h2>{html.escape(game)}: all-ins, share won against equity</h2>")
            out.append(
                "<p>Each point is a tenth of equity; bars are two standard deviations. A fair deal keeps "
                "the points on the diagonal, within their bars.</p>"
            )
            out.append(_calibration(groups))
    sections = _sections(tests)
    out.append(
        "<h2>Every test</h2><p>By game"
        + (" and group" if verdict.get("by") else "")
        + ", groups with a rejected test first; in each, the smallest p-value first.</p>"
    )
    for game, scope, ts in sections:
        bad = sum(t["rejected"] for t in ts)
        opened = " open" if bad or scope == "all" or len(sections) == 1 else ""
        mark = f'<span class="bad">{bad} rejected</span>' if bad else "none rejected"
        out.append(
            f"<details class='section'{opened}><summary><b>{html.escape(_scope_title(game, scope))}</b>: "
            f"{len(ts):,} tests, {mark}</summary><table><tr><th>test</th><th>n</th><th>statistic</th>"
            "<th>p-value</th><th>threshold</th><th>adjusted p</th><th>verdict</th><th>what is off</th></tr>"
        )
        for t in ts:
            verdict_cell = '<span class="bad">rejected</span>' if t["rejected"] else "not rejected"
            out.append(
                f"<tr><td>{html.escape(t.get('what', t['name']))}<br><code>{html.escape(t['name'])}</code></td>"
                f"<td class='n'>{t['n']:,}</td><td class='n'>{_statistic(t)}</td>"
                f"<td class='n'>{prob(t['p_value'])}</td><td class='n'>{prob(t.get('threshold', 0.0))}</td>"
                f"<td class='n'>{prob(t.get('adjusted_p', 1.0))}</td><td>{verdict_cell}</td>"
                f"<td>{_off(t) if t['rejected'] else ''}</td></tr>"
            )
        out.append("</table></details>")
    out.append("</body></html>")
    return "\n".join(out)
