"""The walks by ranks (kernels/boardwalk.py: five cards to come, and up to two) against dealing
every completion card by card and valuing it with the evaluator: the same count for every order
of the seats, in Hold'em and the short deck, with flush-heavy spots (suited hands, two- and
three-suited boards) drawn on purpose."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from cardbatch.kernels import boardwalk, holdem, shortdeck


def _walk(
    hole: np.ndarray, board: list[int], lowest: int, tables: tuple[np.ndarray, ...], few: bool = False
) -> np.ndarray:
    n = len(hole)
    rest = np.array([c for c in range(lowest, 52) if c not in set(hole.ravel()) | set(board)], np.int64)
    seat_rank = np.zeros(n, np.uint64)
    seat_suit = np.zeros((n, 4), np.int64)
    seat_lane = np.zeros((n, 4), np.uint64)
    for i in range(n):
        for card in [*hole[i], *board]:
            boardwalk.add_card(i, int(card), seat_rank, seat_suit, seat_lane)
    counts = np.zeros(n**n, np.int64)
    displace7, values7, _, _, flush_values, _, _ = tables
    if board:  # up to two cards to come: the walk that keeps each rank pair's values
        boardwalk.walk_few(
            5 - len(board),
            rest,
            rest.size,
            n,
            seat_rank,
            seat_suit,
            seat_lane,
            displace7,
            values7,
            flush_values,
            counts,
            *(np.empty(13, np.int64) for _ in range(3)),
            np.empty(6, np.int64),
            np.empty(6, np.int64),
            np.empty((169, n), np.int64),
            np.empty(n, np.int64),
            np.empty(n, np.int64),
        )
        return counts
    assert len(board) == 0, "the five-card walk is the preflop's"
    boardwalk.walk_five(
        rest,
        rest.size,
        n,
        seat_rank,
        seat_suit,
        seat_lane,
        displace7,
        values7,
        flush_values,
        counts,
        np.empty(boardwalk.MULTISETS, np.uint64),
        np.empty(boardwalk.MULTISETS, np.int64),
        np.empty(boardwalk.MULTISETS, np.int64),
        np.empty((boardwalk.MULTISETS, n), np.uint32),
        *(np.empty(13, np.int64) for _ in range(2)),
        np.empty(6, np.int64),
        np.empty(6, np.int64),
        np.empty(6, np.uint64),
        np.empty(6, np.int64),
        np.empty(13, np.int64),
        np.empty(6, np.int64),
        np.empty(6, np.int64),
        np.empty(n, np.int64),
        np.empty(n, np.int64),
    )
    return counts


def _dealt(hole: np.ndarray, board: list[int], lowest: int, evaluate) -> np.ndarray:
    """Every completion dealt and valued by the evaluator, counted at its order."""
    n = len(hole)
    rest = [c for c in range(lowest, 52) if c not in set(hole.ravel()) | set(board)]
    boards = np.array([board + list(more) for more in itertools.combinations(rest, 5 - len(board))], np.uint8)
    if boards.size == 0:
        boards = np.zeros((1, 5), np.uint8)
    values = np.stack(
        [evaluate(np.concatenate([np.broadcast_to(h, (len(boards), 2)), boards], axis=1)) for h in hole], axis=1
    ).astype(np.int64)
    above = (values[:, None, :] > values[:, :, None]).sum(axis=2)  # seats above each seat
    index = (above * (n ** np.arange(n))).sum(axis=1)
    return np.bincount(index, minlength=n**n)


def _spot(rng: np.random.Generator, n: int, known: int, lowest: int, flushy: bool) -> tuple[np.ndarray, list[int]]:
    deck = rng.permutation(np.arange(lowest, 52))
    if flushy:  # most cards of one or two suits: suited hands, flush draws, flushes made
        suits = rng.choice(4, 2, replace=False)
        deck = np.array(sorted(deck, key=lambda c: (c & 3) not in suits and rng.random() < 0.8))
        head = deck[: 2 * n + known].copy()
        rng.shuffle(head)
        deck[: 2 * n + known] = head
    return deck[: 2 * n].reshape(n, 2), [int(c) for c in deck[2 * n : 2 * n + known]]


@pytest.mark.parametrize("deck", ["holdem", "shortdeck"])
@pytest.mark.parametrize("known", [5, 4, 3])
def test_walk_by_ranks_counts_as_dealing_every_card(deck, known):
    lowest = 0 if deck == "holdem" else 16
    tables = holdem.SCORE_TABLES if deck == "holdem" else shortdeck.SCORE_TABLES[False]
    evaluate = holdem.evaluate if deck == "holdem" else lambda c: shortdeck.evaluate(c, False)
    rng = np.random.default_rng(known)
    for case in range(60):
        n = 2 + case % 5
        hole, board = _spot(rng, n, known, lowest, flushy=case % 2 == 0)
        assert (_walk(hole, board, lowest, tables) == _dealt(hole, board, lowest, evaluate)).all(), (hole, board)


@pytest.mark.slow  # every board dealt card by card: 2.5 s
def test_short_deck_preflop_walk_counts_as_dealing_every_board():
    """Five cards to come (the walk that keeps every rank multiset's values for the flush pass):
    the short deck's 32 or fewer cards left keep dealing every board quick."""
    rng = np.random.default_rng(9)
    tables, evaluate = shortdeck.SCORE_TABLES[False], lambda c: shortdeck.evaluate(c, False)
    for case in range(8):
        hole, board = _spot(rng, 2 + case % 4, 0, 16, flushy=case % 2 == 0)
        assert (_walk(hole, board, 16, tables) == _dealt(hole, board, 16, evaluate)).all(), hole


@pytest.mark.slow
@pytest.mark.parametrize("n", [2, 3, 4])
def test_preflop_walk_by_ranks_counts_as_dealing_every_card(n):
    rng = np.random.default_rng(10 + n)
    for case in range(3):
        hole, board = _spot(rng, n, 0, 0, flushy=case > 0)
        assert (_walk(hole, board, 0, holdem.SCORE_TABLES) == _dealt(hole, board, 0, holdem.evaluate)).all()


def test_multisets_are_weighted_by_the_card_sets_that_deal_them():
    rng = np.random.default_rng(5)
    keys = np.empty(boardwalk.MULTISETS, np.uint64)
    weights = np.empty(boardwalk.MULTISETS, np.int64)
    rows = np.empty(boardwalk.MULTISETS, np.int64)
    scratch = (np.empty(6, np.int64), np.empty(6, np.int64), np.empty(6, np.uint64), np.empty(6, np.int64))
    for _ in range(30):
        avail = rng.integers(0, 5, 13)
        for k in range(6):
            found = boardwalk.multisets(k, avail, keys, weights, rows, *scratch)
            assert weights[:found].sum() == math.comb(int(avail.sum()), k)
            assert np.unique(keys[:found]).size == found
            for key, at in zip(keys[:found], rows[:found]):  # each multiset's row, from its ranks
                ranks = np.repeat(np.arange(13), [(int(key) >> (3 * r)) & 7 for r in range(13)])
                assert at == boardwalk.row(ranks, k) < math.comb(12 + k, k)
