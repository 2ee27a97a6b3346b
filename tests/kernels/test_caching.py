"""numba's cache must notice a change in a helper that a cached kernel inlines from another file."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

INIT = """
from pathlib import Path

from cardbatch.kernels.caching import install

install(Path(__file__).parent)
"""
HELPER = """
from numba import njit


@njit(cache=True, inline="always")
def step(x):
    return x + {add}
"""
KERNEL = """
from numba import njit

from .helper import step


@njit(cache=True)
def kernel(x):
    return step(x) * 2
"""


def _package(root: Path, name: str, stamped: bool, add: int) -> None:
    pkg = root / name
    pkg.mkdir(exist_ok=True)
    (pkg / "__init__.py").write_text(textwrap.dedent(INIT) if stamped else "")
    (pkg / "helper.py").write_text(textwrap.dedent(HELPER.format(add=add)))
    (pkg / "kernel.py").write_text(textwrap.dedent(KERNEL))


def _run(root: Path, name: str) -> int:
    code = f"import sys; sys.path.insert(0, {str(root)!r}); from {name}.kernel import kernel; print(kernel(1))"
    # a real process: numba reads its cache when a process first compiles, so each check needs a fresh one
    return int(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)


@pytest.mark.parametrize("stamped", [True, False])
def test_a_changed_helper_recompiles_its_callers(tmp_path, stamped):
    name = "stamped_pkg" if stamped else "plain_pkg"
    _package(tmp_path, name, stamped, add=1)
    assert _run(tmp_path, name) == 4  # (1 + 1) * 2, compiled and cached
    assert list((tmp_path / name / "__pycache__").glob("kernel.kernel-*.nbi"))
    _package(tmp_path, name, stamped, add=10)  # only the helper's file changes
    if stamped:
        assert _run(tmp_path, name) == 22
    else:  # numba alone keeps the stale build: the reason cardbatch.kernels installs the stamp
        assert _run(tmp_path, name) == 4, "numba now tracks other files: kernels/caching.py may go"


def test_the_fingerprint_follows_every_source_and_table(tmp_path):
    from cardbatch.kernels.caching import fingerprint

    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "t.npz").write_bytes(b"table")
    (tmp_path / "notes.txt").write_text("ignored")
    before = fingerprint(tmp_path)
    (tmp_path / "notes.txt").write_text("still ignored")
    assert fingerprint(tmp_path) == before
    (tmp_path / "t.npz").write_bytes(b"table2")
    assert fingerprint(tmp_path) != before


def test_a_kernel_numba_cannot_cache_still_runs(tmp_path):
    """numba warns and runs uncached a kernel it cannot cache (one that asks for its thread count):
    our locator once lacked the attribute numba's warning names, and such a kernel crashed."""
    pkg = tmp_path / "uncachable_pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(textwrap.dedent(INIT))
    (pkg / "kernel.py").write_text(
        "from numba import get_num_threads, njit\n\n\n@njit(cache=True)\ndef kernel(x):\n"
        "    return x + 0 * get_num_threads()\n"
    )
    code = f"import sys; sys.path.insert(0, {str(tmp_path)!r})\n"
    code += "from uncachable_pkg.kernel import kernel\nprint(kernel(3))"
    # a real process: the changed helper must be read by a fresh interpreter, as the next run would
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "3"
    assert "Cannot cache" in res.stderr
