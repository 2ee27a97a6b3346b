"""Settle one Arrow table of team2v2 games (the fixed-width schema of data/FORMAT.md)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from cardbatch.kernels import team

from .formats import TEAM_REQUIRED, SettleOptions
from .lists import list_parts, padded_to_list, scatter
from .rejects import error_rows, mark, mark_status, reason_counts


def _four(table: pa.Table, name: str, codes: np.ndarray, dtype) -> np.ndarray:
    vals, starts, lengths = list_parts(table.column(name))
    mark(codes, lengths != 4, "seat_count")
    return scatter(vals.astype(dtype), starts, lengths, 4, 0, dtype)


def settle_teams(table: pa.Table, opts: SettleOptions) -> tuple[pa.Table, pa.Table, dict]:
    T = table.num_rows
    codes = np.zeros(T, np.int16)
    for name in TEAM_REQUIRED:
        col = table.column(name)
        if col.null_count:
            mark(codes, col.is_null().to_numpy(zero_copy_only=False), "missing_value")
    balance = _four(table, "balance", codes, np.int64)
    mult = _four(table, "multiplier", codes, np.int64)
    afk = _four(table, "afk", codes, np.bool_)

    def scalar(name, default=0):
        if name not in table.column_names:
            return np.full(T, default, np.int64)
        return pc.fill_null(table.column(name), default).to_numpy(zero_copy_only=False).astype(np.int64)

    winner, base, double, fee = scalar("winner", -1), scalar("base"), scalar("double"), scalar("fee")
    ok = np.flatnonzero(codes == 0)
    status = np.zeros(T, np.uint8)
    status[ok] = team.validate_2v2(balance[ok], mult[ok], afk[ok], winner[ok], base[ok], double[ok], fee[ok])
    mark_status(codes, status)
    good = np.flatnonzero(codes == 0)
    bad = np.flatnonzero(codes != 0)
    delta, fees = team.settle_2v2(
        balance[good], mult[good], afk[good], winner[good], base[good], double[good], fee[good], model=opts.team_model
    )
    four = np.full(good.size, 4)
    cols = {
        "hand_id": table.column("hand_id").take(pa.array(good)),
        "delta": padded_to_list(delta, four, pa.int64()),
        "fee": padded_to_list(fees, four, pa.int64()),
    }
    mismatches = 0
    if "payout" in table.column_names:
        rec = _four(table, "payout", np.zeros(T, np.int16), np.int64)[good]
        mismatch = (rec != delta).any(axis=1)
        cols["recorded_delta"] = table.column("payout").take(pa.array(good))
        cols["mismatch"] = pa.array(mismatch)
        mismatches = int(mismatch.sum())
    if int(delta.sum()) != 0:
        raise AssertionError("team deltas do not sum to zero")
    counters = {
        "rows_read": T,
        "rows_settled": int(good.size),
        "rows_rejected": int(bad.size),
        "rejected_by_reason": reason_counts(codes[bad]),
        "coins_fee": int(fees.sum()),
        "coins_moved": int(np.abs(delta).sum() // 2),
        "mismatches": mismatches,
    }
    return pa.table(cols), error_rows(table, bad, codes[bad]), counters
