"""``cardbatch compile``: fill numba's on-disk cache with every kernel the jobs use, ahead of any run.

For a container image's build step or a worker's start-up: after it, no job compiles (each loads
its kernels from the cache in well under a second). Each family is compiled by doing a small piece
of the real work, so the cache holds exactly the builds (argument types, serial and parallel twins)
the jobs then ask for:

- settle: generated Hold'em (integer cards, text cards, per-street contributions, dead money),
  Zha Jin Hua and 2v2 tables through :func:`~cardbatch.batch.settle.job.settle_table`, under the
  standard and a per-street policy, in the kernels' serial builds (a run of one batch or less) and
  their parallel ones (every bigger run);
- rank-decks: a few decks of each game ranked; simulate: a round of each game.

It imports every job, which no job does (it is the one module above them all).
"""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import functools
import os
import sys
import time
from collections.abc import Callable

import pyarrow as pa

from cardbatch.batch.io.jobs import RunOptions, Summary
from cardbatch.batch.io.lifecycle import process_pool


class CacheNotWritable(Exception):
    """numba's cache would not outlast the compiling process, so compiling ahead would be in vain:
    nothing is compiled (exit 2 at the command line)."""


def check_cache() -> None:
    """Raise :class:`CacheNotWritable`, saying what to set, unless the kernels' cache lasts."""
    from cardbatch.kernels.caching import lasting_cache_problem

    problem = lasting_cache_problem()
    if problem is not None:
        raise CacheNotWritable(
            f"numba's cache cannot be written: {problem}. Set NUMBA_CACHE_DIR to a folder this user can "
            "write, the one the runs will use (export NUMBA_CACHE_DIR=~/.cache/cardbatch-numba); nothing was compiled"
        )


@dataclasses.dataclass(frozen=True)
class CompileOptions:
    """What to compile: every family (the only choice today), and how to run (``workers``: processes
    compiling side by side; ``quiet``: no line per family on stderr)."""

    run: RunOptions = RunOptions()


def _with_dead(table: pa.Table) -> pa.Table:
    """``table`` with a ``dead`` column: one dead chip for the first seat that put chips in (the
    dead-money kernel is compiled only for inputs that have some)."""
    contrib = table.column("contrib").to_pylist()  # a few rows, once: no hot path
    dead = [[1 if i == 0 and (c or 0) > 0 else 0 for i, c in enumerate(row or [])] for row in contrib]
    return table.append_column("dead", pa.array(dead, pa.list_(pa.int64())))


def _settle_family(serial: bool) -> None:
    from cardbatch.batch.generate import generate_hands, generate_teams
    from cardbatch.batch.settle.job import settle_table
    from cardbatch.batch.settle.options import SettleOptions
    from cardbatch.kernels import twins

    tables = [
        generate_hands("holdem", 64, seed=1, bad_rate=0.1).table,
        generate_hands("holdem", 64, seed=2, text_cards=True).table,
        _with_dead(generate_hands("holdem", 64, seed=3).table),
        generate_hands("zjh", 64, seed=4, bad_rate=0.1).table,
        generate_teams(64, seed=5, bad_rate=0.1).table,
    ]
    streets = [generate_hands(game, 64, seed=6, streets_column=True).table for game in ("holdem", "zjh")]
    with twins.serial(serial):
        for table in tables + streets:
            settle_table(table, SettleOptions())
        for table in streets:
            settle_table(table, SettleOptions.of(policy="ratio_rank"))


def _rank_family() -> None:
    from cardbatch.kernels import ranking

    ranking.rank_zjh(64, 6, seed=1)
    ranking.rank_holdem(64, 9, seed=1)


def _simulate_family() -> None:
    from cardbatch.batch.simulate.job import simulate
    from cardbatch.batch.simulate.room import Room

    for game in ("zjh", "holdem", "team2v2"):
        simulate(Room(game=game, players=60, rounds=1, tables_per_round=8, seats=5))


FAMILIES: dict[str, Callable[[], None]] = {
    "settle, serial builds (runs of one batch or less)": functools.partial(_settle_family, True),
    "settle, parallel builds (bigger runs)": functools.partial(_settle_family, False),
    "rank-decks": _rank_family,
    "simulate": _simulate_family,
}


def _timed(name: str) -> float:
    t = time.perf_counter()
    FAMILIES[name]()
    return time.perf_counter() - t


def run(options: CompileOptions = CompileOptions()) -> Summary:
    """Compile (or load from the cache) every kernel family: the ``cardbatch compile`` command. The
    families compile side by side in ``run.workers`` processes (default: two, or one on one core):
    numba compiles one function at a time per process. Raises :class:`CacheNotWritable` first, before
    compiling anything, when the cache would not outlast the run."""
    from numba.core.config import CACHE_DIR

    check_cache()
    workers = options.run.workers or min(2, os.cpu_count() or 1)
    seconds: dict[str, float] = {}
    t0 = time.perf_counter()
    with process_pool(workers, 1) as pool:
        futures = {pool.submit(_timed, name): name for name in FAMILIES}
        for done in cf.as_completed(futures):
            name = futures[done]
            seconds[name] = round(done.result(), 3)
            if not options.run.quiet:
                print(f"cardbatch compile: {name}: {seconds[name]:.1f} s", file=sys.stderr, flush=True)
    seconds = {name: seconds[name] for name in FAMILIES}
    total = round(time.perf_counter() - t0, 3)
    cache = CACHE_DIR or "beside each kernel's module (__pycache__)"
    figures = {"families": seconds, "seconds": total, "numba_cache": cache}
    line = f"cardbatch compile: {len(seconds)} kernel families ready in {total:.1f} s; numba's cache: {cache}"
    return Summary(figures, line, indent=1)
