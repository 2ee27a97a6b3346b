"""Every shape of input settles the same: tiny row groups, thousands of small files, partitions.

Units of work are about ``--batch-rows`` rows whatever the input's shape, and the
outputs are sized for readers; per-file counters, resumes and the output
folder's foreign files stay exact. Expected values come from the same hands in
one tidy file, or from counting the written outputs back to their input files.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import cli

from cardbatch.batch.generate import generate_hands
from cardbatch.batch.io import storage
from cardbatch.batch.io.errors import InputError
from cardbatch.batch.settle.job import settle_files
from cardbatch.batch.settle.options import SettleOptions

OPTS = SettleOptions()


def hands(n: int, seed: int = 5, start: int = 0) -> pa.Table:
    return generate_hands("holdem", n, seed=seed, start=start, bad_rate=0.05, tamper_rate=0.03).table


def outputs(out: Path, kind: str = "results") -> pa.Table:
    """Every part of ``out/kind``, rows sorted by hand_id (parts sit in game=G folders)."""
    files = sorted((out / kind).rglob("*.parquet"))
    t = pa.concat_tables([pq.read_table(f) for f in files], promote_options="permissive")
    return t.take(pa.compute.sort_indices(t, [("hand_id", "ascending")]))


def split_into_files(table: pa.Table, folder: Path, rows_per_file: int, row_group: int | None = None) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for k, start in enumerate(range(0, table.num_rows, rows_per_file)):
        path = folder / f"f{k:05d}.parquet"
        pq.write_table(table.slice(start, rows_per_file), path, row_group_size=row_group or rows_per_file)
        paths.append(path)
    return paths


@pytest.fixture(scope="module")
def tidy(tmp_path_factory):
    """600 hands in one file of one row group, settled: what every other shape must give."""
    d = tmp_path_factory.mktemp("tidy")
    table = hands(600)
    pq.write_table(table, d / "tidy.parquet")
    summary = settle_files([str(d / "tidy.parquet")], str(d / "out"), OPTS, workers=1, quiet=True)
    return table, summary, outputs(d / "out"), outputs(d / "out", "errors")


def _same_rows(out: Path, tidy) -> None:
    _, _, results, errors = tidy
    assert outputs(out).equals(results)
    got = outputs(out, "errors")
    assert got.column("hand_id").equals(errors.column("hand_id"))
    assert got.column("reason").equals(errors.column("reason"))


def test_one_row_row_groups_are_read_together(tidy, tmp_path):
    table, want, _, _ = tidy
    pq.write_table(table, tmp_path / "tiny.parquet", row_group_size=1)
    s = settle_files(
        [str(tmp_path / "tiny.parquet")], str(tmp_path / "out"), OPTS, workers=1, batch_rows=256, quiet=True
    )
    _same_rows(tmp_path / "out", tidy)
    assert s["parts"] == 3  # 600 rows in units of 256 row groups of one row, not 600 units
    for part in (tmp_path / "out" / "results").rglob("*.parquet"):
        assert pq.ParquetFile(part).metadata.num_row_groups == 1  # the batches of a part, gathered
    for key in ("rows_settled", "rows_rejected", "chips_in", "chips_paid", "mismatches"):
        assert s[key] == want[key]


@pytest.mark.slow  # seconds in the fast loop: CI runs it
def test_small_files_share_units_and_count_per_file(tidy, tmp_path):
    table, want, results, errors = tidy
    paths = split_into_files(table, tmp_path / "in", 7)  # 86 files of 7 rows (the last of 5)
    s = settle_files([str(tmp_path / "in")], str(tmp_path / "out"), OPTS, workers=2, batch_rows=100, quiet=True)
    _same_rows(tmp_path / "out", tidy)
    assert s["files"] == len(paths) and s["parts"] < len(paths) / 4
    assert len(list((tmp_path / "out" / "results").rglob("*.parquet"))) == s["parts"]
    # each input's counters, counted back from the outputs through the hand ids each file holds
    owner = {}
    for path in paths:
        for hid in pq.read_table(path).column("hand_id").to_pylist():
            owner[hid] = os.path.realpath(path)
    by_file = {i["path"]: i for i in s["inputs"]}
    expect = {
        p: dict.fromkeys(("rows_settled", "rows_rejected", "chips_paid", "chips_raked", "mismatches"), 0)
        for p in by_file
    }
    for hid, pay, rake, mismatch in zip(
        *(results.column(c).to_pylist() for c in ("hand_id", "payout", "rake", "mismatch"))
    ):
        e = expect[owner[hid]]
        e["rows_settled"] += 1
        e["chips_paid"] += sum(pay)
        e["chips_raked"] += rake
        e["mismatches"] += bool(mismatch)
    for hid in errors.column("hand_id").to_pylist():
        expect[owner[hid]]["rows_rejected"] += 1
    for path, e in expect.items():
        got = by_file[path]
        assert {k: got[k] for k in e} == e, path
        assert got["chips_in"] == e["chips_paid"] + e["chips_raked"]
        assert got["rows"] == got["rows_settled"] + got["rows_rejected"]
    for key in ("rows_settled", "rows_rejected", "chips_in", "chips_paid", "chips_raked", "mismatches"):
        assert s[key] == want[key]


def test_a_changed_small_file_recomputes_only_its_unit(tidy, tmp_path):
    table, _, _, _ = tidy
    paths = split_into_files(table, tmp_path / "in", 10)
    out = tmp_path / "out"
    first = settle_files([str(tmp_path / "in")], str(out), OPTS, workers=1, batch_rows=100, quiet=True)
    assert first["parts"] >= 4
    changed = hands(10, seed=99, start=int(table.column("hand_id")[300].as_py()))
    pq.write_table(changed, paths[30])  # same path, other hands
    again = settle_files([str(tmp_path / "in")], str(out), OPTS, workers=1, batch_rows=100, quiet=True)
    assert again["parts"] - again["parts_reused"] <= 3  # its unit, and the next one or two if a cut moved
    assert again["parts_reused"] >= again["parts"] - 3 > 0
    fresh = settle_files([str(tmp_path / "in")], str(tmp_path / "fresh"), OPTS, workers=1, batch_rows=100, quiet=True)
    assert outputs(out).equals(outputs(tmp_path / "fresh"))
    assert [i for i in again["inputs"]] == [i for i in fresh["inputs"]]
    names = json.loads((out / "_manifest.json").read_text())["parts"]
    keys = {p: json.loads((out / "_manifest.json").read_text())["files"] for p in names}
    assert len(names) == again["parts"] and all(names.values()) and keys


def test_small_files_of_other_schemas_and_partitions_stay_apart(tmp_path):
    a, b = hands(40, seed=1), hands(40, seed=2, start=1000)
    narrow = b.set_column(0, "hand_id", b.column("hand_id").cast(pa.int32()))
    for day, t in (("2026-11-01", a), ("2026-11-02", narrow)):
        split_into_files(t, tmp_path / "in" / f"date={day}", 5)
    s = settle_files([str(tmp_path / "in")], str(tmp_path / "out"), OPTS, workers=1, batch_rows=1000, quiet=True)
    assert s["parts"] == 2 and s["rows_read"] == 80
    res = outputs(tmp_path / "out")
    dates = dict(zip(res.column("hand_id").to_pylist(), res.column("date").to_pylist()))
    assert {d for h, d in dates.items() if h < 1000} <= {"2026-11-01"}
    assert {d for h, d in dates.items() if h >= 1000} <= {"2026-11-02"}


def test_a_run_keeps_what_it_did_not_write_and_names_it(tmp_path):
    pq.write_table(hands(50), tmp_path / "h.parquet")
    out = tmp_path / "out"
    assert cli("settle", str(tmp_path / "h.parquet"), "--out", str(out), "-q").returncode == 0
    mine = [
        out / "results" / "game=holdem" / "my_extra.parquet",
        out / "results" / "old_stuff" / "a.csv",
        out / "errors" / "keep.txt",
        out / "results" / "game=holdem" / "part-0123456789ab-00000.parquet",  # our pattern, not our part
    ]
    for path in mine:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("the user's own")
    for extra in ([], ["--rake-pct", "0.05"]):  # a resume, then new options (every part recomputed)
        r = cli("settle", str(tmp_path / "h.parquet"), "--out", str(out), *extra)
        assert r.returncode == 0, r.stderr
        for path in mine:
            assert path.read_text() == "the user's own"
            assert str(path) in r.stderr
        assert "did not write" in r.stderr


def test_an_output_inside_the_input_folder_is_never_read(tmp_path):
    pq.write_table(hands(50), tmp_path / "h.parquet")
    for _ in range(2):
        r = cli("settle", str(tmp_path), "--out", str(tmp_path / "out"), "-q")
        assert r.returncode == 0, r.stderr
    assert json.loads((tmp_path / "out" / "summary.json").read_text())["rows_read"] == 50
    r = cli("settle", f"{tmp_path}/**/*.parquet", "--out", str(tmp_path / "out"), "-q")
    assert r.returncode == 0, r.stderr
    assert json.loads((tmp_path / "out" / "summary.json").read_text())["files"] == 1


def test_a_manifest_of_another_tool_does_not_hide_a_folder(tmp_path):
    pq.write_table(hands(20), tmp_path / "h.parquet")
    (tmp_path / "_manifest.json").write_text('{"written_by": "another tool"}')
    assert settle_files([str(tmp_path)], str(tmp_path / "o"), OPTS, workers=1, quiet=True)["rows_read"] == 20


def test_two_columns_of_one_name_stop_with_exit_2_naming_it(tmp_path):
    t = hands(10)
    twice = pa.Table.from_arrays([*t.columns, t.column("button")], names=[*t.column_names, "button"])
    pq.write_table(twice, tmp_path / "twice.parquet")
    r = cli("settle", str(tmp_path / "twice.parquet"), "--out", str(tmp_path / "out"))
    assert r.returncode == 2, r.stderr
    assert "button" in r.stderr and "more than once" in r.stderr and "Traceback" not in r.stderr


def test_an_unsigned_hand_id_beyond_int64_keeps_its_identity(tmp_path):
    t = hands(6, seed=3)
    big = [2**64 - 1 - k for k in range(6)]
    t = t.set_column(0, "hand_id", pa.array(big, pa.uint64()))
    pq.write_table(t, tmp_path / "u.parquet")
    s = settle_files([str(tmp_path / "u.parquet")], str(tmp_path / "out"), OPTS, workers=1, quiet=True)
    assert s["rows_rejected"] == 6 and s["rejected_by_reason"] == {"overflow": 6}
    errors = outputs(tmp_path / "out", "errors")
    assert errors.column("hand_id").null_count == 6
    kept = sorted(int(json.loads(e)["hand_id"]) for e in errors.column("extra").to_pylist())
    assert kept == sorted(big)


def test_writers_gather_small_tables_into_reader_sized_row_groups(tmp_path):
    path = str(tmp_path / "w.parquet")
    w = storage.PublishedParquet(path)
    for k in range(70):
        w.write(pa.table({"x": np.arange(k * 1000, (k + 1) * 1000)}))
    w.close()
    meta = pq.ParquetFile(path).metadata
    sizes = [meta.row_group(g).num_rows for g in range(meta.num_row_groups)]
    assert sum(sizes) == 70_000 and len(sizes) == 2
    assert all(storage.ROW_GROUP_MIN <= n <= storage.ROW_GROUP_MAX for n in sizes[:-1])
    assert pq.read_table(path).column("x").to_numpy().tolist() == list(range(70_000))


def test_row_groups_are_whole_batches_so_a_settle_cuts_no_sliver_parts(tmp_path):
    """Tables of 700 rows gather into row groups of exactly 65,536 rows (a whole multiple of the
    default batch), not 65,536 and a few: settled, each is one part, never a full part and a sliver."""
    path = str(tmp_path / "w.parquet")
    w = storage.PublishedParquet(path)
    table = hands(700, seed=2)
    for _ in range(200):
        w.write(table)
    w.close()
    meta = pq.ParquetFile(path).metadata
    sizes = [meta.row_group(g).num_rows for g in range(meta.num_row_groups)]
    assert sizes == [storage.ROW_GROUP_MIN, storage.ROW_GROUP_MIN, 140_000 - 2 * storage.ROW_GROUP_MIN]
    s = settle_files([path], str(tmp_path / "out"), OPTS, workers=1, quiet=True)
    assert s["parts"] == 3 and s["rows_read"] == 140_000


def test_the_plan_refuses_nothing_it_used_to_read(tmp_path):
    """A file with no row group gives no unit; an empty folder of outputs is no input."""
    pq.write_table(hands(0), tmp_path / "empty.parquet")
    pq.write_table(hands(5), tmp_path / "five.parquet")
    s = settle_files([str(tmp_path)], str(tmp_path / "o"), OPTS, workers=1, quiet=True)
    assert s["rows_read"] == 5
    with pytest.raises(InputError, match="folder of cardbatch output"):  # named: refused, never skipped in silence
        settle_files([str(tmp_path / "o")], str(tmp_path / "o2"), OPTS, workers=1, quiet=True)


def _edited(table: pa.Table, row: int, **values) -> pa.Table:
    """``table`` with one row's cells replaced (types kept)."""
    cols = table.to_pydict()
    for name, value in values.items():
        cols[name][row] = value
    return pa.table({k: pa.array(v, table.schema.field(k).type) for k, v in cols.items()})


@pytest.mark.slow  # seconds in the fast loop: CI runs it
def test_small_files_with_nulls_widths_and_int64_limits_count_as_each_file_alone(tmp_path):
    """Files grouped into one unit count, file by file, exactly what each file settled alone gives:
    null cells and elements, an int32 file (a unit of its own), and two tables of 2**63 - 1 chips
    (their sum passes int64: the per-file sums must not wrap)."""
    base = hands(200, seed=11)
    shown = [
        i
        for i, (folded, board) in enumerate(zip(base.column("folded").to_pylist(), base.column("board").to_pylist()))
        if len(folded) == 3 and 255 not in board
    ]
    big = 2**62 - 1
    folder = tmp_path / "in"
    folder.mkdir()
    limit = dict(contrib=[0, big + 1, big], folded=[True, False, False], payout=None)
    narrow = base.slice(60, 20)
    files = {
        "a.parquet": _edited(base.slice(0, 20), 0, button=None),  # a null cell
        "b.parquet": _edited(base.slice(20, 20), 1, contrib=[5, None, 5]),  # a null element
        "c.parquet": base.slice(40, 20),
        "d.parquet": _edited(base, shown[0], **limit).slice(shown[0], 1),  # 2**63 - 1 chips
        "f.parquet": _edited(base, shown[1], **limit).slice(shown[1], 1),  # and again
        "e.parquet": narrow.set_column(0, "hand_id", narrow.column("hand_id").cast(pa.int32())),
    }
    for name, table in files.items():
        pq.write_table(table, folder / name)
    s = settle_files([str(folder)], str(tmp_path / "out"), OPTS, workers=2, batch_rows=1000, quiet=True)
    assert s["parts"] < len(files)  # a, b, c, d, f share a unit; e (int32 ids) is another
    assert s["chips_in"] > 2**63 - 1  # exact beyond int64
    for name in files:
        alone = settle_files([str(folder / name)], str(tmp_path / f"alone-{name}"), OPTS, workers=1, quiet=True)
        mine = next(i for i in s["inputs"] if i["path"].endswith(name))
        assert mine == alone["inputs"][0], name
    assert s["rejected_by_reason"]["missing_value"] >= 2


@pytest.mark.slow  # signals to a real process
@pytest.mark.parametrize("sig, status", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_stopped_run_of_grouped_small_files_resumes_exactly(tmp_path, sig, status):
    """SIGTERM or Ctrl-C while two workers settle units of small files: the run stops at once with its
    line, and the same command again finishes to the rows and counters of a run never stopped."""
    split_into_files(hands(30_000, seed=4), tmp_path / "in", 20)  # 1,500 files
    out, fresh = tmp_path / "out", tmp_path / "fresh"
    cmd = [sys.executable, "-m", "cardbatch", "settle", str(tmp_path / "in"), "--batch-rows", "100", "--workers", "2"]
    # a real process: what is tested is its answer to a signal while its workers run
    proc = subprocess.Popen([*cmd, "--out", str(out)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 120
    while not list((out / "_parts").glob("part-*.json")) and proc.poll() is None and time.time() < deadline:
        time.sleep(0.01)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == status, err
    assert err.strip().splitlines()[-1] == "interrupted; run the same command again to resume"
    assert not (out / "summary.json").exists()
    finished = len(list((out / "_parts").glob("part-*.json")))
    done = cli(*cmd[3:], "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert cli(*cmd[3:], "--out", str(fresh), "-q").returncode == 0
    assert outputs(out).equals(outputs(fresh))
    assert outputs(out, "errors").equals(outputs(fresh, "errors"))
    keys = ("rows_read", "rows_settled", "rows_rejected", "chips_in", "chips_paid", "inputs", "parts")
    got, want = (json.loads((d / "summary.json").read_text()) for d in (out, fresh))
    assert {k: got[k] for k in keys} == {k: want[k] for k in keys}
    assert got["parts_reused"] == finished  # every part finished before the stop, and only those


@pytest.mark.slow  # three runs of 350 rows, one of them 88 files
def test_the_games_without_a_board_settle_alike_in_every_shape(tmp_path):
    """Stud, stud hi/lo, razz, the draw games and badugi, mixed row by row (a null button where a
    game has none, bad and tampered rows among them), in one tidy file, in one file of one-row row
    groups, and in 88 files of 4 rows in row groups of 2: the same results, the same rows set aside
    for the same reasons, and the same counters."""
    games = ("stud", "stud_hilo", "razz", "draw27_single", "draw27_triple", "badugi", "draw5")
    parts = [
        generate_hands(g, 50, seed=40 + k, start=1000 * k, bad_rate=0.08, tamper_rate=0.05).table
        for k, g in enumerate(games)
    ]
    mixed = pa.concat_tables(parts, promote_options="permissive")
    mixed = mixed.take(np.random.default_rng(7).permutation(mixed.num_rows))
    pq.write_table(mixed, tmp_path / "tidy.parquet")
    want = settle_files([str(tmp_path / "tidy.parquet")], str(tmp_path / "tidy"), OPTS, workers=1, quiet=True)
    tidy = (mixed, want, outputs(tmp_path / "tidy"), outputs(tmp_path / "tidy", "errors"))
    assert want["rows_settled"] > 250 and want["rows_rejected"] > 10 and want["mismatches"] > 5
    assert set(want["by_game"]) == set(games)
    pq.write_table(mixed, tmp_path / "tiny.parquet", row_group_size=1)
    split_into_files(mixed, tmp_path / "small", 4, row_group=2)
    for shape in ("tiny.parquet", "small"):
        got = settle_files(
            [str(tmp_path / shape)], str(tmp_path / f"out-{shape}"), OPTS, workers=2, batch_rows=64, quiet=True
        )
        _same_rows(tmp_path / f"out-{shape}", tidy)
        for key in ("rows_settled", "rows_rejected", "rejected_by_reason", "chips_in", "chips_paid", "mismatches"):
            assert got[key] == want[key], (shape, key)
        assert got["by_game"] == want["by_game"], shape
