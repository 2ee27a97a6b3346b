"""The settle job's edges, as a new user and an attacker meet them: a plain script, a folder holding
anything (user files of any name, links into and out of it), input columns named like ours, empty
tables, row groups bigger than a batch. Each test failed on the code before the fix it names."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import DATA, cli

import cardbatch
from cardbatch.batch.generate import generate_hands

SAMPLE = str(DATA / "holdem_sample.parquet")


def _tree(folder: Path) -> dict[str, bytes | str]:
    """Every file (content) and link (target) below ``folder``, never through a link."""
    out: dict[str, bytes | str] = {}
    for here, dirs, names in os.walk(folder):
        for name in dirs + names:
            p = Path(here) / name
            if p.is_symlink():
                out[str(p.relative_to(folder))] = "-> " + os.readlink(p)
            elif p.is_file():
                out[str(p.relative_to(folder))] = p.read_bytes()
    return out


def test_a_plain_script_without_a_main_guard_settles_a_frame_bigger_than_a_batch(tmp_path):
    """Row 1: the API spawned a process pool, so a script without ``if __name__ == "__main__":``
    died with BrokenProcessPool. Now it runs in the caller's process."""
    hands = generate_hands("holdem", 70_000, seed=3, bad_rate=0.02, tamper_rate=0.01).table
    pq.write_table(hands, tmp_path / "h.parquet")
    script = tmp_path / "s.py"
    script.write_text(
        textwrap.dedent(
            """
            import pyarrow.parquet as pq, cardbatch, multiprocessing
            s = cardbatch.audit(pq.read_table("h.parquet"))
            print(s.summary["rows_read"], s.results.num_rows + s.errors.num_rows, s.status)
            print(len(multiprocessing.active_children()))
            """
        )
    )
    done = subprocess.run([sys.executable, "s.py"], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    rows, total, status = done.stdout.split()[:3]
    assert rows == total == "70000" and status == "3"
    assert done.stdout.split()[3] == "0", "no worker process was started"


def test_the_api_names_what_exists(tmp_path):
    """Row 12: the summary named a deleted report and errors named a temporary input.parquet."""
    hands = generate_hands("holdem", 300, seed=1, bad_rate=0.1).table
    s = cardbatch.settle(hands)
    assert "report" not in s.summary and "not_ours" not in s.summary
    assert [i["path"] for i in s.summary["inputs"]] == ["the table (pyarrow.Table)"]
    with pytest.raises(cardbatch.InputError, match=r"^the table \(pyarrow.Table\): column button must be an integer"):
        cardbatch.settle(hands.set_column(hands.column_names.index("button"), "button", pa.array(["x"] * 300)))
    given = cardbatch.settle(SAMPLE)
    assert [i["path"] for i in given.summary["inputs"]] == [os.path.realpath(SAMPLE)]


@pytest.mark.parametrize("rows", [0, 200])
def test_empty_and_clean_tables_give_tables_with_the_files_columns(rows):
    """Row 6: an empty table, or one with no bad row, gave results/errors with no columns at all."""
    import polars as pl

    hands = generate_hands("holdem", 200, seed=2, bad_rate=0.0).table.slice(0, rows)
    s = cardbatch.settle(hands)
    assert s.results.num_rows == rows and s.errors.num_rows == 0
    assert s.results.column_names[:4] == ["hand_id", "score", "category", "payout"]
    assert s.results.column_names[-1] == s.errors.column_names[-1] == "game"
    assert s.errors.column_names[:3] == ["hand_id", "reason", "message"]
    assert pl.from_arrow(s.errors).group_by("reason").len().height == 0


def test_input_columns_named_like_ours_are_kept_in_extra(tmp_path):
    """Row 5: ``reason``/``message`` crashed (a field twice); ``game_given``/``cards_text`` were
    silently overwritten in errors/."""
    hands = generate_hands("holdem", 400, seed=4, bad_rate=0.2).table
    n = hands.num_rows
    theirs = {
        name: pa.array([f"{name} {i}" for i in range(n)])
        for name in ("reason", "message", "game_given", "cards_text", "extra")
    }
    for name, values in theirs.items():
        hands = hands.append_column(name, values)
    path = tmp_path / "h.parquet"
    pq.write_table(hands, path)
    done = cli("settle", str(path), "--out", str(tmp_path / "out"), "--workers", "1")
    assert done.returncode == 0, done.stderr
    errors = pa.concat_tables(pq.read_table(p) for p in sorted((tmp_path / "out" / "errors").rglob("part-*.parquet")))
    api = cardbatch.settle(hands).errors
    for table in (errors, api):
        assert table.num_rows > 0
        ids = {h: i for i, h in enumerate(hands.column("hand_id").to_pylist())}
        for row in table.select(["hand_id", "reason", "game_given", "cards_text", "extra"]).to_pylist():
            i = ids[row["hand_id"]]
            assert row["reason"] in cardbatch.batch.settle.rejects.CODE  # ours
            assert row["game_given"] == "holdem" and row["cards_text"] is None  # the input game; no text cards
            extra = json.loads(row["extra"])
            assert {k: extra[k] for k in theirs} == {k: f"{k} {i}" for k in theirs}


def _archive(tmp_path: Path) -> tuple[Path, dict[str, bytes | str]]:
    """Another run's output folder, outside ``--out``: part files named as this run's will be."""
    archive = tmp_path / "archive"
    assert cli("settle", SAMPLE, "--out", str(archive), "--workers", "1").returncode == 0
    return archive, _tree(archive)


@pytest.mark.parametrize("mode", ["resume", "overwrite"])
def test_links_in_the_output_are_never_followed(tmp_path, mode):
    """Row 4: a link to an archive inside --out was followed and its part files deleted."""
    archive, before = _archive(tmp_path)
    out = tmp_path / "out"
    (out / "results").mkdir(parents=True)
    (out / "results" / "game=holdem_monday").symlink_to(archive / "results" / "game=holdem")
    (out / "errors").mkdir()
    (out / "errors" / "old.parquet").symlink_to(next((archive / "errors" / "game=holdem").glob("part-*.parquet")))
    for _ in range(2):
        done = cli("audit", SAMPLE, "--out", str(out), "--mode", mode, "--workers", "1")
        assert done.returncode == 3, done.stderr
        assert _tree(archive) == before
        summary = json.loads(done.stdout)
        assert sorted(summary["not_ours"]) == sorted(
            [str(out / "errors" / "old.parquet"), str(out / "results" / "game=holdem_monday")]
        )
        assert (out / "_SUCCESS").exists()


def test_a_link_where_cardbatch_writes_is_refused_before_anything_changes(tmp_path):
    """Row 4: ``results/game=holdem`` pointing at another run's folder had its parts replaced."""
    archive, before = _archive(tmp_path)
    out = tmp_path / "out"
    (out / "results").mkdir(parents=True)
    (out / "results" / "game=holdem").symlink_to(archive / "results" / "game=holdem")
    mine = _tree(out)
    done = cli("settle", SAMPLE, "--out", str(out), "--mode", "overwrite")
    assert done.returncode == 2 and "symbolic link" in done.stderr and "results/game=holdem" in done.stderr
    assert _tree(archive) == before and _tree(out) == mine


def test_a_users_parquet_in_results_does_not_break_the_report(tmp_path):
    """Row 2: the report read every Parquet file under results/, and a user's exited 1."""
    out = tmp_path / "out"
    notes = out / "results" / "game=holdem" / "my_notes.parquet"
    notes.parent.mkdir(parents=True)
    pq.write_table(pa.table({"note": ["keep me"]}), notes)
    content = notes.read_bytes()
    for _ in range(2):
        done = cli("audit", SAMPLE, "--out", str(out), "--workers", "1")
        assert done.returncode == 3, done.stderr
        summary = json.loads((out / "summary.json").read_text())
        assert summary["mismatches"] > 0 and summary["report"].endswith("report.html")
        assert (out / "_SUCCESS").exists() and notes.read_bytes() == content
        assert summary["not_ours"] == [str(notes)]


def test_a_part_like_name_in_a_folder_without_a_manifest_is_the_users(tmp_path):
    """Row 3: output "from before manifests" was recognised by name, so a user's file named like a part
    was deleted."""
    out = tmp_path / "out"
    theirs = out / "results" / "game=holdem" / "part-aaaaaaaaaaaa-00000.parquet"
    json_like = out / "_parts" / "part-bbbbbbbbbbbb-00000.json"
    for p in (theirs, json_like):
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("the user's")
    done = cli("settle", SAMPLE, "--out", str(out), "--mode", "overwrite", "--workers", "1")
    assert done.returncode == 0, done.stderr
    assert theirs.read_text() == json_like.read_text() == "the user's"
    assert sorted(json.loads(done.stdout)["not_ours"]) == sorted([str(json_like), str(theirs)])


def test_a_users_file_where_a_part_of_this_run_goes_is_refused(tmp_path):
    """A copy of another run's part, under the very name this run writes, is the user's: the run
    refuses (exit 2) instead of replacing it."""
    archive, _ = _archive(tmp_path)
    out = tmp_path / "out"
    part = next((archive / "results" / "game=holdem").glob("part-*.parquet"))
    mine = out / "results" / "game=holdem" / part.name
    mine.parent.mkdir(parents=True)
    mine.write_text("the user's copy")
    done = cli("settle", SAMPLE, "--out", str(out), "--workers", "1")
    assert done.returncode == 2 and "is not a file cardbatch wrote" in done.stderr and part.name in done.stderr
    assert mine.read_text() == "the user's copy" and not (out / "summary.json").exists()


@pytest.mark.parametrize("mode", ["resume", "overwrite"])
def test_files_named_like_a_part_where_that_part_did_not_write_are_the_users(tmp_path, mode):
    """Found by a trial: a file named like one of the run's parts in a game folder that part never
    wrote, a JSON in results/ or a Parquet file in _parts/ was taken for cardbatch's and deleted."""
    zjh = str(DATA / "zjh_sample.parquet")
    out = tmp_path / "out"
    assert cli("settle", zjh, "--out", str(out), "--workers", "1").returncode == 0
    name = next((out / "_parts").glob("part-*.json")).stem
    theirs = [
        out / "results" / "game=holdem" / f"{name}.parquet",  # a game this zjh run never writes
        out / "results" / "game=zjh" / f"{name}.json",
        out / "errors" / "game=unknown" / f"{name}.parquet",
        out / "_parts" / f"{name}.parquet",
        out / "results" / "game=teamx" / f"{name}.parquet",
    ]
    for p in theirs:
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(f"the user's {p.name}")
    os.utime(zjh)  # and the input looks changed: every part is settled again
    for _ in range(2):
        done = cli("settle", zjh, "--out", str(out), "--workers", "1", "--mode", mode)
        assert done.returncode == 0, done.stderr
        assert all(p.read_text() == f"the user's {p.name}" for p in theirs)
        assert sorted(json.loads(done.stdout)["not_ours"]) == sorted(str(p) for p in theirs)


def test_a_users_summary_in_a_new_folder_is_refused(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "summary.json").write_text("mine")
    done = cli("settle", SAMPLE, "--out", str(out))
    assert done.returncode == 2 and "summary.json" in done.stderr
    assert (out / "summary.json").read_text() == "mine"


@pytest.mark.parametrize("name", ["results", "errors", "_parts"])
def test_a_users_file_where_cardbatch_writes_a_folder_is_refused_in_our_words(tmp_path, name):
    """From an independent trial: the refusal was the filesystem's ("[Errno 17] ... non-directory
    entry exists"), and a file named _parts left empty results/ and errors/ behind."""
    out = tmp_path / "out"
    out.mkdir()
    (out / name).write_text("mine")
    done = cli("settle", SAMPLE, "--out", str(out))
    assert done.returncode == 2 and f"{name} is not a folder, and cardbatch writes a folder there" in done.stderr
    assert [p.name for p in out.iterdir()] == [name] and (out / name).read_text() == "mine"


def _big_group(path: Path, rows: int) -> None:
    pq.write_table(generate_hands("holdem", rows, seed=5, bad_rate=0.02).table, path, row_group_size=rows)


def test_a_row_group_bigger_than_a_batch_is_cut_into_parts(tmp_path):
    """Row 10: each row group was one unit and one part, whatever its size: an interrupted run kept
    nothing of it. Now a part per --batch-rows rows, each finished on its own, resumed exactly."""
    path = tmp_path / "h.parquet"
    _big_group(path, 12_000)
    fresh = tmp_path / "fresh"
    done = cli("settle", str(path), "--out", str(fresh), "--batch-rows", "5000", "--workers", "1")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["parts"] == 3 and [p["rows"] for p in summary["timings"]["parts"]] == [5000, 5000, 2000]
    out = tmp_path / "out"
    assert cli("settle", str(path), "--out", str(out), "--batch-rows", "5000", "--workers", "1").returncode == 0
    gone = sorted((out / "_parts").glob("part-*.json"))[1]  # as if the run had stopped before its last two
    gone.unlink()
    for p in (out / "results").rglob(gone.stem + ".parquet"):
        p.unlink()
    again = cli("settle", str(path), "--out", str(out), "--batch-rows", "5000", "--workers", "1")
    assert again.returncode == 0 and json.loads(again.stdout)["parts_reused"] == 2
    for kind in ("results", "errors"):
        assert {p.name: p.read_bytes() for p in (out / kind).rglob("part-*")} == {
            p.name: p.read_bytes() for p in (fresh / kind).rglob("part-*")
        }


@pytest.mark.slow
def test_sigterm_in_a_row_group_of_a_million_rows_keeps_its_finished_parts(tmp_path):
    """Row 10, as a user met it: generate's default output (row groups of 1,048,576 rows), SIGTERM
    mid-run; the rerun reuses the finished parts and its output equals a fresh run's."""
    import signal
    import time

    path = tmp_path / "h.parquet"
    _big_group(path, 400_000)
    out = tmp_path / "out"
    args = [sys.executable, "-m", "cardbatch", "settle", str(path), "--out", str(out), "--workers", "1", "-q"]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 300
    while not list((out / "_parts").glob("part-*.json")) and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(60) == 143
    kept = len(list((out / "_parts").glob("part-*.json")))
    assert 1 <= kept < 7
    again = subprocess.run(args[:-1], capture_output=True, text=True, timeout=600)
    assert again.returncode == 0 and json.loads(again.stdout)["parts_reused"] == kept
    fresh = tmp_path / "fresh"
    assert cli("settle", str(path), "--out", str(fresh), "--workers", "1").returncode == 0
    for kind in ("results", "errors"):
        assert {p.name: p.read_bytes() for p in (out / kind).rglob("part-*")} == {
            p.name: p.read_bytes() for p in (fresh / kind).rglob("part-*")
        }


def test_the_human_line_and_progress_say_what_ran(tmp_path):
    """Row 12: audit's progress said "cardbatch settle:", "output in audit//", "on 1 workers", and
    tied reasons changed order between runs."""
    out = str(tmp_path / "audit") + "/"
    done = cli("audit", SAMPLE, "--out", out, "--workers", "1", "--verbose")
    assert done.returncode == 3
    assert "cardbatch audit: 3,000/3,000 rows" in done.stderr and "cardbatch settle:" not in done.stderr
    assert f"output in {out} (" in done.stderr and "//" not in done.stderr
    page = (tmp_path / "audit" / "report.html").read_text()
    assert "on 1 worker." in page
    counts = json.loads(done.stdout)["rejected_by_reason"]
    said = done.stderr.splitlines()[-1].split(" rejected (")[1].split(")")[0]
    assert [r.split()[0] for r in said.split(", ")] == sorted(counts, key=lambda r: (-counts[r], r))


def test_text_cards_one_string_a_hand_with_spaces_between_seats():
    """Found by a trial: one string per hand, seats separated by spaces (as errors/ writes
    ``cards_text``), was measured with its spaces, so 3 or more seats came out as ``seat_count``."""
    from cardbatch.kernels import cards

    hands = generate_hands("zjh", 300, seed=11, bad_rate=0.0).table
    per_seat = [
        " ".join(cards.format(list(c[k : k + 3])) for k in range(0, len(c), 3))
        for c in hands.column("cards").to_pylist()
    ]
    assert any(s.count(" ") >= 2 for s in per_seat)
    text = hands.set_column(hands.column_names.index("cards"), "cards", pa.array(per_seat))
    codes, spaced = cardbatch.settle(hands), cardbatch.settle(text)
    assert spaced.errors.num_rows == codes.errors.num_rows == 0
    assert spaced.results.drop_columns(["game"]).equals(codes.results.drop_columns(["game"]))


def test_an_internal_error_speaks_of_parts_only_for_settle_and_audit(capsys):
    """Row 9: ``cardbatch compile`` failing said "Finished parts are kept: a rerun resumes"."""
    from cardbatch.batch.cli.common import internal_error

    assert internal_error("compile", RuntimeError("boom")) == 1
    assert "parts" not in capsys.readouterr().err
    internal_error("settle", RuntimeError("boom"))
    assert "Finished parts are kept" in capsys.readouterr().err


def _replaced(tmp_path: Path, sample: str, name: str, values: pa.Array | None, drop: bool = False) -> str:
    t = pq.read_table(DATA / sample)
    if name in t.column_names:
        t = t.drop_columns([name])
    if values is not None:
        t = t.append_column(name, values)
    path = tmp_path / f"{name}.parquet"
    pq.write_table(t, path)
    return str(path)


@pytest.mark.parametrize(
    "sample, name, values, said",
    [
        ("holdem_sample.parquet", "payout", pa.array(["x"] * 3000), "column payout must be a list"),
        ("holdem_sample.parquet", "dead", pa.array([0] * 3000), "column dead must be a list"),
        ("holdem_sample.parquet", "board", pa.array([1] * 3000), "column board must be a list"),
        ("holdem_sample.parquet", "game", pa.array([1] * 3000), "column game must be text"),
        ("holdem_sample.parquet", "cards", pa.array([[[1, 2]]] * 3000), "column cards must be a list of values"),
        ("team2v2_sample.parquet", "balance", pa.array([5] * 3000), "column balance must be a list"),
        ("team2v2_sample.parquet", "payout", pa.array(["x"] * 3000), "column payout must be a list"),
        # found by a trial: "False" (a non-empty string) and 0.5 read as folded, every row no_live_seat
        ("holdem_sample.parquet", "folded", pa.array([["False", "False"]] * 3000), "column folded must hold booleans"),
        ("holdem_sample.parquet", "folded", pa.array([[0.0, 0.5]] * 3000), "column folded must hold booleans"),
        ("team2v2_sample.parquet", "afk", pa.array([["no"] * 4] * 3000), "column afk must hold booleans"),
    ],
)
def test_a_column_of_the_wrong_type_is_exit_2_naming_it(tmp_path, sample, name, values, said):
    """Found by a trial: these were exit 1 ("internal error": a TypeError or an Arrow error)."""
    n = pq.read_metadata(DATA / sample).num_rows
    path = _replaced(tmp_path, sample, name, values.slice(0, n) if len(values) >= n else values)
    done = cli("audit", path, "--out", str(tmp_path / "out"), "--workers", "1")
    assert done.returncode == 2 and said in done.stderr and path in done.stderr, done.stderr
    with pytest.raises(cardbatch.InputError, match=said):
        cardbatch.settle(pq.read_table(path))


def test_columns_another_game_reads_are_the_users_in_a_card_games_file(tmp_path):
    """Found by a trial: a ``balance`` column made a Hold'em file a 2v2 one ("missing multiplier, ..."),
    and a float ``winner`` column was refused, though neither is a column Hold'em reads."""
    t = pq.read_table(DATA / "holdem_sample.parquet")
    for game_column in (True, False):
        u = t if game_column else t.drop_columns(["game"])
        u = u.append_column("balance", pa.array(range(3000))).append_column("winner", pa.array([0.5] * 3000))
        path = tmp_path / f"h{game_column}.parquet"
        pq.write_table(u, path)
        done = cli("settle", str(path), "--out", str(tmp_path / f"out{game_column}"), "--workers", "1")
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["rows_settled"] == 2917
        errors = pq.read_table(next((tmp_path / f"out{game_column}" / "errors").rglob("part-*.parquet")))
        assert all("balance" in json.loads(x) and "winner" in json.loads(x) for x in errors.column("extra").to_pylist())


def test_game_names_the_game_of_files_without_a_game_column_only(tmp_path):
    """Found by a trial: ``--game holdem`` on a file whose game column says zjh asked for a board."""
    zjh = str(DATA / "zjh_sample.parquet")
    done = cli("settle", zjh, "--out", str(tmp_path / "out"), "--game", "holdem", "--workers", "1")
    assert done.returncode == 0, done.stderr
    assert set(json.loads(done.stdout)["by_game"]) == {"zjh"}


@pytest.mark.parametrize(
    "option, value",
    [
        ("--rake-pct", "1e-400"),
        ("--rake-pct", "0.0000000000000000001"),
        ("--rake-cap", str(2**63)),
        ("--chip-unit", str(2**62)),
        ("--chip-unit", str(2**63 - 1)),
        ("--chip-unit", str(2**63)),
    ],
)
def test_options_beyond_what_the_kernels_hold_are_exit_2(tmp_path, option, value):
    """Found by a trial: these were exit 1 (an OverflowError, a ZeroDivisionError, or chips not
    conserved caught by the run's own check)."""
    extra = ["--rake-pct", "0.5"] if option == "--rake-cap" else []
    done = cli("settle", SAMPLE, "--out", str(tmp_path / "out"), option, value, *extra, "--workers", "1")
    assert done.returncode == 2, done.stderr
    assert option.strip("-").replace("-", "_") in done.stderr or option in done.stderr


def test_the_jobs_summary_carries_its_human_line(tmp_path):
    """Found by a trial: ``run(SettleJob(...))`` gave a Summary whose ``line`` was empty."""
    from cardbatch.batch.io.jobs import RunOptions
    from cardbatch.batch.settle.job import run
    from cardbatch.batch.settle.options import SettleJob, SettleOptions

    summary = run(SettleJob((SAMPLE,), str(tmp_path / "out"), SettleOptions.of(audit=True), run=RunOptions(quiet=True)))
    assert summary.line.startswith("cardbatch audit: 3,000 rows: ") and summary.status == 3


def test_a_folder_where_a_top_file_goes_is_refused_before_anything_is_made(tmp_path):
    """Found by a trial: a folder named summary.json was refused only after .lock, results/,
    errors/ and _parts/ were made."""
    out = tmp_path / "out"
    (out / "summary.json").mkdir(parents=True)
    done = cli("settle", SAMPLE, "--out", str(out), "--workers", "1")
    assert done.returncode == 2 and "summary.json" in done.stderr
    assert sorted(p.name for p in out.iterdir()) == ["summary.json"]


def test_an_empty_pandas_frame_settles_to_empty_tables():
    """Found by a trial: an empty pandas frame's columns come as null or double, and were refused."""
    import pandas as pd

    s = cardbatch.settle(pd.DataFrame({c: [] for c in ("hand_id", "button", "board", "cards", "contrib", "folded")}))
    assert s.results.num_rows == s.errors.num_rows == 0 and "reason" in s.errors.column_names


def _fresh_parts(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.glob("*/game=*/part-*.parquet"))}


@pytest.mark.parametrize("damage", ["delete_results", "delete_errors", "truncate", "link"])
def test_a_finished_part_whose_files_are_not_whole_is_settled_again(tmp_path, damage):
    """Found by a second trial: a rerun reused a finished part whose file was deleted, truncated or
    replaced by a link, and wrote _SUCCESS over output that was not there."""
    zjh = str(DATA / "zjh_sample.parquet")
    out, fresh = tmp_path / "out", tmp_path / "fresh"
    assert cli("settle", zjh, "--out", str(fresh), "--workers", "1").returncode == 0
    assert cli("settle", zjh, "--out", str(out), "--workers", "1").returncode == 0
    kind = "errors" if damage == "delete_errors" else "results"
    part = next((out / kind / "game=zjh").glob("part-*.parquet"))
    if damage.startswith("delete"):
        part.unlink()
    elif damage == "truncate":
        part.write_bytes(part.read_bytes()[:100])
    else:
        part.unlink()
        part.symlink_to(tmp_path / "elsewhere.parquet")
    done = cli("settle", zjh, "--out", str(out), "--workers", "1")
    if damage == "link":  # a link where the part goes: left alone, and this run cannot write there
        assert done.returncode == 2 and "is not a file cardbatch wrote" in done.stderr
        assert part.is_symlink() and not (out / "_SUCCESS").exists()
        return
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["parts_reused"] == 0
    assert _fresh_parts(out) == _fresh_parts(fresh) and (out / "report.html").exists()


def test_a_record_in_parts_is_reused_only_when_the_manifest_made_it(tmp_path):
    """Found by a second trial: a part record copied into _parts/ of a folder with no manifest was
    trusted, so the input was never settled (exit 0, _SUCCESS, no results)."""
    zjh = str(DATA / "zjh_sample.parquet")
    ref = tmp_path / "ref"
    assert cli("settle", zjh, "--out", str(ref), "--workers", "1").returncode == 0
    out = tmp_path / "out"
    (out / "_parts").mkdir(parents=True)
    record = next((ref / "_parts").glob("part-*.json"))
    (out / "_parts" / record.name).write_bytes(record.read_bytes())
    done = cli("settle", zjh, "--out", str(out), "--workers", "1")
    assert done.returncode == 2 and "is not a file cardbatch wrote" in done.stderr
    assert (out / "_parts" / record.name).read_bytes() == record.read_bytes()


def test_a_users_file_a_refused_run_found_stays_the_users(tmp_path):
    """Found by a second trial: a run refused for a user's file where its part goes wrote a manifest
    listing that part, and the next run took the file for its own and replaced it."""
    zjh = str(DATA / "zjh_sample.parquet")
    ref = tmp_path / "ref"
    assert cli("settle", zjh, "--out", str(ref), "--workers", "1").returncode == 0
    name = next((ref / "results" / "game=zjh").glob("part-*.parquet")).name
    out = tmp_path / "out"
    mine = out / "results" / "game=zjh" / name
    mine.parent.mkdir(parents=True)
    mine.write_text("MY DATA")
    for mode in ("resume", "resume", "overwrite"):
        done = cli("settle", zjh, "--out", str(out), "--workers", "1", "--mode", mode)
        assert done.returncode == 2 and mine.read_text() == "MY DATA", done.stderr


def test_cards_of_another_type_are_refused():
    """Found by a second trial: cards as list<bool> were read as codes 0 and 1."""
    hands = generate_hands("zjh", 50, seed=1).table
    cards = pa.array([[True, False, True] * (len(c) // 3) for c in hands.column("cards").to_pylist()])
    with pytest.raises(cardbatch.InputError, match="column cards must hold card codes or card text"):
        cardbatch.settle(hands.set_column(hands.column_names.index("cards"), "cards", cards))


def test_cards_as_dictionary_text_a_seat_in_several_row_groups_settle(tmp_path):
    """Found by a trial: Arrow cannot read a list of dictionary-encoded strings from several row groups
    at once, so such a file was exit 2 ("nested data conversions not implemented"), while the same
    table settled through the API; its row groups are now read one at a time."""
    t = generate_hands("holdem", 900, seed=4, bad_rate=0.05, text_cards=True).table
    cards = t.column("cards").combine_chunks()
    coded = pa.ListArray.from_arrays(cards.offsets, cards.values.dictionary_encode())
    pq.write_table(
        t.set_column(t.column_names.index("cards"), "cards", coded), tmp_path / "d.parquet", row_group_size=200
    )
    pq.write_table(t, tmp_path / "plain.parquet", row_group_size=200)
    for name in ("d", "plain"):
        done = cli("settle", tmp_path / f"{name}.parquet", "--out", tmp_path / f"o_{name}", "-q")
        assert done.returncode == 0, done.stderr
    got, want = (pq.read_table(tmp_path / f"o_{n}" / "results").sort_by("hand_id") for n in ("d", "plain"))
    assert got.num_rows > 800 and got.equals(want)
