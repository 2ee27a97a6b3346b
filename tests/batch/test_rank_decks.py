"""`cardbatch rank-decks` end to end through its command line, writing real Parquet."""

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import cli

from cardbatch.kernels import decks, ranking


def run(*args):
    return cli(*args)


def test_rank_decks_writes_every_deck(tmp_path):
    out = tmp_path / "r.parquet"
    res = run(
        "rank-decks", "--decks", "3000", "--players", "5", "--seed", "9", "--out", str(out), "--quiet", "--detail"
    )
    assert res.returncode == 0, res.stderr
    t = pq.read_table(out)
    assert t.num_rows == 3000
    direct = ranking.rank_zjh(3000, 5, 9)
    assert (np.stack(t.column("global_rank").to_numpy(zero_copy_only=False)) == direct.global_rank).all()
    hands = np.stack(t.column("hands").to_numpy(zero_copy_only=False))
    assert (hands.reshape(3000, 15) == decks.deal_decks(3000, 9)[:, decks.zjh_positions(5).reshape(-1)]).all()


def test_the_default_output_is_lean_and_agrees_with_the_detail(tmp_path):
    lean, full = tmp_path / "lean.parquet", tmp_path / "full.parquet"
    common = ("rank-decks", "--game", "holdem", "--decks", "2500", "--players", "9", "--seed", "5", "--quiet")
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
        "--players",
        "6",
        "--seed",
        "2",
        "--out",
        str(out),
        "--top",
        "7",
        "--by",
        "margin",
        "--quiet",
    )
    assert res.returncode == 0, res.stderr
    t = pq.read_table(out)
    direct = ranking.rank_holdem(4000, 6, 2)
    assert t.column("deck").to_pylist() == direct.top(7, "margin").tolist()


def test_rank_given_decks(tmp_path):
    d = decks.deal_decks(500, 4)
    src = tmp_path / "decks.parquet"
    pq.write_table(pa.table({"deck": pa.FixedSizeListArray.from_arrays(pa.array(d.reshape(-1)), 52)}), src)
    out = tmp_path / "given.parquet"
    res = run("rank-decks", "--in", str(src), "--players", "4", "--rules", "zjh_suited", "--out", str(out))
    assert res.returncode == 0, res.stderr
    t = pq.read_table(out)
    direct = ranking.rank_zjh(500, 4, 4, "zjh_suited")
    assert (np.stack(t.column("value").to_numpy(zero_copy_only=False)) == direct.values).all()


def test_rank_decks_bad_options(tmp_path):
    res = run("rank-decks", "--decks", "10", "--players", "30", "--out", str(tmp_path / "x.parquet"))
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
    args = ("rank-decks", "--game", "holdem", "--decks", "400", "--players", "4", "--seed", "3")
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
    assert run("rank-decks", "--decks", "300", "--players", "5", "--out", str(out), "--quiet").returncode == 0
    t = pq.read_table(out)
    for best, second, m in zip(*(t.column(c).to_pylist() for c in ("best", "second", "margin_classes"))):
        assert m == int(((every > second) & (every <= best)).sum())


def test_plot(tmp_path):
    """--plot draws OUT's .png (a real PNG, 1600 px wide), or says why not; the top table follows --by."""
    out = tmp_path / "r.parquet"
    res = run("rank-decks", "--decks", "5000", "--out", str(out), "--plot", "--top", "5", "--by", "margin", "-q")
    assert res.returncode == 0, res.stderr
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert not (tmp_path / "r.png").exists()
        return
    png = (tmp_path / "r.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert int.from_bytes(png[16:20], "big") == 1600
