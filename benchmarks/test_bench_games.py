"""The games beside Hold'em: Omaha seat evaluations against peers and against our Hold'em seat rate
on the same tables, and settling Omaha hi/lo and stud hi/lo files against Hold'em files of as many
hands.

    CARDBATCH_BENCH_GAMES_N=1000000 pytest benchmarks/test_bench_games.py --benchmark-only -s

The seat evaluations are compared on one thread, ours and the peers', the same rounds each; ours on
two threads is in the scaling table.

Compile seconds of each new kernel family, from an empty cache, are printed by
``python benchmarks/test_bench_games.py`` (each in a fresh process).
"""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import pytest

from cardbatch.kernels import holdem, omaha, shortdeck

TABLES = int(os.environ.get("CARDBATCH_BENCH_TABLES", 200_000))  # tables of 6 seats
SETTLE_N = int(os.environ.get("CARDBATCH_BENCH_GAMES_N", 1_000_000))
SETTLE_GAMES = ("holdem", "omaha_hilo", "stud_hilo")
PEER_N = 5_000
SEATS = 6


@pytest.fixture(scope="module")
def omaha_tables():
    """``TABLES`` random 6-seat Omaha-4 deals: ``hole[T, 6, 4]``, ``board[T, 5]``, distinct cards."""
    rng = np.random.default_rng(32)
    deal = np.argsort(rng.random((TABLES, 52)), axis=1)[:, : SEATS * 4 + 5].astype(np.uint8)
    hole = np.ascontiguousarray(deal[:, : SEATS * 4].reshape(TABLES, SEATS, 4))
    board = np.ascontiguousarray(deal[:, SEATS * 4 :])
    return hole, board, np.ones((TABLES, SEATS), bool)


OMAHA = "omaha-4 seat evaluations"  # one thread, ours and the peers (pure Python / C extension)


@pytest.mark.parametrize("threads", [1, 2])
def test_ours_omaha_seats(benchmark, throughput, omaha_tables, threads):
    hole, board, mask = omaha_tables
    omaha.evaluate_seats(hole[:100], board[:100], mask[:100])
    throughput(
        benchmark,
        OMAHA if threads == 1 else None,
        f"cardbatch omaha.evaluate_seats ({threads} thread)",
        hole.shape[0] * SEATS,
        lambda: omaha.evaluate_seats(hole, board, mask),
        threads=threads,
        ours=True,
        unit="seats",
        scaling="omaha.evaluate_seats, 6 seats",
    )


def test_holdem_seats_same_tables(benchmark, throughput, omaha_tables):
    """Our Hold'em seat rate on the same tables (each seat's first two cards): Omaha's cost in Hold'em's."""
    hole, board, mask = omaha_tables
    two = np.ascontiguousarray(hole[:, :, :2])
    holdem.evaluate_seats(two[:100], board[:100], mask[:100])
    throughput(
        benchmark,
        OMAHA,
        "cardbatch holdem.evaluate_seats, same tables (1 thread)",
        hole.shape[0] * SEATS,
        lambda: holdem.evaluate_seats(two, board, mask),
        unit="seats",
    )


_PAIRS = np.array(list(itertools.combinations(range(4), 2)))
_TRIPLES = omaha.BOARD_TRIPLES


def _sixty_five_card_hands(hole: np.ndarray, board: np.ndarray) -> np.ndarray:
    """The other structure: every seat's 60 five-card hands through the five-card scorer, then the best."""
    n = hole.shape[0] * hole.shape[1]
    h = hole.reshape(n, 4)
    b = np.repeat(board, hole.shape[1], axis=0)
    five = np.concatenate(
        [
            np.broadcast_to(h[:, _PAIRS][:, :, None, :], (n, 6, 10, 2)),
            np.broadcast_to(b[:, _TRIPLES][:, None, :, :], (n, 6, 10, 3)),
        ],
        axis=3,
    ).reshape(n * 60, 5)
    return holdem.evaluate(np.ascontiguousarray(five)).reshape(n, 60).max(axis=1)


def test_sixty_five_card_evaluations(benchmark, throughput, omaha_tables):
    hole, board, mask = omaha_tables
    k = min(hole.shape[0], 50_000)
    sub_h, sub_b = hole[:k], board[:k]
    assert (
        _sixty_five_card_hands(sub_h[:200], sub_b[:200])
        == omaha.evaluate_seats(sub_h[:200], sub_b[:200], mask[:200]).reshape(-1)
    ).all()
    throughput(
        benchmark,
        OMAHA,
        "60 five-card evaluations a seat (1 thread)",
        k * SEATS,
        lambda: _sixty_five_card_hands(sub_h, sub_b),
        unit="seats",
    )


@pytest.mark.peer
def test_peer_phevaluator_omaha(benchmark, throughput, omaha_tables):
    phe = pytest.importorskip("phevaluator")
    hole, board, _ = omaha_tables
    rows = [
        (*(int(c) for c in board[t]), *(int(c) for c in hole[t, s]))
        for t in range(PEER_N // SEATS)
        for s in range(SEATS)
    ]
    throughput(
        benchmark,
        OMAHA,
        "phevaluator evaluate_omaha_cards (Python API, 1 thread)",
        len(rows),
        lambda: [phe.evaluate_omaha_cards(*r) for r in rows],
        unit="seats",
    )


@pytest.mark.peer
def test_peer_pokerkit_omaha(benchmark, throughput, omaha_tables):
    pokerkit = pytest.importorskip("pokerkit")
    from cardbatch.kernels import cards

    hole, board, _ = omaha_tables
    n = 500
    hands = [(cards.format(hole[t, s]), cards.format(board[t])) for t in range(n // SEATS) for s in range(SEATS)]
    throughput(
        benchmark,
        OMAHA,
        "pokerkit OmahaHoldemHand.from_game (1 thread)",
        len(hands),
        lambda: [pokerkit.OmahaHoldemHand.from_game(h, b) for h, b in hands],
        unit="seats",
    )


def test_ours_shortdeck_seats(benchmark, throughput):
    rng = np.random.default_rng(36)
    deal = (16 + np.argsort(rng.random((TABLES, 36)), axis=1)[:, : SEATS * 2 + 5]).astype(np.uint8)
    hole = np.ascontiguousarray(deal[:, : SEATS * 2].reshape(TABLES, SEATS, 2))
    board = np.ascontiguousarray(deal[:, SEATS * 2 :])
    mask = np.ones((TABLES, SEATS), bool)
    shortdeck.evaluate_seats(hole[:100], board[:100], mask[:100])
    throughput(
        benchmark,
        "short-deck seat evaluations",
        "cardbatch shortdeck.evaluate_seats (1 thread)",
        TABLES * SEATS,
        lambda: shortdeck.evaluate_seats(hole, board, mask),
        ours=True,
        unit="seats",
    )


@pytest.fixture(scope="module")
def settle_inputs():
    """``SETTLE_N`` generated hands of Hold'em, Omaha hi/lo and stud hi/lo, one Parquet file each
    (stud hi/lo's goal: at most 1.5 times Hold'em's time)."""
    folder = tempfile.mkdtemp(prefix="cardbatch-bench-games-")
    paths = {}
    for game in SETTLE_GAMES:
        path = os.path.join(folder, f"{game}.parquet")
        subprocess.run(
            [
                sys.executable,
                "-m",
                "cardbatch",
                "generate",
                "--game",
                game,
                "--hands",
                str(SETTLE_N),
                "--out",
                path,
                "--seed",
                "32",
                "--quiet",
            ],
            check=True,
        )
        paths[game] = path
    return folder, paths


@pytest.mark.parametrize("game", SETTLE_GAMES)
def test_settle_files(benchmark, throughput, settle_inputs, game):
    """``cardbatch settle`` of the file, the real command in its own process (2 workers), best of 3."""
    folder, paths = settle_inputs
    out = os.path.join(folder, f"out-{game}")
    cmd = [sys.executable, "-m", "cardbatch", "settle", paths[game], "--out", out, "--mode", "overwrite", "--quiet"]
    throughput(
        benchmark,
        f"settle {SETTLE_N:,} generated hands (2 workers)",
        f"cardbatch settle, {game}",
        SETTLE_N,
        lambda: subprocess.run(cmd, check=True),
        threads=2,
        rounds=3,
        ours=game == "holdem",
    )


def _compile_seconds(snippet: str) -> float:
    """Seconds ``snippet`` takes in a fresh process with an empty numba cache (imports excluded)."""
    code = "\n".join(
        [
            "import time, numpy as np",
            "from cardbatch.kernels import holdem, omaha, lowball, shortdeck, pots",
            "t = time.perf_counter()",
            snippet,
            "print(time.perf_counter() - t)",
        ]
    )
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return float(done.stdout.split()[-1])


_ARGS = "np.zeros((1, 5), np.uint8), np.ones((1, 2), bool)"
COMPILES = {
    "omaha evaluate_seats (parallel build)": f"omaha.evaluate_seats(np.zeros((1, 2, 4), np.uint8), {_ARGS})",
    "lowball low_seats (parallel build)": f"lowball.low_seats(np.zeros((1, 2, 4), np.uint8), {_ARGS})",
    "short deck evaluate_seats (Hold'em's kernel)": f"shortdeck.evaluate_seats(np.zeros((1, 2, 2), np.uint8), {_ARGS})",
    "pots with high/low halves (rows kernel)": "pots.settle([[1, 1]], [[1, 1]], [[1, 2]], 0, low=[[0, 5]])",
    "pots, standard (for scale)": "pots.settle([[1, 1]], [[1, 1]], [[1, 2]], 0)",
}

if __name__ == "__main__":
    for name, snippet in COMPILES.items():
        t = time.perf_counter()
        print(f"{name:<48} {_compile_seconds(snippet):6.1f} s compile (empty cache)", flush=True)
