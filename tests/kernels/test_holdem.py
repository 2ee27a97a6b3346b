import numpy as np
import pytest
from conftest import all_combinations, random_hands
from holdem_reference import best_score

from cardbatch.kernels import cards, holdem, holdem_tables

FIVE_CARD_COUNTS = {0: 1302540, 1: 1098240, 2: 123552, 3: 54912, 4: 10200, 5: 5108, 6: 3744, 7: 624, 8: 40}
SEVEN_CARD_COUNTS = [23294460, 58627800, 31433400, 6461620, 6180020, 4047644, 3473184, 224848, 41584]


@pytest.fixture(scope="module")
def all_five():
    hands = all_combinations(52, 5)
    assert len(hands) == 2598960
    return hands, holdem.evaluate(hands)


def test_all_five_card_hands(all_five):
    _, scores = all_five
    cats = holdem.category_of(scores)
    assert dict(zip(*np.unique(cats, return_counts=True))) == FIVE_CARD_COUNTS
    assert len(np.unique(scores)) == 7462
    dense = holdem.dense_rank(scores)
    assert set(np.unique(dense).tolist()) == set(range(1, 7463))
    # dense rank orders exactly as the score does (higher score = smaller rank)
    uniq = np.unique(scores)
    assert (np.diff(holdem.dense_rank(uniq).astype(int)) == -1).all()


def test_five_card_hands_match_reference(all_five, rng):
    hands, scores = all_five
    idx = rng.choice(len(hands), 20000, replace=False)
    assert [best_score(h) for h in hands[idx]] == scores[idx].tolist()


@pytest.mark.parametrize("k", [5, 6, 7])
def test_random_hands_match_best_of_subsets(rng, k):
    hands = random_hands(rng, 3000, k)
    assert holdem.evaluate(hands).tolist() == [best_score(h) for h in hands]


def test_rare_categories_match_reference(rng):
    # straight flushes, quads and wheels are rare in random deals: build them
    hands = []
    for top in range(3, 13):
        ranks = [12, 0, 1, 2, 3] if top == 3 else list(range(top - 4, top + 1))
        suit = int(rng.integers(4))
        rest = [c for c in range(52) if c not in [r * 4 + suit for r in ranks]]
        hands.append([r * 4 + suit for r in ranks] + list(rng.choice(rest, 2, replace=False)))
        quad = int(rng.integers(13))
        rest = [c for c in range(52) if c // 4 != quad]
        hands.append([quad * 4 + s for s in range(4)] + list(rng.choice(rest, 3, replace=False)))
    hands = np.array(hands, dtype=np.uint8)
    assert holdem.evaluate(hands).tolist() == [best_score(h) for h in hands]


@pytest.mark.parametrize("k", [5, 6, 7])
def test_against_phevaluator(rng, k):
    phe = pytest.importorskip("phevaluator")
    hands = random_hands(rng, 20000, k)
    texts = [[cards.format(np.array([c], np.uint8)) for c in h] for h in hands]
    theirs = np.array([phe.evaluate_cards(*t) for t in texts])
    assert (holdem.dense_rank(holdem.evaluate(hands)) == theirs).all()


@pytest.mark.slow
def test_all_seven_card_hands():
    hist = holdem.enumerate_seven()
    assert hist.sum() == 133784560
    assert (hist > 0).sum() == 4824
    cats = holdem.category_of(holdem.SCORE_OF_DENSE[1:]).astype(int)
    per_category = np.bincount(cats, weights=hist[1:], minlength=9).astype(np.int64)
    assert per_category.tolist() == SEVEN_CARD_COUNTS


@pytest.mark.slow  # 2.1 M seven-card hands enumerated and evaluated
def test_enumeration_agrees_with_evaluate_on_a_slice():
    # the seven-card hands with cards 0 and 1 lowest, evaluated row by row
    rest = all_combinations(50, 5) + np.uint8(2)
    hands = np.hstack([np.zeros((len(rest), 1), np.uint8), np.ones((len(rest), 1), np.uint8), rest])
    dense = holdem.dense_rank(holdem.evaluate(hands))
    expect = np.bincount(dense, minlength=7463)
    got = holdem.enumerate_seven(lowest=[(0, 1)])
    assert (got == expect).all()


@pytest.mark.parametrize(
    "text,name",
    [
        ("AsKsQsJsTs", "royal flush"),
        ("5h4h3h2hAh", "straight flush, five high"),
        ("9c9d9h9sAd", "four of a kind, nines, ace kicker"),
        ("QcQdQh4s4d", "full house, queens full of fours"),
        ("Ad Qd 9d 5d 2d", "flush, ace-queen-nine-five-two"),
        ("9c8d7h6s5d", "straight, nine high"),
        ("As2d3c4h5s", "straight, five high"),
        ("7c7d7hKs2d", "three of a kind, sevens, king-two kickers"),
        ("KcKd4h4sAd", "two pair, kings and fours, ace kicker"),
        ("JcJdAh9s4d", "pair of jacks, ace-nine-four kickers"),
        ("AcKd9h7s3d", "high card, ace-king-nine-seven-three"),
        ("KcKd4h4sAd2c2h", "two pair, kings and fours, ace kicker"),
    ],
)
def test_describe(text, name):
    assert holdem.describe(int(holdem.evaluate(cards.parse([text]))[0])) == name


def test_packed_layout():
    s = int(holdem.evaluate(cards.parse(["KcKd4h4sAd"]))[0])
    assert s == (2 << 20) | (11 << 16) | (2 << 12) | (12 << 8)
    wheel = int(holdem.evaluate(cards.parse(["As2d3c4h5s"]))[0])
    assert wheel == (4 << 20) | (3 << 16)


@pytest.mark.parametrize(
    "hand,row",
    [
        ([[0, 1, 2, 3, 4], [0, 1, 2, 3, 52]], 1),
        ([[0, 1, 2, 3, 4], [0, 1, 2, 3, 4], [9, 9, 2, 3, 4]], 2),
        ([[0, 1, 2, 3, 4, 255]], 0),
        ([[0, 1, 2, 3, 4, 5, 200]], 0),
        ([[0, 1, 2, 3, 4, 5, 116]], 0),
    ],
)
def test_rejects_bad_cards_naming_the_row(hand, row):
    with pytest.raises(ValueError, match=f"row {row}"):
        holdem.evaluate(np.array(hand, dtype=np.uint8))


def test_rejects_bad_shapes_and_types():
    with pytest.raises(ValueError, match="shape"):
        holdem.evaluate(np.zeros((3, 4), np.uint8))
    with pytest.raises(ValueError, match="shape"):
        holdem.evaluate(np.zeros(7, np.uint8))
    with pytest.raises(ValueError, match="dtype"):
        holdem.evaluate(np.zeros((3, 5), np.float64))
    with pytest.raises(ValueError, match="row 1"):
        holdem.evaluate(np.array([[0, 1, 2, 3, 4], [0, 1, 2, 3, -4]]))
    with pytest.raises(ValueError, match="row 0"):
        holdem.category_of(np.array([12345]))
    with pytest.raises(ValueError, match="row 1"):
        holdem.dense_rank(np.array([holdem.SCORE_OF_DENSE[1], 0xFFFFFFFF]))


def test_accepts_any_integer_array_like():
    as_list = [[51, 47, 43, 39, 35]]
    assert holdem.evaluate(as_list).tolist() == holdem.evaluate(np.array(as_list, np.int64)).tolist()
    view = np.zeros((4, 7), np.uint8)[::2, :5] + np.arange(5, dtype=np.uint8)
    assert holdem.evaluate(view).shape == (2,)


@pytest.mark.slow  # builds the tables from every hand
def test_shipped_tables_equal_a_fresh_build():
    fresh = holdem_tables.build()
    shipped = holdem_tables.load()
    assert fresh.keys() == shipped.keys()
    for name in fresh:
        assert np.array_equal(fresh[name], shipped[name]), name


def test_evaluate_seats_widths_agree(rng):
    T, S = 500, 6
    deck = np.argsort(rng.random((T, 52)), axis=1).astype(np.uint8)
    hole = deck[:, : 2 * S].reshape(T, S, 2)
    board = deck[:, 2 * S : 2 * S + 5]
    mask = rng.random((T, S)) < 0.7
    narrow = holdem.evaluate_seats(hole, board, mask)
    wide = holdem.evaluate_seats(hole, board, mask, dtype=np.int64)
    assert narrow.dtype == np.uint32 and wide.dtype == np.int64
    assert (wide == narrow).all() and (narrow[~mask] == 0).all() and (narrow[mask] > 0).all()
    with pytest.raises(ValueError, match="dtype"):
        holdem.evaluate_seats(hole, board, mask, dtype=np.float64)


def test_invalid_hands_are_exactly_those_with_a_code_above_51_or_a_card_twice(rng):
    """Validation by the card words' sum and OR, against the plain definition, over every code 0..255."""
    T = 200_000
    codes = np.where(rng.random((T, 7)) < 0.97, rng.integers(0, 52, (T, 7)), rng.integers(52, 256, (T, 7)))
    codes = codes.astype(np.uint8)
    hole, board = codes[:, :2].reshape(T, 1, 2), codes[:, 2:]
    got = holdem.evaluate_seats(hole, board, np.ones((T, 1), bool))[:, 0]
    distinct = np.array([len(set(r)) == 7 for r in codes.tolist()])
    valid = distinct & (codes < 52).all(axis=1)
    assert 0.3 < valid.mean() < 0.9  # both kinds are well represented
    assert ((got != 0) == valid).all()
    ok = np.flatnonzero(valid)[:20_000]
    assert (got[ok] == holdem.evaluate(codes[ok])).all()
