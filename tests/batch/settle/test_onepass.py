"""The one-pass kernel against the reference path: the same results, errors and counters, row by row.

Every table here is settled twice, by ``settle_hands(..., one_pass=True)`` (which must take the
one-pass kernel: :func:`settle_one_pass` must not decline) and by the reference's four steps, and
the three outputs must be equal: byte for byte as Arrow tables, and every counter.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardbatch.batch.generate import generate_hands
from cardbatch.batch.settle.onepass import settle_one_pass
from cardbatch.batch.settle.options import SettleOptions
from cardbatch.batch.settle.poker import settle_hands
from cardbatch.games import REGISTRY


def same(table: pa.Table, game: str = "holdem", opts: SettleOptions | None = None, inferred: bool = False) -> dict:
    """Settle ``table`` both ways; assert they agree; return the counters."""
    opts = opts or SettleOptions()
    fused = settle_one_pass(table, REGISTRY[game], opts, inferred)
    assert fused is not None, "the one-pass kernel declined a table it was meant to settle"
    ref = settle_hands(table, game, opts, inferred, one_pass=False)
    for kind, a, b in (("results", fused[0], ref[0]), ("errors", fused[1], ref[1])):
        assert a.schema == b.schema, kind
        for name in b.column_names:
            assert a.column(name).combine_chunks().equals(b.column(name).combine_chunks()), (kind, name)
    assert fused[2] == ref[2]
    return fused[2]


def _set(table: pa.Table, name: str, column: pa.Array) -> pa.Table:
    if name in table.column_names:
        return table.set_column(table.column_names.index(name), name, column)
    return table.append_column(name, column)


@pytest.fixture(scope="module")
def hands() -> pa.Table:
    return generate_hands("holdem", 3000, seed=11, bad_rate=0.08, tamper_rate=0.03).table


@pytest.mark.parametrize("game", ["holdem", "shortdeck"])
@pytest.mark.parametrize("layout", ["codes", "streets", "text"])
def test_generated_hands_with_bad_rows_settle_alike(game, layout):
    g = generate_hands(
        game,
        2500,
        seed=5,
        bad_rate=0.1,
        tamper_rate=0.05,
        streets_column=layout == "streets",
        text_cards=layout == "text",
    )
    c = same(g.table, game)
    assert c["rows_rejected"] > 100 and c["rows_settled"] > 1500 and c["mismatches"] > 0


@pytest.mark.parametrize(
    "options",
    [
        dict(rake_pct="0.05", rake_cap=7),
        dict(rake_pct="1/3", odd_chips="first_winner", chip_unit=5),
        dict(orphan_chips="refund"),
        dict(rake_pct="0.1", no_flop_no_drop=True),
    ],
)
def test_every_standard_rule_settles_alike(hands, options):
    same(hands, opts=SettleOptions.of(**options))


def test_short_deck_under_either_order(hands):
    g = generate_hands("shortdeck", 2000, seed=3, bad_rate=0.05)
    same(g.table, "shortdeck", SettleOptions(trips_beat_straight=True))
    # Hold'em's deals hold cards below the six: every such row is a bad card in short deck
    c = same(hands, "shortdeck")
    assert c["rejected_by_reason"]["bad_card"] > 1000


def test_sliced_and_chunked_batches_settle_alike(hands):
    same(hands.slice(37, 911))
    chunked = pa.concat_tables([hands.slice(0, 300), hands.slice(1300, 700), hands.slice(301, 5)])
    assert chunked.column("cards").num_chunks == 3
    same(chunked)


def _with_nulls(table: pa.Table, name: str, rows: list[int], element: bool) -> pa.Table:
    """``name`` with a null cell (or, with ``element``, a null first element) at ``rows``."""
    values = table.column(name).to_pylist()
    for r in rows:
        if element and values[r]:
            values[r] = [None, *values[r][1:]]
        else:
            values[r] = None
    typ = table.schema.field(name).type
    if pa.types.is_fixed_size_list(typ) and not element:
        typ = pa.list_(typ.value_type)
    return _set(table, name, pa.array(values, typ))


@pytest.mark.parametrize(
    "name,element",
    [
        ("hand_id", False),
        ("button", False),
        ("folded", False),
        ("folded", True),
        ("cards", True),
        ("board", False),
        ("board", True),
        ("contrib", True),
        ("payout", False),
        ("payout", True),
    ],
)
def test_nulls_anywhere_settle_alike(hands, name, element):
    t = _with_nulls(hands.slice(0, 800), name, [3, 50, 51, 799], element)
    c = same(t)
    if name != "payout":
        assert c["rejected_by_reason"].get("missing_value", 0) >= 3


def test_the_kernel_is_compiled_once_whatever_the_columns_came_from(hands):
    """Arrow's buffers are read-only and copies writable, and numba compiled the kernel again (most of
    a minute, in a nightly run too) for each mix: the full test run had built it 17 times."""
    from cardbatch.kernels import onepass

    t = hands.slice(0, 400)
    for table in (
        t,
        _with_nulls(t, "contrib", [3], True),
        _with_nulls(t, "button", [5], False),
        _with_nulls(t, "payout", [7], False),
        _set(t, "contrib", t.column("contrib").cast(pa.list_(pa.int32()))),
        _set(t, "cards", t.column("cards").cast(pa.list_(pa.int64()))),
    ):
        same(table)
    assert len(onepass.settle_board_batch.parallel.signatures) == 1


def test_dead_money_settles_alike_and_bad_dead_chips_are_set_aside(hands):
    t = hands.slice(0, 1500)
    rng = np.random.default_rng(4)
    contrib = t.column("contrib").to_pylist()
    dead = []
    for i, row in enumerate(contrib):
        if row is None:
            dead.append(None)
            continue
        d = [int(rng.integers(0, c + 1)) if c and c > 0 and rng.random() < 0.3 else 0 for c in row]
        if i % 97 == 0 and d:
            d[0] = -1  # below zero
        if i % 89 == 0 and d:
            d[-1] = (row[-1] or 0) + 5  # above the seat's chips
        if i % 83 == 0:
            d = d[:-1]  # a list of another length
        if i % 211 == 0:
            d = None
        dead.append(d)
    c = same(_set(t, "dead", pa.array(dead, pa.list_(pa.int64()))))
    assert c["rejected_by_reason"]["bad_dead_money"] > 10 and c["rejected_by_reason"]["missing_value"] > 3
    same(_set(t, "dead", pa.array(dead, pa.list_(pa.int64()))), opts=SettleOptions.of(rake_pct="0.05"))


def test_card_layouts_settle_alike(hands):
    t = hands.slice(0, 600)
    text = generate_hands("holdem", 600, seed=11, bad_rate=0.08, text_cards=True).table
    assert pa.types.is_list(text.schema.field("cards").type)  # one string a seat
    one_string = pa.array([None if r is None else " ".join(r) for r in text.column("cards").to_pylist()])
    c = same(_set(text, "cards", one_string))  # one string a hand, seats split by spaces
    assert c["rows_settled"] > 400
    same(_set(text, "cards", pc.dictionary_encode(one_string)))
    glued = pa.array([None if r is None else "".join(r) for r in text.column("cards").to_pylist()])
    same(_set(text, "cards", glued))
    wide = pc.cast(t.column("cards"), pa.list_(pa.int16()))
    values = wide.to_pylist()
    values[5] = [300, *values[5][1:]]  # beyond a byte: a bad card, never wrapped to a card
    values[6] = [-3, *values[6][1:]]
    c = same(_set(t, "cards", pa.array(values, pa.list_(pa.int16()))))
    assert c["rejected_by_reason"]["bad_card"] >= 2
    same(_set(t, "board", pc.cast(t.column("board"), pa.list_(pa.uint8()))))
    same(_set(t, "folded", pc.cast(t.column("folded"), pa.list_(pa.int8()))))


def test_wide_and_huge_chips_settle_alike(hands):
    t = hands.slice(0, 400)
    same(_set(t, "contrib", pc.cast(t.column("contrib"), pa.list_(pa.int32()))))
    values = [None if r is None else [max(v, 0) for v in r] for r in t.column("contrib").to_pylist()]
    values[1] = [2**62, 2**62, *values[1][2:]]  # a sum beyond int64
    values[2] = [2**63 + 5, *values[2][1:]]  # a value beyond int64
    c = same(_set(t, "contrib", pa.array(values, pa.list_(pa.uint64()))))
    assert c["rejected_by_reason"]["overflow"] == 2


def test_a_game_told_from_the_columns_never_takes_omaha_rows():
    holdem = generate_hands("holdem", 300, seed=1).table
    omaha = generate_hands("omaha", 300, seed=2).table.select(holdem.column_names)
    t = pa.concat_tables([holdem, omaha.cast(holdem.schema)])
    c = same(t, inferred=True)
    assert c["rejected_by_reason"]["game_not_given"] == 300


def test_no_flop_hands_pay_no_rake_when_asked(hands):
    t = hands.slice(0, 400)
    boards = t.column("board").to_pylist()
    for r in range(0, 400, 3):
        boards[r] = []
    t = _set(t, "board", pa.array(boards, pa.list_(pa.uint8())))
    c = same(t, opts=SettleOptions.of(rake_pct="0.05", no_flop_no_drop=True))
    assert c["chips_raked"] > 0


def test_an_empty_table_settles_alike(hands):
    same(hands.slice(0, 0))


@st.composite
def tables(draw):
    n = draw(st.integers(1, 40))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    rows = []
    for i in range(n):
        seats = int(rng.integers(1, 11))
        deck = rng.permutation(52)
        cards = deck[: 2 * seats + 5].tolist()
        if rng.random() < 0.1:
            cards[1] = cards[0]  # a card twice
        rows.append(
            {
                "hand_id": i,
                "button": int(rng.integers(-1, seats + 1)),
                "board": cards[2 * seats : 2 * seats + int(rng.choice([0, 3, 5, 5, 5]))],
                "cards": cards[: 2 * seats] if rng.random() > 0.05 else cards[: 2 * seats - 1],
                "contrib": rng.choice(
                    [0, 1, 2, 5, 10, 50, -1], size=seats, p=[0.2, 0.2, 0.2, 0.2, 0.1, 0.09, 0.01]
                ).tolist(),
                "folded": (rng.random(seats) < 0.4).tolist(),
            }
        )
    schema = pa.schema(
        [
            ("hand_id", pa.int64()),
            ("button", pa.int8()),
            ("board", pa.list_(pa.uint8())),
            ("cards", pa.list_(pa.uint8())),
            ("contrib", pa.list_(pa.int64())),
            ("folded", pa.list_(pa.bool_())),
        ]
    )
    return pa.Table.from_pylist(rows, schema)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables(), st.sampled_from(["0", "0.05"]), st.sampled_from(["button", "first_winner"]))
def test_random_tables_settle_alike(table, rake, odd):
    same(table, opts=SettleOptions.of(rake_pct=rake, odd_chips=odd))


def test_real_recorded_hands_settle_alike_and_as_recorded(tmp_path):
    """The Pluribus and WSOP Hold'em hands of the test corpus (dead big-blind antes included), through
    ``import``: both paths give the recorded result of every hand."""
    from pathlib import Path

    import pyarrow.parquet as pq

    from cardbatch.batch.io.jobs import RunOptions
    from cardbatch.batch.phh.job import ImportOptions, run_import

    corpus = Path(__file__).resolve().parents[2] / "data" / "phh"
    out = tmp_path / "hands.parquet"
    run_import([str(corpus)], str(out), ImportOptions(run=RunOptions(workers=1, quiet=True)))
    hands = pq.read_table(out)
    holdem = hands.filter(pc.equal(hands.column("game"), "holdem"))
    assert holdem.num_rows == 18 and "dead" in holdem.column_names  # 13 Pluribus, 5 WSOP
    c = same(holdem)
    assert c["rows_rejected"] == 0 and c["mismatches"] == 0
