"""The ``--equity`` section of ``report.html``: the all-ins by street and, with ``--by-player``,
the players the cards moved most."""

from __future__ import annotations

from typing import Any

from cardbatch.batch.settle.report import bars, esc, table

LUCKIEST = 10  # players drawn each way in the report's luck charts


def section(s: dict[str, Any]) -> str:
    """A run with ``--equity``: its all-ins by street and, with ``player_id``, each way the players
    whose results the cards moved most (actual net against all-in adjusted net)."""
    eq = s.get("equity")
    if not eq:
        return ""
    streets = {"0": "preflop", "1": "flop", "2": "turn"}
    rows = [[streets.get(k, k), v] for k, v in sorted(eq.get("by_street", {}).items())]
    not_placed = ", ".join(f"{k.replace('_', ' ')} {v:,}" for k, v in sorted(eq.get("not_placed", {}).items()))
    out = [
        "<h2>All-in equity</h2>",
        f"<p>{eq.get('all_in', 0):,} of {eq.get('rows', 0):,} settled hands were all-in before the river "
        f"({eq.get('exact', 0):,} walked exactly, {eq.get('sampled', 0):,} sampled)"
        + (f"; not placed in time: {esc(not_placed)}" if not_placed else "")
        + ".</p>",
        table(["all-in street", "hands"], rows, {1}) if rows else "",
    ]
    players = eq.get("by_player") or {}
    if players:
        luck = sorted(((p["net"] - p["ev_net"], pid, p) for pid, p in players.items()), key=lambda x: x[0])
        lucky = [(f"player {pid}", float(v)) for v, pid, _ in reversed(luck[-LUCKIEST:]) if v > 0]
        unlucky = [(f"player {pid}", float(-v)) for v, pid, _ in luck[:LUCKIEST] if v < 0]
        out.append(
            f"<p>{len(players):,} players. Luck is a player's net (payouts less chips put in) less their "
            "all-in adjusted net (expected payouts less chips put in).</p>"
        )
        if lucky:
            out.append("<h3>Luckiest: chips won above their equity</h3>" + bars(lucky, "chips", "luckiest players", 1))
        if unlucky:
            out.append("<h3>Unluckiest: chips lost below their equity</h3>" + bars(unlucky, "chips", "unluckiest", 1))
        shown = [
            [pid, p["hands"], p["net"], float(p["ev_net"]), float(p["net"] - p["ev_net"])]
            for _, pid, p in (luck[:LUCKIEST] + luck[-LUCKIEST:] if len(luck) > 2 * LUCKIEST else luck)
        ]
        out.append(table(["player", "hands", "net", "all-in adjusted net", "luck"], shown, {1, 2, 3, 4}))
    return "".join(out)
