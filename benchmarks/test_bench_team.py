"""2v2 settlement throughput against the plain-Python reference, one thread each, same run; ours on 1
and 2 threads in the scaling table."""

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


GROUP = "2v2 settlement"  # one thread, ours and the reference


@pytest.mark.parametrize("threads", [1, 2])
def test_settle_2v2(benchmark, throughput, games, threads):
    team.settle_2v2(*(a[:10] if np.ndim(a) else a for a in games))
    throughput(
        benchmark,
        GROUP if threads == 1 else None,
        f"cardbatch settle_2v2 ({threads} thread)",
        G,
        lambda: team.settle_2v2(*games),
        threads=threads,
        ours=True,
        unit="games",
        scaling="team.settle_2v2",
    )


@pytest.mark.parametrize("threads", [1, 2])
def test_settle_2v2_reused_buffers(benchmark, throughput, games, threads):
    out = (np.empty((G, 4), np.int64), np.empty((G, 4), np.int64))
    team.settle_2v2(*games, out=out)
    throughput(
        benchmark,
        GROUP if threads == 1 else None,
        f"cardbatch settle_2v2, reused out= ({threads} thread)",
        G,
        lambda: team.settle_2v2(*games, out=out),
        threads=threads,
        unit="games",
        scaling="team.settle_2v2, reused out=",
    )


@pytest.mark.peer
def test_python_reference(benchmark, throughput, games):
    b, x, afk, w, base, double, fee = games
    rows = [(b[g].tolist(), x[g].tolist(), afk[g].tolist(), int(w[g])) for g in range(min(G, 20000))]
    throughput(
        benchmark,
        GROUP,
        "plain Python (Fractions) reference (1 thread)",
        len(rows),
        lambda: [reference(*r, 100, 2, 10) for r in rows],
        unit="games",
    )
