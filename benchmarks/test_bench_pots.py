"""Pot settlement throughput, one thread each: ours against a plain-Python layered settlement (the pot
step on scores given), and against pokerkit's pot step (each pot pushed to its best hands, evaluated
there) on the same hands; ours on 1 and 2 threads in the scaling table."""

from __future__ import annotations

import copy
import os
import sys
from pathlib import Path

import numpy as np
import pytest

from cardbatch.kernels import holdem, pots

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
import pots_reference as ref  # noqa: E402

T = int(os.environ.get("CARDBATCH_BENCH_TABLES", 2_000_000))


def tables(T, S=9, streets=1, seed=1):
    """Realistic-ish tables: everyone posts, some fold early, live seats go to a common level or all in."""
    rng = np.random.default_rng(seed)
    live = rng.random((T, S)) < 0.45
    live[:, 0] |= ~live.any(axis=1)
    stacks = rng.choice([50, 100, 200, 400, 1000], (T, S))
    per_street = np.zeros((T, streets, S), np.int64)
    for k in range(streets):
        bet = rng.choice([10, 20, 40, 80] if k == 0 else [0, 10, 20, 40, 80], T)[:, None]
        folded_part = np.where(live, 0, rng.choice([0, 0, 5, 10], (T, S)))
        per_street[:, k] = np.where(live, np.minimum(bet, stacks // streets), np.minimum(folded_part, bet))
    score = rng.integers(0, 7462, (T, S))
    button = rng.integers(0, S, T)
    return per_street, live, score, button


@pytest.fixture(scope="module")
def std_tables():
    c, live, score, button = tables(T)
    c = c[:, 0]
    ok = pots.validate(c, live, score, button) == 0
    assert ok.mean() > 0.99
    return c[ok], live[ok], score[ok], button[ok]


STANDARD = "settle standard, 9 seats"  # the pot step alone, on scores given: one thread each


@pytest.mark.parametrize("threads", [1, 2])
def test_standard_9_seats(benchmark, throughput, std_tables, threads):
    c, live, score, button = std_tables
    pots.settle(c[:100], live[:100], score[:100], button[:100])
    throughput(
        benchmark,
        STANDARD if threads == 1 else None,
        f"cardbatch settle ({threads} thread)",
        len(c),
        lambda: pots.settle(c, live, score, button),
        threads=threads,
        ours=True,
        unit="tables",
        scaling="pots.settle, standard, 9 seats",
    )


@pytest.mark.parametrize("threads", [1, 2])
def test_standard_9_seats_reused_out(benchmark, throughput, std_tables, threads):
    c, live, score, button = std_tables
    out = np.empty(c.shape, np.int64)
    pots.settle(c, live, score, button, out=out)
    throughput(
        benchmark,
        STANDARD if threads == 1 else None,
        f"cardbatch settle, reused out= ({threads} thread)",
        len(c),
        lambda: pots.settle(c, live, score, button, out=out),
        threads=threads,
        unit="tables",
        scaling="pots.settle, standard, 9 seats, reused out=",
    )


@pytest.mark.peer
def test_standard_python_reference(benchmark, throughput, std_tables):
    c, live, score, button = (a[:20000] for a in std_tables)
    rows = [(c[t].tolist(), live[t].tolist(), score[t].tolist(), int(button[t])) for t in range(len(c))]
    throughput(
        benchmark,
        STANDARD,
        "plain Python layered settlement (1 thread)",
        len(rows),
        lambda: [ref.standard(*r) for r in rows],
        unit="tables",
    )


# pokerkit settles a hand inside its game state: it pushes each pot's chips to the best hands among
# the pot's contenders, which it evaluates there. The like-for-like pair is that step alone against
# ours doing the same from the same hands: the contributions, hole cards and board pokerkit holds
# at the showdown, evaluated (``holdem.evaluate_seats``) and settled (``pots.settle``). The hands
# are played once, untimed; every round settles fresh copies of the states (copied untimed), and
# both sides' payouts are checked equal first. Both on one thread, the same rounds and warm-up.
SHOWDOWN = "showdown payouts of pokerkit hands, 9 seats (evaluate + settle)"
SHOWDOWN_HANDS = min(200, max(20, T // 1000))


@pytest.fixture(scope="module")
def showdowns():
    """``SHOWDOWN_HANDS`` 9-seat no-limit hands played in pokerkit to the chips' push (every board
    card dealt, two or more contenders), and the same hands as our arrays."""
    pokerkit = pytest.importorskip("pokerkit")
    from cardbatch.kernels import cards

    auto = (  # pokerkit does every step but the betting and the chips' push (the oracle test's automation)
        pokerkit.Automation.ANTE_POSTING,
        pokerkit.Automation.BET_COLLECTION,
        pokerkit.Automation.BLIND_OR_STRADDLE_POSTING,
        pokerkit.Automation.CARD_BURNING,
        pokerkit.Automation.HOLE_DEALING,
        pokerkit.Automation.BOARD_DEALING,
        pokerkit.Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
        pokerkit.Automation.HAND_KILLING,
    )

    def card_text(card) -> str:
        return f"{card.rank.value}{card.suit.value}"

    rng = np.random.default_rng(2)
    states, contrib, contenders, hole, board = [], [], [], [], []
    while len(states) < SHOWDOWN_HANDS:
        stacks = [int(x) for x in rng.choice([7, 40, 41, 100, 133, 250, 1000], 9)]
        st = pokerkit.NoLimitTexasHoldem.create_state(auto, True, 0, (1, 2), 2, tuple(stacks), 9)
        while st.actor_index is not None:  # the random play of pokerkit's oracle test of pots
            u = rng.random()
            if u < 0.15 and st.can_fold():
                st.fold()
            elif u < 0.45 and st.can_complete_bet_or_raise_to():
                lo, hi = st.min_completion_betting_or_raising_to_amount, st.max_completion_betting_or_raising_to_amount
                st.complete_bet_or_raise_to(hi if rng.random() < 0.4 else int(rng.integers(lo, hi + 1)))
            else:
                st.check_or_call()
        shown = "".join(card_text(c) for row in st.board_cards for c in row)
        if len(shown) < 10 or sum(st.statuses) < 2 or not st.can_push_chips():
            continue
        live = list(st.statuses)  # after pokerkit killed the hands that cannot win (see that test)
        states.append(st)
        contrib.append([a - b for a, b in zip(stacks, st.stacks)])
        contenders.append(live)
        board.append(cards.parse([shown])[0])
        hole.append(
            [cards.parse(["".join(card_text(c) for c in st.hole_cards[p])])[0] if live[p] else [0, 1] for p in range(9)]
        )
    return (
        states,
        np.array(contrib, np.int64),
        np.array(contenders, bool),
        np.ascontiguousarray(np.array(hole, np.uint8)),
        np.ascontiguousarray(np.array(board, np.uint8)),
    )


def _pokerkit_push(states) -> list[list[int]]:
    """pokerkit's pot step: push every pot to its winners, pull the chips to the stacks; the payouts."""
    payouts = []
    for st in states:
        before = list(st.stacks)
        while st.can_push_chips():
            st.push_chips()
        while st.can_pull_chips():
            st.pull_chips()
        payouts.append([a - b for a, b in zip(st.stacks, before)])
    return payouts


def _ours(contrib, contenders, hole, board) -> np.ndarray:
    score = holdem.evaluate_seats(hole, board, contenders)
    return pots.settle(contrib, contenders, score, 8, odd_chips="first_winner")  # pokerkit's button: the last seat


@pytest.mark.parametrize("who", ["ours", "pokerkit"])
def test_showdown_payouts_against_pokerkit(benchmark, throughput, showdowns, who):
    states, *arrays = showdowns
    assert _ours(*arrays).tolist() == _pokerkit_push(copy.deepcopy(states))
    if who == "ours":
        throughput(
            benchmark,
            SHOWDOWN,
            "cardbatch evaluate_seats + settle (1 thread)",
            len(states),
            lambda: _ours(*arrays),
            ours=True,
            unit="hands",
        )
    else:
        throughput(
            benchmark,
            SHOWDOWN,
            "pokerkit 0.7 push_chips + pull_chips (1 thread)",
            len(states),
            _pokerkit_push,
            unit="hands",
            setup=lambda: ((copy.deepcopy(states),), {}),  # (args, kwargs), as pytest-benchmark takes it
        )


@pytest.fixture(scope="module")
def street_tables():
    made = {}

    def get(policy):
        if policy not in made:
            c, live, score, button = tables(T // 2, streets=4, seed=3)
            ok = pots.validate(c, live, score, button, policy) == 0
            made[policy] = c[ok], live[ok], score[ok], button[ok]
        return made[policy]

    return get


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("policy", ["presence", "ratio_rank", "hybrid"])
def test_street_policies_4x9(benchmark, throughput, street_tables, policy, threads):
    c, live, score, button = street_tables(policy)
    pots.settle(c[:100], live[:100], score[:100], button[:100], policy)
    throughput(
        benchmark,
        f"settle {policy}, 4 streets x 9 seats" if threads == 1 else None,
        f"cardbatch settle ({threads} thread)",
        len(c),
        lambda: pots.settle(c, live, score, button, policy),
        threads=threads,
        ours=True,
        unit="tables",
        scaling=f"pots.settle, {policy}, 4 streets x 9 seats",
    )
