"""The output as data engineers open it: one dataset per folder in DuckDB, Polars and pandas, joined
back to the input on hand_id, whatever the input types, with input partition keys kept."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from conftest import ROOT, SAMPLES

from cardbatch.batch.settle.job import settle_files
from cardbatch.batch.settle.options import SettleOptions
from cardbatch.batch.settle.outputs import ERROR_SCHEMA, RESULT_SCHEMA

duckdb = pytest.importorskip("duckdb")
pl = pytest.importorskip("polars")
pd = pytest.importorskip("pandas")


@pytest.fixture(scope="module")
def sample_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("sample") / "out"
    return out, settle_files(SAMPLES, str(out), SettleOptions(), workers=1, quiet=True)


def _inputs_sql() -> str:
    return "read_parquet([" + ", ".join(f"'{p}'" for p in SAMPLES) + "], union_by_name=true)"


def test_sample_hand_ids_are_unique_across_the_files():
    ids = pa.concat_arrays([pq.read_table(p, columns=["hand_id"]).column(0).combine_chunks() for p in SAMPLES])
    assert len(pc.unique(ids)) == len(ids)


def test_duckdb_opens_each_folder_as_one_table_and_joins_back_without_fan_out(sample_run):
    out, s = sample_run
    con = duckdb.connect()
    results = f"read_parquet('{out}/results/**/*.parquet', hive_partitioning=true)"
    errors = f"read_parquet('{out}/errors/**/*.parquet', hive_partitioning=true)"
    assert con.execute(f"select count(*) from {results}").fetchone()[0] == s["rows_settled"]
    assert con.execute(f"select count(*) from {errors}").fetchone()[0] == s["rows_rejected"]
    by_game = dict(con.execute(f"select game, count(*) from {results} group by game").fetchall())
    assert by_game == {g: c["rows_settled"] for g, c in s["by_game"].items() if c["rows_settled"]}
    joined = con.execute(f"select count(*) from {results} r join {_inputs_sql()} i using (hand_id)").fetchone()[0]
    assert joined == s["rows_settled"]
    joined = con.execute(f"select count(*) from {errors} e join {_inputs_sql()} i using (hand_id)").fetchone()[0]
    assert (
        joined == s["rows_rejected"] - con.execute(f"select count(*) from {errors} where hand_id is null").fetchone()[0]
    )


def test_polars_and_pandas_read_the_same_tables(sample_run):
    out, s = sample_run
    for sub, rows, schema in (
        ("results", s["rows_settled"], RESULT_SCHEMA),
        ("errors", s["rows_rejected"], ERROR_SCHEMA),
    ):
        lazy = pl.scan_parquet(f"{out}/{sub}/**/*.parquet", hive_partitioning=True)
        frame = lazy.collect()
        assert frame.height == rows and set(schema.names) | {"game"} == set(frame.columns)
        inputs = pl.concat([pl.read_parquet(p, columns=["hand_id"]) for p in SAMPLES])
        assert frame.join(inputs, on="hand_id").height == frame.filter(pl.col("hand_id").is_not_null()).height
        df = pd.read_parquet(out / sub)
        assert len(df) == rows and set(schema.names) <= set(df.columns)
        assert sorted(df["hand_id"].dropna().astype("int64")) == sorted(frame["hand_id"].drop_nulls().to_list())


def test_every_part_has_its_folders_schema_whatever_the_input_types(tmp_path, sample_run):
    """The holdem sample again with narrow ids, large lists and dictionary cards, in a date= folder."""
    plain = pq.read_table(ROOT / "data" / "holdem_sample.parquet")
    odd = plain.set_column(0, "hand_id", plain.column("hand_id").cast(pa.int32()))
    odd = odd.set_column(
        odd.column_names.index("contrib"), "contrib", odd.column("contrib").cast(pa.large_list(pa.int32()))
    )
    odd = odd.set_column(
        odd.column_names.index("payout"), "payout", odd.column("payout").cast(pa.large_list(pa.int64()))
    )
    folder = tmp_path / "logs" / "date=2026-11-01"
    folder.mkdir(parents=True)
    pq.write_table(odd, folder / "odd.parquet")
    out = tmp_path / "out"
    s = settle_files([str(tmp_path / "logs")], str(out), SettleOptions(), workers=1, quiet=True)
    sample_out, _ = sample_run
    for sub, schema in (("results", RESULT_SCHEMA), ("errors", ERROR_SCHEMA)):
        for part in list((out / sub).rglob("*.parquet")) + list((sample_out / sub).rglob("*.parquet")):
            got = pq.read_schema(part)
            assert got.remove_metadata().equals(
                pa.schema([*schema, *([("date", pa.string())] if out in part.parents else [])])
            )
    table = pq.read_table(next((out / "results").rglob("*.parquet")))
    assert set(table.column("date").to_pylist()) == {"2026-11-01"}
    assert table.num_rows == s["rows_settled"]


def test_input_discovery_skips_what_pyarrow_skips_and_counts_a_file_once(tmp_path):
    from cardbatch.batch.io.inputs import parquet_inputs as expand_inputs
    from cardbatch.batch.settle import manifest

    table = pa.table({"hand_id": [1]})
    for rel in (
        "date=1/a.parquet",
        "date=2/b.parquet",
        "date=2/_tmp/c.parquet",
        ".cache/d.parquet",
        "date=1/_x.parquet",
    ):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(table, tmp_path / rel)
    (tmp_path / "date=1" / "_SUCCESS").write_text("")
    (tmp_path / "notes.txt").write_text("not data")
    found = manifest.resolved(
        expand_inputs([str(tmp_path), str(tmp_path / "date=1" / "a.parquet"), f"{tmp_path}/date=2/*.parquet"])
    )
    assert [Path(p).relative_to(tmp_path).as_posix() for p in found] == ["date=1/a.parquet", "date=2/b.parquet"]


def test_an_error_row_keeps_every_value_it_came_with():
    """Known columns in the schema's types; unknown ones, and known names of another type, as JSON."""
    import json

    from cardbatch.batch.settle.outputs import conform_errors

    given = pa.table(
        {
            "hand_id": pa.array([7, None], pa.uint64()),
            "reason": ["bad_button", "missing_value"],
            "message": ["m", "m"],
            "button": ["three", "x"],  # a known name, another type
            "cards": pa.array([["AsKd", "Qh2c"], None], pa.list_(pa.large_string())),
            "contrib": pa.array([[1, 2], [3, None]], pa.large_list(pa.int32())),
            "game": ["poker", "poker"],
            "table_name": ["east", None],
        }
    )
    got = conform_errors(given)
    assert got.schema.equals(ERROR_SCHEMA)
    assert got.column("hand_id").to_pylist() == [7, None]
    assert got.column("cards_text").to_pylist() == ["AsKd Qh2c", None] and got.column("cards").null_count == 2
    assert got.column("contrib").to_pylist() == [[1, 2], [3, None]]
    assert got.column("game_given").to_pylist() == ["poker", "poker"]
    assert [json.loads(x) for x in got.column("extra").to_pylist()] == [
        {"button": "three", "table_name": "east"},
        {"button": "x", "table_name": None},
    ]


def test_results_near_int64_limits_and_with_null_records():
    """A recorded payout read as uint64 above int64 is written as null (its row is flagged), a null
    cell stays null, int64's extremes pass unchanged."""
    from cardbatch.batch.settle.outputs import conform_results

    big = 2**63 - 1
    given = pa.table(
        {
            "hand_id": pa.array([big, -(2**63), 3], pa.int64()),
            "score": pa.array([[1, 2], [3, 4], [5, 6]], pa.list_(pa.uint32())),
            "recorded_payout": pa.array([[big, 0], None, [2**64 - 1, 1]], pa.list_(pa.uint64())),
            "mismatch": [False, None, True],
        }
    )
    got = conform_results(given, (("date", "d"),))
    assert got.schema.equals(pa.schema([*RESULT_SCHEMA, ("date", pa.string())]))
    assert got.column("hand_id").to_pylist() == [big, -(2**63), 3]
    assert got.column("recorded_payout").to_pylist() == [[big, 0], None, [None, 1]]
    assert got.column("mismatch").to_pylist() == [False, None, True]
    assert got.column("delta").null_count == 3 and got.column("date").to_pylist() == ["d"] * 3
