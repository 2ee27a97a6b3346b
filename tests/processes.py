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
