"""`generate` on every engine: the same seed writes the same bytes whatever the engine, the workers
and the unit size; a run stopped mid-way (SIGKILL, SIGTERM) leaves no file at `--out` and its rerun
reuses the parts it finished; the output may be an s3:// URI. One small file (four units of CHUNK
rows) is the reference of every test here."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from conftest import S3_BUCKET, cli
from processes import stopped_cleanly

from cardbatch.batch.generate import CHUNK, UNIT_ROWS, GenerateOptions, run
from cardbatch.batch.io.jobs import RunOptions

HANDS = 3 * CHUNK + 1000  # four units of CHUNK rows, the last one short
GROUP = 100_000  # row groups that are not a whole number of CHUNKs
ASKED = {"game": "holdem", "hands": HANDS, "seed": 11, "bad_rate": 0.02, "tamper_rate": 0.01, "row_group": GROUP}
COUNTERS = ("rows", "hand_ids", "injected", "tampered")


def _run(out: Path | str, **how) -> dict:
    return dict(run(GenerateOptions(str(out), **ASKED, **how)).figures)


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> tuple[bytes, dict]:
    """The file and summary of a run in this process, in one unit."""
    out = tmp_path_factory.mktemp("generate") / "ref.parquet"
    figures = _run(out, run=RunOptions(workers=1, quiet=True))
    assert figures["parts"] == 1 and figures["workers"] == 1
    return out.read_bytes(), figures


def _same(out: Path, figures: dict, reference: tuple[bytes, dict]) -> None:
    data, expected = reference
    assert out.read_bytes() == data
    assert {k: figures[k] for k in COUNTERS} == {k: expected[k] for k in COUNTERS}
    assert not (out.parent / f".{out.name}.parts").exists()  # the staging folder goes once the file is out


@pytest.mark.slow  # a few runs of a few units each, about two seconds
def test_the_file_does_not_depend_on_the_unit_size(tmp_path, reference):
    for units in (1, 2):  # units that start inside a CHUNK: they make its rows and keep theirs
        out = tmp_path / f"u{units}.parquet"
        figures = _run(out, unit_rows=units * GROUP, run=RunOptions(workers=1, quiet=True))
        _same(out, figures, reference)
        assert figures["parts"] == -(-HANDS // (units * GROUP))
    groups = pq.ParquetFile(out).metadata
    assert [groups.row_group(i).num_rows for i in range(groups.num_row_groups)] == [100_000] * 3 + [HANDS - 300_000]
    assert figures["injected"] and figures["tampered"]


@pytest.mark.slow  # spawns two worker processes
def test_two_local_workers_write_the_same_bytes(tmp_path, reference):
    out = tmp_path / "w2.parquet"
    figures = _run(out, unit_rows=GROUP, run=RunOptions(workers=2, quiet=True))
    _same(out, figures, reference)
    assert (figures["engine"], figures["workers"], figures["parts"]) == ("local", 2, 4)


@pytest.mark.slow  # a real Dask cluster
def test_a_dask_cluster_writes_the_same_bytes(tmp_path, reference, dask_scheduler):
    out = tmp_path / "dask.parquet"
    figures = _run(out, unit_rows=2 * GROUP, run=RunOptions(engine="dask", scheduler=dask_scheduler, quiet=True))
    _same(out, figures, reference)
    assert (figures["engine"], figures["workers"], figures["parts"]) == ("dask", 2, 2)


def test_unit_rows_is_a_whole_number_of_row_groups():
    with pytest.raises(ValueError, match=r"multiple of row_group \(1,048,576\)"):
        GenerateOptions("x.parquet", unit_rows=CHUNK)
    with pytest.raises(ValueError, match="unit_rows must be a whole number >= 1"):
        GenerateOptions("x.parquet", unit_rows=0)
    assert GenerateOptions("x.parquet", unit_rows=3000, row_group=1000).unit_rows == 3000


def test_the_help_says_the_units_size():
    said = " ".join(cli("generate", "--help").stdout.split())
    assert f"each making {UNIT_ROWS:,} rows at a time" in said and f"a run of at most {UNIT_ROWS:,} rows" in said


def test_the_command_takes_the_engine_options_and_refuses_a_folder_it_did_not_make(tmp_path):
    out = tmp_path / "g.parquet"
    res = cli("generate", "--hands", "50", "--scheduler", "tcp://127.0.0.1:1", "--out", str(out))
    assert res.returncode == 2 and "needs --engine dask" in res.stderr and not out.exists()
    res = cli("generate", "--hands", "50", "--workers", "2", "--out", str(out))
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["workers"] == 1  # one unit: run in this process
    mine = tmp_path / ".h.parquet.parts"
    mine.mkdir()
    (mine / "notes.txt").write_text("mine")
    res = cli("generate", "--hands", "50", "--out", str(tmp_path / "h.parquet"))
    assert res.returncode == 2 and "cardbatch did not make it" in res.stderr, res.stderr
    assert (mine / "notes.txt").read_text() == "mine" and not (tmp_path / "h.parquet").exists()


# The job with units of a row group on two local workers, as the command runs it (SIGTERM handled):
# unit_rows is a Python option, so a real process runs the job through Python.
_SCRIPT = """
import json
import sys
from cardbatch.batch.generate import GenerateOptions, run
from cardbatch.batch.io.jobs import RunOptions
from cardbatch.batch.io.lifecycle import Terminated, install_parent_handlers, stop_message

install_parent_handlers()
asked = json.loads(sys.argv[2]) if len(sys.argv) > 2 else {asked!r}
try:
    unit = asked["row_group"]  # a unit a row group: several units however small the file
    run(GenerateOptions(sys.argv[1], **asked, unit_rows=unit, run=RunOptions(workers=2, quiet=True)))
except (KeyboardInterrupt, Terminated) as exc:
    sys.exit(stop_message(exc))
""".replace("{asked!r}", repr(ASKED))


@pytest.mark.slow  # a real process and its workers, stopped mid-run
@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads /proc to find the workers")
@pytest.mark.parametrize("sig, status", [(signal.SIGKILL, -9), (signal.SIGTERM, 143)])
def test_a_stopped_run_leaves_no_file_and_its_rerun_reuses_its_parts(tmp_path, reference, sig, status):
    out = tmp_path / "stopped.parquet"
    staging = tmp_path / ".stopped.parquet.parts"
    finished = stopped_cleanly([sys.executable, "-c", _SCRIPT, str(out)], out, sig, status)
    again = _run(out, unit_rows=GROUP, run=RunOptions(workers=1, quiet=True))
    assert again["parts_reused"] == len(finished) >= 1
    _same(out, again, reference)
    assert not staging.exists() and not (tmp_path / ".stopped.parquet.tmp").exists()


@pytest.mark.slow  # a moto S3 server and a real process with two workers
def test_generate_writes_to_s3(s3_server, tmp_path):
    env, s3 = s3_server
    asked = {"game": "team2v2", "hands": CHUNK + 1000, "seed": 3, "bad_rate": 0.01, "row_group": 65_536}  # 3 units
    local = tmp_path / "hands.parquet"
    run(GenerateOptions(str(local), **asked, run=RunOptions(workers=1, quiet=True)))
    out = f"s3://{S3_BUCKET}/generate/hands.parquet"
    cmd = [sys.executable, "-c", _SCRIPT, out, json.dumps(asked)]
    res = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    with s3.open_input_stream(f"{S3_BUCKET}/generate/hands.parquet") as f:
        assert f.read() == local.read_bytes()
    from pyarrow import fs

    left = s3.get_file_info(fs.FileSelector(f"{S3_BUCKET}/generate", recursive=True))
    assert [i.base_name for i in left] == ["hands.parquet"]  # no part, plan or folder marker left
