"""End-to-end batch throughput against the I/O ceiling measured in the same run.

The ceiling is what the disk and Parquet allow for this job: the same 2
processes read the same row groups (every column: rejected rows keep their
original columns) and write the results of `cardbatch settle` — the same nine columns,
the same types and list lengths — filled from input columns instead of
computed. Ours is ``cardbatch settle`` through the local engine. A second,
narrower ceiling (6 input columns read, 5 result columns written) is kept for
comparison with earlier figures: the job cannot reach it, since writing the
nine result columns alone takes longer. The generated file is cached under
data/generated/.
"""

from __future__ import annotations

import concurrent.futures as cf
import json
import multiprocessing as mp
import os
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from cardbatch.batch.io import storage
from cardbatch.batch.io.jobs import RunOptions
from cardbatch.batch.settle.job import settle_files
from cardbatch.batch.settle.options import SettleOptions

HANDS = int(os.environ.get("CARDBATCH_BENCH_HANDS", 5_000_000))
ROW_GROUP = 250_000
DATA = Path(__file__).resolve().parents[1] / "data" / "generated" / f"holdem_{HANDS}.parquet"


@pytest.fixture(scope="module")
def big_file():
    if not DATA.exists():
        from cardbatch.batch.generate import GenerateOptions, write

        write(
            GenerateOptions(
                out=str(DATA), hands=HANDS, game="holdem", seed=2026, max_seats=9, bad_rate=0.001, row_group=ROW_GROUP
            )
        )
    return DATA


def _copy_unit(path: str, groups: list[int], out: str, narrow: bool) -> int:
    pf = pq.ParquetFile(path)
    if narrow:
        t = pf.read_row_groups(groups, columns=["hand_id", "cards", "board", "contrib", "folded", "payout"])
        res = pa.table(
            {
                "hand_id": t.column("hand_id"),
                "score": t.column("contrib"),
                "category": t.column("folded"),
                "payout": t.column("payout"),
                "net": t.column("contrib"),
            }
        )
    else:
        t = pf.read_row_groups(groups)
        n = t.num_rows
        res = pa.table(
            {
                "hand_id": t.column("hand_id"),
                "score": t.column("contrib").cast(pa.list_(pa.uint32()), safe=False),
                "category": t.column("folded").cast(pa.list_(pa.uint8()), safe=False),
                "payout": t.column("payout"),
                "net": t.column("contrib"),
                "rake": pa.array(np.zeros(n, np.int64)),
                "pots": pa.array(np.ones(n, np.int16)),
                "recorded_payout": t.column("payout"),
                "mismatch": pa.array(np.zeros(n, np.bool_)),
            }
        )
    pq.write_table(res, out, **storage.WRITE_OPTIONS)  # the options of every file settle writes
    return t.num_rows


def _ceiling(path: Path, workdir: str, narrow: bool = False) -> int:
    n = pq.ParquetFile(path).metadata.num_row_groups
    with cf.ProcessPoolExecutor(2, mp_context=mp.get_context("spawn")) as pool:
        futs = [
            pool.submit(_copy_unit, str(path), [g], os.path.join(workdir, f"{g}.parquet"), narrow) for g in range(n)
        ]
        return sum(f.result() for f in futs)


def test_io_ceiling_read_write_no_kernels(benchmark, throughput, big_file):
    with tempfile.TemporaryDirectory() as d:
        throughput(
            benchmark,
            "batch: 5M hold'em hands end to end",
            "ceiling: read all, write results shape",
            HANDS,
            lambda: _ceiling(big_file, d),
            threads=2,
            rounds=3,
        )


def test_io_ceiling_narrow(benchmark, throughput, big_file):
    with tempfile.TemporaryDirectory() as d:
        throughput(
            benchmark,
            "batch: 5M hold'em hands end to end",
            "narrow ceiling: 6 cols in, 5 cols out",
            HANDS,
            lambda: _ceiling(big_file, d, narrow=True),
            threads=2,
            rounds=3,
        )


def test_settle_local_engine(benchmark, throughput, big_file):
    def once():
        d = tempfile.mkdtemp()
        try:
            return settle_files([str(big_file)], d, SettleOptions(), workers=2, quiet=True)  # the CLI defaults
        finally:
            shutil.rmtree(d)

    once()  # compile and fill numba's cache in the workers
    throughput(
        benchmark,
        "batch: 5M hold'em hands end to end",
        "cardbatch settle (local engine, 2 workers)",
        HANDS,
        once,
        threads=2,
        rounds=3,
        ours=True,
    )


def test_settle_frozen_before_issue_33(benchmark, throughput, big_file):
    """The same command as it was before issue #33 (commit c9257e0, its own source and numba cache,
    in a process of its own: see baseline.py): the ratio to ours is the issue's speed-up, in one run."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from baseline import COMMIT, Baseline

    frozen = Baseline()
    try:
        frozen.settle([str(big_file)])  # compile and fill the baseline's own cache
        throughput(
            benchmark,
            "batch: 5M hold'em hands end to end",
            f"cardbatch settle as of {COMMIT} (frozen)",
            HANDS,
            lambda: frozen.settle([str(big_file)]),
            threads=2,
            rounds=3,
        )
    finally:
        frozen.close()


# The shapes real data comes in, each the same hands as ``big_file`` (a): (b) thousands of small files,
# (c) one file of row groups of 1-100 rows, (d) the PHH import's output (its own hands). Each is
# settled by the same command; the summary prints its rate against (a) and its output's layout.
SHAPES = "batch: the same hands in the shapes real data comes in"
SMALL_FILES = int(os.environ.get("CARDBATCH_BENCH_SMALL_FILES", 10_000))


def _shape(name: str, write) -> Path:
    """``data/generated/<name>`` made once by ``write(path)`` (under a temporary name)."""
    path = DATA.parent / name
    if not path.exists():
        tmp = path.with_name(f".{path.name}.tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        write(tmp)
        tmp.rename(path)
    return path


@pytest.fixture(scope="module")
def small_files(big_file):
    def write(folder: Path) -> None:
        folder.mkdir(parents=True)
        table = pq.read_table(big_file)
        per = -(-HANDS // SMALL_FILES)
        for k in range(SMALL_FILES):
            pq.write_table(table.slice(k * per, per), folder / f"part-{k:05d}.parquet", compression="zstd")

    return _shape(f"holdem_{HANDS}_{SMALL_FILES}_files", write)


@pytest.fixture(scope="module")
def tiny_row_groups(big_file):
    def write(folder: Path) -> None:
        folder.mkdir(parents=True)
        table = pq.read_table(big_file)
        sizes = np.random.default_rng(24).integers(1, 101, HANDS)  # row groups of 1..100 rows
        ends = np.minimum(np.cumsum(sizes), HANDS)
        with pq.ParquetWriter(folder / "tiny.parquet", table.schema, compression="zstd") as w:
            start = 0
            for end in ends[: np.searchsorted(ends, HANDS) + 1]:
                w.write_table(table.slice(start, end - start))
                start = end

    return _shape(f"holdem_{HANDS}_tiny_row_groups", write)


def _layout(out: str) -> str:
    """How many result files and row groups a run wrote, and their sizes."""
    files = sorted(Path(out, "results").rglob("*.parquet"))
    groups = [
        m.row_group(g).num_rows for m in (pq.ParquetFile(f).metadata for f in files) for g in range(m.num_row_groups)
    ]
    return (
        f"{len(files)} result files, {len(groups)} row groups of {min(groups):,}..{max(groups):,} rows "
        f"(median {int(np.median(groups)):,})"
    )


def _settle_shape(benchmark, throughput, name: str, inputs: list[str], hands: int, ours: bool = False) -> None:
    d = tempfile.mkdtemp()

    def once():
        shutil.rmtree(d, ignore_errors=True)
        return settle_files(inputs, d, SettleOptions(), workers=2, quiet=True)

    try:
        once()  # compile and fill numba's cache in the workers
        throughput(benchmark, SHAPES, name, hands, once, threads=2, rounds=3, ours=ours)
        s = json.loads(Path(d, "summary.json").read_text())
        print(f"\n{name}: {s['files']:,} input files, {s['parts']:,} parts; {_layout(d)}")
        benchmark.extra_info["layout"] = _layout(d)
    finally:
        shutil.rmtree(d, ignore_errors=True)


def test_shape_a_one_tidy_file(benchmark, throughput, big_file):
    _settle_shape(benchmark, throughput, "(a) one file, 250,000-row row groups", [str(big_file)], HANDS, ours=True)


def test_shape_b_small_files(benchmark, throughput, small_files):
    name = f"(b) {SMALL_FILES:,} files of {-(-HANDS // SMALL_FILES):,} rows"
    _settle_shape(benchmark, throughput, name, [str(small_files)], HANDS)


def test_shape_c_tiny_row_groups(benchmark, throughput, tiny_row_groups):
    _settle_shape(benchmark, throughput, "(c) one file, row groups of 1-100 rows", [str(tiny_row_groups)], HANDS)


def test_shape_d_phh_import_output(benchmark, throughput, tmp_path):
    """(d): the PHH import's output as users get it, at (a)'s size. 20,000 one-hand files are
    imported (their output read back as the job wrote it), and that table, its hand ids renumbered,
    is written again and again through the import's own writer until it holds HANDS hands: the
    import's row groups at the same scale as the other shapes (a job of 20,000 hands measured the
    start-up, not the layout)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from phh_corpus import sample_hands

    from cardbatch.batch.phh.job import ImportOptions, run_import

    n = min(HANDS, int(os.environ.get("CARDBATCH_BENCH_PHH_FILES", 20_000)))
    folder = tmp_path / "phh"
    folder.mkdir()
    texts = sample_hands()
    for k in range(n):
        (folder / f"{k:05d}.phh").write_text(texts[k % len(texts)], encoding="utf-8")
    imported = tmp_path / "hands.parquet"
    run_import([str(folder)], str(imported), ImportOptions(run=RunOptions(quiet=True)))
    one = pq.read_table(imported)
    meta = pq.ParquetFile(imported).metadata
    out = tmp_path / "hands_at_scale.parquet"
    writer = storage.PublishedParquet(str(out), one.schema)
    for start in range(0, HANDS, one.num_rows):
        part = one.slice(0, min(one.num_rows, HANDS - start))
        ids = pa.array(np.arange(start, start + part.num_rows, dtype=np.int64))
        writer.write(part.set_column(part.column_names.index("hand_id"), "hand_id", ids))
    writer.close()
    scaled = pq.ParquetFile(out).metadata
    print(
        f"\n(d) import output: {meta.num_rows:,} hands in {meta.num_row_groups} row group(s); at scale "
        f"{scaled.num_rows:,} hands in {scaled.num_row_groups} row groups"
    )
    _settle_shape(
        benchmark, throughput, f"(d) PHH import output ({n:,} one-hand files, repeated)", [str(out)], scaled.num_rows
    )
