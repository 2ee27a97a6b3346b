"""Where inputs and outputs live (batch/io/storage.py): local paths and s3:// URIs, and a clear
refusal for any other scheme, before anything is opened."""

from __future__ import annotations

import time

import pytest
from conftest import SAMPLES, cli


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
