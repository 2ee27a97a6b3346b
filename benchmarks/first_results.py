"""Time to first result of each public kernel: cold (empty numba cache) and warm (cache filled).

Each line runs in a fresh Python process, so the figure is what a user waits
for: import, compile or load the cache, one tiny call. Not a pytest-benchmark
(compile time is paid once per process, not per round). Run:

    python benchmarks/first_results.py            # prints a Markdown table
    python benchmarks/first_results.py --main     # also the README's main command, cold and warm
    python benchmarks/first_results.py --only-main --limit 40   # CI: the main command only; exit 1
                                                                 # when its cold run passes 40 s twice

Every kernel's cold figure uses its own empty cache, so it counts that kernel
alone (plus the kernels it calls that no earlier line of the same process
compiled).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CALLS = {  # name: the one call, with ``np`` and the kernel's module imported
    "holdem.evaluate (7 cards)": "holdem.evaluate(np.array([[0, 5, 10, 15, 20, 25, 30]], np.uint8))",
    "holdem.evaluate_seats": "holdem.evaluate_seats(np.array([[[0, 1], [2, 3]]]), np.array([[8, 13, 22, 31, 40]]), "
    "np.ones((1, 2), bool))",
    "holdem.enumerate_seven (one pair of low cards)": "holdem.enumerate_seven([(44, 45)])",
    "threecard.evaluate": "threecard.evaluate(np.array([[0, 5, 10]], np.uint8))",
    "threecard.evaluate_seats": "threecard.evaluate_seats(np.array([[[0, 5, 10], [1, 6, 11]]]), np.ones((1, 2), bool))",
    "pots.settle (standard)": "pots.settle([[10, 10]], [[True, True]], [[1, 2]], 0)",
    "pots.settle (ratio_rank, per street)": "pots.settle([[[10, 10]]], [[True, True]], [[1, 2]], 0, 'ratio_rank')",
    "team.settle_2v2": "team.settle_2v2([[100, 100, 100, 100]], [[1, 1, 1, 1]], [[False] * 4], [0], 10, 1, 0)",
    "ranking.rank_zjh": "ranking.rank_zjh(10, 6, 1)",
    "ranking.rank_holdem": "ranking.rank_holdem(10, 9, 1)",
}


def _code(name: str) -> str:
    module = name.split(".")[0]
    return f"import numpy as np\nfrom cardbatch.kernels import {module}\n{CALLS[name]}"


def _timed(code: str, cache: str) -> float:
    env = {**os.environ, "NUMBA_CACHE_DIR": cache}
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, env=env, cwd=ROOT)
    return time.perf_counter() - t0


def _command(args: list[str], cache: str, out: str) -> tuple[float, float]:
    """Wall and CPU seconds (the command and every process it started) of one run."""
    shutil.rmtree(out, ignore_errors=True)
    env = {**os.environ, "NUMBA_CACHE_DIR": cache}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(args + ["--out", out], check=True, env=env, cwd=ROOT, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--main", action="store_true", help="also time the README's main command")
    parser.add_argument("--only-main", action="store_true", help="time the README's main command only")
    parser.add_argument(
        "--limit", type=float, help="exit 1 when the main command's first run (empty cache) takes longer (seconds)"
    )
    args = parser.parse_args()
    print("| kernel | first result, empty cache | first result, cache filled |")
    print("| --- | ---: | ---: |")
    slow = []
    with tempfile.TemporaryDirectory() as tmp:
        for i, name in enumerate(() if args.only_main else CALLS):
            cache = os.path.join(tmp, f"cache{i}")
            cold = _timed(_code(name), cache)
            warm = _timed(_code(name), cache)
            print(f"| `{name}` | {cold:.1f} s | {warm:.2f} s |", flush=True)
        if args.main or args.only_main:
            settle = [
                sys.executable,
                "-m",
                "cardbatch",
                "settle",
                *sorted(map(str, ROOT.glob("data/*_sample.parquet"))),
            ]
            for label, extra in (("default workers", []), ("--workers 1", ["--workers", "1"])):
                cache = os.path.join(tmp, f"main-{len(extra)}")
                out = os.path.join(tmp, "out")
                cold, cold_cpu = _command(settle + extra, cache, out)
                warm, warm_cpu = _command(settle + extra, cache, out)
                print(
                    f"| README main command ({label}) | {cold:.1f} s ({cold_cpu:.1f} s CPU) "
                    f"| {warm:.2f} s ({warm_cpu:.1f} s CPU) |",
                    flush=True,
                )
                if args.limit is not None and cold > args.limit:
                    # the VM's speed swings up to 2x within an hour: a slow first run is measured once
                    # more, from another empty cache, and only two slow runs in a row fail
                    shutil.rmtree(cache, ignore_errors=True)
                    again, again_cpu = _command(settle + extra, cache, out)
                    print(f"| README main command ({label}), again | {again:.1f} s ({again_cpu:.1f} s CPU) | |")
                    if again > args.limit:
                        twice = f"{cold:.1f} s and {again:.1f} s"
                        slow.append(f"README main command ({label}): first run {twice} > {args.limit:g} s")
    if slow:
        print("\n".join(slow), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
