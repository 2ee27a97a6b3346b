"""Real worker processes seen through /proc, for the tests that stop a run (Linux only)."""

from __future__ import annotations

import os
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
