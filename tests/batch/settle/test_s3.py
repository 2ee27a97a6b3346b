"""Inputs and outputs on an S3-compatible object store: a real moto server started here, real
processes, the local and the Dask engine, no shared disk assumed (every path is an s3:// URI)."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest
from conftest import S3_BUCKET, cli
from conftest import SAMPLES as SAMPLE_PATHS
from pyarrow import fs

pytest.importorskip("moto.server", reason="the S3 test needs moto's server (pip install 'moto[server]')")

pytestmark = pytest.mark.slow  # a moto S3 server, both engines (Dask too)

SAMPLES = [Path(p) for p in SAMPLE_PATHS]
BUCKET = S3_BUCKET


@pytest.fixture(scope="module")
def s3_env(s3_server):
    env, s3 = s3_server
    for p in SAMPLES:
        pq.write_table(pq.read_table(p), f"{BUCKET}/logs/date=2026-11-01/{p.name}", filesystem=s3)
    return env, s3


def _read(s3, folder) -> pa.Table:
    table = ds.dataset(folder, filesystem=s3, format="parquet", partitioning="hive").to_table()
    return table.sort_by([("game", "ascending"), ("hand_id", "ascending")])


def test_settle_reads_and_writes_s3_and_agrees_with_a_local_run(s3_env, tmp_path):
    env, s3 = s3_env
    res = cli("settle", f"s3://{BUCKET}/logs/", "--out", f"s3://{BUCKET}/out", "--workers", "2", env=env)
    assert res.returncode == 0, res.stderr
    summary = json.loads(res.stdout)
    with s3.open_input_stream(f"{BUCKET}/out/summary.json") as f:
        assert json.loads(f.read()) == summary
    local = cli("settle", *map(str, SAMPLES), "--out", str(tmp_path / "local"), "-q", env=env)
    assert local.returncode == 0, local.stderr
    remote = _read(s3, f"{BUCKET}/out/results")
    assert remote.num_rows == summary["rows_settled"]
    assert set(remote.column("date").to_pylist()) == {"2026-11-01"}  # the input's partition key
    mine = _read(fs.LocalFileSystem(), str(tmp_path / "local" / "results"))
    assert remote.drop_columns(["date"]).equals(mine)
    errors = _read(s3, f"{BUCKET}/out/errors")
    assert errors.num_rows == summary["rows_rejected"]
    # a rerun finds every part finished
    again = cli("settle", f"s3://{BUCKET}/logs/", "--out", f"s3://{BUCKET}/out", env=env)
    assert again.returncode == 0 and json.loads(again.stdout)["parts_reused"] == summary["parts"]


def test_the_dask_engine_needs_no_shared_disk(s3_env):
    env, s3 = s3_env
    res = cli(
        "settle", f"s3://{BUCKET}/logs/", "--out", f"s3://{BUCKET}/dask", "--engine", "dask", "--workers", "2", env=env
    )
    assert res.returncode == 0, res.stderr
    assert _read(s3, f"{BUCKET}/dask/results").equals(_read(s3, f"{BUCKET}/out/results"))


def test_rank_decks_in_and_out_of_s3(s3_env, tmp_path):
    env, s3 = s3_env
    res = cli("rank-decks", "--decks", "500", "--seats", "4", "--out", f"s3://{BUCKET}/ranked.parquet", "-q", env=env)
    assert res.returncode == 0, res.stderr
    local = cli("rank-decks", "--decks", "500", "--seats", "4", "--out", str(tmp_path / "r.parquet"), "-q", env=env)
    assert local.returncode == 0
    remote = pq.read_table(f"{BUCKET}/ranked.parquet", filesystem=s3)
    assert remote.equals(pq.read_table(tmp_path / "r.parquet"))
    # given decks read from S3
    from cardbatch.kernels import decks

    d = decks.deal_decks(50, 3)
    pq.write_table(
        pa.table({"deck": pa.FixedSizeListArray.from_arrays(pa.array(d.reshape(-1)), 52)}),
        f"{BUCKET}/decks.parquet",
        filesystem=s3,
    )
    res = cli(
        "rank-decks",
        f"s3://{BUCKET}/decks.parquet",
        "--seats",
        "4",
        "--out",
        str(tmp_path / "g.parquet"),
        env=env,
    )
    assert res.returncode == 0, res.stderr
    assert pq.read_table(tmp_path / "g.parquet").num_rows == 50
