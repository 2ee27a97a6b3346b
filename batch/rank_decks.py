"""``cardbatch rank-decks``: deal (or read) decks, rank every seat, write Parquet.

Two passes over slices of decks: the first counts every hand value of the run
(global ranks need the whole run) and, with ``--top``, keeps the best decks by
the chosen measure; the second re-deals each slice (decks are counter-based,
so this is cheap and identical) and writes its rows. Given decks (a ``DECKS`` file)
are read twice instead. The output is written to a temporary name and renamed
when complete.
"""

from __future__ import annotations

import dataclasses
import io
import os
import time
from collections.abc import Iterator
from typing import Any

import numpy as np
import pyarrow as pa

from cardbatch.batch.io import lists, owned, storage
from cardbatch.batch.io.columns import fixed_size_list
from cardbatch.batch.io.compiling import announced
from cardbatch.batch.io.errors import InputError
from cardbatch.batch.io.jobs import FILE_MODES, FileMode, RunOptions, Summary
from cardbatch.batch.io.progress import progress
from cardbatch.games import ZJH
from cardbatch.games import game as game_spec
from cardbatch.kernels import decks as kdecks
from cardbatch.kernels import ranking, readable, threecard

SLICE = 1 << 20
DECK = 52  # cards in a deck: every row of a DECKS file holds them all, once each
PLOT_MISSING = "skipped: matplotlib is not installed (pip install 'cardbatch[plots]')"


def _dealt_cards(deck_rows: np.ndarray, game: str, players: int) -> dict[str, pa.Array]:
    spec = game_spec(game)
    if spec.name not in ranking.RANKED:
        raise ValueError(f"game must be one of {', '.join(ranking.RANKED)}, got {game!r}")
    if not spec.board_cards:
        return {"hands": fixed_size_list(deck_rows[:, kdecks.zjh_positions(players).reshape(-1)])}
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


class _Source:
    """Slices of decks: generated from a seed, or read from a Parquet column of 52-card decks (checked:
    a row that is not a deck stops the run with an :class:`InputError` naming it)."""

    def __init__(self, args: RankDecksOptions):
        self.args = args
        if args.input:
            try:
                pf = storage.parquet_file(args.input)
            except (OSError, pa.ArrowException) as exc:  # a folder, a file that is not Parquet
                raise InputError(f"cannot read it as Parquet: {exc}") from None
            check_deck_column(pf.schema_arrow, args.column)
            self.total = pf.metadata.num_rows
        else:
            self.total = args.decks

    def slices(self) -> Iterator[tuple[int, ranking.Hands, np.ndarray | None]]:
        a = self.args
        if a.input:
            start = 0
            for batch in storage.parquet_file(a.input).iter_batches(batch_size=SLICE, columns=[a.column]):
                col = lists.without_views(pa.Table.from_batches([batch])).column(0)
                given = deck_rows(col, a.column, start)
                yield start, ranking.evaluate_given_decks(given, a.game, a.players, a.rules, start), given
                start += len(given)
        else:
            for start in range(0, a.decks, SLICE):
                n = min(SLICE, a.decks - start)
                yield start, ranking.deal_and_evaluate(a.game, n, a.players, a.seed, a.rules, start), None

    def decks_of(self, start: int, n: int, given: np.ndarray | None) -> np.ndarray:
        return given if given is not None else kdecks.deal_decks(n, self.args.seed, start)


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
    outputs = [args.out, figure_path(args.out)] if args.plot else [args.out]
    owned.check_outputs(outputs, "rank-decks", args.mode, [args.input] if args.input else [])
    try:
        with announced("cardbatch rank-decks", args.run.quiet):
            return _rank(args)
    except InputError as exc:
        raise InputError(f"{args.input}: {exc}" if args.input else str(exc)) from None


def _rank(args: RankDecksOptions) -> dict[str, Any]:
    quiet, verbose = args.run.quiet, args.run.verbose
    if not game_spec(args.game).rule_presets:  # the rules are unused: the default preset, whatever was given
        args = dataclasses.replace(args, rules=RankDecksOptions.rules)
    source = _Source(args)
    t0 = time.perf_counter()
    counts = None
    best: tuple[np.ndarray, np.ndarray] = (np.zeros(0, np.int64), np.zeros(0, np.int64))  # (measure, deck)
    first_pass = args.detail or args.top is not None
    with progress(
        total=source.total, desc="rank-decks: counting", unit="deck", quiet=quiet or not first_pass, verbose=verbose
    ) as bar:
        for start, hands, _ in source.slices() if first_pass else ():
            c = ranking.key_counts(hands)
            counts = c if counts is None else counts + c
            if args.top is not None:
                m = ranking.rank(hands, c).measure(args.by)
                merged_m = np.concatenate([best[0], m])
                merged_d = np.concatenate([best[1], start + np.arange(len(m))])
                keep = np.lexsort((merged_d, -merged_m))[: args.top]
                best = (merged_m[keep], merged_d[keep])
            bar.update(hands.keys.shape[0])
    out = args.out  # a path or a URI (see .storage)
    tmp = storage.temporary_for(out, f".{os.getpid()}")
    written = 0
    writer = None
    shown = _Shown(args) if args.plot else None
    try:
        with progress(total=source.total, desc="rank-decks: writing", unit="deck", quiet=quiet, verbose=verbose) as bar:
            for start, hands, given in source.slices():
                n = hands.keys.shape[0]
                # without --detail no global rank is written: any counts will do, none are gathered
                r = ranking.rank(hands, counts if counts is not None else np.zeros(hands.domain, np.int64))
                if shown is not None:
                    shown.add(r, source.decks_of(start, n, given) if given is not None else None)
                if args.top is None:
                    rows = np.arange(n)
                else:
                    chosen = best[1][(best[1] >= start) & (best[1] < start + n)]
                    rows = np.sort(chosen - start)
                if len(rows):
                    deck_rows = source.decks_of(start, n, given)[rows] if args.detail else None
                    table = ranking_table(r, rows, deck_rows, args.game, args.players, args.rules)
                    # dictionary pages kept: these columns repeat (10 M decks, lean: 4.7 s and 127 MB with
                    # them, 4.9 s and 164 MB without; --detail 13.3 s and 374 MB against 15.9 s and 538 MB)
                    if writer is None:
                        writer = _open(tmp, table.schema)
                    writer.write(table)
                    written += len(rows)
                bar.update(n)
        if writer is None:  # no deck given, or --top 0: the file has the columns and no row
            table = _no_rows(args)
            writer = _open(tmp, table.schema)
            writer.write(table)
        writer.flush()
        if args.top is None:
            owned.seal(writer.writer, "rank-decks")
        writer.writer.close()
        if args.top is not None:  # order the top decks by measure, best first
            t = storage.parquet_file(tmp).read()
            order = {int(d): i for i, d in enumerate(best[1])}
            idx = np.argsort([order[int(d)] for d in t.column("deck").to_numpy()])
            with storage.parquet_writer(tmp, t.schema, **storage.WRITE_OPTIONS) as rewrite:
                rewrite.write_table(t.take(idx), row_group_size=storage.ROW_GROUP_MAX)
                owned.seal(rewrite, "rank-decks")
        storage.publish(tmp, out)
    finally:
        if storage.exists(tmp):
            storage.delete(tmp)
    elapsed = time.perf_counter() - t0
    summary = {
        "decks": source.total,
        "rows_written": written,
        "seconds": round(elapsed, 3),
        "decks_per_second": round(source.total / elapsed) if elapsed else None,
        "out": str(out),
    }
    if shown is not None:
        summary["plot"] = shown.draw(figure_path(out))
    else:  # a figure an earlier --plot run drew of another ranking would sit beside this one
        owned.remove_ours([figure_path(out)], "rank-decks")
    return summary


def _open(path: str, schema: pa.Schema) -> storage.RowGroups:
    """A writer of the output's row groups at ``path``, the file marked as rank-decks'."""
    return storage.RowGroups(storage.parquet_writer(path, schema, **storage.WRITE_OPTIONS))


def _no_rows(args: RankDecksOptions) -> pa.Table:
    """The output's columns with no row: what a run of no decks (or ``--top 0``) writes."""
    none = np.zeros((0, DECK), np.uint8)
    hands = ranking.evaluate_given_decks(none, args.game, args.players, args.rules)
    r = ranking.rank(hands, np.zeros(hands.domain, np.int64))
    return ranking_table(r, np.zeros(0, np.int64), none if args.detail else None, args.game, args.players, args.rules)


class _Shown:
    """What ``--plot`` draws, gathered slice by slice: the best hands' categories, the margins in
    hand classes, and the top decks by ``--measure`` (``--top`` of them, or ten), ranked as the file's
    ``--top`` ranks them, so that the figure lists the decks the file holds."""

    def __init__(self, args: RankDecksOptions) -> None:
        self.args = args
        self.names = readable.category_names(args.game, args.rules)
        self.categories = np.zeros(len(self.names), np.int64)
        self.margins = np.zeros(1, np.int64)
        self.k = args.top if args.top is not None else 10
        self.top: tuple[np.ndarray, ...] = tuple(np.zeros(0, np.int64) for _ in range(4))
        self.given: dict[int, np.ndarray] = {}

    def add(self, r: ranking.DeckRanking, given: np.ndarray | None) -> None:
        a = self.args
        cats = readable.categories(r.best, a.game, a.rules)
        self.categories += np.bincount(cats, minlength=len(self.names))
        m = readable.margin_classes(r.best, r.second, a.game, a.rules)
        counts = np.bincount(m)
        if len(counts) > len(self.margins):
            self.margins = np.concatenate([self.margins, np.zeros(len(counts) - len(self.margins), np.int64)])
        self.margins[: len(counts)] += counts
        measure, deck = self.top[0], self.top[1]
        # the measure and tie order of the file's --top, so that the figure lists the file's decks
        merged = (
            np.concatenate([measure, r.measure(a.by).astype(np.int64)]),
            np.concatenate([deck, r.start + np.arange(len(r.best))]),
            np.concatenate([self.top[2], r.best.astype(np.int64)]),
            np.concatenate([self.top[3], m.astype(np.int64)]),
        )
        keep = np.lexsort((merged[1], -merged[0]))[: self.k]
        self.top = tuple(x[keep] for x in merged)
        if given is not None:
            for d in self.top[1]:
                if r.start <= d < r.start + len(given):
                    self.given[int(d)] = given[d - r.start]

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
