import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from cardbatch.batch.settle.cardtext import BAD_TEXT, parse_column
from cardbatch.kernels import cards


def test_every_card_round_trips():
    codes = np.arange(52, dtype=np.uint8)
    texts = cards.format(codes[:, None])
    assert len(set(texts.tolist())) == 52
    assert (cards.parse(texts)[:, 0] == codes).all()


def test_code_layout_matches_spec():
    # rank * 4 + suit, suits d c h s, ranks 2..A
    assert cards.parse("2d").tolist() == [0]
    assert cards.parse("2c").tolist() == [1]
    assert cards.parse("2s").tolist() == [3]
    assert cards.parse("Ad").tolist() == [48]
    assert cards.parse("As").tolist() == [51]
    assert cards.parse("AsKd").tolist() == [51, 44]


@pytest.mark.parametrize("text", ["ASKD", "asKd", "A♠K♦", "A♠ K♦", "AsK♢"])
def test_alternative_spellings(text):
    assert cards.parse(text).tolist() == [51, 44]


def test_ten_spellings():
    assert cards.parse(["10h9c", "Th9c", "tH9C"]).tolist() == [[34, 29]] * 3


def test_no_card_marker():
    assert cards.parse("As--").tolist() == [51, 255]
    assert cards.format(np.array([51, 255], np.uint8)) == "As--"


def test_arrow_and_numpy_columns():
    col = pa.array(["AsKd", "2c3d"])
    expect = [[51, 44], [1, 4]]
    assert cards.parse(col).tolist() == expect
    assert cards.parse(pa.chunked_array([col])).tolist() == expect
    assert cards.parse(np.array(["AsKd", "2c3d"])).tolist() == expect
    assert cards.parse(col.dictionary_encode()).tolist() == expect
    assert cards.parse(col.slice(1)).tolist() == expect[1:]


def test_large_column_round_trip(rng):
    x = rng.integers(0, 52, (200_000, 3)).astype(np.uint8)
    assert (cards.parse(cards.format(x)) == x).all()


@pytest.mark.parametrize(
    "bad,row",
    [
        (["AsKd", "AsXd"], 1),
        (["AsKd", "1sKd"], 1),
        (["Zs"], 0),
        (["AsKd", "AsK"], 1),
        (["AsKd", "AsKdQh"], 1),
        (["As", ""], 1),
    ],
)
def test_rejects_bad_text_naming_the_row(bad, row):
    with pytest.raises(ValueError, match=f"row {row}"):
        cards.parse(bad)


def test_rejects_nulls_and_non_strings():
    with pytest.raises(ValueError, match="row 1 is null"):
        cards.parse(pa.array(["As", None]))
    with pytest.raises(ValueError):
        cards.parse(pa.array([1, 2]))
    with pytest.raises(ValueError):
        cards.parse(np.array([[1, 2]]))


def test_format_rejects_non_cards():
    with pytest.raises(ValueError, match="row 1"):
        cards.format(np.array([[1, 2], [52, 3]]))
    with pytest.raises(ValueError, match="row 0"):
        cards.format(np.array([[-1, 2]]))
    with pytest.raises(ValueError):
        cards.format(np.array([[0.5]]))


def test_seat_card_status_equals_the_flat_check(rng):
    T, S, k, B = 3000, 6, 2, 5
    pool = np.array(list(range(52)) + [52, 200, 255, 255, 255], np.uint8)  # some bad codes, some missing
    hole = rng.choice(pool, (T, S, k)).astype(np.uint8)
    board = rng.choice(pool, (T, B)).astype(np.uint8)
    need_seat = rng.random((T, S)) < 0.5
    need_board = rng.random(T) < 0.5
    flat = np.concatenate([hole.reshape(T, S * k), board], axis=1)
    required = np.concatenate([np.repeat(need_seat, k, axis=1), np.repeat(need_board[:, None], B, axis=1)], axis=1)
    got = cards.seat_card_status(hole, board, need_seat, need_board)
    assert (got == cards.card_status(flat, required)).all()
    assert len(set(got.tolist())) == 4  # every code occurs: the comparison has teeth
    no_board = cards.seat_card_status(hole, np.zeros((T, 0), np.uint8), need_seat, need_board)
    assert (no_board == cards.card_status(hole.reshape(T, S * k), np.repeat(need_seat, k, axis=1))).all()
    for t in range(300):  # and the flat check against the rule written out
        assert got[t] == _status_by_hand(flat[t].tolist(), required[t].tolist()), t


def _status_by_hand(row, required):
    seen, code = set(), 0
    for c, need in zip(row, required):
        if c == 255:
            code = code or (3 if need else 0)
        elif c > 51:
            return 1
        elif c in seen:
            code = code or 2
        else:
            seen.add(c)
    return code


# The rules of card text written out one string at a time: the reference both parsers are held to.
_SYMBOLS = {"♦": "D", "♣": "C", "♥": "H", "♠": "S", "♢": "D", "♧": "C", "♡": "H", "♤": "S"}


def _normalised(text: str) -> str:
    t = text.upper().replace("10", "T")
    for symbol, letter in _SYMBOLS.items():
        t = t.replace(symbol, letter)
    return t.replace(" ", "")


def _reference_parse(text: str) -> list[int] | None:
    t = _normalised(text)
    if not t or len(t) % 2:
        return None
    out = []
    for i in range(0, len(t), 2):
        r, s = t[i], t[i + 1]
        if r == "-" and s == "-":
            out.append(255)
        elif r in "23456789TJQKA" and s in "DCHS":
            out.append("23456789TJQKA".index(r) * 4 + "DCHS".index(s))
        else:
            return None
    return out


_PIECES = st.sampled_from(
    ["A", "a", "K", "t", "T", "10", "1", "0", "2", "9", "s", "S", "d", "h", "c", "♠", "♦", "♥", "♣", "♡", "-", " ", "x"]
)


@given(st.lists(st.lists(_PIECES, max_size=8).map("".join), min_size=1, max_size=6))
def test_parse_follows_the_written_rules(texts):
    """The numpy codec against the reference, row by row: the same codes, or an error naming the first
    row whose length is not the first row's whole number of cards, else the first with an unknown card."""
    expected = [_reference_parse(t) for t in texts]
    lengths = [len(_normalised(t)) for t in texts]
    bad_length = [i for i, n in enumerate(lengths) if n != lengths[0] or n % 2 or n == 0]
    first_bad = bad_length[0] if bad_length else next((i for i, e in enumerate(expected) if e is None), None)
    if first_bad is None:
        assert cards.parse(texts).tolist() == expected
    else:
        with pytest.raises(ValueError, match=f"row {first_bad} "):
            cards.parse(texts)


@given(st.lists(st.one_of(st.none(), st.lists(_PIECES, max_size=8).map("".join)), max_size=8), st.integers(1, 3))
def test_the_batch_column_reader_follows_the_same_rules(texts, k):
    """batch's Arrow reader never raises: a row the reference reads as k cards gets its codes, any
    other row (null, another count, an unknown card) is BAD_TEXT throughout."""
    got = parse_column(pa.array(texts, pa.string()), k).tolist()
    for text, row in zip(texts, got):
        want = _reference_parse(text) if text is not None else None
        assert row == (want if want is not None and len(want) == k else [BAD_TEXT] * k)


def test_an_embedded_nul_is_not_padding():
    with pytest.raises(ValueError, match="row 0"):
        cards.parse(["A\x00s"])


@given(st.lists(st.lists(_PIECES, max_size=12).map("".join), max_size=8))
def test_parse_each_follows_the_same_rules_without_raising(texts):
    """parse_each (strings of any lengths, never raising) against the reference, row by row: a row the
    reference reads gets its codes, then 255; any other is UNREADABLE in each of its half-length's
    positions; the count is half the normalised length, rounded down."""
    codes, counts = cards.parse_each(texts)
    assert codes.shape[0] == counts.shape[0] == len(texts)
    for text, row, count in zip(texts, codes.tolist(), counts.tolist()):
        n = len(_normalised(text)) // 2
        want = _reference_parse(text) if text else []
        assert count == n
        assert row == (want if want is not None else [cards.UNREADABLE] * n) + [255] * (codes.shape[1] - n)
