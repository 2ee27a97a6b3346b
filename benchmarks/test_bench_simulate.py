"""Economy simulation throughput (tables settled per second, whole rounds included)."""

from __future__ import annotations

import os

import pytest

from cardbatch.batch.simulate.job import Room, simulate

SCALE = float(os.environ.get("CARDBATCH_BENCH_SIM_SCALE", 1))  # smaller rooms for a smoke run
CASES = {
    game: (max(int(players * SCALE), 40), max(int(tables * SCALE), 4))
    for game, (players, tables) in {
        "team2v2": (400_000, 100_000),
        "zjh": (200_000, 40_000),
        "holdem": (120_000, 20_000),
    }.items()
}


@pytest.mark.parametrize("game", list(CASES))
def test_simulate(benchmark, throughput, game):
    players, tables = CASES[game]
    room = Room(game=game, players=players, rounds=10, tables_per_round=tables, fee=10, rake_pct="0.05", seed=1)
    simulate(Room(**{**room.__dict__, "rounds": 1}))
    throughput(
        benchmark,
        f"simulate {game}",
        f"cardbatch simulate ({tables:,} tables/round)",
        room.rounds * tables,
        lambda: simulate(room),
        threads=2,  # numba's threads, as a run of the command has them
        rounds=3,
        ours=True,
        unit="tables",
    )
