"""Issue #33, item 1: the same results and errors tables written every way on offer, in one run.

Settles one unit of generated Hold'em hands (``--rows``, default 250,000) the way a worker does,
then writes its results (and its errors) with each writer below, best of ``--rounds`` wall
seconds, one thread where the writer lets us choose. Every file is read back by pyarrow, Polars,
DuckDB and pandas and must hold the same rows and, for pyarrow, the documented schema (a list
written as a large list is said so): a writer that changes what readers see is reported, never
kept silently.

    python benchmarks/writers.py --rows 250000 --rounds 3
"""

from __future__ import annotations

import argparse
import os

os.environ.setdefault("POLARS_MAX_THREADS", "1")  # one thread each, as a worker process has one core
import tempfile  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402

import pyarrow as pa  # noqa: E402  (after the thread settings)
import pyarrow.parquet as pq  # noqa: E402


def _pyarrow(**options: object) -> Callable[[pa.Table, str], None]:
    def write(table: pa.Table, path: str) -> None:
        pa.set_cpu_count(1)
        pq.write_table(table, path, **options)

    return write


def _polars(compression: str) -> Callable[[pa.Table, str], None]:
    def write(table: pa.Table, path: str) -> None:
        import polars as pl

        pl.from_arrow(table).write_parquet(path, compression=compression, statistics=False)

    return write


def _duckdb(codec: str) -> Callable[[pa.Table, str], None]:
    def write(table: pa.Table, path: str) -> None:
        import duckdb

        con = duckdb.connect()
        con.execute("SET threads TO 1")
        con.register("t", table)
        con.execute(f"COPY t TO '{path}' (FORMAT parquet, COMPRESSION {codec})")
        con.close()

    return write


TODAY = {"compression": "zstd", "use_dictionary": False, "write_statistics": False}
WRITERS: dict[str, Callable[[pa.Table, str], None]] = {
    "pyarrow zstd (settle parts before #33)": _pyarrow(**TODAY),
    "pyarrow zstd level 1": _pyarrow(**TODAY, compression_level=1),
    "pyarrow lz4 (every file now)": _pyarrow(**{**TODAY, "compression": "lz4"}),
    "pyarrow snappy": _pyarrow(**{**TODAY, "compression": "snappy"}),
    "pyarrow none": _pyarrow(**{**TODAY, "compression": "none"}),
    "pyarrow zstd, data page v2": _pyarrow(**TODAY, data_page_version="2.0"),
    "pyarrow zstd, 8 MiB pages": _pyarrow(**TODAY, data_page_size=8 << 20),
    "pyarrow zstd, byte-stream-split lists": _pyarrow(
        **TODAY, use_byte_stream_split=["score.list.item", "payout.list.item", "net.list.item"]
    ),
    "polars zstd": _polars("zstd"),
    "polars lz4": _polars("lz4"),
    "duckdb zstd": _duckdb("zstd"),
    "duckdb snappy": _duckdb("snappy"),
}


def _read_back(path: str, table: pa.Table) -> str:
    """What the four readers see, against ``table``: "same" or what differs."""
    import duckdb
    import pandas as pd
    import polars as pl

    problems = []
    back = pq.read_table(path)
    if back.schema.remove_metadata() != table.schema.remove_metadata():
        changed = [f"{f.name}: {f.type}" for f in back.schema if f.type != table.schema.field(f.name).type]
        problems.append("pyarrow types " + ", ".join(changed))
    if back.num_rows != table.num_rows or not back.select(["hand_id"]).equals(table.select(["hand_id"])):
        problems.append("pyarrow rows")
    if pl.read_parquet(path).height != table.num_rows:
        problems.append("polars rows")
    if duckdb.sql(f"SELECT count(*) FROM '{path}'").fetchall()[0][0] != table.num_rows:
        problems.append("duckdb rows")
    if len(pd.read_parquet(path)) != table.num_rows:
        problems.append("pandas rows")
    return "same" if not problems else "; ".join(problems)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=250_000)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()

    from cardbatch.batch.generate import generate_hands
    from cardbatch.batch.settle.by_game import settle_table
    from cardbatch.batch.settle.options import SettleOptions
    from cardbatch.batch.settle.outputs import conform_errors, conform_results

    hands = generate_hands("holdem", args.rows, seed=33, bad_rate=0.03).table
    results, errors, _ = settle_table(hands, SettleOptions())
    tables = {"results": conform_results(results), "errors": conform_errors(errors)}
    print(f"{args.rows:,} hands: results {tables['results'].num_rows:,} rows, errors {tables['errors'].num_rows:,}")
    with tempfile.TemporaryDirectory() as folder:
        for kind, table in tables.items():
            print(f"\n[{kind}] best of {args.rounds}; ns a row; file size; what pyarrow, Polars, DuckDB, pandas read")
            base = None
            for name, write in WRITERS.items():
                path = os.path.join(folder, f"{kind}.parquet")
                best = float("inf")
                try:
                    for _ in range(args.rounds):
                        t = time.perf_counter()
                        write(table, path)
                        best = min(best, time.perf_counter() - t)
                except Exception as exc:  # a writer that cannot write this table: say so, go on
                    print(f"  {name:<40} failed: {type(exc).__name__}: {exc}")
                    continue
                base = base or best
                ns = best * 1e9 / max(table.num_rows, 1)
                print(
                    f"  {name:<40} {best * 1e3:8.1f} ms {ns:8.0f} ns/row {base / best:5.2f}x "
                    f"{os.path.getsize(path) / 2**20:7.2f} MiB  {_read_back(path, table)}"
                )


if __name__ == "__main__":
    main()
