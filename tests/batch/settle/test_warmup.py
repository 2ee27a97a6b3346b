"""Compiling ahead: one compilation before the workers start, and nothing left for them to compile.

The first test starts from an empty numba cache in real processes, so it also
runs what a newcomer's first ``cardbatch settle`` does (about 15 s here).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import ROOT, SAMPLES

from cardbatch.batch.settle.warmup import HEAD_ROWS, heads

# Compiles ahead, then runs the sample settlement in-process and lists the cardbatch kernels
# numba compiled during the run.
COUNT_COMPILES = """
import json, sys
from numba.core import event as ev
from cardbatch.batch.settle.options import SettleOptions
from cardbatch.batch.settle.job import settle_files, settle_table
from cardbatch.batch.settle.warmup import compile_ahead

ahead = compile_ahead(settle_table, sys.argv[2:], SettleOptions(), serial=True)  # the samples: a small run
compiled = []

class Count(ev.Listener):
    def on_start(self, event):
        f = event.data["dispatcher"].py_func
        if f.__module__.startswith("cardbatch."):
            compiled.append(f.__module__ + "." + f.__name__)

    def on_end(self, event):
        pass

with ev.install_listener("numba:compile", Count()):
    summary = settle_files(sys.argv[2:], sys.argv[1], SettleOptions(), workers=1, quiet=True)
print(json.dumps({"ahead": ahead, "compiled": compiled, "in_run": summary["compile_ahead"]}))
"""


def _counted_run(out: Path, cache: Path) -> dict:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    # a real process: an empty numba cache, and compilations counted from the process start
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(COUNT_COMPILES), str(out), *SAMPLES],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.splitlines()[-1])


@pytest.mark.slow  # compiles from an empty numba cache
def test_a_cold_run_compiles_ahead_and_leaves_nothing_to_compile(tmp_path):
    cache = tmp_path / "cache"
    first = _counted_run(tmp_path / "out1", cache)
    assert first["ahead"]["compiled"] is True
    # after the warm-up the run found every kernel in the cache: the workers would only load
    assert first["in_run"]["compiled"] is False
    assert first["compiled"] == [], first["compiled"]
    second = _counted_run(tmp_path / "out2", cache)
    assert second["ahead"]["compiled"] is False
    assert second["compiled"] == []
    # the warm-up does not change what is settled
    a = pq.read_table(tmp_path / "out1" / "results")
    b = pq.read_table(tmp_path / "out2" / "results")
    assert a.equals(b)


def test_heads_take_a_few_rows_of_one_file_per_schema(tmp_path):
    one = pa.table({"hand_id": list(range(100)), "x": [1] * 100})
    other = pa.table({"hand_id": list(range(5)), "y": ["a"] * 5})
    for name, table in (("a", one), ("b", one), ("c", other)):
        pq.write_table(table, tmp_path / f"{name}.parquet")
    (tmp_path / "broken.parquet").write_bytes(b"not parquet")
    pq.write_table(one.slice(0, 0), tmp_path / "empty.parquet")
    got = heads(sorted(str(p) for p in tmp_path.iterdir()))
    assert [t.num_rows for t in got] == [HEAD_ROWS, 5]
    assert [t.column_names for t in got] == [["hand_id", "x"], ["hand_id", "y"]]


BUILDS = """
import json, sys
from cardbatch.batch.settle.options import SettleOptions
from cardbatch.batch.settle.job import settle_files
from cardbatch.kernels import holdem, onepass
from cardbatch.kernels.pots import driver

settle_files(sys.argv[3:], sys.argv[1], SettleOptions(), workers=1, quiet=True, batch_rows=int(sys.argv[2]))
used = {}
kernels = (
    ("one pass", onepass.settle_board_batch),
    ("pots", driver.settle_standard_kernel),
    ("evaluate", holdem._evaluate_seats_kernel),
)
for name, kernel in kernels:
    used[name] = [b for b in ("serial", "parallel") if getattr(kernel, b).signatures]
print(json.dumps(used))
"""


@pytest.mark.slow  # seconds in the fast loop: CI runs it
def test_a_small_run_takes_the_serial_builds_and_a_big_one_the_parallel(tmp_path):
    """A run of one batch or less compiles the kernels' serial builds (half the compile, the same
    results); a bigger run the parallel ones, which also run faster. A small Hold'em run takes the
    reference path (its kernels are every card game's); a big one the one-pass kernel alone, never
    compiling the reference path's."""
    sample = str(ROOT / "data" / "holdem_sample.parquet")
    used = {}
    for name, batch_rows in (("small", 1 << 16), ("big", 1000)):
        # a real process: the builds a run compiles, counted in a process that compiled nothing before
        proc = subprocess.run(
            [sys.executable, "-c", textwrap.dedent(BUILDS), str(tmp_path / name), str(batch_rows), sample],
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert proc.returncode == 0, proc.stderr
        used[name] = json.loads(proc.stdout.splitlines()[-1])
    assert used["small"] == {"one pass": [], "pots": ["serial"], "evaluate": ["serial"]}
    assert used["big"] == {"one pass": ["parallel"], "pots": [], "evaluate": []}
    a = pq.read_table(tmp_path / "small" / "results")
    b = pq.read_table(tmp_path / "big" / "results")
    assert a.sort_by("hand_id").equals(b.sort_by("hand_id"))


@pytest.mark.slow
def test_the_warm_up_compiles_the_dead_money_kernel_when_the_first_rows_have_none(tmp_path):
    """An imported log has a ``dead`` column whose first hands rarely hold dead money: the warm-up
    compiled only what those rows reach, and the run then compiled the dead-money kernel inside its
    first part (13 s of an 18-hand audit), with ``compile_ahead`` saying nothing was compiled."""
    from cardbatch.batch.generate import generate_hands

    table = generate_hands("holdem", 400, seed=9).table
    contrib = table.column("contrib").to_pylist()
    dead = [[0] * len(c) if i < 200 else [min(1, c[0])] + [0] * (len(c) - 1) for i, c in enumerate(contrib)]
    path = tmp_path / "imported.parquet"
    pq.write_table(table.append_column("dead", pa.array(dead, pa.list_(pa.int64()))), path)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    # a real process: an empty numba cache, and compilations counted from the process start
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(COUNT_COMPILES), str(tmp_path / "out"), str(path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout.splitlines()[-1])
    assert got["ahead"]["compiled"] is True
    assert got["compiled"] == [], got["compiled"]
