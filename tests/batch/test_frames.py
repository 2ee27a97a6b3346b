"""The DataFrame API, cardbatch.settle / cardbatch.audit, with real Polars, pandas and DuckDB objects:
the same rows set aside with the same reasons, the same results row for row, the same figures as the
command line's files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import duckdb
import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest
from conftest import DATA, cli
from flop_hands import NEW

import cardbatch
from cardbatch.batch.generate import generate_hands
from cardbatch.games import GAMES, REGISTRY

SAMPLE = DATA / "holdem_sample.parquet"  # 3,000 hands, bad rows and altered payouts among them
COUNTERS = ("rows_read", "rows_settled", "rows_rejected", "rejected_by_reason", "chips_in", "chips_paid", "mismatches")


def _sorted(table: pa.Table) -> pa.Table:
    game = pc.cast(table.column("game"), pa.string())
    return table.set_column(table.column_names.index("game"), "game", game).sort_by("hand_id")


@pytest.fixture(scope="module")
def cli_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("cli") / "out"
    res = cli("audit", str(SAMPLE), "--out", str(out), "--workers", "1")
    assert res.returncode == 3, res.stderr  # the sample's altered payouts
    read = lambda sub: _sorted(ds.dataset(out / sub, format="parquet", partitioning="hive").to_table())  # noqa: E731
    return read("results"), read("errors"), json.loads(res.stdout)


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda: pq.read_table(SAMPLE), id="pyarrow"),
        pytest.param(lambda: pl.read_parquet(SAMPLE), id="polars"),
        pytest.param(lambda: pd.read_parquet(SAMPLE), id="pandas"),
        pytest.param(lambda: duckdb.sql(f"SELECT * FROM read_parquet('{SAMPLE}')"), id="duckdb"),
        pytest.param(lambda: str(SAMPLE), id="path"),
    ],
)
def test_the_dataframe_api_equals_the_command_line(make, cli_run):
    results, errors, summary = cli_run
    s = cardbatch.audit(make())
    assert s.status == 3
    assert _sorted(s.results).equals(results)
    assert (
        pc.equal(_sorted(s.errors).column("hand_id"), errors.column("hand_id")).to_pylist() == [True] * errors.num_rows
    )
    assert _sorted(s.errors).column("reason").equals(errors.column("reason"))
    for key in COUNTERS:
        assert s.summary[key] == summary[key], key


def test_schemas_are_the_files(cli_run):
    """Every column and type of the files, in their order; ``game`` as a reader of the folder sees it."""
    s = cardbatch.settle(pq.read_table(SAMPLE), policy="standard")
    results, errors, _ = cli_run
    for got, want in ((s.results, results), (s.errors, errors)):
        assert [(f.name, f.type) for f in got.schema if f.name != "game"] == [
            (f.name, f.type) for f in want.schema if f.name != "game"
        ]
    assert s.results.schema.field("game").type == pa.string()


def test_bad_options_and_inputs_are_refused():
    with pytest.raises(ValueError, match="unknown option"):
        cardbatch.settle(pq.read_table(SAMPLE), polcy="standard")
    with pytest.raises(ValueError, match="policy"):
        cardbatch.settle(pq.read_table(SAMPLE), policy="nope")
    with pytest.raises(TypeError, match="speaks Arrow"):
        cardbatch.settle({"hand_id": [1]})


def test_rank_decks_from_a_dataframe_equals_the_command_line(tmp_path):
    """Decks in as a Polars table, the ranking out as a table: the file the command writes from those decks."""
    from cardbatch.kernels import decks

    d = decks.deal_decks(300, 11)
    frame = pl.DataFrame({"deck": d.tolist()})
    got = cardbatch.rank_decks(frame, players=5, top=10, by="margin")
    path = tmp_path / "decks.parquet"
    pq.write_table(pa.table({"deck": pa.FixedSizeListArray.from_arrays(pa.array(d.reshape(-1)), 52)}), path)
    res = cli(
        "rank-decks",
        str(path),
        "--seats",
        "5",
        "--top",
        "10",
        "--measure",
        "margin",
        "--out",
        str(tmp_path / "r.parquet"),
        "-q",
    )
    assert res.returncode == 0, res.stderr
    assert got.equals(pq.read_table(tmp_path / "r.parquet"))
    dealt = cardbatch.rank_decks(n=300, players=5, seed=11, top=10, by="margin")
    assert dealt.column("deck").equals(got.column("deck"))  # the same decks, dealt here from the seed


def test_simulate_returns_the_command_lines_tables(tmp_path):
    s = cardbatch.simulate(game="zjh", players=400, rounds=4, tables_per_round=40, seed=5)
    res = cli(
        "simulate",
        "--game",
        "zjh",
        "--players",
        "400",
        "--rounds",
        "4",
        "--tables-per-round",
        "40",
        "--seed",
        "5",
        "--out",
        str(tmp_path / "s"),
        "-q",
    )
    assert res.returncode == 0, res.stderr
    assert s.rounds.equals(pq.read_table(tmp_path / "s" / "rounds.parquet"))
    assert s.players.equals(pq.read_table(tmp_path / "s" / "players.parquet"))
    assert s.summary["tables"] == 4 * 40


def test_nulls_and_wide_integers_from_a_dataframe_are_set_aside_as_from_a_file(tmp_path):
    """A Polars frame with a null cell, a null element, int32 ids and a chip count near int64's limit:
    the rows the command line sets aside from the same data written to Parquet, with the same reasons."""
    base = pl.read_parquet(SAMPLE).head(50).with_columns(pl.col("hand_id").cast(pl.Int32))
    contrib = base["contrib"].to_list()
    contrib[1] = [None, *contrib[1][1:]]  # a null element
    contrib[2] = [2**62, 2**62, *contrib[2][2:]]  # a sum past int64: overflow, never wrapped
    frame = base.with_columns(pl.Series("contrib", contrib, dtype=pl.List(pl.Int64)))
    frame = frame.with_columns(
        pl.when(pl.col("hand_id") == base["hand_id"][3]).then(None).otherwise(pl.col("button")).alias("button")
    )
    s = cardbatch.settle(frame)
    path = tmp_path / "same.parquet"
    frame.write_parquet(path)
    res = cli("settle", str(path), "--out", str(tmp_path / "o"), "--workers", "1", "-q")
    assert res.returncode == 0, res.stderr
    errors = _sorted(ds.dataset(tmp_path / "o" / "errors", format="parquet", partitioning="hive").to_table())
    got = _sorted(s.errors)
    assert got.column("hand_id").to_pylist() == errors.column("hand_id").to_pylist()
    assert got.column("reason").to_pylist() == errors.column("reason").to_pylist()
    reasons = dict(zip(got.column("hand_id").to_pylist(), got.column("reason").to_pylist()))
    ids = base["hand_id"].to_list()
    assert reasons[ids[1]] == "missing_value" and reasons[ids[3]] == "missing_value"
    assert reasons[ids[2]] == "overflow"
    assert s.summary["rows_read"] == 50 == s.results.num_rows + s.errors.num_rows


def test_equity_by_the_command_lines_names():
    """``equity=True`` with ``equity_budget`` / ``_samples`` / ``_seed``, as the command line names
    them: the same columns and figures as a ``Walk``; walk options without ``equity`` are refused."""
    import cardbatch
    from cardbatch.batch.generate import generate_hands
    from cardbatch.kernels.equity import Walk

    hands = generate_hands("holdem", 2000, seed=3, streets_column=True).table
    by_name = cardbatch.settle(hands, equity=True, equity_budget=50_000, equity_samples=500, equity_seed=4)
    by_walk = cardbatch.settle(hands, equity=Walk(budget=50_000, samples=500, seed=4))
    assert by_name.summary["equity"] == by_walk.summary["equity"] and by_name.summary["equity"]["all_in"] > 0
    assert by_name.results.equals(by_walk.results)
    assert "ev_payout" not in cardbatch.settle(hands, equity=False).results.column_names
    with pytest.raises(ValueError, match="equity_samples: only with equity=True"):
        cardbatch.settle(hands, equity_samples=500)


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
    # a real process: what is tested is a plain script, without a __main__ guard, run as its own program
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
    given = cardbatch.settle(str(SAMPLE))
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


def test_an_empty_pandas_frame_settles_to_empty_tables():
    """Found by a trial: an empty pandas frame's columns come as null or double, and were refused."""
    import pandas as pd

    s = cardbatch.settle(pd.DataFrame({c: [] for c in ("hand_id", "button", "board", "cards", "contrib", "folded")}))
    assert s.results.num_rows == s.errors.num_rows == 0 and "reason" in s.errors.column_names


def test_an_empty_table_missing_a_column_its_game_reads_is_refused_as_a_file_is(tmp_path):
    """From a trial: an empty table without ``button`` told to be badugi settled (status 0) while
    the command line refused the same empty file (exit 2): both refuse it, naming the column; the
    column's types are still not asked of an empty table."""
    empty = generate_hands("badugi", 10, seed=1).table.slice(0, 0).drop_columns(["game", "button"])
    with pytest.raises(cardbatch.InputError, match=r"missing column\(s\) button for game badugi"):
        cardbatch.audit(empty, game="badugi")
    pq.write_table(empty, tmp_path / "empty.parquet")
    done = cli("settle", str(tmp_path / "empty.parquet"), "--game", "badugi", "--out", str(tmp_path / "o"), "-q")
    assert done.returncode == 2 and "missing column(s) button for game badugi" in done.stderr


def test_the_api_settles_a_mixed_frame_of_every_game():
    """The flop games and the games without a board (stud and razz rows without a button: null in
    the frame's button column) in one frame."""
    own = [g for g in GAMES if REGISTRY[g].has_hands and not REGISTRY[g].board_cards and g != "zjh"]
    tables = [generate_hands(g, 300, seed=5).table for g in ("holdem", *NEW, *own)]
    mixed = pa.concat_tables(tables, promote_options="permissive")
    s = cardbatch.settle(mixed)
    assert s.summary["rows_read"] == 300 * len(tables) == s.results.num_rows + s.errors.num_rows
    assert set(s.summary["by_game"]) == {"holdem", *NEW, *own} and s.summary["rows_rejected"] == 0


def test_the_api_says_what_the_command_line_says_beside_its_line():
    """From a trial: ids that repeat and an option no row used were said by the command line only."""
    hands = generate_hands("holdem", 200, seed=11).table
    with pytest.warns(UserWarning) as said:
        s = cardbatch.settle(pa.concat_tables([hands, hands]), rules="teen_patti")
    lines = [str(w.message) for w in said]
    assert any("appear more than once" in line for line in lines)
    assert any("--rules teen_patti: no three-card rows were read" in line for line in lines)
    assert s.summary["repeated_hand_ids"]["ids"] == 200 and s.summary["repeated_hand_ids"]["rows"] == 400
    assert cardbatch.settle(hands).summary["repeated_hand_ids"]["ids"] == 0
