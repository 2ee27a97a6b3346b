"""Time to first result of each public kernel: cold (empty numba cache) and warm (cache filled).

Each line runs in a fresh Python process, so the figure is what a user waits
for: import, compile or load the cache, one tiny call. Not a pytest-benchmark
(compile time is paid once per process, not per round). Run:

    python benchmarks/first_results.py            # prints a Markdown table
    python benchmarks/first_results.py --main     # also the README's main command, cold and warm

Every kernel's cold figure uses its own empty cache, so it counts that kernel
alone (plus the kernels it calls that no earlier line of the same process
compiled).
"""

from __future__ import annotations

import argparse
import os
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


def _command(args: list[str], cache: str, out: str) -> float:
    shutil.rmtree(out, ignore_errors=True)
    env = {**os.environ, "NUMBA_CACHE_DIR": cache}
    t0 = time.perf_counter()
    subprocess.run(args + ["--out", out], check=True, env=env, cwd=ROOT, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--main", action="store_true", help="also time the README's main command")
    args = parser.parse_args()
    print("| kernel | first result, empty cache | first result, cache filled |")
    print("| --- | ---: | ---: |")
    with tempfile.TemporaryDirectory() as tmp:
        for i, name in enumerate(CALLS):
            cache = os.path.join(tmp, f"cache{i}")
            cold = _timed(_code(name), cache)
            warm = _timed(_code(name), cache)
            print(f"| `{name}` | {cold:.1f} s | {warm:.2f} s |", flush=True)
        if args.main:
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
                cold = _command(settle + extra, cache, out)
                warm = _command(settle + extra, cache, out)
                print(f"| README main command ({label}) | {cold:.1f} s | {warm:.2f} s |", flush=True)


if __name__ == "__main__":
    main()
