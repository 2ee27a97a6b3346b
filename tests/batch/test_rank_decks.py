"""`cardbatch rank-decks` end to end through its command line, writing real Parquet."""

import json
import re
import subprocess
import sys

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import cli

from cardbatch.games import REGISTRY
from cardbatch.kernels import decks, ranking


def run(*args):
    return cli(*args)


def test_rank_decks_writes_every_deck(tmp_path):
    out = tmp_path / "r.parquet"
    res = run("rank-decks", "--decks", "3000", "--seats", "5", "--seed", "9", "--out", str(out), "--quiet", "--detail")
    assert res.returncode == 0, res.stderr
    t = pq.read_table(out)
    assert t.num_rows == 3000
    direct = ranking.rank_zjh(3000, 5, 9)
    assert (np.stack(t.column("global_rank").to_numpy(zero_copy_only=False)) == direct.global_rank).all()
    hands = np.stack(t.column("hands").to_numpy(zero_copy_only=False))
    assert (hands.reshape(3000, 15) == decks.deal_decks(3000, 9)[:, decks.zjh_positions(5).reshape(-1)]).all()


def test_the_default_output_is_lean_and_agrees_with_the_detail(tmp_path):
    lean, full = tmp_path / "lean.parquet", tmp_path / "full.parquet"
    common = ("rank-decks", "--game", "holdem", "--decks", "2500", "--seats", "9", "--seed", "5", "--quiet")
    assert run(*common, "--out", str(lean)).returncode == 0
    assert run(*common, "--out", str(full), "--detail").returncode == 0
    t, f = pq.read_table(lean), pq.read_table(full)
    assert t.column_names == ["deck", "value", "best", "best_category", "second", "margin", "margin_classes"]
    assert set(t.column_names) < set(f.column_names)
    assert t.equals(f.select(t.column_names))
    direct = ranking.rank_holdem(2500, 9, 5)
    assert (np.stack(t.column("value").to_numpy(zero_copy_only=False)) == direct.values).all()
    assert (t.column("margin").to_numpy() == direct.margin).all()


def test_rank_decks_top_k_across_slices(tmp_path, monkeypatch):
    out = tmp_path / "top.parquet"
    res = run(
        "rank-decks",
        "--game",
        "holdem",
        "--decks",
        "4000",
        "--seats",
        "6",
        "--seed",
        "2",
        "--out",
        str(out),
        "--top",
        "7",
        "--measure",
        "margin",
        "--quiet",
    )
    assert res.returncode == 0, res.stderr
    t = pq.read_table(out)
    direct = ranking.rank_holdem(4000, 6, 2)
    assert t.column("deck").to_pylist() == direct.top(7, "margin").tolist()


@pytest.mark.parametrize("game", ["holdem", "zjh"])
def test_top_by_margin_classes_follows_the_margin_in_hand_classes(tmp_path, game):
    """``--measure margin_classes`` keeps and orders the decks by the ``margin_classes`` column (the margin
    the figure and the docs show a reader), checked against every deck's row sorted in Python;
    ``--measure margin`` (the packed values' difference) picks other Hold'em decks."""
    common = ("rank-decks", "--game", game, "--decks", "4000", "--seats", "6", "--seed", "2", "--quiet")
    every, top = tmp_path / "every.parquet", tmp_path / "top.parquet"
    assert run(*common, "--out", str(every)).returncode == 0
    res = run(*common, "--out", str(top), "--top", "9", "--measure", "margin_classes")
    assert res.returncode == 0, res.stderr
    rows = pq.read_table(every).select(["deck", "margin_classes"]).to_pylist()
    expect = sorted(rows, key=lambda r: (-r["margin_classes"], r["deck"]))[:9]
    t = pq.read_table(top)
    assert t.select(["deck", "margin_classes"]).to_pylist() == expect
    if game == "holdem":
        by_margin = tmp_path / "margin.parquet"
        assert run(*common, "--out", str(by_margin), "--top", "9", "--measure", "margin").returncode == 0
        assert pq.read_table(by_margin).column("deck").to_pylist() != t.column("deck").to_pylist()


def test_rank_given_decks(tmp_path):
    d = decks.deal_decks(500, 4)
    src = tmp_path / "decks.parquet"
    pq.write_table(pa.table({"deck": pa.FixedSizeListArray.from_arrays(pa.array(d.reshape(-1)), 52)}), src)
    out = tmp_path / "given.parquet"
    res = run("rank-decks", str(src), "--seats", "4", "--rules", "zjh_suited", "--out", str(out))
    assert res.returncode == 0, res.stderr
    t = pq.read_table(out)
    direct = ranking.rank_zjh(500, 4, 4, "zjh_suited")
    assert (np.stack(t.column("value").to_numpy(zero_copy_only=False)) == direct.values).all()


def test_rank_decks_bad_options(tmp_path):
    res = run("rank-decks", "--decks", "10", "--seats", "30", "--out", str(tmp_path / "x.parquet"))
    assert res.returncode == 2 and "players" in res.stderr
    res = run("rank-decks", "--decks", "10", "--rules", "bridge", "--out", str(tmp_path / "x.parquet"))
    assert res.returncode == 2 and "rule" in res.stderr
    assert not list(tmp_path.iterdir())


def test_text_forms_read_back_and_margins_in_hand_classes(tmp_path):
    """The text columns parse back to the codes beside them; categories are named; a Hold'em margin in
    hand classes is the difference of phevaluator's ranks (1 = best) of the runner-up and the winner."""
    phevaluator = pytest.importorskip("phevaluator")
    from cardbatch.kernels import cards, holdem

    out = tmp_path / "h.parquet"
    args = ("rank-decks", "--game", "holdem", "--decks", "400", "--seats", "4", "--seed", "3")
    assert run(*args, "--out", str(out), "--detail", "--quiet").returncode == 0
    t = pq.read_table(out)
    hands = np.stack(t.column("hands").to_numpy(zero_copy_only=False)).reshape(400, 4, 2)
    board = np.stack(t.column("board").to_numpy(zero_copy_only=False))
    for i, (text, btext) in enumerate(zip(t.column("hands_text").to_pylist(), t.column("board_text").to_pylist())):
        seats = text.split(" ")
        assert len(seats) == 4 and [cards.parse(w).tolist() for w in seats] == hands[i].tolist()
        assert cards.parse(btext).tolist() == board[i].tolist()
    cats = np.stack(t.column("category").to_numpy(zero_copy_only=False))
    assert t.column("category_name").to_pylist() == [[holdem.CATEGORY_NAMES[c] for c in row] for row in cats]
    best = t.column("best").to_numpy()
    assert t.column("best_category").to_pylist() == [holdem.CATEGORY_NAMES[v >> 20] for v in best]
    for i in range(400):
        texts = [cards.format(np.concatenate([hands[i, s], board[i]])) for s in range(4)]
        ranks = sorted(phevaluator.evaluate_cards(*(x[j : j + 2] for j in range(0, 14, 2))) for x in texts)
        assert t.column("margin_classes")[i].as_py() == ranks[1] - ranks[0], i


def test_three_card_margin_classes_count_the_distinct_values_between(tmp_path):
    import itertools

    from cardbatch.kernels import threecard

    every = np.unique(threecard.evaluate(np.array(list(itertools.combinations(range(52), 3)), np.uint8)))
    out = tmp_path / "z.parquet"
    assert run("rank-decks", "--decks", "300", "--seats", "5", "--out", str(out), "--quiet").returncode == 0
    t = pq.read_table(out)
    for best, second, m in zip(*(t.column(c).to_pylist() for c in ("best", "second", "margin_classes"))):
        assert m == int(((every > second) & (every <= best)).sum())


def test_plot(tmp_path):
    """--plot draws OUT's .png (a real PNG, 1600 px wide), or says why not; the top table follows --measure."""
    out = tmp_path / "r.parquet"
    res = run("rank-decks", "--decks", "5000", "--out", str(out), "--plot", "--top", "5", "--measure", "margin", "-q")
    assert res.returncode == 0, res.stderr
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert not (tmp_path / "r.png").exists()
        return
    png = (tmp_path / "r.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert int.from_bytes(png[16:20], "big") == 1600


def _decks_table(rows, kind=None):
    return pa.table({"deck": pa.array(rows, kind or pa.list_(pa.int64()))})


def _with(row, deck):
    """Good decks, and ``deck`` at ``row``."""
    good = [list(map(int, d)) for d in decks.deal_decks(12, 3)]
    good[row] = deck
    return good


_GOOD = list(map(int, decks.deal_decks(1, 3)[0]))
NOT_DECKS = {
    "51 cards": (_decks_table(_with(4, _GOOD[:51])), "column 'deck', row 4: 51 cards: a deck has 52"),
    "lengths differ": (
        _decks_table([_GOOD if i % 2 else _GOOD + [0] for i in range(6)]),
        "column 'deck', row 0: 53 cards: a deck has 52",
    ),
    "null deck": (_decks_table(_with(7, None)), "column 'deck', row 7: the deck is null"),
    "null card": (_decks_table(_with(2, [None] + _GOOD[1:])), "column 'deck', row 2: a card is null"),
    "card 52": (_decks_table(_with(9, _GOOD[:51] + [52])), "column 'deck', row 9: card 52 is outside 0..51"),
    "card -1 (int8)": (
        _decks_table(_with(5, [-1] + _GOOD[1:]), pa.list_(pa.int8())),
        "column 'deck', row 5: card -1 is outside 0..51",
    ),
    "card 300 (uint16, would wrap to 44 as uint8)": (
        _decks_table(_with(3, [300] + _GOOD[1:]), pa.large_list(pa.uint16())),
        "column 'deck', row 3: card 300 is outside 0..51",
    ),
    "a card twice": (
        _decks_table(_with(11, [_GOOD[1]] + _GOOD[1:])),
        f"column 'deck', row 11: card {_GOOD[1]} appears twice",
    ),
    "fixed width 51": (
        _decks_table([d[:51] for d in _with(0, _GOOD)], pa.list_(pa.int64(), 51)),
        "column 'deck' holds 51 cards per row: a deck has 52",
    ),
    "not a list": (pa.table({"deck": pa.array(range(12))}), "column 'deck' is int64, not a list of 52 card codes"),
    "text cards": (
        pa.table({"deck": pa.array([["As"] * 52] * 3)}),
        "column 'deck' holds string, not integer card codes 0..51",
    ),
    "no such column": (pa.table({"decks": pa.array(_with(0, _GOOD))}), "no column 'deck' (the columns: decks)"),
}


@pytest.mark.parametrize("case", NOT_DECKS)
def test_decks_that_are_not_decks_are_refused_naming_the_column_and_row(tmp_path, case):
    """A row of the given decks that is not a deck of 52 distinct codes 0..51, or a column that cannot hold decks,
    is an InputError naming the column and the first bad row (the code of the session's start
    raised IndexError or numpy's reshape error: exit 1, "internal error"); nothing is written."""
    import cardbatch
    from cardbatch.batch.io.errors import InputError

    table, message = NOT_DECKS[case]
    src, out = tmp_path / "decks.parquet", tmp_path / "ranked.parquet"
    pq.write_table(table, src)
    res = run("rank-decks", str(src), "--seats", "4", "--out", str(out), "--quiet")
    assert res.returncode == 2, res.stderr
    assert f"cardbatch rank-decks: {src}: {message}" in res.stderr
    assert "internal error" not in res.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["decks.parquet"]
    for given in (table, str(src)):  # the DataFrame API, given the table or the file
        with pytest.raises(InputError, match=re.escape(message)):
            cardbatch.rank_decks(given, players=4)


def test_a_bad_row_past_the_first_slice_is_named_by_its_row_in_the_file(tmp_path, monkeypatch):
    from cardbatch.batch import rank_decks

    monkeypatch.setattr(rank_decks, "SLICE", 8)  # three slices of 8 rows: the bad row is in the third
    rows = [list(map(int, d)) for d in decks.deal_decks(20, 1)]
    rows[18] = rows[18][:50]
    src = tmp_path / "decks.parquet"
    pq.write_table(_decks_table(rows), src)
    res = run("rank-decks", str(src), "--out", str(tmp_path / "r.parquet"), "--top", "3")
    assert res.returncode == 2 and "column 'deck', row 18: 50 cards" in res.stderr, res.stderr


@pytest.mark.parametrize("detail", [False, True])
@pytest.mark.parametrize("game", ["zjh", "holdem"])
def test_no_decks_rank_to_a_table_with_the_columns_and_no_row(tmp_path, game, detail):
    """A deck table of no row (the right schema) ranks to a table of no row with the very columns and
    types of a run of some decks (the code of the session's start raised "no decks to write")."""
    import cardbatch

    some = pa.table({"deck": pa.FixedSizeListArray.from_arrays(pa.array(decks.deal_decks(3, 2).reshape(-1)), 52)})
    none = some.slice(0, 0)
    expect = cardbatch.rank_decks(some, game=game, players=5, detail=detail).schema
    got = cardbatch.rank_decks(none, game=game, players=5, detail=detail)
    assert got.num_rows == 0 and got.schema.equals(expect)
    src, out = tmp_path / "none.parquet", tmp_path / "ranked.parquet"
    pq.write_table(none, src)
    args = ("--game", game, "--seats", "5") + (("--detail",) if detail else ())
    res = run("rank-decks", str(src), "--out", str(out), *args)
    assert res.returncode == 0, res.stderr
    written = pq.read_table(out)
    assert written.num_rows == 0 and written.schema.equals(expect)
    assert json.loads(res.stdout)["decks"] == 0


# Hides matplotlib from a real `cardbatch` process, as an install without cardbatch[plots] has it.
_NO_MATPLOTLIB = """
import sys
class _Hidden:
    def find_spec(self, name, path=None, target=None):
        if name == "matplotlib" or name.startswith("matplotlib."):
            raise ImportError(f"No module named {name!r} (hidden by the test)")
sys.meta_path.insert(0, _Hidden())
from cardbatch.batch.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_plot_without_matplotlib_says_on_stderr_it_was_not_drawn(tmp_path):
    """--plot without matplotlib: the ranking is written (exit 0: the Parquet output is whole) and
    stderr says the figure was not drawn and how to get it, even with --quiet (the code of the
    session's start said nothing on stderr)."""
    out = tmp_path / "r.parquet"
    args = ["rank-decks", "--decks", "200", "--out", str(out), "--plot", "--quiet"]
    # a real process: matplotlib is hidden from the start (this process may have imported it already)
    res = subprocess.run([sys.executable, "-c", _NO_MATPLOTLIB, *args], capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr
    assert "--plot: the figure was not drawn" in res.stderr
    assert "pip install 'cardbatch[plots]'" in res.stderr
    assert pq.read_table(out).num_rows == 200
    assert not (tmp_path / "r.png").exists()
    probe = "import sys; exec(sys.argv[1].split('from cardbatch')[0]); import matplotlib"
    hidden = subprocess.run([sys.executable, "-c", probe, _NO_MATPLOTLIB], capture_output=True, text=True)
    assert hidden.returncode == 1 and "hidden by the test" in hidden.stderr  # the finder does hide it


def test_rank_decks_deals_omaha_hilo_and_short_deck(tmp_path):
    """Each seat's hole cards as the game deals them (four in Omaha hi/lo, two of the 36-card deck)."""
    for game in ("omaha_hilo", "shortdeck"):
        done = cli(
            "rank-decks",
            "--game",
            game,
            "--decks",
            "500",
            "--seats",
            "5",
            "--detail",
            "--out",
            str(tmp_path / f"{game}.parquet"),
            "--quiet",
        )
        assert done.returncode == 0, done.stderr
        t = pq.read_table(tmp_path / f"{game}.parquet")
        words = t.column("hands_text")[0].as_py().split()
        assert len(words) == 5 and {len(w) for w in words} == {2 * REGISTRY[game].hole_cards}
