"""A settle run on an external Dask cluster compiles ahead on every worker at once, before the first
task, and says so in the summary; the results are the local engine's."""

from __future__ import annotations

import json

import pytest
from conftest import SAMPLES, cli

pytestmark = pytest.mark.slow  # a Dask LocalCluster of two processes


def _parts(out):
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.glob("*/game=*/part-*.parquet"))}


def test_an_external_cluster_compiles_ahead_on_every_worker(tmp_path):
    from dask.distributed import LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        args = ("settle", *SAMPLES, "--engine", "dask", "--scheduler", cluster.scheduler_address)
        res = cli(*args, "--out", str(tmp_path / "d"))
        again = cli(*args, "--out", str(tmp_path / "d"))
    assert res.returncode == 0, res.stderr
    warm = json.loads(res.stdout)["compile_ahead"]
    assert warm["workers"] == 2 and len(warm["worker_seconds"]) == 2
    assert "every Dask worker" in warm["compiled"]
    assert json.loads(again.stdout)["compile_ahead"] is None  # every part reused: nothing to warm
    local = cli("settle", *SAMPLES, "--out", str(tmp_path / "l"), "--workers", "1", "-q")
    assert local.returncode == 0, local.stderr
    assert _parts(tmp_path / "d") == _parts(tmp_path / "l") != {}  # byte for byte
