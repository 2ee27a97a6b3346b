"""Hold'em evaluation throughput: ours against peers on one thread each, same run; ours on 1 and 2
threads in the scaling table."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import pytest

from cardbatch.kernels import cards, holdem

sys.path.insert(0, os.path.dirname(__file__))
import frozen  # noqa: E402

N = int(os.environ.get("CARDBATCH_BENCH_N", 10_000_000))
PEER_N = 20_000


@pytest.fixture(scope="module")
def hands7():
    rng = np.random.default_rng(7)
    base = np.argsort(rng.random((min(N, 1_000_000), 52)), axis=1)[:, :7].astype(np.uint8)
    return np.ascontiguousarray(np.resize(base, (N, 7)))


@pytest.fixture(scope="module")
def peer_sample(hands7):
    return hands7[:PEER_N]


SEVEN = "holdem 7-card"  # one thread, ours and the peers (pure Python / C extensions: one thread each)


@pytest.mark.parametrize("threads", [1, 2])
def test_ours_evaluate7(benchmark, throughput, hands7, threads):
    """In the per-core comparison on one thread (the reference); on two in the scaling table only."""
    holdem.evaluate(hands7[:1000])
    throughput(
        benchmark,
        SEVEN if threads == 1 else None,
        f"cardbatch evaluate ({threads} thread)",
        N,
        lambda: holdem.evaluate(hands7),
        threads=threads,
        ours=True,
        scaling="holdem.evaluate, 7 cards",
    )


@pytest.mark.parametrize("threads", [1, 2])
def test_ours_evaluate7_into_buffer(benchmark, throughput, hands7, threads):
    out = np.empty(len(hands7), np.uint32)
    holdem.evaluate(hands7, out=out)
    throughput(
        benchmark,
        SEVEN if threads == 1 else None,
        f"cardbatch evaluate, reused out= ({threads} thread)",
        N,
        lambda: holdem.evaluate(hands7, out=out),
        threads=threads,
        scaling="holdem.evaluate, 7 cards, reused out=",
    )


def test_baseline_2026_12_01_evaluate7(benchmark, throughput, hands7):
    """The evaluator as it was before issue #15 (benchmarks/frozen.py), same data, same run, one thread."""
    out = np.empty(len(hands7), np.uint32)
    assert (frozen.holdem_evaluate(hands7[:100_000], out[:100_000]) == holdem.evaluate(hands7[:100_000])).all()
    throughput(
        benchmark,
        SEVEN,
        "baseline 2026-12-01, reused out= (1 thread)",
        N,
        lambda: frozen.holdem_evaluate(hands7, out),
    )


@pytest.mark.parametrize("k", [5, 6])
@pytest.mark.parametrize("which", ["ours", "baseline"])
def test_five_and_six_cards(benchmark, throughput, hands7, k, which):
    """5- and 6-card hands, one thread: today's evaluator against the 2026-12-01 one, same data."""
    hands = np.ascontiguousarray(hands7[:, :k])
    out = np.empty(len(hands), np.uint32)
    assert (frozen.holdem_evaluate(hands[:100_000], out[:100_000]) == holdem.evaluate(hands[:100_000])).all()
    fn = (lambda: holdem.evaluate(hands, out=out)) if which == "ours" else (lambda: frozen.holdem_evaluate(hands, out))
    throughput(
        benchmark,
        f"holdem {k}-card",
        "cardbatch evaluate, reused out= (1 thread)"
        if which == "ours"
        else "baseline 2026-12-01, reused out= (1 thread)",
        N,
        fn,
        ours=which == "ours",
    )


@pytest.mark.parametrize("threads", [1, 2])
def test_ours_enumerate_all_seven(benchmark, throughput, threads):
    holdem.enumerate_seven([(44, 45)])
    counts = throughput(
        benchmark,
        "holdem all 133,784,560 seven-card hands" if threads == 1 else None,
        f"cardbatch enumerate_seven ({threads} thread)",
        133_784_560,
        holdem.enumerate_seven,
        threads=threads,
        ours=True,
        scaling="holdem.enumerate_seven",
    )
    assert counts.sum() == 133_784_560


# The peers, one thread each (none starts threads of its own; cores_used in the summary shows it),
# the same rounds and warm-up as ours, on a sample of the same hands (they take microseconds a hand).


@pytest.mark.peer
def test_peer_phevaluator(benchmark, throughput, peer_sample):
    phe = pytest.importorskip("phevaluator")
    rows = [tuple(int(c) for c in h) for h in peer_sample]  # phevaluator ids: any suit relabelling scores the same
    throughput(
        benchmark,
        SEVEN,
        "phevaluator evaluate_cards (Python API, 1 thread)",
        len(rows),
        lambda: [phe.evaluate_cards(*r) for r in rows],
    )


@pytest.mark.peer
def test_peer_eval7(benchmark, throughput, peer_sample):
    eval7 = pytest.importorskip("eval7")
    text = cards.format(peer_sample)
    rows = [[eval7.Card(t[i : i + 2]) for i in range(0, 14, 2)] for t in text]
    throughput(benchmark, SEVEN, "eval7 evaluate (1 thread)", len(rows), lambda: [eval7.evaluate(r) for r in rows])


@pytest.mark.peer
def test_peer_treys(benchmark, throughput, peer_sample):
    treys = pytest.importorskip("treys")
    text = cards.format(peer_sample[:5000])
    rows = [[treys.Card.new(t[i : i + 2]) for i in range(0, 14, 2)] for t in text]
    ev = treys.Evaluator()
    throughput(
        benchmark,
        SEVEN,
        "treys Evaluator.evaluate (1 thread)",
        len(rows),
        lambda: [ev.evaluate(r[:2], r[2:]) for r in rows],
    )


def test_compile_and_cache_start(benchmark, throughput):
    """Cold compile vs a second process that loads numba's cache: first result latency."""
    code = (
        "import time; t=time.perf_counter(); import numpy as np; from cardbatch.kernels import holdem; "
        "holdem.evaluate(np.arange(7, dtype=np.uint8)[None]); print(time.perf_counter()-t)"
    )
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        cold = float(
            subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
        )
        warm_runs = []

        def warm():
            t = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, check=True)
            warm_runs.append(time.perf_counter() - t)

        benchmark.group = "start-up"
        benchmark.pedantic(warm, rounds=3, iterations=1)
    benchmark.extra_info.update(cold_first_result_s=cold, warm_process_s=min(warm_runs))
    print(
        f"\nholdem.evaluate first result: cold (compiling) {cold:.2f} s; "
        f"second process with numba cache {min(warm_runs):.2f} s (whole process)"
    )


TABLES = int(os.environ.get("CARDBATCH_BENCH_TABLES", 1_000_000))


def _tables(seats: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``TABLES`` dealt tables of ``seats`` seats: hole ``[T, S, 2]``, board ``[T, 5]``, every seat
    shown, and the same hands as one 7-card row a seat ``[T * S, 7]`` (the per-seat evaluation)."""
    rng = np.random.default_rng(seats)
    deals = np.argsort(rng.random((TABLES, 52)), axis=1)[:, : 2 * seats + 5].astype(np.uint8)
    hole = np.ascontiguousarray(deals[:, : 2 * seats].reshape(TABLES, seats, 2))
    board = np.ascontiguousarray(deals[:, 2 * seats :])
    rows = np.concatenate([hole, np.broadcast_to(board[:, None, :], (TABLES, seats, 5))], axis=2)
    return hole, board, np.ones((TABLES, seats), bool), np.ascontiguousarray(rows.reshape(-1, 7))


@pytest.mark.parametrize("seats", [2, 6, 9])
@pytest.mark.parametrize("how", ["board shared (evaluate_seats)", "seat by seat (evaluate, 7 cards)"])
def test_board_shared_seats_against_per_seat(benchmark, throughput, seats, how):
    """Issue #33, item 3: a table's seats share its board, summed once a table and two hole cards
    added a seat (what settle's one pass and ``evaluate_seats`` do), against the same seats as
    seven-card hands one by one; seats a second, one thread, the same hands (checked equal)."""
    hole, board, mask, rows = _tables(seats)
    shared = how.startswith("board")
    if shared:
        assert np.array_equal(holdem.evaluate_seats(hole, board, mask).reshape(-1), holdem.evaluate(rows))
    run = (lambda: holdem.evaluate_seats(hole, board, mask)) if shared else (lambda: holdem.evaluate(rows))
    group = f"holdem seats at tables of {seats}"
    throughput(benchmark, group, how, TABLES * seats, run, ours=shared, unit="seats")
