"""Slow, plain-Python settlement written from SPEC §5 and §6, for tests only.

Each table is lists of ints/bools; the functions raise Orphan when a layer has
no live contributor (``standard``, ``presence``) or a street has chips but no
live contributor (``ratio_rank``, ``hybrid``) and refunds are off.
"""

from __future__ import annotations


class Orphan(Exception):
    pass


def seat_order(button: int, S: int) -> list[int]:
    """Seats in order starting at the first seat left of the button."""
    return [(button + 1 + t) % S for t in range(S)]


def split_equal(amount, winners, button, S, unit=1, first_winner=False):
    """SPEC §5.4: amount // k each (in whole units), odd pieces from the seat left of the button."""
    out = [0] * S
    if not winners or amount == 0:
        return out
    k = len(winners)
    share = amount // (k * unit) * unit
    for w in winners:
        out[w] += share
    rest = amount - share * k
    for s in seat_order(button, S):
        if rest == 0:
            break
        if s in winners:
            piece = rest if first_winner else min(unit, rest)
            out[s] += piece
            rest -= piece
    return out


def split_proportional(amount, weights, seats, button, S, first_winner=False):
    out = [0] * S
    total = sum(weights[s] for s in seats)
    if amount == 0 or total == 0:
        return out, amount
    for s in seats:
        out[s] = amount * weights[s] // total
    rest = amount - sum(out)
    for s in seat_order(button, S):
        if rest == 0:
            break
        if s in seats and weights[s] > 0:
            piece = rest if first_winner else 1
            out[s] += piece
            rest -= piece
    return out, 0


def add(a, b):
    return [x + y for x, y in zip(a, b)]


def layers(contrib, live):
    """SPEC §5.1-2: layers, then adjacent layers of one kind and eligible set merged into pots."""
    S = len(contrib)
    levels = sorted({c for c in contrib if c > 0})
    pots = []
    prev = 0
    for L in levels:
        amount = sum(min(max(c - prev, 0), L - prev) for c in contrib)
        contributors = {s for s in range(S) if contrib[s] >= L}
        eligible = {s for s in contributors if live[s]}
        kind = "orphan" if not eligible else ("uncalled" if len(contributors) == 1 else "normal")
        if pots and pots[-1]["kind"] == kind and pots[-1]["eligible"] == eligible and kind != "orphan":
            pots[-1]["amount"] += amount
            pots[-1]["hi"] = L
        else:
            pots.append({"lo": prev, "hi": L, "amount": amount, "eligible": eligible or contributors, "kind": kind})
        prev = L
    return pots


def best(seats, score):
    if not seats:
        return set()
    top = max(score[s] for s in seats)
    return {s for s in seats if score[s] == top}


def winners_of(eligible, score, special=None, trips_floor=None):
    won = best(eligible, score)
    if special is not None and score[min(won)] >= trips_floor:
        spec = {s for s in eligible if special[s]}
        if spec:
            return best(spec, score)
    return won


def standard(
    contrib,
    live,
    score,
    button,
    rake_num=0,
    rake_den=1,
    rake_cap=None,
    no_rake=False,
    unit=1,
    first_winner=False,
    refund=False,
    special=None,
    trips_floor=None,
    dead=None,
):
    """Returns (payout, rake). ``dead``: SPEC §5 step 7, the dead chips' pot first."""
    S = len(contrib)
    dead = dead or [0] * S
    pots = layers([c - d for c, d in zip(contrib, dead)], live)
    if sum(dead):
        eligible = {s for s in range(S) if live[s] and contrib[s] > 0}
        posted = {s for s in range(S) if dead[s] > 0}
        kind = "orphan" if not eligible else ("uncalled" if eligible == posted and len(eligible) == 1 else "normal")
        if pots and kind != "orphan" and pots[0]["kind"] == kind and pots[0]["eligible"] == eligible:
            pots[0]["amount"] += sum(dead)
        else:
            pots.insert(0, {"lo": 0, "hi": 0, "amount": sum(dead), "eligible": eligible or posted, "kind": kind})
    if any(p["kind"] == "orphan" for p in pots) and not refund:
        raise Orphan
    raked = sum(p["amount"] for p in pots if p["kind"] == "normal")
    rake = 0 if (no_rake or rake_num == 0) else raked * rake_num // rake_den
    if rake_cap is not None:
        rake = min(rake, rake_cap)
    left = rake
    out = [0] * S
    for p in pots:
        amount = p["amount"]
        if p["kind"] == "orphan":
            for s in range(S):
                live_chips = contrib[s] - dead[s]
                out[s] += min(max(live_chips - p["lo"], 0), p["hi"] - p["lo"]) if p["hi"] else dead[s]
            continue
        if p["kind"] == "uncalled":
            out = add(out, split_equal(amount, p["eligible"], button, S, unit, first_winner))
            continue
        take = min(left, amount)
        left -= take
        won = winners_of(p["eligible"], score, special, trips_floor)
        out = add(out, split_equal(amount - take, won, button, S, unit, first_winner))
    return out, rake


def loser_groups(remaining, weights, losers, score, button, S, first_winner, out):
    pending = set(losers)
    while pending and remaining > 0:
        group = best(pending, score)
        pending -= group
        need = sum(weights[s] for s in group)
        if need <= remaining:
            for s in group:
                out[s] += weights[s]
            remaining -= need
        else:
            part, remaining = split_proportional(remaining, weights, group, button, S, first_winner)
            out = add(out, part)
            remaining = 0
    return out, remaining


def street_policy(
    policy, streets, live, score, button, unit=1, first_winner=False, refund=False, special=None, trips_floor=None
):
    """SPEC §6 over ``streets`` (a list of contribution rows)."""
    S = len(live)
    live_seats = {s for s in range(S) if live[s]}
    W = winners_of(live_seats, score, special, trips_floor)
    losers = live_seats - W
    out = [0] * S
    for c in streets:
        pots = layers(c, live)
        live_contributors = {s for s in live_seats if c[s] > 0}
        # orphan layers: presence's problem per layer; ratio_rank's and hybrid's only without any live contributor
        orphans_scoped = policy != "presence" and live_contributors
        if not orphans_scoped:
            if any(p["kind"] == "orphan" for p in pots) and not refund:
                raise Orphan
            for p in pots:
                if p["kind"] == "orphan":
                    for s in range(S):
                        out[s] += min(max(c[s] - p["lo"], 0), p["hi"] - p["lo"])
            pots = [p for p in pots if p["kind"] != "orphan"]
        T = sum(p["amount"] for p in pots)
        if T == 0:
            continue
        if policy == "ratio_rank":
            stake = [sum(min(c[i], c[j]) for j in range(S)) for i in range(S)]
            remaining = T
            if len(W) == 1:
                (w,) = W
                out[w] += min(stake[w], T)
                remaining -= min(stake[w], T)
            elif sum(stake[w] for w in W) >= T:
                part, remaining = split_proportional(T, c, W, button, S, first_winner)
                out = add(out, part)
            else:
                for w in W:
                    out[w] += stake[w]
                    remaining -= stake[w]
            out, remaining = loser_groups(remaining, list(c), losers, score, button, S, first_winner, out)
            if remaining:
                out = add(out, split_equal(remaining, best(live_contributors, score), button, S, unit, first_winner))
            continue
        rest_weights = [0] * S
        rest_total = 0
        for p in pots:
            share = [min(max(c[s] - p["lo"], 0), p["hi"] - p["lo"]) for s in range(S)]
            if p["kind"] == "orphan":  # hybrid, street-scoped: what is left after the losers goes to the best
                rest_total += p["amount"]
                continue
            won = p["eligible"] & W
            if won:
                out = add(out, split_equal(p["amount"], won, button, S, unit, first_winner))
            elif policy == "presence":
                back = 0
                for s in p["eligible"]:
                    out[s] += share[s]
                    back += share[s]
                out = add(
                    out, split_equal(p["amount"] - back, best(p["eligible"], score), button, S, unit, first_winner)
                )
            else:
                for s in p["eligible"]:
                    rest_weights[s] += share[s]
                rest_total += p["amount"]
        if policy == "hybrid" and rest_total:
            out, remaining = loser_groups(rest_total, rest_weights, losers, score, button, S, first_winner, out)
            if remaining:
                out = add(out, split_equal(remaining, best(live_contributors, score), button, S, unit, first_winner))
    return out
