"""Three-card evaluation and deck ranking throughput: ours against the plain-Python formula on one
thread each, same run; ours on 1 and 2 threads in the scaling table."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

from cardbatch.kernels import ranking, threecard

sys.path.insert(0, os.path.dirname(__file__))
import frozen  # noqa: E402

N = int(os.environ.get("CARDBATCH_BENCH_N", 10_000_000))
DECKS = int(os.environ.get("CARDBATCH_BENCH_DECKS", 2_000_000))


@pytest.fixture(scope="module")
def hands3():
    rng = np.random.default_rng(3)
    base = np.argsort(rng.random((min(N, 1_000_000), 52)), axis=1)[:, :3].astype(np.uint8)
    return np.ascontiguousarray(np.resize(base, (N, 3)))


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("rules", ["zjh", "zjh_suited"])
def test_threecard_evaluate(benchmark, throughput, hands3, threads, rules):
    threecard.evaluate(hands3[:10], rules)
    throughput(
        benchmark,
        f"three-card evaluate ({rules})" if threads == 1 else None,
        f"cardbatch evaluate ({threads} thread)",
        N,
        lambda: threecard.evaluate(hands3, rules),
        threads=threads,
        ours=True,
        scaling=f"threecard.evaluate, {rules}",
    )


@pytest.mark.parametrize("threads", [1, 2])
def test_threecard_evaluate_into_buffer(benchmark, throughput, hands3, threads):
    out = np.empty(len(hands3), np.int32)
    threecard.evaluate(hands3, "zjh", out=out)
    throughput(
        benchmark,
        "three-card evaluate (zjh)" if threads == 1 else None,
        f"cardbatch evaluate, reused out= ({threads} thread)",
        N,
        lambda: threecard.evaluate(hands3, "zjh", out=out),
        threads=threads,
        scaling="threecard.evaluate, zjh, reused out=",
    )


@pytest.mark.parametrize("rules", ["zjh", "zjh_suited"])
def test_baseline_2026_12_01(benchmark, throughput, hands3, rules):
    """The evaluator as it was before issue #15 (benchmarks/frozen.py), same data, same run, one thread."""
    lookup = frozen.multiset_lookup(rules)
    out = np.empty(len(hands3), np.int32)
    assert (
        frozen.threecard_evaluate(hands3[:100_000], lookup, out[:100_000])
        == threecard.evaluate(hands3[:100_000], rules)
    ).all()
    throughput(
        benchmark,
        f"three-card evaluate ({rules})",
        "baseline 2026-12-01, reused out= (1 thread)",
        N,
        lambda: frozen.threecard_evaluate(hands3, lookup, out),
    )


@pytest.mark.peer
def test_python_reference_zjh(benchmark, throughput, hands3):
    """A plain-Python evaluator of the seed's formulas: the peer we replace."""
    sample = hands3[:20000].tolist()

    def classic(hand):
        nums = sorted(((c >> 2) + 2 for c in hand), reverse=True)
        flush = len({c & 3 for c in hand}) == 1
        n1, n2, n3 = nums
        if n1 == n3:
            return n1 + 7867
        if n1 == n2 or n2 == n3:
            return (n1 * 16 + n3 if n1 == n2 else n2 * 16 + n1) + 3803
        low = n3 if n1 - n3 == 2 else (1 if nums == [14, 3, 2] else None)
        if low is not None:
            return low + (7855 if flush else 4040)
        return n1 * 256 + n2 * 16 + n3 + (4052 if flush else 0)

    throughput(
        benchmark,
        "three-card evaluate (zjh)",
        "pure Python seed formula (1 thread)",
        len(sample),
        lambda: [classic(h) for h in sample],
    )


@pytest.mark.parametrize("threads", [1, 2])
def test_deal_evaluate_rank_zjh6(benchmark, throughput, threads):
    ranking.rank_zjh(1000, 6, 1)
    throughput(
        benchmark,
        "ZJH deal+evaluate+rank, 6 players" if threads == 1 else None,
        f"rank_zjh ({threads} thread)",
        DECKS,
        lambda: ranking.rank_zjh(DECKS, 6, seed=1),
        threads=threads,
        ours=True,
        unit="decks",
        scaling="ranking.rank_zjh, 6 players",
    )


@pytest.mark.parametrize("threads", [1, 2])
def test_rank_1000_decks_latency(benchmark, throughput, threads):
    ranking.rank_zjh(1000, 6, 1)
    throughput(
        benchmark,
        "ZJH 1,000 decks (latency)" if threads == 1 else None,
        f"rank_zjh 1000 decks ({threads} thread)",
        1000,
        lambda: ranking.rank_zjh(1000, 6, seed=1),
        threads=threads,
        rounds=50,
        ours=True,
        unit="decks",
        scaling="ranking.rank_zjh, 1,000 decks a call (latency)",
    )


@pytest.mark.parametrize("threads", [1, 2])
def test_deal_evaluate_rank_holdem9(benchmark, throughput, threads):
    ranking.rank_holdem(1000, 9, 1)
    throughput(
        benchmark,
        "Hold'em deal+evaluate+rank, 9 players" if threads == 1 else None,
        f"rank_holdem ({threads} thread)",
        DECKS // 2,
        lambda: ranking.rank_holdem(DECKS // 2, 9, seed=1),
        threads=threads,
        ours=True,
        unit="decks",
        scaling="ranking.rank_holdem, 9 players",
    )
