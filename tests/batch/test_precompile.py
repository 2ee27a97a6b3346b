"""``cardbatch compile`` fills numba's cache so that a later run compiles nothing."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
from conftest import SAMPLES, cli

from cardbatch.batch.precompile import FAMILIES


@pytest.mark.slow
def test_after_compile_a_run_compiles_nothing(tmp_path):
    """In processes of their own, on the suite's cache: what the rest of the suite compiled is loaded,
    the rest compiled (a cache of its own cost CI over three minutes for the same builds; an empty
    cache's first run is CI's timed step)."""
    cache: dict[str, str] = {}
    res = cli("compile", env=cache)
    assert res.returncode == 0, res.stderr
    families = json.loads(res.stdout)["families"]
    assert list(families) == list(FAMILIES) and all(s > 0 for s in families.values())
    # a line as each step of each family finishes, with its seconds (the code of the session's start
    # said nothing until a whole family was done, over a minute in)
    for name in FAMILIES:
        assert re.search(rf"^cardbatch compile: {re.escape(name)}: .+: \d+\.\d s$", res.stderr, re.M), name
    settled = cli("settle", *SAMPLES, "--out", str(tmp_path / "out"), env=cache)
    assert settled.returncode == 0, settled.stderr
    assert json.loads(settled.stdout)["compile_ahead"]["compiled"] is False  # every kernel came from the cache
    assert "compiling" not in settled.stderr
    # the all-in walks and the fairness tallies too (hands with stacks, so their all-ins are walked)
    hands = str(tmp_path / "hands.parquet")
    assert cli("generate", "--out", hands, "--hands", "3000", "--streets", env=cache).returncode == 0
    fair = cli("fairness", hands, "--out", str(tmp_path / "fair"), env=cache)
    assert fair.returncode in (0, 4), fair.stderr
    summary = json.loads(fair.stdout)
    assert summary["equity"]["all_in"] > 0 and summary["compile_ahead"]["compiled"] is False
    assert "compiling" not in fair.stderr
    # the games without a board (stud hi/lo's lows, razz's and badugi's evaluators), in one process
    import pyarrow.parquet as pq

    from cardbatch.batch.generate import generate_hands

    made = []
    for k, game in enumerate(("stud_hilo", "razz", "badugi")):
        made.append(str(tmp_path / f"{game}.parquet"))
        pq.write_table(generate_hands(game, 500, seed=k, start=1000 * k).table, made[-1])
    res = cli("audit", *made, "--out", str(tmp_path / "own"), env=cache)
    assert res.returncode == 0 and json.loads(res.stdout)["compile_ahead"]["compiled"] is False, res.stderr


def _refused(res) -> None:
    """Exit 2 with one line that says what to set, before anything was compiled (no family's line)."""
    assert res.returncode == 2, res.stderr
    assert res.stdout == "" and len(res.stderr.strip().splitlines()) == 1, res.stderr
    assert "Set NUMBA_CACHE_DIR to a folder this user can write" in res.stderr
    assert "nothing was compiled" in res.stderr and "internal error" not in res.stderr


def test_compile_refuses_a_numba_cache_dir_it_cannot_write(tmp_path):
    """NUMBA_CACHE_DIR naming a folder that cannot be made is exit 2 saying so (the code of the
    session's start compiled beside the package instead, silently, and named the folder it had not
    used). The folder lies under a regular file: no user can create it, root included (tests may run
    as root, for whom a read-only mode does not stop a write)."""
    (tmp_path / "file").write_text("a file, not a folder\n")
    cache = tmp_path / "file" / "numba"
    res = cli("compile", env={"NUMBA_CACHE_DIR": str(cache)})
    _refused(res)
    assert f"NUMBA_CACHE_DIR={cache} is not a folder this user can write" in res.stderr


def test_compile_on_a_read_only_install_says_to_set_numba_cache_dir(tmp_path):
    """A read-only install (no writable folder beside the package, nor a user cache folder) and no
    NUMBA_CACHE_DIR: exit 2 saying to set it (a run would compile into a temporary folder of its own,
    so compiling ahead would be in vain). The install is a copy of the package whose every
    ``__pycache__`` is a regular file, and HOME and XDG_CACHE_HOME lie under a regular file: as for
    the test above, a way that holds for root too."""
    import os
    import shutil

    from conftest import ROOT

    site = tmp_path / "site" / "cardbatch"
    shutil.copytree(ROOT / "package", site, ignore=shutil.ignore_patterns("__pycache__"))
    for folder in ("kernels", "batch"):
        shutil.copytree(ROOT / folder, site / folder, ignore=shutil.ignore_patterns("__pycache__"))
    for d in [site, *(p for p in site.rglob("*") if p.is_dir())]:
        (d / "__pycache__").write_text("a file where numba's folder would go\n")
    (tmp_path / "file").write_text("a file, not a folder\n")
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env |= {"PYTHONPATH": str(site.parent), "HOME": str(tmp_path / "file" / "home")}
    env |= {"XDG_CACHE_HOME": str(tmp_path / "file" / "cache")}
    probe = "import cardbatch.kernels, sys; sys.stdout.write(cardbatch.kernels.__file__)"
    # a real process: where an installed package puts its kernels depends on the environment of the process
    assert subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True).stdout.startswith(
        str(site)
    )  # the copy is what runs
    # a real process: the numba cache folder is chosen as the process starts
    res = subprocess.run([sys.executable, "-m", "cardbatch", "compile"], env=env, capture_output=True, text=True)
    _refused(res)
    assert f"neither the package's folder ({site / 'kernels'}) nor the user's cache folder is writable" in res.stderr
