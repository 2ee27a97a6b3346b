"""Rows set aside: reason codes per row, their counts, and the errors table.

Codes are :mod:`cardbatch.kernels.reasons`' (0 = ok), the same numbers the
kernels write into their ``status`` arrays, so a kernel's verdict needs no
translation. Every row gets the first problem found: a code is only ever
written where the row has none yet.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from cardbatch.batch.io.arrays import arrow_of
from cardbatch.batch.io.pycolumns import column
from cardbatch.kernels.reasons import CODE, MESSAGES, REASONS

__all__ = ["CODE", "INPUT_MARK", "error_rows", "mark", "mark_status", "reason_counts"]


def mark(codes: np.ndarray, where: np.ndarray, reason: str) -> None:
    """Give ``reason`` to rows in ``where`` that have no reason yet (the first problem found wins)."""
    codes[where & (codes == 0)] = CODE[reason]


def mark_status(codes: np.ndarray, status: np.ndarray, lookup: np.ndarray | None = None) -> None:
    """Like :func:`mark` for a kernel's status per row (0 = fine), which is a reason code, or an
    index into ``lookup`` when given."""
    found = (status != 0) & (codes == 0)
    if found.any():
        codes[found] = status[found] if lookup is None else lookup[status[found]]


def reason_counts(bad_codes: np.ndarray) -> dict[str, int]:
    """How many rows each reason set aside."""
    values, counts = np.unique(bad_codes, return_counts=True)
    return {REASONS[int(v)]: int(c) for v, c in zip(values, counts)}


def error_rows(table: pa.Table, rows: np.ndarray, codes: np.ndarray, message: str | None = None) -> pa.Table:
    """The original rows with ``reason`` and ``message`` in front (``message``: one for every row,
    where it says more than the reason's own)."""
    taken = table.take(arrow_of(np.asarray(rows, np.int64)))
    names = [REASONS[int(c)] for c in codes]
    reason = column(names, pa.string())
    message_column = column([MESSAGES[n] if message is None else message for n in names], pa.string())
    hid = taken.column("hand_id") if "hand_id" in taken.column_names else pa.nulls(len(rows), pa.int64())
    out = pa.table({"hand_id": hid, "reason": reason, "message": message_column})
    for name in taken.column_names:
        if name != "hand_id":  # an input column named like one of ours keeps its values under a mark
            out = out.append_column(INPUT_MARK + name if name in out.column_names else name, taken.column(name))
    return out


# An input column named like a column the errors table adds (``reason``, ``message``) is carried as
# ``INPUT_MARK + name``; the output schema puts it in ``extra`` under its own name.
INPUT_MARK = "__cardbatch_input:"
