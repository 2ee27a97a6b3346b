import dataclasses
import itertools

import numpy as np
import pytest
from conftest import all_combinations, random_hands

from cardbatch.kernels import cards, threecard

ALL3 = all_combinations(52, 3)


def seed_classic(hand):
    """The seed's classic value, written from its text (not from the kernel)."""
    nums = sorted(((c // 4) + 2 for c in hand), reverse=True)
    n1, n2, n3 = nums
    flush = len({c % 4 for c in hand}) == 1
    if n1 == n2 == n3:
        return n1 + 7867
    if n1 == n2:
        return n1 * 16 + n3 + 3803
    if n2 == n3:
        return n2 * 16 + n1 + 3803
    lowest = None
    if n1 - n2 == 1 and n2 - n3 == 1:
        lowest = n3
    if nums == [14, 3, 2]:
        lowest = 1
    high = n1 * 256 + n2 * 16 + n3
    if lowest is not None:
        return lowest + (7855 if flush else 4040)
    return high + 4052 if flush else high


def seed_suited(hand):
    """Classic * 64 + suit code of the cards in comparison order (SPEC §2.2)."""
    classic = seed_classic(hand)
    nums = sorted(((c // 4) + 2 for c in hand), reverse=True)
    if nums == [14, 3, 2]:
        key = lambda c: (1 if c // 4 == 12 else (c // 4) + 2, c % 4)  # noqa: E731 - A counts as 1
    else:
        key = lambda c: ((c // 4) + 2, c % 4)  # noqa: E731
    order = sorted(hand, key=key, reverse=True)
    counts = {n: nums.count(n) for n in nums}
    if sorted(counts.values()) == [1, 2]:
        pair = [c for c in order if counts[(c // 4) + 2] == 2]
        order = pair + [c for c in order if counts[(c // 4) + 2] == 1]
    s1, s2, s3 = (c % 4 for c in order)
    return classic * 64 + s1 * 16 + s2 * 4 + s3


def test_all_hands_classic_match_the_seed_formulas():
    got = threecard.evaluate(ALL3, "zjh")
    assert got.tolist() == [seed_classic(h) for h in ALL3.tolist()]
    assert len(np.unique(got)) == 741


def test_all_hands_suited_match_and_are_injective():
    got = threecard.evaluate(ALL3, "zjh_suited")
    assert got.tolist() == [seed_suited(h) for h in ALL3.tolist()]
    assert len(np.unique(got)) == 22100


def test_category_counts():
    cats = threecard.category_of(threecard.evaluate(ALL3))
    counts = np.bincount(cats, minlength=6)
    assert counts.tolist() == [16440, 3744, 720, 1096, 48, 52]


@pytest.mark.parametrize(
    "text,value",
    [
        ("AsKdJc", 3803),
        ("AsAdKc", 4040),
        ("As2d3c", 4041),
        ("AsKdQc", 4052),
        ("AsKsJs", 7855),
        ("As2s3s", 7856),
        ("AsKsQs", 7867),
        ("AsAdAc", 7881),
    ],
)
def test_seed_figures(text, value):
    assert threecard.evaluate(cards.parse([text])).tolist() == [value]


def test_seed_suited_figure():
    assert threecard.evaluate(cards.parse(["6h4d2d"]), "zjh_suited").tolist() == [102560]


def test_k_a_2_is_not_a_straight():
    v = threecard.evaluate(cards.parse(["KsAd2c"]))[0]
    assert threecard.category_of([v]).tolist() == [threecard.HIGH]


def value(text, rules):
    return int(threecard.evaluate(cards.parse([text]), rules)[0])


def test_teen_patti_a23_is_second_sequence():
    r = "teen_patti"
    assert value("AsKdQc", r) > value("As2d3c", r) > value("KsQdJc", r) > value("2s3d4c", r)
    assert value("AsKsQs", r) > value("As2s3s", r) > value("KsQsJs", r)
    # trail > pure sequence > sequence > color > pair > high card
    ladder = ["2s2d2c", "As2s3s", "AsKdQc", "AsKsJs", "AsAdKc", "AsKdJc"]
    vals = [value(t, r) for t in ladder]
    assert vals == sorted(vals, reverse=True)


def test_a23_option_on_zjh():
    r = threecard.Rules(a23="second")
    assert value("AsKdQc", r) > value("As2d3c", r) > value("KsQdJc", r)
    assert value("As2d3c", "zjh") < value("2s3d4c", "zjh")


def test_three_card_poker_order():
    r = "three_card_poker"
    ladder = ["2s3s4s", "2s2d2c", "2s3d4c", "AsKsJs", "AsAdKc", "AsKdJc"]
    vals = [value(t, r) for t in ladder]
    assert vals == sorted(vals, reverse=True)
    cats = threecard.category_of(threecard.evaluate(ALL3, r), r)
    assert np.bincount(cats, minlength=6).tolist() == [16440, 3744, 720, 1096, 48, 52]


@pytest.mark.parametrize("rules", ["zjh", "zjh_suited", "teen_patti", "three_card_poker"])
def test_order_consistent_with_categories(rules):
    vals = threecard.evaluate(ALL3, rules)
    cats = threecard.category_of(vals, rules)
    order = threecard.ORDERS[threecard.rules_of(rules).order]
    rank_of_cat = np.array([order.index(c) for c in range(6)])[cats]
    # a better category always has a larger value
    by_value = np.argsort(vals, kind="stable")
    assert (np.diff(rank_of_cat[by_value]) >= 0).all()


def test_rules_are_immutable_and_hashable():
    r = threecard.Rules(a23="second")
    assert hash(r) == hash(threecard.Rules(a23="second"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.a23 = "lowest"
    assert r.replace(suited=True).suited
    with pytest.raises(ValueError, match="unknown rule set"):
        threecard.evaluate(ALL3[:2], "poker")
    with pytest.raises(ValueError, match="a23"):
        threecard.Rules(a23="middle")


def test_any_card_order_gives_the_same_value(rng):
    hands = random_hands(rng, 5000, 3)
    base = threecard.evaluate(hands, "zjh_suited")
    for perm in itertools.permutations(range(3)):
        assert (threecard.evaluate(hands[:, list(perm)], "zjh_suited") == base).all()


@pytest.mark.parametrize(
    "rows,bad", [([[0, 1, 2], [0, 1, 52]], 1), ([[0, 1, 2], [5, 5, 6]], 1), ([[7, 8, 7]], 0), ([[0, 1, 255]], 0)]
)
def test_rejects_bad_cards_naming_the_row(rows, bad):
    with pytest.raises(ValueError, match=f"row {bad}"):
        threecard.evaluate(np.array(rows, np.uint8))


def test_rejects_bad_shapes():
    with pytest.raises(ValueError, match="shape"):
        threecard.evaluate(np.zeros((2, 4), np.uint8))
    with pytest.raises(ValueError, match="dtype"):
        threecard.evaluate(np.zeros((2, 3), float))
    with pytest.raises(ValueError, match="row 1"):
        threecard.category_of([3803, 3804])


def test_out_buffer_is_filled_and_checked(rng):
    hands = np.argsort(rng.random((1000, 52)), axis=1)[:, :3].astype(np.uint8)
    want = threecard.evaluate(hands, "zjh_suited")
    assert want.dtype == np.int32
    out = np.full(len(hands), -7, np.int32)
    assert threecard.evaluate(hands, "zjh_suited", out=out) is out and (out == want).all()
    for bad in (
        np.empty(len(hands), np.int64),
        np.empty(len(hands) - 1, np.int32),
        np.empty(2 * len(hands), np.int32)[::2],
    ):
        with pytest.raises(ValueError, match="out must be"):
            threecard.evaluate(hands, "zjh_suited", out=bad)


def test_describe():
    assert threecard.describe(7881) == "trips, A-A-A"
    assert threecard.describe(4041) == "straight, 3-2-A"
    assert threecard.describe(102560, "zjh_suited") == "high card, 6h 4d 2d"
    assert threecard.describe(value("AsKsQs", "teen_patti"), "teen_patti") == "pure sequence, A-K-Q"


def test_is_235():
    hands = cards.parse(["2s3d5c", "2s3s5s", "2s3d6c", "5h3h2d"])
    assert threecard.is_235(hands).tolist() == [True, False, False, True]


def test_winners_235():
    rules = threecard.Rules(beats_trips_235=True)
    hands = cards.parse(["AsAdAc", "2s3d5c", "KsQsJs", "2h3h5d"])
    vals = threecard.evaluate(hands, rules)
    spec = threecard.is_235(hands)
    # trips vs 2-3-5: the 2-3-5s win (tied on value)
    assert threecard.winners_235(vals[None], spec[None], rules).tolist() == [[False, True, False, True]]
    # no trips at the table: the straight flush wins as usual
    assert threecard.winners_235(vals[None, 1:], spec[None, 1:], rules).tolist() == [[False, True, False]]
    # rule off: trips win
    assert threecard.winners_235(vals[None], spec[None], "zjh").tolist() == [[True, False, False, False]]


@pytest.mark.parametrize("rules", ["zjh", "zjh_suited"])  # an int16 and an int32 table
def test_invalid_hands_are_exactly_those_with_a_code_above_51_or_a_card_twice(rules):
    """Every ordered triple of codes 0..63 (the table's whole index space) and codes up to 255."""
    rng = np.random.default_rng(3)
    grid = np.array(list(itertools.product(range(64), repeat=3)), np.uint8)
    wild = rng.integers(0, 256, (100_000, 3)).astype(np.uint8)
    for codes in (grid, wild):
        got = threecard.evaluate_seats(codes[:, None, :], np.ones((len(codes), 1), bool), rules)[:, 0]
        valid = (codes < 52).all(axis=1) & (codes[:, 0] != codes[:, 1]) & (codes[:, 1] != codes[:, 2])
        valid &= codes[:, 0] != codes[:, 2]
        assert ((got > 0) == valid).all()
        ok = np.flatnonzero(valid)
        sorted_cards = np.sort(codes[ok], axis=1)
        assert (got[ok] == threecard.evaluate(sorted_cards, rules)).all()
