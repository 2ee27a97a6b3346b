"""The analyses' interface (batch/settle/analysis.py): a new analysis is one class, and the run
calls every step of it, in memory and into a folder, through one process or several."""

from __future__ import annotations

import dataclasses
import json
from typing import Any, ClassVar

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from cardbatch.batch.generate import generate_hands
from cardbatch.batch.io.jobs import RunOptions
from cardbatch.batch.io.storage import join, write_text
from cardbatch.batch.settle.analysis import Analysis, Batch, check_together, flat_keys, registered
from cardbatch.batch.settle.audit import Audit
from cardbatch.batch.settle.job import run, settle_in_memory
from cardbatch.batch.settle.options import SettleJob, SettleOptions


@dataclasses.dataclass(frozen=True)
class BigPots(Analysis):
    """A toy analysis: flags each settled row whose payouts reach ``at`` chips, counts them, writes
    a file of its own and fails the run (status 9) when any is found."""

    at: int = 100

    name: ClassVar[str] = "big_pots"
    counters: ClassVar[tuple[str, ...]] = ("big_pots",)
    tops: ClassVar[tuple[str, ...]] = ("big_pots.json",)

    def flat(self) -> dict[str, Any]:
        return {"big_pots": self.at}

    def result_fields(self) -> tuple[tuple[str, pa.DataType], ...]:
        return (("big_pot", pa.bool_()),)

    def add(self, batch: Batch) -> tuple[dict[str, pa.Array], dict[str, Any]]:
        sums = np.add.reduceat(batch.payout, _starts(batch.table)) if batch.table.num_rows else np.zeros(0)
        big = sums >= self.at
        return {"big_pot": pa.array(big)}, {"big_pots": {"rows": int(big.sum())}}

    def finish(self, out: str, total: dict[str, Any], opts: SettleOptions) -> None:
        write_text(join(out, "big_pots.json"), json.dumps(total.get("big_pots", {})))

    def line(self, figures: dict[str, Any], out: str) -> str | None:
        return f"big pots: {figures.get('big_pots', {}).get('rows', 0)}"

    def status(self, figures: dict[str, Any]) -> int:
        return 9 if figures.get("big_pots", {}).get("rows") else 0

    def warnings(self, figures: dict[str, Any]) -> list[str]:
        return ["big pots found"] if figures.get("big_pots", {}).get("rows") else []


def _starts(table: pa.Table) -> np.ndarray:
    lengths = pa.compute.list_value_length(table.column("folded")).to_numpy()
    return np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)


def _expected(table: pa.Table, at: int) -> int:
    results, _, _ = settle_in_memory(table, "t", SettleOptions(game="holdem"))
    return sum(sum(p) >= at for p in results.column("payout").to_pylist())


@pytest.mark.slow  # seconds in the fast loop: CI runs it
def test_a_new_analysis_is_one_class_and_the_run_calls_every_step(tmp_path):
    table = generate_hands("holdem", 3_000, seed=3, bad_rate=0.05).table
    want = _expected(table, 100)
    assert 0 < want < table.num_rows
    opts = SettleOptions(game="holdem", analyses=(BigPots(100),))
    results, _, figures = settle_in_memory(table, "t", opts, batch_rows=700)
    assert figures["big_pots"] == {"rows": want} and sum(results.column("big_pot").to_pylist()) == want
    assert figures["options"]["big_pots"] == 100

    pq.write_table(table, tmp_path / "h.parquet", row_group_size=500)
    for workers in (1, 2):  # this process, and pool workers given the options as they are
        out = tmp_path / f"out{workers}"
        job = SettleJob((str(tmp_path / "h.parquet"),), str(out), opts, 700, RunOptions(workers, quiet=True))
        summary = run(job)
        assert summary.status == 9 and summary.line == f"big pots: {want}"
        assert summary.warnings == ("big pots found",)
        assert json.loads((out / "big_pots.json").read_text()) == {"rows": want}
        written = pq.read_table(out / "results")
        assert sum(written.column("big_pot").to_pylist()) == want


def test_the_registry_and_the_flat_names():
    assert [cls.name for cls in registered()] == ["fairness", "equity", "audit"]
    assert set(flat_keys()) == {"audit", "equity", "by_player", "fairness"}
    opts = SettleOptions.of(audit=True, policy="standard")
    assert opts.analyses == (Audit(),) and opts.command == "audit"
    shown = SettleOptions().as_dict()  # an analysis that is off still shows its options, off
    assert (shown["audit"], shown["equity"], shown["fairness"], shown["by_player"]) == (False, None, None, False)


def test_analyses_that_cannot_run_together_are_refused():
    with pytest.raises(ValueError, match="audit given twice"):
        check_together((Audit(), Audit()))
    with pytest.raises(ValueError, match="big_pots given twice"):
        SettleOptions(analyses=(BigPots(1), BigPots(2)))

    class AlsoBig(BigPots):
        name: ClassVar[str] = "also_big"

    with pytest.raises(ValueError, match="big_pots and also_big cannot run together: both count big_pots"):
        SettleOptions(analyses=(BigPots(1), AlsoBig(2)))
    with pytest.raises(ValueError, match="must be Analysis objects"):
        SettleOptions(analyses=("audit",))  # type: ignore[arg-type]
