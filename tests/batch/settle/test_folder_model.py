"""A model of the output folder, checked by random sequences of what users do (hypothesis' stateful
testing): runs in every mode with one or two workers, locally and on Dask, runs killed mid-way
(SIGTERM, SIGKILL), inputs edited, added and removed, user files of any name and content (names
like our parts', Parquet of another schema) and links into and out of ``--out``.

After every step: every user file and link, and everything outside ``--out``, is byte-identical.
After a completed run: the output equals a fresh run's and ``_SUCCESS`` exists; after a stopped
one it does not; a run refused (``--mode error``) changes nothing.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import cli
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule, run_state_machine_as_test
from processes import alive, children

from cardbatch.batch.generate import generate_hands

pytestmark = pytest.mark.slow

BATCH = "60"  # rows per unit: a few hundred rows make several units, so a run can stop between them
NAMES = st.sampled_from(
    [
        "notes.txt",
        "part-aaaaaaaaaaaa-00000.parquet",
        ".part-bbbbbbbbbbbb-00001.parquet.tmp",
        "part-cccccccccccc-00002.json",
        "my.parquet",
        "_SUCCESS.bak",
    ]
)
WHERE = st.sampled_from(
    ["", "results", "results/game=holdem", "results/game=zjh", "errors/game=holdem", "_parts", "mine"]
)


def _snapshot(folder: Path, only: set[str] | None = None) -> dict[str, bytes | str]:
    """Files (content) and links (target) below ``folder``, never through a link; ``only``: those paths."""
    found: dict[str, bytes | str] = {}
    for here, dirs, names in os.walk(folder):
        for name in dirs + names:
            p = Path(here) / name
            rel = str(p.relative_to(folder))
            if only is not None and rel not in only:
                continue
            if p.is_symlink():
                found[rel] = "-> " + os.readlink(p)
            elif p.is_file():
                found[rel] = p.read_bytes()
    return found


def _ours(out: Path) -> dict[str, bytes]:
    """The run's parts by name (results and errors), what a fresh run must equal."""
    manifest = json.loads((out / "_manifest.json").read_text())
    parts = set(manifest["parts"])
    return {
        str(p.relative_to(out)): p.read_bytes()
        for kind in ("results", "errors")
        for p in sorted((out / kind).glob("game=*/part-*.parquet"))
        if not p.is_symlink() and p.stem in parts
    }


class OutputFolder(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.root = Path(tempfile.mkdtemp(prefix="cardbatch-model-"))
        self.inputs = self.root / "in"
        self.out = self.root / "out"
        self.outside = self.root / "outside"
        self.inputs.mkdir()
        self.outside.mkdir()
        (self.outside / "archive.parquet").write_bytes(b"an archive, not ours")
        (self.outside / "keep").mkdir()
        (self.outside / "keep" / "part-dddddddddddd-00000.parquet").write_bytes(b"behind a link")
        self.user: set[str] = set()  # paths below out that are the user's (files and links)
        self.checks = 0
        self.seq = 0
        self.options: list[str] = []
        for _ in range(2):
            self._write_input()

    def teardown(self) -> None:
        STEPS.extend([1] * max(0, self.checks - 1))
        shutil.rmtree(self.root, ignore_errors=True)

    # the inputs ------------------------------------------------------------------------------
    def _write_input(self, name: str | None = None, game: str = "holdem") -> None:
        self.seq += 1
        rows = 100 + 37 * (self.seq % 5)
        table = generate_hands(game, rows, seed=self.seq, start=self.seq * 1000, bad_rate=0.05, tamper_rate=0.02).table
        pq.write_table(table, self.inputs / (name or f"h{self.seq:03d}.parquet"), row_group_size=45)

    @rule(game=st.sampled_from(["holdem", "zjh"]))
    def add_input(self, game: str) -> None:
        self._write_input(game=game)

    @precondition(lambda self: len(list(self.inputs.iterdir())) > 1)
    @rule(k=st.integers(0, 10))
    def remove_input(self, k: int) -> None:
        files = sorted(self.inputs.iterdir())
        files[k % len(files)].unlink()

    @rule(k=st.integers(0, 10))
    def edit_input(self, k: int) -> None:
        files = sorted(self.inputs.iterdir())
        self._write_input(files[k % len(files)].name)

    @rule(rake=st.booleans())
    def change_options(self, rake: bool) -> None:
        self.options = ["--rake-pct", "0.05", "--rake-cap", "30"] if rake else []

    # the user's things in --out ---------------------------------------------------------------
    def _user_path(self, where: str, name: str) -> Path:
        path = self.out / where / name
        rel = str(path.relative_to(self.out))
        if rel in self.user or path.exists() or path.is_symlink():
            path = path.with_name(f"u{self.seq}-{name}")
            self.seq += 1
        return path

    @rule(where=WHERE, name=NAMES, parquet=st.booleans())
    def add_user_file(self, where: str, name: str, parquet: bool) -> None:
        path = self._user_path(where, name)
        path.parent.mkdir(parents=True, exist_ok=True)
        if parquet:  # Parquet of another schema, where readers of our folders would meet it
            pq.write_table(pa.table({"note": [f"the user's {name}"]}), path)
        else:
            path.write_bytes(f"the user's {name}\n".encode())
        self.user.add(str(path.relative_to(self.out)))

    @rule(where=st.sampled_from(["", "results", "errors", "results/game=zjh"]), to_folder=st.booleans())
    def add_link_out(self, where: str, to_folder: bool) -> None:
        """A link inside --out to something outside it (an archive folder or file)."""
        path = self._user_path(where, "game=holdem_monday" if to_folder else "archive.parquet")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.symlink_to(self.outside / ("keep" if to_folder else "archive.parquet"))
        self.user.add(str(path.relative_to(self.out)))

    @precondition(lambda self: (self.out / "results").is_dir())
    @rule()
    def add_link_in(self) -> None:
        """A link outside --out into it (a user's shortcut to the results)."""
        link = self.outside / f"shortcut{self.seq}"
        self.seq += 1
        link.symlink_to(self.out / "results")

    @precondition(lambda self: bool(self.user))
    @rule(k=st.integers(0, 100))
    def remove_user_thing(self, k: int) -> None:
        rel = sorted(self.user)[k % len(self.user)]
        (self.out / rel).unlink()
        self.user.discard(rel)

    # runs -------------------------------------------------------------------------------------
    def _args(self, mode: str, workers: int, engine: str) -> list[str]:
        return [
            "settle",
            str(self.inputs),
            "--batch-rows",
            BATCH,
            "--mode",
            mode,
            "--workers",
            str(workers),
            "--engine",
            engine,
            *self.options,
        ]

    def _equals_a_fresh_run(self) -> None:
        """The output is what a run into a new folder makes of the same inputs and options."""
        fresh = self.root / f"fresh{self.seq}"
        self.seq += 1
        assert cli(*self._args("resume", 1, "local"), "--out", str(fresh), "-q").returncode == 0
        assert _ours(self.out) == _ours(fresh)
        ours, theirs = (json.loads((d / "summary.json").read_text()) for d in (self.out, fresh))
        keys = ("rows_read", "rows_settled", "rows_rejected", "chips_in", "chips_paid", "chips_raked", "inputs")
        assert {k: ours[k] for k in keys} == {k: theirs[k] for k in keys}
        below = [rel for rel in self.user if rel.split("/")[0] in ("results", "errors", "_parts")]
        assert sorted(ours.get("not_ours", [])) == sorted(str(self.out / rel) for rel in below)
        shutil.rmtree(fresh)

    @rule(
        mode=st.sampled_from(["resume", "resume", "overwrite", "error"]),
        workers=st.sampled_from([1, 1, 1, 2]),
        engine=st.sampled_from(["local"] * 11 + ["dask"]),
    )
    def run(self, mode: str, workers: int, engine: str) -> None:
        held = (self.out / "_manifest.json").exists()
        before = _snapshot(self.out) if self.out.exists() else {}
        done = cli(*self._args(mode, workers, engine), "--out", str(self.out), "-q")
        if mode == "error" and held:
            assert done.returncode == 2 and "already holds cardbatch output" in done.stderr
            assert _snapshot(self.out) == {**before, **_snapshot(self.out, {".lock"})}, "a refused run changed nothing"
            return
        assert done.returncode == 0, done.stderr
        assert (self.out / "_SUCCESS").exists()
        self._equals_a_fresh_run()

    @rule(
        sig=st.sampled_from([signal.SIGTERM, signal.SIGKILL]),
        workers=st.sampled_from([1, 2]),
        wait=st.floats(0.3, 2.5),
    )
    def stopped_run(self, sig: int, workers: int, wait: float) -> None:
        cmd = [sys.executable, "-m", "cardbatch", *self._args("resume", workers, "local"), "--out", str(self.out), "-q"]
        before = _snapshot(self.out) if self.out.exists() else {}
        with tempfile.TemporaryFile("w+") as err:  # a file, not a pipe: a dying worker may hold it a moment
            # a real process: what is tested is a run killed mid-way (SIGTERM, SIGKILL)
            proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err, text=True)
            time.sleep(wait)
            workers_seen = children(proc.pid)
            proc.send_signal(sig)
            code = proc.wait(timeout=120)
            deadline = time.time() + 120  # a worker whose parent is gone exits within half a second of its
            while any(alive(w) for w in workers_seen) and time.time() < deadline:  # kernels' compiling
                time.sleep(0.1)
            err.seek(0)
            said = err.read()
        assert code in (0, -signal.SIGKILL, -signal.SIGTERM, 143), said  # -SIGTERM: before its handler was set
        if not (self.out / "_SUCCESS").exists():
            assert code != 0, said
        elif _snapshot(self.out) != {**before, **_snapshot(self.out, {".lock"})}:
            self._equals_a_fresh_run()  # it finished (a SIGKILL may land after _SUCCESS, before the exit)

    # what must hold after every step -----------------------------------------------------------
    @invariant()
    def users_things_untouched(self) -> None:
        if not hasattr(self, "expected"):
            self.expected: dict[str, bytes | str] = {}
        now = _snapshot(self.out, self.user) if self.out.exists() else {}
        for rel in self.user:
            if rel not in self.expected:
                self.expected[rel] = now.get(rel, b"")
        self.expected = {k: v for k, v in self.expected.items() if k in self.user}
        assert now == self.expected

    @invariant()
    def outside_untouched(self) -> None:
        self.checks += 1  # once after the machine is made, then once after each step
        assert (self.outside / "archive.parquet").read_bytes() == b"an archive, not ours"
        assert (self.outside / "keep" / "part-dddddddddddd-00000.parquet").read_bytes() == b"behind a link"


STEPS: list[int] = []  # every rule run, counted: the model must take at least MIN_STEPS in all
MIN_STEPS = int(os.environ.get("CARDBATCH_MODEL_STEPS", "200"))


def test_output_folder_model():
    """Random sequences of steps until at least ``MIN_STEPS`` were taken (several hypothesis runs of
    the machine, each with its own examples)."""
    STEPS.clear()
    runs = 0
    while len(STEPS) < MIN_STEPS:
        run_state_machine_as_test(
            OutputFolder,
            settings=settings(
                max_examples=10,
                stateful_step_count=20,
                deadline=None,
                suppress_health_check=list(HealthCheck),
                database=None,
            ),
        )
        runs += 1
        assert runs < 20, f"only {len(STEPS)} steps in {runs} runs"
    print(f"{len(STEPS)} steps in {runs} run(s) of the model")
