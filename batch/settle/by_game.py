"""Settle one Arrow table, split by its games: the step every engine, the API and the warm-up share.

A table with a ``game`` column is split by it (rows of a game we do not know are set aside under
``unknown``); one without takes its game from ``--game`` or its columns
(:func:`~cardbatch.batch.settle.plan.infer_game`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from cardbatch.batch.io.arrays import arrow_of, numpy_of, scalar_of
from cardbatch.batch.settle.counters import Counters, merge_counters
from cardbatch.batch.settle.options import SettleOptions
from cardbatch.batch.settle.outputs import UNKNOWN_GAME, fill_game
from cardbatch.batch.settle.plan import check_columns, infer_game
from cardbatch.games import GAMES, REGISTRY
from cardbatch.games import game as game_spec


def settle_by_game(
    table: pa.Table, opts: SettleOptions
) -> tuple[dict[str, pa.Table], dict[str, pa.Table], dict[str, Any]]:
    """Settle one Arrow table, split by its ``game`` column when there is one: (results by game,
    errors by game, counters with a ``by_game`` split). Rows of a game we do not know are errors
    under ``unknown``."""
    from cardbatch.batch.io.lists import without_views

    table = _typed_nulls(without_views(table))
    from cardbatch.batch.settle.poker import settle_hands
    from cardbatch.batch.settle.rejects import CODE, error_rows
    from cardbatch.batch.settle.team2v2 import settle_teams

    def one(sub: pa.Table, game: str, inferred: bool = False) -> tuple[pa.Table, pa.Table, dict[str, Any]]:
        if "game" in table.column_names:  # the game column names a game: are its columns there, as it reads them?
            check_columns("", sub.schema, game)
        if game_spec(game).settles == "balances":
            r, e, c = settle_teams(sub, opts)
        else:
            r, e, c = settle_hands(sub, game, opts, inferred)
        c["by_game"] = {game: dict(c)}
        return r, e, c

    if "game" not in table.column_names:
        game = infer_game(table.column_names, opts)
        if opts.game is not None:
            r, e, c = one(table, game)
            return {game: r}, {game: e}, c
        return _told(table, game, opts, one)
    if opts.game is not None:  # a null cell: --game names it (a folder's came first)
        table = fill_game(table, opts.game)
    games = table.column("game")
    if isinstance(games, pa.ChunkedArray):
        games = games.combine_chunks()
    if pa.types.is_dictionary(games.type):
        games = games.dictionary_decode()
    if pa.types.is_null(games.type):
        games = games.cast(pa.string())
    names = [v for v in pc.unique(games).to_pylist()]
    if len(names) == 1 and names[0] in GAMES and games.null_count == 0:
        r, e, c = one(table, names[0])  # one game per file: no split, no copy
        return {names[0]: r}, {names[0]: e}, c
    results: dict[str, pa.Table] = {}
    errors: dict[str, pa.Table] = {}
    counters: list[dict[str, Any]] = []
    unknown = []
    for game in sorted(str(v) for v in names):
        mask = (
            pc.fill_null(pc.equal(games, scalar_of(game, games.type)), scalar_of(False, pa.bool_()))
            if game != "None"
            else games.is_null()
        )
        rows = np.flatnonzero(numpy_of(mask))
        sub = table.take(arrow_of(rows))
        if game in GAMES:
            results[game], errors[game], c = one(sub, game)
        else:
            reason, message = (
                ("missing_value", "the game cell is null, and no game=G folder or --game names the game")
                if game == "None"
                else ("unknown_game", f"the game column names {game!r}, a game cardbatch does not settle")
            )
            codes = np.full(len(rows), CODE[reason], np.int16)
            c = Counters(len(rows), 0, len(rows), {reason: len(rows)}).as_dict()
            unknown.append(error_rows(sub, np.arange(len(rows)), codes, message))
            c["by_game"] = {game: dict(c)}
        counters.append(c)
    if unknown:
        errors[UNKNOWN_GAME] = pa.concat_tables(unknown, promote_options="permissive")
    return results, errors, merge_counters(counters)


_INTEGER_COLUMNS = frozenset(name for spec in REGISTRY.values() for name in spec.integer_columns)


def _typed_nulls(table: pa.Table) -> pa.Table:
    """An integer column every cell of which is null (pyarrow and pandas write such a column with
    Arrow's null type) read as 64-bit integers, all null: a cell then says what a null cell says."""
    for i, field in enumerate(table.schema):
        if pa.types.is_null(field.type) and field.name in _INTEGER_COLUMNS:
            table = table.set_column(i, field.name, pa.nulls(table.num_rows, pa.int64()))
    return table


def _told(
    table: pa.Table,
    game: str,
    opts: SettleOptions,
    one: Callable[..., tuple[pa.Table, pa.Table, dict[str, Any]]],
) -> tuple[dict[str, pa.Table], dict[str, pa.Table], dict[str, Any]]:
    """A table whose game is told from its columns: rows whose cards are another game's count (stud's
    7 a seat beside Zha Jin Hua's 3...) are set aside first as ``game_not_given``, under ``unknown``
    as rows of a game not known are, whatever columns the told game would ask for (a stud file has no
    button); the rest are settled as ``game``, whose columns are then checked."""
    from cardbatch.batch.io.lists import elements_of, exact_sum, int_list_parts
    from cardbatch.batch.settle.cardcols import not_told_rows
    from cardbatch.batch.settle.rejects import CODE, error_rows

    aside = not_told_rows(table, game_spec(game))
    if not aside.any():
        check_columns("", table.schema, game)
        r, e, c = one(table, game, inferred=True)
        return {game: r}, {game: e}, c
    rows = np.flatnonzero(aside)
    n = int(rows.size)
    chips = "contrib_street" if "contrib_street" in table.column_names else "contrib"
    values, starts, lengths, _ = int_list_parts(table.column(chips), chips)
    c = Counters(
        n, 0, n, {"game_not_given": n}, 0, 0, 0, exact_sum(values[elements_of(starts, lengths, rows)]), mismatches=0
    ).as_dict()
    c["by_game"] = {UNKNOWN_GAME: dict(c)}
    errors = {UNKNOWN_GAME: error_rows(table, rows, np.full(n, CODE["game_not_given"], np.int16))}
    if n == table.num_rows:
        return {}, errors, c
    rest = table.take(arrow_of(np.flatnonzero(~aside)))
    check_columns("", rest.schema, game)
    r, e, c2 = one(rest, game, inferred=True)
    errors[game] = e
    return {game: r}, errors, merge_counters([c2, c])


def settle_table(table: pa.Table, opts: SettleOptions) -> tuple[pa.Table, pa.Table, dict[str, Any]]:
    """:func:`settle_by_game` with the games' results and errors each in one table (for callers that
    look at a batch as a whole; the run writes each game apart)."""
    results, errors, counters = settle_by_game(table, opts)

    def joined(parts: dict[str, pa.Table]) -> pa.Table:
        tables = [t for t in parts.values() if t.num_columns]
        return pa.concat_tables(tables, promote_options="permissive") if tables else pa.table({})

    return joined(results), joined(errors), counters
