"""The fairness analysis: a settle run with every all-in walked and the deal tallied, then the tests.

Each batch's settled rows are walked (as ``--equity`` walks them, every recorded card seen) and
tallied (:mod:`.tally`); at the run's end :meth:`Fairness.finish` runs the tests (:mod:`.audit`)
on the run's per-game tallies and writes ``fairness.json`` and ``fairness.html`` before the
folder's ``_SUCCESS``. The exit status is 4 when a test is rejected.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from cardbatch.batch.io import storage
from cardbatch.batch.io.errors import InputError
from cardbatch.batch.io.exits import EXIT_FAIRNESS, EXIT_OK
from cardbatch.batch.settle.analysis import Analysis, Batch
from cardbatch.batch.settle.equity.analysis import check_walk, not_placed_warnings
from cardbatch.batch.settle.fairness.options import FairnessOptions

if TYPE_CHECKING:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from cardbatch.batch.settle.options import SettleOptions
    from cardbatch.kernels.equity import Walk


@dataclasses.dataclass(frozen=True)
class Fairness(Analysis):
    """A fairness run: ``options`` (its groups, level and results), ``walk`` (how each all-in is
    walked: every recorded card seen), ``by_player`` (an all-in test per ``player_id``). ``group``:
    set by :meth:`for_unit` when a unit's rows all lie below one ``COLUMN=value`` folder of ``--by``."""

    options: FairnessOptions
    walk: Walk
    by_player: bool = False
    group: tuple[str, str] | None = None

    name: ClassVar[str] = "fairness"
    command: ClassVar[str | None] = "fairness"
    keys: ClassVar[tuple[str, ...]] = ("fairness", "equity", "by_player")
    off: ClassVar[dict[str, Any]] = {"fairness": None}
    counters: ClassVar[tuple[str, ...]] = ("equity", "fairness")
    tops: ClassVar[tuple[str, ...]] = ("fairness.json", "fairness.html")

    @classmethod
    def from_flat(cls, flat: dict[str, Any]) -> Fairness | None:
        options = flat.get("fairness")
        if options is None:
            flat.pop("fairness", None)
            return None
        if not isinstance(options, FairnessOptions):
            raise ValueError(f"fairness must be a FairnessOptions or None, got {options!r}")
        from cardbatch.kernels.equity import Walk

        del flat["fairness"]
        walk, by_player = flat.pop("equity", None), flat.pop("by_player", False)
        if not isinstance(by_player, bool):
            raise ValueError(f"by_player must be True or False, got {by_player!r}")
        return cls(options, Walk() if walk is None else walk, by_player)

    def flat(self) -> dict[str, Any]:
        return {
            "fairness": dataclasses.asdict(self.options),
            "equity": dataclasses.asdict(self.walk),
            "by_player": self.by_player,
        }

    def part_key(self) -> dict[str, Any]:
        key = self.flat()
        key["fairness"] = {k: v for k, v in key["fairness"].items() if k != "level"}  # the level judges, no more
        return key

    def check(self, opts: SettleOptions) -> None:
        check_walk(self.walk, opts)
        if self.walk.deck != "seen":
            # the tests compare realised shares with their expectation, which only the true deck gives
            raise ValueError(
                f"a fairness run counts every recorded card as seen (--equity-deck seen); {self.walk.deck} puts "
                "the folded cards back in the deck, which is biased where folds depend on the cards: it is for "
                "settle --equity's luck reports"
            )
        if opts.pots.rake_pct or opts.no_flop_no_drop:
            # the audit compares shares of the chips the hand paid with equity: no rake, as the command runs it
            raise ValueError("a fairness run settles without rake (rake_pct 0, no_flop_no_drop off)")

    def check_inputs(self, paths: Sequence[str], parsed: dict[str, pq.FileMetaData]) -> None:
        if self.options.by is not None:  # before the folder changes: a wrong --by stops here
            from cardbatch.batch.settle.fairness.groups import check_groups

            check_groups(list(paths), self.options.by, parsed)

    def check_schema(self, path: str, schema: pa.Schema) -> None:
        from cardbatch.batch.settle.outputs import hive_keys

        by = self.options.by
        if by is not None and by not in schema.names and by not in dict(hive_keys(path)):
            raise InputError(
                f"{path}: --by {by}: no such column or {by}=value folder (columns: {', '.join(schema.names)})"
            )

    def for_unit(self, hive: tuple[tuple[str, str], ...]) -> Fairness:
        from cardbatch.batch.settle.fairness.groups import folder_value

        value = folder_value(self.options.by, hive)
        if value is None or self.options.by is None:
            return self
        # the unit's rows are one group: tallied once, as "all", and filed under by=value too
        return dataclasses.replace(
            self, options=dataclasses.replace(self.options, by=None), group=(self.options.by, value)
        )

    def unit_counters(self, counters: dict[str, Any]) -> dict[str, Any]:
        from cardbatch.batch.settle.fairness.groups import with_folder_group

        return counters if self.group is None else with_folder_group(counters, *self.group)

    @property
    def writes_results(self) -> bool:
        return self.options.results

    def result_fields(self) -> tuple[tuple[str, pa.DataType], ...]:
        from cardbatch.batch.settle.equity.allin import EQUITY_FIELDS

        return EQUITY_FIELDS if self.options.results else ()

    def add(self, batch: Batch) -> tuple[dict[str, pa.Array], dict[str, Any]]:
        from cardbatch.batch.settle.equity import allin
        from cardbatch.batch.settle.fairness.tally import tally

        sub, payout = batch.table, batch.payout
        rows, counts = allin.walk_rows(sub, payout, batch.spec, batch.opts, self.walk, whole=True)
        if self.by_player and "player_id" in sub.column_names and rows.h is not None:
            counts["by_player"] = allin.by_player(sub, rows, payout)
        tallies = tally(sub, rows, payout, batch.spec, batch.opts.rules, self.options.by, self.by_player)
        columns = allin.equity_columns(rows) if self.options.results else {}
        return columns, {"equity": counts, "fairness": tallies}

    def finish(self, out: str, total: dict[str, Any], opts: SettleOptions) -> None:
        total["fairness"] = write_fairness(out, total, opts.rules, self.options)

    def line(self, figures: dict[str, Any], out: str) -> str | None:
        return fairness_line(figures, out)

    def status(self, figures: dict[str, Any]) -> int:
        return EXIT_FAIRNESS if (figures.get("fairness") or {}).get("rejected") else EXIT_OK

    def warnings(self, figures: dict[str, Any]) -> list[str]:
        found = not_placed_warnings(figures, "the all-in tests")
        from cardbatch.games import REGISTRY

        not_placed = (figures.get("equity") or {}).get("not_placed") or {}
        no_board = {k.removeprefix("game_"): n for k, n in not_placed.items() if k.startswith("game_")}
        if no_board:  # rows no all-in test can use, by design: said as the walk's other causes are
            which = ", ".join(f"{g} {n:,}" for g, n in sorted(no_board.items()))
            found.append(
                f"the all-in tests: {sum(no_board.values()):,} of {figures.get('rows_settled', 0):,} settled rows "
                f"have no equity ({which}: a game with no board to come, whose all-ins are not walked)"
            )
        for tests in (figures.get("fairness") or {}).get("not_run") or []:
            spec = REGISTRY.get(tests.split(":", 1)[0].split(" (", 1)[0])  # "GAME: ..." or "GAME (SCOPE): ..."
            if spec is not None and not spec.cards_as_dealt:  # a draw game's hands: no card test by design
                found.append(f"fairness: {tests} not tested: {DRAWN}, so its cards are not dealt at random")
                continue
            found.append(
                f"fairness: {tests} not tested: the log does not record every seat's cards (see fairness.html)"
            )
        return found

    def repeated_ids_note(self) -> str:
        return "; a hand given twice counts twice in every test"


def write_fairness(out: str, total: dict[str, Any], rules: str, options: FairnessOptions) -> dict[str, Any]:
    """Run the tests on the run's tallies, write ``fairness.json`` and ``fairness.html`` into ``out``,
    take the tallies out of the summary (the parts keep them), and return the summary's entry."""
    from cardbatch.batch.settle.fairness.audit import run_tests
    from cardbatch.batch.settle.fairness.report import render

    by_game = total.get("by_game", {})
    verdict = run_tests(by_game, rules, options.level)
    verdict["by"] = options.by
    verdict["calibration"] = {
        game: {
            k.split("=")[1]: v
            for k, v in c.get("fairness", {}).get("all", {}).get("allin", {}).items()
            if k.startswith("equity=")
        }
        for game, c in by_game.items()
    }
    verdict["rows"] = {game: c.get("fairness", {}).get("all", {}).get("rows", 0) for game, c in by_game.items()}
    total.pop("fairness", None)
    for c in by_game.values():
        c.pop("fairness", None)
    storage.write_text(storage.join(out, "fairness.json"), json.dumps(verdict, indent=1, sort_keys=True))
    storage.write_text(storage.join(out, "fairness.html"), render(verdict, total))
    return {
        "tests": len(verdict["tests"]),
        "rejected": len(verdict["rejected"]),
        "skipped": verdict["skipped"],
        "not_run": [r["tests"] for r in verdict["not_run"]],
        "level": verdict["level"],
        "files": ["fairness.json", "fairness.html"],
    }


DRAWN = "a draw game's recorded hand is partly its player's choice, the cards it kept"


def fairness_line(s: Mapping[str, Any], out: str) -> str:
    """What a fairness run found, in one line."""
    f = s.get("fairness") or {}
    verdict = "nothing rejected" if not f.get("rejected") else f"{f['rejected']} REJECTED"
    if not f.get("tests"):
        from cardbatch.games import REGISTRY

        games = [g for g, c in (s.get("by_game") or {}).items() if c.get("rows_settled")]
        why = "too few rows, all-ins or recorded cards"
        if games and all(g in REGISTRY and not REGISTRY[g].cards_as_dealt for g in games):
            why = f"{DRAWN}: no card test by design, and no all-in is walked"
        verdict = f"no test could run ({why}): nothing was judged"
    return (
        f"cardbatch fairness: {s['rows_read']:,} rows, {s['rows_settled']:,} settled; {f.get('tests', 0)} tests at "
        f"level {f.get('level')} (Holm): {verdict}; {s['wall_seconds']:.1f} s; "
        f"see {storage.join(out, 'fairness.html')}"
    )
