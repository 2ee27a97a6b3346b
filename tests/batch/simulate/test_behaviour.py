"""The card games' betting model: the hands ``simulate`` plays settle to its payouts through
``cardbatch audit``, and fitting the model to a log the simulator wrote gives back the parameters
it was written with."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import TEST_DATA, cli

from cardbatch.batch.simulate import behaviour as bh
from cardbatch.batch.simulate.job import Room, simulate


def _truth(streets: int) -> bh.Behaviour:
    """A model unlike the flags' defaults in every parameter: uneven seat counts with a gap, fold
    and all-in rates that move with strength and street, bets of 0-3 base units."""
    fold = tuple(tuple(x * (1 - 0.15 * s) for x in (0.45, 0.3, 0.15, 0.05)) for s in range(streets))
    allin = tuple(tuple(x * (1 + 0.2 * s) for x in (0.01, 0.02, 0.04, 0.07)) for s in range(streets))
    bet = tuple(((0.2, 0.3, 0.3, 0.2) if s % 2 == 0 else (0.1, 0.5, 0.2, 0.2)) for s in range(streets))
    return bh.Behaviour(seats=(0.2, 0.3, 0.0, 0.5), fold=fold, allin=allin, bet=bet, source="truth")


@pytest.fixture(scope="module", params=["zjh", "holdem"])
def log(request, tmp_path_factory) -> tuple[str, Room, bh.Behaviour, Path, dict]:
    game = request.param
    truth = _truth(4 if game == "holdem" else 1)
    # deep stacks, so that calls rarely run out of chips (a seat that cannot cover the bet is left
    # out of the all-in count, and the fewer such seats the more decisions are counted)
    room = Room(game=game, players=12000, rounds=12, tables_per_round=3000, start_balance=100000, seed=11)
    path = tmp_path_factory.mktemp("log") / f"{game}.parquet"
    summary = simulate(room, model=truth, hands_path=str(path))
    return game, room, truth, path, summary


def _close(got, want, n, what):
    """Within five binomial standard errors of ``n`` decisions, and 0.006 for the model's known
    small biases (tables where nobody called are not seen; folded amounts trimmed)."""
    for g, w in zip(np.ravel(got), np.ravel(want)):
        tol = 5 * math.sqrt(max(w * (1 - w), 0.01) / max(n, 1)) + 0.006
        assert abs(g - w) <= tol, f"{what}: fitted {g:.4f}, written with {w:.4f} (tolerance {tol:.4f})"


def test_fitting_the_log_gives_back_the_model_it_was_written_with(log):
    game, room, truth, path, summary = log
    model, seen = bh.fit(pq.read_table(path), game, room.rules, room.base, str(path))
    hands = seen["hands"]
    assert hands == summary["tables"] > 30000 and seen["rows_left_out"] == 0
    _close(model.seats, truth.seats, hands, "seat counts")
    assert model.streets == truth.streets
    for s in range(truth.streets):
        per_quartile = seen["fold_decisions"][s] / bh.QUARTILES
        _close(model.fold[s], truth.fold[s], per_quartile, f"fold, street {s}")
        _close(model.allin[s], truth.allin[s], seen["allin_decisions"][s] / bh.QUARTILES, f"all in, street {s}")
        _close(model.bet[s][: len(truth.bet[s])], truth.bet[s], hands / 3, f"bet, street {s}")
        assert sum(model.bet[s][len(truth.bet[s]) :]) == 0


def test_the_hands_played_settle_to_the_simulators_payouts(log, tmp_path):
    game, room, _, path, summary = log
    t = pq.read_table(path)
    contrib = t.column("contrib_street" if game == "holdem" else "contrib").combine_chunks().values.to_numpy()
    paid = t.column("payout").combine_chunks().values.to_numpy()
    assert contrib.sum() == paid.sum()  # no rake in this room: every chip put in is paid back
    proc = cli("audit", str(path), "--out", str(tmp_path / "a"), "--workers", "1", "-q")
    assert proc.returncode == 0, proc.stderr
    audit = json.loads((tmp_path / "a" / "summary.json").read_text())
    assert audit["rows_settled"] == t.num_rows == summary["tables"] and audit["rows_rejected"] == 0
    assert audit["mismatches"] == 0 and audit["chips_in"] == contrib.sum()
    # the players' balances move by what the log says they won and lost
    players = pq.read_table(path, columns=["player_id", "payout", "stack"])
    ids = players.column("player_id").combine_chunks().values.to_numpy()
    net = paid - (contrib.reshape(-1) if game == "zjh" else _totals(t))
    final = np.full(room.players, room.start_balance, np.int64)
    np.add.at(final, ids, net)
    assert (np.sort(final) == np.sort(summary["_balance"])).all()


def _totals(t) -> np.ndarray:
    """Each seat's chips over the four streets (contrib_street is street-major per row)."""
    n = t.column("folded").combine_chunks().value_lengths().to_numpy()
    flat = t.column("contrib_street").combine_chunks().values.to_numpy()
    out, pos = [], 0
    for k in n:
        out.append(flat[pos : pos + 4 * k].reshape(4, k).sum(axis=0))
        pos += 4 * k
    return np.concatenate(out)


def test_without_stacks_all_in_rates_are_not_fitted_and_the_summary_says_so(log):
    game, room, truth, path, _ = log
    model, seen = bh.fit(pq.read_table(path).drop_columns(["stack"]), game, room.rules, room.base, "x")
    assert seen["allin_decisions"] is None and "no stack column" in seen["notes"][0]
    assert all(x == 0 for row in model.allin for x in row)
    _close(model.seats, truth.seats, seen["hands"], "seat counts")


def test_rows_of_other_games_and_null_cells_are_left_out_and_counted(tmp_path):
    room = Room(game="zjh", players=600, rounds=3, tables_per_round=100, seed=2)
    path = tmp_path / "z.parquet"
    simulate(room, hands_path=str(path))
    t = pq.read_table(path)
    folded = t.column("folded").combine_chunks()
    broken = folded.to_pylist()
    broken[0] = None
    t = t.set_column(t.schema.get_field_index("folded"), "folded", pa.array(broken, folded.type))
    _, seen = bh.fit(t, "zjh", room.rules, room.base, "x")
    assert seen["rows_left_out"] == 1 and seen["hands"] == t.num_rows - 1
    contrib = t.column("contrib").to_pylist()
    contrib[1] = contrib[1][:-1]  # a seat short: the lists no longer fit together
    short = t.set_column(t.schema.get_field_index("contrib"), "contrib", pa.array(contrib, pa.list_(pa.int64())))
    _, seen = bh.fit(short, "zjh", room.rules, room.base, "x")
    assert seen["rows_left_out"] == 2 and seen["hands"] == t.num_rows - 2
    with pytest.raises(ValueError, match="no column 'board'"):  # a three-card log is no Hold'em log
        bh.fit(t, "holdem", room.rules, room.base, "x")
    with pytest.raises(ValueError, match="no complete zjh hand"):
        bh.fit(t.slice(0, 1), "zjh", room.rules, room.base, "x")
    with pytest.raises(ValueError, match="no column 'folded'"):
        bh.fit(t.drop_columns(["folded"]), "zjh", room.rules, room.base, "x")


def test_the_flags_model_doubles_folds_for_the_weaker_half():
    m = bh.from_flags("holdem", 6, 0.3, 0.05, 4)
    assert m.streets == 4 and m.max_seats == 6 and m.seats[-1] == 1
    assert m.fold[0] == (0.6, 0.6, 0.3, 0.3) and m.allin[0] == (0.05,) * 4
    assert m.bet[0] == (0.2,) * 5 and all(b == (1.0,) for b in m.bet[1:])


def test_quartiles_cut_the_three_card_hands_in_four(log):
    import itertools

    from cardbatch.kernels import threecard

    hands = np.array(list(itertools.combinations(range(52), 3)), np.uint8)
    q = bh.quartiles(threecard.evaluate(hands, "zjh"), "zjh", "zjh")
    shares = np.bincount(q, minlength=4) / len(hands)
    assert np.all(np.abs(shares - 0.25) < 0.06), shares  # ties at a cut keep a quartile from exact 25 %


def test_the_command_fits_the_log_and_shows_the_parameters(log, tmp_path):
    game, room, truth, path, simulated = log
    proc = cli(
        *["simulate", "--game", game, "--players", "3000", "--rounds", "4"],
        *["--tables-per-round", "300", "--start-balance", "100000", "--behaviour-from", str(path)],
        *["--out", str(tmp_path / "sim"), "-q"],
    )
    assert proc.returncode == 0, proc.stderr
    summary = json.loads((tmp_path / "sim" / "summary.json").read_text())
    model, _ = bh.fit(pq.read_table(path), game, room.rules, room.base, str(path))
    assert summary["behaviour"] == model.describe()
    assert summary["behaviour_fit"]["hands"] == simulated["tables"]
    bad = cli("simulate", "--game", "team2v2", "--behaviour-from", str(path), "--out", str(tmp_path / "bad"), "-q")
    assert bad.returncode == 2 and "one card game" in bad.stderr


def test_real_hands_imported_from_phh_fit_with_their_stacks(tmp_path):
    """The PHH import writes each seat's starting stack, so the real hands' all-in decisions count."""
    out = tmp_path / "h.parquet"
    proc = cli("import", str(TEST_DATA / "phh"), "--out", str(out), "-q")
    assert proc.returncode == 0, proc.stderr
    t = pq.read_table(out)
    stacks = t.column("stack").combine_chunks()
    assert (stacks.value_lengths().to_numpy() == t.column("folded").combine_chunks().value_lengths().to_numpy()).all()
    model, seen = bh.fit(t, "holdem", "zjh", 1, str(out))
    assert seen["hands"] == t.num_rows == 18 and seen["allin_decisions"][0] > 0
    clipped = int(seen["notes"][0].split()[0])  # "N bets above 200 base units ...": blinds of 50/100 chips
    model, seen = bh.fit(t, "holdem", "zjh", 100, str(out))  # Pluribus's big blind as the base
    assert int(seen["notes"][0].split()[0]) < clipped  # the WSOP hands' blinds are in the 100,000s
    assert 0 < model.fold[0][0] < 1 and sum(model.seats) == pytest.approx(1)


def test_a_log_from_cardbatch_generate_gives_back_its_documented_model(tmp_path):
    """``cardbatch generate`` bets by another model (docs/formats.md): 2..9 seats uniform, each seat
    still in folds with 0.25 on every street whatever its cards, the street's bet uniform over
    {0, 1, 2, 4, 8, 25} big blinds (20 chips), no stacks written. The fit sees that model through its own:
    uniform seats, flat and equal fold rates after the flop, the six bet sizes. (The tolerances take the
    model's differences: generate keeps the first seat in, not the strongest, and a table whose callers
    are all in shows no bet.)"""
    from cardbatch.batch.generate import generate_hands

    t = generate_hands("holdem", 40_000, seed=3, streets_column=True).table
    model, seen = bh.fit(t, "holdem", "zjh", 20, "generate")
    _close(model.seats, (1 / 8,) * 8, seen["hands"], "seat counts")
    assert seen["allin_decisions"] is None
    for s in (1, 2, 3):
        assert all(0.21 <= f <= 0.26 for f in model.fold[s]), model.fold[s]
        assert max(model.fold[s]) - min(model.fold[s]) < 0.03  # cards do not matter to generate
    flop = model.bet[1]
    assert sum(flop[k] for k in (0, 1, 2, 4, 8, 25)) > 0.97
    assert all(abs(flop[k] - 1 / 6) < 0.035 for k in (0, 1, 2, 4, 8, 25)), flop


def test_null_elements_other_widths_and_int64s_limit(log):
    """A null element (not only a null cell) leaves its row out; unsigned and narrower integer types
    fit the same model; a value beyond int64, or a table whose stacks add up beyond it, is left out
    rather than wrapped."""
    game, room, _, path, _ = log
    t = pq.read_table(path).slice(0, 3000)
    model, seen = bh.fit(t, game, room.rules, room.base, "x")
    street = "contrib_street" if game == "holdem" else "contrib"

    def cast(table, name, typ):
        return table.set_column(table.schema.get_field_index(name), name, table.column(name).cast(pa.list_(typ)))

    narrow = cast(cast(cast(t, street, pa.uint32()), "stack", pa.int32()), "cards", pa.int16())
    assert bh.fit(narrow, game, room.rules, room.base, "x")[0] == model

    def with_row(table, name, row, value, typ):
        cells = table.column(name).to_pylist()
        cells[row] = value(cells[row])
        return table.set_column(table.schema.get_field_index(name), name, pa.array(cells, pa.list_(typ)))

    holes = with_row(t, street, 0, lambda c: [None] + c[1:], pa.int64())
    holes = with_row(holes, "folded", 1, lambda c: c[:-1] + [None], pa.bool_())
    _, seen = bh.fit(holes, game, room.rules, room.base, "x")
    assert seen["rows_left_out"] == 2 and seen["hands"] == t.num_rows - 2
    huge = with_row(cast(t, "stack", pa.uint64()), "stack", 0, lambda c: [2**64 - 1] + c[1:], pa.uint64())
    huge = with_row(huge, "stack", 1, lambda c: [2**63 - 1] * len(c), pa.uint64())
    _, seen = bh.fit(huge, game, room.rules, room.base, "x")
    assert seen["rows_left_out"] == 2 and seen["hands"] == t.num_rows - 2
