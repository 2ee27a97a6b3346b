"""Shared helpers for the tests: the repository's paths, the command line runner, combination arrays
and random distinct-card hands. Test files import the names they use from here (``from conftest
import ...``): ``tests/`` is on pytest's import path (``pythonpath`` in pyproject.toml)."""

from __future__ import annotations

import contextlib
import io
import itertools
import math
import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "data"
SAMPLES = sorted(str(p) for p in DATA.glob("*_sample.parquet"))
TEST_DATA = Path(__file__).resolve().parent / "data"


def cli(*args: str, env: dict[str, str] | None = None, timeout: float = 600) -> subprocess.CompletedProcess:
    """``cardbatch ARGS...``: its exit status, stdout and stderr.

    In this process (``main(argv)``: no interpreter start, kernels loaded once for the whole suite),
    unless ``env`` is given: then in a process of its own with those variables added to ours, as a
    user's shell would run it (a test of signals, start-up or the environment needs that)."""
    argv = [str(a) for a in args]
    if env is not None:
        return subprocess.run(
            [sys.executable, "-m", "cardbatch", *argv],
            capture_output=True,
            text=True,
            env={**os.environ, **env},
            timeout=timeout,
        )
    from cardbatch.batch.cli import main

    out, err = io.StringIO(), io.StringIO()
    term = signal.getsignal(signal.SIGTERM)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(argv)
            except SystemExit as exc:  # argparse: --help, --version, a usage error
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    finally:
        signal.signal(signal.SIGTERM, term)
    return subprocess.CompletedProcess(["cardbatch", *argv], code, out.getvalue(), err.getvalue())


def all_combinations(n: int, k: int) -> np.ndarray:
    """Every k-subset of range(n) in lexicographic order, as uint8[C(n, k), k]."""
    return np.fromiter(itertools.combinations(range(n), k), dtype=np.dtype((np.uint8, k)), count=math.comb(n, k))


def random_hands(rng: np.random.Generator, n: int, k: int) -> np.ndarray:
    """n hands of k distinct cards each, uniformly drawn."""
    return np.argsort(rng.random((n, 52)), axis=1)[:, :k].astype(np.uint8)


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(20261129)
