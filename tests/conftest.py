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
import socket
import subprocess
import sys
import time
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


@pytest.fixture(scope="session")
def dask_scheduler():
    """The address of a real Dask LocalCluster of two worker processes, shared by the whole session
    (each run given ``--engine dask --scheduler ADDR`` uses it as an external cluster would be)."""
    pytest.importorskip("distributed", reason="the cluster tests need Dask (pip install 'cardbatch[dask]')")
    from dask.distributed import LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        yield cluster.scheduler_address


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


S3_BUCKET = "cardbatch-test"


@pytest.fixture(scope="session")
def s3_server():
    """A real moto S3 server in a process of its own, with the bucket :data:`S3_BUCKET`: (the
    environment a run needs to reach it, a ``pyarrow.fs.S3FileSystem`` on it). Runs take the endpoint
    and credentials from their environment, as a user's would."""
    pytest.importorskip("moto.server", reason="the S3 tests need moto's server (pip install 'moto[server]')")
    from pyarrow import fs

    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    env = {
        "AWS_ACCESS_KEY_ID": "test",
        "AWS_SECRET_ACCESS_KEY": "test",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_ENDPOINT_URL": f"http://127.0.0.1:{port}",
    }
    try:
        for _ in range(100):  # the server takes a moment to listen
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.1)
        s3 = fs.S3FileSystem(
            access_key="test",
            secret_key="test",
            region="us-east-1",
            endpoint_override=f"127.0.0.1:{port}",
            scheme="http",
            allow_bucket_creation=True,
        )
        s3.create_dir(S3_BUCKET)
        yield {**os.environ, **env}, s3
    finally:
        server.terminate()
        server.wait(timeout=10)
