"""Where a worker's CPU goes on one unit of the tidy file, against the I/O ceiling's copy.

``test_bench_batch.py`` compares ``cardbatch settle`` with a ceiling that reads
the same row groups and writes results of the same shape without computing
them. This script splits one 250,000-row row group's CPU into the steps each
does (in this process, one numba thread, best of ``--rounds``), in ns a hand,
with each writer (pyarrow's zstd, as before issue #33; its lz4, every file
now; Polars' lz4, measured and not taken), and prints the best ratio settle
could reach if its fixed costs (worker start-up, planning) were zero. Run:

    python benchmarks/unit_costs.py               # the benchmark's file (made by test_bench_batch.py)
    python benchmarks/unit_costs.py --groups 4 --rounds 3
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from test_bench_batch import _copy_unit  # noqa: E402  (the ceiling's own copy, not a second one)

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "data" / "generated" / "holdem_5000000.parquet"
START = (
    "import time; t = time.process_time()\n"
    "import sys, pyarrow.parquet as pq\n"
    "from cardbatch.batch.settle import job as runner\n"
    "from cardbatch.batch.settle.options import SettleOptions\n"
    "runner.settle_by_game(pq.ParquetFile(sys.argv[1]).read_row_groups([0]).slice(0, 10), SettleOptions())\n"
    "print(time.process_time() - t)\n"
)


def _cpu(fn, *args):
    t = time.process_time()
    out = fn(*args)
    return time.process_time() - t, out


def _writers() -> dict[str, Callable[[object, str], None]]:
    """The writers compared: before #33, now (every file cardbatch writes), and Polars' (rejected)."""
    import pyarrow.parquet as pq

    from cardbatch.batch.io import storage

    def polars_lz4(table, path):
        import polars as pl

        pl.from_arrow(table).write_parquet(path, compression="lz4", statistics=False)

    return {
        "write, pyarrow zstd (before)": lambda t, p: pq.write_table(
            t, p, compression="zstd", use_dictionary=False, write_statistics=False
        ),
        "write, pyarrow lz4 (now)": lambda t, p: pq.write_table(t, p, **storage.WRITE_OPTIONS),
        "write, polars lz4": polars_lz4,
    }


def _steps(file: str, g: int, work: str) -> dict[str, float]:
    """CPU seconds of each step on row group ``g``: the ceiling's copy, then ours with each writer."""
    import pyarrow.parquet as pq

    from cardbatch.batch.settle import job as runner
    from cardbatch.batch.settle.options import SettleOptions
    from cardbatch.batch.settle.outputs import conform_results

    out = {"ceiling copy": _cpu(_copy_unit, file, [g], f"{work}/c{g}.parquet", False)[0]}
    out["read"], table = _cpu(pq.ParquetFile(file).read_row_groups, [g])
    out["settle"], (results, _, _) = _cpu(runner.settle_by_game, table, SettleOptions())
    out["conform"], conformed = _cpu(conform_results, results["holdem"], {})
    for name, write in _writers().items():
        out[name] = _cpu(write, conformed, f"{work}/r{g}.parquet")[0]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--file", default=str(DATA))
    ap.add_argument("--groups", type=int, default=3, help="row groups timed (after one warm-up)")
    ap.add_argument("--rounds", type=int, default=2)
    a = ap.parse_args()
    os.environ.setdefault("NUMBA_NUM_THREADS", "1")
    import pyarrow.parquet as pq

    from cardbatch.batch.settle import job as runner
    from cardbatch.batch.settle.options import SettleOptions

    pf = pq.ParquetFile(a.file)
    rows = pf.metadata.row_group(0).num_rows
    runner.settle_by_game(pf.read_row_groups([0]), SettleOptions())  # compile or load the cache
    best: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as d:
        for _ in range(a.rounds):
            steps = [_steps(a.file, g, d) for g in range(1, 1 + a.groups)]
            for k in steps[0]:
                v = sum(s[k] for s in steps) / a.groups
                best[k] = min(best.get(k, v), v)
    start = float(
        subprocess.run([sys.executable, "-c", START, a.file], capture_output=True, text=True, check=True).stdout
    )
    fixed = best["read"] + best["settle"] + best["conform"]
    print(f"CPU per {rows:,}-row unit (best of {a.rounds} rounds of {a.groups}), ns a hand:")
    for k, v in best.items():
        print(f"  {k:<30} {v * 1e9 / rows:7.0f}")
    for name in _writers():
        ours = fixed + best[name]
        print(f"  {'ours with ' + name[7:]:<30} {ours * 1e9 / rows:7.0f}")
    print(f"worker start-up (imports, kernel cache loads, ten rows): {start:.2f} CPU s")
    now = fixed + best["write, pyarrow lz4 (now)"]
    print(
        f"settle / ceiling (which writes as ours now does), no fixed costs, at most: {best['ceiling copy'] / now:.0%}"
    )


if __name__ == "__main__":
    main()
