"""``cardbatch.settle(data)`` and ``cardbatch.audit(data)``: the settle job on a DataFrame, in memory.

``data`` is anything that speaks Arrow's C stream interface (``__arrow_c_stream__``: pyarrow tables
and record batch readers, Polars and pandas DataFrames, DuckDB relations) or a path (a Parquet file,
a folder, a glob, a list of them). The rows go through the very run the command line makes: an
in-memory table is written to a temporary Parquet file, settled by the same job into a temporary
folder, and its ``results/`` and ``errors/`` are read back. So a row the command line sets aside is
set aside here with the same reason, and the figures are the same. The round trip through a
temporary folder is the price of that one code path (a notebook's table is small next to it).
"""

from __future__ import annotations

import dataclasses
import json
import os
import tempfile
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq

from cardbatch.batch.io.jobs import RunOptions
from cardbatch.batch.settle.options import SettleJob, SettleOptions


@dataclasses.dataclass(frozen=True)
class Settled:
    """What a settlement gave: ``results`` (one row per settled hand) and ``errors`` (one per
    rejected row), each with the columns of the files ``cardbatch settle`` writes plus ``game`` (as
    a reader of the game-partitioned folder sees them), and the run's ``summary`` (``summary.json``'s
    figures; ``status`` is 3 for an audit that found mismatches, else 0)."""

    results: pa.Table
    errors: pa.Table
    summary: dict[str, Any]
    status: int = 0


def _as_input(data: Any, folder: str) -> list[str]:
    """The paths to settle: ``data`` itself when it names files, else its rows written to one file."""
    if isinstance(data, (str, os.PathLike)):
        return [os.fspath(data)]
    if isinstance(data, (list, tuple)) and data and all(isinstance(d, (str, os.PathLike)) for d in data):
        return [os.fspath(d) for d in data]
    if isinstance(data, pa.Table):
        table = data
    elif hasattr(data, "__arrow_c_stream__"):
        table = pa.RecordBatchReader.from_stream(data).read_all()
    else:
        raise TypeError(
            f"settle: expected a table that speaks Arrow (pyarrow, Polars, pandas, DuckDB) or a path, "
            f"got {type(data).__name__}"
        )
    path = os.path.join(folder, "input.parquet")
    pq.write_table(_writable(table), path)
    return [path]


def _writable(table: pa.Table) -> pa.Table:
    """``table`` as Parquet can store it: a dictionary of string views (Polars' categoricals) gets its
    dictionary as plain strings, which Parquet's writer cannot cast itself; the values are the same."""
    for i, field in enumerate(table.schema):
        t = field.type
        if pa.types.is_dictionary(t) and pa.types.is_string_view(t.value_type):
            chunks = [
                pa.DictionaryArray.from_arrays(c.indices, c.dictionary.cast(pa.string()))
                for c in table.column(i).chunks
            ]
            table = table.set_column(i, field.name, pa.chunked_array(chunks, pa.dictionary(t.index_type, pa.string())))
    return table


def _read(folder: Path) -> pa.Table:
    """Every part below ``folder`` (``game=G`` folders), as one table with ``game``; none: empty."""
    if not folder.exists() or not any(folder.rglob("*.parquet")):
        return pa.table({})
    return ds.dataset(folder, format="parquet", partitioning="hive").to_table()


def settle(data: Any, *, audit: bool = False, workers: int | None = None, **rules: Any) -> Settled:
    """Settle the hands of ``data`` as ``cardbatch settle`` does, in memory.

    ``rules``: the settlement options by their command-line names (``policy``, ``rake_pct``,
    ``rake_cap``, ``chip_unit``, ``odd_chips``, ``orphan_chips``, ``no_flop_no_drop``, ``rules``,
    ``game``, ``team_model``); ``workers``: processes (default: this one for a table of one batch).
    Raises ``ValueError`` for an option it does not know and
    :class:`~cardbatch.batch.io.errors.InputError` for input it cannot read as asked.

    >>> from cardbatch.batch.generate import generate_hands
    >>> hands = generate_hands("zjh", 500, seed=7, bad_rate=0.05).table
    >>> s = settle(hands)
    >>> s.results.num_rows + s.errors.num_rows == s.summary["rows_read"] == 500
    True
    >>> sorted(set(s.errors.column("reason").to_pylist())) == sorted(s.summary["rejected_by_reason"])
    True
    """
    from cardbatch.batch.settle.job import run
    from cardbatch.batch.settle.options import POT_FIELDS

    known = set(POT_FIELDS) | {f.name for f in dataclasses.fields(SettleOptions)} - {"pots", "audit"}
    unknown = sorted(set(rules) - known)
    if unknown:
        raise ValueError(f"settle: unknown option(s) {', '.join(unknown)} (known: {', '.join(sorted(known))})")
    options = SettleOptions.of(audit=audit, **rules)
    with tempfile.TemporaryDirectory(prefix="cardbatch-frame-") as tmp:
        inputs = _as_input(data, tmp)
        out = Path(tmp) / "out"
        summary = run(SettleJob(tuple(inputs), str(out), options, run=RunOptions(workers=workers, quiet=True)))
        results, errors = _read(out / "results"), _read(out / "errors")
        figures = json.loads(json.dumps(dict(summary.figures)))  # a plain copy, free of the temporary run
    return Settled(results, errors, figures, summary.status)


def audit(data: Any, *, workers: int | None = None, **rules: Any) -> Settled:
    """:func:`settle` for an audit: the same rows and figures; ``status`` 3 when a recomputed payout
    differs from the recorded one (``results``' ``mismatch`` says which)."""
    return settle(data, audit=True, workers=workers, **rules)
