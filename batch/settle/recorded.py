"""The recorded result beside ours: the ``recorded_*`` and ``mismatch`` columns of ``results/``."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from cardbatch.batch.io.arrays import arrow_of
from cardbatch.batch.io.lists import differs_from_list, take_list


def recorded_columns(
    ours: np.ndarray, offsets: np.ndarray, recorded: pa.ChunkedArray, rows: np.ndarray | None, name: str
) -> tuple[dict[str, pa.Array], int]:
    """``{name: the recorded lists of the settled rows, "mismatch": ...}`` and the mismatch count.

    ``ours`` holds our figures, row by row in ``offsets``; ``rows`` the settled rows of the table (None:
    all of them). ``mismatch`` is null where nothing was recorded (a null cell), true for a malformed
    record (wrong length, a null element) or a figure that differs.
    """
    mismatch, compared = differs_from_list(ours, offsets, recorded, rows, "payout")
    kept = recorded if rows is None else take_list(recorded, rows)
    return {name: kept, "mismatch": arrow_of(mismatch, mask=~compared)}, int((mismatch & compared).sum())
