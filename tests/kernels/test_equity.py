"""All-in equity: against a brute force (every board, the tested evaluators, the pots' reference,
exact fractions), against poker-equity's exact mode, and the properties (equities sum to one,
expected payouts to the pots, a sample within its error of the exact answer)."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pots_reference as ref
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardbatch.kernels import holdem, shortdeck
from cardbatch.kernels.cards import parse
from cardbatch.kernels.equity import Walk, all_in_equity, combinations
from cardbatch.kernels.pots import Options


def _brute(
    chips, live, hole, board, known, button, dead=None, rake=(0, 1), cap=None, unit=1, first=False, low=0, seen=True
):
    """Every completion of the board, valued by the evaluator, paid by the pots' reference: exact.
    ``seen``: the folded seats' recorded cards are out of the deck (else back in it)."""
    S = len(chips)
    used = {int(c) for s in range(S) if live[s] or seen for c in hole[s] if c != 255} | {int(c) for c in board[:known]}
    rest = [c for c in range(low, 52) if c not in used]
    boards = [tuple(int(c) for c in board[:known]) + extra for extra in itertools.combinations(rest, 5 - known)]
    seats = [s for s in range(S) if live[s]]
    hands = np.array([[*hole[s], *b] for b in boards for s in seats], np.uint8)
    if low:
        values = shortdeck.evaluate(hands).reshape(len(boards), len(seats))
    else:
        values = holdem.evaluate(hands).reshape(len(boards), len(seats))
    total = [Fraction(0)] * S
    square = [Fraction(0)] * S
    for row in values:
        score = [0] * S
        for i, s in enumerate(seats):
            score[s] = int(row[i])
        pay, _ = ref.standard(
            list(chips),
            list(live),
            score,
            button,
            rake_num=rake[0],
            rake_den=rake[1],
            rake_cap=cap,
            unit=unit,
            first_winner=first,
            dead=None if dead is None else list(dead),
        )
        total = [a + p for a, p in zip(total, pay)]
        square = [a + p * p for a, p in zip(square, pay)]
    n = len(boards)
    _brute.var = [float(q / n - (t / n) ** 2) for t, q in zip(total, square)]  # type: ignore[attr-defined]
    return [float(t / n) for t in total], n


def _spot(rng, S, known, low=0):
    """A random all-in: S seats, some folded, random chips (side pots), distinct cards."""
    deck = rng.permutation(np.arange(low, 52)).astype(np.uint8)
    hole = deck[: 2 * S].reshape(S, 2)
    board = np.full(5, 255, np.uint8)
    board[:5] = deck[2 * S : 2 * S + 5]
    live = rng.random(S) < 0.75
    if live.sum() < 2:
        live[rng.permutation(S)[:2]] = True
    chips = rng.integers(1, 8, S) * 10
    top = chips[live].max()
    chips[~live] = np.minimum(chips[~live], top)  # a folded seat never above every live seat
    return chips, live, hole, board, known, int(rng.integers(S))


@pytest.mark.parametrize("known", [3, 4])
@pytest.mark.parametrize("S", [2, 3, 5])
def test_every_completion_paid_as_the_reference_pays_it(S, known):
    rng = np.random.default_rng([S, known])
    for _ in range(4):
        chips, live, hole, board, kn, button = _spot(rng, S, known)
        want, n = _brute(chips, live, hole, board, kn, button)
        e = all_in_equity([chips], [live], [hole], [board], [kn], [button])
        assert e.exact[0] and e.drawn[0] == n
        assert e.ev_payout[0].tolist() == want  # exact: the same float of the same fraction
        assert (e.equity_se == 0).all()
        assert np.allclose(e.payout_var[0], _brute.var, rtol=1e-9, atol=1e-9)


def test_rake_caps_odd_chips_and_chip_units_are_the_settlements():
    rng = np.random.default_rng(7)
    for rake, cap, unit, first in [((1, 20), None, 1, False), ((1, 3), 7, 5, True), ((1, 10), 0, 1, False)]:
        for _ in range(3):
            chips, live, hole, board, kn, button = _spot(rng, 4, 4)
            chips = chips * unit
            want, _ = _brute(chips, live, hole, board, kn, button, rake=rake, cap=cap, unit=unit, first=first)
            opts = Options(
                rake_pct=Fraction(*rake), rake_cap=cap, chip_unit=unit, odd_chips="first_winner" if first else "button"
            )
            e = all_in_equity([chips], [live], [hole], [board], [kn], [button], options=opts)
            assert e.ev_payout[0].tolist() == want


def test_dead_money_goes_to_its_own_pot_in_every_completion():
    hole = parse(["AsAh", "KsKh", "7c2d"]).reshape(3, 2)
    board = parse(["QdJc3h8s4c"])[0]
    chips = np.array([120, 120, 30])
    dead = np.array([20, 0, 0])  # seat 0's big-blind ante
    live = np.array([True, True, False])
    want, _ = _brute(chips, live, hole, board, 3, 1, dead=dead)
    e = all_in_equity([chips], [live], [hole], [board], [3], [1], dead=[dead])
    assert e.ev_payout[0].tolist() == want


def test_short_deck_walks_its_own_deck():
    rng = np.random.default_rng(11)
    for _ in range(3):
        chips, live, hole, board, kn, button = _spot(rng, 3, 3, low=16)
        want, n = _brute(chips, live, hole, board, kn, button, low=16)
        e = all_in_equity(
            [chips], [live], [hole], [board], [kn], [button], tables=shortdeck.value_tables(), lowest_card=16
        )
        assert e.drawn[0] == n == combinations(36 - 2 * live.sum() - 3, 2)
        assert e.ev_payout[0].tolist() == want


def test_more_live_seats_than_counted_orders_are_paid_one_completion_at_a_time():
    rng = np.random.default_rng(3)
    chips, live, hole, board, kn, button = _spot(rng, 8, 4)
    live[:] = True
    chips = rng.integers(1, 9, 8) * 10
    want, _ = _brute(chips, live, hole, board, kn, button)
    e = all_in_equity([chips], [live], [hole], [board], [kn], [button])
    assert e.ev_payout[0].tolist() == want


def test_a_batch_mixing_counted_and_paid_as_they_come_tables_pays_each_as_alone():
    """Tables of 2 to 8 live seats in one call (a realistic night): each pays what it pays alone
    (the order counts are sized for the most seats that are counted, not the most seats)."""
    rng = np.random.default_rng(4)
    spots = [_spot(rng, n, known) for n, known in [(8, 4), (2, 3), (6, 4), (3, 3), (7, 4), (5, 4)]]
    S = 8
    T = len(spots)
    chips, live = np.zeros((T, S), np.int64), np.zeros((T, S), bool)
    hole, board = np.full((T, S, 2), 255, np.uint8), np.zeros((T, 5), np.uint8)  # 255: no seat, no card
    kn, button = np.zeros(T, np.int64), np.zeros(T, np.int64)
    for t, (c, _, h, b, k, bt) in enumerate(spots):
        n = len(c)
        chips[t, :n], live[t, :n], hole[t, :n], board[t], kn[t], button[t] = c, True, h, b, k, bt
    together = all_in_equity(chips, live, hole, board, kn, button)
    for t in range(T):
        alone = all_in_equity(
            chips[t : t + 1], live[t : t + 1], hole[t : t + 1], board[t : t + 1], kn[t : t + 1], button[t : t + 1]
        )
        assert together.ev_payout[t].tolist() == alone.ev_payout[0].tolist()
        assert together.ev_payout[t].sum() == pytest.approx(chips[t].sum())


pe = pytest.importorskip("poker_equity")


def holdem_text(cards):
    ranks, suits = "23456789TJQKA", "dchs"
    return [ranks[c >> 2] + suits[c & 3] for c in cards]


def _names(cards):
    return "".join(holdem_text(cards))


@pytest.mark.parametrize("game, low", [("holdem", 0), ("short_deck", 16)])
@pytest.mark.parametrize("known", [3, 4])
@pytest.mark.parametrize("n", [2, 3])
def test_agrees_with_poker_equity_exactly(game, low, known, n):
    """One pot a spot (equal chips, divisible by every tie): our payout shares are its equities."""
    rng = np.random.default_rng([n, known, low])
    tables = shortdeck.value_tables() if low else holdem.SCORE_TABLES  # poker-equity: a straight above trips too
    spots = 300 if known == 3 else 1000
    chips = np.full((spots, n), 6 * (5 - n) * 2)
    live = np.ones((spots, n), bool)
    hole = np.empty((spots, n, 2), np.uint8)
    board = np.empty((spots, 5), np.uint8)
    for i in range(spots):
        deck = rng.permutation(np.arange(low, 52)).astype(np.uint8)
        hole[i] = deck[: 2 * n].reshape(n, 2)
        board[i] = deck[2 * n : 2 * n + 5]
    e = all_in_equity(chips, live, hole, board, np.full(spots, known), np.zeros(spots), tables=tables, lowest_card=low)
    for i in range(spots):
        r = pe.exact_from_text(game, [_names(h) for h in hole[i]], " ".join(holdem_text(board[i, :known])))
        theirs = [p["equity"] for p in r["players"]]
        assert r["exact"] and r["samples"] == e.drawn[i]
        assert np.allclose(e.equity[i], theirs, rtol=0, atol=1e-12), (i, hole[i], board[i])


def test_agrees_with_poker_equity_preflop():
    """The whole board walked: 1,712,304 completions heads-up, 1,370,754 three-way."""
    rng = np.random.default_rng(5)
    for n in (2, 3):
        deck = rng.permutation(52).astype(np.uint8)
        hole = deck[: 2 * n].reshape(1, n, 2)
        walk = Walk(budget=2_000_000)  # every board, three-way too
        e = all_in_equity(np.full((1, n), 12), np.ones((1, n), bool), hole, np.full((1, 5), 255), [0], [0], walk=walk)
        r = pe.exact_from_text("holdem", [_names(h) for h in hole[0]], "")
        assert e.drawn[0] == combinations(52 - 2 * n, 5) == r["samples"]
        assert np.allclose(e.equity[0], [p["equity"] for p in r["players"]], rtol=0, atol=1e-12)


def test_above_the_budget_a_seeded_sample_within_its_error():
    rng = np.random.default_rng(9)
    chips, live, hole, board, kn, button = _spot(rng, 4, 3)
    exact = all_in_equity([chips], [live], [hole], [board], [kn], [button])
    args = ([chips], [live], [hole], [board], [kn], [button])
    a = all_in_equity(*args, walk=Walk(budget=10, samples=400, seed=1), hand_ids=[77])
    b = all_in_equity(*args, walk=Walk(budget=10, samples=400, seed=1), hand_ids=[77])
    c = all_in_equity(*args, walk=Walk(budget=10, samples=400, seed=2), hand_ids=[77])
    assert not a.exact[0] and a.drawn[0] == 400
    assert a.ev_payout.tolist() == b.ev_payout.tolist()  # the same seed and hand: the same draws
    assert a.ev_payout.tolist() != c.ev_payout.tolist()
    assert (a.equity_se[0] > 0).sum() >= 2  # (a seat paid the same in every completion has none)
    z = (a.ev_payout[0] - exact.ev_payout[0])[a.equity_se[0] > 0] / a.equity_se[0][a.equity_se[0] > 0]
    assert (np.abs(z) < 5).all(), z


def test_sampled_errors_are_calibrated_over_many_seeds():
    """Over 200 seeds, |z| < 1.96 about 95 % of the time: the standard error means what it says."""
    rng = np.random.default_rng(21)
    chips, live, hole, board, kn, button = _spot(rng, 2, 3)
    live[:] = True
    exact = all_in_equity([chips], [live], [hole], [board], [kn], [button]).ev_payout[0, 0]
    T = 200
    e = all_in_equity(
        np.repeat([chips], T, 0),
        np.repeat([live], T, 0),
        np.repeat([hole], T, 0),
        np.repeat([board], T, 0),
        np.full(T, kn),
        np.full(T, button),
        walk=Walk(budget=0, samples=300),
        hand_ids=np.arange(T),
    )
    z = (e.ev_payout[:, 0] - exact) / e.equity_se[:, 0]
    inside = float((np.abs(z) < 1.96).mean())
    assert 0.89 <= inside <= 0.99, inside


@settings(max_examples=40, deadline=None)
@given(
    st.integers(2, 6),
    st.sampled_from([3, 4, 5]),
    st.integers(0, 2**32),
    st.booleans(),
)
def test_expected_payouts_sum_to_the_pots_and_equities_to_one(S, known, seed, rake):
    rng = np.random.default_rng(seed)
    chips, live, hole, board, kn, button = _spot(rng, S, known)
    opts = Options(rake_pct=Fraction(1, 20)) if rake else Options()
    e = all_in_equity([chips], [live], [hole], [board], [kn], [button], options=opts)
    paid_each = [sum(ref.standard(list(chips), list(live), [0] * S, button, 1 if rake else 0, 20)[0])]
    assert abs(e.ev_payout[0].sum() - paid_each[0]) < 1e-9 * max(1, paid_each[0])
    assert abs(e.equity[0].sum() - 1) < 1e-12
    assert (e.ev_payout >= 0).all()
    assert (e.ev_payout[0][~live] == 0).all()


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 5), st.integers(0, 2**32))
def test_relabelling_seats_moves_their_equities_with_them(S, seed):
    rng = np.random.default_rng(seed)
    chips, live, hole, board, kn, button = _spot(rng, S, 4)
    chips = chips * 0 + 60  # one pot, no odd chips: seats are interchangeable
    perm = rng.permutation(S)
    a = all_in_equity([chips], [live], [hole], [board], [kn], [button])
    b = all_in_equity(
        [chips[perm]], [live[perm]], [hole[perm]], [board], [kn], [int(np.flatnonzero(perm == button)[0])]
    )
    assert np.allclose(a.ev_payout[0][perm], b.ev_payout[0], rtol=0, atol=1e-9)


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda a: a.update(known=[2]), "known board cards must be 0, 3, 4 or 5"),
        (lambda a: a.update(live=[[False, False]]), "no live seat"),
        (lambda a: a.update(button=[5]), "the button is not a seat"),
        (lambda a: a.update(hole=parse(["AsAh", "AsKh"]).reshape(1, 2, 2)), "missing, repeated"),
        (lambda a: a.update(chips=[[-1, 5]]), "below zero"),
    ],
)
def test_bad_input_is_named(change, message):
    args = {
        "chips": [[10, 10]],
        "live": [[True, True]],
        "hole": parse(["AsAh", "KsKh"]).reshape(1, 2, 2),
        "board": parse(["2c7d9hTs4c"]),
        "known": [3],
        "button": [0],
    }
    change(args)
    with pytest.raises(ValueError, match=message):
        all_in_equity(**args)


# ---------------------------------------------------------------- Omaha and its hi/lo


def _omaha_brute(chips, live, hole, board, known, button, hilo):
    """Every completion, valued by the reference Omaha high and low, paid by the reference hi/lo pots."""
    import games_reference as gref

    S = len(chips)
    used = {int(c) for s in range(S) if live[s] for c in hole[s]} | {int(c) for c in board[:known]}
    rest = [c for c in range(52) if c not in used]
    total = [Fraction(0)] * S
    boards = [tuple(int(c) for c in board[:known]) + x for x in itertools.combinations(rest, 5 - known)]
    for b in boards:
        score = [gref.omaha_high(hole[s], b) if live[s] else 0 for s in range(S)]
        if hilo:
            hexes = [gref.low_as_hex(gref.omaha_low(hole[s], b)) if live[s] else 0 for s in range(S)]
            low = [0x100000 - v if v else 0 for v in hexes]  # the reference's: higher wins, 0 none
            pay = gref.settle_hilo(list(chips), list(live), score, low, button)
        else:
            pay, _ = ref.standard(list(chips), list(live), score, button)
        total = [a + p for a, p in zip(total, pay)]
    return [float(t / len(boards)) for t in total]


@pytest.mark.parametrize("game", ["omaha", "omaha_hilo", "omaha5"])
def test_omaha_every_completion_paid_as_the_reference_pays_it(game):
    from cardbatch.games import REGISTRY
    from cardbatch.kernels.equity import all_in_equity_by_evaluator

    spec = REGISTRY[game]
    rng = np.random.default_rng(len(game))
    per = spec.hole_cards
    for S, known in ((2, 4), (3, 4), (2, 3)):
        deck = rng.permutation(52).astype(np.uint8)
        hole = deck[: per * S].reshape(S, per)
        board = deck[per * S : per * S + 5]
        chips = rng.integers(1, 9, S) * 12
        live = np.ones(S, bool)
        want = _omaha_brute(chips, live, hole, board, known, 0, spec.split_pots)
        e = all_in_equity_by_evaluator(spec, [chips], [live], [hole], [board], [known], [0])
        assert e.exact[0]
        assert np.allclose(e.ev_payout[0], want, rtol=0, atol=1e-9), (game, S, known)


@pytest.mark.parametrize("game, theirs", [("omaha", "omaha"), ("omaha5", "omaha_five"), ("omaha_hilo", "omaha_hi_lo")])
def test_omaha_agrees_with_poker_equity_exactly(game, theirs):
    """One pot divisible by every split (halves of ties of up to three): our shares are its equities."""
    from cardbatch.games import REGISTRY
    from cardbatch.kernels.equity import all_in_equity_by_evaluator

    spec = REGISTRY[game]
    per = spec.hole_cards
    rng = np.random.default_rng(17)
    for i in range(40):
        n, known = (2, 4) if i % 2 else (3, 3)
        deck = rng.permutation(52).astype(np.uint8)
        hole = deck[: per * n].reshape(n, per)
        board = deck[per * n : per * n + 5]
        e = all_in_equity_by_evaluator(spec, [np.full(n, 24)], [np.ones(n, bool)], [hole], [board], [known], [0])
        r = pe.exact_from_text(theirs, [_names(h) for h in hole], " ".join(holdem_text(board[:known])))
        assert r["exact"] and r["samples"] == e.drawn[0]
        assert np.allclose(e.equity[0], [p["equity"] for p in r["players"]], rtol=0, atol=1e-12), (i, hole, board)


@pytest.mark.parametrize("known, n, chip", [(0, 2, 10**13), (0, 3, 10**13), (3, 3, 3 * 10**18)])
def test_huge_pots_add_up(known, n, chip):
    """A count of boards times a big payout overflows int64: the sums are kept in floats."""
    hole = parse(["AsAh", "KsKh", "QsQh"])[:n].reshape(1, n, 2)
    board = parse(["2d7c9dTs4c"])
    e = all_in_equity(np.full((1, n), chip), np.ones((1, n), bool), hole, board, [known], [0])
    assert abs(e.ev_payout[0].sum() - n * chip) <= 1e-9 * n * chip
    assert (e.equity[0] > 0).all() and abs(e.equity[0].sum() - 1) < 1e-12
    assert e.equity[0][0] == max(e.equity[0])


def test_what_the_walk_cannot_take_is_named():
    """Chips that are not integers, do not fit int64 or sum beyond it, a deck that is not one, a
    policy the walk does not pay, and walk limits: each a ValueError, never a wrapped or truncated figure."""
    from cardbatch.kernels.cards import parse
    from cardbatch.kernels.pots.api import Options

    hole = parse(["AsKs", "QdQh"]).reshape(1, 2, 2)
    board = np.array([[*parse("2c3d4h"), 255, 255]], np.uint8)
    spot = ([[True, True]], hole, board, [3], [0])
    cases = [
        ({"chips": np.array([[100.5, 100.0]])}, "chips must be integers"),
        ({"chips": np.array([[2**63, 1]], np.uint64)}, "chips do not fit int64"),
        ({"chips": [[2**62, 2**62]]}, "table 0: the chips in sum beyond int64"),
        ({"chips": [[10, 10]], "lowest_card": -5}, "lowest_card must be a card code"),
        ({"chips": [[10, 10]], "options": Options(policy="presence")}, "standard policy only"),
        ({"chips": [[10, 10]], "hand_ids": np.array([2**64 - 1], np.uint64)}, "hand_ids do not fit int64"),
    ]
    for kwargs, message in cases:
        chips = kwargs.pop("chips")
        with pytest.raises(ValueError, match=message):
            all_in_equity(chips, *spot, **kwargs)
    for walk, message in [({"samples": 1}, "samples must be between 2"), ({"seed": 2**64}, "seed must be between")]:
        with pytest.raises(ValueError, match=message):
            Walk(**walk)


def test_samples_that_cover_every_board_walk_them_instead():
    """A flop all-in's 990 boards with 2,000 samples asked: walked, exact (drawing would cost more)."""
    from cardbatch.kernels.cards import parse

    hole = parse(["AsKs", "QdQh"]).reshape(1, 2, 2)
    board = np.array([[*parse("2c3d4h"), 255, 255]], np.uint8)
    e = all_in_equity([[10, 10]], [[True, True]], hole, board, [3], [0], walk=Walk(budget=0, samples=2_000))
    assert e.exact[0] and e.drawn[0] == 990 and (e.equity_se[0] == 0).all()
    f = all_in_equity([[10, 10]], [[True, True]], hole, board, [3], [0], walk=Walk(budget=0, samples=500))
    assert not f.exact[0] and f.drawn[0] == 500 and (f.equity_se[0] > 0).all()


def test_light_tables_go_in_one_call_heavy_ones_in_many():
    """The kernel runs in slices of about SLICE_DRAWS completions' work: thousands of turn spots with
    an unbounded budget are one call (a call costs microseconds: one per table was ten times the
    walk), 8-seat walks paid as they come a few tables a call (signals are answered between)."""
    from cardbatch.kernels.equity import PAID_EACH, SLICE_DRAWS, slices

    unbounded = Walk(budget=10**9)
    assert slices(np.ones((20_000, 2), bool), np.full(20_000, 4), 0, unbounded) == [slice(0, 20_000)]
    assert slices(np.ones((0, 2), bool), np.zeros(0, np.int64), 0, unbounded) == []
    eight = slices(np.ones((300, 8), bool), np.zeros(300, np.int64), 0, unbounded)
    each = combinations(36, 5) * PAID_EACH
    assert all(1 <= s.stop - s.start <= SLICE_DRAWS // each + 1 for s in eight)
    assert len(eight) >= 300 * each // SLICE_DRAWS
    assert eight[0].start == 0 and eight[-1].stop == 300
    assert all(a.stop == b.start for a, b in zip(eight, eight[1:]))


@pytest.mark.parametrize(
    "where, value, message",
    [
        ("known", 7, "table 2: known board cards must be 0, 3, 4 or 5 \\(got 7\\)"),
        ("board", 52, "table 2: a live seat's or the known board's card is missing, repeated"),
        ("board", 0, "table 2: a live seat's or the known board's card is missing, repeated"),  # a hole card again
        ("hole", 3, "table 2: a live seat's or the known board's card is missing, repeated"),  # below the short deck
        ("dead", 11, "table 2: chips below zero, or dead chips beyond"),
        ("button", -1, "table 2: the button is not a seat"),
        ("chips", 2**62, "table 2: the chips in sum beyond int64"),
    ],
)
def test_the_kernel_names_the_table_it_cannot_take(where, value, message):
    """The input checks run in the kernel, table by table: the first bad table of a batch is named,
    whatever the valid tables around it, and no figure is returned."""
    rng = np.random.default_rng(1)
    T = 5
    hole = np.empty((T, 3, 2), np.uint8)
    board = np.full((T, 5), 255, np.uint8)
    for t in range(T):
        deck = rng.permutation(np.arange(16, 52)).astype(np.uint8)
        hole[t] = deck[:6].reshape(3, 2)
        board[t, :3] = deck[6:9]
    chips = np.full((T, 3), 10, np.int64)
    dead = np.zeros((T, 3), np.int64)
    known, button = np.full(T, 3), np.zeros(T, np.int64)
    hole[2, 0, 0] = 0 if where == "board" and value == 0 else hole[2, 0, 0]
    if where == "known":
        known[2] = value
    elif where == "board":
        board[2, 1] = value
    elif where == "hole":
        hole[2, 1, 1] = value
    elif where == "dead":
        dead[2, 1] = value
    elif where == "button":
        button[2:] = value
    else:
        chips[2, :2] = value
    with pytest.raises(ValueError, match=message):
        all_in_equity(
            chips,
            np.ones((T, 3), bool),
            hole,
            board,
            known,
            button,
            dead=dead,
            tables=shortdeck.SCORE_TABLES[False],
            lowest_card=16,
        )


def test_what_would_wrap_or_be_cut_is_refused():
    """From an independent trial: card codes beyond 255 were read modulo 256 (another card, a wrong
    equity), floats were cut to integers, 24 live seats left too few cards for the board (every
    payout 0), and some wrong types crashed outside our words. Each is a ValueError now."""
    hole = parse(["AsAh", "KsKh"]).reshape(1, 2, 2).astype(np.int64)
    board = parse(["2c7d9hTs4c"]).astype(np.int64)
    spot = {"chips": [[100, 100]], "live": [[True, True]], "hole": hole, "board": board, "known": [3], "button": [0]}
    wrapped = hole.copy()
    wrapped[0, 0, 0] = 300  # 300 % 256 is a real card
    cut = hole.astype(float)
    cut[0, 0, 0] = 51.7
    cases = [
        ({"hole": wrapped}, "table 0: a live seat's or the known board's card is missing"),
        ({"board": np.where(np.arange(5) == 1, 261, board)}, "table 0: a live seat's or the known board's card"),
        ({"hole": cut}, "hole must be whole numbers"),
        ({"button": [0.5]}, "button must be whole numbers"),
        ({"known": [3.5]}, "known must be whole numbers"),
        ({"known": [np.nan]}, "table 0: known must be whole numbers"),
        ({"hole": np.full((1, 2, 2), 2**64 - 1, np.uint64)}, "table 0: a live seat's or the known board's card"),
        ({"hand_ids": [0, 1]}, "hand_ids must have shape"),
        ({"options": "standard"}, "options must be"),
        ({"walk": 5}, "walk must be a Walk"),
        ({"lowest_card": 16.5}, "lowest_card must be a card code"),
    ]
    for change, message in cases:
        with pytest.raises(ValueError, match=message):
            all_in_equity(**{**spot, **change})
    deck = np.arange(52, dtype=np.uint8)
    for seats, known in ((24, 0), (26, 0), (24, 3)):
        board24 = np.full((1, 5), 255, np.uint8)
        board24[0, :known] = deck[48 : 48 + known]
        with pytest.raises(ValueError, match="table 0: too few cards left in the deck"):
            all_in_equity(
                [[10] * seats], [[True] * seats], deck[: 2 * seats].reshape(1, seats, 2), board24, [known], [0]
            )
    for bad in ({"budget": 1.5}, {"samples": 2.5}, {"budget": True}, {"budget": 2**70}):
        with pytest.raises(ValueError):
            Walk(**bad)


def _folded_spot(rng, n, folded, known, per=2):
    """``n`` live seats and ``folded`` folded ones (their cards recorded), a random board."""
    S = n + folded
    deck = rng.permutation(52).astype(np.uint8)
    hole = deck[: per * S].reshape(S, per)
    board = deck[per * S : per * S + 5]
    live = np.zeros(S, bool)
    live[rng.permutation(S)[:n]] = True
    chips = np.where(live, 24, 6)  # the folded seats' blinds and calls (pots split by 2 and 3 exactly)
    return chips, live, hole, board, known


@pytest.mark.parametrize("known", [0, 3, 4])
@pytest.mark.parametrize("n, folded", [(2, 0), (2, 2), (2, 4), (3, 2), (3, 4)])
def test_folded_cards_are_out_of_the_deck_as_poker_equity_counts_dead_cards(known, n, folded):
    """Every recorded card is seen: the walk agrees with poker-equity's exact mode given the folded
    seats' cards as dead cards, heads-up preflop (no longer from the table, walked whatever the
    budget: see the next test) included."""
    rng = np.random.default_rng([known, n, folded])
    spots = 2 if known == 0 else 40
    for _ in range(spots):
        chips, live, hole, board, kn = _folded_spot(rng, n, folded, known)
        e = all_in_equity([chips], [live], [hole], [board], [kn], [0], walk=Walk(budget=2_000_000))  # 3-way too
        dead = " ".join(holdem_text(hole[~live].ravel()))
        r = pe.exact_from_text("holdem", [_names(h) for h in hole[live]], " ".join(holdem_text(board[:kn])), dead)
        left = 52 - 2 * (n + folded) - kn
        assert e.exact[0] and r["exact"] and e.drawn[0] == r["samples"] == combinations(left, 5 - kn)
        pot = chips.sum()
        theirs = np.array([p["equity"] for p in r["players"]])  # of the pot: the folded chips go with it
        # (theirs is summed in floats: three-way, it strays from the exact fraction by ~1e-12)
        assert np.allclose(e.ev_payout[0][live] / pot, theirs, rtol=0, atol=1e-10), (hole, board[:kn])
        assert (e.ev_payout[0][~live] == 0).all()


def test_the_trackers_deck_puts_folded_cards_back_and_differs():
    """``Walk(deck="trackers")`` walks the deck with the folded cards in it (the brute force with them
    back); ``seen`` (the default) without: the two differ on a spot where the folded cards matter."""
    hole = parse(["AsAh", "KsKh", "KdKc", "QsQh"]).reshape(4, 2)  # the two folded kings: the ace's equity up
    board = np.full(5, 255, np.uint8)
    board[:3] = parse(["2c7d9h"])[0]
    chips, live = np.array([50, 50, 10, 10]), np.array([True, True, False, False])
    seen = all_in_equity([chips], [live], [hole], [board], [3], [0])
    back = all_in_equity([chips], [live], [hole], [board], [3], [0], walk=Walk(deck="trackers"))
    assert seen.ev_payout[0].tolist() == _brute(chips, live, hole, board, 3, 0)[0]
    assert back.ev_payout[0].tolist() == _brute(chips, live, hole, board, 3, 0, seen=False)[0]
    assert seen.ev_payout[0, 0] > back.ev_payout[0, 0]  # two kings fewer to come
    assert seen.drawn[0] == combinations(52 - 11, 2) and back.drawn[0] == combinations(52 - 7, 2)


def test_unknown_folded_cards_stay_in_the_deck_and_wrong_ones_are_named():
    hole = parse(["AsAh", "KsKh", "QdQc"]).reshape(3, 2)
    board = parse(["2c7d9h3s4c"])[0]
    chips, live = np.array([50, 50, 10]), np.array([True, True, False])
    hidden = hole.copy()
    hidden[2] = 255
    a = all_in_equity([chips], [live], [hidden], [board], [3], [0])
    b = all_in_equity([chips], [live], [hole], [board], [3], [0], walk=Walk(deck="trackers"))
    assert a.ev_payout.tolist() == b.ev_payout.tolist() and a.drawn[0] == combinations(52 - 7, 2)
    half = hole.copy()
    half[2, 1] = 255  # one card recorded: that one is seen
    assert all_in_equity([chips], [live], [half], [board], [3], [0]).drawn[0] == combinations(52 - 8, 2)
    for bad in (hole[0, 0], 52, board[1]):  # a live seat's card, not a card, the board's
        wrong = hole.copy()
        wrong[2, 0] = bad
        with pytest.raises(ValueError, match="table 0: a folded seat's recorded card is repeated or not in the deck"):
            all_in_equity([chips], [live], [wrong], [board], [3], [0])


@pytest.mark.parametrize("game, theirs", [("omaha", "omaha"), ("omaha_hilo", "omaha_hi_lo")])
def test_omaha_folded_cards_are_seen_too(game, theirs):
    from cardbatch.games import REGISTRY
    from cardbatch.kernels.equity import all_in_equity_by_evaluator

    spec = REGISTRY[game]
    rng = np.random.default_rng(3)
    for known in (3, 4):
        chips, live, hole, board, kn = _folded_spot(rng, 2, 2, known, per=spec.hole_cards)
        e = all_in_equity_by_evaluator(spec, [chips], [live], [hole], [board], [kn], [0])
        dead = " ".join(holdem_text(hole[~live].ravel()))
        r = pe.exact_from_text(theirs, [_names(h) for h in hole[live]], " ".join(holdem_text(board[:kn])), dead)
        assert r["exact"] and r["samples"] == e.drawn[0] == combinations(52 - 16 - kn, 5 - kn)
        theirs_eq = np.array([p["equity"] for p in r["players"]])
        assert np.allclose(e.ev_payout[0][live] / chips.sum(), theirs_eq, rtol=0, atol=1e-12)
        back = all_in_equity_by_evaluator(spec, [chips], [live], [hole], [board], [kn], [0], walk=Walk(deck="trackers"))
        assert back.drawn[0] == combinations(52 - 8 - kn, 5 - kn)


def test_a_heads_up_preflop_all_in_is_exact_whatever_the_budget_multiway_ones_by_it():
    hole = parse(["AsAh", "KsKh", "7c2d", "QdQc"]).reshape(4, 2)
    chips, board = np.array([50, 50, 10, 50]), np.full(5, 255, np.uint8)
    heads_up = np.array([True, True, False, False])
    for walk in (Walk(), Walk(budget=0, samples=2)):
        e = all_in_equity([chips], [heads_up], [hole], [board], [0], [0], walk=walk)
        assert e.exact[0] and e.drawn[0] == combinations(52 - 8, 5)
    three = np.array([True, True, False, True])
    sampled = all_in_equity([chips], [three], [hole], [board], [0], [0])
    assert not sampled.exact[0] and sampled.drawn[0] == Walk().samples
    walked = all_in_equity([chips], [three], [hole], [board], [0], [0], walk=Walk(budget=2_000_000))
    assert walked.exact[0] and walked.drawn[0] == combinations(52 - 8, 5)
