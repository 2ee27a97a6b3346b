"""``cardbatch compile`` fills numba's cache so that a later run compiles nothing."""

from __future__ import annotations

import json

import pytest
from conftest import SAMPLES, cli


@pytest.mark.slow
def test_after_compile_a_run_compiles_nothing(tmp_path):
    cache = {"NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    res = cli("compile", env=cache)
    assert res.returncode == 0, res.stderr
    families = json.loads(res.stdout)["families"]
    assert len(families) == 4 and all(s > 0 for s in families.values())
    settled = cli("settle", *SAMPLES, "--out", str(tmp_path / "out"), env=cache)
    assert settled.returncode == 0, settled.stderr
    assert json.loads(settled.stdout)["compile_ahead"]["compiled"] is False  # every kernel came from the cache
    assert "compiling" not in settled.stderr
