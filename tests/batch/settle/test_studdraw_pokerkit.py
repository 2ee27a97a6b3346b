"""pokerkit as the oracle of the pots of stud, razz and the draw games: random hands played in
pokerkit's own state machines (its seven-card stud, stud hi/lo, razz, deuce-to-seven single and
triple draw and badugi games, and a five-card draw made of its ``SingleDraw`` and
``StandardHighHand``, which pokerkit does not ship), all-in or checked down, then settled again by
``settle_table`` as an audit of pokerkit's payouts: every row must settle, with no mismatch.

The conventions are test_pots_pokerkit.py's: a seat's contribution is its starting stack less its
stack before the pots are pushed (pokerkit returns an uncalled bet as it collects it); the seats
pokerkit still holds after killing the hands that cannot win are the live ones (it forms its pots
after the kill); a split's odd chips all go to the first winner in pokerkit's seat order, which is
``odd_chips="first_winner"`` from seat 0: stud and razz rows carry no ``button`` (odd chips then go
from seat 0), the draw games' the last seat (pokerkit's button, after its blinds). A seat's cards
are the ones it shows (stud: the seven it was dealt; a draw game: the hand it ended with); a
folded or killed seat's are unknown (255).

Stud hi/lo: pokerkit forms a low half in every pot as soon as a live hand at the table has a low
(test_pots_hilo.py); a table with a pot none of whose contenders has a low is compared with the
reference in pokerkit's conventions instead, and counted.
"""

from __future__ import annotations

import os
import random

import numpy as np
import pyarrow as pa
import pytest
from games_reference import settle_hilo
from pots_reference import layers

from cardbatch.batch.settle.by_game import settle_table
from cardbatch.batch.settle.options import SettleOptions
from cardbatch.games import game as game_spec
from cardbatch.kernels import cards, razz, stud

pokerkit = pytest.importorskip("pokerkit")
pytestmark = pytest.mark.slow  # 7,000 hands played by pokerkit: about 20 s
# of each game (pokerkit plays 200 to 400 of these hands a second); more by the environment, e.g.
# CARDBATCH_POKERKIT_HANDS=5000 for 35,000 showdowns
HANDS = int(os.environ.get("CARDBATCH_POKERKIT_HANDS", 1000))

A = pokerkit.Automation
AUTO = (
    A.ANTE_POSTING,
    A.BET_COLLECTION,
    A.BLIND_OR_STRADDLE_POSTING,
    A.CARD_BURNING,
    A.BOARD_DEALING,
    A.RUNOUT_COUNT_SELECTION,
)
HAND_TYPES = (
    pokerkit.StandardHighHand,
    pokerkit.EightOrBetterLowHand,
    pokerkit.RegularLowHand,
    pokerkit.StandardLowHand,
    pokerkit.BadugiHand,
)


class FiveCardDraw(pokerkit.NoLimitPokerMixin, pokerkit.SingleDraw):
    """No-limit five-card draw, high: pokerkit's single draw with its standard high hands."""

    deck = pokerkit.Deck.STANDARD
    hand_types = (pokerkit.StandardHighHand,)
    hole_dealing_count = 5
    max_completion_betting_or_raising_count = None


def _create(game: str, stacks: tuple[int, ...]):
    """A pokerkit state of ``game`` (ours) for ``stacks``: small stakes against the stacks, so that
    some seats are all-in and others check down."""
    n = len(stacks)
    if game in ("stud", "stud_hilo", "razz"):
        kind = {
            "stud": pokerkit.FixedLimitSevenCardStud,
            "stud_hilo": pokerkit.FixedLimitSevenCardStudHighLowSplitEightOrBetter,
            "razz": pokerkit.FixedLimitRazz,
        }[game]
        return kind.create_state(AUTO, True, 1, 2, 4, 8, stacks, n)  # antes 1, bring-in 2, bets 4 and 8
    if game == "draw27_single":
        return pokerkit.NoLimitDeuceToSevenLowballSingleDraw.create_state(AUTO, True, 0, (1, 2), 2, stacks, n)
    if game == "draw5":
        return FiveCardDraw(AUTO, True, 0, (1, 2), 2)(stacks, n)
    kind = pokerkit.FixedLimitBadugi if game == "badugi" else pokerkit.FixedLimitDeuceToSevenLowballTripleDraw
    return kind.create_state(AUTO, True, 0, (1, 2), 2, 4, stacks, n)


LOW_RANKS = {12, 0, 1, 2, 3, 4}  # ace, two .. six
CODE = {text: code for code, text in enumerate(cards.format(np.arange(52, dtype=np.uint8)[:, None]).tolist())}


def _code(card) -> int:
    return CODE[f"{card.rank.value}{card.suit.value}"]


def play(game: str, rng: np.random.Generator):
    """One hand of ``game`` in pokerkit: 2 to 6 seats (7 in stud) with random stacks; each decision
    folds now and then, raises often, else checks or calls; a draw discards up to three cards. Half
    the decks deal the aces to sixes first (lows, and tied hands).
    Every seat at the showdown shows its cards; pokerkit then kills the hands that cannot win.
    Returns contrib, pokerkit's contenders after the kill, each seat's cards (None where not shown),
    pokerkit's payouts and the seats that reached the showdown."""
    n = int(rng.integers(2, 8 if game_spec(game).hole_cards == 7 else 7))
    stacks = tuple(int(x) for x in rng.choice([3, 5, 8, 9, 13, 20, 21, 40, 55, 100, 160, 400, 400], n))
    state = _create(game, stacks)
    if rng.random() < 0.5:  # aces to sixes first, in a random order: many lows, and ties
        order = sorted(state.deck_cards, key=lambda c: (_code(c) // 4 not in LOW_RANKS, rng.random()))
        state.deck_cards.clear()
        state.deck_cards.extend(order)
    showdown = None  # the seats at the showdown, before pokerkit kills any
    while not state.can_push_chips():
        if state.can_deal_hole():  # from the top of the deck, reordered or not
            state.deal_hole()
        elif state.can_show_or_muck_hole_cards():
            state.show_or_muck_hole_cards(True)
        elif state.can_kill_hand():
            if showdown is None:
                showdown, held = list(state.statuses), [list(h) for h in state.hole_cards]
            state.kill_hand()
        elif state.can_post_bring_in():
            if rng.random() < 0.7 or not state.can_complete_bet_or_raise_to():
                state.post_bring_in()
            else:
                state.complete_bet_or_raise_to()
        elif state.can_stand_pat_or_discard():
            hole = state.hole_cards[state.stand_patter_or_discarder_index]
            state.stand_pat_or_discard(hole[: int(rng.integers(0, 4))])
        else:
            u = rng.random()
            if u < 0.05 and state.can_fold():
                state.fold()
            elif u < 0.35 and state.can_complete_bet_or_raise_to():
                lo = state.min_completion_betting_or_raising_to_amount
                hi = state.max_completion_betting_or_raising_to_amount
                state.complete_bet_or_raise_to(hi if rng.random() < 0.5 else int(rng.integers(lo, hi + 1)))
            else:
                state.check_or_call()
    before = list(state.stacks)
    contenders = list(state.statuses)
    if showdown is None:  # no hand killed
        showdown, held = contenders, [list(h) for h in state.hole_cards]
    shown = [[_code(c) for c in held[p]] if showdown[p] and sum(showdown) > 1 else None for p in range(n)]
    while state.can_push_chips():
        state.push_chips()
    while state.can_pull_chips():
        state.pull_chips()
    contrib = [s - b for s, b in zip(stacks, before)]
    payout = [f - b for f, b in zip(state.stacks, before)]
    return contrib, contenders, shown, payout, showdown


@pytest.fixture
def pokerkit_hands(monkeypatch):
    """pokerkit values a seat's cards again and again in one hand (who opens each street, who can
    still win): each cards' hand and its entry are remembered, pokerkit's own values; and its deck
    is shuffled from a seeded stream (the test the same at every run)."""
    for cls in HAND_TYPES:
        memo: dict = {}

        def from_game(hole_cards, board_cards=(), _original=cls.from_game, _memo=memo):
            key = (tuple(pokerkit.Card.clean(hole_cards)), tuple(pokerkit.Card.clean(board_cards)))
            if key not in _memo:
                try:
                    _memo[key] = (_original(*key), None)
                except ValueError as exc:  # no such hand (no low): pokerkit's answer is the error
                    _memo[key] = (None, exc)
            hand, exc = _memo[key]
            if exc is not None:
                raise exc
            return hand

        monkeypatch.setattr(cls, "from_game", staticmethod(from_game))
    entries: dict = {}  # and each hand's entry in its lookup, which pokerkit finds again at every comparison

    def entry(self, _original=pokerkit.Hand.entry.fget):
        key = (type(self), self.cards)
        if key not in entries:
            entries[key] = _original(self)
        return entries[key]

    monkeypatch.setattr(pokerkit.Hand, "entry", property(entry))
    saved = random.getstate()
    random.seed(47)
    yield
    random.setstate(saved)


def table_of(game: str, hands) -> pa.Table:
    """The hands as a file of ``game`` (the settle format), pokerkit's payouts recorded."""
    per = game_spec(game).hole_cards
    cols = {
        "hand_id": pa.array(np.arange(len(hands), dtype=np.int64)),
        "game": pa.array([game] * len(hands)),
        "cards": pa.array(
            [[c for s in shown for c in (s if s is not None else [255] * per)] for _, _, shown, _, _ in hands],
            pa.list_(pa.uint8()),
        ),
        "contrib": pa.array([h[0] for h in hands], pa.list_(pa.int64())),
        "folded": pa.array([[not x for x in h[1]] for h in hands], pa.list_(pa.bool_())),
        "payout": pa.array([h[3] for h in hands], pa.list_(pa.int64())),
    }
    if game_spec(game).button:  # pokerkit's button is its last seat
        cols["button"] = pa.array([len(h[0]) - 1 for h in hands], pa.int8())
    return pa.table(cols)


def facts(hands, results: pa.Table) -> dict[str, int]:
    """What the sample exercises: showdowns (before the kill), several pots among the contenders,
    showdowns of three seats or more, showdowns where every seat put in as much (checked down or
    called down, nobody short), and contenders whose hands (or lows) tie (the results' values)."""
    out = {"showdowns": 0, "side pots": 0, "multiway": 0, "checked down": 0, "ties": 0}
    scores = results.column("score").to_pylist()
    lows = results.column("low").to_pylist() if "low" in results.column_names else [[0] * len(s) for s in scores]
    for (contrib, live, _, _, showdown), score, low in zip(hands, scores, lows):
        if sum(showdown) < 2:
            continue
        out["showdowns"] += 1
        out["side pots"] += sum(p["kind"] == "normal" for p in layers(contrib, live)) > 1
        out["multiway"] += sum(showdown) > 2
        out["checked down"] += len({c for c, sd in zip(contrib, showdown) if sd}) == 1
        for values in (score, low):
            shown = [v for v, lv in zip(values, live) if lv and v]
            out["ties"] += len(set(shown)) < len(shown)
    return out


def _no_low_pot(contrib, live, low) -> bool:
    """A pot none of whose contenders has a low, at a table where a contender has one: pokerkit's
    low half there is its own convention (see the module's docstring)."""
    if not any(lw and lv for lw, lv in zip(low, live)):
        return False
    return any(p["kind"] == "normal" and not any(low[s] for s in p["eligible"]) for p in layers(contrib, live))


def _hilo_reference(contrib, live, shown) -> list[int]:
    """pokerkit's stud hi/lo payouts replayed by the reference in its conventions."""
    hole = np.array([s if s is not None else list(range(7)) for s in shown], np.uint8)
    high = stud.evaluate(hole).astype(np.int64).tolist()
    low = [(1 << 20) - v if v else 0 for v in razz.evaluate_low(hole).tolist()]  # the reference's: higher wins
    n = len(contrib)
    return settle_hilo(contrib, live, high, low, n - 1, first_winner=True, pokerkit_conventions=True)


@pytest.mark.filterwarnings("ignore:Returning reserved")  # pokerkit's stud deck runs out at seven seats
@pytest.mark.parametrize(
    "family",
    [("stud", "stud_hilo", "razz"), ("draw27_single", "draw27_triple", "badugi", "draw5")],
    ids=["stud", "draw"],
)
def test_pokerkit_settles_random_showdowns_as_we_do(family, pokerkit_hands, rng):
    """``HANDS`` hands of each game of the family: every row settles, to pokerkit's payouts exactly (stud
    hi/lo's tables where pokerkit's convention halves a pot without a low: to its conventions)."""
    ties = 0
    for game in family:
        hands = [play(game, rng) for _ in range(HANDS)]
        table = table_of(game, hands)
        results, errors, counters = settle_table(table, SettleOptions.of(odd_chips="first_winner", audit=True))
        assert errors.num_rows == 0, errors.column("reason").to_pylist()[:5]
        assert results.column("hand_id").to_pylist() == list(range(len(hands)))
        mismatch = np.array(results.column("mismatch").to_pylist())
        convention = np.zeros(len(hands), bool)
        if game_spec(game).split_pots:  # the pots pokerkit halves by its own convention: its payouts replayed
            for t, (contrib, live, shown, payout, _) in enumerate(hands):
                low = [
                    int(razz.evaluate_low(np.array([s], np.uint8))[0]) if s is not None and lv else 0
                    for s, lv in zip(shown, live)
                ]
                if _no_low_pot(contrib, live, low):
                    convention[t] = True
                    assert _hilo_reference(contrib, live, shown) == payout, hands[t]
            assert convention.sum() > 5, convention.sum()
        bad = np.flatnonzero(mismatch & ~convention)
        assert not bad.size, (game, hands[bad[0]], results.column("payout")[int(bad[0])])
        assert counters["mismatches"] == int((mismatch & convention).sum())
        found = facts(hands, results)
        assert found["showdowns"] > 0.9 * HANDS and found["multiway"] > 0.6 * HANDS, (game, found)
        assert min(found["side pots"], found["checked down"]) > 0.15 * HANDS, (game, found)
        ties += found["ties"]
    assert ties >= 5  # tied hands (or lows) between contenders: few, even from the aces-to-sixes decks
