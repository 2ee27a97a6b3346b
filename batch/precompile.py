"""``cardbatch compile``: fill numba's on-disk cache with every kernel the jobs use, ahead of any run.

For a container image's build step or a worker's start-up: after it, no job compiles (each loads
its kernels from the cache in well under a second). Each family is compiled by doing a small piece
of the real work, so the cache holds exactly the builds (argument types, serial and parallel twins)
the jobs then ask for:

- generate: the sample hands settle is compiled on, written once for both of its builds;
- settle: those Hold'em (integer cards, text cards, per-street contributions, dead money), Zha Jin
  Hua and 2v2 tables through :func:`~cardbatch.batch.settle.job.settle_table`, under the standard
  and a per-street policy, in the kernels' serial builds (a run of one batch or less) and their
  parallel ones (every bigger run);
- Omaha (4, 5 and 6 cards), Omaha hi/lo, short deck, stud (high and hi/lo), razz and the draw games
  (deuce-to-seven, badugi, five-card draw): their hands generated, settled and ranked;
- rank-decks: a few decks of each game ranked; simulate: a round of each game it plays.

An empty cache takes minutes, so a line on stderr says each step's seconds as it finishes. A cache
that would not outlast the run (``NUMBA_CACHE_DIR`` not writable, or nothing writable on a
read-only install) is refused before anything compiles.

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
from cardbatch.games import HOLDEM, REGISTRY, ZJH, Game, games_with_hands, simulated_games


def _other_games() -> list[Game]:
    """The games with hands besides Hold'em and Zha Jin Hua (Omaha and its hi/lo, short deck, stud,
    razz and the draw games): one step each."""
    return [g for g in REGISTRY.values() if g.has_hands and g is not HOLDEM and g is not ZJH]


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


Report = Callable[[str, float], None]  # a finished step of a family: its name and seconds
Tables = dict[str, list[pa.Table]]  # the sample hands settle is compiled on, by kind


def _steps(report: Report, steps: list[tuple[str, Callable[[], object]]]) -> None:
    """Run ``steps`` in order, reporting each as it finishes."""
    for name, step in steps:
        t = time.perf_counter()
        step()
        report(name, time.perf_counter() - t)


def _generate_family(report: Report, tables: Tables) -> None:
    """``cardbatch generate``'s kernels, compiled by writing the sample hands the settle families
    settle (into ``tables``): generated once, for both."""
    from cardbatch.batch.generate import generate_hands, generate_teams

    def make() -> None:
        tables[HOLDEM.name] = [generate_hands(HOLDEM.name, 64, seed=1, bad_rate=0.1).table]
        tables["text"] = [generate_hands(HOLDEM.name, 64, seed=2, text_cards=True).table]
        tables["dead"] = [_with_dead(generate_hands(HOLDEM.name, 64, seed=3).table)]

    def more() -> None:
        tables[ZJH.name] = [generate_hands(ZJH.name, 64, seed=4, bad_rate=0.1).table]
        tables["teams"] = [generate_teams(64, seed=5, bad_rate=0.1).table]
        tables["streets"] = [generate_hands(game, 64, seed=6, streets_column=True).table for game in games_with_hands()]

    def boards() -> None:
        for spec in _other_games():
            tables[spec.name] = [generate_hands(spec.name, 64, seed=7, bad_rate=0.1).table]

    _steps(
        report,
        [
            ("Hold'em hands", make),
            ("Zha Jin Hua hands, 2v2 games, per-street contributions", more),
            ("Omaha, short-deck, stud, razz and draw hands", boards),
        ],
    )


def _settle_family(serial: bool, report: Report, tables: Tables) -> None:
    from cardbatch.batch.settle.job import settle_table
    from cardbatch.batch.settle.options import SettleOptions
    from cardbatch.kernels import twins

    def settle(name: str, policy: str = "standard") -> Callable[[], None]:
        def step() -> None:
            for table in tables[name]:
                settle_table(table, SettleOptions.of(policy=policy))

        return step

    def equity() -> None:
        """``--equity`` and ``fairness``: the all-in street, the walks (one spot each: the sample's
        all-ins may not hold every kind) and the card tallies."""
        import numpy as np

        from cardbatch.batch.settle.fairness.options import FairnessOptions
        from cardbatch.kernels.equity import Walk, all_in_equity

        opts = SettleOptions.of(equity=Walk(), fairness=FairnessOptions())
        for table in tables["streets"]:
            settle_table(table, opts)
        hole = np.arange(6, dtype=np.uint8).reshape(1, 3, 2)
        board = np.arange(6, 11, dtype=np.uint8).reshape(1, 5)
        all_in_equity([[10, 10, 10]], [[True, True, True]], hole, board, [3], [0])

    with twins.serial(serial):
        _steps(
            report,
            [
                ("Hold'em: evaluator, card checks, standard pots", settle(HOLDEM.name)),
                ("Hold'em, text cards", settle("text")),
                ("Hold'em, dead money", settle("dead")),
                ("Zha Jin Hua", settle(ZJH.name)),
                ("2v2 teams", settle("teams")),
                ("per-street contributions, standard policy", settle("streets")),
                ("per-street policies", settle("streets", "ratio_rank")),
                ("all-in equity and fairness tallies", equity),
                *((spec.title, settle(spec.name)) for spec in _other_games()),
                ("the Parquet writer of the outputs", _parquet_writer),
            ],
        )


def _parquet_writer() -> None:
    from cardbatch.batch.io import parquet_write

    parquet_write.warm_up()


def _rank_family(report: Report, tables: Tables) -> None:
    from cardbatch.kernels import ranking

    _steps(
        report,
        [
            ("Zha Jin Hua decks", lambda: ranking.rank_zjh(64, 6, seed=1)),
            ("Hold'em decks", lambda: ranking.rank_holdem(64, 9, seed=1)),
            *(
                (f"{spec.title} decks", functools.partial(ranking.deal_and_evaluate, spec.name, 64, 6, 1))
                for spec in _other_games()
            ),
        ],
    )


def _simulate_family(report: Report, tables: Tables) -> None:
    from cardbatch.batch.simulate.job import simulate
    from cardbatch.batch.simulate.room import Room

    def room(game: str) -> Callable[[], object]:
        return lambda: simulate(Room(game=game, players=60, rounds=1, tables_per_round=8, seats=5))

    _steps(report, [(game, room(game)) for game in simulated_games()])


# In the order they start: the sample hands first, beside rank-decks (which needs none), then the two
# builds of settle on those hands, then simulate, which by then loads what settle compiled.
GENERATE = "generate (the sample hands settle is compiled on)"
FAMILIES: dict[str, Callable[[Report, Tables], None]] = {
    GENERATE: _generate_family,
    "rank-decks": _rank_family,
    "settle, serial builds (runs of one batch or less)": functools.partial(_settle_family, True),
    "settle, parallel builds (bigger runs)": functools.partial(_settle_family, False),
    "simulate": _simulate_family,
}


def _say(line: str) -> None:
    """One line on stderr, in one write: the worker processes share the parent's stderr."""
    sys.stderr.write(f"cardbatch compile: {line}\n")
    sys.stderr.flush()


def _timed(name: str, quiet: bool, tables: Tables) -> tuple[float, Tables]:
    """Compile family ``name`` (in a worker process), a line on stderr as each of its steps
    finishes; returns its seconds and ``tables`` (filled, for :data:`GENERATE`)."""

    def report(step: str, seconds: float) -> None:
        if not quiet:
            _say(f"{name}: {step}: {seconds:.1f} s")

    t = time.perf_counter()
    FAMILIES[name](report, tables)
    return time.perf_counter() - t, tables


def run(options: CompileOptions = CompileOptions()) -> Summary:
    """Compile (or load from the cache) every kernel family: the ``cardbatch compile`` command. The
    families compile side by side in ``run.workers`` processes (default: two, or one on one core):
    numba compiles one function at a time per process. Raises :class:`CacheNotWritable` first, before
    compiling anything, when the cache would not outlast the run."""
    from numba.core.config import CACHE_DIR

    check_cache()
    workers = options.run.workers or min(2, os.cpu_count() or 1)
    quiet = options.run.quiet
    cache = CACHE_DIR or "beside each kernel's module (__pycache__)"
    if not quiet:  # a first line at once: an empty cache takes minutes (about 2.5 on two cores)
        _say(
            f"{len(FAMILIES)} kernel families, {workers} at a time, a line as each step finishes; "
            f"numba's cache: {cache}"
        )
    seconds: dict[str, float] = {}
    t0 = time.perf_counter()
    with process_pool(workers, 1) as pool:
        first = [GENERATE, "rank-decks"]
        futures = {pool.submit(_timed, name, quiet, {}): name for name in first}
        while futures:
            done = next(cf.as_completed(futures))
            name = futures.pop(done)
            took, tables = done.result()
            seconds[name] = round(took, 3)
            if not quiet:
                _say(f"{name}: done in {seconds[name]:.1f} s")
            if name == GENERATE:  # the families that wait for its hands (and simulate, after them)
                futures |= {pool.submit(_timed, n, quiet, tables): n for n in FAMILIES if n not in first}
    seconds = {name: seconds[name] for name in FAMILIES}
    total = round(time.perf_counter() - t0, 3)
    figures = {"families": seconds, "seconds": total, "numba_cache": cache}
    line = f"cardbatch compile: {len(seconds)} kernel families ready in {total:.1f} s; numba's cache: {cache}"
    return Summary(figures, line, indent=1)
