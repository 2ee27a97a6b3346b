"""Exactness beside speed: this commit's ``cardbatch settle`` against another commit's on the same
files, hand by hand.

Each file is settled by both (fresh processes; the other commit from its exported tree, as in
``test_bench_cli.py``), and the two ``results/`` are compared row by row after sorting by
``hand_id``: every column both have (payouts, nets, rake, pots, scores, categories, recorded
payouts, mismatches) must be equal, and so must the rows set aside in ``errors/`` (ids and
reasons). Prints one line a file; exits 1 at the first difference.

    python benchmarks/same_payouts.py data/generated/holdem_tidy_*.parquet   # against CARDBATCH_PREVIOUS
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pyarrow as pa
import pyarrow.dataset as ds

sys.path.insert(0, str(Path(__file__).resolve().parent))
from baseline import tree  # noqa: E402

OTHER = os.environ.get("CARDBATCH_PREVIOUS", "9cf8f21")


def settled(path: str, out: Path, env: dict[str, str]) -> tuple[pa.Table, pa.Table]:
    cmd = [sys.executable, "-m", "cardbatch", "settle", path, "--out", str(out), "-q"]
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
    results = ds.dataset(out / "results", format="parquet", partitioning="hive").to_table()
    if any((out / "errors").rglob("*.parquet")):
        errors = ds.dataset(out / "errors", format="parquet", partitioning="hive").to_table(
            columns=["hand_id", "reason"]
        )
    else:  # a tidy file: nothing set aside
        errors = pa.table({"hand_id": pa.nulls(0, pa.int64()), "reason": pa.nulls(0, pa.string())})
    return results.sort_by("hand_id"), errors.sort_by("hand_id")


def main(paths: list[str]) -> int:
    ours = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    theirs = {**ours, "PYTHONPATH": str(tree(OTHER) / "src")}
    for path in paths:
        with tempfile.TemporaryDirectory() as tmp:
            a, a_err = settled(path, Path(tmp) / "ours", ours)
            b, b_err = settled(path, Path(tmp) / "theirs", theirs)
        shared = [c for c in a.column_names if c in b.column_names]
        same = a.num_rows == b.num_rows and all(a.column(c).equals(b.column(c)) for c in shared)
        same_errors = a_err.equals(b_err)
        print(
            f"{path}: {a.num_rows:,} settled, {a_err.num_rows:,} set aside; against {OTHER}: "
            f"{'identical' if same and same_errors else 'DIFFERENT'} ({', '.join(shared)})",
            flush=True,
        )
        if not (same and same_errors):
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
