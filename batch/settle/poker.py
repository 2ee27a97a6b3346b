"""Settle one Arrow table of recorded hands (holdem or zjh): validate, evaluate, split pots.

Columnar in, columnar out: list columns become padded ``[T, S]`` arrays,
every row gets a reason code (0 = settle it), the kernels run on the good
rows only, and two Arrow tables come back: results and errors (the original
rows with ``reason`` and ``message``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from cardbatch.batch.io.lists import (
    combined,
    elements_of,
    exact_sum,
    gather_flat,
    int_column,
    int_list_parts,
    list_array,
    list_offsets,
    list_parts,
    missing_rows,
    scatter,
    sums_overflow,
)
from cardbatch.batch.settle.cardtext import parse_column
from cardbatch.batch.settle.counters import Counters
from cardbatch.batch.settle.options import CARDS_PER_SEAT, HAND_REQUIRED, MAX_SEATS, MIN_SEATS, ORIGIN, SettleOptions
from cardbatch.batch.settle.recorded import recorded_columns
from cardbatch.batch.settle.rejects import CODE, error_rows, mark, mark_status, reason_counts
from cardbatch.kernels import cards as kcards
from cardbatch.kernels import holdem, pots, threecard

_CARD_CODE = np.zeros(4, np.int16)  # the card checker's problems as reason codes
_CARD_CODE[[kcards.CARD_BAD, kcards.CARD_MISSING]] = CODE["bad_card"]
_CARD_CODE[kcards.CARD_DUPLICATE] = CODE["duplicate_card"]


def _count_true(mask: np.ndarray) -> np.ndarray:
    """True values per row of a short ``bool[T, S]``, a column at a time (numpy's ``axis=1`` is 5x slower)."""
    cols = mask.view(np.uint8)
    total = np.zeros(mask.shape[0], np.uint8)
    for s in range(mask.shape[1]):
        total += cols[:, s]
    return total


def _cards_matrix(col: pa.ChunkedArray | pa.Array, per: int, width: int) -> tuple[np.ndarray, np.ndarray]:
    """Cards of each row as ``uint8[T, width]`` (255 padding) and how many cards each row gave.

    Accepts list<integer> or fixed_size_list<integer>, list<string> (one
    string of ``per`` cards per seat), or one string per row. Unreadable text
    and codes outside 0..255 become 254 (a bad card).
    """
    arr = combined(col)
    if pa.types.is_dictionary(arr.type):  # text cards written dictionary-encoded
        arr = arr.dictionary_decode()
    T = len(arr)
    if pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type):
        norm = pc.replace_substring(pc.fill_null(arr, ""), "10", "T")
        lengths = pc.utf8_length(norm).to_numpy(zero_copy_only=False).astype(np.int64) // 2
        out = np.full((T, width), 255, np.uint8)
        for k in np.unique(lengths):
            rows = np.flatnonzero(lengths == k)
            if 0 < k <= width:
                out[rows, :k] = parse_column(arr.take(pa.array(rows)), int(k))
        return out, lengths
    vals, starts, lengths = list_parts(arr)
    if vals.dtype.kind in "OU":
        parsed = parse_column(pa.array(vals, pa.string()), per).reshape(-1)
        return scatter(parsed, starts * per, lengths * per, width, 255, np.uint8), lengths * per
    if vals.dtype != np.uint8:
        vals = np.where((vals < 0) | (vals > 255), 254, vals).astype(np.uint8)
    return scatter(vals, starts, lengths, width, 255, np.uint8), lengths


def _dead_matrix(table: pa.Table, codes: np.ndarray, seats: np.ndarray, S: int) -> np.ndarray | None:
    """The optional ``dead`` column (docs: Rules, dead money) as ``int64[T, S]``, or None without one.

    Optional, but not guessed: a null cell or element is ``missing_value``
    (write 0 for no dead chips), a list of another length ``seat_count``.
    The kernel checks ``0 <= dead <= contrib`` and the policy.
    """
    if "dead" not in table.column_names:
        return None
    col = table.column("dead")
    mark(codes, missing_rows(col), "missing_value")
    vals, starts, lengths, big = int_list_parts(col, "dead")
    mark(codes, lengths != seats, "seat_count")
    mark(codes, big, "overflow")
    return scatter(vals, starts, lengths, S, 0, np.int64)


def settle_hands(table: pa.Table, game: str, opts: SettleOptions) -> tuple[pa.Table, pa.Table, dict[str, Any]]:
    """Settle every valid hand of ``table`` (one game); returns (results, errors, counters)."""
    T = table.num_rows
    codes = np.zeros(T, np.int16)
    has_street = "contrib_street" in table.column_names
    contrib_name = "contrib_street" if has_street else "contrib"
    for name in (*HAND_REQUIRED[game], contrib_name):  # a null cell or a null element anywhere
        mark(codes, missing_rows(table.column(name)), "missing_value")
    contrib_col = table.column(contrib_name)

    hand_id, hand_id_big = int_column(table.column("hand_id"), "hand_id", -1)
    mark(codes, hand_id_big, "overflow")
    button, button_big = int_column(table.column("button"), "button", -1)
    button = np.where(button_big, -1, button)  # out of every table's range: bad_button

    fvals, fstarts, seats = list_parts(table.column("folded"))
    S = int(max(seats.max() if T else 0, 1))
    mark(codes, (seats < MIN_SEATS) | (seats > MAX_SEATS[game]), "seat_count")
    S = min(S, MAX_SEATS[game])
    folded = scatter(fvals.astype(bool, copy=False), fstarts, seats, S, True, np.bool_)
    live = ~folded

    cvals, cstarts, clen, contrib_big = int_list_parts(contrib_col, contrib_name)
    if has_street:
        K = np.where(seats > 0, clen // np.maximum(seats, 1), 0)
        mark(codes, (clen != K * seats) | (K < 1), "seat_count")
        Kmax = int(max(K.max() if T else 1, 1))
        contrib = scatter(cvals, cstarts, clen, Kmax, 0, np.int64, row_width=seats)
        if contrib.shape[2] < S:
            contrib = np.concatenate([contrib, np.zeros((T, Kmax, S - contrib.shape[2]), np.int64)], axis=2)
        contrib = np.ascontiguousarray(contrib[:, :, :S])
    else:
        mark(codes, clen != seats, "seat_count")
        contrib = scatter(cvals, cstarts, clen, S, 0, np.int64)[:, None, :]
    # before any sum: a row whose chips do not fit int64 would wrap in every sum below
    overflow = contrib_big | sums_overflow(contrib)
    contrib_total = contrib.sum(axis=1)
    dead = _dead_matrix(table, codes, seats, S)

    per = CARDS_PER_SEAT[game]
    hole, ncards = _cards_matrix(table.column("cards"), per, S * per)
    mark(codes, ncards != seats * per, "seat_count")
    hole = hole.reshape(T, S, per)
    showdown = _count_true(live) >= 2
    need_seat = live & showdown[:, None]
    if game == "holdem":
        board, nboard = _cards_matrix(table.column("board"), 1, 5)
        mark(codes, nboard > 5, "seat_count")
    else:
        board = None
    status = kcards.seat_card_status(
        hole, board if board is not None else np.zeros((T, 0), np.uint8), need_seat, showdown
    )
    mark_status(codes, status, _CARD_CODE)
    mark(codes, overflow, "overflow")

    # scores of live seats at showdowns of rows still valid
    special = None
    rules = threecard.rules_of(opts.rules)  # three-card games only
    eval_mask = need_seat & (codes == 0)[:, None]
    if game == "holdem":
        assert board is not None  # every Hold'em row has one (a missing board was rejected above)
        score = holdem.evaluate_seats(hole, board, eval_mask, dtype=np.int64)  # the pot kernel's width
    else:
        score = threecard.evaluate_seats(hole, eval_mask, rules)
        if rules.beats_trips_235:
            rows, seat_idx = np.nonzero(eval_mask)
            special = np.zeros((T, S), bool)
            special[rows, seat_idx] = threecard.is_235(hole[rows, seat_idx])

    mark(codes, (button < 0) | (button >= seats), "bad_button")
    # Every row goes through the pot kernel (bad rows are harmless there: padded, scores 0) and the
    # rows already set aside ignore its answer: cheaper than copying the good rows out and back.
    nfnd = None
    if opts.no_flop_no_drop:
        nfnd = (board == 255).all(axis=1) if board is not None else np.zeros(T, bool)
    if (codes == 0).any():
        d = pots.settle_detailed(
            contrib,
            live,
            score,
            button,
            options=opts.pots,
            no_flop_no_drop=nfnd,
            special=special,
            trips_floor=threecard.trips_floor(rules) if special is not None else None,
            dead=dead,
            raise_on_error=False,
            detail=False,
        )
        mark_status(codes, d.status)
        payout, rake, npots = d.payout, d.rake, d.pots
    else:  # every row set aside already: nothing to settle (and no pot kernel to load or compile)
        payout, rake, npots = np.zeros((T, S), np.int64), np.zeros(T, np.int64), np.zeros(T, np.int64)

    good = np.flatnonzero(codes == 0)
    bad = np.flatnonzero(codes != 0)
    g = None if good.size == T else good
    offsets = list_offsets(seats, g)
    flat_score = gather_flat(score, offsets, g)  # already 0 where folded or no showdown
    if game == "holdem":
        score_type = pa.uint32()
        flat_category = (flat_score >> 20).astype(np.uint8)
    else:
        score_type = pa.int64()
        flat_category = np.zeros(flat_score.shape, np.uint8)
        shown = flat_score > 0
        if shown.any():
            flat_category[shown] = threecard.category_of(flat_score[shown], rules)
    flat_payout = gather_flat(payout, offsets, g)
    flat_contrib = gather_flat(contrib_total, offsets, g)
    kept_rake = rake if g is None else rake[g]
    cols = {
        "hand_id": pa.array(hand_id if g is None else hand_id[g]),
        "score": list_array(
            offsets, flat_score.astype(np.uint32 if game == "holdem" else np.int64, copy=False), score_type
        ),
        "category": list_array(offsets, flat_category, pa.uint8()),
        "payout": list_array(offsets, flat_payout, pa.int64()),
        "net": list_array(offsets, flat_payout - flat_contrib, pa.int64()),
        "rake": pa.array(kept_rake),
        "pots": pa.array((npots if g is None else npots[g]).astype(np.int16)),
    }
    mismatches = 0
    if "payout" in table.column_names:
        recorded, mismatches = recorded_columns(payout, offsets, table.column("payout"), g, "recorded_payout")
        cols.update(recorded)
    if ORIGIN in table.column_names:
        cols[ORIGIN] = combined(table.column(ORIGIN)) if g is None else combined(table.column(ORIGIN)).take(good)
    results = pa.table(cols)
    errors = error_rows(table, bad, codes[bad])
    chips_in = exact_sum(flat_contrib)
    paid, raked = exact_sum(flat_payout), exact_sum(kept_rake)
    if chips_in != paid + raked:  # a kernel bug, never a data problem: stop loudly
        raise AssertionError(f"chips not conserved: in {chips_in}, paid {paid}, raked {raked}")
    counters = Counters(
        rows_read=T,
        rows_settled=int(good.size),
        rows_rejected=int(bad.size),
        rejected_by_reason=reason_counts(codes[bad]),
        chips_in=chips_in,
        chips_paid=paid,
        chips_raked=raked,
        chips_in_rejected=exact_sum(cvals[elements_of(cstarts, clen, bad)]),  # every seat, any width
        mismatches=mismatches,
    )
    return results, errors, counters.as_dict()
