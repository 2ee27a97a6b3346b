"""``cardbatch audit``: a settle run whose exit status says whether every recorded payout was right.

Settling already compares each row's recomputed payouts with a recorded ``payout`` column (the
``mismatch`` column and the ``mismatches`` count); the audit adds nothing to the parts, only the
run's name and its exit status: 3 when any row differs. It is the smallest analysis, and the worked
example of :mod:`.analysis` in docs/development.md.
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

from cardbatch.batch.io.exits import EXIT_AUDIT, EXIT_OK
from cardbatch.batch.settle.analysis import Analysis


@dataclasses.dataclass(frozen=True)
class Audit(Analysis):
    """A mismatch makes the exit status 3; the results are a settle run's.

    >>> Audit().status({"mismatches": 2}), Audit().status({"mismatches": 0})
    (3, 0)
    >>> Audit.from_flat({"audit": False}) is None
    True
    """

    name: ClassVar[str] = "audit"
    command: ClassVar[str | None] = "audit"
    keys: ClassVar[tuple[str, ...]] = ("audit",)
    off: ClassVar[dict[str, Any]] = {"audit": False}

    @classmethod
    def from_flat(cls, flat: dict[str, Any]) -> Audit | None:
        on = flat.pop("audit", False)
        if not isinstance(on, bool):
            raise ValueError(f"audit must be True or False, got {on!r}")
        return cls() if on else None

    def flat(self) -> dict[str, Any]:
        return {"audit": True}

    def part_key(self) -> dict[str, Any]:
        return {}  # the exit status only: the parts are a settle run's

    def status(self, figures: dict[str, Any]) -> int:
        return EXIT_AUDIT if figures.get("mismatches", 0) else EXIT_OK
