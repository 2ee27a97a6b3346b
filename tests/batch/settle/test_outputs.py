"""The output tables (batch/settle/outputs.py): input columns named like ours kept in errors' extra,
and the game a ``game=G`` folder names (any case), with the other partition keys kept."""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq
from conftest import cli
from flop_hands import QUARTERED, hands_table

import cardbatch
from cardbatch.batch.generate import generate_hands
from cardbatch.batch.settle.outputs import folder_game, hive_keys


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


def test_a_game_folder_names_the_game_of_its_files(tmp_path):
    """A trial's logs partitioned by game (``game=shortdeck/``, no game column) were settled as Hold'em:
    wrong money, and the folder's value dropped. A ``game=G`` folder now names its files' game."""
    sd = {"id": 1, "board": "7d8s9hKcQd", "cards": ["Ah6c", "KhKs"], "contrib": [100, 100]}
    tables = {
        "shortdeck": hands_table([sd]),  # A-6-7-8-9: a straight in short deck, trip kings win in Hold'em
        "holdem": hands_table([{**sd, "id": 2}]),
        "omaha_hilo": hands_table([{**QUARTERED, "id": 3}]),
        "pineapple": hands_table([{**sd, "id": 4}]),  # a game cardbatch does not settle
    }
    for game, table in tables.items():
        (tmp_path / "in" / f"game={game}").mkdir(parents=True)
        pq.write_table(table, tmp_path / "in" / f"game={game}" / "part.parquet")
    own = hands_table([{**sd, "id": 5}], "holdem")  # a game column of its own wins over the folder
    pq.write_table(own, tmp_path / "in" / "game=shortdeck" / "own.parquet")
    done = cli("settle", str(tmp_path / "in"), "--out", str(tmp_path / "out"), "--quiet")
    assert done.returncode == 0, done.stderr
    pay = {}
    for game in ("shortdeck", "holdem", "omaha_hilo"):
        res = pq.read_table(tmp_path / "out" / "results" / f"game={game}")
        assert "game" not in res.column_names  # the output's own game= folder holds it
        pay.update(zip(res.column("hand_id").to_pylist(), res.column("payout").to_pylist()))
    assert pay == {1: [200, 0], 2: [0, 200], 3: [0, 75, 225], 5: [0, 200]}
    err = pq.read_table(tmp_path / "out" / "errors")
    assert err.column("hand_id").to_pylist() == [4] and err.column("reason").to_pylist() == ["unknown_game"]


def test_upper_case_game_folders_name_the_game():
    """A second trial: ``GAME=G`` folders were ignored. The innermost game folder names the game."""
    assert folder_game("/logs/GAME=shortdeck/day=1/a.parquet") == "shortdeck"
    assert folder_game("/logs/game=omaha/game=omaha_hilo/a.parquet") == "omaha_hilo"  # the innermost
    assert hive_keys("/logs/GAME=shortdeck/day=1/a.parquet") == (("day", "1"),)
