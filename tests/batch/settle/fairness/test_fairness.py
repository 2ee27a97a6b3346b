"""The fairness audit: its statistics, its false-alarm rate on fair logs over many seeds, its power
against each dishonest dealer, --by, and the command (exit 0 / 4, its files, a rerun)."""

from __future__ import annotations

import json
import subprocess

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import cli

from cardbatch.batch.generate import Bias, generate_hands
from cardbatch.batch.settle.fairness.audit import category_odds, run_tests
from cardbatch.batch.settle.fairness.options import FairnessOptions
from cardbatch.batch.settle.fairness.stats import chi2_sf, holm, normal_two_sided
from cardbatch.batch.settle.job import settle_in_memory
from cardbatch.batch.settle.options import SettleOptions
from cardbatch.kernels.equity import Walk

FAST = Walk(budget=50_000, samples=2_000)  # preflop sampled (a budget below a rank walk's): the tests stay quick


def audit(table: pa.Table, level: float = 0.01, by: str | None = None, rules: str = "zjh") -> dict:
    opts = SettleOptions.of(rules=rules, equity=FAST, fairness=FairnessOptions(by=by, level=level))
    _, _, figures = settle_in_memory(table, "t", opts)
    return run_tests(figures["by_game"], rules, level)


def test_the_tails_match_mpmath():
    mpmath = pytest.importorskip("mpmath")
    for x, k in [(0.3, 1), (3.84, 1), (45.0, 51), (80.0, 51), (400.0, 35), (12.0, 7)]:
        want = float(mpmath.gammainc(k / 2, x / 2, mpmath.inf, regularized=True))
        assert abs(chi2_sf(x, k) - want) <= 1e-12 + 1e-9 * want
    assert abs(normal_two_sided(2.575829304) - 0.01) < 1e-9


def test_holm_rejects_in_step_down_order():
    assert holm([0.01, 0.02, 0.03], 0.06) == [True, True, True]
    assert holm([0.01, 0.04, 0.035], 0.06) == [True, False, False]  # 0.035 > 0.06 / 2 stops it
    assert holm([], 0.05) == []


def test_category_odds_are_the_decks():
    odds = category_odds("zjh")
    assert abs(sum(odds) - 1) < 1e-12
    assert round(odds[-1] * 22100) == 52  # three of a kind: 13 ranks x 4 ways


@pytest.mark.slow  # many seeds of fair logs: 4 s
def test_fair_logs_are_rarely_rejected_and_p_values_are_uniform():
    runs, p_values = 40, []
    rejected_runs = 0
    for seed in range(runs):
        v = audit(generate_hands("holdem", 4000, seed=100 + seed, streets_column=True).table, level=0.05)
        p_values += [t["p_value"] for t in v["tests"]]
        rejected_runs += bool(v["rejected"])
    # Holm holds the whole run at 5 %: 40 runs reject about twice (7 or more: 0.6 % by chance)
    assert rejected_runs <= 6, rejected_runs
    small = float(np.mean(np.array(p_values) < 0.05))
    assert 0.02 <= small <= 0.09, small  # each test alone is wrong 5 % of the time
    assert len(p_values) > runs * 30


@pytest.mark.parametrize(
    "game, bias, hands, caught",
    [
        ("holdem", "seat0=1", 30_000, "holdem: all-ins, seat=0"),
        ("holdem", "card=As:0.05", 10_000, "holdem: cards, hole 0.0"),
        ("zjh", "card=As:0.05", 10_000, "zjh: cards, hole 0.0"),
        ("shortdeck", "card=Ah:0.05", 10_000, "shortdeck: cards, hole 0.0"),
    ],
)
def test_each_dishonest_dealer_is_caught(game, bias, hands, caught):
    fair = audit(generate_hands(game, hands, seed=7, streets_column=game != "zjh").table)
    assert caught not in fair["rejected"]
    table = generate_hands(game, hands, seed=7, streets_column=game != "zjh", bias=(Bias.parse(bias),)).table
    assert caught in audit(table)["rejected"]


def test_a_biased_deck_is_still_a_deck():
    t = generate_hands("holdem", 3000, seed=2, bias=(Bias.parse("card=As:0.3"), Bias.parse("seat0=0.5"))).table
    for row in t.slice(0, 500).to_pylist():
        cards = [c for c in row["cards"] + row["board"] if c != 255]
        assert len(cards) == len(set(cards))
    card_only = generate_hands("holdem", 3000, seed=2, bias=(Bias.parse("card=As:0.3"),)).table
    first = [row[0] for row in card_only.column("cards").to_pylist()]
    assert 800 < first.count(51) < 1000  # the ace of spades: about 0.3 + 0.7 / 52 of the rows


def test_no_bias_leaves_the_file_as_it_was():
    a = generate_hands("holdem", 2000, seed=9, streets_column=True).table
    b = generate_hands("holdem", 2000, seed=9, streets_column=True, bias=(Bias.parse("seat0=0"),)).table
    assert a.equals(b)


def test_by_a_column_tests_each_value():
    t = generate_hands("holdem", 6000, seed=3, streets_column=True).table
    t = t.append_column("room", pa.array(np.where(np.arange(t.num_rows) % 2, "a", "b")))
    v = audit(t, by="room")
    names = [x["name"] for x in v["tests"]]
    assert any(n.startswith("holdem (room=a):") for n in names) and any(n.startswith("holdem (room=b):") for n in names)
    assert v["groups_of_every_row"] == []


def test_a_group_of_every_row_is_not_tested_twice():
    """From an independent trial: a column of one value ran every test again for a group that is the
    whole run, and the correction counted each test twice."""
    t = generate_hands("holdem", 3000, seed=3, streets_column=True).table
    alone = audit(t)
    v = audit(t.append_column("room", pa.array(["a"] * t.num_rows)), by="room")
    assert v["groups_of_every_row"] == ["holdem (room=a)"]
    assert [(x["name"], x["p_value"]) for x in v["tests"]] == [(x["name"], x["p_value"]) for x in alone["tests"]]
    for name in ("game", "GAME"):  # a GAME=G folder names the game too
        with pytest.raises(ValueError, match="each game apart"):
            FairnessOptions(by=name)
    floats = audit(t.append_column("room", pa.array(np.where(np.arange(t.num_rows) % 2, 1.0, -0.0))), by="room")
    assert {n.split(":")[0] for n in (x["name"] for x in floats["tests"])} >= {"holdem (room=1)", "holdem (room=0)"}


def _cmd(*args: str) -> subprocess.CompletedProcess[str]:
    return cli("fairness", *args)


def test_the_command_exits_0_on_a_fair_deal_and_4_on_a_biased_one(tmp_path):
    pq.write_table(generate_hands("holdem", 10_000, seed=4, streets_column=True).table, tmp_path / "fair.parquet")
    biased = generate_hands("holdem", 10_000, seed=4, streets_column=True, bias=(Bias.parse("card=Kd:0.05"),))
    pq.write_table(biased.table, tmp_path / "biased.parquet")
    fair = _cmd(str(tmp_path / "fair.parquet"), "--out", str(tmp_path / "f"), "--equity-budget", "100000")
    assert fair.returncode == 0, fair.stderr
    verdict = json.loads((tmp_path / "f" / "fairness.json").read_text())
    assert verdict["rejected"] == [] and len(verdict["tests"]) > 20
    assert {"name", "statistic", "p_value", "rejected"} <= set(verdict["tests"][0])
    sections = len({(t["game"], t["scope"]) for t in verdict["tests"]})  # a table each, with its head row
    assert (tmp_path / "f" / "fairness.html").read_text().count("<tr>") == len(verdict["tests"]) + sections
    assert (tmp_path / "f" / "_SUCCESS").exists() and not (tmp_path / "f" / "results").exists()
    again = _cmd(str(tmp_path / "fair.parquet"), "--out", str(tmp_path / "f"), "--equity-budget", "100000")
    assert again.returncode == 0 and json.loads((tmp_path / "f" / "fairness.json").read_text()) == verdict
    bad = _cmd(str(tmp_path / "biased.parquet"), "--out", str(tmp_path / "b"), "--equity-budget", "100000")
    assert bad.returncode == 4, bad.stderr
    assert "holdem: cards, hole 0.0" in json.loads((tmp_path / "b" / "fairness.json").read_text())["rejected"]
    assert "1 REJECTED" in bad.stderr


def test_results_are_written_when_asked_and_the_verdict_is_the_same(tmp_path):
    """Without --results a fairness run writes its verdict, the rejected rows and the summary, and
    nothing at results/ (a user's file of that name included); with it, the results of
    settle --equity. Switching settles again and takes the other run's results away."""
    t = generate_hands("holdem", 3_000, seed=4, streets_column=True, bad_rate=0.01).table
    pq.write_table(t, tmp_path / "h.parquet")
    out = tmp_path / "o"
    args = [str(tmp_path / "h.parquet"), "--out", str(out), "--equity-budget", "100000", "-q"]
    with_results = _cmd(*args, "--results")
    assert with_results.returncode == 0, with_results.stderr
    results = pq.read_table(out / "results")
    assert {"ev_payout", "equity", "equity_se", "all_in_street"} <= set(results.column_names)
    verdict = json.loads((out / "fairness.json").read_text())
    summary = json.loads((out / "summary.json").read_text())
    assert results.num_rows == summary["rows_settled"] and summary["rows_rejected"] > 0
    without = _cmd(*args)
    assert without.returncode == 0, without.stderr
    assert not list((out / "results").rglob("*.parquet")), "the earlier run's results are gone"
    assert json.loads((out / "fairness.json").read_text()) == verdict
    again = json.loads((out / "summary.json").read_text())
    assert again["parts_reused"] == 0 and again["rows_rejected"] == summary["rows_rejected"]
    assert pq.read_table(out / "errors").num_rows == summary["rows_rejected"]
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "results").write_text("my notes")
    res = _cmd(str(tmp_path / "h.parquet"), "--out", str(mine), "--equity-budget", "100000", "-q")
    assert res.returncode == 0, res.stderr
    assert (mine / "results").read_text() == "my notes" and (mine / "fairness.json").exists()
    (tmp_path / "mine2" / "results").mkdir(parents=True)  # a file where a results part's folder would go
    (tmp_path / "mine2" / "results" / "game=holdem").write_text("my notes")
    res = _cmd(str(tmp_path / "h.parquet"), "--out", str(tmp_path / "mine2"), "--equity-budget", "100000", "-q")
    assert res.returncode == 0, res.stderr
    assert (tmp_path / "mine2" / "results" / "game=holdem").read_text() == "my notes"


def test_the_python_api_refuses_what_the_command_cannot_do():
    """From an independent trial: fairness=True crashed in the planner, a rake was applied to a
    fairness run, and the in-memory settle took fairness and gave no verdict."""
    import cardbatch

    with pytest.raises(ValueError, match="fairness must be a FairnessOptions"):
        SettleOptions.of(fairness=True)
    with pytest.raises(ValueError, match="without rake"):
        SettleOptions.of(rake_pct="0.05", rake_cap=30, fairness=FairnessOptions())
    table = generate_hands("holdem", 50, seed=4, streets_column=True).table
    with pytest.raises(ValueError, match="use the cardbatch fairness command"):
        cardbatch.settle(table, fairness=FairnessOptions())


def test_the_command_names_what_it_cannot_use(tmp_path):
    pq.write_table(generate_hands("holdem", 300, seed=4, streets_column=True).table, tmp_path / "h.parquet")
    res = _cmd(str(tmp_path / "h.parquet"), "--out", str(tmp_path / "o"), "--by", "room")
    assert res.returncode == 2 and "--by room: no such column" in res.stderr
    res = _cmd(str(tmp_path / "h.parquet"), "--out", str(tmp_path / "o"), "--level", "1.5")
    assert res.returncode == 2 and "--level" in res.stderr
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "fairness.json").write_text("my notes")
    res = _cmd(str(tmp_path / "h.parquet"), "--out", str(tmp_path / "mine"))
    assert res.returncode == 2 and (tmp_path / "mine" / "fairness.json").read_text() == "my notes"


@pytest.mark.slow  # seconds in the fast loop: CI runs it
def test_by_a_folder_groups_as_a_column_would(tmp_path):
    """From an independent trial: --by could not name a room=a/ folder of the inputs (results get it as
    a column). The folder wins over a column of the same name, as it does in the results."""
    t = generate_hands("holdem", 4_000, seed=6, streets_column=True).table
    rooms = np.where(np.arange(t.num_rows) % 3 == 0, "a", "b")
    flat = tmp_path / "flat.parquet"
    pq.write_table(t.append_column("room", pa.array(rooms)), flat)
    for room in ("a", "b"):
        (tmp_path / "logs" / f"room={room}").mkdir(parents=True)
        part = t.filter(pa.array(rooms == room)).append_column("room", pa.array(["z"] * int((rooms == room).sum())))
        pq.write_table(part, tmp_path / "logs" / f"room={room}" / "h.parquet")
    verdicts = []
    for source, out in ((str(flat), "o1"), (str(tmp_path / "logs"), "o2")):
        res = _cmd(source, "--out", str(tmp_path / out), "--by", "room", "--batch-rows", "1000", "-q")
        assert res.returncode in (0, 4), res.stderr
        verdicts.append(json.loads((tmp_path / out / "fairness.json").read_text()))
    names = [sorted(x["name"] for x in v["tests"]) for v in verdicts]
    assert names[0] == names[1] and any(n.startswith("holdem (room=a):") for n in names[0])
    assert not any("room=z" in n for n in names[1])
    stats = [{x["name"]: x["statistic"] for x in v["tests"]} for v in verdicts]
    assert all(stats[1][n] == pytest.approx(stats[0][n], rel=1e-9, abs=1e-9) for n in names[0])


def test_a_column_of_too_many_values_stops_before_the_folder_changes(tmp_path):
    """From an independent trial: a --by column of more than 1,000 values was found while the rows
    were read, after the folder's earlier output had been removed for the new options."""
    pq.write_table(generate_hands("holdem", 1_500, seed=4, streets_column=True).table, tmp_path / "h.parquet")
    out = tmp_path / "o"
    first = _cmd(str(tmp_path / "h.parquet"), "--out", str(out), "-q")
    assert first.returncode in (0, 4), first.stderr
    before = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    res = _cmd(str(tmp_path / "h.parquet"), "--out", str(out), "--by", "hand_id", "-q")
    assert res.returncode == 2 and "--by hand_id: more than 1,000 distinct values" in res.stderr, res.stderr
    assert {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()} == before


def test_the_verdict_is_the_same_to_the_byte_whatever_order_the_parts_finish_in(tmp_path):
    """From an independent trial: the tallies' float sums were added in the order the parts finished,
    so two runs of one command could differ in the last digits of fairness.json."""
    pq.write_table(generate_hands("holdem", 6_000, seed=9, streets_column=True).table, tmp_path / "h.parquet")
    texts = set()
    for workers in ("1", "2", "2"):
        out = tmp_path / f"o{len(texts)}{workers}"
        res = _cmd(str(tmp_path / "h.parquet"), "--out", str(out), "--batch-rows", "500", "--workers", workers, "-q")
        assert res.returncode in (0, 4), res.stderr  # this seed's deal has one false alarm: the bytes are the point
        texts.add((out / "fairness.json").read_text())
    assert len(texts) == 1


def test_a_users_fairness_files_in_a_settled_folder_are_left_alone(tmp_path):
    """From an independent trial: a user's fairness.json / fairness.html put in a folder a settle run
    wrote were deleted by the next settle (resume or overwrite), and overwritten by a fairness run.
    The manifest now lists the top files its run wrote; only those go."""
    pq.write_table(generate_hands("holdem", 300, seed=4, streets_column=True).table, tmp_path / "h.parquet")
    out = tmp_path / "o"
    settle = ["settle", str(tmp_path / "h.parquet"), "--out", str(out), "-q"]
    assert cli(*settle).returncode == 0
    for name in ("fairness.json", "fairness.html"):
        (out / name).write_text("mine")
    for extra in ([], ["--mode", "overwrite"]):
        res = cli(*settle, *extra)
        assert res.returncode == 0, res.stderr
        assert [(out / n).read_text() for n in ("fairness.json", "fairness.html")] == ["mine", "mine"]
    res = _cmd(str(tmp_path / "h.parquet"), "--out", str(out), "-q")
    assert res.returncode == 2 and "fairness.json, fairness.html, which this run writes" in res.stderr
    assert [(out / n).read_text() for n in ("fairness.json", "fairness.html")] == ["mine", "mine"]
    assert (out / "_SUCCESS").exists(), "a refused run changed nothing"
    fair = tmp_path / "f"  # a fairness run's own files: replaced by the next, removed by a settle
    assert _cmd(str(tmp_path / "h.parquet"), "--out", str(fair), "-q").returncode == 0
    assert _cmd(str(tmp_path / "h.parquet"), "--out", str(fair), "-q", "--level", "0.05").returncode == 0
    assert json.loads((fair / "fairness.json").read_text())["level"] == 0.05
    assert cli(*settle[:-3], "--out", str(fair), "-q").returncode == 0
    assert not (fair / "fairness.json").exists() and not (fair / "fairness.html").exists()


@pytest.mark.slow  # a Dask LocalCluster
def test_a_dask_cluster_gives_the_same_verdict(tmp_path):
    pytest.importorskip("distributed")
    pq.write_table(
        generate_hands("holdem", 6_000, seed=8, streets_column=True).table, tmp_path / "h.parquet", row_group_size=2_000
    )
    args = [str(tmp_path / "h.parquet"), "--equity-budget", "100000", "--batch-rows", "2000"]
    local = _cmd(*args, "--out", str(tmp_path / "local"))
    dask = _cmd(*args, "--out", str(tmp_path / "dask"), "--engine", "dask", "--workers", "2")
    assert local.returncode == dask.returncode == 0, dask.stderr
    a, b = (json.loads((tmp_path / d / "fairness.json").read_text()) for d in ("local", "dask"))
    assert [t["name"] for t in a["tests"]] == [t["name"] for t in b["tests"]] and a["rejected"] == b["rejected"]
    for x, y in zip(a["tests"], b["tests"]):  # sums of floats, added in the order the parts finished
        assert x["n"] == y["n"] and abs(x["statistic"] - y["statistic"]) < 1e-9


def test_by_keeps_nulls_apart_from_the_text_none():
    t = generate_hands("holdem", 6000, seed=3, streets_column=True).table
    rooms = ["None" if i % 2 else None for i in range(t.num_rows)]
    v = audit(t.append_column("room", pa.array(rooms, pa.string())), by="room")
    names = {x["name"].split(":")[0] for x in v["tests"]}
    assert {"holdem (room=None)", "holdem (room null)"} <= names


def test_another_level_reuses_every_part(tmp_path):
    pq.write_table(generate_hands("holdem", 3000, seed=4, streets_column=True).table, tmp_path / "h.parquet")
    args = [str(tmp_path / "h.parquet"), "--out", str(tmp_path / "o"), "--equity-budget", "100000"]
    assert _cmd(*args).returncode == 0
    again = _cmd(*args, "--level", "0.001")  # below the first run's level: what passed there passes here
    assert again.returncode == 0
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert summary["parts_reused"] == summary["parts"] >= 1
    assert json.loads((tmp_path / "o" / "fairness.json").read_text())["level"] == 0.001


def test_a_stack_that_is_not_a_list_is_named(tmp_path):
    t = generate_hands("holdem", 200, seed=4, streets_column=True).table
    t = t.set_column(t.schema.get_field_index("stack"), "stack", pa.array(np.arange(t.num_rows)))
    pq.write_table(t, tmp_path / "h.parquet")
    res = _cmd(str(tmp_path / "h.parquet"), "--out", str(tmp_path / "o"))
    assert res.returncode == 2 and "column stack must be a list" in res.stderr


def test_the_shapes_real_data_comes_in_give_the_verdict_of_one_tidy_file(tmp_path):
    t = generate_hands("holdem", 3000, seed=11, streets_column=True).table
    pq.write_table(t, tmp_path / "one.parquet")
    pq.write_table(t, tmp_path / "tiny_groups.parquet", row_group_size=3)
    (tmp_path / "many").mkdir()
    for i in range(0, t.num_rows, 20):
        pq.write_table(t.slice(i, 20), tmp_path / "many" / f"f{i:05d}.parquet")
    verdicts = {}
    for shape in ("one.parquet", "tiny_groups.parquet", "many"):
        res = _cmd(str(tmp_path / shape), "--out", str(tmp_path / f"out_{shape}"), "--equity-budget", "100000")
        assert res.returncode == 0, res.stderr
        verdicts[shape] = json.loads((tmp_path / f"out_{shape}" / "fairness.json").read_text())
    one = verdicts["one.parquet"]
    for shape, v in verdicts.items():
        assert [t["name"] for t in v["tests"]] == [t["name"] for t in one["tests"]], shape
        for x, y in zip(one["tests"], v["tests"]):
            assert x["n"] == y["n"] and abs(x["statistic"] - y["statistic"]) < 1e-9, (shape, x["name"])


def _slots_by_whole_arrays(hole, seats, board, keep, low):
    """The card slots' counts by the definition, over whole arrays: rows kept whose every seat's
    cards are real; hole slots counted; each board slot's card counted and every card the hole cards
    and earlier board cards leave expected 1 / (cards left)."""
    T, S, per = hole.shape
    seat = np.arange(S)[None, :, None] < seats[:, None, None]
    ok = keep & (((hole >= low) & (hole < 52)) | ~seat).all(axis=(1, 2))
    hole_obs = np.zeros((S, per, 52), np.int64)
    for s in range(S):
        for j in range(per):
            rows = ok & (seats > s)
            np.add.at(hole_obs[s, j], hole[rows, s, j].astype(np.int64), 1)
    gone = np.zeros((T, 52), bool)
    gone[:, :low] = True
    r, at = np.nonzero(seat[:, :, 0])
    for j in range(per):
        gone[r, hole[r, at, j].astype(np.int64) % 52] = True
    board_obs = np.zeros((board.shape[1], 52), np.int64)
    board_exp = np.zeros((board.shape[1], 52))
    for j in range(board.shape[1]):
        card = board[:, j].astype(np.int64)
        rows = ok & (card >= low) & (card < 52)
        np.add.at(board_obs[j], card[rows], 1)
        left = ~gone[rows]
        board_exp[j] = (left / left.sum(axis=1, keepdims=True)).sum(axis=0)
        dealt = card < 52
        gone[np.flatnonzero(dealt), card[dealt]] = True
    return hole_obs, board_obs, board_exp


@pytest.mark.parametrize("low", [0, 16])
def test_card_slot_counts_as_the_definition_says(low):
    from cardbatch.kernels.dealt import slot_counts

    rng = np.random.default_rng(low)
    T, S = 3000, 6
    hole = np.full((T, S, 2), 255, np.uint8)
    board = np.full((T, 5), 255, np.uint8)
    seats = rng.integers(2, S + 1, T)
    for t in range(T):
        deck = rng.permutation(np.arange(low, 52)).astype(np.uint8)
        hole[t, : seats[t]] = deck[: 2 * seats[t]].reshape(-1, 2)
        shown = rng.integers(0, 6)
        board[t, :shown] = deck[2 * seats[t] : 2 * seats[t] + shown]
    hole[rng.random((T, S, 2)) < 0.01] = 3  # a card below the short deck's, or a repeat: incomplete rows
    keep = rng.random(T) < 0.9
    got = (np.zeros((S, 2, 52), np.int64), np.zeros((5, 52), np.int64), np.zeros((5, 52)))
    slot_counts(hole, seats, board, keep, low, *got)
    want = _slots_by_whole_arrays(hole, seats, board, keep, low)
    assert (got[0] == want[0]).all() and (got[1] == want[1]).all()
    assert np.allclose(got[2], want[2], rtol=1e-12, atol=1e-9)
    assert got[1].sum() > 5_000 and got[0].sum() > 15_000  # enough rows complete and kept


# Issue #42, row 13: a page a non-statistician can act on after a rejection.


@pytest.fixture(scope="module")
def two_rooms() -> dict:
    """Room a's dealer slips the ace of spades to seat 0 one time in twenty; room b's deals fair."""
    biased = generate_hands("holdem", 10_000, seed=7, streets_column=True, bias=(Bias.parse("card=As:0.05"),)).table
    fair = generate_hands("holdem", 10_000, seed=8, streets_column=True).table
    t = pa.concat_tables([biased, fair])
    t = t.append_column("room", pa.array(["a"] * biased.num_rows + ["b"] * fair.num_rows))
    return audit(t, by="room")


def test_a_rejected_card_test_names_the_card_with_its_counts(two_rooms):
    """The verdict said 'holdem: cards, hole 0.0, χ² = 2.54e+03, p 0': neither the page nor
    fairness.json said which card, nor what 'hole 0.0' is."""
    from cardbatch.batch.settle.fairness.report import render

    test = next(t for t in two_rooms["tests"] if t["name"] == "holdem (room=a): cards, hole 0.0")
    assert test["rejected"] and test["what"] == "seat 0, first hole card"
    top = test["most_off"][0]
    assert top["name"] == "As" and top["observed"] > 2.5 * top["expected"] and top["z"] > 20
    assert abs(top["expected"] - 10_000 / 52) < 1e-3 and len(test["most_off"]) == 3
    board = next(t for t in two_rooms["tests"] if t["name"] == "holdem: cards, board 3")
    assert board["what"] == "turn card" and not board["rejected"]
    page = render(two_rooms)
    assert (
        f"seat 0, first hole card</b>: As dealt {top['observed']:,} times where {top['expected']:,.1f} were expected"
        in page
    )
    assert "hole 0.0" not in page.split("<h2>What was rejected</h2>")[1].split("</b>")[0]


def test_each_test_shows_its_holm_threshold_and_adjusted_p(two_rooms):
    """p-values below the level read 'ok' with no threshold or adjusted p beside them."""
    from cardbatch.batch.settle.fairness.report import prob, render

    tests, level = two_rooms["tests"], two_rooms["level"]
    m = len(tests)
    ranked = sorted(tests, key=lambda t: t["p_value"])
    running = 0.0
    for k, t in enumerate(ranked):
        assert t["threshold"] == pytest.approx(level / (m - k))
        running = max(running, min(1.0, (m - k) * t["p_value"]))
        assert t["adjusted_p"] == pytest.approx(running)
        assert t["rejected"] == (t["adjusted_p"] <= level)
    page = render(two_rooms)
    assert "<th>threshold</th><th>adjusted p</th>" in page
    for t in tests:
        assert f"<td class='n'>{prob(t['threshold'])}</td><td class='n'>{prob(t['adjusted_p'])}</td>" in page
    assert prob(0.0) == "below 10<sup>-300</sup>" and prob(0.0123) == "0.012" and "e+" not in page


def test_the_holm_figures_agree_with_the_rejections():
    from cardbatch.batch.settle.fairness.stats import holm_adjusted, holm_thresholds

    rng = np.random.default_rng(3)
    for _ in range(200):
        p = list(rng.random(rng.integers(1, 30)) ** 4)
        level = float(rng.choice([0.01, 0.05, 0.2]))
        rejected = holm(p, level)
        assert rejected == [a <= level for a in holm_adjusted(p)]
        thresholds = holm_thresholds(p, level)
        assert all(x <= t for x, t, r in zip(p, thresholds, rejected) if r)


def test_by_groups_are_sections_with_the_rejected_ones_first(two_rooms):
    """With --by day, 969 tests stood in one flat table."""
    import re

    from cardbatch.batch.settle.fairness.report import render

    page = render(two_rooms)
    sections = re.findall(r"<details class='section'( open)?><summary><b>([^<]*)</b>: ([\d,]+) tests, ([^<]*)", page)
    titles = [s[1] for s in sections]
    assert titles[-1] == "holdem, room=b", "the group with nothing rejected comes last"
    assert set(titles[:2]) == {"holdem, room=a", "holdem, whole run"}
    assert [s[0] for s in sections] == [" open", " open", ""]  # the rejected and the whole run open
    counts = {s[1]: int(s[2].replace(",", "")) for s in sections}
    assert sum(counts.values()) == len(two_rooms["tests"])
    assert counts["holdem, room=b"] == sum(t["scope"] == "room=b" for t in two_rooms["tests"])


def test_the_page_heads_with_the_run(tmp_path):
    """The page named no inputs, rows, date or --by."""
    import datetime

    from cardbatch.batch.settle.fairness.report import render

    t = generate_hands("holdem", 1_500, seed=4, streets_column=True).table
    for day in ("2026-12-01", "2026-12-02"):
        (tmp_path / "logs" / f"day={day}").mkdir(parents=True)
        pq.write_table(t, tmp_path / "logs" / f"day={day}" / "h.parquet")
    out = tmp_path / "o"
    res = _cmd(str(tmp_path / "logs"), "--out", str(out), "--by", "day", "--equity-budget", "100000", "-q")
    assert res.returncode in (0, 4), res.stderr
    page = (out / "fairness.html").read_text()
    head = page.split("<ul class='meta' id='run'>")[1].split("</ul>")[0]
    today = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    assert f"Written {today}" in head and "Rows tested: holdem 3,000." in head
    assert "<code>--by day</code>" in head and "level 0.01" in head
    verdict = json.loads((out / "fairness.json").read_text())
    summary = json.loads((out / "summary.json").read_text())
    head = render(verdict, summary).split("<ul class='meta' id='run'>")[1].split("</ul>")[0]
    assert f"2 input files below <code>{tmp_path / 'logs'}/</code>" in head
    assert "day=2026-12-01/h.parquet (1,500 rows), day=2026-12-02/h.parquet (1,500 rows)" in head
    assert "all-ins walked exactly up to 100,000 boards" in head


def test_the_words_for_every_slot_and_group():
    from cardbatch.batch.settle.fairness.audit import allin_words, card_name, slot_words

    assert [card_name(c) for c in (0, 3, 48, 51)] == ["2d", "2s", "Ad", "As"]
    assert [slot_words(f"board {k}") for k in range(5)] == [
        "first flop card",
        "second flop card",
        "third flop card",
        "turn card",
        "river card",
    ]
    assert slot_words("hole 3.2") == "seat 3, third hole card"
    assert allin_words("favourite").startswith("each all-in's favourite")
    assert allin_words("street=0") == "favourites all-in preflop" and allin_words("player=12") == "player 12"


def test_the_pages_modules_examples_run():
    import doctest

    from cardbatch.batch.settle import report
    from cardbatch.batch.settle.fairness import audit as audit_module
    from cardbatch.batch.settle.fairness import report as fairness_report
    from cardbatch.batch.settle.fairness import stats

    for module in (stats, audit_module, fairness_report, report):
        result = doctest.testmod(module)
        assert result.attempted > 0 and result.failed == 0, module.__name__
