"""Today's code frozen as it was before issue #33 (commit c9257e0), run beside ours in one benchmark.

The baseline is that commit's own source, exported with ``git archive`` into
``data/generated/baseline-<commit>/`` (once), and run in a long-lived process of
its own whose ``sys.path`` puts that tree's ``src`` first: every module, kernel
and writer of the old path, with its own numba cache beside its sources. The
benchmark sends it one command a round and times the round trip, so what is
timed is the work (worker start-up included, as in ours), never its import.

    python benchmarks/baseline.py data/generated/holdem_5000000.parquet   # one settle, its seconds
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COMMIT = os.environ.get("CARDBATCH_BASELINE", "c9257e0")  # main before #33 (the issue measured c2f7f33)

_SERVER = r"""
import json, shutil, sys, tempfile, time
sys.path.insert(0, sys.argv[1])
import cardbatch
assert cardbatch.__file__.startswith(sys.argv[1]), cardbatch.__file__
from cardbatch.batch.settle.job import settle_files
from cardbatch.batch.settle.options import SettleOptions
if __name__ == "__main__":
    for line in sys.stdin:
        args = json.loads(line)
        out = tempfile.mkdtemp()
        t = time.perf_counter()
        s = settle_files(args["inputs"], out, SettleOptions(), workers=args["workers"], quiet=True)
        took = time.perf_counter() - t
        shutil.rmtree(out)
        print(json.dumps({"seconds": took, "rows": s["rows_read"]}), flush=True)
"""


def tree(commit: str = COMMIT) -> Path:
    """A commit's source tree (exported from git on first use, under data/generated/); its ``src``
    holds ``cardbatch``, and its kernels' numba cache lives beside them."""
    where = ROOT / "data" / "generated" / f"baseline-{commit}"
    if not (where / "src" / "cardbatch").exists():
        where.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", "--format=tar", commit], capture_output=True, check=True
        ).stdout
        tar = where / "source.tar"
        tar.write_bytes(archive)
        with tarfile.open(tar) as t:
            t.extractall(where, filter="tar")
        tar.unlink()
    return where


class Baseline:
    """A process running the frozen commit's ``settle_files``; :meth:`settle` runs it once."""

    def __init__(self) -> None:
        src = tree() / "src"
        script = tree() / "baseline_server.py"
        script.write_text(_SERVER)
        self.proc = subprocess.Popen(
            [sys.executable, str(script), str(src)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=str(tree()),
        )

    def settle(self, inputs: list[str], workers: int = 2) -> dict:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        paths = [str(Path(p).resolve()) for p in inputs]
        self.proc.stdin.write(json.dumps({"inputs": paths, "workers": workers}) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("the baseline process stopped")
        return dict(json.loads(line))

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        self.proc.wait(timeout=60)


if __name__ == "__main__":
    b = Baseline()
    try:
        b.settle([sys.argv[1]])  # compile and fill the baseline's cache
        t = time.perf_counter()
        print(b.settle([sys.argv[1]]), f"round trip {time.perf_counter() - t:.2f} s")
    finally:
        b.close()
