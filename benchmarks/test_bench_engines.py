"""Every heavy job as users run it (a fresh ``cardbatch`` process, warm numba cache), on 1 and 2
local workers and on a two-worker Dask cluster, in one run so the figures are ratios.

For each job: the scaling table has the command on 1 worker and on 2 (goal: 2 workers at least
1.8x one), and a group of its own compares 2 workers of the local pool with the 2 workers of a
``LocalCluster`` (goal: the cluster within 15 %). The cluster is started once, before the rows, as
a user's cluster is already running: the rows time the runs, not a cluster's start. One-worker runs
get one numba thread (``NUMBA_NUM_THREADS=1``), so "1 worker" is one core: a run of the command on
one worker otherwise takes every core for its kernels. ``cores_used`` of a cluster row counts the
command's process only (the cluster's workers are not its children).

The work: settle and import of ``HANDS`` Hold'em hands (import: one hand per ``.phh`` file, the shape
public archives come in), generate of ``HANDS`` hands, rank-decks of ``DECKS`` decks (``--detail``:
both passes), and simulate of a sweep of 20 rooms x 3 replicates. ``CARDBATCH_BENCH_ENGINE_SCALE``
shrinks them all (CI's smoke run).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

SCALE = float(os.environ.get("CARDBATCH_BENCH_ENGINE_SCALE", 1))
HANDS = max(int(2_000_000 * SCALE), 2_000)
GENERATED = max(int(4_000_000 * SCALE), 2_000)
PHH_FILES = max(int(40_000 * SCALE), 200)
DECKS = max(int(4_000_000 * SCALE), 5_000)
SIM_PLAYERS = max(int(20_000 * SCALE), 200)
SIM_ROUNDS = max(int(50 * SCALE), 4)
ROUNDS = 3

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture(scope="module")
def cluster():
    from dask.distributed import LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as c:
        yield c.scheduler_address


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("engines")
    # row groups of 65,536 rows, as logs written a batch at a time come: settle's units are row groups
    _cardbatch("generate", "--hands", HANDS, "--out", folder / "hands.parquet", "--seed", 7, "--row-group", 1 << 16)
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from phh_corpus import sample_hands

    phh = folder / "phh"
    phh.mkdir()
    texts = sample_hands()
    for k in range(PHH_FILES):
        (phh / f"{k:06d}.phh").write_text(texts[k % len(texts)], encoding="utf-8")
    return folder


def _cardbatch(*args: object, env: dict[str, str] | None = None) -> None:
    cmd = [sys.executable, "-m", "cardbatch", *(str(a) for a in args), "-q"]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env={**os.environ, **(env or {})})


def _sweep_args(out: Path) -> list[object]:
    return [
        "simulate", "--game", "zjh", "--players", SIM_PLAYERS, "--rounds", SIM_ROUNDS,
        "--tables-per-round", max(SIM_PLAYERS // 10, 20), "--sweep", "rake-pct=" + ",".join(
            f"0.{k:02d}" for k in range(1, 21)
        ), "--replicates", 3, "--out", out,
    ]  # fmt: skip


JOBS: dict[str, tuple[str, Callable[[Path, Path], list[object]], Callable[[], int]]] = {
    "settle": ("hands", lambda w, o: ["settle", w / "hands.parquet", "--out", o], lambda: HANDS),
    "import": ("hands", lambda w, o: ["import", w / "phh", "--out", o / "h.parquet"], lambda: PHH_FILES),
    "generate": (
        "hands",
        lambda w, o: ["generate", "--hands", GENERATED, "--out", o / "g.parquet"],
        lambda: GENERATED,
    ),
    "rank-decks": (
        "decks",
        lambda w, o: ["rank-decks", "--decks", DECKS, "--detail", "--out", o / "r.parquet"],
        lambda: DECKS,
    ),
    "simulate": ("tables", lambda w, o: _sweep_args(o), lambda: 60 * SIM_ROUNDS * max(SIM_PLAYERS // 10, 20)),
}


def _timed(benchmark, throughput, job: str, work: Path, tmp: Path, workers: int, scheduler: str | None) -> None:
    unit, args_of, items = JOBS[job]
    out = tmp / "out"
    engine = ["--engine", "dask", "--scheduler", scheduler] if scheduler else []
    env = {"NUMBA_NUM_THREADS": "1"} if workers == 1 else {}
    args = [*args_of(work, out), "--workers", workers, *engine]

    def once() -> None:
        shutil.rmtree(out, ignore_errors=True)
        out.mkdir()
        _cardbatch(*args, env=env)

    where = "a two-worker LocalCluster" if scheduler else f"{workers} local worker{'s' if workers > 1 else ''}"
    name = f"cardbatch {job}, {where}"
    if not scheduler:
        throughput(
            benchmark,
            f"engines: {job}, 2 workers" if workers == 2 else None,
            name,
            items(),
            once,
            threads=workers,
            rounds=ROUNDS,
            ours=True,
            unit=unit,
            scaling=f"cardbatch {job} (the command, worker processes)",
        )
    else:
        throughput(benchmark, f"engines: {job}, 2 workers", name, items(), once, threads=2, rounds=ROUNDS, unit=unit)


_WARMED: set[str] = set()


@pytest.mark.parametrize("job", list(JOBS))
@pytest.mark.parametrize("where", ["1 local", "2 local", "2 cluster"])
def test_job_on_engine(benchmark, throughput, work, cluster, tmp_path, job, where):
    workers = int(where[0])
    if job not in _WARMED:  # the numba cache filled, untimed
        (tmp_path / "warm").mkdir()
        _cardbatch(*JOBS[job][1](work, tmp_path / "warm"), "--workers", 1)
        _WARMED.add(job)
    _timed(benchmark, throughput, job, work, tmp_path, workers, cluster if "cluster" in where else None)
