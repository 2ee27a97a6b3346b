"""The heads-up preflop table: every class present once, counts that add up, every class
walked again, and spots paid alike from the table and from a walk."""

from __future__ import annotations

import numpy as np
import pytest

from cardbatch.kernels import equity, headsup


@pytest.fixture(scope="module")
def table():
    keys, counts = headsup.load()
    if keys.size == 0:
        pytest.fail("kernels/headsup_table.npz is missing: python -m cardbatch.kernels.headsup writes it")
    return keys, counts


def test_every_class_once_and_every_board_counted(table):
    keys, counts = table
    want, _ = headsup.classes()
    assert keys.size == want.size == 47_008
    assert (keys == want).all()  # sorted, unique, the classes there are
    assert (counts.astype(np.int64).sum(axis=1) == headsup.BOARDS).all()


@pytest.mark.slow  # every preflop class walked over every board: 3 s
def test_every_class_walked_again(table):
    """The whole table as the walk by ranks gives it (seconds): it was first written by walking
    every board card by card, so this checks either walk against the other on all 812,175 matchups."""
    keys, counts = table
    _, cards = headsup.classes()
    assert (headsup.oriented(cards, headsup.walk_classes(cards)) == counts).all()


def test_renaming_suits_or_swapping_hands_keeps_the_class():
    rng = np.random.default_rng(2)
    for _ in range(200):
        a0, a1, b0, b1 = (int(c) for c in rng.choice(52, 4, replace=False))
        key, _ = headsup.class_of(a0, a1, b0, b1)
        perm = rng.permutation(4)
        renamed = [(c >> 2) * 4 + int(perm[c & 3]) for c in (a0, a1, b0, b1)]
        assert headsup.class_of(*renamed)[0] == key
        assert headsup.class_of(b0, b1, a0, a1)[0] == key


def test_spots_pay_alike_from_the_table_and_from_a_walk(table):
    rng = np.random.default_rng(3)
    T = 24  # about a quarter of matchups meet their class with the hands the other way round
    hole = np.array([rng.choice(52, 4, replace=False).reshape(2, 2) for _ in range(T)], np.uint8)
    chips = rng.integers(1, 50, (T, 2)) * 10  # side pots and odd chips too
    args = (chips, np.ones((T, 2), bool), hole, np.full((T, 5), 255), np.zeros(T), rng.integers(0, 2, T))
    tabled = equity.all_in_equity(*args)
    walked = equity.all_in_equity(*args, headsup=False, walk=equity.Walk(budget=2_000_000))  # every board
    assert tabled.exact.all() and walked.exact.all()
    assert tabled.ev_payout.tolist() == walked.ev_payout.tolist()
    assert np.allclose(tabled.payout_var, walked.payout_var)
