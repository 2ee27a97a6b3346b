"""Benchmark helpers: record throughput per group and print ours-vs-peers ratios at the end.

Each benchmark calls ``throughput(benchmark, group, name, items, fn, ...)``; the
rate is items / the fastest round (pytest-benchmark's ``min``) of 15 by
default, after one warm-up round: on the 2-vCPU VM this was measured on, a
neighbour takes a core for seconds at a time (identical runs differ by up to
2x), and the best round is what the code does when it has the machine.

Like with like. A group is a comparison: every row in it runs on the same
number of threads (one by default: numba's threads are set to it for the call
and restored after), with the same rounds and warm-up; ``throughput`` refuses a
row that differs from the group's first (in CI's smoke run too), so a pair can
never again be ours on two threads against a peer on one, or best of 15
against best of 3. How many cores a row really used is measured, not assumed:
the process's CPU time (its children's included, for the rows that run
``cardbatch`` processes and wait for them) over the wall time of a few more
calls after the timed rounds (enough for 0.3 s, at most as many as the rounds,
at least one), recorded as
``cores_used`` in the row and in ``extra_info``; the summary flags a row that
used clearly more cores than its ``threads`` say (a peer that starts threads of
its own, say). ``threads`` is numba's thread count for our kernels and the
thread count of a peer (pure Python and single-threaded C extensions: 1), or
the worker processes of a whole command.

Threads are compared in a table of their own: a row given ``scaling="label"``
is also recorded under that label, and ``benchmarks/readme_table.py`` writes
one line per label, ours at 1 and 2 threads and the speed-up (a row with
``group=None`` is recorded there only: the two-thread runs).

The summary table divides every rate by the group's reference (the first entry
marked ``ours=True``), so the comparison holds on a noisy machine: peers run in
the same process, on the same data, minutes apart at most. The summary is also
written to ``.benchmarks/cardbatch-summary.json``, from which
``benchmarks/readme_table.py`` writes the tables of docs/performance.md. With
``--benchmark-disable`` (CI's smoke run) every benchmark runs its code once and
records nothing.
"""

from __future__ import annotations

import json
import math
import os
import platform
import resource
import time
from collections import defaultdict
from pathlib import Path

import numba
import pytest

ROUNDS = 15
WARMUP = 1
CORES_WINDOW = 0.3  # seconds of calls (at most a round's count) over which cores_used is measured
_RESULTS: dict[str, list[dict]] = defaultdict(list)
_SCALING: dict[str, list[dict]] = defaultdict(list)
_DECLARED: dict[str, dict] = {}  # group -> the first row's threads, rounds and warm-up
_LOAD_AT_START: list[float] = []


def pytest_sessionstart(session):
    _LOAD_AT_START[:] = [round(x, 2) for x in os.getloadavg()]


def pytest_configure(config):
    config.addinivalue_line("markers", "peer: compares with a peer library")


def _cpu_seconds() -> float:
    """CPU seconds of this process and of its waited-for children (the ``cardbatch`` commands)."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def _cores_used(fn, setup, calls: int) -> float:
    """CPU seconds over wall seconds of ``calls`` more calls of ``fn`` after the timed rounds (setups
    outside the window): the cores the code really used, measured apart so the timed rounds carry
    no measuring of their own."""
    cpu = wall = 0.0
    for _ in range(calls):
        args = setup()[0] if setup else ()
        c, w = _cpu_seconds(), time.perf_counter()
        fn(*args)
        cpu += _cpu_seconds() - c
        wall += time.perf_counter() - w
    return cpu / wall if wall > 0 else float("nan")


def _like_for_like(group: str, name: str, threads: int, rounds: int, warmup: int) -> None:
    """Every row of a group runs on the group's threads, rounds and warm-up, or the benchmark fails."""
    settings = {"threads": threads, "rounds": rounds, "warmup": warmup}
    first = _DECLARED.setdefault(group, {**settings, "name": name})
    differ = {k: (v, first[k]) for k, v in settings.items() if first[k] != v}
    if differ:
        said = ", ".join(f"{k} {v} against {w}" for k, (v, w) in differ.items())
        raise AssertionError(f"[{group}] {name!r} is not like for like with {first['name']!r}: {said}")


def record(
    group: str,
    name: str,
    rate: float,
    *,
    ours: bool,
    rounds: int,
    threads: int,
    cores_used: float,
    unit: str = "hands",
    **extra: float,
) -> None:
    """A row timed by its benchmark itself (commands of several commits run alternately, each a fresh
    process): recorded in ``group`` for the summary as :func:`throughput`'s rows are."""
    _RESULTS[group].append(
        {"name": name, "rate": rate, "ours": ours, "unit": unit, "threads": threads,
         "cores_used": round(cores_used, 2), "rounds": rounds, "warmup": 1, **extra}
    )  # fmt: skip


@pytest.fixture
def throughput():
    def run(
        benchmark,
        group: str | None,
        name: str,
        items: int,
        fn,
        *,
        threads: int = 1,
        rounds: int = ROUNDS,
        warmup: int = WARMUP,
        ours: bool = False,
        unit: str = "hands",
        scaling: str | None = None,
        setup=None,
    ):
        """Time ``fn`` (when ``setup`` is given: ``args, kwargs = setup()``, untimed, before every round)."""
        if group is None and scaling is None:
            raise ValueError("a row belongs to a group, the scaling table, or both")
        if group is not None:
            _like_for_like(group, name, threads, rounds, warmup)
        previous = numba.get_num_threads()
        numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
        try:
            benchmark.group = group or f"scaling: {scaling}"
            benchmark.extra_info.update(
                name=name, items=items, threads=threads, rounds=rounds, warmup_rounds=warmup, scaling=scaling
            )
            result = benchmark.pedantic(fn, setup=setup, rounds=rounds, iterations=1, warmup_rounds=warmup)
            if benchmark.disabled:  # a smoke run (--benchmark-disable): the code ran once, nothing was timed
                return result
            best = benchmark.stats.stats.min
            cores = _cores_used(fn, setup, calls=max(1, min(rounds, math.ceil(CORES_WINDOW / max(best, 1e-9)))))
        finally:
            numba.set_num_threads(previous)
        rate = items / best
        benchmark.extra_info.update(per_second=rate, cores_used=round(cores, 2))
        row = {
            "name": name,
            "rate": rate,
            "ours": ours,
            "unit": unit,
            "threads": threads,
            "cores_used": round(cores, 2),
            "rounds": rounds,
            "warmup": warmup,
        }
        if group is not None:
            _RESULTS[group].append(row)
        if scaling is not None:
            _SCALING[scaling].append(row)
        return result

    return run


def _flag(r: dict) -> str:
    """A note when a row used clearly more cores than its threads (0.3 of a core for the interpreter)."""
    return "  <- used more cores than its threads" if r["cores_used"] > r["threads"] + 0.3 else ""


def pytest_terminal_summary(terminalreporter):
    if not _RESULTS and not _SCALING:
        return
    tr = terminalreporter
    tr.section("cardbatch throughput (best round; ratio = ours / peer; threads given, cores used measured)")
    for group, rows in _RESULTS.items():
        ref = next((r for r in rows if r["ours"]), rows[0])
        tr.write_line(f"[{group}]  {rows[0]['threads']} thread(s), best of {rows[0]['rounds']}")
        for r in rows:
            ratio = ref["rate"] / r["rate"] if r is not ref else 1.0
            tr.write_line(
                f"  {r['name']:<58} {r['rate'] / 1e6:>10.3f} M {r['unit']}/s   ours/this = {ratio:>9.1f}x"
                f"   cores used {r['cores_used']:.2f}{_flag(r)}"
            )
    if _SCALING:
        tr.write_line("[scaling: ours on 1 and 2 threads]")
        for label, rows in _SCALING.items():
            one = next((r for r in rows if r["threads"] == 1), rows[0])
            for r in rows:
                tr.write_line(
                    f"  {label:<48} {r['threads']} thread(s) {r['rate'] / 1e6:>10.3f} M {r['unit']}/s"
                    f"   speed-up {r['rate'] / one['rate']:.2f}x   cores used {r['cores_used']:.2f}"
                )
    out = Path(os.environ.get("CARDBATCH_BENCH_JSON", ".benchmarks/cardbatch-summary.json"))
    out.parent.mkdir(parents=True, exist_ok=True)
    meta = {
        "created": time.strftime("%Y-%m-%d %H:%M"),
        "numba_threads": numba.config.NUMBA_NUM_THREADS,
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}",
        "load_average_at_start": _LOAD_AT_START,
        "load_average_at_end": [round(x, 2) for x in os.getloadavg()],
    }
    out.write_text(json.dumps({"meta": meta, "groups": _RESULTS, "scaling": _SCALING}, indent=1))
