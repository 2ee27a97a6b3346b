"""The ``--equity`` analysis: each settled row's all-in street, expected payouts and equities as
result columns, the all-ins' counts in the summary, and, with ``--by-player``, each player's luck."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any, ClassVar

from cardbatch.batch.settle.analysis import Analysis, Batch

if TYPE_CHECKING:
    import pyarrow as pa

    from cardbatch.batch.settle.options import SettleOptions
    from cardbatch.kernels.equity import Walk

# why an all-in row got no equity (.allin's causes), in a user's words
NOT_PLACED_WORDS = {
    "no_stack_column": "the input has no stack column",
    "no_contrib_street": "the input has no contrib_street column",
    "stack_missing": "a stack cell or element is null",
    "stack_count": "the stack list holds another number of seats than the cards",
    "stack_short": "a stack is smaller than the chips the seat put in",
}


def check_walk(walk: object, opts: SettleOptions) -> None:
    """Refuse a walk that is not a :class:`~cardbatch.kernels.equity.Walk`, and a pot policy the
    walk does not pay: a per-street policy splits by what each street's bets were against, and the
    walk pays the standard policy's pots (it would report its luck as the policy's)."""
    from cardbatch.kernels.equity import Walk

    if not isinstance(walk, Walk):
        raise ValueError(f"equity must be a cardbatch.kernels.equity.Walk or None, got {walk!r}")
    if opts.pots.policy.name.lower() != "standard":
        raise ValueError(f"equity is defined for the standard policy only, got policy {opts.pots.policy.name.lower()}")


def not_placed_warnings(figures: dict[str, Any], what: str) -> list[str]:
    """Settled rows the walk could not place in time, how many and why (``what``: who asks)."""
    not_placed = (figures.get("equity") or {}).get("not_placed") or {}
    causes = {k: v for k, v in not_placed.items() if not k.startswith("game_")}
    if not causes:
        return []
    why = "; ".join(f"{n:,}: {NOT_PLACED_WORDS.get(cause, cause)}" for cause, n in sorted(causes.items()))
    return [
        f"{what}: {sum(causes.values()):,} of {figures.get('rows_settled', 0):,} settled rows have no equity ({why}); "
        "see the equity guide for the columns it needs"
    ]


@dataclasses.dataclass(frozen=True)
class Equity(Analysis):
    """Every all-in walked (``walk``: how, a :class:`~cardbatch.kernels.equity.Walk`); ``by_player``:
    with a ``player_id`` column, each player's actual against expected net in the summary."""

    walk: Walk
    by_player: bool = False

    name: ClassVar[str] = "equity"
    keys: ClassVar[tuple[str, ...]] = ("equity", "by_player")
    off: ClassVar[dict[str, Any]] = {"equity": None, "by_player": False}
    counters: ClassVar[tuple[str, ...]] = ("equity",)

    @classmethod
    def from_flat(cls, flat: dict[str, Any]) -> Equity | None:
        walk, by_player = flat.pop("equity", None), flat.pop("by_player", False)
        if not isinstance(by_player, bool):
            raise ValueError(f"by_player must be True or False, got {by_player!r}")
        if walk is None:
            if by_player:
                raise ValueError("by_player needs equity (--equity) or a fairness run")
            return None
        return cls(walk, by_player)

    def flat(self) -> dict[str, Any]:
        return {"equity": dataclasses.asdict(self.walk), "by_player": self.by_player}

    def check(self, opts: SettleOptions) -> None:
        check_walk(self.walk, opts)

    def result_fields(self) -> tuple[tuple[str, pa.DataType], ...]:
        from cardbatch.batch.settle.equity.allin import EQUITY_FIELDS

        return EQUITY_FIELDS

    def add(self, batch: Batch) -> tuple[dict[str, pa.Array], dict[str, Any]]:
        from cardbatch.batch.settle.equity import allin

        rows, counts = allin.walk_rows(batch.table, batch.payout, batch.spec, batch.opts, self.walk, whole=False)
        if self.by_player and "player_id" in batch.table.column_names and rows.h is not None:
            counts["by_player"] = allin.by_player(batch.table, rows, batch.payout)
        columns = allin.equity_columns(rows) if batch.opts.writes_results else {}
        return columns, {"equity": counts}

    def warnings(self, figures: dict[str, Any]) -> list[str]:
        found = not_placed_warnings(figures, "--equity")
        not_placed = (figures.get("equity") or {}).get("not_placed") or {}
        games = sorted(k.removeprefix("game_") for k in not_placed if k.startswith("game_"))
        settled = figures.get("rows_settled", 0)
        if not found and games and settled and sum(not_placed.values()) >= settled:  # no row has equity
            found.append(f"--equity: no row has equity: {', '.join(games)} deal(s) no board to come")
        hidden = (figures.get("equity") or {}).get("hidden_cards", 0)
        if hidden and self.walk.deck == "seen":
            found.append(
                f"--equity: {hidden:,} all-ins do not record some folded seat's cards: those are counted as still in "
                "the deck, which is biased where folds depend on the cards (see the equity guide)"
            )
        return found

    def report_section(self, summary: dict[str, Any]) -> str:
        from cardbatch.batch.settle.equity.report import section

        return section(summary)
