import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from team_reference import reference

from cardbatch.kernels import team


def run(balance, x, afk, winner, base=100, double=1, fee=0, **kw):
    r = team.settle_2v2_detailed(np.array([balance]), np.array([x]), np.array([afk]), winner, base, double, fee, **kw)
    return r.delta[0].tolist(), r.fee[0].tolist(), r.cap[0].tolist(), int(r.transfer[0])


# ---- the seed's AFK table: my team's AFK state x the other team's, win and lose

RICH = [10**9] * 4
X = [2, 3, 2, 4]


@pytest.mark.parametrize("mine,theirs", list(itertools.product(range(4), range(4))))
@pytest.mark.parametrize("we_win", [True, False])
def test_afk_table_cell(mine, theirs, we_win):
    """Seat 0 is "me", seat 2 my partner; states: 0 none, 1 me/first AFK, 2 partner/second AFK, 3 both."""
    afk = [bool(mine & 1), bool(theirs & 1), bool(mine & 2), bool(theirs & 2)]
    winner = 0 if we_win else 1
    delta, _, cap, _ = run(RICH, X, afk, winner, caps=False)
    plain, _, plain_cap, _ = run(RICH, X, afk, winner, caps=False, afk_rule=False)
    me_only, partner_only, both = mine == 1, mine == 2, mine == 3
    if we_win and me_only:
        assert delta[0] == 0 and cap[0] == 0  # 赢：自己不得金蛋
    if not we_win and partner_only:
        assert delta[0] == 0 and cap[0] == 0  # 输：自己不扣金蛋
    if not we_win and me_only:
        # 输：自己包赔: one base more than its normal cap, half of it offset by a lone AFK opponent
        assert cap[0] - plain_cap[0] == (100 if theirs in (0, 3) else 50)
    if both or mine == 0:
        # both AFK counts as nobody AFK: my own cap only moves with the other team's lone AFK
        if theirs in (0, 3):
            assert cap[0] == plain_cap[0] and delta == plain
    assert sum(delta) == 0


def test_afk_winner_gains_zero_and_partner_takes_the_share():
    delta, _, cap, s = run(RICH, [1, 1, 1, 1], [True, False, False, False], 0, caps=False)
    assert delta[0] == 0 and delta[2] == s and sum(delta) == 0


# ---- the seed's cases 1-4 (model="proportional"), numbers worked by hand
# Y = base * double = 100; x = [2, 2, 2, 2]; each seat's demand = 100 * 2 * 4 / 2 = 400


def test_case1_normal():
    delta, *_ = run([1000, 1000, 1000, 1000], [2, 2, 2, 2], [False] * 4, 0, model="proportional")
    assert delta == [400, -400, 400, -400]


def test_case2_bankruptcy():
    # losers hold 100 and 250: they pay all they have (350); winners split it 1:1
    delta, *_ = run([1000, 100, 1000, 250], [2, 2, 2, 2], [False] * 4, 0, model="proportional")
    assert delta == [175, -100, 175, -250]


def test_case3_win_cap():
    # winners hold 150 and 1000: A wins at most 150, B its 400; losers pay 550 split 1:1 (275 each)
    delta, *_ = run([150, 1000, 1000, 1000], [2, 2, 2, 2], [False] * 4, 0, model="proportional")
    assert delta == [150, -275, 400, -275]


def test_case4_both():
    # winner A holds 50 (cap 50), B 1000 (cap 400); losers C 300 (cap 300), D 60 (cap 60)
    # s = min(450, 360) = 360; A takes min(50, 180) = 50, B the rest 310; C pays 300, D 60
    delta, *_ = run([50, 300, 1000, 60], [2, 2, 2, 2], [False] * 4, 0, model="proportional")
    assert delta == [50, -300, 310, -60]


def test_proportional_to_multipliers():
    # x = [1, 2, 3, 2]: A demand 100*1*4/2 = 200, B 100*3*4/2 = 600; C 100*2*4/2=400, D 400
    delta, *_ = run([10**6] * 4, [1, 2, 3, 2], [False] * 4, 0, model="proportional")
    assert delta == [200, -400, 600, -400]


def test_fee_is_taken_first_and_clamped():
    delta, fee, cap, _ = run([30, 1000, 1000, 1000], [1, 1, 1, 1], [False] * 4, 0, fee=50)
    assert fee == [30, 50, 50, 50]
    assert cap[0] == 0 and delta[0] == 0


# ---- against the reference on random games


@pytest.mark.parametrize("model", team.MODELS)
@pytest.mark.parametrize("caps", [True, False])
@pytest.mark.parametrize("afk_rule", [True, False])
def test_matches_reference(rng, model, caps, afk_rule):
    G = 3000
    balance = rng.choice([0, 1, 7, 50, 333, 1000, 5000, 10**6], (G, 4))
    x = rng.integers(1, 5, (G, 4))
    afk = rng.random((G, 4)) < 0.25
    winner = rng.integers(0, 2, G)
    base = rng.choice([1, 3, 100], G)
    double = rng.integers(1, 4, G)
    fee = rng.choice([0, 5, 40], G)
    r = team.settle_2v2_detailed(balance, x, afk, winner, base, double, fee, model, caps, afk_rule)
    for g in range(G):
        d, f, c, s = reference(
            balance[g].tolist(),
            x[g].tolist(),
            afk[g].tolist(),
            int(winner[g]),
            int(base[g]),
            int(double[g]),
            int(fee[g]),
            model,
            caps,
            afk_rule,
        )
        assert (r.delta[g].tolist(), r.fee[g].tolist(), r.cap[g].tolist(), int(r.transfer[g])) == (d, f, c, s), g


@pytest.mark.parametrize(
    "field,value,code",
    [
        ("balance", -1, "negative_balance"),
        ("multiplier", 0, "bad_multiplier"),
        ("winner", 2, "bad_winner"),
        ("base", 0, "bad_stake"),
        ("fee", -3, "negative_fee"),
    ],
)
def test_invalid_games(field, value, code):
    args = dict(
        balance=np.full((2, 4), 100),
        multiplier=np.ones((2, 4), int),
        afk=np.zeros((2, 4), bool),
        winner=np.array([0, 1]),
        base=np.array([10, 10]),
        double=1,
        fee=np.array([0, 0]),
    )
    arr = np.array(args[field]).copy()
    if arr.ndim == 2:
        arr[1, 2] = value
    else:
        arr[1] = value
    args[field] = arr
    assert team.REASONS[team.validate_2v2(**args)[1]] == code
    with pytest.raises(ValueError, match=f"game 1 is invalid \\({code}\\)"):
        team.settle_2v2(**args)


def test_bad_shapes():
    with pytest.raises(ValueError, match="balance"):
        team.settle_2v2(np.ones((2, 3), int), np.ones((2, 4), int), np.zeros((2, 4), bool), 0, 1, 1)
    with pytest.raises(ValueError, match="model"):
        team.settle_2v2(np.ones((2, 4), int), np.ones((2, 4), int), np.zeros((2, 4), bool), 0, 1, 1, model="x")


game = st.tuples(
    st.lists(st.integers(0, 5000), min_size=4, max_size=4),
    st.lists(st.integers(1, 6), min_size=4, max_size=4),
    st.lists(st.booleans(), min_size=4, max_size=4),
    st.integers(0, 1),
    st.integers(1, 500),
    st.integers(1, 4),
    st.integers(0, 100),
    st.sampled_from(team.MODELS),
)


@pytest.mark.slow  # seconds in the fast loop: CI runs it
@settings(max_examples=400, deadline=None)
@given(game)
def test_properties(g):
    balance, x, afk, winner, base, double, fee, model = g
    delta, fees, cap, s = run(balance, x, afk, winner, base, double, fee, model=model)
    assert sum(delta) == 0
    for i in range(4):
        assert balance[i] - fees[i] + delta[i] >= 0  # no balance below zero
        if (i & 1) == winner:
            assert 0 <= delta[i] <= balance[i] - fees[i]  # no winner above its balance
    if model == "seed":
        for i in range(4):
            lone = afk[i] and not afk[(i + 2) % 4]
            if (i & 1) == winner and lone:
                assert delta[i] == 0  # an AFK winner gains 0
            if (i & 1) != winner and afk[(i + 2) % 4] and not afk[i]:
                assert delta[i] == 0  # partner alone AFK: I lose 0
    # swapping the teams (seats 0<->1, 2<->3, winner flipped) swaps the result
    perm = [1, 0, 3, 2]
    d2, f2, *_ = run(
        [balance[p] for p in perm],
        [x[p] for p in perm],
        [afk[p] for p in perm],
        1 - winner,
        base,
        double,
        fee,
        model=model,
    )
    assert d2 == [delta[p] for p in perm] and f2 == [fees[p] for p in perm]


def test_out_buffers_are_filled_and_checked(rng):
    b = rng.choice([50, 1000, 10**6], (100, 4))
    x = rng.integers(1, 4, (100, 4))
    afk = rng.random((100, 4)) < 0.2
    w = rng.integers(0, 2, 100)
    expect = team.settle_2v2(b, x, afk, w, 10, 2, 5)
    out = (np.full((100, 4), -7, np.int64), np.full((100, 4), -7, np.int64))
    got = team.settle_2v2(b, x, afk, w, 10, 2, 5, out=out)
    assert got[0] is out[0] and (got[0] == expect[0]).all() and (got[1] == expect[1]).all()
    with pytest.raises(ValueError, match="out"):
        team.settle_2v2(b, x, afk, w, 10, 2, 5, out=(np.zeros((100, 4), np.int32), out[1]))
