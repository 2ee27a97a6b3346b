"""Peak resident memory of a settle worker, ours against the frozen command before issue #33.

Each run is a fresh process that settles the benchmark's 5 M-hand file with 2 workers and reads
``getrusage(RUSAGE_CHILDREN).ru_maxrss``: the largest worker's peak. The frozen command is the
commit's own source (see baseline.py), put first on ``sys.path`` of its process. Run:

    python benchmarks/worker_memory.py              # twice each, alternating
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from baseline import COMMIT, tree  # noqa: E402

DATA = Path(__file__).resolve().parents[1] / "data" / "generated" / "holdem_5000000.parquet"
ONE = r"""
import resource, shutil, sys, tempfile
if len(sys.argv) > 2:
    sys.path.insert(0, sys.argv[2])
from cardbatch.batch.settle.job import settle_files
from cardbatch.batch.settle.options import SettleOptions
if __name__ == "__main__":
    out = tempfile.mkdtemp()
    settle_files([sys.argv[1]], out, SettleOptions(), workers=2, quiet=True)
    shutil.rmtree(out)
    print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)
"""


def peak(extra: list[str]) -> int:
    """MiB: the largest worker's peak in one run (``extra``: the frozen tree's ``src``, or nothing)."""
    script = Path(tree()) / "worker_memory_run.py"
    script.write_text(ONE)
    out = subprocess.run([sys.executable, str(script), str(DATA), *extra], capture_output=True, text=True, check=True)
    return int(out.stdout.split()[-1])


if __name__ == "__main__":
    for _ in range(2):
        print(f"ours: {peak([])} MiB; {COMMIT}: {peak([str(tree() / 'src')])} MiB")
