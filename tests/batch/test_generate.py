"""`cardbatch generate`'s options through its command line: each does what it says for the game, or is
refused (exit 2) or said on stderr, never ignored in silence."""

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import cli

from cardbatch.batch.generate import generate_teams
from cardbatch.kernels import cards as kcards


def test_tamper_rate_alters_2v2_recorded_deltas_and_audit_finds_every_one(tmp_path):
    """The issue's row: `--game team2v2 --tamper-rate 0.5` said `"tampered": 0` and the audit found
    nothing. A 2v2 row records its deltas (`payout`), so one coin moves between two seats of some."""
    out = tmp_path / "t.parquet"
    res = cli(
        "generate",
        "--game",
        "team2v2",
        "--hands",
        "600",
        "--tamper-rate",
        "0.5",
        "--bad-rate",
        "0.05",
        "--out",
        str(out),
    )
    assert res.returncode == 0, res.stderr
    tampered = json.loads(res.stdout)["tampered"]
    assert 200 < tampered < 400
    audit = cli("audit", str(out), "--out", str(tmp_path / "a"), "-q")
    assert audit.returncode == 3, audit.stderr
    assert json.loads((tmp_path / "a" / "summary.json").read_text())["mismatches"] == tampered
    fair = generate_teams(600, 0, bad_rate=0.05)  # without tampering, the file is what it was
    assert fair.table.equals(generate_teams(600, 0, bad_rate=0.05, tamper_rate=0.0).table)
    moved = generate_teams(600, 0, bad_rate=0.05, tamper_rate=0.5)
    assert moved.table.drop_columns(["payout"]).equals(fair.table.drop_columns(["payout"]))
    changed = [
        i for i, (a, b) in enumerate(zip(fair.table["payout"].to_pylist(), moved.table["payout"].to_pylist())) if a != b
    ]
    assert changed == moved.tampered.tolist()
    for i in changed:  # one coin from one seat to another
        a, b = fair.table["payout"][i].as_py(), moved.table["payout"][i].as_py()
        assert sum(a) == sum(b) and sorted(x - y for x, y in zip(a, b)) == [-1, 0, 0, 1]


@pytest.mark.parametrize(
    ("option", "words"),
    [
        (("--streets",), "--streets: game team2v2 has no betting streets"),
        (("--text-cards",), "--text-cards: game team2v2 deals no cards"),
        (("--bias", "seat0=0.5"), "--bias: game team2v2 deals no cards"),
        (("--seats", "4"), "--seats: game team2v2 always seats 4"),
    ],
)
def test_an_option_that_does_nothing_for_2v2_games_is_refused(tmp_path, option, words):
    out = tmp_path / "t.parquet"
    res = cli("generate", "--game", "team2v2", "--hands", "50", *option, "--out", str(out))
    assert res.returncode == 2 and words in res.stderr and len(res.stderr.strip().splitlines()) == 1, res.stderr
    assert not out.exists()


def test_seats_above_what_a_deck_deals_is_said(tmp_path):
    res = cli("generate", "--game", "omaha6", "--hands", "300", "--seats", "9", "--out", str(tmp_path / "o.parquet"))
    assert res.returncode == 0
    said = [line for line in res.stderr.splitlines() if "--seats" in line]
    assert said == [
        "cardbatch generate: --seats 9: one omaha6 deck deals at most 7 seats (with its burn cards), "
        "so tables seat 2..7"
    ]
    seats = {len(f) for f in pq.read_table(tmp_path / "o.parquet").column("folded").to_pylist()}
    assert max(seats) <= 7
    quiet = cli("generate", "--game", "omaha6", "--hands", "30", "--out", str(tmp_path / "d.parquet"))
    assert quiet.returncode == 0 and "--seats" not in quiet.stderr  # the default says nothing
    # stud is dealt without burn cards (generate.md): the line does not say it has some
    stud = cli("generate", "--game", "stud", "--hands", "20", "--seats", "9", "--out", str(tmp_path / "s.parquet"))
    assert stud.returncode == 0 and "burn" not in stud.stderr
    assert "one stud deck deals at most 7 seats, so tables seat 2..7" in stud.stderr


def test_the_summary_shows_the_bias_used(tmp_path):
    res = cli(
        "generate",
        "--hands",
        "200",
        "--bias",
        "card=As:0.05",
        "--bias",
        "seat0=0.5",
        "--out",
        str(tmp_path / "b.parquet"),
    )
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["bias"] == ["card=As:0.05", "seat0=0.5"]
    fair = cli("generate", "--hands", "20", "--out", str(tmp_path / "f.parquet"))
    assert json.loads(fair.stdout)["bias"] == []


@pytest.mark.parametrize("game", ["holdem", "zjh", "team2v2"])
def test_start_id_starts_the_hand_ids_elsewhere(tmp_path, game):
    """Files of one settle run need distinct hand ids: `--start-id N` makes them N, N+1, ..."""
    out = tmp_path / "day2.parquet"
    res = cli(
        "generate", "--game", game, "--hands", "300", "--start-id", "5000", "--row-group", "128", "--out", str(out)
    )
    assert res.returncode == 0, res.stderr
    assert pq.read_table(out).column("hand_id").to_pylist() == list(range(5000, 5300))
    assert json.loads(res.stdout)["hand_ids"] == [5000, 5299]
    first = cli("generate", "--game", game, "--hands", "300", "--out", str(tmp_path / "day1.parquet"), "-q")
    assert first.returncode == 0
    assert pq.read_table(tmp_path / "day1.parquet").column("hand_id").to_pylist() == list(range(300))
    settled = cli("settle", str(tmp_path / "day1.parquet"), str(out), "--out", str(tmp_path / "s"), "-q")
    assert settled.returncode == 0, settled.stderr
    assert json.loads((tmp_path / "s" / "summary.json").read_text())["rows_read"] == 600


def test_start_id_is_a_whole_number_that_keeps_hand_ids_in_int64(tmp_path):
    out = str(tmp_path / "x.parquet")
    res = cli("generate", "--hands", "10", "--start-id", "-1", "--out", out)
    assert res.returncode == 2 and "--start-id" in res.stderr
    res = cli("generate", "--hands", "10", "--start-id", str(2**63 - 5), "--out", out)
    assert res.returncode == 2 and "--start-id" in res.stderr and "2**63 - 1" in res.stderr


def test_play_styles_deal_the_same_cards_and_decide_by_them(tmp_path):
    """`--play tight` keeps the deal (the same decks by hand id) and changes only the betting; the
    same seed writes the same file; the summary names the style."""
    files = {}
    for play in ("random", "tight", "tight"):
        out = tmp_path / f"{play}{len(files)}.parquet"
        res = cli("generate", "--hands", "3000", "--seed", "2", "--play", play, "--streets", "--out", str(out))
        assert res.returncode == 0, res.stderr
        assert json.loads(res.stdout)["play"] == play
        files[out.name] = pq.read_table(out)
    random, tight, again = files.values()
    assert tight.equals(again)
    assert tight.column("cards").equals(random.column("cards"))
    assert not tight.column("contrib_street").equals(random.column("contrib_street"))
    audit = cli("audit", str(tmp_path / "tight1.parquet"), "--out", str(tmp_path / "a"), "-q")
    assert audit.returncode == 0, audit.stderr  # every recorded payout is the settlement's


def test_hide_folded_writes_folded_hands_as_unknown_and_settle_takes_them(tmp_path):
    for text in ((), ("--text-cards",)):
        out = tmp_path / f"h{len(text)}.parquet"
        res = cli(
            "generate", "--hands", "2000", "--seed", "3", "--play", "loose", "--hide-folded", *text, "--out", str(out)
        )
        assert res.returncode == 0 and json.loads(res.stdout)["hide_folded"] is True, res.stderr
        t = pq.read_table(out)
        for cards, folded in zip(t.column("cards").to_pylist(), t.column("folded").to_pylist()):
            for seat, gone in enumerate(folded):
                hand = cards[seat] if text else cards[2 * seat : 2 * seat + 2]
                assert (hand in ("----", [255, 255])) == gone, (cards, folded)
        settled = cli("settle", str(out), "--out", str(tmp_path / f"s{len(text)}"), "-q")
        assert settled.returncode == 0, settled.stderr
        summary = json.loads((tmp_path / f"s{len(text)}" / "summary.json").read_text())
        assert summary["rows_rejected"] == 0


@pytest.mark.parametrize(
    "game, flag, said",
    [
        ("zjh", ("--play", "tight"), "--play tight: game zjh has no board"),
        ("team2v2", ("--play", "loose"), "--play loose: game team2v2 has no board"),
        ("team2v2", ("--hide-folded",), "--hide-folded: game team2v2 deals no cards"),
        ("holdem", ("--play", "fish"), "invalid choice: 'fish'"),
    ],
)
def test_a_style_a_game_cannot_play_is_refused(tmp_path, game, flag, said):
    res = cli("generate", "--game", game, "--hands", "10", *flag, "--out", str(tmp_path / "x.parquet"))
    assert res.returncode == 2 and said in res.stderr, res.stderr
    assert not (tmp_path / "x.parquet").exists()


def test_generate_writes_omaha_hilo_and_short_deck(tmp_path):
    for game in ("omaha_hilo", "shortdeck"):
        done = cli(
            "generate", "--game", game, "--hands", "500", "--out", str(tmp_path / f"g-{game}.parquet"), "--quiet"
        )
        assert done.returncode == 0, done.stderr
        g = pq.read_table(tmp_path / f"g-{game}.parquet")
        assert set(g.column("game").to_pylist()) == {game}
        held = (
            kcards.parse(g.column("cards")[0].as_py())
            if pa.types.is_string(g.schema.field("cards").type.value_type)
            else None
        )
        assert held is None or held.size
