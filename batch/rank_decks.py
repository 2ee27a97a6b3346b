"""``cardbatch rank-decks``: deal (or read) decks, rank every seat, write Parquet.

The decks are cut into units (:class:`Unit`: :data:`SLICE` dealt decks, or
whole row groups of a ``DECKS`` file) that run on an engine
(:mod:`~cardbatch.batch.io.engines`), in up to two passes. The counting pass
(``--detail`` or ``--top``) gives each unit's :class:`Tally` (its hand counts:
global ranks need the whole run's; its best ``--top`` decks; what ``--plot``
draws), added up here exactly. The writing pass re-deals each unit's decks
(decks are counter-based, so this is cheap and identical; given decks are
read again) and writes its rows as a part in the output's own Parquet
(:mod:`~cardbatch.batch.io.staged`); this process joins the parts' bytes in
order (:mod:`~cardbatch.batch.io.parquet_concat`; ``--top``: the chosen rows
written best first) under a temporary name, published when complete. The file and the figure are
the same, byte for byte, whatever the engine and the workers; a rerun after a
crash reuses the parts of the same plan.
"""

from __future__ import annotations

import dataclasses
import functools
import io
import os
import time
from collections.abc import Iterator
from typing import Any

import numpy as np
import pyarrow as pa

from cardbatch.batch.io import engines, lists, owned, parquet_concat, staged, storage
from cardbatch.batch.io.columns import fixed_size_list
from cardbatch.batch.io.compiling import announced
from cardbatch.batch.io.errors import InputError
from cardbatch.batch.io.jobs import FILE_MODES, FileMode, RunOptions, Summary
from cardbatch.batch.io.progress import progress
from cardbatch.games import ZJH
from cardbatch.games import game as game_spec
from cardbatch.kernels import decks as kdecks
from cardbatch.kernels import ranking, readable, threecard

SLICE = 1 << 20  # decks a unit ranks (DECKS: whole row groups, about as many rows)
SMALL_RUN = 1 << 20  # a run of at most this many decks runs in this process unless --workers is given
DECK = 52  # cards in a deck: every row of a DECKS file holds them all, once each
PLOT_MISSING = "skipped: matplotlib is not installed (pip install 'cardbatch[plots]')"


def _dealt_cards(deck_rows: np.ndarray, game: str, players: int) -> dict[str, pa.Array]:
    spec = game_spec(game)
    if spec.name not in ranking.RANKED:
        raise ValueError(f"game must be one of {', '.join(ranking.RANKED)}, got {game!r}")
    if not spec.board_cards:
        return {"hands": fixed_size_list(deck_rows[:, kdecks.hand_positions(players, spec.hole_cards).reshape(-1)])}
    own = kdecks.from_rank(deck_rows, spec.lowest_rank)  # the game's deck, in the order dealt
    hole, board = kdecks.board_positions(players, spec.hole_cards)
    return {"hands": fixed_size_list(own[:, hole.reshape(-1)]), "board": fixed_size_list(own[:, board])}


def _names(codes: np.ndarray, names: tuple[str, ...]) -> pa.DictionaryArray:
    return pa.DictionaryArray.from_arrays(pa.array(codes.astype(np.int8)), pa.array(list(names), pa.string()))


def ranking_table(
    r: ranking.DeckRanking,
    rows: np.ndarray,
    deck_rows: np.ndarray | None,
    game: str,
    players: int,
    rules: str = "zjh",
) -> pa.Table:
    """The output rows (one per deck) for the selected ``rows`` of a ranked slice: the deck, each
    seat's value and the deck-level measures with their readable forms (the best hand's category
    name, the margin in hand classes); with ``deck_rows`` (``--detail``) also the cards dealt, as
    codes and as text, and every seat's category (code and name), ranks and whether it won."""
    names = readable.category_names(game, rules)
    cols = {"deck": pa.array(r.start + rows, pa.int64())}
    if deck_rows is not None:
        dealt = _dealt_cards(deck_rows, game, players)
        cols.update(dealt)
        per = readable.cards_per_seat(game)
        hands = dealt["hands"].flatten().to_numpy().reshape(len(rows), players * per)  # widths given: 0 rows too
        cols["hands_text"] = pa.array(readable.cards_text(hands, per), pa.string())
        B = game_spec(game).board_cards
        if B:
            board = dealt["board"].flatten().to_numpy().reshape(len(rows), B)
            cols["board_text"] = pa.array(readable.cards_text(board, B), pa.string())
    cols["value"] = fixed_size_list(r.values[rows])
    if deck_rows is not None:
        cats = r.categories[rows]
        cols.update(
            {
                "category": fixed_size_list(cats),
                "category_name": pa.FixedSizeListArray.from_arrays(_names(cats.reshape(-1), names), players),
                "rank_in_deck": fixed_size_list(r.rank_in_deck[rows]),
                "global_rank": fixed_size_list(r.global_rank[rows]),
                "winners": fixed_size_list(r.winners[rows]),
            }
        )
    best, second = r.best[rows], r.second[rows]
    cols.update(
        {
            "best": pa.array(best.astype(np.int64)),
            "best_category": _names(readable.categories(best, game, rules), names),
            "second": pa.array(second.astype(np.int64)),
            "margin": pa.array(r.margin[rows]),
            "margin_classes": pa.array(readable.margin_classes(best, second, game, rules)),
        }
    )
    return pa.table(cols)


@dataclasses.dataclass(frozen=True)
class RankDecksOptions:
    """What ``cardbatch rank-decks`` ranks and writes: ``decks`` decks of ``seed`` dealt to
    ``players`` seats of ``game`` (three-card ``rules``), or the decks in column ``column`` of the
    Parquet file ``input``; with ``top``, only the K best decks by the measure ``by``; with
    ``detail``, every seat's cards, category, ranks and win flag too (global ranks need a
    counting pass over the whole run first)."""

    out: str
    game: str = ZJH.name
    rules: str = "zjh"  # the three-card rule preset (not the game)
    decks: int = 1000
    players: int = 6
    seed: int = 0
    input: str | None = None
    column: str = "deck"
    top: int | None = None
    by: str = "best"
    detail: bool = False
    plot: bool = False
    run: RunOptions = RunOptions()
    mode: FileMode = "replace"

    def __post_init__(self) -> None:
        if not isinstance(self.out, str) or not self.out:
            raise ValueError("out: give the Parquet file to write")
        if self.game not in ranking.RANKED:
            raise ValueError(f"game must be one of {', '.join(ranking.RANKED)}, got {self.game!r}")
        if game_spec(self.game).rule_presets:
            threecard.rules_of(self.rules)  # a ValueError naming the presets
        if self.top is not None and self.top < 0:
            raise ValueError("--top must be >= 0")
        if self.mode not in FILE_MODES:
            raise ValueError(f"mode must be one of {', '.join(FILE_MODES)}, got {self.mode!r}")
        if self.by not in ranking.MEASURES:
            raise ValueError(f"by must be one of {', '.join(ranking.MEASURES)}, got {self.by!r}")


def check_deck_column(schema: pa.Schema, column: str) -> None:
    """Raise :class:`InputError` unless ``column`` of ``schema`` can hold decks: a list (any layout)
    of integers, 52 of them when its width is fixed."""
    if column not in schema.names:
        raise InputError(
            f"no column {column!r} (the columns: {', '.join(schema.names)}): name the deck column with "
            "--column (column= in Python)"
        )
    t = schema.field(column).type
    listed = pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t)
    if not (listed or pa.types.is_list_view(t) or pa.types.is_large_list_view(t)):
        raise InputError(f"column {column!r} is {t}, not a list of {DECK} card codes per row")
    if not pa.types.is_integer(t.value_type):
        raise InputError(f"column {column!r} holds {t.value_type}, not integer card codes 0..51")
    if pa.types.is_fixed_size_list(t) and t.list_size != DECK:
        raise InputError(f"column {column!r} holds {t.list_size} cards per row: a deck has {DECK}")


def deck_rows(col: pa.Array | pa.ChunkedArray, column: str, first_row: int = 0) -> np.ndarray:
    """The decks of a list column (:func:`check_deck_column`) as ``uint8[n, 52]``, or an
    :class:`InputError` naming the first row that is not a deck: null, a null card, not 52 cards, a
    code outside 0..51 or a card twice (``first_row``: the column's first row in its file)."""
    arr = lists.combined(col)
    n = len(arr)
    null_deck = arr.is_null().to_numpy(zero_copy_only=False) if arr.null_count else np.zeros(n, np.bool_)
    null_card = lists.missing_rows(arr) & ~null_deck
    values, starts, lengths = lists.list_parts(arr)
    wrong_width = ~null_deck & (lengths != DECK)
    whole = ~(null_deck | null_card | wrong_width)  # rows with 52 values to look at
    if whole.all() and np.array_equal(starts, np.arange(n) * DECK):
        decks = values[: n * DECK].reshape(n, DECK)  # the common layout: a view, no copy
    else:
        decks = np.zeros((n, DECK), values.dtype)
        rows = np.flatnonzero(whole)
        decks[rows] = values[starts[rows, None] + np.arange(DECK)]
    outside = whole & ((decks > 51) | (decks < 0)).any(axis=1)
    codes = decks.astype(np.uint8)
    ordered = np.sort(codes, axis=1)
    twice = whole & ~outside & (ordered[:, 1:] == ordered[:, :-1]).any(axis=1)
    bad = ~whole | outside | twice
    if bad.any():
        r = int(np.flatnonzero(bad)[0])
        if null_deck[r] or null_card[r]:
            problem = "the deck is null" if null_deck[r] else "a card is null"
        elif wrong_width[r]:
            problem = f"{int(lengths[r])} cards: a deck has {DECK}"
        elif outside[r]:
            problem = f"card {int(decks[r][(decks[r] > 51) | (decks[r] < 0)][0])} is outside 0..51"
        else:
            problem = f"card {int(ordered[r][1:][ordered[r][1:] == ordered[r][:-1]][0])} appears twice"
        raise InputError(f"column {column!r}, row {first_row + r}: {problem}")
    return codes


@dataclasses.dataclass(frozen=True)
class Unit:
    """Decks ``start..start+decks-1`` of the run, ranked by one task: dealt from the seed, or the rows
    of the DECKS file's row groups ``groups``. ``chosen``: with ``--top``, the decks of it that the
    file keeps (the writing pass)."""

    index: int
    start: int
    decks: int
    groups: tuple[int, ...] = ()
    chosen: tuple[int, ...] | None = None


def _source(args: RankDecksOptions) -> tuple[int, list[Unit], dict[str, Any]]:
    """The run's decks: how many, its units (:data:`SLICE` dealt decks each, or whole row groups of
    DECKS, about as many rows) and what identifies the DECKS file (for the staging plan). A DECKS
    that is not Parquet, or whose column cannot hold decks, is an :class:`InputError`."""
    if not args.input:
        dealt = [Unit(i, s, min(SLICE, args.decks - s)) for i, s in enumerate(range(0, args.decks, SLICE))]
        return args.decks, dealt, {}
    try:
        pf = storage.parquet_file(args.input)
    except (OSError, pa.ArrowException) as exc:  # a folder, a file that is not Parquet
        raise InputError(f"cannot read it as Parquet: {exc}") from None
    check_deck_column(pf.schema_arrow, args.column)
    meta = pf.metadata
    units: list[Unit] = []
    groups: list[int] = []
    start = rows = 0
    for g in range(meta.num_row_groups):
        n = meta.row_group(g).num_rows
        if groups and rows + n > SLICE:
            units.append(Unit(len(units), start, rows, tuple(groups)))
            start, rows, groups = start + rows, 0, []
        groups.append(g)
        rows += n
    if rows:
        units.append(Unit(len(units), start, rows, tuple(groups)))
    found = storage.info(args.input)
    identity = {"path": args.input, "size": found.size, "mtime": str(found.mtime), "rows": meta.num_rows}
    return meta.num_rows, units, identity


def _slices(unit: Unit, args: RankDecksOptions) -> Iterator[tuple[int, ranking.Hands, np.ndarray | None]]:
    """A unit's decks evaluated, :data:`SLICE` at a time: (first deck, hands, the given decks or None).
    Given decks are checked: a row that is not a deck is an :class:`InputError` naming its row."""
    a = args
    if not a.input:
        yield unit.start, ranking.deal_and_evaluate(a.game, unit.decks, a.players, a.seed, a.rules, unit.start), None
        return
    start = unit.start
    batches = storage.parquet_file(a.input).iter_batches(
        batch_size=SLICE, row_groups=list(unit.groups), columns=[a.column]
    )
    for batch in batches:
        col = lists.without_views(pa.Table.from_batches([batch])).column(0)
        given = deck_rows(col, a.column, start)
        yield start, ranking.evaluate_given_decks(given, a.game, a.players, a.rules, start), given
        start += len(given)


def run(args: RankDecksOptions) -> Summary:
    """Rank the decks ``args`` describes and write ``args.out``: the ``cardbatch rank-decks`` command as
    one call."""
    s = rank(args)
    line = (
        f"cardbatch rank-decks: {s['decks']:,} decks ranked, {s['rows_written']:,} rows written in "
        f"{s['seconds']:.1f} s to {s['out']}"
    )
    return Summary(s, line, warnings=unused_options(args))


def unused_options(args: RankDecksOptions) -> tuple[str, ...]:
    """Options given away from their defaults that this run cannot use: said, never passed in silence."""
    d = RankDecksOptions
    found = []
    if args.input:
        found += [
            f"--{name} is not used with a DECKS file (the decks are read)"
            for name in ("decks", "seed")
            if getattr(args, name) != getattr(d, name)
        ]
    elif args.column != d.column:
        found.append("--column names the deck column of a DECKS file; without one it is not used")
    if args.rules != d.rules and not game_spec(args.game).rule_presets:
        found.append(f"--rules is a three-card rule preset; {args.game} does not use it")
    if args.by != d.by and args.top is None and not args.plot:
        found.append("--measure orders --top and --plot; without either it is not used")
    return tuple(found)


def figure_path(out: str) -> str:
    """The figure ``--plot`` draws beside ``out``: its name with ``.png``."""
    return os.path.splitext(str(out))[0] + ".png"


def rank(args: RankDecksOptions) -> dict[str, Any]:
    """:func:`run`'s work; returns the summary's figures. The outputs are checked first
    (:func:`~cardbatch.batch.io.owned.check_outputs`); an input that holds no decks raises an
    :class:`InputError` naming it."""
    engines.check_available(args.run)
    outputs = [args.out, figure_path(args.out)] if args.plot else [args.out]
    owned.check_outputs(outputs, "rank-decks", args.mode, [args.input] if args.input else [])
    with announced("cardbatch rank-decks", args.run.quiet):
        return _rank(args)


def _of_input(given: str | None, exc: InputError) -> InputError:
    """What the DECKS file ``given`` holds that is not decks, said with its name as given."""
    return InputError(f"{given}: {exc}" if given else str(exc))


def plan(args: RankDecksOptions, identity: dict[str, Any]) -> dict[str, Any]:
    """What decides the parts (the staging folder's plan): every option but the output's name and
    how the run runs, the DECKS file's identity (``identity``: its size and time) and the units' size."""
    from cardbatch import __version__

    asked = {f.name: getattr(args, f.name) for f in dataclasses.fields(args)}
    for name in ("out", "run", "mode"):
        del asked[name]
    return {**asked, "input": identity or None, "slice": SLICE, "cardbatch": __version__}


def _rank(args: RankDecksOptions) -> dict[str, Any]:
    if not game_spec(args.game).rule_presets:  # the rules are unused: the default preset, whatever was given
        args = dataclasses.replace(args, rules=RankDecksOptions.rules)
    given = args.input
    if given:  # the workers read it, wherever they run; messages name it as it was given
        args = dataclasses.replace(args, input=storage.absolute(given))
    try:
        total, units, identity = _source(args)
    except InputError as exc:
        raise _of_input(given, exc) from None
    t0 = time.perf_counter()
    staging = staged.Staging(args.out, "rank-decks")
    reuse = staging.begin(plan(args, identity))
    try:
        with engines.start(args.run, len(units), small=total <= SMALL_RUN) as engine:
            if units and not engine.external and not isinstance(engine, engines.InProcess):
                _compile_ahead(args)  # the workers then load the kernels this process compiled
            tally = _count(args, engine, units, staging, reuse)
            written, parts = _write(args, engine, units, staging, reuse, tally)
            engine_name, workers = engine.name, engine.workers
    except InputError as exc:  # decks that are not decks: no rerun can use these parts
        staging.finish()
        raise _of_input(given, exc) from None
    staging.finish()
    elapsed = time.perf_counter() - t0
    counted = args.detail or args.top is not None
    summary = {
        "decks": total,
        "rows_written": written,
        "seconds": round(elapsed, 3),
        "decks_per_second": round(total / elapsed) if elapsed else None,
        "out": str(args.out),
        "parts": (len(units) if counted else 0) + parts,
        "parts_reused": len(reuse),
        "engine": engine_name,
        "workers": workers,
    }
    if args.plot:
        summary["plot"] = _Shown(args, tally.arrays).draw(figure_path(args.out))
    else:  # a figure an earlier --plot run drew of another ranking would sit beside this one
        owned.remove_ours([figure_path(args.out)], "rank-decks")
    return summary


def _count(
    args: RankDecksOptions, engine: engines.Engine, units: list[Unit], staging: staged.Staging, reuse: frozenset[str]
) -> Tally:
    """The counting pass (``--detail`` or ``--top``; global ranks need the whole run's counts): every
    unit's tally (its key counts, its best ``--top`` decks, what ``--plot`` draws), added up here.
    Without it, an empty tally."""
    tally = Tally(args, counting=True, plot=args.plot)
    if not (args.detail or args.top is not None):
        return tally
    todo = [u for u in units if staged.part_name(u.index, "tally") not in reuse]
    quiet, verbose = args.run.quiet, args.run.verbose
    with progress(
        total=sum(u.decks for u in units), desc="rank-decks: counting", unit="deck", quiet=quiet, verbose=verbose
    ) as bar:
        for u in units:
            if u not in todo:
                tally.merge(_read_tally(staging, u))
                bar.update(u.decks)
        for u, arrays in engine.map(functools.partial(count_unit, args=args, staging=staging), todo, ordered=True):
            tally.merge(arrays)
            bar.update(u.decks)
    return tally


def count_unit(unit: Unit, args: RankDecksOptions, staging: staged.Staging) -> dict[str, np.ndarray]:
    """The counting pass of ``unit`` (any worker): its tally, written as its ``tally`` part and returned."""
    tally = Tally(args, counting=True, plot=args.plot)
    ranked = args.top is not None or args.plot  # the measures need a ranking; the counts alone do not
    for _, hands, _ in _slices(unit, args):
        counts = ranking.key_counts(hands)
        tally.add(ranking.rank(hands, counts) if ranked else None, counts)
    staged.write_part(staging.path(staged.part_name(unit.index, "tally")), tally.table())
    return tally.arrays


def _read_tally(staging: staged.Staging, unit: Unit) -> dict[str, np.ndarray]:
    """The tally an earlier run of the same plan left as ``unit``'s part."""
    table = staged.read_part(staging.path(staged.part_name(unit.index, "tally")))
    return {n: table.column(n).combine_chunks().flatten().to_numpy().astype(np.int64) for n in table.column_names}


def _write(
    args: RankDecksOptions,
    engine: engines.Engine,
    units: list[Unit],
    staging: staged.Staging,
    reuse: frozenset[str],
    tally: Tally,
) -> tuple[int, int]:
    """The writing pass: each unit writes its rows as a part (with ``--top``, only the units holding
    a chosen deck, each its chosen rows); this process joins the parts' bytes in order (``--top``:
    writes the chosen rows best first), under a temporary name until complete. Without a counting pass, the
    units tally what ``--plot`` draws too. Returns the rows written and the parts the pass has."""
    counts = tally.arrays.get("counts") if args.detail else None
    chosen = np.sort(tally.arrays["top_deck"]) if args.top is not None else None
    writing = []
    for u in units:
        if chosen is not None:
            mine = chosen[(chosen >= u.start) & (chosen < u.start + u.decks)]
            if not len(mine):
                continue
            u = dataclasses.replace(u, chosen=tuple(int(d) for d in mine))
        writing.append(u)
    plotting = args.plot and not (args.detail or args.top is not None)  # no counting pass tallied it
    kinds = (ROWS, "tally") if plotting else (ROWS,)
    todo = [u for u in writing if any(_part(u, k) not in reuse for k in kinds)]
    task = functools.partial(write_unit, args=args, staging=staging, counts=counts, plotting=plotting)
    quiet, verbose = args.run.quiet, args.run.verbose
    with progress(
        total=sum(u.decks for u in units), desc="rank-decks: writing", unit="deck", quiet=quiet, verbose=verbose
    ) as bar:
        bar.update(sum(u.decks for u in units) - sum(u.decks for u in todo))  # none of theirs is made
        for u in writing:
            if plotting and u not in todo:
                tally.merge(_read_tally(staging, u))
        for u, tallied in engine.map(task, todo):
            if tallied is not None:
                tally.merge(tallied)
            bar.update(u.decks)
    paths = [staging.path(_part(u, ROWS)) for u in writing]
    written = sum(storage.parquet_file(p).metadata.num_rows for p in paths)
    seal = owned.parquet_metadata("rank-decks")
    if chosen is None and written:  # the parts' bytes, one after the other
        parquet_concat.concat(paths, args.out, seal)
        return written, len(writing) * len(kinds)
    writer = storage.PublishedParquet(args.out, seal=seal)
    try:
        if written:  # the top decks, best first
            t = pa.concat_tables([storage.parquet_file(p).read() for p in paths])
            writer.write(t.take(np.searchsorted(t.column("deck").to_numpy(), tally.arrays["top_deck"])))
        else:  # no deck given, or --top 0: the file has the columns and no row
            writer.write(_no_rows(args))
        writer.close()
    except BaseException:
        writer.abort()
        raise
    return written, len(writing) * len(kinds)


def _part(unit: Unit, kind: str) -> str:
    """The name of ``unit``'s part of ``kind``: its rows (the output's own Parquet) or its tally."""
    return staged.part_name(unit.index, kind, "parquet" if kind == ROWS else "arrow")


ROWS = "rows"


def write_unit(
    unit: Unit, args: RankDecksOptions, staging: staged.Staging, counts: np.ndarray | None, plotting: bool
) -> dict[str, np.ndarray] | None:
    """The writing pass of ``unit`` (any worker): its rows (``counts``: the run's, for ``--detail``'s
    global ranks), written as its ``rows`` part; with ``plotting``, its tally of what ``--plot``
    draws too (a ``tally`` part, also returned)."""
    tally = Tally(args, counting=False, plot=True) if plotting else None
    chosen = np.array(unit.chosen, np.int64) if unit.chosen is not None else None
    tables = []
    for start, hands, given in _slices(unit, args):
        n = hands.keys.shape[0]
        # without --detail no global rank is written: any counts will do
        r = ranking.rank(hands, counts if counts is not None else np.zeros(hands.domain, np.int64))
        if tally is not None:
            tally.add(r, None)
        rows = np.arange(n) if chosen is None else chosen[(chosen >= start) & (chosen < start + n)] - start
        if len(rows):
            decks = (
                (given if given is not None else kdecks.deal_decks(n, args.seed, start))[rows] if args.detail else None
            )
            tables.append(ranking_table(r, rows, decks, args.game, args.players, args.rules))
    table = pa.concat_tables(tables) if tables else _no_rows(args)
    staged.write_parquet_part(staging.path(_part(unit, ROWS)), table)
    if tally is None:
        return None
    staged.write_part(staging.path(staged.part_name(unit.index, "tally")), tally.table())
    return tally.arrays


def _compile_ahead(args: RankDecksOptions) -> None:
    """Two decks of the run in this process, which compiles (once, said on stderr) or loads every
    kernel the units need, so that the workers load them from numba's cache instead."""
    decks = kdecks.deal_decks(2, args.seed)
    if args.input:
        hands = ranking.evaluate_given_decks(decks, args.game, args.players, args.rules)
    else:
        hands = ranking.deal_and_evaluate(args.game, 2, args.players, args.seed, args.rules)
    r = ranking.rank(hands, ranking.key_counts(hands))
    ranking_table(r, np.arange(2), decks if args.detail else None, args.game, args.players, args.rules)


def _no_rows(args: RankDecksOptions) -> pa.Table:
    """The output's columns with no row: what a run of no decks (or ``--top 0``) writes."""
    none = np.zeros((0, DECK), np.uint8)
    hands = ranking.evaluate_given_decks(none, args.game, args.players, args.rules)
    r = ranking.rank(hands, np.zeros(hands.domain, np.int64))
    return ranking_table(r, np.zeros(0, np.int64), none if args.detail else None, args.game, args.players, args.rules)


_NONE = np.zeros(0, np.int64)


class Tally:
    """What a unit gathers of its decks for the run, added up here: with ``counting``, the key counts
    (``counts``: global ranks need the whole run's) and the best ``--top`` decks by ``--measure``
    (``top_measure``, ``top_deck``); with ``plot``, what ``--plot`` draws: the best hands' categories,
    the margins in hand classes, and the best decks (``--top`` of them, or ten) with their best
    hand and margin. Named int64 arrays (:attr:`arrays`), small, that travel as a record and as a
    part. Adding two tallies (:meth:`merge`) is exact and does not depend on their order (the best
    decks by measure, ties by the lower deck: one total order), so the run's tally, its file and its
    figure are the same however its decks were cut into units and whatever ran them."""

    def __init__(self, args: RankDecksOptions, counting: bool, plot: bool) -> None:
        self.args = args
        self.counting = counting
        self.plot = plot
        self.arrays: dict[str, np.ndarray] = {}
        if plot:
            names = readable.category_names(args.game, args.rules)
            self.arrays.update(categories=np.zeros(len(names), np.int64), margins=np.zeros(1, np.int64))
            self.arrays.update({f"plot_{k}": _NONE for k in ("measure", "deck", "best", "margin")})

    def add(self, r: ranking.DeckRanking | None, counts: np.ndarray | None) -> None:
        """A slice's ranking ``r`` (None: only its key ``counts`` are wanted)."""
        a = self.args
        new: dict[str, np.ndarray] = {}
        if self.counting and counts is not None:
            new["counts"] = counts.astype(np.int64)
        if r is None:
            self.merge(new)
            return
        decks = r.start + np.arange(len(r.best), dtype=np.int64)
        measure = r.measure(a.by).astype(np.int64)
        if self.counting and a.top is not None:
            new.update(top_measure=measure, top_deck=decks)
        if self.plot:
            names = readable.category_names(a.game, a.rules)
            margins = readable.margin_classes(r.best, r.second, a.game, a.rules).astype(np.int64)
            new.update(
                categories=np.bincount(readable.categories(r.best, a.game, a.rules), minlength=len(names)),
                margins=np.bincount(margins),
                plot_measure=measure,
                plot_deck=decks,
                plot_best=r.best.astype(np.int64),
                plot_margin=margins,
            )
        self.merge(new)

    def merge(self, other: dict[str, np.ndarray]) -> None:
        """Add another tally's arrays to this one's."""
        mine = self.arrays
        for name in ("counts", "categories", "margins"):
            if name in other:
                mine[name] = _added(mine.get(name), other[name])
        # the measure and tie order of the file's --top, so that the figure lists the file's decks
        for prefix, k in (("top", self.args.top), ("plot", self.args.top if self.args.top is not None else 10)):
            if f"{prefix}_deck" in other and k is not None:
                names = [n for n in other if n.startswith(f"{prefix}_")]
                both = {n: np.concatenate([mine.get(n, _NONE), other[n]]).astype(np.int64) for n in names}
                keep = np.lexsort((both[f"{prefix}_deck"], -both[f"{prefix}_measure"]))[:k]
                mine.update({n: both[n][keep] for n in names})

    def table(self) -> pa.Table:
        """The arrays as a one-row table of int64 lists (a part)."""
        return pa.table(
            {
                n: pa.ListArray.from_arrays(pa.array([0, len(v)], pa.int32()), pa.array(v, pa.int64()))
                for n, v in self.arrays.items()
            }
        )


def _added(mine: np.ndarray | None, other: np.ndarray) -> np.ndarray:
    """Two counts added, the shorter one padded with zeros."""
    if mine is None:
        return other.astype(np.int64)
    size = max(len(mine), len(other))
    total = np.zeros(size, np.int64)
    total[: len(mine)] += mine
    total[: len(other)] += other
    return total


class _Shown:
    """What ``--plot`` draws, from the run's :class:`Tally`: the best hands' categories, the margins
    in hand classes, and the top decks by ``--measure`` (``--top`` of them, or ten), ranked as the
    file's ``--top`` ranks them, so that the figure lists the decks the file holds."""

    def __init__(self, args: RankDecksOptions, arrays: dict[str, np.ndarray]) -> None:
        self.args = args
        self.names = readable.category_names(args.game, args.rules)
        self.categories = arrays["categories"]
        self.margins = arrays["margins"]
        self.top = tuple(arrays[f"plot_{k}"] for k in ("measure", "deck", "best", "margin"))

    def draw(self, path: str) -> str:
        """The figure, written to ``path``; or why it was not."""
        try:
            import matplotlib

            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
            import matplotlib.ticker
        except ImportError:
            return PLOT_MISSING
        a = self.args
        total = int(self.categories.sum())
        source = f"decks of {a.input}" if a.input else f"decks, seed {a.seed}"
        rules = f" ({a.rules} rules)" if game_spec(a.game).rule_presets else ""
        fig = plt.figure(figsize=(16, 6.2), dpi=100, layout="constrained")
        grid = fig.add_gridspec(1, 3, width_ratios=[1, 1, 1.45])
        fig.suptitle(f"rank-decks: {a.game}{rules}, {a.players} players, {total:,} {source}", fontsize=15)
        ax = fig.add_subplot(grid[0])
        share = 100 * self.categories / max(total, 1)
        ax.barh(range(len(self.names)), share, color="tab:blue")
        ax.set_yticks(range(len(self.names)), self.names, fontsize=11)
        ax.set_xscale("log")
        shown_shares = share[share > 0]
        if shown_shares.size:  # labelled ticks at 1-2-5 steps across the shares (a decade alone shows one)
            steps = [m * 10.0**e for e in range(-4, 3) for m in (1, 2, 5)]
            ticks = [t for t in steps if shown_shares.min() / 2 <= t <= min(100.0, shown_shares.max() * 2)]
            ax.xaxis.set_major_locator(matplotlib.ticker.FixedLocator(ticks))
            ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
        ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax.set_xlabel("share of decks, % (log scale)", fontsize=11)
        ax.set_title("Category of each deck's best hand", fontsize=13)
        for i, v in enumerate(share):
            if v > 0:
                ax.text(v, i, f" {v:.3g} %", va="center", fontsize=10)
        ax = fig.add_subplot(grid[1])
        classes = np.flatnonzero(self.margins)
        ax.bar(classes, self.margins[classes], width=max(1, len(self.margins) / 120), color="tab:orange")
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:,.0f}"))
        ax.set_xlabel("margin: hand classes between best and runner-up (0 = tie)", fontsize=11)
        ax.set_ylabel("decks (log scale)", fontsize=11)
        ties = 100 * self.margins[0] / max(total, 1)
        ax.set_title(f"Margin of the best hand ({ties:.2g} % ties)", fontsize=13)
        ax = fig.add_subplot(grid[2])
        ax.axis("off")

        def describe(v: Any) -> str:
            return readable.describe(int(v), a.game, a.rules)

        by_margin = a.by == "margin"
        rows = [
            [str(i + 1), f"{int(d):,}", describe(b)] + ([f"{int(v):,}"] if by_margin else []) + [str(int(m))]
            for i, (v, d, b, m) in enumerate(zip(*self.top))
        ]
        if rows:
            table = ax.table(
                cellText=rows,
                colLabels=["#", "deck", "best hand"] + (["margin"] if by_margin else []) + ["margin (classes)"],
                loc="upper center",
                colWidths=[0.05, 0.13, 0.41, 0.14, 0.25] if by_margin else [0.05, 0.13, 0.55, 0.22],
                cellLoc="left",
            )
            table.auto_set_font_size(False)
            table.set_fontsize(10)
            table.scale(1, 1.35)
        written = f", the rows of {os.path.basename(str(a.out))}" if a.top is not None else ""
        ax.set_title(f"Top {len(rows)} decks by {a.by}{written}", fontsize=13)
        buf = io.BytesIO()
        fig.savefig(buf, format="png", metadata=owned.png_metadata("rank-decks"))
        plt.close(fig)
        storage.write_bytes(path, buf.getvalue())
        return path
