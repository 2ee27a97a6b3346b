"""The jobs on DataFrames, in memory: ``cardbatch.settle(data)``, ``cardbatch.audit(data)``,
``cardbatch.rank_decks(...)`` and ``cardbatch.simulate(...)``.

``data`` is anything that speaks Arrow's C stream interface (``__arrow_c_stream__``: pyarrow tables
and record batch readers, Polars and pandas DataFrames, DuckDB relations) or a path (a Parquet file,
a folder, a glob, a list of them). ``settle`` and ``audit`` run in this process (numba's threads
for the cores; no process is started, so a plain script needs no ``__main__`` guard) and in
memory: the rows go through the same units of work as the command line's, read from the caller's
table itself, and come back as tables instead of files. So a row the command line sets aside is
set aside here with the same reason, and the figures are the same. ``rank_decks`` and ``simulate``
go through their jobs' files in a temporary folder: decks in from a table or dealt from a seed,
the ranking out as a table; rooms in, the rounds and the players' balances out as tables.

This module imports several jobs, which no job does: it sits above them, as ``precompile`` does.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import tempfile
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from cardbatch.batch.io.jobs import RunOptions
from cardbatch.batch.settle.options import SettleOptions
from cardbatch.batch.simulate.room import Room
from cardbatch.games import ZJH


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


def _as_table(data: Any, what: str) -> pa.Table | None:
    """``data`` as an Arrow table, or None when it names files; a ``TypeError`` for anything else."""
    if isinstance(data, (str, os.PathLike)):
        return None
    if isinstance(data, (list, tuple)) and data and all(isinstance(d, (str, os.PathLike)) for d in data):
        return None
    if isinstance(data, pa.Table):
        return data
    if isinstance(data, pa.RecordBatch):
        return pa.Table.from_batches([data])
    if hasattr(data, "__arrow_c_stream__"):
        return pa.RecordBatchReader.from_stream(data).read_all()
    raise TypeError(
        f"{what}: expected a table that speaks Arrow (pyarrow, Polars, pandas, DuckDB) or a path, "
        f"got {type(data).__name__}"
    )


def _paths(data: Any) -> list[str]:
    return [os.fspath(data)] if isinstance(data, (str, os.PathLike)) else [os.fspath(d) for d in data]


def _as_input(data: Any, folder: str) -> list[str]:
    """The paths to read: ``data`` itself when it names files, else its rows written to one file (for
    the jobs that read files only: ``rank_decks`` and ``simulate``)."""
    table = _as_table(data, "input")
    if table is None:
        return _paths(data)
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


_WALK_OPTIONS = {"equity_budget": "budget", "equity_samples": "samples", "equity_seed": "seed", "equity_deck": "deck"}


def _with_walk(rules: dict[str, Any]) -> dict[str, Any]:
    """``equity=True`` and the command line's ``equity_budget``/``_samples``/``_seed``/``_deck`` as the
    :class:`~cardbatch.kernels.equity.Walk` they name (``equity`` may also be a ``Walk`` itself)."""
    from cardbatch.kernels.equity import Walk

    out = {k: v for k, v in rules.items() if k not in _WALK_OPTIONS}
    walk = {_WALK_OPTIONS[k]: v for k, v in rules.items() if k in _WALK_OPTIONS}
    equity = rules.get("equity")
    if equity is True:
        out["equity"] = Walk(**walk)
    elif walk:
        raise ValueError(f"settle: {', '.join(sorted(k for k in rules if k in _WALK_OPTIONS))}: only with equity=True")
    elif equity is False:
        out["equity"] = None
    return out


def settle(
    data: Any, *, audit: bool = False, workers: int | None = None, batch_rows: int = 1 << 16, **rules: Any
) -> Settled:
    """Settle the hands of ``data`` as ``cardbatch settle`` does, in this process and in memory.

    The rows go through the same units of work as the command line's (the same checks, the same
    kernels, the same output schemas), read from the caller's table itself (no copy to a file) and
    gathered into tables instead of files; no process is started, so a plain script needs no
    ``if __name__ == "__main__":`` guard. ``rules``: the settlement options by their command-line
    names (``policy``, ``rake_pct``, ``rake_cap``, ``chip_unit``, ``odd_chips``, ``orphan_chips``,
    ``no_flop_no_drop``, ``rules``, ``game``, ``team_model``, ``trips_beat_straight``, ``equity=True``
    with ``equity_budget``, ``equity_samples``, ``equity_seed``, ``equity_deck``, ``by_player``); ``workers``:
    batches settled at once, each in a thread of this process (default: one per core; a table of
    one batch: numba's threads for its kernels); ``batch_rows``: rows settled at a time.
    Raises ``ValueError`` for an option it does not know and :class:`~cardbatch.batch.io.errors.InputError` for input it
    cannot read as asked (the message names ``the table`` or the file, and the column).

    >>> from cardbatch.batch.generate import generate_hands
    >>> hands = generate_hands("zjh", 500, seed=7, bad_rate=0.05).table
    >>> s = settle(hands)
    >>> s.results.num_rows + s.errors.num_rows == s.summary["rows_read"] == 500
    True
    >>> sorted(set(s.errors.column("reason").to_pylist())) == sorted(s.summary["rejected_by_reason"])
    True
    >>> empty = settle(hands.slice(0, 0))  # no rows: the files' columns all the same
    >>> empty.errors.num_rows, empty.errors.column_names.index("reason")
    (0, 1)
    """
    from cardbatch.batch.io.jobs import require_whole
    from cardbatch.batch.settle.job import settle_in_memory, status_of
    from cardbatch.batch.settle.job import warnings as run_warnings
    from cardbatch.batch.settle.options import POT_FIELDS

    if "fairness" in rules:  # its verdict is a folder's (fairness.json, exit 4), not a table's
        raise ValueError("settle: fairness is a run over files into a folder: use the cardbatch fairness command")
    from cardbatch.batch.settle.analysis import flat_keys

    known = set(POT_FIELDS) | {f.name for f in dataclasses.fields(SettleOptions)} - {"pots", "analyses"}
    known |= set(_WALK_OPTIONS) | set(flat_keys()) - {"audit", "fairness"}  # audit(): its own function
    unknown = sorted(set(rules) - known)
    if unknown:
        raise ValueError(f"settle: unknown option(s) {', '.join(unknown)} (known: {', '.join(sorted(known))})")
    rules = _with_walk(rules)
    if workers is not None:
        require_whole(workers, "workers", 1)
    require_whole(batch_rows, "batch_rows", 1)
    options = SettleOptions.of(audit=audit, **rules)
    table = _as_table(data, "settle")
    source = table if table is not None else _paths(data)
    label = f"the table ({type(data).__module__.split('.')[0]}.{type(data).__name__})"
    with _threads(workers):
        results, errors, figures = settle_in_memory(source, label, options, batch_rows, workers)
    for line in run_warnings(figures, options):  # what the command line says on stderr, said here
        warnings.warn(line, UserWarning, stacklevel=2)
    return Settled(results, errors, figures, status_of(options, figures))


@contextlib.contextmanager
def _threads(workers: int | None) -> Iterator[None]:
    """numba's threads for the kernels: ``workers``, or every core numba may use."""
    import numba

    before = numba.get_num_threads()
    numba.set_num_threads(min(workers or numba.config.NUMBA_NUM_THREADS, numba.config.NUMBA_NUM_THREADS))
    try:
        yield
    finally:
        numba.set_num_threads(before)


def audit(data: Any, *, workers: int | None = None, batch_rows: int = 1 << 16, **rules: Any) -> Settled:
    """:func:`settle` for an audit: the same rows and figures; ``status`` 3 when a recomputed payout
    differs from the recorded one (``results``' ``mismatch`` says which)."""
    return settle(data, audit=True, workers=workers, batch_rows=batch_rows, **rules)


def rank_decks(
    decks: Any = None,
    *,
    game: str = ZJH.name,
    rules: str = "zjh",  # the three-card rule preset
    players: int = 6,
    n: int = 1000,
    seed: int = 0,
    column: str = "deck",
    top: int | None = None,
    by: str = "best",
    detail: bool = False,
) -> pa.Table:
    """Rank every seat of ``decks`` (a table with a 52-card list column ``column``, anything that
    speaks Arrow, or a path), or of ``n`` decks dealt from ``seed``, as ``cardbatch rank-decks`` does;
    returns the table it writes (``top``/``by``: only the best decks; ``detail``: every seat's cards
    and ranks too).

    >>> t = rank_decks(n=100, players=4, seed=3, top=5, by="margin")
    >>> t.num_rows, t.column_names[:3]
    (5, ['deck', 'value', 'best'])
    """
    from cardbatch.batch.rank_decks import RankDecksOptions, rank

    with tempfile.TemporaryDirectory(prefix="cardbatch-frame-") as tmp:
        given = _as_input(decks, tmp)[0] if decks is not None else None
        out = os.path.join(tmp, "ranked.parquet")
        options = RankDecksOptions(
            out, game, rules, n, players, seed, given, column, top, by, detail, run=RunOptions(quiet=True)
        )
        rank(options)
        return pq.read_table(out)


@dataclasses.dataclass(frozen=True)
class Simulated:
    """A simulation's tables, as ``cardbatch simulate`` writes them: ``rounds`` (one row per room,
    replicate and round), ``players`` (the final balances) and the ``summary``."""

    rounds: pa.Table
    players: pa.Table
    summary: dict[str, Any]


def simulate(
    room: Room | None = None,
    *,
    rooms: dict[str, Room | dict[str, Any]] | None = None,
    replicates: int = 1,
    behaviour_from: Any = None,
    **flags: Any,
) -> Simulated:
    """Play a room (``room``, or a :class:`~cardbatch.batch.simulate.room.Room` made of ``flags``:
    ``game="zjh", players=2000, rounds=50, ...``) or compare ``rooms`` (name to room) over
    ``replicates`` runs each, as ``cardbatch simulate`` does; ``behaviour_from``: recorded hands
    (anything that speaks Arrow, or a path) to fit the betting model to.

    >>> s = simulate(game="zjh", players=500, rounds=3, tables_per_round=50, seed=2)
    >>> s.rounds.num_rows, s.players.num_rows
    (3, 500)
    """
    from cardbatch.batch.simulate.job import SimulateJob, run

    if room is not None and flags:
        raise ValueError("simulate: give a Room or its flags, not both")
    if rooms is not None and not rooms:  # never a default room in place of the rooms asked for
        raise ValueError("simulate: rooms is empty: give at least one name: Room, or leave rooms out to play one room")
    if rooms is not None and (room is not None or flags):
        raise ValueError("simulate: give rooms, or a Room (or its flags), not both")
    named: tuple[tuple[str, Room], ...] = (
        tuple((name, r if isinstance(r, Room) else Room(**r)) for name, r in rooms.items())  # flags make a room too
        if rooms is not None
        else (("room", room if room is not None else Room(**flags)),)
    )
    with tempfile.TemporaryDirectory(prefix="cardbatch-frame-") as tmp:
        logs = tuple(_as_input(behaviour_from, tmp)) if behaviour_from is not None else ()
        out = Path(tmp) / "out"
        # in this process (no pool, so a script needs no __main__ guard); the figures are drawn into
        # the temporary folder, which goes: the summary does not name them
        summary = run(SimulateJob(named, str(out), replicates, logs, None, RunOptions(workers=1, quiet=True)))
        figures = json.loads(json.dumps(dict(summary.figures), default=str))
        figures.pop("plots", None)
        return Simulated(pq.read_table(out / "rounds.parquet"), pq.read_table(out / "players.parquet"), figures)
