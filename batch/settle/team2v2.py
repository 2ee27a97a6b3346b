"""Settle one Arrow table of team2v2 games (the fixed-width schema of docs/formats.md)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

from cardbatch.batch.io.arrays import arrow_of
from cardbatch.batch.io.lists import (
    exact_sum,
    int_column,
    int_list_parts,
    list_offsets,
    list_parts,
    missing_rows,
    padded_to_list,
    scatter,
)
from cardbatch.batch.settle.counters import Counters
from cardbatch.batch.settle.options import ORIGIN, SettleOptions
from cardbatch.batch.settle.recorded import recorded_columns
from cardbatch.batch.settle.rejects import error_rows, mark, mark_status, reason_counts
from cardbatch.games import TEAM2V2
from cardbatch.kernels import team


def _four(table: pa.Table, name: str, codes: np.ndarray, dtype: type[np.generic]) -> np.ndarray:
    if dtype == np.bool_:
        vals, starts, lengths = list_parts(table.column(name))
    else:
        vals, starts, lengths, big = int_list_parts(table.column(name), name)
        mark(codes, big, "overflow")
    mark(codes, lengths != 4, "seat_count")
    return scatter(vals.astype(dtype), starts, lengths, 4, 0, dtype)


def _stakes_overflow(mult: np.ndarray, base: np.ndarray, double: np.ndarray) -> np.ndarray:
    """Games whose caps or transfer could leave int64. Caps only lower the kernel's figures (a
    balance never enters a product), so a bound on ``base * double`` times the multipliers does:
    doubled caps below ``bd * sx**2``, the proportional split's ``s * x`` below ``bd * sx**3``
    (``sx`` the multipliers' sum, plus 2 for the AFK terms). Exact in Python ints where a float
    estimate comes near the limit."""
    sx = mult.astype(np.float64).sum(axis=1) + 2
    est = np.abs(base * 1.0 * double) * sx**3 * 4
    out = np.zeros(len(mult), np.bool_)
    for g in np.flatnonzero(est > 2.0**60):  # rare: near the limit, decide exactly
        sxi = sum(int(x) for x in mult[g]) + 2
        out[g] = abs(int(base[g]) * int(double[g])) * sxi**3 * 4 > np.iinfo(np.int64).max
    return out


def settle_teams(table: pa.Table, opts: SettleOptions) -> tuple[pa.Table, pa.Table, dict[str, Any]]:
    T = table.num_rows
    codes = np.zeros(T, np.int16)
    for name in TEAM2V2.required:  # a null cell or a null element anywhere
        mark(codes, missing_rows(table.column(name)), "missing_value")
    balance = _four(table, "balance", codes, np.int64)
    mult = _four(table, "multiplier", codes, np.int64)
    afk = _four(table, "afk", codes, np.bool_)

    def scalar(name: str, default: int = 0) -> np.ndarray:
        if name not in table.column_names:
            return np.full(T, default, np.int64)
        values, big = int_column(table.column(name), name, default)
        mark(codes, big, "overflow")
        return values

    hand_id = scalar("hand_id", -1)
    winner, base, double, fee = scalar("winner", -1), scalar("base"), scalar("double"), scalar("fee")
    mark(codes, _stakes_overflow(mult, base, double), "overflow")
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
        "hand_id": arrow_of(hand_id[good]),
        "delta": padded_to_list(delta, four, pa.int64()),
        "fee": padded_to_list(fees, four, pa.int64()),
    }
    mismatches = 0
    if "payout" in table.column_names:
        full = np.zeros((T, 4), np.int64)  # rows in table order, as the comparison indexes them
        full[good] = delta
        recorded, mismatches = recorded_columns(
            full, list_offsets(four), table.column("payout"), good, "recorded_delta"
        )
        cols.update(recorded)
    if ORIGIN in table.column_names:
        cols[ORIGIN] = table.column(ORIGIN).take(pa.array(good))
    if exact_sum(delta) != 0:
        raise AssertionError("team deltas do not sum to zero")
    counters = Counters(
        rows_read=T,
        rows_settled=int(good.size),
        rows_rejected=int(bad.size),
        rejected_by_reason=reason_counts(codes[bad]),
        coins_fee=exact_sum(fees),
        coins_moved=exact_sum(np.abs(delta)) // 2,
        mismatches=mismatches,
    )
    return pa.table(cols), error_rows(table, bad, codes[bad]), counters.as_dict()
