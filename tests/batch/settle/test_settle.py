"""The batch driver end to end: real Parquet files, real processes, a real Dask LocalCluster."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from conftest import DATA, cli

from cardbatch.batch.generate import generate_hands, generate_teams
from cardbatch.batch.settle.job import settle_files
from cardbatch.batch.settle.manifest import file_identity
from cardbatch.batch.settle.options import SettleOptions


def write(g, path, row_group=700):
    pq.write_table(g.table, path, row_group_size=row_group, compression="zstd")
    return path


@pytest.fixture(scope="module")
def holdem_file(tmp_path_factory):
    d = tmp_path_factory.mktemp("in")
    g = generate_hands("holdem", 3000, seed=7, bad_rate=0.06, tamper_rate=0.02)
    return g, write(g, d / "holdem.parquet")


def read_dir(path):
    """Every part below ``path`` (parts sit in game=G folders), one table; None if there is none."""
    files = sorted(Path(path).rglob("*.parquet"))
    return pa.concat_tables([pq.read_table(f) for f in files], promote_options="permissive") if files else None


def test_every_row_accounted_for_and_chips_conserved(holdem_file, tmp_path):
    g, path = holdem_file
    s = settle_files([str(path)], str(tmp_path / "out"), SettleOptions(), workers=1, batch_rows=1000, quiet=True)
    assert s["rows_read"] == 3000 == s["rows_settled"] + s["rows_rejected"]
    assert s["chips_in"] == s["chips_paid"] + s["chips_raked"]
    results, errors = read_dir(tmp_path / "out" / "results"), read_dir(tmp_path / "out" / "errors")
    assert results.num_rows == s["rows_settled"] and errors.num_rows == s["rows_rejected"]
    assert sorted(results.column("hand_id").to_pylist() + errors.column("hand_id").to_pylist()) == list(range(3000))
    # every injected bad row is rejected with its reason, and nothing else is rejected
    for reason, ids in g.injected.items():
        got = errors.filter(pc.is_in(errors.column("hand_id"), value_set=pa.array(ids)))
        assert got.num_rows == len(ids) and set(got.column("reason").to_pylist()) <= {reason}
    assert errors.num_rows == sum(len(v) for v in g.injected.values())
    assert set(errors.column_names) >= {"hand_id", "reason", "message", "cards", "contrib", "folded"}
    # results equal a direct kernel call on the same rows
    payout = results.column("payout").combine_chunks()
    src = g.table.filter(pc.is_in(g.table.column("hand_id"), value_set=results.column("hand_id")))
    assert src.column("hand_id").to_pylist() == sorted(results.column("hand_id").to_pylist())
    recorded = src.column("payout").combine_chunks()
    tampered = set(g.tampered.tolist())
    for i in range(0, results.num_rows, 17):
        hid = results.column("hand_id")[i].as_py()
        if hid not in tampered:
            assert payout[i].as_py() == recorded[i].as_py()


def test_audit_finds_exactly_the_altered_rows(holdem_file, tmp_path):
    g, path = holdem_file
    res = cli("audit", str(path), "--out", str(tmp_path / "a"), "--workers", "1", "--quiet")
    assert res.returncode == 3, res.stderr
    results = read_dir(tmp_path / "a" / "results")
    flagged = set(results.filter(results.column("mismatch")).column("hand_id").to_pylist())
    bad = set().union(*[set(v.tolist()) for v in g.injected.values()])
    assert flagged == set(g.tampered.tolist()) - bad
    assert json.loads((tmp_path / "a" / "summary.json").read_text())["mismatches"] == len(flagged)


def test_clean_audit_exits_zero(tmp_path):
    g = generate_hands("zjh", 800, seed=3)
    path = write(g, tmp_path / "z.parquet")
    res = cli("audit", str(path), "--out", str(tmp_path / "o"), "--workers", "1", "--quiet")
    assert res.returncode == 0, res.stderr


@pytest.mark.parametrize("policy", ["presence", "ratio_rank", "hybrid"])
def test_street_policies_and_text_cards(tmp_path, policy):
    g = generate_hands("holdem", 1500, seed=11, bad_rate=0.05, streets_column=True, text_cards=True)
    path = write(g, tmp_path / "s.parquet")
    s = settle_files([str(path)], str(tmp_path / "out"), SettleOptions.of(policy=policy), workers=1, quiet=True)
    assert s["rows_settled"] + s["rows_rejected"] == 1500
    assert s["rows_rejected"] == sum(len(v) for v in g.injected.values())
    assert s["chips_in"] == s["chips_paid"]


def test_team_games(tmp_path):
    g = generate_teams(2000, seed=4, bad_rate=0.05)
    path = write(g, tmp_path / "t.parquet")
    s = settle_files([str(path)], str(tmp_path / "out"), SettleOptions(), workers=1, quiet=True)
    assert s["rows_rejected"] == sum(len(v) for v in g.injected.values())
    assert s["mismatches"] == 0
    results = read_dir(tmp_path / "out" / "results")
    delta = np.stack(results.column("delta").to_numpy(zero_copy_only=False))
    assert (delta.sum(axis=1) == 0).all()


@pytest.mark.slow  # a worker process made to fail, then a rerun
def test_crash_then_rerun_gives_identical_output(holdem_file, tmp_path):
    g, path = holdem_file
    clean = tmp_path / "clean"
    assert (
        cli("settle", str(path), "--out", str(clean), "--workers", "1", "--batch-rows", "700", "--quiet").returncode
        == 0
    )
    crashed = tmp_path / "crashed"
    res = cli(
        "settle",
        str(path),
        "--out",
        str(crashed),
        "--workers",
        "2",
        "--batch-rows",
        "700",
        "--quiet",
        env={"CARDBATCH_FAIL_PART": "part-00000-00002"},  # a process of its own: a worker made to fail, then a rerun
    )
    assert res.returncode != 0 and "injected failure" in res.stderr
    assert not (crashed / "summary.json").exists()
    failed = f"part-{file_identity(os.path.realpath(path))['key']}-00002"  # the drill's part-00000-00002
    assert not list((crashed / "results").rglob(f"{failed}.parquet"))
    assert (crashed / "_manifest.json").exists()
    res = cli("settle", str(path), "--out", str(crashed), "--workers", "2", "--batch-rows", "700", "--quiet")
    assert res.returncode == 0, res.stderr
    for sub in ("results", "errors"):
        a = sorted(str(p.relative_to(clean / sub)) for p in (clean / sub).rglob("*.parquet"))
        assert a == sorted(str(p.relative_to(crashed / sub)) for p in (crashed / sub).rglob("*.parquet"))
        for name in a:
            assert (clean / sub / name).read_bytes() == (crashed / sub / name).read_bytes()
    assert not list(crashed.rglob(".*tmp"))


def test_unreadable_and_wrong_inputs_exit_2_and_write_nothing(tmp_path):
    junk = tmp_path / "junk.parquet"
    junk.write_bytes(b"not parquet at all")
    out = tmp_path / "o1"
    res = cli("settle", str(junk), "--out", str(out))
    assert res.returncode == 2 and "cannot read" in res.stderr
    assert not out.exists() or not any(out.rglob("*.parquet"))
    wrong = tmp_path / "wrong.parquet"
    pq.write_table(pa.table({"hand_id": [1, 2], "board": [[1, 2, 3, 4, 5]] * 2}), wrong)
    res = cli("settle", str(wrong), "--out", str(tmp_path / "o2"))
    assert res.returncode == 2 and "missing column" in res.stderr
    res = cli("settle", str(tmp_path / "nope.parquet"), "--out", str(tmp_path / "o3"))
    assert res.returncode == 2 and "does not exist" in res.stderr


def test_output_folder_not_writable(holdem_file, tmp_path):
    g, path = holdem_file
    blocker = tmp_path / "file"
    blocker.write_text("x")
    res = cli("settle", str(path), "--out", str(blocker / "sub"))
    assert res.returncode == 2 and "cannot write" in res.stderr


def test_folders_globs_and_hive_partitions(tmp_path):
    root = tmp_path / "ds"
    for day in (1, 2):
        (root / f"day={day}").mkdir(parents=True)
        write(generate_hands("zjh", 400, seed=day, start=day * 1000), root / f"day={day}" / "part.parquet")
    s1 = settle_files([str(root)], str(tmp_path / "a"), SettleOptions(), workers=1, quiet=True)
    s2 = settle_files([str(root / "day=*" / "*.parquet")], str(tmp_path / "b"), SettleOptions(), workers=1, quiet=True)
    assert s1["rows_read"] == s2["rows_read"] == 800 and s1["files"] == 2


@pytest.mark.slow  # a Dask LocalCluster
def test_dask_local_cluster_equals_local_engine(holdem_file, tmp_path):
    pytest.importorskip("dask.distributed")
    g, path = holdem_file
    local = tmp_path / "local"
    settle_files([str(path)], str(local), SettleOptions(), workers=1, batch_rows=1000, quiet=True)
    dsk = tmp_path / "dask"
    s = settle_files([str(path)], str(dsk), SettleOptions(), workers=2, engine="dask", batch_rows=1000, quiet=True)
    assert s["engine"] == "dask" and s["rows_read"] == 3000
    for sub in ("results", "errors"):
        for p in (local / sub).rglob("*.parquet"):
            assert p.read_bytes() == (dsk / sub / p.relative_to(local / sub)).read_bytes()


def test_mixed_games_in_one_file(tmp_path):
    from cardbatch.batch.settle.job import settle_table

    a = generate_hands("holdem", 500, 1).table
    b = generate_hands("zjh", 500, 2, start=500).table
    t = pa.concat_tables([a, b], promote_options="permissive")
    t = t.set_column(t.column_names.index("game"), "game", pa.array(["holdem"] * 500 + ["zjh"] * 499 + ["bridge"]))
    results, errors, c = settle_table(t, SettleOptions())
    assert c["rows_settled"] == 999 and errors.column("reason").to_pylist() == ["unknown_game"]
    assert sorted(results.column("hand_id").to_pylist()) == list(range(999))


def test_part_widens_when_later_batches_hold_another_game(tmp_path):
    """A unit's first batch is Hold'em only, its second ZJH: one unit, each game's part in its own
    folder in the one results schema, every row."""
    a = generate_hands("holdem", 300, 1).table
    b = generate_hands("zjh", 300, 2, start=300).table
    t = pa.concat_tables([a, b], promote_options="permissive")
    t = t.set_column(t.column_names.index("game"), "game", pa.array(["holdem"] * 300 + ["zjh"] * 300))
    src = tmp_path / "mixed.parquet"
    pq.write_table(t, src, row_group_size=300)
    s = settle_files([str(src)], str(tmp_path / "out"), SettleOptions(), workers=1, batch_rows=600, quiet=True)
    assert s["parts"] == 1 and s["rows_read"] == 600
    got = read_dir(tmp_path / "out" / "results")
    assert got.schema.field("score").type == pa.list_(pa.int64())
    assert got.num_rows == s["rows_settled"] and sorted(got.column("hand_id").to_pylist()) == sorted(
        set(range(600))
        - set(
            read_dir(tmp_path / "out" / "errors").column("hand_id").to_pylist()
            if list((tmp_path / "out" / "errors").rglob("*.parquet"))
            else []
        )
    )
    assert not list((tmp_path / "out" / "results").rglob(".*"))  # no temporary file left


@pytest.mark.slow  # waits out Dask's connect timeout
def test_unreachable_scheduler_exits_2(holdem_file, tmp_path):
    """Nothing listens at the port: said at once (Dask's client tried again for its 15 s timeout)."""
    pytest.importorskip("dask.distributed")
    g, path = holdem_file
    t0 = time.perf_counter()
    res = cli(
        "settle",
        str(path),
        "--out",
        str(tmp_path / "o"),
        "--engine",
        "dask",
        "--scheduler",
        "tcp://127.0.0.1:9",
        "--quiet",
    )
    assert res.returncode == 2 and "cannot reach the Dask scheduler" in res.stderr
    assert time.perf_counter() - t0 < 10


def test_full_disk_stops_cleanly(holdem_file, tmp_path):
    """A real full disk: a 64 KiB tmpfs (needs root and mount; skipped where not allowed)."""
    disk = tmp_path / "small"
    disk.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(disk)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip("cannot mount a small tmpfs here")
    try:
        g, path = holdem_file
        res = cli("settle", str(path), "--out", str(disk / "out"), "--workers", "1", "--quiet")
        assert res.returncode == 2 and "No space left" in res.stderr
        assert not list((disk / "out").rglob("*.tmp")) and not (disk / "out" / "summary.json").exists()
    finally:
        subprocess.run(["umount", str(disk)], capture_output=True)


def _dead_money_table(dead_type):
    """The WSOP 2023 Event #43 hand of SPEC §5 step 7 (button 2 calls the BB's all-in and wins), its
    mirror (the BB wins), a row with a null dead cell and one with dead chips above the contribution."""
    from cardbatch.kernels import cards

    hole = cards.parse("2c7dAhAsKhKs")  # SB folds; BB aces lose to kings on a K-high board
    board = cards.parse("Kd8c4h3s2d")
    hole_bb_wins = cards.parse("2c7dKhKsAhAs")
    board_bb_wins = cards.parse("Kd8c4h3s2h")
    rows = [hole, hole_bb_wins, hole, hole]
    return pa.table(
        {
            "hand_id": pa.array([1, 2, 3, 4], pa.int64()),
            "button": pa.array([2, 2, 2, 2], pa.int8()),
            "board": pa.array(
                [board.tolist(), board_bb_wins.tolist(), board.tolist(), board.tolist()], pa.list_(pa.uint8(), 5)
            ),
            "cards": pa.array([r.tolist() for r in rows], pa.list_(pa.uint8())),
            "contrib": pa.array([[75_000, 3_575_000, 3_350_000]] * 4, pa.list_(pa.int64())),
            "folded": pa.array([[True, False, False]] * 4, pa.list_(pa.bool_())),
            "dead": pa.array([[0, 225_000, 0], [0, 225_000, 0], None, [0, 3_575_001, 0]], pa.list_(dead_type)),
        }
    )


@pytest.mark.parametrize("dead_type", [pa.int64(), pa.uint32()])
def test_dead_money_column(dead_type):
    from cardbatch.batch.settle.job import settle_table

    table = _dead_money_table(dead_type)
    results, errors, counters = settle_table(table, SettleOptions.of(game="holdem"))
    assert results.column("hand_id").to_pylist() == [1, 2]
    assert results.column("payout").to_pylist() == [
        [0, 0, 7_000_000],
        [0, 7_000_000, 0],
    ]  # the whole table: 75,000 + 3,575,000 + 3,350,000
    assert dict(zip(errors.column("hand_id").to_pylist(), errors.column("reason").to_pylist())) == {
        3: "missing_value",
        4: "bad_dead_money",
    }
    assert counters["chips_in"] == counters["chips_paid"] == 14_000_000
    _, errors, _ = settle_table(table.slice(0, 2), SettleOptions.of(game="holdem", policy="ratio_rank"))
    assert errors.column("reason").to_pylist() == ["dead_money_policy"] * 2


def test_dead_money_null_elements_and_int64_limits():
    """A null element of ``dead`` rejects its row only; a dead value beyond int64 is ``overflow``; dead
    chips at int64's limit settle exactly."""
    from cardbatch.batch.settle.job import settle_table

    base = _dead_money_table(pa.int64()).slice(0, 1)
    big = 2**62 - 1  # the table holds 2**63 - 1 chips: int64 at its very limit
    rows = pa.concat_tables([base] * 3).to_pydict()
    rows["hand_id"] = [1, 2, 3]
    rows["contrib"] = [[75_000, 3_575_000, 3_350_000], [0, big + 1, big], [75_000, 3_575_000, 3_350_000]]
    rows["folded"] = [[True, False, False]] * 3
    rows["dead"] = [[0, None, 0], [0, 1, 0], [0, 2**63, 0]]
    table = pa.table(
        {
            k: pa.array(v, base.schema.field(k).type) if k != "dead" else pa.array(v, pa.list_(pa.uint64()))
            for k, v in rows.items()
        }
    )
    results, errors, counters = settle_table(table, SettleOptions.of(game="holdem"))
    assert dict(zip(errors.column("hand_id").to_pylist(), errors.column("reason").to_pylist())) == {
        1: "missing_value",
        3: "overflow",
    }
    assert results.column("payout").to_pylist() == [[0, 0, 2 * big + 1]]  # the button wins it all, exactly
    assert counters["chips_in"] == counters["chips_paid"] == 2 * big + 1


def test_the_human_line_and_progress_say_what_ran(tmp_path):
    """Row 12: audit's progress said "cardbatch settle:", "output in audit//", "on 1 workers", and
    tied reasons changed order between runs."""
    out = str(tmp_path / "audit") + "/"
    done = cli("audit", str(DATA / "holdem_sample.parquet"), "--out", out, "--workers", "1", "--verbose")
    assert done.returncode == 3
    assert "cardbatch audit: 3,000/3,000 rows" in done.stderr and "cardbatch settle:" not in done.stderr
    assert f"output in {out} (" in done.stderr and "//" not in done.stderr
    page = (tmp_path / "audit" / "report.html").read_text()
    assert "on 1 worker." in page
    counts = json.loads(done.stdout)["rejected_by_reason"]
    said = done.stderr.splitlines()[-1].split(" rejected (")[1].split(")")[0]
    assert [r.split()[0] for r in said.split(", ")] == sorted(counts, key=lambda r: (-counts[r], r))


def test_the_jobs_summary_carries_its_human_line(tmp_path):
    """Found by a trial: ``run(SettleJob(...))`` gave a Summary whose ``line`` was empty."""
    from cardbatch.batch.io.jobs import RunOptions
    from cardbatch.batch.settle.job import run
    from cardbatch.batch.settle.options import SettleJob, SettleOptions

    sample = str(DATA / "holdem_sample.parquet")
    summary = run(SettleJob((sample,), str(tmp_path / "out"), SettleOptions.of(audit=True), run=RunOptions(quiet=True)))
    assert summary.line.startswith("cardbatch audit: 3,000 rows: ") and summary.status == 3
