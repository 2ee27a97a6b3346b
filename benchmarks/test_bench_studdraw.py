"""Evaluators of the games without a board (stud high, razz, stud hi/lo's eight-or-better low,
deuce-to-seven, five-card draw, badugi): hands a second, ours against pokerkit's hand types on one
thread each, same run, and against our own Hold'em seven-card rate (a row of every group, for
scale); ours on 1 and 2 threads in the scaling table.

pokerkit values a hand in pure Python (tens to hundreds of microseconds), so it runs on a sample of
the same hands (``PEER_N``); its rows call what a user of pokerkit would: ``from_game`` where the
best hand of more cards is wanted, the hand type itself where the cards are the hand.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

from cardbatch.kernels import badugi, cards, deuce7, holdem, razz, stud

N = int(os.environ.get("CARDBATCH_BENCH_N", 2_000_000))
PEER_N = max(50, min(500, N // 1000))  # 500 at the default scale, 50 in the smoke run

# group -> (cards a hand, our evaluator, pokerkit's hand type, how pokerkit is called)
GAMES = {
    "seven-card stud high, 7 cards": (7, stud.evaluate, "StandardHighHand", "from_game"),
    "razz, 7 cards": (7, razz.evaluate, "RegularLowHand", "from_game"),
    "stud hi/lo eight-or-better low, 7 cards": (7, razz.evaluate_low, "EightOrBetterLowHand", "from_game_or_none"),
    "deuce-to-seven, 5 cards": (5, deuce7.evaluate, "StandardLowHand", "hand"),
    "five-card draw high, 5 cards": (5, stud.evaluate, "StandardHighHand", "hand"),
    "badugi, 4 cards": (4, badugi.evaluate, "BadugiHand", "from_game"),
}


@pytest.fixture(scope="module")
def deals():
    rng = np.random.default_rng(47)
    base = np.argsort(rng.random((min(N, 1_000_000), 52)), axis=1)[:, :7].astype(np.uint8)
    return np.ascontiguousarray(np.resize(base, (N, 7)))


def _hands(deals: np.ndarray, k: int) -> np.ndarray:
    return np.ascontiguousarray(deals[:, :k])


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("group", list(GAMES))
def test_ours(benchmark, throughput, deals, group, threads):
    k, evaluate, _, _ = GAMES[group]
    hands = _hands(deals, k)
    evaluate(hands[:1000])
    throughput(
        benchmark,
        group if threads == 1 else None,
        f"cardbatch {evaluate.__module__.rsplit('.', 1)[1]}.{evaluate.__name__} ({threads} thread)",
        N,
        lambda: evaluate(hands),
        threads=threads,
        ours=True,
        scaling=group,
    )


@pytest.mark.parametrize("group", list(GAMES))
def test_holdem_for_scale(benchmark, throughput, deals, group):
    """Our Hold'em evaluator on seven cards of the same deals, in every group: what the game's
    evaluator costs against the fastest path cardbatch has."""
    hands = _hands(deals, 7)
    holdem.evaluate(hands[:1000])
    name = "cardbatch holdem.evaluate, 7 cards (for scale, 1 thread)"
    throughput(benchmark, group, name, N, lambda: holdem.evaluate(hands))


@pytest.mark.peer
@pytest.mark.parametrize("group", list(GAMES))
def test_peer_pokerkit(benchmark, throughput, deals, group):
    pokerkit = pytest.importorskip("pokerkit")
    k, evaluate, kind, call = GAMES[group]
    text = [str(t) for t in cards.format(_hands(deals, k)[:PEER_N])]
    hand_type = getattr(pokerkit, kind)
    fn = hand_type if call == "hand" else getattr(hand_type, call)
    # the same hands in the same order (pokerkit numbers a low hand's entries the best first, as our
    # values go; a high hand's the weakest first, as ours): checked, not timed
    ours = evaluate(_hands(deals, k)[:PEER_N]).astype(np.int64)
    theirs = [fn(t) for t in text]
    entry = np.array([-1 if h is None else h.entry.index for h in theirs])
    place = lambda v: np.unique(v, return_inverse=True)[1].ravel()
    assert ((entry < 0) == (ours == 0)).all() and (place(entry[entry >= 0]) == place(ours[ours > 0])).all()
    throughput(
        benchmark,
        group,
        f"pokerkit {kind}{'.' + call if call != 'hand' else ''} (1 thread)",
        len(text),
        lambda: [fn(t) for t in text],
    )
