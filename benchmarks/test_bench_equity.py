"""All-in equity and the fairness audit: exact equity per spot kind against poker-equity's exact
mode (one core each), hand evaluations a second against our own 7-card enumeration, settle
--equity and fairness against settle of the same hands, and the audit's power against each
dishonest dealer (printed).

The spots: heads-up and three-way, preflop / flop / turn, with 0, 4 and 8 dead cards (folded
seats' recorded hole cards, out of the deck for both sides), random cards, one pot. A heads-up
preflop all-in with no dead card is measured twice: walked (every board) and from the heads-up
table (a lookup); with dead cards it is walked. The fairness run is timed on logs of players who
decide by their cards (``generate --play tight``), as real logs are, in real ``cardbatch``
processes on a warm cache, as users run it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import subprocess
import sys
import time

import numpy as np
import pytest

from cardbatch.kernels import equity, holdem

SPOTS = int(os.environ.get("CARDBATCH_BENCH_SPOTS", 2_000))  # flop and turn spots (preflop: a fiftieth)
EQUITY_HANDS = int(os.environ.get("CARDBATCH_BENCH_EQUITY_HANDS", 1_000_000))
FAIR_HANDS = int(os.environ.get("CARDBATCH_BENCH_FAIR_HANDS", 10_000_000))
KINDS = [(n, known, dead) for known in (0, 3, 4) for n in (2, 3) for dead in (0, 4, 8)]
STREET = {0: "preflop", 3: "flop", 4: "turn"}
pe = pytest.importorskip("poker_equity")


def _spots(n: int, known: int, count: int, seed: int, dead: int = 0) -> tuple[np.ndarray, ...]:
    """``count`` spots of ``n`` live seats and ``dead // 2`` folded ones (their cards recorded: dead)."""
    rng = np.random.default_rng(seed)
    S = n + dead // 2
    hole = np.empty((count, S, 2), np.uint8)
    board = np.full((count, 5), 255, np.uint8)
    for i in range(count):
        deck = rng.permutation(52).astype(np.uint8)
        hole[i] = deck[: 2 * S].reshape(S, 2)
        board[i, :known] = deck[2 * S : 2 * S + known]
    live = np.arange(S)[None, :] < n
    chips = np.where(live, 100, 10).astype(np.int64).repeat(count, 0)
    return chips, live.repeat(count, 0), hole, board, np.full(count, known), np.zeros(count, np.int64)


def _count(n: int, known: int) -> int:
    return max(2, SPOTS // 50) if known == 0 else SPOTS


@contextlib.contextmanager
def _one_core():
    """This process (and the threads it starts) on one core: poker-equity spreads over threads."""
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(before)})
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)


def _rounds(known: int) -> int:
    """Rounds of a spot kind, ours and poker-equity's alike: 3 preflop (poker-equity takes a fifth of
    a second a spot there), else the default 15."""
    return 3 if known == 0 else 15


def _group(n: int, known: int, dead: int) -> str:
    return f"equity: exact, {n}-way {STREET[known]}, {dead} dead cards (spots)"


@pytest.mark.parametrize("n, known, dead", KINDS)
def test_ours_exact_equity(benchmark, throughput, n, known, dead):
    args = _spots(n, known, _count(n, known), seed=n * 10 + known, dead=dead)
    equity.all_in_equity(*(a[:1] for a in args))
    walk_everything = equity.Walk(budget=10**9)
    name = "cardbatch, heads-up table" if (n, known, dead) == (2, 0, 0) else "cardbatch (walked)"
    group = _group(n, known, dead)
    throughput(
        benchmark,
        group,
        name,
        len(args[0]),
        lambda: equity.all_in_equity(*args, walk=walk_everything),
        rounds=_rounds(known),
        ours=True,
        unit="spots",
    )


def test_ours_heads_up_preflop_walked(benchmark, throughput):
    args = _spots(2, 0, _count(2, 0), seed=20)
    equity.all_in_equity(*(a[:1] for a in args), headsup=False)  # the table off: every board walked
    throughput(
        benchmark,
        _group(2, 0, 0),
        "cardbatch (walked)",
        len(args[0]),
        lambda: equity.all_in_equity(*args, headsup=False),
        rounds=_rounds(0),
        unit="spots",
    )


@pytest.mark.peer
@pytest.mark.parametrize("n, known, dead", KINDS)
def test_poker_equity_exact(benchmark, throughput, n, known, dead):
    """Given the same dead cards (``dead=``), as the walk takes the folded seats' cards."""
    chips, live, hole, board, kn, _ = _spots(n, known, _count(n, known), seed=n * 10 + known, dead=dead)
    count = max(2, len(hole) // (10 if known == 0 else 1))

    def run():
        for i in range(count):
            hands = [_text(h) for h in hole[i][live[i]]]
            gone = " ".join(_name(int(c)) for c in hole[i][~live[i]].ravel())
            r = pe.exact_from_text("holdem", hands, " ".join(_name(c) for c in board[i, :known]), gone)
            assert r["exact"]

    with _one_core():
        throughput(
            benchmark,
            _group(n, known, dead),
            "poker-equity exact (pinned to 1 core)",
            count,
            run,
            rounds=_rounds(known),
            unit="spots",
        )


def _name(c: int) -> str:
    return "23456789TJQKA"[c >> 2] + "dchs"[c & 3]


def _text(h: np.ndarray) -> str:
    return "".join(_name(int(c)) for c in h)


@pytest.mark.parametrize("n", [2, 3])
def test_equity_evaluations_against_our_enumeration(benchmark, throughput, n):
    """Hand evaluations a second of a preflop walk (boards x live seats) against the 7-card enumeration."""
    args = _spots(n, 0, max(2, SPOTS // 200), seed=50 + n)
    walk_everything = equity.Walk(budget=10**9)
    equity.all_in_equity(*(a[:1] for a in args), walk=walk_everything, headsup=False)
    boards = equity.combinations(52 - 2 * n, 5)
    throughput(
        benchmark,
        "equity: 7-card evaluations a second (1 thread)",
        f"cardbatch walk, {n}-way preflop",
        len(args[0]) * boards * n,
        lambda: equity.all_in_equity(*args, walk=walk_everything, headsup=False),
        unit="hands",
    )


def test_our_seven_card_enumeration(benchmark, throughput):
    holdem.enumerate_seven()
    throughput(
        benchmark,
        "equity: 7-card evaluations a second (1 thread)",
        "cardbatch enumerate_seven (every 7-card hand)",
        133_784_560,
        holdem.enumerate_seven,
        ours=True,
    )


@pytest.fixture(scope="module")
def equity_file(tmp_path_factory):
    from cardbatch.batch.generate import GenerateOptions, write
    from cardbatch.batch.io.jobs import RunOptions

    path = tmp_path_factory.mktemp("equity") / "hands.parquet"
    write(GenerateOptions(str(path), hands=EQUITY_HANDS, seed=3, streets=True, run=RunOptions(quiet=True)))
    return str(path)


def _settle(path: str, out: str, **options) -> dict:
    from cardbatch.batch.settle.job import settle_files
    from cardbatch.batch.settle.options import SettleOptions

    return settle_files([path], out, SettleOptions.of(**options), quiet=True, mode="overwrite")


@pytest.mark.parametrize("with_equity", [False, True])
def test_settle_with_and_without_equity(benchmark, throughput, equity_file, tmp_path, with_equity):
    opts = {"equity": equity.Walk()} if with_equity else {}
    _settle(equity_file, str(tmp_path / "warm"), **opts)
    name = "settle --equity" if with_equity else "settle"
    throughput(
        benchmark,
        "settle --equity against settle (1 M hands, 2 workers)",
        name,
        EQUITY_HANDS,
        lambda: _settle(equity_file, str(tmp_path / "out"), **opts),
        threads=2,
        rounds=3,
        ours=not with_equity,
    )


@pytest.fixture(scope="module")
def fair_file(tmp_path_factory):
    """Logs as real play makes them: six-max tables of players who decide by their cards."""
    from cardbatch.batch.generate import GenerateOptions, write
    from cardbatch.batch.io.jobs import RunOptions

    path = tmp_path_factory.mktemp("fair") / "hands.parquet"
    opts = GenerateOptions(
        str(path), hands=FAIR_HANDS, seed=5, streets=True, max_seats=6, play="tight", row_group=250_000
    )
    write(dataclasses.replace(opts, run=RunOptions(quiet=True)))
    return str(path)


@pytest.mark.parametrize("run", ["settle", "fairness", "fairness --results"])
def test_fairness_against_settle(benchmark, throughput, fair_file, tmp_path, run):
    """The audit as users run it (a ``cardbatch`` process, warm cache; its verdict, no per-hand
    results, then with --results) against ``cardbatch settle`` of the same tight-play logs."""
    command, *flags = run.split()
    args = [sys.executable, "-m", "cardbatch", command, fair_file, "-q", "--mode", "overwrite", *flags]

    def once(out: str) -> None:
        subprocess.run([*args, "--out", out], check=True)

    once(str(tmp_path / "warm"))
    throughput(
        benchmark,
        f"fairness against settle ({FAIR_HANDS / 1e6:g} M tight-play hands, cardbatch processes, 2 workers)",
        run,
        FAIR_HANDS,
        lambda: once(str(tmp_path / "out")),
        threads=2,
        rounds=2,
        ours=command == "settle",
    )


POWER = [  # (game, --play, --bias, the test that should catch it)
    ("holdem", "random", "card=As:0.01", "holdem: cards, hole 0.0"),
    ("holdem", "random", "card=As:0.03", "holdem: cards, hole 0.0"),
    ("holdem", "random", "seat0=0.5", "holdem: all-ins, seat=0"),
    ("holdem", "random", "seat0=1", "holdem: all-ins, seat=0"),
    ("holdem", "tight", "card=As:0.03", "holdem: cards, hole 0.0"),
    ("holdem", "tight", "seat0=1", "holdem: all-ins, seat=0"),
    ("zjh", "random", "card=As:0.02", "zjh: cards, hole 0.0"),
]


def test_power_against_each_dealer(capsys):
    """The hands each dishonest dealer needs before the audit (level 0.01) catches it in 4 of 5 seeds."""
    from cardbatch.batch.generate import Bias, generate_hands
    from cardbatch.batch.settle.fairness.audit import run_tests
    from cardbatch.batch.settle.fairness.options import FairnessOptions
    from cardbatch.batch.settle.job import settle_in_memory
    from cardbatch.batch.settle.options import SettleOptions

    opts = SettleOptions.of(equity=equity.Walk(budget=50_000, samples=2_000), fairness=FairnessOptions())
    sizes = [s for s in (5_000, 10_000, 20_000, 40_000, 80_000, 160_000, 320_000) if s <= max(EQUITY_HANDS // 3, 5_000)]
    lines = []
    for game, play, bias, test in POWER:
        found = None
        t0 = time.perf_counter()
        for size in sizes:
            caught = 0
            for seed in range(5):
                table = generate_hands(
                    game,
                    size,
                    seed=seed,
                    streets_column=game != "zjh",
                    bias=(Bias.parse(bias),),
                    play_style=play,
                    max_seats=6 if play != "random" else 9,
                )
                _, _, figures = settle_in_memory(table.table, "t", opts)
                caught += test in run_tests(figures["by_game"], "zjh", 0.01)["rejected"]
            if caught >= 4:
                found = size
                break
        said = f"{found:,} hands" if found else f"more than {sizes[-1]:,} hands"
        took = time.perf_counter() - t0
        lines.append(
            f"  {game:<8} --play {play:<6} --bias {bias:<14} caught by '{test}' 4 of 5 seeds at {said} ({took:.0f} s)"
        )
    with capsys.disabled():
        print("\n[fairness: power, level 0.01]\n" + "\n".join(lines))
