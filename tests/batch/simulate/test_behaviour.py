"""The card games' betting model: the hands ``simulate`` plays settle to its payouts through
``cardbatch audit``, and fitting the model to a log the simulator wrote gives back the parameters
it was written with."""

from __future__ import annotations

import dataclasses
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
from cardbatch.kernels import cards as kcards


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
    with pytest.raises(ValueError, match="no hand of the room's game, holdem"):  # a three-card log is no Hold'em log
        bh.fit(t, "holdem", room.rules, room.base, "x")
    with pytest.raises(ValueError, match="no column 'board'"):  # nor is it without its game column
        bh.fit(t.drop_columns(["game"]), "holdem", room.rules, room.base, "x")
    with pytest.raises(ValueError, match="no complete zjh hand"):
        bh.fit(t.slice(0, 1), "zjh", room.rules, room.base, "x")
    with pytest.raises(ValueError, match="no column 'folded'"):
        bh.fit(t.drop_columns(["folded"]), "zjh", room.rules, room.base, "x")
    # from the trial of the new games: a log of another game is said as such (it was "no column
    # 'board'"), and a mixed log's rows of other games count among those left out
    from cardbatch.batch.generate import generate_hands

    stud = generate_hands("stud", 50, seed=1, bad_rate=0.0).table
    with pytest.raises(ValueError, match="no hand of the room's game, holdem .50 rows: stud 50"):
        bh.fit(stud, "holdem", room.rules, room.base, "x")
    mixed = pa.concat_tables([t, stud], promote_options="permissive")
    _, seen = bh.fit(mixed, "zjh", room.rules, room.base, "x")
    assert seen["rows_left_out"] == 1 + 50 and seen["hands"] == t.num_rows - 1 and seen["rows_of_other_games"] == 50
    assert "rows of other games left out: stud 50" in seen["notes"]


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
    holdem_rows = t.column("game").to_pylist().count("holdem")  # the corpus's Omaha hands are left out
    assert seen["hands"] == holdem_rows == 18 and seen["allin_decisions"][0] > 0
    clipped = int(seen["notes"][0].split()[0])  # "N bets above 200 base units ...": blinds of 50/100 chips
    model, seen = bh.fit(t, "holdem", "zjh", 100, str(out))  # Pluribus's big blind as the base
    assert int(seen["notes"][0].split()[0]) < clipped  # the WSOP hands' blinds are in the 100,000s
    assert 0 < model.fold[0][0] < 1 and sum(model.seats) == pytest.approx(1)


def test_a_log_from_cardbatch_generate_gives_back_its_documented_model(tmp_path):
    """``cardbatch generate`` bets by another model (docs/formats.md): 2..9 seats uniform, each seat
    still in folds with 0.25 on every street whatever its cards, the street's bet uniform over
    {0, 1, 2, 4, 8, 25} big blinds (20 chips); its stacks are left out here. The fit sees that model through its own:
    uniform seats, flat and equal fold rates after the flop, the six bet sizes. (The tolerances take the
    model's differences: generate keeps the first seat in, not the strongest, and a table whose callers
    are all in shows no bet.)"""
    from cardbatch.batch.generate import generate_hands

    t = generate_hands("holdem", 40_000, seed=3, streets_column=True).table.drop_columns(["stack"])
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


def _fit_without_source(table, game, room):
    model, seen = bh.fit(table, game, room.rules, room.base, "x")
    return dataclasses.replace(model, source=""), seen


def _texts(codes: np.ndarray) -> list[str]:
    return kcards.format(codes.astype(np.uint8)).tolist()


def _cards_as_text(table: pa.Table, per: int, layout: str) -> pa.Table:
    """``table`` with its integer ``cards`` as text: one string per seat (``seat``), or one per hand
    with the seats apart by spaces (``hand``) or run together in other spellings (``spelled``: lower
    case, 10 for T, suit symbols)."""
    cards = table.column("cards").combine_chunks()
    seats = _texts(cards.values.to_numpy(zero_copy_only=False).reshape(-1, per))
    offsets = (cards.offsets.to_numpy() // per).tolist()
    rows = [seats[a:b] for a, b in zip(offsets[:-1], offsets[1:])]
    if layout == "seat":
        text = pa.array(rows, pa.list_(pa.string()))
    elif layout == "hand":
        text = pa.array([" ".join(r) for r in rows], pa.large_string())
    else:
        spelled = ["".join(r).lower().replace("t", "10").replace("s", "♠").replace("h", "♥") for r in rows]
        text = pa.array(spelled).dictionary_encode()
    return table.set_column(table.schema.get_field_index("cards"), "cards", text)


@pytest.mark.parametrize("layout", ["seat", "hand", "spelled"])
def test_text_cards_fit_as_the_same_hands_in_integer_codes(log, layout):
    """Every text encoding of the formats (a string per seat, a string per hand, any spelling the
    codec takes) fits exactly the model the integer codes of the same hands fit (the code of the
    session's start raised "expected a list column, got string", or left every hand out); a seat's
    text that is not cards counts as unknown cards, as a code above 51 does."""
    game, room, _, path, _ = log
    per = 3 if game == "zjh" else 2
    t = pq.read_table(path).slice(0, 6000)
    if game == "holdem":  # the board as one string
        board = t.column("board").combine_chunks()
        as_text = pa.array(_texts(board.values.to_numpy(zero_copy_only=False).reshape(-1, 5)))
        text_board = t.set_column(t.schema.get_field_index("board"), "board", as_text)
    else:
        text_board = t
    expect = _fit_without_source(t, game, room)
    assert expect[1]["hands"] == 6000 and expect[1]["seats_with_known_cards"] == 1
    assert _fit_without_source(_cards_as_text(text_board, per, layout), game, room) == expect
    # the second seat of the first 200 rows unreadable: seats of unknown cards, as codes 254 are
    codes = t.column("cards").to_pylist()
    texts = _cards_as_text(text_board, per, "seat").column("cards").to_pylist()
    for row in range(200):
        codes[row][per : 2 * per] = [254] * per
        texts[row][1] = ("Xx", "A", "AsKd7c9h")[row % 3]  # not cards, not one card, too many cards
    unknown = t.set_column(t.schema.get_field_index("cards"), "cards", pa.array(codes, pa.list_(pa.uint8())))
    expect = _fit_without_source(unknown, game, room)
    garbled = text_board.set_column(text_board.schema.get_field_index("cards"), "cards", pa.array(texts))
    assert expect[1]["seats_with_known_cards"] < 1
    assert _fit_without_source(garbled, game, room) == expect


@pytest.mark.slow  # seconds in the fast loop: CI runs it
@pytest.mark.parametrize("game", ["zjh", "holdem"])
def test_the_command_fits_a_text_card_log_from_generate_as_its_integer_twin(tmp_path, game):
    """``cardbatch generate --text-cards`` writes the same hands as without it (Hold'em: a shorter board
    string where the integer board has 255); ``simulate --behaviour-from`` fits the same figures from
    either file (the code of the session's start: exit 1 "internal error", or exit 2 with no hand)."""
    summaries = []
    for name, text in (("codes", ()), ("text", ("--text-cards",))):
        log_path = tmp_path / f"{name}.parquet"
        args = ("--hands", "8000", "--seed", "5") + (("--streets",) if game == "holdem" else ())
        made = cli("generate", "--game", game, *args, *text, "--out", str(log_path), "-q")
        assert made.returncode == 0, made.stderr
        out = tmp_path / name
        res = cli(
            *["simulate", "--game", game, "--players", "300", "--rounds", "2", "--tables-per-round", "30"],
            *["--base", "20", "--behaviour-from", str(log_path), "--out", str(out), "-q"],
        )
        assert res.returncode == 0, res.stderr
        summary = json.loads((out / "summary.json").read_text())
        summaries.append((summary["behaviour"] | {"source": ""}, summary["behaviour_fit"], summary["rounds"]))
    types = pq.read_schema(tmp_path / "text.parquet")
    assert pa.types.is_list(types.field("cards").type) and types.field("cards").type.value_type == pa.string()
    assert game == "zjh" or types.field("board").type == pa.string()
    assert summaries[0][1]["hands"] > 7000  # most rows fit
    assert summaries[1] == summaries[0]


@pytest.mark.slow  # seconds in the fast loop: CI runs it
def test_a_polars_frame_fits_as_its_parquet_file_does(log):
    """A Polars frame (string views, large lists) given to ``cardbatch.simulate(behaviour_from=...)``
    fits the model its Parquet file fits, with integer or text cards (the code of the session's start
    raised ArrowNotImplementedError for the string views)."""
    pl = pytest.importorskip("polars")
    import cardbatch

    game, room, _, path, _ = log
    per = 3 if game == "zjh" else 2
    t = pq.read_table(path).slice(0, 4000)
    expect = bh.fit(t, game, room.rules, room.base, "x")[0].describe() | {"source": ""}
    small = dict(game=game, players=200, rounds=1, tables_per_round=20, base=room.base, rules=room.rules)
    for table in (t, _cards_as_text(t, per, "seat"), _cards_as_text(t, per, "hand")):
        frame = pl.from_arrow(table)
        s = cardbatch.simulate(behaviour_from=frame, **small)
        assert s.summary["behaviour"] | {"source": ""} == expect
        assert s.summary["behaviour_fit"]["hands"] == 4000
