"""The engine interface every job runs its units on: the same records on each engine, in the units'
order when asked, a failing unit raised, and where a run's workers come from."""

from __future__ import annotations

import os

import pytest

from cardbatch.batch.io import engines
from cardbatch.batch.io.jobs import RunOptions


def square(x: int) -> tuple[int, int]:
    """A unit's task: its record, and the process that ran it."""
    return x * x, os.getpid()


def fails(x: int) -> int:
    if x == 3:
        raise ValueError("unit 3 failed")
    return x


UNITS = list(range(8))


def _records(run: RunOptions, ordered: bool, small: bool = False) -> tuple[list[int], list[int], set[int], int]:
    with engines.start(run, len(UNITS), numba=False, small=small) as engine:
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
