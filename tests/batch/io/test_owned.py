"""Every command keeps settle's promises about files (issue 42, rows 1 to 5): an input is never an
output, however the path spells it, and a file no run of the command wrote is the user's: refused
(exit 2, named) unless ``--mode overwrite``, never replaced or removed in silence."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import TEST_DATA, cli

from cardbatch.batch.io import owned
from cardbatch.batch.io.errors import InputError

ONE_HAND = sorted((TEST_DATA / "phh" / "pluribus").rglob("*.phh"))[0]


def _digest(folder: Path) -> dict[str, str]:
    """Every file below ``folder`` (links as their target text): what must not change."""
    found = {}
    for path in sorted(folder.rglob("*")):
        rel = str(path.relative_to(folder))
        if path.is_symlink():
            found[rel] = "-> " + os.readlink(path)
        elif path.is_file():
            found[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


def _decks(path: Path, n: int = 30) -> None:
    rng = np.random.default_rng(1)
    decks = [rng.permutation(52).astype(np.uint8).tolist() for _ in range(n)]
    pq.write_table(pa.table({"deck": pa.array(decks, pa.list_(pa.uint8()))}), path)


@pytest.mark.parametrize("spelling", ["one.phh", "./sub/../one.phh", "link.parquet", "hard.parquet"])
def test_import_never_writes_over_its_input(tmp_path, spelling, monkeypatch):
    """Row 1: ``import one.phh --out one.phh`` replaced the hand history with Parquet."""
    (tmp_path / "sub").mkdir()
    (tmp_path / "one.phh").write_bytes(ONE_HAND.read_bytes())
    os.symlink("one.phh", tmp_path / "link.parquet")
    os.link(tmp_path / "one.phh", tmp_path / "hard.parquet")
    before = _digest(tmp_path)
    monkeypatch.chdir(tmp_path)
    r = cli("import", "one.phh", "--out", spelling)
    assert r.returncode == 2, r.stderr
    assert spelling in r.stderr and "Traceback" not in r.stderr
    assert _digest(tmp_path) == before


def test_rank_decks_never_writes_over_its_input(tmp_path):
    """Row 2: ``rank-decks decks.parquet --out decks.parquet`` replaced the decks with the ranking."""
    _decks(tmp_path / "decks.parquet")
    before = _digest(tmp_path)
    for out in ("decks.parquet", f"{tmp_path}/./decks.parquet"):
        r = cli("rank-decks", tmp_path / "decks.parquet", "--out", out if "/" in out else tmp_path / out)
        assert r.returncode == 2 and "is an input" in r.stderr, r.stderr
    # the figure beside the output may not be the input either
    r = cli("rank-decks", tmp_path / "decks.parquet", "--out", tmp_path / "decks.png", "--plot")
    assert r.returncode == 2 and "are one file" in r.stderr
    assert _digest(tmp_path) == before


def test_a_users_file_beside_the_import_is_left_alone(tmp_path):
    """Row 3: the user's ``hands.errors.parquet`` beside ``--out hands.parquet`` was replaced by the
    import's set-aside file. Refused, named; ``--mode overwrite`` writes over it; then it is ours."""
    pq.write_table(pa.table({"mine": [1, 2, 3]}), tmp_path / "hands.errors.parquet")
    before = _digest(tmp_path)
    r = cli("import", ONE_HAND, "--out", tmp_path / "hands.parquet", "-q")
    assert r.returncode == 2 and "hands.errors.parquet" in r.stderr and "--mode overwrite" in r.stderr
    assert _digest(tmp_path) == before
    assert cli("import", ONE_HAND, "--out", tmp_path / "hands.parquet", "-q", "--mode", "overwrite").returncode == 0
    assert owned.mark_of(str(tmp_path / "hands.errors.parquet")) == "cardbatch import"
    assert cli("import", ONE_HAND, "--out", tmp_path / "hands.parquet", "-q").returncode == 0  # ours: replaced
    r = cli("import", ONE_HAND, "--out", tmp_path / "hands.parquet", "-q", "--mode", "error")
    assert r.returncode == 2 and "--mode error" in r.stderr


@pytest.mark.slow  # seconds in the fast loop: CI runs it
def test_simulate_leaves_the_users_figure_alone(tmp_path):
    """Row 4: a one-room run deleted the user's ``comparison.png``, which it does not even write."""
    out = tmp_path / "sim"
    out.mkdir()
    (out / "comparison.png").write_bytes(b"the user's own figure")
    (out / "notes.txt").write_text("mine")
    args = ("simulate", "--game", "zjh", "--players", "40", "--rounds", "5", "--out", out, "-q")
    assert cli(*args).returncode == 0
    assert (out / "comparison.png").read_bytes() == b"the user's own figure"
    assert (out / "notes.txt").read_text() == "mine"
    assert cli(*args).returncode == 0  # its own files are replaced
    (out / "economy.png").unlink(missing_ok=True)
    (out / "rounds.parquet").write_bytes(b"not ours")
    r = cli(*args)
    assert r.returncode == 2 and "rounds.parquet" in r.stderr
    assert (out / "rounds.parquet").read_bytes() == b"not ours"
    # a comparison run writes comparison.png: the user's file there stops it before anything changes
    before = _digest(tmp_path)
    r = cli("simulate", "--game", "zjh", "--players", "40", "--rounds", "5", "--replicates", "2", "--out", out, "-q")
    assert r.returncode == 2 and "comparison.png" in r.stderr
    assert _digest(tmp_path) == before


def test_generate_leaves_a_users_file_alone(tmp_path):
    pq.write_table(pa.table({"mine": [1]}), tmp_path / "h.parquet")
    before = _digest(tmp_path)
    r = cli("generate", "--hands", "10", "--out", tmp_path / "h.parquet", "-q")
    assert r.returncode == 2 and "--mode overwrite" in r.stderr
    assert _digest(tmp_path) == before
    assert cli("generate", "--hands", "10", "--out", tmp_path / "g.parquet", "-q").returncode == 0
    assert cli("generate", "--hands", "10", "--out", tmp_path / "g.parquet", "-q").returncode == 0  # ours
    os.symlink(tmp_path / "g.parquet", tmp_path / "l.parquet")
    r = cli("generate", "--hands", "10", "--out", tmp_path / "l.parquet", "-q", "--mode", "overwrite")
    assert r.returncode == 2 and "symbolic link" in r.stderr
    r = cli("generate", "--hands", "10", "--out", f"{tmp_path}/newdir/", "-q")  # the trial: a file named newdir
    assert r.returncode == 2 and "names a folder" in r.stderr and not (tmp_path / "newdir").exists()


@pytest.mark.parametrize(
    "inputs, out",
    [
        (["LOGS"], "LOGS"),
        (["LOGS/*.parquet"], "LOGS/"),
        (["LOGS/a.parquet"], "./LOGS/../LOGS"),
        (["LOGS/a.parquet"], "."),
        (["LOGS/a.parquet"], "LOGS/a.parquet"),
    ],
)
def test_settle_refuses_an_output_folder_that_holds_its_inputs(tmp_path, inputs, out, monkeypatch):
    """Row 5: ``settle LOGS --out LOGS`` worked once, and every rerun then found no inputs (they lay
    in a folder of cardbatch output). Refused at the first run, before anything is written."""
    (tmp_path / "LOGS").mkdir()
    assert cli("generate", "--hands", "50", "--out", tmp_path / "LOGS" / "a.parquet", "-q").returncode == 0
    before = _digest(tmp_path)
    monkeypatch.chdir(tmp_path)
    r = cli("settle", *inputs, "--out", out, "-q")
    assert r.returncode == 2 and "an input is never an output" in r.stderr, r.stderr
    assert _digest(tmp_path) == before


def test_an_output_folder_inside_the_input_folder_still_works(tmp_path):
    """The layout the docs allow: ``settle LOGS --out LOGS/out``, and its rerun."""
    (tmp_path / "LOGS").mkdir()
    cli("generate", "--hands", "50", "--out", tmp_path / "LOGS" / "a.parquet", "-q")
    for _ in range(2):
        r = cli("settle", tmp_path / "LOGS", "--out", tmp_path / "LOGS" / "out", "-q")
        assert r.returncode == 0, r.stderr


def test_marks_are_read_from_each_format(tmp_path):
    table = pa.table({"x": [1]})
    with pq.ParquetWriter(tmp_path / "a.parquet", table.schema) as w:
        w.write_table(table)
        owned.seal(w, "generate")
    pq.write_table(table, tmp_path / "b.parquet")
    # a table read from a marked file and written again is the user's: the mark is the file's, not the table's
    pq.write_table(pq.read_table(tmp_path / "a.parquet"), tmp_path / "copy.parquet")
    assert owned.mark_of(str(tmp_path / "copy.parquet")) is None
    (tmp_path / "c.json").write_text('{"cardbatch.written_by": "cardbatch simulate"}')
    (tmp_path / "d.json").write_text("[1]")
    (tmp_path / "e.bin").write_bytes(b"PAR1 but not Parquet")
    assert owned.mark_of(str(tmp_path / "a.parquet")) == "cardbatch generate"
    assert owned.mark_of(str(tmp_path / "b.parquet")) is None
    assert owned.mark_of(str(tmp_path / "c.json")) == "cardbatch simulate"
    assert owned.mark_of(str(tmp_path / "d.json")) is None
    assert owned.mark_of(str(tmp_path / "e.bin")) is None
    with pytest.raises(InputError, match="no run of cardbatch import"):
        owned.check_outputs([str(tmp_path / "a.parquet")], "import")


@pytest.mark.parametrize("given", ["L", "L/*/*.parquet", "hard"])
def test_settle_refuses_an_output_folder_holding_an_input_it_reads(tmp_path, given, monkeypatch):
    """Found by the independent trial: ``settle L --out L/day=2`` (a folder holding one of the
    inputs) worked once, and every later run of ``L`` skipped that day in silence, exit 0."""
    monkeypatch.chdir(tmp_path)
    for day, start in (("1", 0), ("2", 500)):
        cli("generate", "--hands", "500", "--start-id", start, "--out", f"L/day={day}/h.parquet", "-q")
    if given == "hard":
        os.link("L/day=2/h.parquet", "today.parquet")
        given = "today.parquet"
    before = _digest(tmp_path)
    r = cli("settle", given, "--out", "L/day=2", "-q")
    assert r.returncode == 2 and "holds" in r.stderr and "an input is never an output" in r.stderr, r.stderr
    assert _digest(tmp_path) == before
    # a glob that does not reach the folder's file may write there
    assert cli("settle", "L/day=1/*.parquet", "--out", "L/day=2/out", "-q").returncode == 0


def test_import_of_nothing_leaves_the_last_output(tmp_path):
    """Found by the independent trial: an import of a folder with no hand history exited 0 and
    replaced yesterday's file with an empty one."""
    (tmp_path / "empty").mkdir()
    assert cli("import", ONE_HAND, "--out", tmp_path / "h.parquet", "-q").returncode == 0
    before = _digest(tmp_path)
    r = cli("import", tmp_path / "empty", "--out", tmp_path / "h.parquet", "-q")
    assert r.returncode == 2 and "no .phh or .phhs files" in r.stderr
    assert _digest(tmp_path) == before


def test_a_stale_figure_of_ours_goes_and_one_of_yours_stays(tmp_path):
    """Found by the independent trial: a run without --plot left the figure of an earlier ranking."""
    out = tmp_path / "r.parquet"
    assert cli("rank-decks", "--decks", "50", "--out", out, "--plot", "-q").returncode == 0
    assert (tmp_path / "r.png").exists()
    assert cli("rank-decks", "--decks", "60", "--out", out, "-q").returncode == 0
    assert not (tmp_path / "r.png").exists()
    (tmp_path / "r.png").write_bytes(b"mine")
    assert cli("rank-decks", "--decks", "60", "--out", out, "-q").returncode == 0
    assert (tmp_path / "r.png").read_bytes() == b"mine"


def test_a_link_at_the_temporary_name_is_never_written_through(tmp_path):
    """Found by the second trial: a link at ``.hands.parquet.tmp`` made import write through it,
    into the input it pointed at."""
    (tmp_path / "phh").mkdir()
    (tmp_path / "phh" / "a.phh").write_bytes(ONE_HAND.read_bytes())
    os.symlink(tmp_path / "phh" / "a.phh", tmp_path / ".hands.parquet.tmp")
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    (tmp_path / "sim").mkdir()
    os.symlink(victim, tmp_path / "sim" / ".rounds.parquet.tmp")
    before = _digest(tmp_path)
    r = cli("import", tmp_path / "phh", "--out", tmp_path / "hands.parquet", "-q")
    assert r.returncode == 2 and "temporary name" in r.stderr
    r = cli("simulate", "--game", "zjh", "--players", "30", "--rounds", "2", "--out", tmp_path / "sim", "-q")
    assert r.returncode == 2 and "temporary name" in r.stderr
    assert _digest(tmp_path) == before


def test_an_output_the_next_run_would_read_is_refused(tmp_path, monkeypatch):
    """Found by the second trial: import 'phh/*' --out phh/hands.parquet and simulate --behaviour-from
    LOGS --out LOGS worked once, then refused every rerun (their output had become an input)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "phh").mkdir()
    (tmp_path / "phh" / "a.phh").write_bytes(ONE_HAND.read_bytes())
    r = cli("import", "phh/*", "--out", "phh/hands.parquet", "-q")
    assert r.returncode == 2 and "next run" in r.stderr
    assert cli("import", "phh", "--out", "phh/hands.parquet", "-q").returncode == 0  # a folder reads .phh only
    assert cli("import", "phh", "--out", "phh/hands.parquet", "-q").returncode == 0
    cli("generate", "--hands", "300", "--streets", "--out", "BL/h.parquet", "-q")
    sim = ("simulate", "--game", "holdem", "--players", "100", "--rounds", "2", "--tables-per-round", "10", "-q")
    r = cli(*sim, "--behaviour-from", "BL", "--out", "BL")
    assert r.returncode == 2 and "next run" in r.stderr
    r = cli(*sim, "--write-hands", "o/comparison.png", "--out", "o")
    assert r.returncode == 2 and "--write-hands" in r.stderr


def test_an_input_below_results_is_refused_and_a_named_output_folder_is_no_input(tmp_path, monkeypatch):
    """Found by the second trial: a Parquet file of the inputs below OUT/results/ was read once, then
    skipped; a folder inside cardbatch output named as an input was dropped in silence."""
    monkeypatch.chdir(tmp_path)
    cli("generate", "--hands", "200", "--out", "LOGS/h.parquet", "-q")
    (tmp_path / "LOGS" / "out" / "results" / "game=holdem").mkdir(parents=True)
    cli("generate", "--hands", "200", "--start-id", "500", "--out", "LOGS/out/results/game=holdem/late.parquet", "-q")
    r = cli("settle", "LOGS", "--out", "LOGS/out", "-q")
    assert r.returncode == 2 and "late.parquet" in r.stderr
    os.remove("LOGS/out/results/game=holdem/late.parquet")
    assert cli("settle", "LOGS", "--out", "LOGS/out", "-q").returncode == 0
    assert cli("settle", "LOGS", "--out", "LOGS/out", "-q").returncode == 0  # the rerun: our own parts are no input
    (tmp_path / "LOGS" / "out" / "day=9").mkdir()
    cli("generate", "--hands", "50", "--start-id", "900", "--out", "LOGS/out/day=9/h.parquet", "-q")
    r = cli("settle", "LOGS/out/day=9", "LOGS", "--out", "Z", "-q")
    assert r.returncode == 2 and "folder of cardbatch output" in r.stderr
