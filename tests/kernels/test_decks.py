import numpy as np
import pytest

from cardbatch.kernels import decks


def test_decks_are_permutations():
    d = decks.deal_decks(2000, 5)
    assert d.dtype == np.uint8 and d.shape == (2000, 52)
    assert (np.sort(d, axis=1) == np.arange(52)).all()


def test_card_by_position_is_uniform():
    n = 100_000
    d = decks.deal_decks(n, 20261129)
    counts = np.zeros((52, 52), np.int64)
    np.add.at(counts, (np.broadcast_to(np.arange(52), d.shape), d), 1)
    expected = n / 52
    chi2 = ((counts - expected) ** 2 / expected).sum()
    dof = 51 * 51
    # chi-square with 2601 degrees of freedom: mean 2601, sd sqrt(2*2601) = 72; 5 sd either side
    assert dof - 5 * 72 < chi2 < dof + 5 * 72
    # and no single cell is wildly off (binomial sd ~ 43)
    assert np.abs(counts - expected).max() < 6 * np.sqrt(expected)


def test_pairs_of_positions_are_independent():
    # the first two positions: each ordered pair of distinct cards equally likely
    n = 200_000
    d = decks.deal_decks(n, 99)[:, :2].astype(np.int64)
    counts = np.bincount(d[:, 0] * 52 + d[:, 1], minlength=52 * 52).reshape(52, 52)
    assert (np.diag(counts) == 0).all()
    off = counts[~np.eye(52, dtype=bool)]
    expected = n / (52 * 51)
    chi2 = ((off - expected) ** 2 / expected).sum()
    dof = 52 * 51 - 1
    assert chi2 < dof + 5 * np.sqrt(2 * dof)


def test_slices_are_independent_of_the_split():
    whole = decks.deal_decks(1000, 42)
    assert (decks.deal_decks(500, 42, start=500) == whole[500:]).all()
    parts = np.vstack([decks.deal_decks(7, 42, start=s) for s in range(0, 1000, 7)])[:1000]
    assert (parts == whole).all()


def test_seeds_differ():
    assert (decks.deal_decks(10, 1) != decks.deal_decks(10, 2)).any()
    assert (decks.deal_decks(10, 1) == decks.deal_decks(10, 1)).all()


def test_zjh_dealing_order():
    deck = np.arange(52, dtype=np.uint8)[None]
    hands = decks.deal_zjh(deck, 4)
    assert hands[0].tolist() == [[0, 4, 8], [1, 5, 9], [2, 6, 10], [3, 7, 11]]


def test_holdem_dealing_order_with_burns():
    deck = np.arange(52, dtype=np.uint8)[None]
    hole, board = decks.deal_holdem(deck, 3)
    assert hole[0].tolist() == [[0, 3], [1, 4], [2, 5]]
    assert board[0].tolist() == [7, 8, 9, 11, 13]
    hole, board = decks.deal_holdem(deck, 22)
    assert board[0].tolist() == [45, 46, 47, 49, 51]


def test_bad_input():
    with pytest.raises(ValueError, match="players"):
        decks.deal_zjh(decks.deal_decks(1, 0), 18)
    with pytest.raises(ValueError, match="players"):
        decks.deal_holdem(decks.deal_decks(1, 0), 23)
    bad = decks.deal_decks(3, 0)
    bad[2, 0] = bad[2, 1]
    with pytest.raises(ValueError, match="row 2"):
        decks.deal_zjh(bad, 3)
    with pytest.raises(ValueError, match="n must"):
        decks.deal_decks(-1, 0)
    with pytest.raises(ValueError, match="seed"):
        decks.deal_decks(1, -5)
