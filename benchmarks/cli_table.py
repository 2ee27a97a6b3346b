"""The table of issue #46 (throughput as the user sees it), redone: the same commands on tidy
generated Hold'em files in row groups of 250,000, this commit beside another (default: the main
before that work), run alternately, best of ``--rounds``.

Rows: ``cardbatch settle`` of 100,000 hands on 1 and on 2 workers, of 2,000,000 and of 6,000,000 (a
fresh process, warm cache, the README's defaults; the marginal cost from 2 M to 6 M follows), and the
DataFrame API in memory: ``cardbatch.settle(table)`` of the 2,000,000 rows (timed in the script,
the file already read), and of 100,000 rows, first call and second in one process.

    python benchmarks/cli_table.py            # prints a Markdown table
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from baseline import ROOT, tree  # noqa: E402

FILES = ROOT / "data" / "generated"
API = """
import json, sys, time
import pyarrow.parquet as pq
import cardbatch
table = pq.read_table(sys.argv[1])
small = table.slice(0, 100_000)
t0 = time.perf_counter(); cardbatch.settle(small); t1 = time.perf_counter(); cardbatch.settle(small)
t2 = time.perf_counter(); cardbatch.settle(table); t3 = time.perf_counter()
print(json.dumps({"first_100k": t1 - t0, "second_100k": t2 - t1, "in_memory": t3 - t2}))
"""


def hands_file(n: int) -> Path:
    path = FILES / f"holdem_tidy_{n}.parquet"
    if not path.exists():
        cmd = [sys.executable, "-m", "cardbatch", "generate", "--hands", str(n), "--seed", "46"]
        subprocess.run([*cmd, "--row-group", "250000", "--out", str(path), "-q"], check=True)
    return path


def settle(path: Path, env: dict[str, str], workers: int | None = None) -> float:
    out = Path(tempfile.mkdtemp())
    cmd = [sys.executable, "-m", "cardbatch", "settle", str(path), "--out", str(out / "o")]
    if workers:
        cmd += ["--workers", str(workers)]
    t0 = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    took = time.perf_counter() - t0
    shutil.rmtree(out)
    return took


def api(path: Path, env: dict[str, str]) -> dict[str, float]:
    done = subprocess.run([sys.executable, "-c", API, str(path)], env=env, check=True, capture_output=True, text=True)
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--other", default=os.environ.get("CARDBATCH_PREVIOUS", "9cf8f21"))
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    ours = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    codes = {"this commit": ours, args.other: {**ours, "PYTHONPATH": str(tree(args.other) / "src")}}
    small, two, six = hands_file(100_000), hands_file(2_000_000), hands_file(6_000_000)
    rows: dict[str, dict[str, list[float]]] = {name: {} for name in codes}
    for env in codes.values():  # warm each commit's cache, untimed
        settle(small, env)
    for r in range(args.rounds):
        for name in list(codes) if r % 2 == 0 else list(codes)[::-1]:
            env, got = codes[name], rows[name]
            got.setdefault("settle 100,000 (1 worker)", []).append(settle(small, env, 1))
            got.setdefault("settle 100,000 (2 workers)", []).append(settle(small, env, 2))
            got.setdefault("settle 2,000,000", []).append(settle(two, env))
            got.setdefault("settle 6,000,000", []).append(settle(six, env))
            for key, value in api(two, env).items():
                got.setdefault(f"api {key}", []).append(value)
    print(f"| work | {' | '.join(codes)} |")
    print(f"| --- | {' | '.join('---:' for _ in codes)} |")
    for key in rows["this commit"]:
        cells = []
        for name in codes:
            best = min(rows[name][key])
            n = {"2,000,000": 2e6, "6,000,000": 6e6}.get(key.split()[-1], 0)
            rate = f" ({n / best / 1e6:.2f} M/s)" if n else ""
            cells.append(f"{best:.2f} s{rate}")
        print(f"| {key} | {' | '.join(cells)} |")
    for name in codes:
        marginal = (min(rows[name]["settle 6,000,000"]) - min(rows[name]["settle 2,000,000"])) / 4e6 * 1e6
        print(f"{name}: marginal cost from 2 M to 6 M {marginal:.2f} µs a hand ({1 / marginal:.2f} M hands/s)")


if __name__ == "__main__":
    main()
