"""Nothing passes in silence (issue 42, rows 7 to 11): repeated hand ids are counted and warned
about, a null game cell takes ``--game`` or the folder's game, ``--equity`` says which rows it could
not place and why, an option that can do nothing is refused, and a command that compiles says so."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import DATA, TEST_DATA, cli

from cardbatch.batch.settle import hand_ids

HOLDEM = DATA / "holdem_sample.parquet"


def _summary(out) -> dict:
    return json.loads((out / "summary.json").read_text())


def test_repeated_hand_ids_are_counted_and_warned_about(tmp_path):
    """Row 7: a day's logs a folder, each numbering its hands from 0, were settled in silence."""
    for day, seed in (("2026-12-01", 1), ("2026-12-02", 2)):
        (tmp_path / "logs" / f"day={day}").mkdir(parents=True)
        r = cli("generate", "--hands", "300", "--seed", seed, "--out", tmp_path / "logs" / f"day={day}" / "h.parquet")
        assert r.returncode == 0
    r = cli("settle", tmp_path / "logs", "--out", tmp_path / "out", "-q")
    assert r.returncode == 0
    found = _summary(tmp_path / "out")["repeated_hand_ids"]
    assert found == {"ids": 300, "rows": 600, "examples": [0, 1, 2, 3, 4]}
    assert "warning: 300 hand_id(s) appear more than once" in r.stderr  # said even with --quiet
    # ids that do not repeat: counted as none, no warning
    r = cli("settle", tmp_path / "logs" / "day=2026-12-01", "--out", tmp_path / "one", "-q")
    assert _summary(tmp_path / "one")["repeated_hand_ids"]["ids"] == 0 and "warning" not in r.stderr


@pytest.mark.parametrize("kind", ["int", "text", "mixed"])
def test_repeated_ids_against_a_plain_count(tmp_path, kind):
    rng = np.random.default_rng(5)
    paths = []
    expected: dict[object, int] = {}
    for i in range(3):
        ids = rng.integers(0, 400, 300)
        col = pa.array(ids) if kind == "int" or (kind == "mixed" and i) else pa.array([f"h{v}" for v in ids])
        col = pa.array([None if j % 17 == 0 else v for j, v in enumerate(col.to_pylist())], col.type)
        pq.write_table(pa.table({"hand_id": col}), tmp_path / f"{i}.parquet")
        paths.append(str(tmp_path / f"{i}.parquet"))
        for v in col.to_pylist():
            if v is not None:
                key = str(v) if kind == "mixed" else v
                expected[key] = expected.get(key, 0) + 1
    found = hand_ids.repeated(paths)
    many = {k: n for k, n in expected.items() if n > 1}
    assert found["ids"] == len(many) and found["rows"] == sum(many.values())
    assert all((str(v) if kind == "mixed" else v) in many for v in found["examples"])


def _null_games(tmp_path, folder: str = "") -> str:
    t = pq.read_table(HOLDEM)
    t = t.set_column(t.schema.get_field_index("game"), "game", pa.nulls(t.num_rows, pa.string()))
    where = tmp_path / folder if folder else tmp_path
    where.mkdir(parents=True, exist_ok=True)
    pq.write_table(t, where / "h.parquet")
    return str(where / "h.parquet")


def test_a_null_game_cell_takes_game_or_the_folder(tmp_path):
    """Row 8: a null game cell with --game holdem was unknown_game ("names a game…", naming none)."""
    plain = cli("settle", HOLDEM, "--out", tmp_path / "plain", "-q")
    assert plain.returncode == 0
    expected = _summary(tmp_path / "plain")["rows_settled"]
    path = _null_games(tmp_path)
    assert cli("settle", path, "--out", tmp_path / "given", "--game", "holdem", "-q").returncode == 0
    assert _summary(tmp_path / "given")["rows_settled"] == expected
    folder = _null_games(tmp_path, "logs/game=holdem")
    assert cli("settle", folder, "--out", tmp_path / "folder", "-q").returncode == 0
    assert _summary(tmp_path / "folder")["rows_settled"] == expected
    assert cli("settle", path, "--out", tmp_path / "none", "-q").returncode == 0
    s = _summary(tmp_path / "none")
    assert s["rows_settled"] == 0 and s["rejected_by_reason"] == {"missing_value": s["rows_read"]}
    errors = pq.read_table(tmp_path / "none" / "errors").column("message").unique().to_pylist()
    assert errors == ["the game cell is null, and no game=G folder or --game names the game"]


def test_an_unknown_game_is_named_in_its_message(tmp_path):
    t = pq.read_table(HOLDEM).slice(0, 5)
    t = t.set_column(t.schema.get_field_index("game"), "game", pa.array(["holdem"] * 4 + ["holdum"]))
    pq.write_table(t, tmp_path / "h.parquet")
    assert cli("settle", tmp_path / "h.parquet", "--out", tmp_path / "o", "-q").returncode == 0
    messages = pq.read_table(tmp_path / "o" / "errors").column("message").to_pylist()
    assert "the game column names 'holdum', a game cardbatch does not settle" in messages


def test_equity_says_which_rows_it_could_not_place(tmp_path):
    """Row 9: --equity on a file without stack: exit 0, nothing said, no row with equity."""
    r = cli("settle", HOLDEM, "--out", tmp_path / "o", "--equity", "-q")
    assert r.returncode == 0
    rows = _summary(tmp_path / "o")["rows_settled"]
    assert f"--equity: {rows:,} of {rows:,} settled rows have no equity" in r.stderr
    assert "the input has no stack column" in r.stderr
    r = cli("settle", DATA / "zjh_sample.parquet", "--out", tmp_path / "z", "--equity", "-q")
    assert "no row has equity: zjh" in r.stderr


def test_settle_with_equity_on_placed_rows_says_nothing(tmp_path):
    cli("generate", "--hands", "300", "--streets", "--out", tmp_path / "h.parquet", "-q")
    r = cli("settle", tmp_path / "h.parquet", "--out", tmp_path / "o", "--equity", "-q")
    assert r.returncode == 0 and "warning" not in r.stderr, r.stderr


@pytest.mark.parametrize("flags", [["--rake-cap", "30"], ["--no-flop-no-drop"], ["--rake-pct", "0", "--rake-cap", "3"]])
def test_a_rake_option_without_a_rake_is_refused(tmp_path, flags):
    """Row 10: --rake-cap 30 without --rake-pct was a cap of nothing, accepted in silence."""
    r = cli("settle", HOLDEM, "--out", tmp_path / "o", *flags)
    assert r.returncode == 2 and "rake_pct" in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "o").exists()


def test_a_compilation_is_said_once(capsys):
    """Row 11's mechanism: a kernel that misses the cache is announced before it compiles, once."""
    from numba import njit

    from cardbatch.batch.io.compiling import announced

    @njit
    def fresh(x):  # never cached: compiled at its first call
        return x + 1

    with announced("cardbatch test-said-once"):
        fresh(1)
        fresh(1.5)
    assert capsys.readouterr().err.count("cardbatch test-said-once: compiling") == 1
    with announced("cardbatch test-said-quiet", quiet=True):
        fresh(np.int8(1))
    assert capsys.readouterr().err == ""


@pytest.mark.slow
def test_the_warm_up_reaches_every_game_of_an_imported_log(tmp_path):
    """Row 11: on a fresh cache, an imported PHH corpus (games mixed in one file) compiled its other
    games' kernels inside the run, with no word (compile_ahead.compiled false). Now the warm-up takes
    each game's first rows and nothing is left to compile in the run."""
    assert cli("import", TEST_DATA / "phh", "--out", tmp_path / "imp.parquet", "-q").returncode == 0
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    # a real process: an empty numba cache is chosen as the process starts
    r = subprocess.run(
        [sys.executable, "-m", "cardbatch", "audit", tmp_path / "imp.parquet", "--out", tmp_path / "o", "--workers=1"],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert r.returncode in (0, 3), r.stderr
    assert "compiling the kernels this run needs" in r.stderr  # the warm-up's line
    assert "cardbatch audit: compiling" not in r.stderr  # nothing left for the run itself
    assert _summary(tmp_path / "o")["compile_ahead"]["compiled"] is True


def test_fairness_says_what_it_could_not_test(tmp_path):
    """Found by the independent trial: fairness printed no warning, with ids given twice (each hand
    then counts twice) or without stacks (no all-in test can run)."""
    cli("generate", "--hands", "300", "--out", tmp_path / "src.parquet", "-q")
    t = pq.read_table(tmp_path / "src.parquet")
    (tmp_path / "d").mkdir()
    pq.write_table(t, tmp_path / "d" / "a.parquet")
    pq.write_table(t, tmp_path / "d" / "b.parquet")
    r = cli("fairness", tmp_path / "d", "--out", tmp_path / "f", "-q", "--workers", "1")
    assert r.returncode in (0, 4)
    assert "300 hand_id(s) appear more than once" in r.stderr and "counts twice in every test" in r.stderr
    assert "the all-in tests: 600 of 600 settled rows have no equity" in r.stderr
    page = (tmp_path / "f" / "report.html").read_text()
    assert "300 hand ids appear more than once" in page


def test_an_option_for_a_game_no_row_was_of_is_said(tmp_path):
    """Found by the independent trial: --rules, --trips-beat-straight and --team-model on Hold'em
    rows were accepted in silence."""
    r = cli(
        "settle",
        HOLDEM,
        "--out",
        tmp_path / "o",
        "-q",
        "--rules",
        "teen_patti",
        "--trips-beat-straight",
        "--team-model",
        "proportional",
    )
    assert r.returncode == 0
    for flag in ("--rules teen_patti", "--trips-beat-straight", "--team-model proportional"):
        assert f"warning: {flag}: no" in r.stderr
    r = cli("settle", DATA / "zjh_sample.parquet", "--out", tmp_path / "z", "-q", "--rules", "teen_patti")
    assert "warning" not in r.stderr


def test_no_flop_no_drop_on_games_without_a_board_is_said(tmp_path):
    """From the trial of the new games: --no-flop-no-drop on stud (no board, no flop) did nothing in
    silence; on Hold'em rows it is used, and nothing is said."""
    from cardbatch.batch.generate import generate_hands

    pq.write_table(generate_hands("stud", 40, seed=5, bad_rate=0.0).table, tmp_path / "stud.parquet")
    rake = ("--rake-pct", "0.05", "--no-flop-no-drop", "-q")
    r = cli("settle", tmp_path / "stud.parquet", "--out", tmp_path / "o", *rake)
    assert r.returncode == 0 and "warning: --no-flop-no-drop: no rows of a game with a flop" in r.stderr
    r = cli("settle", HOLDEM, "--out", tmp_path / "h", *rake)
    assert r.returncode == 0 and "warning" not in r.stderr


def test_rank_decks_and_simulate_say_which_options_they_did_not_use(tmp_path):
    """Found by the independent trial: options these commands cannot use were accepted in silence."""
    r = cli("rank-decks", "--decks", "20", "--out", tmp_path / "a.parquet", "-q")
    assert r.returncode == 0 and "warning" not in r.stderr
    rng = np.random.default_rng(2)
    decks = [rng.permutation(52).astype(np.uint8).tolist() for _ in range(20)]
    pq.write_table(pa.table({"deck": pa.array(decks, pa.list_(pa.uint8()))}), tmp_path / "decks.parquet")
    r = cli(
        "rank-decks", tmp_path / "decks.parquet", "--out", tmp_path / "b.parquet", "-q", "--decks", "7",
        "--seed", "3", "--game", "holdem", "--seats", "4", "--rules", "teen_patti", "--measure", "margin",
    )  # fmt: skip
    assert r.returncode == 0
    for said in ("--decks is not used", "--seed is not used", "--rules is a three-card", "--measure orders"):
        assert said in r.stderr
    r = cli("simulate", "--game", "zjh", "--players", "30", "--rounds", "2", "--rake-cap", "5", "--out", tmp_path / "s")
    assert r.returncode == 0 and "--rake-cap caps a rake" in r.stderr


def test_spans_prove_no_repeat_only_when_they_can(tmp_path):
    """The parts' spans spare the second read when ids rise and no two parts' ranges meet; any
    doubt (falling ids, text ids, ranges that meet) falls back to the count."""
    t = lambda ids, kind=None: pa.table({"hand_id": pa.array(ids, kind or pa.int64())})
    assert hand_ids.span([t([1, 2]), t([None, 5])]) == [1, 5, 1]
    assert hand_ids.span([t([3, 2])]) == [2, 3, 0]
    assert hand_ids.span([t(["a"], pa.string())]) is None and hand_ids.span([t([None])]) == []
    assert hand_ids.apart([[0, 9, 1], [10, 19, 1], []])
    assert not hand_ids.apart([[0, 10, 1], [10, 19, 1]])
    assert not hand_ids.apart([[0, 9, 0]]) and not hand_ids.apart([None])


def test_ids_near_the_limits_of_their_type_are_counted_exactly(tmp_path):
    top = 2**64 - 1
    pq.write_table(pa.table({"hand_id": pa.array([top, top - 1, 2**63], pa.uint64())}), tmp_path / "a.parquet")
    pq.write_table(pa.table({"hand_id": pa.array([top, 2**63 - 1], pa.uint64())}), tmp_path / "b.parquet")
    found = hand_ids.repeated([str(tmp_path / "a.parquet"), str(tmp_path / "b.parquet")])
    assert found == {"ids": 1, "rows": 2, "examples": [top]}
    assert hand_ids.span([pa.table({"hand_id": pa.array([2**63, top], pa.uint64())})]) == [2**63, top, 1]


def test_repeated_ids_across_small_files_and_one_tidy_file_agree(tmp_path):
    """The same hands as one file and as 40 small files of 5-row row groups: the same count."""
    cli("generate", "--hands", "400", "--out", tmp_path / "one.parquet", "-q")
    t = pq.read_table(tmp_path / "one.parquet")
    t = pa.concat_tables([t, t.slice(0, 100)])  # 100 ids given twice
    pq.write_table(t, tmp_path / "tidy.parquet")
    (tmp_path / "small").mkdir()
    for i in range(0, t.num_rows, 25):
        pq.write_table(t.slice(i, 25), tmp_path / "small" / f"f{i:04d}.parquet", row_group_size=5)
    cli("settle", tmp_path / "tidy.parquet", "--out", tmp_path / "o1", "-q")
    cli("settle", tmp_path / "small", "--out", tmp_path / "o2", "-q")
    assert _summary(tmp_path / "o1")["repeated_hand_ids"] == _summary(tmp_path / "o2")["repeated_hand_ids"]
    assert _summary(tmp_path / "o2")["repeated_hand_ids"]["ids"] == 100
