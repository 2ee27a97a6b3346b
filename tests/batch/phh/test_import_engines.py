"""``cardbatch import`` on every engine: the same bytes on one process, two local workers and a Dask
cluster; a run stopped by SIGKILL or SIGTERM publishes nothing and its rerun reuses the parts it
finished; a rerun of a run that had to read every file (a decimal amount) resumes too; s3:// in
and out. One small corpus (a few thousand hands in a handful of tasks) serves every test."""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import S3_BUCKET, TEST_DATA, cli
from processes import staged_parts, stop_once_parts_appear
from pyarrow import fs

from cardbatch.batch.io.jobs import RunOptions
from cardbatch.batch.phh import job as importer
from cardbatch.batch.phh.job import ImportOptions, errors_path, run_import

SAMPLES = sorted((TEST_DATA / "phh").rglob("*.phh"))
PHHS_FILES, PHHS_HANDS = 5, 1_200  # each .phhs one task (two would pass TASK_HANDS together)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    """Five .phhs files of 1,200 hands (every sample hand, and one of a variant no game has, set
    aside) and the sample one-hand files in a folder: 6,084 hands, 5 tasks."""
    folder = tmp_path_factory.mktemp("phh") / "in"
    texts = [p.read_text(encoding="utf-8") for p in SAMPLES]
    texts.append(texts[0].replace("variant = 'NT'", "variant = 'XX'", 1))  # the errors file is not empty
    for f in range(PHHS_FILES):
        body = "".join(f"[{i + 1}]\n{texts[(f * PHHS_HANDS + i) % len(texts)]}\n" for i in range(PHHS_HANDS))
        (folder / f"big-{f}.phhs").parent.mkdir(parents=True, exist_ok=True)
        (folder / f"big-{f}.phhs").write_text(body, encoding="utf-8")
    for p in SAMPLES:
        (folder / "one" / p.parent.name).mkdir(parents=True, exist_ok=True)
        (folder / "one" / p.parent.name / p.name).write_text(p.read_text(encoding="utf-8"), encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def reference(corpus, tmp_path_factory) -> dict:
    """The single-process run's two files, byte for byte."""
    out = tmp_path_factory.mktemp("ref") / "h.parquet"
    res = cli("import", str(corpus), "--out", str(out), "--workers", "1")
    assert res.returncode == 0, res.stderr
    parts = json.loads(res.stdout)["parts"]
    return {"hands": out.read_bytes(), "errors": Path(errors_path(str(out))).read_bytes(), "parts": parts}


def _same(out: Path, reference: dict) -> None:
    assert out.read_bytes() == reference["hands"]
    assert Path(errors_path(str(out))).read_bytes() == reference["errors"]
    assert not [p.name for p in out.parent.iterdir() if p.name.startswith(".")], "staging or temporary left"


def test_the_corpus_is_several_tasks_with_hands_set_aside(reference, tmp_path):
    hands = pq.read_table(pa.BufferReader(reference["hands"]))
    errors = pq.read_table(pa.BufferReader(reference["errors"]))
    assert hands.num_rows + errors.num_rows == PHHS_FILES * PHHS_HANDS + len(SAMPLES)
    assert errors.num_rows > 0 and len(set(hands.column("hand_id").to_pylist())) == hands.num_rows
    assert reference["parts"] == PHHS_FILES  # the one-hand files go with the last .phhs


@pytest.mark.slow  # two spawned workers
def test_two_local_workers_write_the_same_bytes(corpus, reference, tmp_path):
    out = tmp_path / "h.parquet"
    res = cli("import", str(corpus), "--out", str(out), "--workers", "2", "-q")
    assert res.returncode == 0, res.stderr
    _same(out, reference)


@pytest.mark.slow  # a Dask LocalCluster
def test_a_dask_cluster_writes_the_same_bytes(corpus, reference, tmp_path, dask_scheduler):
    out = tmp_path / "h.parquet"
    res = cli("import", str(corpus), "--out", str(out), "--engine", "dask", "--scheduler", dask_scheduler)
    assert res.returncode == 0, res.stderr
    summary = json.loads(res.stdout)
    assert summary["engine"] == "dask" and summary["workers"] == 2 and summary["parts_reused"] == 0
    _same(out, reference)


PART = "part-*.hands.arrow"  # a finished unit's part


@pytest.mark.slow  # a real process stopped mid-run, then a rerun
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_a_stopped_import_publishes_nothing_and_its_rerun_reuses_the_parts(corpus, reference, tmp_path, sig):
    out = tmp_path / "h.parquet"
    cmd = [sys.executable, "-m", "cardbatch", "import", str(corpus), "--out", str(out), "--workers", "1", "-q"]
    # a real process: what is tested is a signal (SIGKILL runs no handler) while it writes parts
    code, err, living = stop_once_parts_appear(cmd, out, sig, PART)
    assert not living, "a worker outlived its parent"
    assert code == (-9 if sig == signal.SIGKILL else 143), err
    assert not out.exists() and not Path(errors_path(str(out))).exists()
    finished = len(staged_parts(out, PART))
    assert 1 <= finished < PHHS_FILES
    res = cli("import", str(corpus), "--out", str(out), "--workers", "1")
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["parts_reused"] >= finished
    assert "finished parts of an earlier run" in res.stderr
    _same(out, reference)


HU = """variant = 'NT'
antes = [0, 0]
blinds_or_straddles = [{sb}, {bb}]
min_bet = {bb}
starting_stacks = [100, 100]
actions = ['d dh p1 AsAd', 'd dh p2 KsKd', 'p2 cbr 3', 'p1 cc', 'd db 2c7h9s', 'p1 cc', 'p2 cc', 'd db 3d', 'p1 cc',
 'p2 cc', 'd db Jc', 'p1 cc', 'p2 cc', 'p1 sm AsAd', 'p2 sm KsKd']
finishing_stacks = [103, 97]
"""


def test_a_rerun_of_a_run_that_read_every_file_resumes(tmp_path, monkeypatch):
    """The last one-hand file needs chip factor 2: the run restarts reading every file, and is
    stopped there; its rerun goes straight to reading every file and reuses what it finished."""
    d = tmp_path / "in"
    d.mkdir()
    for k in range(12):
        (d / f"h{k:02d}.phh").write_text(HU.format(sb=1, bb=2) if k < 11 else HU.format(sb="0.5", bb=1))
    monkeypatch.setattr(importer, "TASK_HANDS", 2)
    plans: list[bool] = []
    real_plan, real_task = importer.plan, importer.import_task
    monkeypatch.setattr(importer, "plan", lambda *a, **k: plans.append(k.get("lazy", False)) or real_plan(*a, **k))
    calls = []

    def stopped(task):
        calls.append(task.index)
        if len(calls) == 6 + 3:  # the lazy run's six tasks (the last one finds the decimal), then three
            raise KeyboardInterrupt
        return real_task(task)

    monkeypatch.setattr(importer, "import_task", stopped)
    out = str(tmp_path / "h.parquet")
    options = ImportOptions(run=RunOptions(workers=1, quiet=True))
    with pytest.raises(KeyboardInterrupt):
        run_import([str(d)], out, options)
    assert plans == [True, False] and not os.path.exists(out)
    plans.clear()
    s = run_import([str(d)], out, options)
    assert plans == [False] and s["parts_reused"] == 2 and s["chip_factor"] == 2 and s["hands_imported"] == 12
    told = run_import([str(d)], str(tmp_path / "told.parquet"), ImportOptions(chip=2, run=options.run))
    assert told["hands_imported"] == 12
    assert Path(out).read_bytes() == (tmp_path / "told.parquet").read_bytes()
    # a changed input is another plan: nothing of it is reused
    monkeypatch.setattr(importer, "import_task", real_task)
    os.utime(d / "h00.phh", ns=(1, 1))
    assert run_import([str(d)], out, options)["parts_reused"] == 0


@pytest.mark.slow  # a moto S3 server and a real process
def test_s3_in_and_out(corpus, reference, s3_server):
    env, s3 = s3_server
    for p in sorted(corpus.rglob("*.phh*")):
        with s3.open_output_stream(f"{S3_BUCKET}/phh/{p.relative_to(corpus).as_posix()}") as f:
            f.write(p.read_bytes())
    out = f"s3://{S3_BUCKET}/imported/h.parquet"
    res = cli("import", f"s3://{S3_BUCKET}/phh/", "--out", out, "--workers", "2", "-q", env=env)
    assert res.returncode == 0, res.stderr
    for name, kind in (("h.parquet", "hands"), ("h.errors.parquet", "errors")):
        with s3.open_input_stream(f"{S3_BUCKET}/imported/{name}") as f:
            assert f.read() == reference[kind], name
    listed = s3.get_file_info(fs.FileSelector(f"{S3_BUCKET}/imported", recursive=True))
    assert sorted(i.base_name for i in listed) == ["h.errors.parquet", "h.parquet"]  # no staging left
    # a glob of s3 objects, read beside a local file
    res = cli(
        "import", f"s3://{S3_BUCKET}/phh/big-*.phhs", str(SAMPLES[0]), "--out", f"s3://{S3_BUCKET}/g.parquet", env=env
    )
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["files"] == PHHS_FILES + 1


def test_the_help_names_the_small_run_the_job_keeps_in_process():
    from cardbatch.batch.cli import build_parser

    help_text = " ".join(build_parser()._subparsers._group_actions[0].choices["import"].format_help().split())
    assert f"at most {importer.SMALL_HANDS:,} hands runs in this process" in help_text
