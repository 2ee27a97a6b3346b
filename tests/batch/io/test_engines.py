"""The engine interface every job runs its units on: the same records on each engine, in the units'
order when asked, a failing unit raised, and where a run's workers come from."""

from __future__ import annotations

import gc
import os
import signal
import threading
import time

import pytest

from cardbatch.batch.io import engines
from cardbatch.batch.io.jobs import RunOptions
from cardbatch.batch.io.lifecycle import check_stop


def square(x: int) -> tuple[int, int]:
    """A unit's task: its record, and the process that ran it."""
    return x * x, os.getpid()


def fails(x: int) -> int:
    if x == 3:
        raise ValueError("unit 3 failed")
    return x


UNITS = list(range(8))


def _records(
    run: RunOptions, ordered: bool, small: bool = False, threads: bool = False
) -> tuple[list[int], list[int], set[int], int]:
    with engines.start(run, len(UNITS), numba=False, small=small, threads=threads) as engine:
        got = list(engine.map(square, UNITS, ordered=ordered))
        return [u for u, _ in got], [r for _, (r, _) in got], {p for _, (_, p) in got}, engine.workers


@pytest.mark.parametrize("ordered", [True, False])
def test_in_process_and_pool_give_every_record(ordered):
    units, records, pids, workers = _records(RunOptions(workers=1), ordered)
    assert units == UNITS and records == [x * x for x in UNITS] and pids == {os.getpid()} and workers == 1
    units, records, pids, workers = _records(RunOptions(workers=2), ordered)
    assert sorted(zip(units, records)) == [(x, x * x) for x in UNITS]
    assert os.getpid() not in pids and workers == 2
    if ordered:
        assert units == UNITS


def in_a_thread(x: int) -> tuple[int, int]:
    return x * x, threading.get_ident()


@pytest.mark.parametrize("ordered", [True, False])
def test_a_thread_pool_runs_the_units_in_threads_of_this_process(ordered):
    with engines.start(RunOptions(workers=2), len(UNITS), numba=False, threads=True) as engine:
        got = list(engine.map(in_a_thread, UNITS, ordered=ordered))
        assert engine.workers == 2 and isinstance(engine, engines.ThreadPool)
    assert sorted((u, r) for u, (r, _) in got) == [(x, x * x) for x in UNITS]
    assert threading.get_ident() not in {t for _, (_, t) in got}
    if ordered:
        assert [u for u, _ in got] == UNITS
    with pytest.raises(ValueError, match="unit 3"):
        with engines.start(RunOptions(workers=2), len(UNITS), numba=False, threads=True) as engine:
            list(engine.map(fails, UNITS, ordered=True))


def parts_of_a_long_unit(x: int) -> int:
    """A unit of many parts: it checks between parts whether the run stops, as a settle unit does."""
    for _ in range(1000):
        time.sleep(0.01)
        check_stop()
    return x


def test_a_stopped_thread_pool_ends_its_units_at_their_next_part():
    """A thread cannot be killed: Ctrl-C cancels the units not started and the running ones stop at
    their next part; the block ends only once they have, so nothing writes after the run unwound."""
    # the suite's process has hypothesis's garbage-collection callback: a KeyboardInterrupt raised
    # while it runs is printed and dropped (CI: "Exception ignored in gc_callback"), which a cardbatch
    # process, with no such callback, never does; it is set aside while the signal comes
    callbacks, gc.callbacks[:] = gc.callbacks[:], []
    try:
        t0 = time.perf_counter()
        threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT)).start()  # Ctrl-C
        with pytest.raises(KeyboardInterrupt):
            with engines.start(RunOptions(workers=2), len(UNITS), numba=False, threads=True) as engine:
                list(engine.map(parts_of_a_long_unit, UNITS))
    finally:
        gc.callbacks[:] = callbacks
    assert time.perf_counter() - t0 < 3  # not the units' 10 s each
    assert not [t for t in threading.enumerate() if t.name.startswith("cardbatch-worker")]
    check_stop()  # the next run is not stopped


def test_a_small_run_stays_here_unless_workers_are_asked_for():
    assert engines.local_workers(RunOptions(), 8, small=True) == 1
    assert engines.local_workers(RunOptions(workers=2), 8, small=True) == 2
    assert engines.local_workers(RunOptions(workers=4), 3) == 3  # no more processes than units


def test_a_failing_unit_is_raised():
    for workers in (1, 2):
        with pytest.raises(ValueError, match="unit 3"):
            with engines.start(RunOptions(workers=workers), len(UNITS), numba=False) as engine:
                list(engine.map(fails, UNITS, ordered=True))


@pytest.mark.slow
@pytest.mark.parametrize("ordered", [True, False])
def test_a_dask_cluster_gives_the_same_records(dask_scheduler, ordered):
    run = RunOptions(engine="dask", scheduler=dask_scheduler)
    units, records, pids, workers = _records(run, ordered)
    assert sorted(zip(units, records)) == [(x, x * x) for x in UNITS] and workers == 2
    assert os.getpid() not in pids
    if ordered:
        assert units == UNITS


@pytest.mark.slow  # a real Dask cluster
def test_relative_paths_mean_the_commands_folder_on_an_external_cluster(dask_scheduler, tmp_path, monkeypatch):
    """From a trial: the cluster's workers run in their own folder, and a relative --out was theirs
    (settle wrote its parts into another run's folder there). Every path a worker gets is absolute."""
    from conftest import SAMPLES, cli

    monkeypatch.chdir(tmp_path)
    on = ("--engine", "dask", "--scheduler", dask_scheduler)
    res = cli("generate", "--hands", "300", "--out", "g.parquet", "--workers", "2", *on, "-q")
    assert res.returncode == 0, res.stderr
    assert "--workers 2 does nothing with --scheduler" in res.stderr  # said, not passed in silence
    res = cli("settle", "g.parquet", SAMPLES[0], "--out", "out", *on, "-q")
    assert res.returncode == 0, res.stderr
    assert list((tmp_path / "out" / "results").rglob("*.parquet")) and (tmp_path / "out" / "_SUCCESS").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.parquet", "out"]


@pytest.mark.parametrize("command", [("generate", "--hands", "5"), ("settle", "IN")])
def test_a_scheduler_that_is_not_an_address_is_a_clear_error(command, tmp_path):
    pytest.importorskip("distributed")
    from conftest import SAMPLES, cli

    args = [SAMPLES[0] if a == "IN" else a for a in command]
    res = cli(*args, "--out", str(tmp_path / "o.parquet"), "--engine", "dask", "--scheduler", "nowhere")
    assert res.returncode == 2 and "cannot reach the Dask scheduler at nowhere" in res.stderr, res.stderr
    assert res.stderr.count("\n") == 1 and not list(tmp_path.iterdir())
