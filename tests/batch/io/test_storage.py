"""Where inputs and outputs live (batch/io/storage.py): local paths and s3:// URIs, and a clear
refusal for any other scheme, before anything is opened."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest
from conftest import SAMPLES, TEST_DATA, cli


@pytest.mark.parametrize(
    "args",
    [
        ("settle", "gs://bucket/hands.parquet", "--out", "OUT"),
        ("audit", "SAMPLE", "--out", "gs://bucket/out"),
        ("fairness", "hdfs://name/hands.parquet", "--out", "OUT"),
        ("import", "gs://bucket/h.phhs", "--out", "OUT.parquet"),
        ("generate", "--hands", "10", "--out", "gs://bucket/g.parquet"),
        ("rank-decks", "--decks", "10", "--out", "gs://bucket/r.parquet"),
        ("rank-decks", "gs://bucket/decks.parquet", "--out", "OUT.parquet"),
        ("simulate", "--players", "20", "--rounds", "1", "--out", "gs://bucket/sim"),
    ],
)
def test_a_scheme_cardbatch_does_not_read_is_refused_at_once(args, tmp_path):
    """From a trial: a gs:// input waited for minutes, deaf to Ctrl-C and SIGTERM, while pyarrow
    looked for Google's credentials server; every command now refuses the scheme by name."""
    out = str(tmp_path / "o")
    given = [a.replace("OUT", out).replace("SAMPLE", str(SAMPLES[0])) for a in args]
    t0 = time.perf_counter()
    res = cli(*given, "-q")
    assert res.returncode == 2, res.stderr
    assert "local paths and s3:// URIs" in res.stderr and res.stderr.count("\n") == 1, res.stderr
    assert time.perf_counter() - t0 < 10
    assert not list(tmp_path.iterdir())


UNREACHABLE = [
    ("generate", "--hands", "10", "--out", "s3://nobucket/g.parquet"),
    ("rank-decks", "--decks", "10", "--out", "s3://nobucket/r.parquet"),
    ("simulate", "--players", "20", "--rounds", "1", "--out", "s3://nobucket/sim"),
    (
        "simulate",
        "--game",
        "zjh",
        "--players",
        "20",
        "--rounds",
        "1",
        "--out",
        "OUT",
        "--write-hands",
        "s3://nobucket/h.parquet",
    ),
    ("import", str(TEST_DATA / "phh"), "--out", "s3://nobucket/i.parquet"),
    ("settle", "SAMPLE", "--out", "s3://nobucket/out"),
]


def test_an_object_store_out_of_reach_is_one_line_and_exit_2(tmp_path):
    """From a trial: generate, rank-decks and simulate said "internal error" (exit 1). Each command
    is a process of its own, all at once: the S3 client retries for about 6 s before it gives up."""
    env = {
        **os.environ,
        "AWS_ENDPOINT_URL": "http://127.0.0.1:9",
        "AWS_ACCESS_KEY_ID": "x",
        "AWS_SECRET_ACCESS_KEY": "x",
        "AWS_DEFAULT_REGION": "us-east-1",
    }
    runs = []
    for k, args in enumerate(UNREACHABLE):
        given = [a.replace("OUT", str(tmp_path / f"o{k}")).replace("SAMPLE", str(SAMPLES[0])) for a in args]
        cmd = [sys.executable, "-m", "cardbatch", *given, "-q"]
        runs.append(subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    for args, run in zip(UNREACHABLE, runs):
        _, stderr = run.communicate(timeout=120)
        assert run.returncode == 2 and "cannot reach s3://nobucket/" in stderr, (args, stderr)
        assert stderr.count("\n") == 1, (args, stderr)
