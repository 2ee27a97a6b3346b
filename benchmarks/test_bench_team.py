"""2v2 settlement throughput, against the plain-Python reference in the same run."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np
import pytest

from cardbatch.kernels import team

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from team_reference import reference  # noqa: E402

G = int(os.environ.get("CARDBATCH_BENCH_GAMES", 10_000_000))


@pytest.fixture(scope="module")
def games():
    rng = np.random.default_rng(5)
    return (
        rng.choice([50, 1000, 20000, 10**6], (G, 4)),
        rng.integers(1, 5, (G, 4)),
        rng.random((G, 4)) < 0.05,
        rng.integers(0, 2, G),
        np.int64(100),
        np.int64(2),
        np.int64(10),
    )


@pytest.mark.parametrize("threads", [1, 2])
def test_settle_2v2(benchmark, throughput, games, threads):
    team.settle_2v2(*(a[:10] if np.ndim(a) else a for a in games))
    throughput(
        benchmark,
        "2v2 settlement",
        f"cardbatch settle_2v2 ({threads} thread)",
        G,
        lambda: team.settle_2v2(*games),
        threads=threads,
        ours=threads == 2,
        unit="games",
    )


def test_settle_2v2_reused_buffers(benchmark, throughput, games):
    out = (np.empty((G, 4), np.int64), np.empty((G, 4), np.int64))
    team.settle_2v2(*games, out=out)
    throughput(
        benchmark,
        "2v2 settlement",
        "cardbatch settle_2v2, reused out= (2 threads)",
        G,
        lambda: team.settle_2v2(*games, out=out),
        threads=2,
        unit="games",
    )


def test_python_reference(benchmark, throughput, games):
    b, x, afk, w, base, double, fee = games
    rows = [(b[g].tolist(), x[g].tolist(), afk[g].tolist(), int(w[g])) for g in range(20000)]
    throughput(
        benchmark,
        "2v2 settlement",
        "plain Python (Fractions) reference",
        len(rows),
        lambda: [reference(*r, 100, 2, 10) for r in rows],
        rounds=3,
        unit="games",
    )
