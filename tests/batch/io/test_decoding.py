"""Never silently wrong on input: nulls (cells and elements), integer widths, slices and chunks,
floats and strings, and chips near int64's limit (SPEC §8, §9)."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import DATA, cli
from hypothesis import given, settings
from hypothesis import strategies as st

from cardbatch.batch.generate import generate_hands, generate_teams
from cardbatch.batch.settle.job import settle_table
from cardbatch.batch.settle.options import SettleOptions

DATA_STREETS = DATA / "holdem_streets_text_sample.parquet"
DATA_ZJH = DATA / "zjh_sample.parquet"
CLEAN = generate_hands("holdem", 60, seed=5).table.drop_columns(["game"])
TEAMS = generate_teams(40, seed=6).table
OPTS = SettleOptions()
LISTS = ("cards", "board", "folded", "contrib")
INT_TYPES = (pa.int64(), pa.int32(), pa.uint32(), pa.uint64(), pa.int16())


def _alone(table: pa.Table, row: int) -> list[int]:
    results, _, _ = settle_table(table.slice(row, 1), OPTS)
    return results.column("payout").to_pylist()[0]


ALONE = {row: _alone(CLEAN, row) for row in range(CLEAN.num_rows)}


def _damaged(table: pa.Table, hits: list[tuple[int, str, bool]]) -> pa.Table:
    """``table`` with, per hit (row, column, whole cell?), a null cell or one null element."""
    cols = {name: table.column(name).to_pylist() for name in table.column_names}
    for row, name, cell in hits:
        if cell or name in ("hand_id", "button"):
            cols[name][row] = None
        elif cols[name][row]:
            cols[name][row] = list(cols[name][row])
            cols[name][row][0] = None
    return pa.table({name: pa.array(values, table.schema.field(name).type) for name, values in cols.items()})


def _retyped(table: pa.Table, draw) -> pa.Table:
    """Other integer widths and list kinds, as DuckDB, Polars or Spark write them."""
    width = draw(st.sampled_from(INT_TYPES))
    kind = draw(st.sampled_from((pa.list_, pa.large_list)))
    contrib = table.column("contrib").cast(kind(width))
    cards = table.column("cards").cast(kind(draw(st.sampled_from((pa.uint8(), pa.int16(), pa.uint16())))))
    button = table.column("button").cast(draw(st.sampled_from((pa.int8(), pa.uint8(), pa.int64()))))
    hand_id = table.column("hand_id").cast(draw(st.sampled_from((pa.int64(), pa.uint32(), pa.int32()))))
    table = table.set_column(table.schema.get_field_index("contrib"), "contrib", contrib)
    table = table.set_column(table.schema.get_field_index("cards"), "cards", cards)
    table = table.set_column(table.schema.get_field_index("button"), "button", button)
    return table.set_column(table.schema.get_field_index("hand_id"), "hand_id", hand_id)


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_each_row_is_settled_as_alone_or_rejected(data):
    n = CLEAN.num_rows
    hits = data.draw(
        st.lists(
            st.tuples(st.integers(0, n - 1), st.sampled_from(LISTS + ("hand_id", "button")), st.booleans()), max_size=8
        )
    )
    table = _retyped(_damaged(CLEAN, hits), data.draw)
    start = data.draw(st.integers(0, 10))
    stop = data.draw(st.integers(start, n))
    piece = table.slice(start, stop - start)
    cut = data.draw(st.integers(0, piece.num_rows))  # two chunks: offsets inside every chunk
    piece = pa.concat_tables([piece.slice(0, cut), piece.slice(cut)])
    results, errors, counters = settle_table(piece, OPTS)
    damaged = {row for row, _, _ in hits}
    settled = dict(zip(results.column("hand_id").to_pylist(), results.column("payout").to_pylist()))
    rejected = dict(zip(errors.column("hand_id").to_pylist(), errors.column("reason").to_pylist()))
    assert counters["rows_read"] == piece.num_rows == counters["rows_settled"] + counters["rows_rejected"]
    assert counters["chips_in"] == counters["chips_paid"] + counters["chips_raked"]
    ids = CLEAN.column("hand_id").to_pylist()
    no_id = {row for row, name, _ in hits if name == "hand_id"}
    for row in range(start, stop):
        if row in damaged:
            assert ids[row] not in settled, (row, hits)
            if row not in no_id:
                assert rejected.get(ids[row]) == "missing_value", (row, hits)
        else:
            assert settled[ids[row]] == ALONE[row], (row, hits)
    reasons = errors.column("reason").to_pylist()
    assert reasons == ["missing_value"] * len(damaged & set(range(start, stop))), (reasons, hits)


def test_a_null_fixed_size_board_shifts_no_later_row():
    board = CLEAN.column("board")
    assert pa.types.is_fixed_size_list(board.type)
    values = board.to_pylist()
    values[3] = None
    table = CLEAN.set_column(CLEAN.schema.get_field_index("board"), "board", pa.array(values, board.type))
    results, errors, _ = settle_table(table.slice(1), OPTS)  # a sliced fixed-size list too
    settled = dict(zip(results.column("hand_id").to_pylist(), results.column("payout").to_pylist()))
    assert errors.column("reason").to_pylist() == ["missing_value"]
    for row in range(4, CLEAN.num_rows):
        assert settled[CLEAN.column("hand_id")[row].as_py()] == ALONE[row]


@pytest.mark.parametrize("name", ["balance", "multiplier", "afk"])
@pytest.mark.parametrize("cell", [True, False])
def test_team_nulls_reject_their_game_only(name, cell):
    clean, _, _ = settle_table(TEAMS, OPTS)
    want = dict(zip(clean.column("hand_id").to_pylist(), clean.column("delta").to_pylist()))
    values = TEAMS.column(name).to_pylist()
    values[2] = None if cell else [None, *values[2][1:]]
    table = TEAMS.set_column(TEAMS.schema.get_field_index(name), name, pa.array(values, TEAMS.schema.field(name).type))
    results, errors, _ = settle_table(table, OPTS)
    assert errors.column("reason").to_pylist() == ["missing_value"]
    got = dict(zip(results.column("hand_id").to_pylist(), results.column("delta").to_pylist()))
    hid = TEAMS.column("hand_id")[2].as_py()
    assert got == {k: v for k, v in want.items() if k != hid}


def _hand(contrib, folded=(False, False)):
    return pa.table(
        {
            "hand_id": pa.array(range(len(contrib)), pa.int64()),
            "button": pa.array([0] * len(contrib), pa.int8()),
            "board": pa.array([[0, 1, 2, 3, 4]] * len(contrib), pa.list_(pa.uint8(), 5)),
            "cards": pa.array([[10, 11, 20, 21]] * len(contrib), pa.list_(pa.uint8())),
            "folded": pa.array([list(folded)] * len(contrib), pa.list_(pa.bool_())),
            "contrib": pa.array(contrib),
        }
    )


def test_chips_near_int64_limit_are_rejected_or_exact():
    top = 2**63 - 1
    table = _hand([[top, 0], [2**62, 2**62], [top // 2, top // 2], [100, 100]])
    results, errors, counters = settle_table(table, OPTS)
    assert errors.column("reason").to_pylist() == ["overflow"]
    assert errors.column("hand_id").to_pylist() == [1]
    payouts = results.column("payout").to_pylist()
    assert all(min(p) >= 0 for p in payouts)
    assert [sum(p) for p in payouts] == [top, top // 2 * 2, 200]
    assert counters["chips_in"] == counters["chips_paid"] == top + top // 2 * 2 + 200  # beyond int64: exact
    assert counters["chips_in_rejected"] == 2**63


def test_unsigned_values_beyond_int64_are_overflow_rows():
    table = _hand([[100, 100], [1, 5]])
    table = table.set_column(5, "contrib", pa.array([[100, 100], [2**63, 5]], pa.list_(pa.uint64())))
    results, errors, _ = settle_table(table, OPTS)
    assert errors.column("reason").to_pylist() == ["overflow"]
    assert errors.column("hand_id").to_pylist() == [1]
    alone, _, _ = settle_table(table.slice(0, 1), OPTS)
    assert results.column("payout").to_pylist() == alone.column("payout").to_pylist()
    assert sum(alone.column("payout").to_pylist()[0]) == 200


def test_recorded_payout_nulls():
    table = _hand([[100, 100]] * 3)
    results, _, _ = settle_table(table, OPTS)
    right = results.column("payout").to_pylist()[0]
    recorded = pa.array([right, None, [right[0], None]], pa.list_(pa.int64()))
    results, _, counters = settle_table(table.append_column("payout", recorded), OPTS)
    # a null cell is not compared; a null element is a malformed record: a mismatch
    assert results.column("mismatch").to_pylist() == [False, None, True]
    assert counters["mismatches"] == 1


@pytest.mark.parametrize(
    "values, type_, accepted",
    [
        ([[100.0, 100.0]], pa.list_(pa.float64()), True),
        ([[100.7, 100.0]], pa.list_(pa.float64()), False),
        ([[float("nan"), 100.0]], pa.list_(pa.float64()), False),
        ([["100", "100"]], pa.list_(pa.string()), False),
    ],
)
def test_floats_must_be_whole_and_strings_stop_the_run(tmp_path, values, type_, accepted):
    table = _hand(values)
    path = tmp_path / "in.parquet"
    pq.write_table(table.set_column(5, "contrib", pa.array(values, type_)), path)
    res = cli("settle", str(path), "--out", str(tmp_path / "out"), "--workers", "1", "--quiet")
    if accepted:
        assert res.returncode == 0, res.stderr
        assert (tmp_path / "out" / "summary.json").exists()
    else:
        assert res.returncode == 2, res.stderr
        assert "contrib" in res.stderr and "in.parquet" in res.stderr
        assert "Traceback" not in res.stderr and "Warning" not in res.stderr
        assert not (tmp_path / "out" / "summary.json").exists()


@pytest.mark.parametrize(
    "base, double, balance, rejected", [(2**40, 2**30, None, True), (2**62, 4, None, True), (1, 1, 2**63 - 1, False)]
)
def test_team_stakes_beyond_int64_are_overflow_rows(base, double, balance, rejected):
    clean, _, _ = settle_table(TEAMS, OPTS)
    want = dict(zip(clean.column("hand_id").to_pylist(), clean.column("delta").to_pylist()))
    cols = {name: TEAMS.column(name).to_pylist() for name in TEAMS.column_names}
    cols["base"][3], cols["double"][3] = base, double
    if balance is not None:
        cols["balance"][3] = [balance] * 4
    table = pa.table({name: pa.array(v, TEAMS.schema.field(name).type) for name, v in cols.items()})
    results, errors, counters = settle_table(table, OPTS)
    hid = TEAMS.column("hand_id")[3].as_py()
    got = dict(zip(results.column("hand_id").to_pylist(), results.column("delta").to_pylist()))
    if rejected:
        assert errors.column("reason").to_pylist() == ["overflow"] and errors.column("hand_id").to_pylist() == [hid]
        assert got == {k: v for k, v in want.items() if k != hid}
    else:  # huge balances alone never enter a product: the game settles, exactly, by the same rules
        assert errors.num_rows == 0
        assert sum(got[hid]) == 0 and all(abs(v) < 2**20 for v in got[hid])
        assert {k: v for k, v in got.items() if k != hid} == {k: v for k, v in want.items() if k != hid}


def test_view_layouts_read_like_plain_ones(tmp_path):
    plain = pq.read_table(DATA_STREETS)
    views = plain.set_column(
        plain.schema.get_field_index("cards"),
        "cards",
        pa.array(plain.column("cards").to_pylist(), pa.list_view(pa.string_view())),
    )
    contrib = plain.column("contrib_street").to_pylist()
    contrib[5] = None  # a null cell in a list view
    views = views.set_column(
        views.schema.get_field_index("contrib_street"), "contrib_street", pa.array(contrib, pa.list_view(pa.int32()))
    )
    path = tmp_path / "views.parquet"
    pq.write_table(views, path)
    assert "list_view" in str(pq.read_schema(path))  # Parquet keeps the view types: the reader meets them
    got, errors, _ = settle_table(pq.read_table(path), OPTS)
    want, _, _ = settle_table(plain, OPTS)
    hid5 = plain.column("hand_id")[5].as_py()
    assert hid5 in errors.column("hand_id").to_pylist()
    keep = [h != hid5 for h in want.column("hand_id").to_pylist()]
    assert got.column("payout").to_pylist() == [p for p, k in zip(want.column("payout").to_pylist(), keep) if k]


def test_a_game_without_its_columns_and_a_damaged_page_stop_the_run(tmp_path):
    zjh = pq.read_table(DATA_ZJH)
    zjh = zjh.set_column(zjh.schema.get_field_index("game"), "game", pa.array(["holdem"] * zjh.num_rows))
    pq.write_table(zjh, tmp_path / "noboard.parquet")
    res = cli("settle", str(tmp_path / "noboard.parquet"), "--out", str(tmp_path / "o1"), "--quiet")
    assert res.returncode == 2 and "board" in res.stderr and "missing_column" in res.stderr
    assert "Traceback" not in res.stderr
    pq.write_table(pq.read_table(DATA_ZJH), tmp_path / "crc.parquet", write_page_checksum=True)
    data = bytearray((tmp_path / "crc.parquet").read_bytes())
    middle = len(data) // 2
    data[middle : middle + 64] = bytes(64)  # a page's compressed bytes zeroed
    (tmp_path / "damaged.parquet").write_bytes(bytes(data))
    res = cli("settle", str(tmp_path / "damaged.parquet"), "--out", str(tmp_path / "o2"), "--workers", "1")
    assert res.returncode == 2 and "cannot read" in res.stderr, res.stderr
    assert "cannot write" not in res.stderr and "Traceback" not in res.stderr


def test_unsigned_and_narrow_team_columns_are_read_by_value():
    clean, _, _ = settle_table(TEAMS, OPTS)
    narrow = TEAMS
    for name, type_ in (("hand_id", pa.uint32()), ("winner", pa.uint8()), ("base", pa.uint16()), ("fee", pa.int32())):
        narrow = narrow.set_column(narrow.schema.get_field_index(name), name, TEAMS.column(name).cast(type_))
    for name in ("balance", "multiplier"):
        narrow = narrow.set_column(
            narrow.schema.get_field_index(name), name, TEAMS.column(name).cast(pa.list_(pa.uint32(), 4))
        )
    got, errors, _ = settle_table(narrow, OPTS)
    assert errors.num_rows == 0
    assert got.column("hand_id").to_pylist() == clean.column("hand_id").to_pylist()
    assert got.column("delta").to_pylist() == clean.column("delta").to_pylist()


def test_rejected_chips_count_every_seat_of_a_wide_row():
    table = _hand([[100, 100], [7] * 30])  # 30 seats: wider than any table (seat_count)
    table = table.set_column(4, "folded", pa.array([[False, False], [False] * 30], pa.list_(pa.bool_())))
    _, errors, counters = settle_table(table, OPTS)
    assert errors.column("reason").to_pylist() == ["seat_count"]
    assert counters["chips_in_rejected"] == 7 * 30


def test_dictionary_encoded_text_cards_read_like_plain_text():
    plain = generate_hands("zjh", 200, seed=8, text_cards=True).table
    flat = pa.array(["".join(c) for c in plain.column("cards").to_pylist()]).dictionary_encode()
    flat_plain = pa.array(["".join(c) for c in plain.column("cards").to_pylist()])
    want, _, _ = settle_table(plain.set_column(plain.schema.get_field_index("cards"), "cards", flat_plain), OPTS)
    got, _, _ = settle_table(plain.set_column(plain.schema.get_field_index("cards"), "cards", flat), OPTS)
    assert got.column("payout").to_pylist() == want.column("payout").to_pylist()
    assert want.num_rows > 150
