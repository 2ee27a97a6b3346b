"""How a run stops: Ctrl-C, SIGTERM and a killed parent with real worker processes; missing
optional dependencies, bad option values, internal failures and an unwritable numba cache."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from conftest import DATA, cli
from processes import alive, children, stop_when_workers_run


def _said(err: str) -> list[str]:
    """What a stopped run printed on stderr, less the first run's compile note: one line, no traceback."""
    return [line for line in err.strip().splitlines() if not line.startswith("cardbatch: compiling the kernels")]


@pytest.mark.slow  # signals to real processes compiling into an empty cache
@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads /proc to find the workers")
@pytest.mark.parametrize("sig, status", [(signal.SIGINT, 130), (signal.SIGTERM, 143), (signal.SIGKILL, -9)])
def test_a_stopped_run_leaves_no_worker_behind(tmp_path, sig, status):
    # an empty numba cache: the two processes found are the warm-up's, compiling side by side (batch/warmup.py)
    # when the signal comes, so this is also the stop of a run mid-compilation
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    inputs = [str(DATA / "holdem_sample.parquet"), str(DATA / "zjh_sample.parquet")]
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "cardbatch", "settle", *inputs, "--out", str(out), "--workers", "2"]
    # a real process: what is tested is its answer to a signal while its workers compile
    code, err, workers = stop_when_workers_run(cmd, sig, env, wait=2)
    assert code == status, err
    if sig != signal.SIGKILL:
        assert _said(err) == ["interrupted; run the same command again to resume"]
    assert not [w for w in workers if alive(w)], "a worker outlived its parent"
    assert not (out / "summary.json").exists()
    assert not list((out / "results").rglob("*.parquet"))


def test_dask_engine_without_dask_is_a_usage_error(tmp_path, monkeypatch):
    out = tmp_path / "out"
    monkeypatch.setitem(sys.modules, "distributed", None)  # as if Dask were not installed
    res = cli(
        "settle",
        str(DATA / "zjh_sample.parquet"),
        "--out",
        str(out),
        "--engine",
        "dask",
    )
    assert res.returncode == 2
    assert "pip install 'cardbatch[dask]'" in res.stderr and "Traceback" not in res.stderr
    assert not out.exists()


@pytest.mark.parametrize(
    "args, words",
    [
        (("settle", "x.parquet", "--out", "o", "--workers", "-1"), "--workers: must be at least 1, got -1"),
        (("settle", "x.parquet", "--out", "o", "--batch-rows", "0"), "--batch-rows: must be at least 1, got 0"),
        (("settle", "x.parquet", "--out", "o", "--chip-unit", "two"), "--chip-unit: 'two' is not a whole number"),
        (("generate", "--hands", "-5", "--out", "g.parquet"), "--hands: must be at least 1, got -5"),
        (("rank-decks", "--decks", "0", "--out", "r.parquet"), "--decks: must be at least 1, got 0"),
        # from an independent trial: a walk option without --equity was ignored, a budget past int64 or
        # one sample was refused late or in numpy's words
        (("settle", "x.parquet", "--out", "o", "--equity-budget", "5"), "--equity-budget: only with --equity"),
        (("settle", "x.parquet", "--out", "o", "--equity", "--equity-samples", "1"), "must be at least 2, got 1"),
        (("fairness", "x.parquet", "--out", "o", "--equity-budget", "9" * 23), "--equity-budget: must be at most"),
    ],
)
def test_bad_option_values_are_refused_in_our_words(tmp_path, args, words):
    res = cli(*(str(tmp_path / a) if a.endswith(".parquet") or a == "o" else a for a in args))
    assert res.returncode == 2
    assert words in res.stderr and "Traceback" not in res.stderr


def test_an_internal_failure_is_one_line_and_a_log(tmp_path, monkeypatch):
    monkeypatch.setenv("CARDBATCH_FAIL_PART", "part-00000-00000")
    res = cli(
        "settle",
        str(DATA / "zjh_sample.parquet"),
        "--out",
        str(tmp_path / "o"),
        "--workers",
        "1",
        "--quiet",
    )
    assert res.returncode == 1
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "internal error" in lines[0] and "injected failure" in lines[0]
    log = Path(lines[0].split("the full log is ")[1].split(". ")[0])
    assert "Traceback" in log.read_text() and "RuntimeError" in log.read_text()
    log.unlink()


def test_no_writable_cache_compiles_into_a_temporary_folder(tmp_path):
    pkg = tmp_path / "nocache_pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(
        textwrap.dedent("""
        from pathlib import Path

        from numba.core import caching

        from cardbatch.kernels import caching as ours

        impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl
        impl._locator_classes = [c for c in impl._locator_classes if getattr(c, "root", None)]  # nowhere writable
        ours.install(Path(__file__).parent)
    """)
    )
    (pkg / "kernel.py").write_text("from numba import njit\n\n\n@njit(cache=True)\ndef twice(x):\n    return 2 * x\n")
    code = f"import sys; sys.path.insert(0, {str(tmp_path)!r}); from nocache_pkg.kernel import twice; print(twice(21))"
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    # a real process: no writable numba cache is found only by a process that starts without one
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "42"
    note = res.stderr.strip()
    assert note.startswith("cardbatch: no writable numba cache, compiling into ")
    folder = Path(note.split("compiling into ")[1].split(" (")[0])
    assert list(folder.rglob("*.nbi"))


def _tree(pid: int) -> list[int]:
    found = []
    for child in children(pid):
        found += [child, *_tree(child)]
    return found


@pytest.fixture(scope="module")
def many_small_units(tmp_path_factory) -> Path:
    """100,000 generated rows in row groups of 100: a run of 1,000 units that lasts seconds, so a
    signal sent when its first part is written finds it running, however fast the machine."""
    path = tmp_path_factory.mktemp("units") / "hands.parquet"
    done = cli("generate", "--hands", "100000", "--row-group", "100", "--out", str(path), "--quiet")
    assert done.returncode == 0, done.stderr
    return path


@pytest.mark.slow  # signals, a Dask LocalCluster, an empty cache
@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads /proc to find the workers")
@pytest.mark.parametrize(
    "sig, status, when",
    [
        (signal.SIGINT, 130, "running"),
        (signal.SIGTERM, 143, "running"),
        (signal.SIGINT, 130, "compiling"),
        (signal.SIGINT, 130, "starting"),
    ],
)
def test_a_stopped_dask_run_takes_its_local_cluster_along(tmp_path, many_small_units, sig, status, when):
    """Stopped while its units run; as the compiling pool's first process starts (empty cache); or
    as the cluster's first worker starts (warm cache). A process stopped while it receives its
    start-up data, or a cluster stopped half-started, printed a traceback: both are held until up."""
    pytest.importorskip("distributed")
    env = dict(os.environ)
    if when != "running":  # an empty cache of its own: the workers stay busy compiling
        env["NUMBA_CACHE_DIR"] = str(tmp_path / "cache")
    inputs = [str(DATA / "holdem_sample.parquet"), str(DATA / "zjh_sample.parquet")]
    if when == "running":  # 1,000 units of 100 rows: seconds of work left when the first part lands
        inputs = [str(many_small_units), "--batch-rows", "100"]
    cmd = [
        sys.executable,
        "-m",
        "cardbatch",
        "settle",
        *inputs,
        "--out",
        str(tmp_path / "out"),
        "--engine",
        "dask",
        "--workers",
        "2",
    ]
    if when == "starting":
        warm_cmd = [str(tmp_path / "warm") if c == str(tmp_path / "out") else c for c in cmd]
        warm = subprocess.run(warm_cmd, env=env, capture_output=True, text=True)
        assert warm.returncode == 0, warm.stderr
    # a real process: what is tested is its answer to a signal (the warm-up above fills that process's cache)
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 60
    while len(_tree(proc.pid)) < (3 if when == "running" else 1) and time.time() < deadline:
        time.sleep(0.05)
    if when == "running":  # the cluster is up and its workers are in their units
        while not list((tmp_path / "out" / "results").rglob("*.parquet")) and time.time() < deadline:
            time.sleep(0.02)
    processes = _tree(proc.pid)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == status, err
    assert _said(err) == ["interrupted; run the same command again to resume"]
    assert not (tmp_path / "out" / "summary.json").exists()
    deadline = time.time() + 15
    while any(alive(p) for p in processes) and time.time() < deadline:
        time.sleep(0.2)
    assert not [p for p in processes if alive(p)], "a cluster process outlived the run"


_KILLED_MID_SEND = """
import sys, time
from cardbatch.batch.io import lifecycle


def big(i):
    return b"x" * (300 << 20)


if __name__ == "__main__":
    try:
        with lifecycle.process_pool(2, None) as pool:
            futures = [pool.submit(big, i) for i in range(6)]
            time.sleep(1.0)
            raise KeyboardInterrupt
    except KeyboardInterrupt:
        print("stopped", flush=True)
"""


@pytest.mark.slow  # real worker processes killed while they send their records
def test_a_process_whose_workers_were_killed_mid_send_still_exits(tmp_path):
    """From CI: a rank-decks run stopped by SIGTERM printed its line and never exited. A worker
    killed while it sent its record left the pool's manager thread reading a message that never
    ended (the parent held the pipe's other end), and the interpreter's exit joined that thread."""
    script = tmp_path / "killed_mid_send.py"
    script.write_text(_KILLED_MID_SEND)
    # a real process: what is tested is that it exits
    res = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60)
    assert res.returncode == 0 and res.stdout.strip() == "stopped", res.stderr
