"""Real worker processes seen through /proc, for the tests that stop a run (Linux only)."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path


def children(pid: int) -> list[int]:
    """The child processes of ``pid`` (every thread's), empty once it is gone."""
    found = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            found += [int(c) for c in Path(f"/proc/{pid}/task/{task}/children").read_text().split()]
    except FileNotFoundError:
        pass
    return found


def alive(pid: int) -> bool:
    """Running, not gone and not a zombie."""
    try:
        return "State:\tZ" not in Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False


def stop_when_workers_run(
    cmd: list[str], sig: int, env: dict | None = None, wait: float = 1.0
) -> tuple[int, str, list[int]]:
    """Start ``cmd``, send ``sig`` ``wait`` seconds after two of its workers run; returns the exit
    status, stderr and the workers' pids, once every worker is gone (or 10 s passed)."""
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 60
    while len(children(proc.pid)) < 2 and time.time() < deadline:
        time.sleep(0.1)
    workers = children(proc.pid)
    assert len(workers) >= 2, "the workers never started"
    time.sleep(wait)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=30)
    deadline = time.time() + 10
    while any(alive(w) for w in workers) and time.time() < deadline:
        time.sleep(0.2)
    return proc.returncode, err, workers


def staged_parts(out: Path, pattern: str = "part-*") -> list[Path]:
    """The finished parts (``pattern``) in the staging folder of the output ``out`` (``.NAME.parts``
    beside it, in the folder of the plan's digest)."""
    return sorted(p for p in out.parent.glob(f".{out.name}.parts/*/{pattern}") if not p.name.endswith(".tmp"))


def stop_once_parts_appear(
    cmd: list[str], out: Path, sig: int, pattern: str = "part-*", env: dict | None = None
) -> tuple[int, str, list[int]]:
    """Start ``cmd``, send ``sig`` as soon as the staging folder of ``out`` holds a finished part
    (``pattern``); returns the exit status, stderr and the worker processes still alive 10 s after
    it ended (none, when workers die with their run)."""
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 120
    while not staged_parts(out, pattern) and proc.poll() is None and time.time() < deadline:
        time.sleep(0.01)
    workers = children(proc.pid)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    deadline = time.time() + 10
    while any(alive(w) for w in workers) and time.time() < deadline:
        time.sleep(0.1)
    return proc.returncode, err, [w for w in workers if alive(w)]


def stopped_cleanly(cmd: list[str], out: Path, sig: int, status: int, pattern: str = "part-*") -> list[Path]:
    """:func:`stop_once_parts_appear`, then what every stopped run must show: the exit status, the
    resume line after SIGTERM, no worker left, no file at ``out``; returns the parts it finished."""
    from cardbatch.batch.io.lifecycle import RESUME

    code, err, living = stop_once_parts_appear(cmd, out, sig, pattern)
    assert code == status, err
    if status == 143:
        assert err.strip().splitlines()[-1] == RESUME
    assert not living, "a worker outlived its parent"
    assert not out.exists()
    return staged_parts(out, pattern)
