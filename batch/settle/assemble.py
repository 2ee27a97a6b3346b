"""The end of settling a batch, the same for both settle paths: the errors table, the chips'
check, and the batch's counters."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

from cardbatch.batch.io.arrays import arrow_of
from cardbatch.batch.io.lists import elements_of, exact_sum
from cardbatch.batch.settle.analysis import Batch
from cardbatch.batch.settle.counters import Counters
from cardbatch.batch.settle.options import SettleOptions
from cardbatch.batch.settle.rejects import error_rows, reason_counts
from cardbatch.games import Game


def finish(
    table: pa.Table,
    results: pa.Table,
    codes: np.ndarray,
    chips: tuple[np.ndarray, np.ndarray, np.ndarray],
    contributed: np.ndarray,
    paid: np.ndarray,
    raked: np.ndarray,
    mismatches: int,
    spec: Game | None = None,
    opts: SettleOptions | None = None,
) -> tuple[pa.Table, pa.Table, dict[str, Any]]:
    """(results, errors, counters) of a batch whose rows got ``codes`` (0: settled): ``contributed``,
    ``paid`` and ``raked`` are the settled rows' chips (flat), ``chips`` the chips column as read
    (``values, starts, lengths``, to count a rejected row's chips whatever its width). Stops loudly
    if the settled chips do not add up (a bug of ours, never the data's). Each of the run's
    analyses then adds its columns and counters for the settled rows (:mod:`.analysis`)."""
    bad = np.flatnonzero(codes != 0)
    chips_in = exact_sum(contributed)
    chips_paid, chips_raked = exact_sum(paid), exact_sum(raked)
    if chips_in != chips_paid + chips_raked:
        raise AssertionError(f"chips not conserved: in {chips_in}, paid {chips_paid}, raked {chips_raked}")
    values, starts, lengths = chips
    counters = Counters(
        rows_read=len(codes),
        rows_settled=len(codes) - int(bad.size),
        rows_rejected=int(bad.size),
        rejected_by_reason=reason_counts(codes[bad]),
        chips_in=chips_in,
        chips_paid=chips_paid,
        chips_raked=chips_raked,
        chips_in_rejected=exact_sum(values[elements_of(starts, lengths, bad)]),
        mismatches=mismatches,
    )
    summary = counters.as_dict()
    if opts is not None and spec is not None and opts.analyses:
        good = np.flatnonzero(codes == 0)
        batch = Batch(table.take(arrow_of(good)) if good.size != table.num_rows else table, paid, spec, opts)
        for analysis in opts.analyses:
            cols, added = analysis.add(batch)
            summary.update(added)
            for name, col in cols.items():
                results = results.append_column(name, col)
    return results, error_rows(table, bad, codes[bad]), summary
