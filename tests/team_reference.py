"""2v2 settlement written out with Fractions, one game at a time, from the rules (docs: Rules, 2v2):
the slow, obviously correct reference the kernel is checked against, for tests and benchmarks only."""

from fractions import Fraction


def reference(balance, x, afk, winner, base, double, fee=0, model="seed", caps=True, afk_rule=True):
    """SPEC §7 written out with Fractions, one game."""
    bd = base * double
    fees = [min(fee, b) for b in balance]
    left = [b - f for b, f in zip(balance, fees)]
    t = [0] * 4
    if afk_rule and model == "seed":
        for i in range(4):
            p = (i + 2) % 4
            t[i] = int(afk[i]) if afk[i] != afk[p] else 0
    win_seats = [winner, winner + 2]
    lose_seats = [1 - winner, 3 - winner]
    cap = [0] * 4
    for i in range(4):
        o = [(i + 1) % 4, (i + 3) % 4]
        p = (i + 2) % 4
        if model == "proportional":
            c = Fraction(bd * x[i] * (x[o[0]] + x[o[1]]), 2)
        elif i in win_seats:
            c = bd * (x[i] + Fraction(x[o[0]] + x[o[1]] - t[o[0]] - t[o[1]] - 2, 2)) * (1 - t[i])
        else:
            c = bd * (x[i] + t[i] + Fraction(x[o[0]] + x[o[1]] - 2 - t[o[0]] - t[o[1]], 2)) * (1 - t[p])
        c = int(c // 1)
        cap[i] = min(c, left[i]) if caps else c
    s = min(sum(cap[i] for i in win_seats), sum(cap[i] for i in lose_seats))
    delta = [0] * 4
    for seats, sign in ((win_seats, 1), (lose_seats, -1)):
        lo, hi = seats
        P, Q = cap[lo], cap[hi]
        if model == "seed":
            first = min(P, max(s - s // 2, s - Q))
        else:
            second = s * x[hi] // (x[lo] + x[hi])
            first = s - second
            first = min(first, P)
            if s - first > Q:
                first = s - Q
        delta[lo] = sign * first
        delta[hi] = sign * (s - first)
    return delta, fees, cap, s
