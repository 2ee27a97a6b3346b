"""What a run with ``--equity``, or a fairness run, adds to each batch once its rows are settled:
the equity columns and counters (:mod:`.allin`) and the fairness tallies (:mod:`.fairness.tally`)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

from cardbatch.batch.settle import allin
from cardbatch.batch.settle.fairness.tally import tally
from cardbatch.batch.settle.options import SettleOptions
from cardbatch.games import Game


def after_settle(
    table: pa.Table, good: np.ndarray, payout: np.ndarray, spec: Game, opts: SettleOptions
) -> tuple[dict[str, pa.Array], dict[str, Any]]:
    """What a run with ``--equity`` (or a fairness run) adds to a batch's settled rows ``good``: the
    equity columns (when the results carry them) and the counters (``equity``, and ``fairness``'s tallies)."""
    sub = table.take(pa.array(good)) if good.size != table.num_rows else table
    rows, counts = allin.walk_rows(sub, payout, spec, opts, whole=opts.fairness is not None)
    if opts.equity is not None and opts.by_player and "player_id" in sub.column_names and rows.h is not None:
        counts["by_player"] = allin.by_player(sub, rows, payout)
    added: dict[str, Any] = {"equity": counts}
    if opts.fairness is not None:
        added["fairness"] = tally(sub, rows, payout, spec, opts)
    return (allin.equity_columns(rows) if opts.equity_columns else {}), added
