"""Parquet parts joined by copying their bytes: every reader sees the rows of the parts in order, in
the parts' row groups, and an unchanged footer encodes to its own bytes again."""

from __future__ import annotations

import struct

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from cardbatch.batch.io import parquet_concat, storage


def _table(n: int, start: int) -> pa.Table:
    rng = np.random.default_rng(start)
    lengths = rng.integers(0, 7, n)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    codes = pa.array(rng.integers(0, 52, offsets[-1]), pa.uint8())
    return pa.table(
        {
            "hand_id": pa.array(np.arange(start, start + n, dtype=np.int64)),
            "game": pa.array(["holdem", "zjh"] * (n // 2) + ["zjh"] * (n % 2), pa.string()).dictionary_encode(),
            "cards": pa.ListArray.from_arrays(pa.array(offsets), codes),
            "folded": pa.ListArray.from_arrays(pa.array(offsets), pa.array(rng.random(offsets[-1]) < 0.5)),
            "note": pa.array([None if k % 3 else f"n{k}" for k in range(n)], pa.string()),
        }
    )


@pytest.fixture
def parts(tmp_path) -> tuple[list[str], pa.Table]:
    sizes = [70_000, 0, 1, 130_001, 5]
    paths, tables, start = [], [], 0
    for k, n in enumerate(sizes):
        t = _table(n, start)
        path = str(tmp_path / f"part-{k}.parquet")
        pq.write_table(t, path, row_group_size=65_536, **storage.WRITE_OPTIONS)
        paths.append(path)
        tables.append(t)
        start += n
    return paths, pa.concat_tables(tables).unify_dictionaries()


def test_an_unchanged_footer_encodes_to_its_own_bytes(parts):
    for path in parts[0]:
        data = open(path, "rb").read()
        n = struct.unpack("<I", data[-8:-4])[0]
        footer = data[-8 - n : -8]
        assert parquet_concat.encode(parquet_concat.decode(footer)) == footer


def test_the_joined_file_holds_every_part_in_order(parts, tmp_path):
    paths, whole = parts
    out = str(tmp_path / "joined.parquet")
    seal = {b"cardbatch.written_by": b"cardbatch generate"}
    assert parquet_concat.concat(paths, out, seal) == whole.num_rows
    f = pq.ParquetFile(out)
    assert f.metadata.metadata[b"cardbatch.written_by"] == b"cardbatch generate"
    got = f.read()
    assert got.num_rows == whole.num_rows
    for name in whole.column_names:
        assert got.column(name).to_pylist() == whole.column(name).to_pylist(), name
    # the parts' row groups, each readable on its own (offsets moved right)
    metas = [pq.ParquetFile(p).metadata for p in paths]
    sizes = [m.row_group(g).num_rows for m in metas for g in range(m.num_row_groups)]
    assert [f.metadata.row_group(g).num_rows for g in range(f.metadata.num_row_groups)] == sizes
    last = f.read_row_group(f.metadata.num_row_groups - 1)
    assert last.column("hand_id").to_pylist() == whole.column("hand_id").to_pylist()[-5:]
    assert not list(tmp_path.glob(".*.tmp"))


def test_other_readers_agree(parts, tmp_path):
    paths, whole = parts
    out = str(tmp_path / "joined.parquet")
    parquet_concat.concat(paths, out)
    duckdb = pytest.importorskip("duckdb")
    total = duckdb.sql(f"select count(*), sum(hand_id), sum(len(cards)) from '{out}'").fetchall()[0]
    lengths = whole.column("cards").combine_chunks().value_lengths().to_numpy(zero_copy_only=False)
    assert total == (whole.num_rows, int(np.sum(whole.column("hand_id"))), int(lengths.sum()))
    pl = pytest.importorskip("polars")
    assert pl.read_parquet(out).equals(pl.from_arrow(whole))


def test_parts_of_another_schema_or_not_parquet_are_refused(parts, tmp_path):
    paths, _ = parts
    other = str(tmp_path / "other.parquet")
    pq.write_table(pa.table({"x": [1]}), other)
    with pytest.raises(ValueError, match="another schema"):
        parquet_concat.concat([paths[0], other], str(tmp_path / "j.parquet"))
    junk = tmp_path / "junk.parquet"
    junk.write_bytes(b"not parquet at all")
    with pytest.raises(ValueError, match="not a Parquet file"):
        parquet_concat.concat([str(junk)], str(tmp_path / "j.parquet"))
    assert not (tmp_path / "j.parquet").exists() and not list(tmp_path.glob(".*.tmp"))


def test_a_parts_own_footer_metadata_stays_behind(tmp_path):
    """A part keeps its counters in its footer (for a rerun); the joined file has only the Arrow
    schema and the seal."""
    path = str(tmp_path / "p.parquet")
    writer = pq.ParquetWriter(path, _table(3, 0).schema, **storage.WRITE_OPTIONS)
    writer.write_table(_table(3, 0))
    writer.add_key_value_metadata({b"cardbatch.generate.counters": b"{}"})
    writer.close()
    out = str(tmp_path / "j.parquet")
    parquet_concat.concat([path], out, {b"cardbatch.written_by": b"cardbatch generate"})
    assert set(pq.ParquetFile(out).metadata.metadata) == {b"ARROW:schema", b"cardbatch.written_by"}
    assert pq.read_table(out).schema.metadata in (None, {})
