"""Pot settlement throughput: ours vs a plain-Python layered settlement and pokerkit, same run."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np
import pytest

from cardbatch.kernels import pots

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
import pots_reference as ref  # noqa: E402

T = int(os.environ.get("CARDBATCH_BENCH_TABLES", 2_000_000))


def tables(T, S=9, streets=1, seed=1):
    """Realistic-ish tables: everyone posts, some fold early, live seats go to a common level or all in."""
    rng = np.random.default_rng(seed)
    live = rng.random((T, S)) < 0.45
    live[:, 0] |= ~live.any(axis=1)
    stacks = rng.choice([50, 100, 200, 400, 1000], (T, S))
    per_street = np.zeros((T, streets, S), np.int64)
    for k in range(streets):
        bet = rng.choice([10, 20, 40, 80] if k == 0 else [0, 10, 20, 40, 80], T)[:, None]
        folded_part = np.where(live, 0, rng.choice([0, 0, 5, 10], (T, S)))
        per_street[:, k] = np.where(live, np.minimum(bet, stacks // streets), np.minimum(folded_part, bet))
    score = rng.integers(0, 7462, (T, S))
    button = rng.integers(0, S, T)
    return per_street, live, score, button


@pytest.fixture(scope="module")
def std_tables():
    c, live, score, button = tables(T)
    c = c[:, 0]
    ok = pots.validate(c, live, score, button) == 0
    assert ok.mean() > 0.99
    return c[ok], live[ok], score[ok], button[ok]


@pytest.mark.parametrize("threads", [1, 2])
def test_standard_9_seats(benchmark, throughput, std_tables, threads):
    c, live, score, button = std_tables
    pots.settle(c[:100], live[:100], score[:100], button[:100])
    throughput(
        benchmark,
        "settle standard, 9 seats",
        f"cardbatch settle ({threads} thread)",
        len(c),
        lambda: pots.settle(c, live, score, button),
        threads=threads,
        ours=threads == 2,
        unit="tables",
    )


@pytest.mark.parametrize("threads", [1, 2])
def test_standard_9_seats_reused_out(benchmark, throughput, std_tables, threads):
    c, live, score, button = std_tables
    out = np.empty(c.shape, np.int64)
    pots.settle(c, live, score, button, out=out)
    throughput(
        benchmark,
        "settle standard, 9 seats",
        f"cardbatch settle, reused out= ({threads} thread)",
        len(c),
        lambda: pots.settle(c, live, score, button, out=out),
        threads=threads,
        unit="tables",
    )


def test_standard_python_reference(benchmark, throughput, std_tables):
    c, live, score, button = (a[:20000] for a in std_tables)
    rows = [(c[t].tolist(), live[t].tolist(), score[t].tolist(), int(button[t])) for t in range(len(c))]
    throughput(
        benchmark,
        "settle standard, 9 seats",
        "plain Python layered settlement",
        len(rows),
        lambda: [ref.standard(*r) for r in rows],
        rounds=3,
        unit="tables",
    )


def test_pokerkit_hands(benchmark, throughput):
    pk = pytest.importorskip("pokerkit")
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "kernels"))
    from test_pots_pokerkit import play

    rng = np.random.default_rng(2)
    throughput(
        benchmark,
        "settle standard, 9 seats",
        "pokerkit (play + settle a 9-seat hand)",
        50,
        lambda: [play(rng, 9) for _ in range(50)],
        rounds=3,
        unit="tables",
    )
    del pk


@pytest.mark.parametrize("policy", ["presence", "ratio_rank", "hybrid"])
def test_street_policies_4x9(benchmark, throughput, policy):
    c, live, score, button = tables(T // 2, streets=4, seed=3)
    ok = pots.validate(c, live, score, button, policy) == 0
    c, live, score, button = c[ok], live[ok], score[ok], button[ok]
    pots.settle(c[:100], live[:100], score[:100], button[:100], policy)
    throughput(
        benchmark,
        f"settle {policy}, 4 streets x 9 seats",
        "cardbatch settle (2 threads)",
        len(c),
        lambda: pots.settle(c, live, score, button, policy),
        threads=2,
        ours=True,
        unit="tables",
    )
