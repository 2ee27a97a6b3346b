"""``DIR/fairness.html``: the verdict, a calibration chart per game and every test, on one page
(inline SVG, no script, no network)."""

from __future__ import annotations

import html
import math
from typing import Any

_CSS = """
body { font: 15px/1.45 system-ui, sans-serif; margin: 24px auto; max-width: 1100px; color: #1a1a1a; }
h2 { font-size: 19px; margin-top: 28px; border-bottom: 1px solid #ccc; }
.ok { color: #1b7a1b; font-weight: 600; } .bad { color: #b00020; font-weight: 600; }
table { border-collapse: collapse; } td, th { padding: 3px 10px; border-bottom: 1px solid #e4e4e4; }
th { text-align: left; background: #f4f4f4; } td.n { text-align: right; font-variant-numeric: tabular-nums; }
svg text { font: 12px system-ui, sans-serif; }
"""


def _calibration(groups: dict[str, dict[str, float]]) -> str:
    """Observed share against equity, one point a tenth of equity, with 2-sigma bars and the diagonal."""
    W, H, M = 360, 360, 40
    inner = W - 2 * M

    def at(x: float, y: float) -> tuple[float, float]:
        return M + x * inner, H - M - y * inner

    parts = [f'<svg width="{W}" height="{H}" role="img" aria-label="calibration">']
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


def _fmt(v: float) -> str:
    return f"{v:.3g}" if abs(v) < 1e4 else f"{v:,.0f}"


def render(verdict: dict[str, Any]) -> str:
    """The page, from ``fairness.json``'s content."""
    tests = sorted(verdict["tests"], key=lambda t: t["p_value"])
    rejected = verdict["rejected"]
    head = (
        f'<p class="bad">{len(rejected)} of {len(tests)} tests rejected</p>'
        if rejected
        else f'<p class="ok">No test rejected ({len(tests)} tests)</p>'
    )
    out = [
        f"<!doctype html><html><head><meta charset='utf-8'><title>cardbatch fairness</title><style>{_CSS}</style>"
        "</head><body><h1>Fairness of the deal</h1>",
        head,
        f"<p>Level {verdict['level']} for all tests together (Holm's correction); "
        f"{verdict['skipped']} groups too small to test.</p>",
    ]
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
    out.append(
        "<h2>Every test, smallest p-value first</h2><table><tr><th>test</th><th>n</th>"
        "<th>statistic</th><th>p-value</th><th>verdict</th></tr>"
    )
    for t in tests:
        stat = f"z = {t['statistic']:.2f}" if t["family"] == "allin" else f"χ² = {_fmt(t['statistic'])} ({t['df']} df)"
        mark = '<span class="bad">rejected</span>' if t["rejected"] else "ok"
        out.append(
            f"<tr><td>{html.escape(t['name'])}</td><td class='n'>{t['n']:,}</td><td>{stat}</td>"
            f"<td class='n'>{t['p_value']:.3g}</td><td>{mark}</td></tr>"
        )
    out.append("</table></body></html>")
    return "\n".join(out)
