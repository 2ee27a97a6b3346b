"""The card-dependent behaviour model (`generate --play tight|loose`): Chen's scores as published,
made hands against the evaluator, and hands whose chips, folds and all-ins are as the model says."""

from __future__ import annotations

import numpy as np
import pytest

from cardbatch.kernels import holdem
from cardbatch.kernels.cards import parse
from cardbatch.kernels.play import chen, made, play, preflop_strength
from cardbatch.plays import PLAYS

# Bill Chen's scores as his formula's published examples give them
PUBLISHED = {"AsAh": 20, "KsKh": 16, "QsQh": 14, "JsJh": 12, "AsKs": 12, "AsKd": 10, "Ts9s": 8, "5s5h": 5}
PUBLISHED |= {"2s2h": 5, "7s2d": -1, "AsQd": 9, "KsQs": 10, "Jd9c": 6, "6s5s": 6}


def test_chen_scores_are_the_published_ones():
    for hand, score in PUBLISHED.items():
        a, b = parse([hand])[0]
        assert chen(a, b) == score == chen(b, a), hand


def test_a_hand_of_four_is_valued_by_its_best_two():
    assert preflop_strength(parse(["AsAh7c2d"])[0]) == 20
    assert preflop_strength(parse(["7c2d9h4s"])[0]) == max(chen(*parse([h])[0]) for h in ("7c9h", "9h4s", "7c4s"))


@pytest.mark.slow  # seconds in the fast loop: CI runs it
def test_made_hands_never_claim_more_than_the_evaluator_finds():
    """A straight or better (4) is one on the seven cards; a pair or better (2, 3) is one."""
    rng = np.random.default_rng(3)
    seen = set()
    for _ in range(3000):
        deck = rng.permutation(52).astype(np.uint8)
        hole, board = deck[:2], deck[2:7]
        m = int(made(hole, board, 5))
        seen.add(m)
        value = holdem.evaluate(np.concatenate([hole, board])[None])[0]
        category = int(holdem.category_of(np.array([value]))[0])
        if m == 4:
            assert category >= 4, (hole, board)  # 4: a straight, in the evaluator's order
        if m >= 2:
            assert category >= 1, (hole, board)
    assert seen == {0, 1, 2, 3, 4}, seen


def _play(name, n=20_000, S=6, seed=1):
    deck = np.array([np.random.default_rng([seed, i]).permutation(52)[: 2 * S + 5] for i in range(n)], np.uint8)
    hole = deck[:, : 2 * S].reshape(n, S, 2)
    board = deck[:, 2 * S :]
    seats = np.random.default_rng(seed).integers(2, S + 1, n)
    out = play(seed, 0, hole, board, seats, np.array(PLAYS[name].params), 4, 20)
    return hole, board, seats, out


@pytest.mark.parametrize("name", ["tight", "loose"])
def test_hands_keep_the_models_promises(name):
    hole, board, seats, (contrib, live, button, ended_at, stack) = _play(name)
    n, K, S = contrib.shape
    seat = np.arange(S)[None, :] < seats[:, None]
    total = contrib.sum(axis=1)
    assert (contrib >= 0).all() and (total <= stack).all() and (stack[~seat] == 0).all()
    assert (live.sum(axis=1) >= 1).all() and not (live & ~seat).any()
    assert ((button >= 0) & (button < seats)).all()
    top_live = np.where(live, total, -1).max(axis=1)
    assert (np.where(seat & ~live, total, 0).max(axis=1) <= top_live).all()  # a folded seat never out-bets them all
    one_left = live.sum(axis=1) == 1
    assert (ended_at[~one_left] == K).all() and (ended_at[one_left] <= K).all()
    a, b, _, again = _play(name)
    assert all((x == y).all() for x, y in zip(again, (contrib, live, button, ended_at, stack)))  # by seed


@pytest.mark.parametrize("name", ["tight", "loose"])
def test_the_players_decide_by_their_cards(name):
    """What the model is for: folded hands are weaker than the hands that stay (random folds would
    give both the same mean score)."""
    hole, _, seats, (_, live, *_) = _play(name)
    S = hole.shape[1]
    seat = np.arange(S)[None, :] < seats[:, None]
    score = np.array([[preflop_strength(h) for h in row] for row in hole])
    showdown = live.sum(axis=1) >= 2  # (a lone seat left stays whatever it holds)
    stayed, folded = score[live & showdown[:, None]], score[~live & seat]
    assert stayed.mean() > folded.mean() + 3, (stayed.mean(), folded.mean())
