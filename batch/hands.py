"""Settle one Arrow table of recorded hands (holdem or zjh): validate, evaluate, split pots.

Columnar in, columnar out: list columns become padded ``[T, S]`` arrays,
every row gets a reason code (0 = settle it), the kernels run on the good
rows only, and two Arrow tables come back: results and errors (the original
rows with ``reason`` and ``message``).
"""
from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from kernels import cards as kcards
from kernels import holdem, pots, threecard

from .formats import CARDS_PER_SEAT, HAND_REQUIRED, MAX_SEATS, MESSAGES, MIN_SEATS, REASONS, SettleOptions
from .lists import list_parts, padded_to_list, scatter

CODE = {name: i + 1 for i, name in enumerate(REASONS)}  # 0 = ok
_POT_REASON = {pots.NEGATIVE_CONTRIB: "negative_contrib", pots.NO_LIVE_SEAT: "no_live_seat",
               pots.ORPHAN_CHIPS: "orphan_chips", pots.BAD_BUTTON: "bad_button", pots.SEAT_COUNT: "seat_count"}


def _mark(codes: np.ndarray, where: np.ndarray, reason: str) -> None:
    """Give ``reason`` to rows in ``where`` that have no reason yet (the first problem found wins)."""
    codes[where & (codes == 0)] = CODE[reason]


def _cards_matrix(col, per: int, width: int) -> tuple[np.ndarray, np.ndarray]:
    """Cards of each row as ``uint8[T, width]`` (255 padding) and how many cards each row gave.

    Accepts list<integer> or fixed_size_list<integer>, list<string> (one
    string of ``per`` cards per seat), or one string per row. Unreadable text
    and codes outside 0..255 become 254 (a bad card).
    """
    arr = col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col
    T = len(arr)
    if pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type):
        norm = pc.replace_substring(pc.fill_null(arr, ""), "10", "T")
        lengths = pc.utf8_length(norm).to_numpy(zero_copy_only=False).astype(np.int64) // 2
        out = np.full((T, width), 255, np.uint8)
        for k in np.unique(lengths):
            rows = np.flatnonzero(lengths == k)
            if 0 < k <= width:
                out[rows, :k] = kcards.parse_column(arr.take(pa.array(rows)), int(k))
        return out, lengths
    vals, starts, lengths = list_parts(arr)
    if vals.dtype.kind in "OU":
        parsed = kcards.parse_column(pa.array(vals, pa.string()), per).reshape(-1)
        return scatter(parsed, starts * per, lengths * per, width, 255, np.uint8), lengths * per
    if vals.dtype != np.uint8:
        vals = np.where((vals < 0) | (vals > 255), 254, vals).astype(np.uint8)
    return scatter(vals, starts, lengths, width, 255, np.uint8), lengths


def settle_hands(table: pa.Table, game: str, opts: SettleOptions) -> tuple[pa.Table, pa.Table, dict]:
    """Settle every valid hand of ``table`` (one game); returns (results, errors, counters)."""
    T = table.num_rows
    codes = np.zeros(T, np.int16)
    for name in HAND_REQUIRED[game]:
        col = table.column(name)
        if col.null_count:
            _mark(codes, col.is_null().to_numpy(zero_copy_only=False), "missing_value")
    has_street = "contrib_street" in table.column_names
    contrib_col = table.column("contrib_street" if has_street else "contrib")
    if contrib_col.null_count:
        _mark(codes, contrib_col.is_null().to_numpy(zero_copy_only=False), "missing_value")

    hand_id = pc.fill_null(table.column("hand_id"), -1).to_numpy(zero_copy_only=False).astype(np.int64, copy=False)
    button = pc.fill_null(table.column("button"), -1).to_numpy(zero_copy_only=False).astype(np.int64)

    fvals, fstarts, seats = list_parts(table.column("folded"))
    S = int(max(seats.max() if T else 0, 1))
    _mark(codes, (seats < MIN_SEATS) | (seats > MAX_SEATS[game]), "seat_count")
    S = min(S, MAX_SEATS[game])
    folded = scatter(fvals.astype(bool, copy=False), fstarts, seats, S, True, np.bool_)
    live = ~folded

    cvals, cstarts, clen = list_parts(contrib_col)
    if has_street:
        K = np.where(seats > 0, clen // np.maximum(seats, 1), 0)
        _mark(codes, (clen != K * seats) | (K < 1), "seat_count")
        Kmax = int(max(K.max() if T else 1, 1))
        contrib = scatter(cvals.astype(np.int64, copy=False), cstarts, clen, Kmax, 0, np.int64, row_width=seats)
        if contrib.shape[2] < S:
            contrib = np.concatenate([contrib, np.zeros((T, Kmax, S - contrib.shape[2]), np.int64)], axis=2)
        contrib = np.ascontiguousarray(contrib[:, :, :S])
    else:
        _mark(codes, clen != seats, "seat_count")
        contrib = scatter(cvals.astype(np.int64, copy=False), cstarts, clen, S, 0, np.int64)[:, None, :]
    contrib_total = contrib.sum(axis=1)

    per = CARDS_PER_SEAT[game]
    hole, ncards = _cards_matrix(table.column("cards"), per, S * per)
    _mark(codes, ncards != seats * per, "seat_count")
    hole = hole.reshape(T, S, per)
    showdown = live.sum(axis=1) >= 2
    if game == "holdem":
        board, nboard = _cards_matrix(table.column("board"), 1, 5)
        _mark(codes, nboard > 5, "seat_count")
        all_cards = np.concatenate([hole.reshape(T, S * per), board], axis=1)
        need_hole = np.repeat(live & showdown[:, None], per, axis=1)
        required = np.concatenate([need_hole, np.repeat(showdown[:, None], 5, axis=1)], axis=1)
    else:
        board = None
        all_cards = hole.reshape(T, S * per)
        required = np.repeat(live & showdown[:, None], per, axis=1)
    status = kcards.card_status(all_cards, required)
    _mark(codes, status == kcards.CARD_BAD, "bad_card")
    _mark(codes, status == kcards.CARD_MISSING, "bad_card")
    _mark(codes, status == kcards.CARD_DUPLICATE, "duplicate_card")

    # scores of live seats at showdowns of rows still valid
    special = None
    rules = threecard.rules_of(opts.rules) if game == "zjh" else None
    eval_mask = (codes == 0)[:, None] & live & showdown[:, None]
    if game == "holdem":
        score = holdem.evaluate_seats(hole, board, eval_mask)  # uint32; pots widens it once
    else:
        score = threecard.evaluate_seats(hole, eval_mask, rules)
        if rules.beats_trips_235:
            rows, seat_idx = np.nonzero(eval_mask)
            special = np.zeros((T, S), bool)
            special[rows, seat_idx] = threecard.is_235(hole[rows, seat_idx])

    _mark(codes, (button < 0) | (button >= seats), "bad_button")
    ok_rows = np.flatnonzero(codes == 0)
    take = slice(None) if ok_rows.size == T else ok_rows  # views, not copies, when every row is good
    payout = np.zeros((T, S), np.int64)
    rake = np.zeros(T, np.int64)
    npots = np.zeros(T, np.int64)
    if ok_rows.size:
        nfnd = None
        if opts.no_flop_no_drop:
            nfnd = (board[take] == 255).all(axis=1) if board is not None else np.zeros(ok_rows.size, bool)
        floor = None
        if special is not None:
            floor = threecard._trips_floor(rules)
        d = pots.settle_detailed(
            contrib[take], live[take], score[take], button[take], opts.policy,
            rake_pct=opts.rake_pct if opts.policy == "standard" else None,
            rake_cap=opts.rake_cap if opts.policy == "standard" else None, no_flop_no_drop=nfnd,
            chip_unit=opts.chip_unit, odd_chips=opts.odd_chips, orphan_chips=opts.orphan_chips,
            special=None if special is None else special[take], trips_floor=floor,
            raise_on_error=False, detail=False)
        for code, reason in _POT_REASON.items():
            bad = np.zeros(T, bool)
            bad[ok_rows[d.status == code]] = True
            _mark(codes, bad, reason)
        if isinstance(take, slice):  # every row good: keep the kernel's arrays, no copies
            payout, rake, npots = d.payout, d.rake, d.pots
        else:
            payout[take] = d.payout
            rake[take] = d.rake
            npots[take] = d.pots

    good = np.flatnonzero(codes == 0)
    bad = np.flatnonzero(codes != 0)
    g = slice(None) if good.size == T else good
    n_seats = seats[g]
    score_out = score[g]  # already 0 where folded or no showdown
    if game == "holdem":
        score_type = pa.uint32()
        category = (score_out >> 20).astype(np.uint8)
    else:
        score_type = pa.int64()
        category = np.zeros_like(score_out, dtype=np.uint8)
        shown = score_out > 0
        if shown.any():
            category[shown] = threecard.category_of(score_out[shown], rules)
    net = payout[g] - contrib_total[g]
    cols = {
        "hand_id": pa.array(hand_id[g]),
        "score": padded_to_list(score_out.astype(np.uint32 if game == "holdem" else np.int64, copy=False), n_seats,
                                score_type),
        "category": padded_to_list(category, n_seats, pa.uint8()),
        "payout": padded_to_list(payout[g], n_seats, pa.int64()),
        "net": padded_to_list(net, n_seats, pa.int64()),
        "rake": pa.array(rake[g]),
        "pots": pa.array(npots[g].astype(np.int16)),
    }
    mismatches = 0
    if "payout" in table.column_names:
        rvals, rstarts, rlen = list_parts(table.column("payout"))
        recorded = scatter(rvals.astype(np.int64, copy=False), rstarts, rlen, S, 0, np.int64)
        mismatch = ((recorded[g] != payout[g]).any(axis=1)) | (rlen[g] != n_seats)
        cols["recorded_payout"] = (table.column("payout") if good.size == T
                                   else table.column("payout").take(pa.array(good)))
        cols["mismatch"] = pa.array(mismatch)
        mismatches = int(mismatch.sum())
    results = pa.table(cols)
    errors = error_rows(table, bad, codes[bad])
    chips_in = int(contrib_total[g].sum())
    paid, raked = int(payout[g].sum()), int(rake[g].sum())
    if chips_in != paid + raked:  # a kernel bug, never a data problem: stop loudly
        raise AssertionError(f"chips not conserved: in {chips_in}, paid {paid}, raked {raked}")
    counters = {"rows_read": T, "rows_settled": int(good.size), "rows_rejected": int(bad.size),
                "rejected_by_reason": reason_counts(codes[bad]), "chips_in": chips_in, "chips_paid": paid,
                "chips_raked": raked, "chips_in_rejected": int(contrib_total[bad].sum()) if bad.size else 0,
                "mismatches": mismatches}
    return results, errors, counters


def reason_counts(bad_codes: np.ndarray) -> dict[str, int]:
    values, counts = np.unique(bad_codes, return_counts=True)
    return {REASONS[int(v) - 1]: int(c) for v, c in zip(values, counts)}


def error_rows(table: pa.Table, rows: np.ndarray, codes: np.ndarray) -> pa.Table:
    """The original rows with ``reason`` and ``message`` in front."""
    taken = table.take(pa.array(rows, pa.int64()))
    names = [REASONS[int(c) - 1] for c in codes]
    reason = pa.array(names, pa.string()).dictionary_encode() if names else pa.array([], pa.string())
    message = pa.array([MESSAGES[n] for n in names], pa.string())
    hid = taken.column("hand_id") if "hand_id" in taken.column_names else pa.nulls(len(rows), pa.int64())
    out = pa.table({"hand_id": hid, "reason": reason.cast(pa.string()) if names else reason, "message": message})
    for name in taken.column_names:
        if name != "hand_id":
            out = out.append_column(name, taken.column(name))
    return out
