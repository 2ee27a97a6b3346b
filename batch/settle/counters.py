"""The settle job's counters: what a batch adds to its part, its input and the run, exactly.

A batch's counters are a :class:`Counters`; parts, inputs and the run add them up as the JSON-ready
dicts :meth:`Counters.as_dict` gives (``summary.json`` and each ``_parts/*.json`` hold those), with
:func:`merge_counters`, which also adds the nested splits (``rejected_by_reason``, ``by_game``).
Every figure is a Python ``int``: no total wraps, however many rows.
"""

from __future__ import annotations

import dataclasses
from typing import Any

# what every input's share of a part is counted in (summary.json's "inputs")
INPUT_COUNTERS = ("rows_settled", "rows_rejected", "mismatches", "chips_in", "chips_paid", "chips_raked")


@dataclasses.dataclass
class Counters:
    """One batch of one game: rows read, settled and set aside (by reason), and, where the game has
    them, its chips (card games: in = paid + raked; ``chips_in_rejected`` counts every seat of the
    rejected rows), its coins (2v2: the house's fee and the coins that changed hands) and the rows
    whose recorded result differs. A figure the game does not have is None and is left out."""

    rows_read: int
    rows_settled: int
    rows_rejected: int
    rejected_by_reason: dict[str, int]
    chips_in: int | None = None
    chips_paid: int | None = None
    chips_raked: int | None = None
    chips_in_rejected: int | None = None
    coins_fee: int | None = None
    coins_moved: int | None = None
    mismatches: int | None = None

    def as_dict(self) -> dict[str, Any]:
        """The figures the game has, in this order, as the summaries hold them."""
        return {k: v for k, v in dataclasses.asdict(self).items() if v is not None}


def merge_counters(items: list[dict[str, Any]]) -> dict[str, Any]:
    """Counters added up key by key, nested ones (reasons, games) too."""
    out: dict[str, Any] = {}
    for c in items:
        for k, v in c.items():
            if isinstance(v, dict):
                out[k] = merge_counters([out.get(k, {}), v])
            else:
                out[k] = out.get(k, 0) + v
    return out
