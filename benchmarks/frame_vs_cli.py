"""The DataFrame API against the command line on the same rows: wall seconds and peak memory.

``cardbatch audit FILE --out DIR`` (its process and its workers, their resident memory summed,
sampled every 20 ms) against a plain script that reads the same file into a Polars frame and calls
``cardbatch.audit(frame)`` (one process; the frame's own size reported apart, since the target is
"peak ≤ the command line's plus the frame"). Warm numba cache (each is run once first). Run:

    python benchmarks/frame_vs_cli.py --rows 2000000      # best of --repeat runs each

With ``PYTHONPATH`` pointing at another checkout's package, the same figures for that code.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

API = """
import json, sys, time, resource
import polars as pl
import cardbatch
frame = pl.read_parquet(sys.argv[1])
size = frame.estimated_size()
t0 = time.perf_counter()
s = cardbatch.audit(frame)
wall = time.perf_counter() - t0
print(json.dumps({"wall": wall, "frame_bytes": size, "rows": s.summary["rows_read"],
                  "settled": s.results.num_rows, "rejected": s.errors.num_rows}))
"""


def tree_rss(pid: int) -> int:
    """Resident bytes of ``pid`` and every process below it."""
    total = 0
    todo = [pid]
    while todo:
        p = todo.pop()
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
            for task in os.listdir(f"/proc/{p}/task"):
                todo += [int(c) for c in Path(f"/proc/{p}/task/{task}/children").read_text().split()]
        except (FileNotFoundError, ProcessLookupError):
            continue
    return total


def measured(cmd: list[str]) -> tuple[float, int, str]:
    """Wall seconds, peak resident bytes of the process tree, stdout."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    peak = 0
    while proc.poll() is None:
        peak = max(peak, tree_rss(proc.pid))
        time.sleep(0.02)
    out = proc.stdout.read() if proc.stdout else ""
    return time.perf_counter() - t0, peak, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=2_000_000)
    ap.add_argument("--repeat", type=int, default=2)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "hands.parquet"
        subprocess.run(
            [
                sys.executable,
                "-m",
                "cardbatch",
                "generate",
                "--game",
                "holdem",
                "--hands",
                str(a.rows),
                "--seed",
                "1",
                "--bad-rate",
                "0.03",
                "--tamper-rate",
                "0.01",
                "--out",
                str(path),
                "-q",
            ],
            check=True,
        )
        script = Path(tmp) / "api.py"
        script.write_text(textwrap.dedent(API))
        cli, api = [], []
        for k in range(a.repeat + 1):  # the first of each fills or loads the cache
            out = Path(tmp) / f"out{k}"
            wall, peak, _ = measured([sys.executable, "-m", "cardbatch", "audit", str(path), "--out", str(out), "-q"])
            cli.append((wall, peak))
            total, peak, printed = measured([sys.executable, str(script), str(path)])
            api.append((json.loads(printed.splitlines()[-1]), total, peak))
        best_cli = min(cli[1:])
        figures = {
            "rows": a.rows,
            "cli_wall_s": round(best_cli[0], 2),
            "cli_peak_gib": round(max(p for _, p in cli[1:]) / 2**30, 2),
            "api_call_wall_s": round(min(r["wall"] for r, _, _ in api[1:]), 2),
            "api_process_wall_s": round(min(t for _, t, _ in api[1:]), 2),
            "api_peak_gib": round(max(p for _, _, p in api[1:]) / 2**30, 2),
            "frame_gib": round(api[-1][0]["frame_bytes"] / 2**30, 2),
        }
        figures["api_over_cli_wall"] = round(figures["api_call_wall_s"] / figures["cli_wall_s"], 2)
        figures["api_peak_minus_frame_gib"] = round(figures["api_peak_gib"] - figures["frame_gib"], 2)
        print(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
