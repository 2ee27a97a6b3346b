"""What users run, timed as they run it: ``cardbatch settle`` and ``cardbatch audit`` as fresh
processes on a warm numba cache (report and summary included), and the DataFrame API on a path
(``cardbatch.settle("FILE")`` in a fresh ``python``), on tidy Hold'em files of 0.1 M, 1 M, 3 M and
10 M hands in row groups of 250,000, beside the same commands of two other commits run
alternately in the same benchmark: the previous main (``CARDBATCH_PREVIOUS``, default the commit
before the work of issue #46) and c2f7f33 (the code before the throughput work, the issue's
reference). Each commit's source is exported from git once (``data/generated/baseline-COMMIT``) and
run with its own numba cache, warmed by one untimed run.

A round runs every commit once, in turn (the order reversed every other round), so a neighbour
taking a core for a while costs each of them alike; each row's figure is its best round.
``CARDBATCH_BENCH_CLI_SCALE`` shrinks the files; in CI's smoke run (``--benchmark-disable``) only
our command runs, once per size::

    python -m pytest benchmarks/test_bench_cli.py -q               # the figures (~10 minutes)
    CARDBATCH_BENCH_CLI_SIZES=3000000 python -m pytest benchmarks/test_bench_cli.py -q -k settle
"""

from __future__ import annotations

import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from baseline import ROOT, tree
from conftest import record

SCALE = float(os.environ.get("CARDBATCH_BENCH_CLI_SCALE", 1))
SIZES = sorted(
    {
        max(int(int(n) * SCALE), 1_000)
        for n in os.environ.get("CARDBATCH_BENCH_CLI_SIZES", "100000,1000000,3000000,10000000").split(",")
    }
)
ROUNDS = int(os.environ.get("CARDBATCH_BENCH_CLI_ROUNDS", 3))
PREVIOUS = os.environ.get("CARDBATCH_PREVIOUS", "9cf8f21")  # main before issue #46
REFERENCE = "c2f7f33"  # before the throughput work: the ratio is against it
FILES = ROOT / "data" / "generated"

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

API = "import sys, cardbatch; s = cardbatch.settle(sys.argv[1]); assert s.summary['rows_read'] > 0"


def hands_file(n: int) -> Path:
    """A tidy generated Hold'em file of ``n`` hands in row groups of 250,000 (made once)."""
    path = FILES / f"holdem_tidy_{n}.parquet"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        cmd = [sys.executable, "-m", "cardbatch", "generate", "--hands", str(n), "--seed", "46"]
        subprocess.run([*cmd, "--row-group", "250000", "--out", str(path), "-q"], check=True)
    return path


def _codes(smoke: bool) -> dict[str, dict[str, str]]:
    """Each commit's environment: ours as installed; the others from their exported trees."""
    ours = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if smoke:
        return {"this commit": ours}
    return {
        "this commit": ours,
        f"previous main ({PREVIOUS})": {**ours, "PYTHONPATH": str(tree(PREVIOUS) / "src")},
        f"{REFERENCE} (before the throughput work)": {**ours, "PYTHONPATH": str(tree(REFERENCE) / "src")},
    }


def _command(kind: str, path: Path, out: Path) -> list[str]:
    if kind == "api":
        return [sys.executable, "-c", API, str(path)]
    return [sys.executable, "-m", "cardbatch", kind, str(path), "--out", str(out)]


def _run(cmd: list[str], env: dict[str, str], out: Path) -> tuple[float, float]:
    """Wall and CPU seconds (the process and its children) of one fresh run."""
    shutil.rmtree(out, ignore_errors=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=out.parent)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 3):  # audit: 3 when a recorded payout differs (none here)
        raise RuntimeError(f"{' '.join(cmd)} failed ({done.returncode}): {done.stderr[-2000:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def alternately(codes: dict[str, dict[str, str]], make: Callable[[str], list[str]], out: Path, rounds: int):
    """Each code once a round, in turn (reversed every other round); its walls and CPU seconds."""
    for name, env in codes.items():  # warm: each commit's numba cache filled, untimed
        _run(make(name), env, out)
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in codes}
    order = list(codes)
    for r in range(rounds):
        for name in order if r % 2 == 0 else order[::-1]:
            times[name].append(_run(make(name), codes[name], out))
    return times


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("kind", ["settle", "audit", "api"])
def test_as_users_run_it(benchmark, tmp_path, kind, n):
    if kind != "settle" and n not in (SIZES[0], SIZES[-2] if len(SIZES) > 1 else SIZES[0]):
        pytest.skip("audit and the API: the smallest file and the 3 M one")
    path = hands_file(n)
    smoke = benchmark.disabled
    codes = _codes(smoke)
    out = tmp_path / "out"
    times = alternately(codes, lambda name: _command(kind, path, out), out, 1 if smoke else ROUNDS)
    if smoke:
        return
    label = {"settle": "cardbatch settle", "audit": "cardbatch audit", "api": "cardbatch.settle(path), a script"}
    group = f"as users run it: {label[kind]}, {n:,} hands (fresh process, warm cache)"
    for name, runs in times.items():
        walls = [w for w, _ in runs]
        best = min(range(len(runs)), key=lambda k: walls[k])
        record(
            group,
            name,
            n / walls[best],
            ours=name == "this commit",
            rounds=len(runs),
            threads=os.cpu_count() or 1,
            cores_used=runs[best][1] / walls[best],
            seconds=round(walls[best], 3),
            median_seconds=round(statistics.median(walls), 3),
        )
    benchmark.extra_info.update({name: [round(w, 3) for w, _ in runs] for name, runs in times.items()})
