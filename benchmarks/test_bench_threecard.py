"""Three-card evaluation and deck ranking throughput."""

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
        f"three-card evaluate ({rules})",
        f"cardbatch evaluate ({threads} thread)",
        N,
        lambda: threecard.evaluate(hands3, rules),
        threads=threads,
        ours=threads == 1,
    )


@pytest.mark.parametrize("threads", [1, 2])
def test_threecard_evaluate_into_buffer(benchmark, throughput, hands3, threads):
    out = np.empty(len(hands3), np.int32)
    threecard.evaluate(hands3, "zjh", out=out)
    throughput(
        benchmark,
        "three-card evaluate (zjh)",
        f"cardbatch evaluate, reused out= ({threads} thread)",
        N,
        lambda: threecard.evaluate(hands3, "zjh", out=out),
        threads=threads,
    )


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("rules", ["zjh", "zjh_suited"])
def test_baseline_2026_12_01(benchmark, throughput, hands3, threads, rules):
    """The evaluator as it was before issue #15 (benchmarks/frozen.py), same data, same run."""
    lookup = frozen.multiset_lookup(rules)
    out = np.empty(len(hands3), np.int32)
    assert (
        frozen.threecard_evaluate(hands3[:100_000], lookup, out[:100_000])
        == threecard.evaluate(hands3[:100_000], rules)
    ).all()
    throughput(
        benchmark,
        f"three-card evaluate ({rules})",
        f"baseline 2026-12-01, reused out= ({threads} thread)",
        N,
        lambda: frozen.threecard_evaluate(hands3, lookup, out),
        threads=threads,
    )


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
        "pure Python seed formula",
        len(sample),
        lambda: [classic(h) for h in sample],
        rounds=3,
    )


@pytest.mark.parametrize("threads", [1, 2])
def test_deal_evaluate_rank_zjh6(benchmark, throughput, threads):
    ranking.rank_zjh(1000, 6, 1)
    throughput(
        benchmark,
        "ZJH deal+evaluate+rank, 6 players",
        f"rank_zjh ({threads} thread)",
        DECKS,
        lambda: ranking.rank_zjh(DECKS, 6, seed=1),
        threads=threads,
        ours=threads == 2,
        unit="decks",
    )


def test_rank_1000_decks_latency(benchmark, throughput):
    ranking.rank_zjh(1000, 6, 1)
    throughput(
        benchmark,
        "ZJH 1,000 decks (latency)",
        "rank_zjh 1000 decks",
        1000,
        lambda: ranking.rank_zjh(1000, 6, seed=1),
        rounds=50,
        ours=True,
        unit="decks",
    )


def test_deal_evaluate_rank_holdem9(benchmark, throughput):
    ranking.rank_holdem(1000, 9, 1)
    throughput(
        benchmark,
        "Hold'em deal+evaluate+rank, 9 players",
        "rank_holdem (2 threads)",
        DECKS // 2,
        lambda: ranking.rank_holdem(DECKS // 2, 9, seed=1),
        ours=True,
        unit="decks",
        rounds=3,
    )
