"""Every Parquet file a command writes has the options the docs name (Decisions: writing the
outputs): lz4, no dictionary pages, no column statistics; read back in the documented types."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import cli

ROOT = Path(__file__).resolve().parents[3]


def _options(path: Path) -> set[tuple[str, bool, bool]]:
    """(compression, has a dictionary page, has statistics) of every column chunk of ``path``."""
    meta = pq.ParquetFile(path).metadata
    return {
        (c.compression, c.has_dictionary_page, c.is_stats_set)
        for c in (meta.row_group(g).column(k) for g in range(meta.num_row_groups) for k in range(meta.num_columns))
    }


def _files(folder: Path) -> list[Path]:
    files = sorted(p for p in folder.rglob("*.parquet") if not p.name.startswith("."))
    assert files
    return files


@pytest.fixture(scope="module")
def outputs(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("writers")
    commands = [
        ("generate", "--game", "holdem", "--hands", "3000", "--bad-rate", "0.05", "--out", d / "gen.parquet", "-q"),
        ("settle", d / "gen.parquet", "--out", d / "settled", "-q"),
        ("import", ROOT / "tests" / "data" / "phh" / "pluribus", "--out", d / "imported.parquet", "-q"),
        ("rank-decks", "--decks", "500", "--seats", "4", "--seed", "3", "--out", d / "ranked", "-q"),
        ("simulate", "--game", "zjh", "--players", "30", "--rounds", "2", "--out", d / "sim", "-q"),
    ]
    for args in commands:
        res = cli(*args)
        assert res.returncode == 0, (args, res.stderr)
    return d


@pytest.mark.parametrize("where", ["gen.parquet", "settled", "imported.parquet", "ranked", "sim"])
def test_every_file_a_command_writes_is_lz4_without_dictionary_or_statistics(outputs, where):
    target = outputs / where
    files = [target] if target.is_file() else _files(target)
    if where == "imported.parquet":
        files.append(outputs / "imported.errors.parquet")
    for f in files:
        assert _options(f) <= {("LZ4", False, False)}, f


def test_the_settled_files_read_back_in_the_documented_types(outputs):
    from cardbatch.batch.settle.outputs import ERROR_SCHEMA, RESULT_SCHEMA

    for kind, schema in (("results", RESULT_SCHEMA), ("errors", ERROR_SCHEMA)):
        table = pq.read_table(_files(outputs / "settled" / kind)[0])
        for field in schema:
            assert table.schema.field(field.name).type == field.type, (kind, field.name)
        assert not any(pa.types.is_large_list(f.type) or pa.types.is_large_string(f.type) for f in table.schema)
