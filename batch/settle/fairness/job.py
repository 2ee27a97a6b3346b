"""``cardbatch fairness``: a settle run with every all-in walked and the deal tallied, then the tests.

The run is a settle run (the same inputs, engines, parts, reruns and output folder), whose
batches also count what :mod:`.tally` describes; at its end :func:`write_fairness` runs the tests
(:mod:`.audit`) on the run's per-game tallies and writes ``fairness.json`` and ``fairness.html``
before the folder's ``_SUCCESS``. The exit status is 4 when a test is rejected.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from cardbatch.batch.io import storage
from cardbatch.batch.settle.options import SettleOptions


def write_fairness(out: str, total: dict[str, Any], opts: SettleOptions) -> dict[str, Any]:
    """Run the tests on the run's tallies, write ``fairness.json`` and ``fairness.html`` into ``out``,
    take the tallies out of the summary (the parts keep them), and return the summary's entry."""
    from cardbatch.batch.settle.fairness.audit import run_tests
    from cardbatch.batch.settle.fairness.report import render

    assert opts.fairness is not None
    by_game = total.get("by_game", {})
    verdict = run_tests(by_game, opts.rules, opts.fairness.level)
    verdict["by"] = opts.fairness.by
    verdict["calibration"] = {
        game: {
            k.split("=")[1]: v
            for k, v in c.get("fairness", {}).get("all", {}).get("allin", {}).items()
            if k.startswith("equity=")
        }
        for game, c in by_game.items()
    }
    verdict["rows"] = {game: c.get("fairness", {}).get("all", {}).get("rows", 0) for game, c in by_game.items()}
    total.pop("fairness", None)
    for c in by_game.values():
        c.pop("fairness", None)
    storage.write_text(storage.join(out, "fairness.json"), json.dumps(verdict, indent=1, sort_keys=True))
    storage.write_text(storage.join(out, "fairness.html"), render(verdict, total))
    return {
        "tests": len(verdict["tests"]),
        "rejected": len(verdict["rejected"]),
        "skipped": verdict["skipped"],
        "not_run": [r["tests"] for r in verdict["not_run"]],
        "level": verdict["level"],
        "files": ["fairness.json", "fairness.html"],
    }


def fairness_line(s: Mapping[str, Any], out: str) -> str:
    """What a fairness run found, in one line."""
    f = s.get("fairness") or {}
    verdict = "nothing rejected" if not f.get("rejected") else f"{f['rejected']} REJECTED"
    if not f.get("tests"):
        verdict = "no test could run (too few rows, all-ins or recorded cards): nothing was judged"
    return (
        f"cardbatch fairness: {s['rows_read']:,} rows, {s['rows_settled']:,} settled; {f.get('tests', 0)} tests at "
        f"level {f.get('level')} (Holm): {verdict}; {s['wall_seconds']:.1f} s; "
        f"see {storage.join(out, 'fairness.html')}"
    )
