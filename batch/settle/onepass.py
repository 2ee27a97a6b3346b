"""Settle one Arrow table of a two-hole-card board game (Hold'em, short deck) in one kernel pass.

The columns' buffers go to :func:`cardbatch.kernels.onepass.settle_board_batch` as they are
where their layout allows (integer lists, the ``folded`` bits); card text is parsed first into
card codes. What the kernel does not take (another game, a per-street policy, a column type it
was not written for) returns None from :func:`settle_one_pass`, and the reference path
(:mod:`.poker`) settles the table: both give the same results, errors and counters, which the
tests check row by row.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from cardbatch.batch.io.arrays import arrow_of, numpy_of, scalar_of
from cardbatch.batch.io.errors import UsageError
from cardbatch.batch.io.lists import (
    combined,
    differs_from_list,
    frozen,
    int_column,
    int_list_parts,
    list_array,
    list_layout,
    list_offsets,
    missing_rows,
    padded_rows,
    recorded_list,
    take_list,
)
from cardbatch.batch.settle.assemble import finish
from cardbatch.batch.settle.cardcols import cards_given_mask, cards_matrix
from cardbatch.batch.settle.options import ORIGIN, SettleOptions
from cardbatch.batch.settle.rejects import CODE
from cardbatch.games import REGISTRY, Game
from cardbatch.kernels import pots

_EMPTY_U8 = np.zeros(0, np.uint8)
_EMPTY_I64 = np.zeros(0, np.int64)


def applies(spec: Game, opts: SettleOptions) -> bool:
    """The one-pass kernel settles this game under these options, in this run: not in a run of one
    batch or less (the kernels' serial builds, :mod:`cardbatch.kernels.twins`), which compiling
    dominates: the reference path's kernels, which every card game shares, compile once for all of
    them (the README's first run took 24 s with the pass compiled beside them, 12 s without)."""
    from cardbatch.kernels import twins

    return bool(spec.one_pass and opts.pots.policy == pots.Policy.STANDARD and not twins.in_serial())


def _read_only(*groups: tuple[Any, ...]) -> tuple[tuple[Any, ...], ...]:
    """The kernel's inputs with every array read-only (:func:`~cardbatch.batch.io.lists.frozen`):
    Arrow's buffers arrive read-only and copies writable, and numba compiles the kernel again, for
    most of a minute, for each mix it meets (a batch with a null, a column cast on reading)."""
    return tuple(tuple(frozen(a) if isinstance(a, np.ndarray) else a for a in g) for g in groups)


def _is_list(t: pa.DataType) -> bool:
    return bool(pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t))


def _missing(table: pa.Table, names: tuple[str, ...]) -> np.ndarray | None:
    """``bool[T]`` rows with a null cell or a null element in any of ``names``; None when there are none
    (read from the null counts, no pass over the rows)."""
    out = None
    for name in names:
        arr = combined(table.column(name))
        nulls = arr.null_count
        if _is_list(arr.type) and not nulls:
            nulls = combined(list_layout(arr)[0]).null_count
        if nulls:
            rows = missing_rows(arr)
            out = rows if out is None else out | rows
    return out


def _folded(col: pa.ChunkedArray) -> tuple[np.ndarray, int, np.ndarray, np.ndarray] | None:
    """``(bits, first bit, starts, lengths)`` of a ``list<bool>`` (integers read as ``!= 0``), or None."""
    arr = combined(col)
    if not _is_list(arr.type):
        return None
    child, starts, lengths = list_layout(arr)
    if pa.types.is_integer(child.type):
        child = pc.not_equal(child, pa.scalar(0, child.type))
    if not pa.types.is_boolean(child.type):
        return None
    child = combined(child)
    data = child.buffers()[1]
    bits = np.frombuffer(data, np.uint8) if data is not None else np.zeros(1, np.uint8)
    return bits, int(child.offset), starts, lengths


def _card_codes(col: pa.ChunkedArray, per: int, width: int, words: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(codes uint8, starts, counts)``: a list of integer codes as it is (codes beyond 0..255 as 254,
    a bad card), anything else through the reference's reader (text, one string a seat, dictionaries)."""
    arr = combined(col)
    if _is_list(arr.type):
        child, starts, lengths = list_layout(arr)
        if pa.types.is_integer(child.type):
            vals = numpy_of(child) if child.null_count == 0 else None
            if vals is None:
                vals = numpy_of(pc.fill_null(child, scalar_of(0, child.type)))
            if vals.dtype != np.uint8:
                vals = np.where((vals < 0) | (vals > 255), 254, vals).astype(np.uint8)
            return vals, starts, lengths
    padded, counts = cards_matrix(arr, per, width, seats_in_words=words)
    return padded.reshape(-1), np.arange(len(arr), dtype=np.int64) * width, counts


def _settle_deferred(
    table: pa.Table,
    rows: np.ndarray,
    opts: SettleOptions,
    S: int,
    folded: tuple[np.ndarray, int, np.ndarray, np.ndarray],
    dead: tuple[np.ndarray, ...],
    board: tuple[np.ndarray, np.ndarray, np.ndarray],
    place: np.ndarray,
    out: tuple[np.ndarray, ...],
    button: np.ndarray,
) -> None:
    """Settle the tables the kernel left for the pots' rows kernel (dead chips): from the values and
    chips it wrote at their places, as the reference path settles them; writes ``out`` in place."""
    codes, score, payout, seat_chips, rake, npots, mismatch, compared = out
    bits, first_bit, fstarts, seats = folded
    n = seats[rows]
    seat = np.arange(S)[None, :]
    inside = seat < n[:, None]
    bit = np.where(inside, first_bit + fstarts[rows][:, None] + seat, 0)
    live = inside & (((bits[bit >> 3] >> (bit & 7)) & 1) == 0)
    contrib = padded_rows(seat_chips, place[rows], n, S)[:, None, :]
    values = padded_rows(score, place[rows], n, S).astype(np.int64)
    dead_chips = padded_rows(dead[0], dead[1][rows], n, S)
    nfnd = None
    if opts.no_flop_no_drop:
        bvals, bstarts, bcount = board
        cards = padded_rows(bvals, bstarts[rows], np.minimum(bcount[rows], 5), 5)
        present = np.arange(5)[None, :] < np.minimum(bcount[rows], 5)[:, None]
        nfnd = (~present | (cards == 255)).all(axis=1)
    d = pots.settle_detailed(
        contrib,
        live,
        values,
        button[rows],
        options=opts.pots,
        no_flop_no_drop=nfnd,
        dead=dead_chips,
        raise_on_error=False,
        detail=True,  # every table through the rows kernel alone: nothing else compiles for them
    )
    codes[rows] = d.status
    ok = d.status == 0
    kept = rows[ok]
    rake[kept] = d.rake[ok]
    npots[kept] = d.pots[ok]
    for i in np.flatnonzero(ok):  # rows with dead chips are few
        t = rows[i]
        payout[place[t] : place[t] + n[i]] = d.payout[i, : n[i]]
    if "payout" in table.column_names and kept.size:
        offsets = list_offsets(n[ok])
        recorded = combined(table.column("payout")).take(pa.array(kept))
        differs, given = differs_from_list(d.payout[ok], offsets, recorded)
        mismatch[kept] = differs
        compared[kept] = given


def settle_one_pass(
    table: pa.Table, spec: Game, opts: SettleOptions, inferred: bool = False
) -> tuple[pa.Table, pa.Table, dict[str, Any]] | None:
    """:func:`~cardbatch.batch.settle.poker.settle_hands` through the one-pass kernel: (results,
    errors, counters), or None when the kernel does not take this table (the caller settles it by
    the reference path)."""
    if not applies(spec, opts):
        return None
    folded = _folded(table.column("folded"))
    if folded is None:
        return None
    from cardbatch.kernels import onepass

    T = table.num_rows
    has_street = "contrib_street" in table.column_names
    chips_name = "contrib_street" if has_street else "contrib"
    pre = np.zeros(T, np.int16)
    missing = _missing(table, (*spec.required, chips_name))
    if missing is not None:
        pre[missing] = CODE["missing_value"]
    hand_id, hand_id_big = int_column(table.column("hand_id"), "hand_id", -1)
    pre[hand_id_big & (pre == 0)] = CODE["overflow"]
    button, button_big = int_column(table.column("button"), "button", -1)
    button = np.where(button_big, -1, button) if button_big.any() else button

    bits, first_bit, fstarts, seats = folded
    S = int(min(max(seats.max() if T else 0, 1), spec.max_seats))
    cvals, cstarts, clen, cbig = int_list_parts(table.column(chips_name), chips_name)
    if "dead" in table.column_names:
        dcol = table.column("dead")
        dvals, dstarts, dlen, dbig = int_list_parts(dcol, "dead")
        dead = (dvals, dstarts, dlen, dbig.view(np.uint8), missing_rows(dcol).view(np.uint8))
    else:
        dead = (_EMPTY_I64, _EMPTY_I64, _EMPTY_I64, _EMPTY_U8, _EMPTY_U8)
    per = spec.hole_cards
    hole = _card_codes(table.column("cards"), per, S * per, True)
    board = _card_codes(table.column("board"), 1, spec.board_cards, False)
    gng = _EMPTY_U8
    if inferred:
        gng = cards_given_mask(table.column("cards"), hole[2], seats, per).view(np.uint8)
    if "payout" in table.column_names:
        rvals, rstarts, rlen, rgiven, rbad = recorded_list(table.column("payout"), "payout")
        recorded = (rvals, rstarts, rlen, rgiven.view(np.uint8), rbad.view(np.uint8))
    else:
        recorded = (_EMPTY_I64, _EMPTY_I64, _EMPTY_I64, _EMPTY_U8, _EMPTY_U8)

    place = np.zeros(T + 1, np.int64)
    np.cumsum(np.minimum(seats, S), out=place[1:])
    N = int(place[-1])
    codes = np.zeros(T, np.int16)
    score = np.zeros(N, np.uint32)
    payout = np.empty(N, np.int64)
    seat_chips = np.empty(N, np.int64)
    rake = np.zeros(T, np.int64)
    npots = np.zeros(T, np.int64)
    mismatch = np.zeros(T, np.uint8)
    compared = np.zeros(T, np.uint8)
    game = (
        np.int64(S),
        np.int64(spec.min_seats),
        np.int64(spec.max_seats),
        np.uint8(4 * spec.lowest_rank),
        bool(opts.no_flop_no_drop),
        "dead" in table.column_names,
    )
    options = spec.evaluator_options(opts.trips_beat_straight)
    onepass.settle_board_batch(
        *_read_only(
            (pre, button, gng),
            (bits, np.int64(first_bit), fstarts, seats),
            (cvals, cstarts, clen, cbig.view(np.uint8), has_street),
            dead,
            hole,
            board,
            recorded,
        ),
        game,
        spec.kernel().value_tables(**options),
        opts.pots.lower(False, 0, False),
        place,
        (codes, score, payout, seat_chips, rake, npots, mismatch, compared),
    )
    deferred = np.flatnonzero(codes == onepass.DEFERRED)
    if deferred.size:
        _settle_deferred(
            table,
            deferred,
            opts,
            S,
            folded,
            dead,
            board,
            place,
            (codes, score, payout, seat_chips, rake, npots, mismatch, compared),
            button,
        )
    good = np.flatnonzero(codes == 0)
    offsets = np.empty(good.size + 1, np.int64)
    kept = onepass.compact(codes, place, score, payout, seat_chips, offsets)
    score, payout, seat_chips = score[:kept], payout[:kept], seat_chips[:kept]
    if kept > np.iinfo(np.int32).max:
        raise UsageError("a list column of more than 2**31 values: use smaller batches (--batch-rows)")
    offsets32 = offsets.astype(np.int32)
    g = None if good.size == T else good
    if spec.category_shift is not None:
        category = (score >> spec.category_shift).astype(np.uint8)
    else:
        category = np.zeros(kept, np.uint8)
        shown = score > 0
        if shown.any():
            category[shown] = spec.kernel().category_of(score[shown], **options)
    kept_rake = rake if g is None else rake[g]
    cols: dict[str, pa.Array] = {
        "hand_id": arrow_of(hand_id if g is None else hand_id[g]),
        "score": list_array(offsets32, score, pa.from_numpy_dtype(np.dtype(spec.score_type))),
        "category": list_array(offsets32, category, pa.uint8()),
        "payout": list_array(offsets32, payout, pa.int64()),
        "net": list_array(offsets32, payout - seat_chips, pa.int64()),
        "rake": arrow_of(kept_rake),
        "pots": arrow_of((npots if g is None else npots[g]).astype(np.int16)),
    }
    mismatches = 0
    if "payout" in table.column_names:
        col = table.column("payout")
        differs = mismatch.view(np.bool_) if g is None else mismatch.view(np.bool_)[g]
        given = compared.view(np.bool_) if g is None else compared.view(np.bool_)[g]
        cols["recorded_payout"] = combined(col) if g is None else take_list(col, good)
        cols["mismatch"] = arrow_of(differs, mask=~given)
        mismatches = int((differs & given).sum())
    if ORIGIN in table.column_names:
        cols[ORIGIN] = combined(table.column(ORIGIN)) if g is None else combined(table.column(ORIGIN)).take(good)
    return finish(
        table, pa.table(cols), codes, (cvals, cstarts, clen), seat_chips, payout, kept_rake, mismatches, spec, opts
    )


__all__ = ["applies", "settle_one_pass"]
assert all(REGISTRY[g].board_cards == 5 and REGISTRY[g].hole_cards == 2 for g in REGISTRY if REGISTRY[g].one_pass)
