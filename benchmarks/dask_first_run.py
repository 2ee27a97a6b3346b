"""The first run on an external Dask cluster, from an empty numba cache: wall seconds of
``cardbatch settle`` on the samples with a scheduler and two single-thread workers started apart,
as on a cluster (each worker's own, empty cache: every worker compiles what the run needs). Run:

    python benchmarks/dask_first_run.py            # prints the first run's and the second run's seconds

    python benchmarks/dask_first_run.py --compile-first   # the workers' caches filled by
                                                          # `cardbatch compile` first (an image's build step)

With ``PYTHONPATH`` pointing at another checkout's package, the same figures for that code.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _start(args: list[str], env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--compile-first", action="store_true", help="fill the workers' caches with `cardbatch compile`")
    a = ap.parse_args()
    samples = sorted(str(p) for p in (ROOT / "data").glob("*_sample.parquet"))
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "PYTHONWARNINGS": "ignore"}
        if a.compile_first:  # once, then copied: both workers' images hold the same cache
            t0 = time.perf_counter()
            compiled = {**env, "NUMBA_CACHE_DIR": f"{tmp}/cache0"}
            subprocess.run([sys.executable, "-m", "cardbatch", "compile", "-q"], env=compiled, check=True)
            shutil.copytree(f"{tmp}/cache0", f"{tmp}/cache1")
            print(f"cardbatch compile (the image's build step): {time.perf_counter() - t0:.1f} s")
        scheduler = _start(
            [sys.executable, "-m", "distributed.cli.dask_scheduler", "--port", "0", "--no-dashboard"], env
        )
        address = None
        assert scheduler.stdout is not None
        for line in scheduler.stdout:  # the scheduler prints its address once it listens
            m = re.search(r"Scheduler at:\s+(tcp://\S+)", line)
            if m:
                address = m.group(1)
                break
        workers = [
            _start(
                [
                    sys.executable,
                    "-m",
                    "distributed.cli.dask_worker",
                    str(address),
                    "--nthreads",
                    "1",
                    "--no-dashboard",
                ],
                {**env, "NUMBA_CACHE_DIR": f"{tmp}/cache{i}"},  # each worker its own machine's cache
            )
            for i in range(2)
        ]
        try:
            time.sleep(3)  # the workers register
            cold = "caches filled by cardbatch compile" if a.compile_first else "empty caches"
            for label in (f"first run, {cold}", "second run"):
                out = f"{tmp}/out-{label[:5]}"
                t0 = time.perf_counter()
                res = subprocess.run(
                    [
                        sys.executable,
                        "-m",
                        "cardbatch",
                        "settle",
                        *samples,
                        "--engine",
                        "dask",
                        "--scheduler",
                        str(address),
                    ]
                    + ["--out", out],
                    capture_output=True,
                    text=True,
                    env={**env, "NUMBA_CACHE_DIR": f"{tmp}/client-cache"},
                )
                wall = time.perf_counter() - t0
                if res.returncode:
                    raise SystemExit(res.stderr)
                warm = json.loads(res.stdout).get("compile_ahead")
                print(f"{label}: {wall:.1f} s; compile_ahead: {warm}")
        finally:
            for p in [*workers, scheduler]:
                p.terminate()
            for p in [*workers, scheduler]:
                p.wait(timeout=30)


if __name__ == "__main__":
    main()
