"""Writing settle's results table to Parquet: cardbatch's own writer against pyarrow's and Polars',
one thread each, in one run (rows/s; ns a row is 1e3 over the M rows/s; each row's name says the
file's bytes a row).

The table is a results part as ``cardbatch settle`` writes it: Hold'em hands generated and settled
by the commands (``cardbatch generate --hands HANDS``, ``cardbatch settle --workers 1``), the first
part file read back (65,536 rows, 13 columns, five of them lists of ~6 int64s), as in a run.
Each round writes a fresh file (the previous one is deleted before the round, untimed), with the
options of every file cardbatch writes (lz4, no dictionary, no statistics), in one row group:

- cardbatch's writer (``cardbatch.batch.io.parquet_write``), what ``storage.parquet_writer`` now gives;
- pyarrow's ``ParquetWriter`` with those options (``pa.set_cpu_count(1)``);
- Polars' ``write_parquet`` (lz4, no statistics; ``POLARS_MAX_THREADS=1``), the conversion from the
  Arrow table included, as a caller holding the table pays it. Polars writes its own schema (lists
  as large lists, a narrower Arrow schema read back): faster, but not what readers get today.

After the rounds every file is read back by pyarrow: cardbatch's must hold the table's rows and
pyarrow's file's exact schema, or the benchmark fails. ``CARDBATCH_BENCH_WRITER_HANDS`` sets the
hands (CI's smoke run takes fewer).
"""

from __future__ import annotations

import os

os.environ.setdefault("POLARS_MAX_THREADS", "1")  # one thread, as a worker process has one core
import subprocess  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

import pyarrow as pa  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402
import pytest  # noqa: E402

from cardbatch.batch.io import storage  # noqa: E402
from cardbatch.batch.io.parquet_write import ParquetWriter  # noqa: E402

HANDS = int(os.environ.get("CARDBATCH_BENCH_WRITER_HANDS", 200_000))
GROUP = "Parquet writers: settle's results table, one thread"
ROUNDS = 15


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> pa.Table:
    folder = tmp_path_factory.mktemp("writers")
    hands, out = folder / "h.parquet", folder / "o"
    for args in (("generate", "--hands", HANDS, "--out", hands), ("settle", hands, "--out", out, "--workers", 1)):
        cmd = [sys.executable, "-m", "cardbatch", *(str(a) for a in args), "-q"]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return pq.read_table(sorted((out / "results" / "game=holdem").glob("*.parquet"))[0])


@pytest.fixture(scope="module", autouse=True)
def one_pyarrow_thread():
    before = pa.cpu_count()
    pa.set_cpu_count(1)
    yield
    pa.set_cpu_count(before)


def _ours(table: pa.Table, path: str) -> None:
    with ParquetWriter(path, table.schema) as writer:
        writer.write_table(table, row_group_size=storage.ROW_GROUP_MAX)


def _pyarrow(table: pa.Table, path: str) -> None:
    with pq.ParquetWriter(path, table.schema, **storage.WRITE_OPTIONS) as writer:
        writer.write_table(table, row_group_size=storage.ROW_GROUP_MAX)


def _polars(table: pa.Table, path: str) -> None:
    import polars as pl

    pl.from_arrow(table).write_parquet(path, compression="lz4", statistics=False)


def _run(benchmark, throughput, table: pa.Table, path: Path, write, name: str, ours: bool = False) -> None:
    """Time ``write`` into a fresh ``path`` each round; the row's name gets the file's bytes a row."""

    def fresh():
        if path.exists():
            path.unlink()
        return (), {}

    write(table, str(path))
    per_row = path.stat().st_size / max(table.num_rows, 1)
    benchmark.extra_info.update(bytes_per_row=round(per_row, 2))
    throughput(
        benchmark,
        GROUP,
        f"{name} ({per_row:.1f} B/row)",
        table.num_rows,
        lambda: write(table, str(path)),
        ours=ours,
        rounds=ROUNDS,
        unit="rows",
        setup=fresh,
    )


def test_cardbatch_writer(benchmark, throughput, results, tmp_path):
    path = tmp_path / "ours.parquet"
    _run(benchmark, throughput, results, path, _ours, "cardbatch's writer (parquet_write)", ours=True)
    theirs = tmp_path / "theirs.parquet"
    _pyarrow(results, str(theirs))
    got, want = pq.read_table(path), pq.read_table(theirs)
    assert got.equals(results) and got.schema.equals(want.schema, check_metadata=True)


@pytest.mark.peer
def test_pyarrow_writer(benchmark, throughput, results, tmp_path):
    version = pa.__version__
    _run(benchmark, throughput, results, tmp_path / "pyarrow.parquet", _pyarrow, f"pyarrow {version} ParquetWriter")


@pytest.mark.peer
def test_polars_writer(benchmark, throughput, results, tmp_path):
    pl = pytest.importorskip("polars")
    name = f"polars {pl.__version__} write_parquet (its own schema: large lists)"
    _run(benchmark, throughput, results, tmp_path / "polars.parquet", _polars, name)
