import numpy as np
import pots_reference as ref
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardbatch.kernels import pots


def seed001():
    c = np.array([[100, 200, 200, 400, 1000, 2000, 400]])
    score = np.array([[10, 10, 8, 8, 6, 4, 2]])
    return c, np.ones((1, 7), bool), score


def test_seed_001_seven_all_ins():
    c, live, score = seed001()
    for button in range(7):
        assert pots.settle(c, live, score, button).tolist() == [[350, 950, 0, 800, 1200, 1000, 0]]
    d = pots.settle_detailed(c, live, score, 0)
    assert d.pots.tolist() == [5]
    assert d.pot_amount[0, 0, :5].tolist() == [700, 600, 800, 1200, 1000]
    assert d.pot_kind[0, 0, :5].tolist() == [0, 0, 0, 0, 1]  # the 2000 all-in's top is uncalled


# seed 004's flop, seats in table order: UTG, CO, HJ, D, BB (button = D, seat 3)
FLOP = np.array([[[10, 30, 50, 230, 980]]])
FLOP_SCORE = np.array([[1, 9, 2, 3, 9]])  # CO and BB tie best
FLOP_LIVE = np.ones((1, 5), bool)


def test_seed_004_presence():
    assert pots.settle(FLOP, FLOP_LIVE, FLOP_SCORE, 3, "presence").tolist() == [[0, 65, 0, 0, 1235]]


def test_seed_004_ratio_rank():
    got = pots.settle(FLOP, FLOP_LIVE, FLOP_SCORE, 3, "ratio_rank")[0]
    assert got[1] == 30 * 1300 // 1010 and got[4] == 980 * 1300 // 1010 + 1  # BB is first left of D
    assert got.sum() == 1300
    # with the button at BB, the odd chip goes to CO (the first winner left of seat 4 is seat 1)
    got = pots.settle(FLOP, FLOP_LIVE, FLOP_SCORE, 4, "ratio_rank")[0]
    assert got.tolist() == [0, 39, 0, 0, 1261]


def random_tables(rng, T, S, streets=1, fold_p=0.35, levels=(0, 5, 10, 10, 20, 35, 50, 100, 100, 250)):
    seats = rng.integers(2, S + 1, T)
    contrib = rng.choice(levels, (T, streets, S))
    live = rng.random((T, S)) > fold_p
    score = rng.integers(0, 4, (T, S))
    for t in range(T):
        contrib[t, :, seats[t] :] = 0
        live[t, seats[t] :] = False
        if not live[t].any():
            live[t, 0] = True
    button = np.array([rng.integers(0, n) for n in seats])
    return contrib, live, score, button


def reference(policy, contrib, live, score, button, **kw):
    """Per table: (payout, rake) or 'orphan_chips'."""
    out = []
    for t in range(len(contrib)):
        try:
            if policy == "standard":
                out.append(
                    ref.standard(
                        contrib[t].sum(axis=0).tolist(), live[t].tolist(), score[t].tolist(), int(button[t]), **kw
                    )
                )
            else:
                out.append(
                    (
                        ref.street_policy(
                            policy, contrib[t].tolist(), live[t].tolist(), score[t].tolist(), int(button[t]), **kw
                        ),
                        0,
                    )
                )
        except ref.Orphan:
            out.append("orphan_chips")
    return out


def compare(policy, contrib, live, score, button, kernel_kw=None, ref_kw=None):
    d = pots.settle_detailed(contrib, live, score, button, policy, raise_on_error=False, **(kernel_kw or {}))
    expect = reference(policy, contrib, live, score, button, **(ref_kw or {}))
    for t, e in enumerate(expect):
        if e == "orphan_chips":
            assert pots.REASONS[d.status[t]] == "orphan_chips", t
        else:
            assert d.status[t] == 0, (t, pots.REASONS[d.status[t]])
            assert d.payout[t].tolist() == e[0], (
                t,
                contrib[t].tolist(),
                live[t].tolist(),
                score[t].tolist(),
                button[t],
            )
            assert d.rake[t] == e[1]
    return d


@pytest.mark.parametrize("policy", pots.POLICIES)
def test_matches_reference_on_random_tables(rng, policy):
    streets = 1 if policy == "standard" else 4
    contrib, live, score, button = random_tables(rng, 4000, 9, streets)
    d = compare(policy, contrib, live, score, button)
    ok = d.status == 0
    assert ok.mean() > 0.3  # many tables valid: the comparison has teeth
    assert (d.payout[ok].sum(axis=1) + d.rake[ok] == contrib[ok].sum(axis=(1, 2))).all()


@pytest.mark.parametrize("policy", pots.POLICIES)
def test_orphan_refund_matches_reference(rng, policy):
    streets = 1 if policy == "standard" else 3
    contrib, live, score, button = random_tables(rng, 2000, 7, streets, fold_p=0.6)
    d = compare(policy, contrib, live, score, button, {"orphan_chips": "refund"}, {"refund": True})
    assert (d.status == 0).all()
    assert (d.payout.sum(axis=1) == contrib.sum(axis=(1, 2))).all()


@pytest.mark.parametrize("unit,first", [(5, False), (1, True), (10, True)])
@pytest.mark.parametrize("policy", pots.POLICIES)
def test_chip_unit_and_odd_chip_modes(rng, unit, first, policy):
    streets = 1 if policy == "standard" else 2
    contrib, live, score, button = random_tables(rng, 2000, 6, streets, levels=(0, 3, 7, 11, 11, 26, 101))
    mode = "first_winner" if first else "button"
    compare(
        policy,
        contrib,
        live,
        score,
        button,
        {"chip_unit": unit, "odd_chips": mode},
        {"unit": unit, "first_winner": first},
    )


@pytest.mark.parametrize("pct,cap", [(0.05, None), (0.1, 7), ("0.029", 3), (0.29, None)])
def test_rake_matches_reference(rng, pct, cap):
    from fractions import Fraction

    frac = Fraction(str(pct))
    contrib, live, score, button = random_tables(rng, 3000, 9)
    nfnd = rng.random(3000) < 0.2
    d = pots.settle_detailed(
        contrib, live, score, button, rake_pct=pct, rake_cap=cap, no_flop_no_drop=nfnd, raise_on_error=False
    )
    for t in range(3000):
        try:
            p, r = ref.standard(
                contrib[t, 0].tolist(),
                live[t].tolist(),
                score[t].tolist(),
                int(button[t]),
                frac.numerator,
                frac.denominator,
                cap,
                bool(nfnd[t]),
            )
        except ref.Orphan:
            assert d.status[t] == pots.ORPHAN_CHIPS
            continue
        assert (d.payout[t].tolist(), int(d.rake[t])) == (p, r)
        assert d.pot_rake[t].sum() == r


def test_rake_exact_fractions():
    c = np.array([[100, 100]])
    live = np.ones((1, 2), bool)
    score = np.array([[2, 1]])
    # 0.29 * 200 = 57.99999999999999 in floating point; the rake is 58
    d = pots.settle_detailed(c, live, score, 0, rake_pct=0.29)
    assert d.rake.tolist() == [58] and d.payout.tolist() == [[142, 0]]


def test_uncalled_bet_is_never_raked():
    c = np.array([[100, 500, 0]])
    live = np.array([[True, True, False]])
    d = pots.settle_detailed(c, live, np.array([[9, 1, 0]]), 2, rake_pct=0.1)
    assert d.rake.tolist() == [20]
    assert d.payout.tolist() == [[180, 400, 0]]


def test_235_rule_per_pot():
    # seat 0 trips (short all-in), seat 1 off-suit 2-3-5, seat 2 a flush; trips_floor = 100
    c = np.array([[50, 100, 100]])
    live = np.ones((1, 3), bool)
    score = np.array([[150, 10, 80]])
    special = np.array([[False, True, False]])
    got = pots.settle(c, live, score, 2, special=special, trips_floor=100)
    # main pot (150): trips best and a 2-3-5 eligible -> the 2-3-5 wins; side pot (100): flush beats 2-3-5
    assert got.tolist() == [[0, 150, 100]]
    assert pots.settle(c, live, score, 2).tolist() == [[150, 0, 100]]


def test_235_rule_matches_reference(rng):
    contrib, live, score, button = random_tables(rng, 3000, 6)
    score = rng.integers(0, 8, score.shape)
    special = rng.random(score.shape) < 0.3
    d = pots.settle_detailed(contrib, live, score, button, special=special, trips_floor=6, raise_on_error=False)
    plain = pots.settle(contrib, live, score, button, orphan_chips="refund")
    assert (d.payout != plain)[d.status == 0].any()  # the rule changed some results
    for t in range(3000):
        try:
            p, _ = ref.standard(
                contrib[t, 0].tolist(),
                live[t].tolist(),
                score[t].tolist(),
                int(button[t]),
                special=special[t].tolist(),
                trips_floor=6,
            )
        except ref.Orphan:
            continue
        assert d.payout[t].tolist() == p


@pytest.mark.parametrize(
    "case,code",
    [
        (([[10, -5]], [[1, 1]], 0), "negative_contrib"),
        (([[10, 10]], [[0, 0]], 0), "no_live_seat"),
        (([[10, 50]], [[1, 0]], 0), "orphan_chips"),
        (([[10, 10]], [[1, 1]], 2), "bad_button"),
    ],
)
def test_invalid_tables(case, code):
    c, live, button = case
    c = np.array(c)
    status = pots.validate(c, np.array(live, bool), np.zeros_like(c), button)
    assert pots.REASONS[status[0]] == code
    good = np.array([[10, 10]])
    with pytest.raises(ValueError, match=f"table 1 is invalid \\({code}\\)"):
        pots.settle(
            np.vstack([good, c]),
            np.vstack([[True, True], np.array(live, bool)]),
            np.zeros((2, 2), int),
            np.array([0, button]),
        )


def test_bad_shapes_and_options():
    c = np.array([[10, 10]])
    live = np.ones((1, 2), bool)
    with pytest.raises(ValueError, match="policy"):
        pots.settle(c, live, c, 0, "winner_takes_all")
    with pytest.raises(ValueError, match="live"):
        pots.settle(c, live[:, :1], c, 0)
    with pytest.raises(ValueError, match="chips"):
        pots.settle(c.astype(float) + 0.5, live, c, 0)
    with pytest.raises(ValueError, match="odd_chips"):
        pots.settle(c, live, c, 0, odd_chips="random")
    with pytest.raises(ValueError, match="rake"):
        pots.settle(c[:, None], live, c, 0, "presence", rake_pct=0.05)
    with pytest.raises(ValueError, match="chip_unit"):
        pots.settle(c, live, c, 0, chip_unit=0)


def test_padding_and_batch_independence(rng):
    contrib, live, score, button = random_tables(rng, 500, 6)
    ok = pots.validate(contrib, live, score, button) == 0
    contrib, live, score, button = contrib[ok], live[ok], score[ok], button[ok]
    whole = pots.settle(contrib, live, score, button)
    # more padding seats change nothing
    pad = lambda a, v: np.concatenate([a, np.full(a.shape[:-1] + (3,), v, a.dtype)], axis=-1)  # noqa: E731
    assert (pots.settle(pad(contrib, 0), pad(live, False), pad(score, 0), button)[:, :6] == whole).all()
    # each table alone gives the same result as in the batch
    for t in range(0, len(whole), 37):
        assert (pots.settle(contrib[t : t + 1], live[t : t + 1], score[t : t + 1], button[t : t + 1]) == whole[t]).all()


table_strategy = st.integers(2, 9).flatmap(
    lambda S: st.tuples(
        st.lists(st.integers(0, 400), min_size=S, max_size=S),
        st.lists(st.booleans(), min_size=S, max_size=S),
        st.lists(st.integers(0, 3), min_size=S, max_size=S),
        st.integers(0, S - 1),
        st.integers(0, S - 1),
    )
)


@pytest.mark.slow  # seconds in the fast loop: CI runs it
@settings(max_examples=300, deadline=None)
@given(table_strategy, st.sampled_from(pots.POLICIES))
def test_properties(table, policy):
    c, live, score, button, shift = table
    S = len(c)
    live[0] = True if not any(live) else live[0]
    c = np.array([c])
    if policy != "standard":
        c = np.stack([c, c // 3], axis=1)
    live = np.array([live])
    score = np.array([score])
    d = pots.settle_detailed(c, live, score, button, policy, raise_on_error=False, orphan_chips="refund")
    assert d.status[0] == 0
    payout = d.payout[0]
    assert payout.sum() + d.rake[0] == c.sum()  # chips conserved
    assert (payout >= 0).all()  # never negative
    # folded seats get nothing unless an orphan layer was refunded to them
    if not (d.pot_kind == pots.POT_ORPHAN).any():
        assert (payout[~live[0]] == 0).all()
    # relabel seats by a rotation (button moves with them): payouts rotate
    perm = np.roll(np.arange(S), shift)
    d2 = pots.settle_detailed(
        c[..., perm],
        live[:, perm],
        score[:, perm],
        int(np.flatnonzero(perm == button)[0]),
        policy,
        raise_on_error=False,
        orphan_chips="refund",
    )
    assert (d2.payout[0] == payout[perm]).all()


def test_pots_are_the_reference_layers(rng):
    """Every pot (levels, amount, eligible seats, kind) as SPEC §5.1-2 builds them, whichever case built it."""
    contrib, live, score, button = random_tables(rng, 4000, 9)
    # half the tables with one live level (the kernel settles them in its first pass)
    flat = contrib[:, 0]
    for t in range(0, len(flat), 2):
        top = flat[t][live[t]].max()
        flat[t][live[t]] = top
        if t % 4:
            flat[t][~live[t]] = np.minimum(flat[t][~live[t]], top)
    d = pots.settle_detailed(contrib, live, score, button, raise_on_error=False, orphan_chips="refund")
    cases = {"one pot": 0, "lone live seat": 0, "side pots": 0, "orphan layers": 0, "partly called": 0}
    for t in range(len(flat)):
        assert d.status[t] == 0
        want = ref.layers(flat[t].tolist(), live[t].tolist())
        n = d.pot_count[t, 0]
        got = [
            {
                "lo": int(d.pot_levels[t, 0, p, 0]),
                "hi": int(d.pot_levels[t, 0, p, 1]),
                "amount": int(d.pot_amount[t, 0, p] + d.pot_rake[t, 0, p]),
                "eligible": {s for s in range(9) if int(d.pot_eligible[t, 0, p]) >> s & 1},
                "kind": ["normal", "uncalled", "orphan"][d.pot_kind[t, 0, p]],
            }
            for p in range(n)
        ]
        assert got == want, (t, flat[t].tolist(), live[t].tolist())
        kinds = [p["kind"] for p in want]
        nlive = live[t].sum()
        cases["one pot" if nlive > 1 and len(want) == 1 else "lone live seat" if nlive == 1 else "side pots"] += 1
        cases["orphan layers"] += "orphan" in kinds
        cases["partly called"] += kinds[-2:] == ["normal", "uncalled"]
    assert min(cases.values()) > 100, cases


@pytest.mark.parametrize("policy", pots.POLICIES)
def test_pot_counts_without_detail_are_the_pots_built(rng, policy):
    """``detail=False`` (what the batch driver writes) counts ratio_rank's pots without building them."""
    streets = 1 if policy == "standard" else 4
    contrib, live, score, button = random_tables(rng, 4000, 9, streets)
    for t in range(0, len(contrib), 2):  # half the streets with one live level, some with a lone top seat
        for k in range(streets):
            row = contrib[t, k]
            row[live[t]] = row[live[t]].max()
            if t % 4 == 0:
                row[~live[t]] = np.minimum(row[~live[t]], row[live[t]].max())
            if t % 8 == 0:
                row[np.flatnonzero(live[t])[0]] += 7
    kw = dict(raise_on_error=False, orphan_chips="refund")
    full = pots.settle_detailed(contrib, live, score, button, policy, **kw)
    fast = pots.settle_detailed(contrib, live, score, button, policy, detail=False, **kw)
    assert (fast.status == full.status).all() and (fast.payout == full.payout).all()
    assert (fast.pots == full.pots).all()
    assert (full.pot_count.sum(axis=1) == full.pots).all()
    per_street = full.pot_count.ravel()
    kinds = full.pot_kind.reshape(-1, full.pot_kind.shape[-1])  # standard keeps S + 1 slots (a dead pot)
    assert (per_street == 1).sum() > 1000 and (per_street >= 3).sum() > 1000
    assert ((kinds == pots.POT_UNCALLED).any(axis=1)).sum() > 500


def test_out_buffer_is_filled_and_checked(rng):
    contrib, live, score, button = random_tables(rng, 500, 7)
    ok = pots.validate(contrib, live, score, button) == 0
    contrib, live, score, button = contrib[ok], live[ok], score[ok], button[ok]
    out = np.full((len(contrib), 7), -99, np.int64)
    got = pots.settle(contrib, live, score, button, out=out)
    assert got is out and (out == pots.settle(contrib, live, score, button)).all()
    for bad in (
        np.empty((len(contrib), 7), np.int32),
        np.empty((len(contrib), 6), np.int64),
        np.empty((len(contrib), 14), np.int64)[:, ::2],
    ):
        with pytest.raises(ValueError, match="out must be"):
            pots.settle(contrib, live, score, button, out=bad)


@pytest.mark.parametrize("policy", pots.POLICIES)
def test_orphan_scope_minimal_case(policy):
    """SPEC §6: one street [3, 2], seat 0 folded, seat 1 live: the street's live contributor takes all."""
    args = ([[[3, 2]]], [[False, True]], [[0, 0]], 0)
    expect = {"ratio_rank": [0, 5], "hybrid": [0, 5]}
    if policy in expect:
        assert pots.settle(*args, policy).tolist() == [expect[policy]]
        got = ref.street_policy(policy, [[3, 2]], [False, True], [0, 0], 0)
        assert got == expect[policy]
    else:
        assert pots.validate(*args, policy).tolist() == [pots.ORPHAN_CHIPS]


@pytest.mark.parametrize("policy", ["ratio_rank", "hybrid"])
def test_street_without_live_contributor_is_orphan(policy):
    # street 2: only seat 0 (folded) bet; seat 1 is live but all in on street 1
    args = ([[[5, 5], [7, 0]]], [[False, True]], [[0, 0]], 0)
    assert pots.validate(*args, policy).tolist() == [pots.ORPHAN_CHIPS]
    refunded = pots.settle(*args, policy, orphan_chips="refund")
    assert refunded.tolist() == [[7, 10]]


def test_orphan_scope_is_common_in_random_tables(rng):
    """With the street scope most tables with folded top layers settle; chips are conserved."""
    contrib, live, score, button = random_tables(rng, 3000, 9, 4, fold_p=0.5)
    for policy in ("ratio_rank", "hybrid"):
        d = pots.settle_detailed(contrib, live, score, button, policy, raise_on_error=False)
        scoped = (d.pot_kind == pots.POT_ORPHAN).any(axis=(1, 2)) & (d.status == 0)
        assert scoped.sum() > 300
        ok = d.status == 0
        assert (d.payout[ok].sum(axis=1) == contrib[ok].sum(axis=(1, 2))).all()
        assert (d.payout[ok][~live[ok]] == 0).all()


def test_dead_money_examples_of_the_spec():
    # WSOP 2023 Event #43: SB 75,000 folds; BB 225,000 dead ante + 3,350,000 all in; the button calls and wins
    contrib = [[75_000, 3_575_000, 3_350_000]]
    live, score = [[False, True, True]], [[0, 5, 9]]
    dead = [[0, 225_000, 0]]
    assert pots.settle(contrib, live, score, 2, dead=dead).tolist() == [[0, 0, 7_000_000]]
    assert pots.settle(contrib, live, score, 2).tolist() == [[0, 225_000, 6_775_000]]  # without: an uncalled bet
    d = pots.settle_detailed(contrib, live, score, 2, dead=dead)
    assert d.pot_count.tolist() == [[1]]  # the dead pot merged into the main pot
    # second example: the seat whose chips are all dead wins the dead pot only
    c2, l2, s2 = [[242, 5, 149]], [[True, True, True]], [[8, 9, 7]]
    d = pots.settle_detailed(c2, l2, s2, 0, dead=[[0, 5, 0]])
    assert d.payout.tolist() == [[391, 5, 0]]
    assert d.pot_amount[0, 0, :3].tolist() == [5, 298, 93]
    assert d.pot_kind[0, 0, :3].tolist() == [pots.POT_NORMAL, pots.POT_NORMAL, pots.POT_UNCALLED]
    assert d.pot_levels[0, 0, 0].tolist() == [0, 0]
    for got, expect in ((d.payout[0].tolist(), ref.standard(c2[0], l2[0], s2[0], 0, dead=[0, 5, 0])[0]),):
        assert got == expect


def test_dead_money_is_checked_and_standard_only():
    c, live, score = [[10, 10]], [[True, True]], [[1, 2]]
    assert pots.validate(c, live, score, 0, dead=[[11, 0]]).tolist() == [pots.REASONS.index("bad_dead_money")]
    assert pots.validate(c, live, score, 0, dead=[[-1, 0]]).tolist() == [pots.REASONS.index("bad_dead_money")]
    for policy in ("presence", "ratio_rank", "hybrid"):
        code = pots.validate([[c[0]]], live, score, 0, policy, dead=[[1, 0]])
        assert code.tolist() == [pots.REASONS.index("dead_money_policy")]
        assert pots.validate([[c[0]]], live, score, 0, policy, dead=[[0, 0]]).tolist() == [0]
    with pytest.raises(ValueError, match="dead_money_policy"):
        pots.settle([[c[0]]], live, score, 0, "hybrid", dead=[[1, 0]])
    with pytest.raises(ValueError, match="dead must be integers"):
        pots.settle(c, live, score, 0, dead=[[1.5, 0]])


@pytest.mark.parametrize("rake", [None, "0.05"])
def test_dead_money_matches_reference_on_random_tables(rng, rake):
    contrib, live, score, button = random_tables(rng, 4000, 9, 1, fold_p=0.3)
    c = contrib[:, 0, :]
    # dead chips: a part of some seats' chips, sometimes all of them (a live seat with only dead chips)
    dead = np.where(rng.random(c.shape) < 0.25, rng.integers(0, 6, c.shape), 0)
    dead = np.minimum(dead, c)
    all_dead = rng.random(c.shape) < 0.05
    dead = np.where(all_dead, c, dead)
    kw = {"rake_pct": rake, "rake_cap": 7} if rake else {}
    ref_kw = {"rake_num": 1, "rake_den": 20, "rake_cap": 7} if rake else {}
    for refund in (False, True):
        d = pots.settle_detailed(
            c, live, score, button, raise_on_error=False, dead=dead, orphan_chips="refund" if refund else "error", **kw
        )
        settled = 0
        for t in range(len(c)):
            try:
                expect = ref.standard(
                    c[t].tolist(),
                    live[t].tolist(),
                    score[t].tolist(),
                    int(button[t]),
                    dead=dead[t].tolist(),
                    refund=refund,
                    **ref_kw,
                )
            except ref.Orphan:
                assert d.status[t] == pots.ORPHAN_CHIPS, t
                continue
            assert d.status[t] == 0, (t, pots.REASONS[d.status[t]])
            assert (d.payout[t].tolist(), int(d.rake[t])) == (expect[0], expect[1]), (t, c[t], dead[t], live[t])
            settled += 1
        assert settled > 1500
        ok = d.status == 0
        assert (d.payout[ok].sum(axis=1) + d.rake[ok] == c[ok].sum(axis=1)).all()
        # a live seat whose chips are all dead never wins more than the table's dead chips
        only_dead = ok[:, None] & live & (c > 0) & (dead == c)
        assert (d.payout[only_dead] <= np.broadcast_to(dead.sum(axis=1)[:, None], c.shape)[only_dead]).all()


@pytest.mark.parametrize("policy", pots.POLICIES)
def test_the_parallel_and_serial_builds_agree(rng, policy):
    """Small runs take the serial build of each pot kernel (it compiles in half the time), the
    rest the parallel one: the same body, compiled twice. Both settle the same tables alike, and
    the serial one as the reference does."""
    from cardbatch.kernels import twins
    from cardbatch.kernels.pots import driver

    contrib, live, score, button = random_tables(rng, 3000, 9, 1 if policy == "standard" else 4)
    kw = dict(raise_on_error=False, detail=False)
    parallel = pots.settle_detailed(contrib, live, score, button, policy, **kw)
    with twins.serial():
        serial = pots.settle_detailed(contrib, live, score, button, policy, **kw)
    kernel = driver.settle_standard_kernel if policy == "standard" else driver.settle_streets_kernel
    assert kernel.serial.signatures and kernel.parallel.signatures
    for name in ("payout", "status", "rake", "pots"):
        assert np.array_equal(getattr(serial, name), getattr(parallel, name)), name
    expect = reference(policy, contrib, live, score, button)
    for t, e in enumerate(expect):
        if e == "orphan_chips":
            assert pots.REASONS[serial.status[t]] == "orphan_chips", t
        else:
            assert serial.status[t] == 0 and serial.payout[t].tolist() == e[0], t
    assert (serial.status == 0).mean() > 0.3  # many tables valid: the comparison has teeth


def test_a_policy_code_without_a_per_street_rule_is_refused_not_settled_as_hybrid(rng):
    """The per-street kernel names each policy's rule in its own branch: a code that is none of
    presence, ratio_rank, hybrid (standard's 0, or an unknown 7) is a ValueError naming it, in the
    serial and the parallel build alike (the code of the session's start settled it by hybrid's
    rule), and the Python side refuses any such policy by name before the kernel."""
    from cardbatch.kernels import twins
    from cardbatch.kernels.pots import driver, policies

    contrib, live, score, button = random_tables(rng, 200, 6, 3)
    known = {}
    for code in (policies.PRESENCE, policies.RATIO_RANK, policies.HYBRID):
        d = pots.settle_detailed(contrib, live, score, button, pots.POLICIES[code], raise_on_error=False, detail=False)
        known[code] = d.payout
    args = _streets_kernel_args(contrib, live, score, button)
    for serial in (True, False):
        with twins.serial(serial):
            for code in (policies.HYBRID, policies.PRESENCE):  # the same call settles a known code
                driver.settle_streets_kernel(np.int64(code), *args)
                assert np.array_equal(args[2][0], known[code])
            for code in (policies.STANDARD, 7):
                with pytest.raises(ValueError, match=rf"not a per-street policy code.*\b{code}\b"):
                    driver.settle_streets_kernel(np.int64(code), *args)
    for policy in ("standard", "bogus", pots.Policy.STANDARD):
        with pytest.raises(ValueError, match=f"{policy!r} is not a per-street policy"):
            policies.per_street_code(policy)
    assert [policies.per_street_code(p) for p in ("presence", "ratio_rank", "hybrid")] == [1, 2, 3]


def _streets_kernel_args(contrib, live, score, button):
    """The per-street kernel's arguments for these tables, as ``settle_detailed`` builds them (no
    special hands, no dead money, no detail)."""
    T, K, S = contrib.shape
    tables = (
        np.ascontiguousarray(contrib, np.int64),
        np.ascontiguousarray(live, np.bool_),
        np.ascontiguousarray(score, np.int64),
        np.ascontiguousarray(button, np.int64),
        np.zeros((1, S), np.bool_),
        np.zeros(1, np.bool_),
        np.zeros((1, 0), np.int64),
    )
    rules = pots.Options(policy="hybrid").lower(False, 0, False)
    results = (np.zeros((T, S), np.int64), np.zeros(T, np.uint8), np.zeros(T, np.int64), np.zeros(T, np.int64))
    pot_out = tuple(
        np.zeros((1, 1, 1), t) for t in (np.int64, np.int64, np.uint64, np.uint64, np.int8, np.int64, np.int64)
    )
    return tables, rules, results, pot_out
