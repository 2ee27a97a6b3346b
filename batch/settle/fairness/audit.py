"""The fairness tests, from a run's tallies (:mod:`.tally`): one list of named tests, each with its
statistic, p-value and whether it is rejected at the run's level after Holm's correction for the
number of tests.

- **All-ins** (Hold'em, short deck): a group's shares of the pots won against its summed equity,
  ``z = (won - expected) / sqrt(summed variance)``, the variance each all-in's own over its
  board's completions. For the favourite, a street, a seat or a player, each all-in adds one
  seat, so the all-ins are independent and z is standard normal when the deal is fair. An equity
  tenth may hold two seats of one all-in, whose results move opposite ways: the summed variance
  then overstates the true one, which makes that test cautious, never alarmist.
- **Cards**: per slot, a chi-square of the cards' counts against their expected counts (uniform
  for a hole slot; given the hole cards and earlier board cards for a board slot).
- **Categories** (three-card games): per seat, a chi-square of the categories dealt against their
  exact odds (every three-card hand of the deck counted). Categories expected fewer than
  :data:`MIN_EXPECTED` times are pooled.

A scope whose rows hide some seats' cards (``hidden`` in the tallies) has its all-in tests run on
the complete rows alone and its card tests not run: the complete rows of such a log are those
whose players all reached a showdown, a sample chosen by the cards. A draw game's rows have no
card tests either: a seat's recorded hand is the one it ended with, partly its player's choice.
Each such omission is listed with its reason (``not_run``).

A test needs :data:`MIN_ALLINS` all-ins, or an expected count of :data:`MIN_EXPECTED` in every
cell; groups with less are listed as skipped, not tested.

Each test also says, for whoever reads the verdict: its ``game`` and ``scope`` (``all``, or the
``--by`` group), ``what`` it tests in words (``seat 0, first hole card``), its Holm ``threshold``
(rejected when its p-value, and every smaller one, is at or below its threshold) and its
``adjusted_p`` (rejected when at most the level); a card test names the :data:`MOST_OFF` cards
furthest from their expected counts (``most_off``: card, observed, expected, z), a category test
the categories (``most_off`` too).
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from cardbatch.batch.settle.fairness.stats import chi2_sf, holm, holm_adjusted, holm_thresholds, normal_two_sided
from cardbatch.games import REGISTRY

MIN_ALLINS = 30
MIN_EXPECTED = 5.0
MOST_OFF = 3  # cards (or categories) a test names, furthest from their expected counts first


@functools.cache
def category_odds(rules: str) -> tuple[float, ...]:
    """Each three-card category's exact probability under ``rules``: every hand of the deck counted."""
    from itertools import combinations

    from cardbatch.kernels import threecard

    hands = np.array(list(combinations(range(52), 3)), np.uint8)
    cats = threecard.category_of(threecard.evaluate(hands, rules), rules)
    counts = np.bincount(cats.astype(np.int64))
    return tuple(float(c) / len(hands) for c in counts)


def card_name(code: int) -> str:
    """A card's text from its code (``51`` is ``As``)."""
    from cardbatch.kernels.cards import RANKS, SUITS

    return RANKS[code // 4] + SUITS[code % 4]


_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth")


def _ordinal(k: int) -> str:
    return _ORDINALS[k] if k < len(_ORDINALS) else f"card {k + 1}"


def slot_words(slot: str, board_cards: int = 5) -> str:
    """A card slot in words: ``hole 0.1`` is seat 0's second hole card, ``board 3`` the turn card
    (of a five-card board: three flop cards, the turn, the river).

    >>> slot_words("hole 0.0"), slot_words("board 1"), slot_words("board 4"), slot_words("board 2", 3)
    ('seat 0, first hole card', 'second flop card', 'river card', 'third board card')
    """
    kind, _, where = slot.partition(" ")
    if kind == "hole" and "." in where:
        seat, card = where.split(".", 1)
        return f"seat {seat}, {_ordinal(int(card))} hole card"
    if kind == "board" and where.isdigit():
        k = int(where)
        if board_cards == 5:
            return f"{_ordinal(k)} flop card" if k < 3 else ("turn card" if k == 3 else "river card")
        return f"{_ordinal(k)} board card"
    return slot


_STREETS = {"0": "preflop", "1": "on the flop", "2": "on the turn"}


def allin_words(group: str) -> str:
    """An all-in group in words.

    >>> allin_words("street=1"), allin_words("equity=3"), allin_words("seat=2")
    ('favourites all-in on the flop', 'live seats of equity 0.3 to 0.4', 'live seats at seat 2')
    """
    kind, _, value = group.partition("=")
    if kind == "favourite":
        return "each all-in's favourite (its seat of highest equity)"
    if kind == "street":
        return f"favourites all-in {_STREETS.get(value, 'on street ' + value)}"
    if kind == "equity" and value.isdigit():
        b = int(value)
        return f"live seats of equity {b / 10:.1f} to {(b + 1) / 10:.1f}"
    if kind == "seat":
        return f"live seats at seat {value}"
    if kind == "player":
        return f"player {value}"
    return group


def _category_names(rules: str, size: int) -> list[str]:
    from cardbatch.kernels import threecard

    names = list(threecard.category_names(rules))
    return [names[k] if k < len(names) else f"category {k}" for k in range(size)]


def _most_off(names: list[str], obs: np.ndarray, exp: np.ndarray) -> list[dict[str, Any]]:
    """The :data:`MOST_OFF` cells furthest from their expected counts, in standard deviations
    (``z = (observed - expected) / sqrt(expected)``, each cell's share of the chi-square)."""
    z = np.where(exp > 0, (obs - exp) / np.sqrt(np.where(exp > 0, exp, 1.0)), 0.0)
    order = np.argsort(-np.abs(z), kind="stable")[:MOST_OFF]
    return [
        {"name": names[k], "observed": int(obs[k]), "expected": round(float(exp[k]), 3), "z": round(float(z[k]), 2)}
        for k in order
    ]


def _chi2(obs: np.ndarray, exp: np.ndarray) -> tuple[float, int] | None:
    """(statistic, degrees of freedom), pooling the cells expected fewer than MIN_EXPECTED times;
    None when fewer than two cells are left."""
    keep = exp >= MIN_EXPECTED
    o = list(obs[keep])
    e = list(exp[keep])
    if (~keep).any() and exp[~keep].sum() >= MIN_EXPECTED:
        o.append(obs[~keep].sum())
        e.append(exp[~keep].sum())
    if len(e) < 2:
        return None
    oa, ea = np.array(o, float), np.array(e, float)
    return float(((oa - ea) ** 2 / ea).sum()), len(e) - 1


def _allin_tests(prefix: str, groups: dict[str, Any], tests: list[dict[str, Any]], skipped: list[str]) -> None:
    for group, g in sorted(groups.items()):
        name = f"{prefix} all-ins, {group}"
        if g["n"] < MIN_ALLINS or g["v"] <= 0:
            skipped.append(name)
            continue
        z = (g["x"] - g["e"]) / math.sqrt(g["v"])
        tests.append(
            {
                "name": name,
                "family": "allin",
                "what": allin_words(group),
                "group": group,
                "n": int(g["n"]),
                "won": round(g["x"], 6),
                "expected": round(g["e"], 6),
                "statistic": z,
                "p_value": normal_two_sided(z),
            }
        )


def _card_tests(prefix: str, game: str, slots: dict[str, Any], tests: list[dict[str, Any]], skipped: list[str]) -> None:
    low = 4 * REGISTRY[game].lowest_rank
    deck = np.arange(low, 52)
    for slot, c in sorted(slots.items()):
        obs = np.array([c["obs"].get(str(k), 0) for k in deck], float)
        n = obs.sum()
        exp = np.array([c["exp"].get(str(k), 0.0) for k in deck]) if "exp" in c else np.full(deck.size, n / deck.size)
        got = _chi2(obs, exp)
        name = f"{prefix} cards, {slot}"
        if got is None or exp.min() < MIN_EXPECTED:
            skipped.append(name)
            continue
        stat, df = got
        tests.append(
            {
                "name": name,
                "family": "cards",
                "what": slot_words(slot, REGISTRY[game].board_cards),
                "n": int(n),
                "statistic": stat,
                "df": df,
                "p_value": chi2_sf(stat, df),
                "most_off": _most_off([card_name(int(k)) for k in deck], obs, exp),
            }
        )


def _category_tests(
    prefix: str, rules: str, seats: dict[str, Any], tests: list[dict[str, Any]], skipped: list[str]
) -> None:
    odds = np.array(category_odds(rules))
    for seat, counts in sorted(seats.items()):
        obs = np.array([counts.get(str(k), 0) for k in range(odds.size)], float)
        n = obs.sum()
        got = _chi2(obs, n * odds)
        name = f"{prefix} categories, {seat}"
        if got is None:
            skipped.append(name)
            continue
        stat, df = got
        tests.append(
            {
                "name": name,
                "family": "categories",
                "what": f"{seat}, hand categories dealt",
                "n": int(n),
                "statistic": stat,
                "df": df,
                "p_value": chi2_sf(stat, df),
                "dealt": [int(v) for v in obs],
                "expected": [round(float(v), 3) for v in n * odds],
                "most_off": _most_off(_category_names(rules, odds.size), obs, n * odds),
            }
        )


def _rows(n: int) -> str:
    return f"{n:,} row{'s' if n != 1 else ''}"


def hidden_reasons(prefix: str, hidden: dict[str, int], kinds: tuple[str, ...]) -> list[dict[str, Any]]:
    """What a scope whose rows hide some seats' cards leaves out, and why (see the module's docstring);
    ``kinds``: the card test families it would have run (``cards``, ``categories``).

    >>> [r["tests"] for r in hidden_reasons("zjh:", {"rows": 10, "allins": 2}, ("cards", "categories"))]
    ['zjh: all-ins (2 of them)', 'zjh: cards and categories']
    >>> hidden_reasons("holdem:", {"rows": 1, "allins": 0}, ("cards",))[0]["reason"][:24]
    '1 row does not record ev'
    """
    rows, allins = int(hidden.get("rows", 0)), int(hidden.get("allins", 0))
    out = []
    if allins:
        out.append(
            {
                "tests": f"{prefix} all-ins ({allins:,} of them)",
                "rows": allins,
                "reason": f"{allins:,} all-in{'s' if allins != 1 else ''} with a seat's cards not recorded "
                f"{'are' if allins != 1 else 'is'} left out of the all-in tests: the deck at the all-in is not "
                "known, and counting the hidden cards as still in it is biased where folds depend on the cards "
                "(the other all-ins are tested)",
            }
        )
    if kinds:
        verb = "does" if rows == 1 else "do"
        out.append(
            {
                "tests": f"{prefix} {' and '.join(kinds)}",
                "rows": rows,
                "reason": f"{_rows(rows)} {verb} not record every seat's cards: the rows that do are chosen by the "
                "cards (where folded hands are hidden, they are the hands whose players all reached a showdown), "
                f"so no {' or '.join({'cards': 'card', 'categories': 'category'}[k] for k in kinds)} test is run",
            }
        )
    return out


def drawn_reasons(prefix: str, game: str, rows: int) -> list[dict[str, Any]]:
    """Why a draw game's cards are not tested (``game`` a draw game, its scope's ``rows``), as
    :func:`hidden_reasons` says it for hidden cards; nothing for another game.

    >>> drawn_reasons("badugi:", "badugi", 5)[0]["tests"], drawn_reasons("stud:", "stud", 5)
    ('badugi: cards', [])
    """
    spec = REGISTRY.get(game)
    if spec is None or not spec.has_hands or spec.cards_as_dealt or not rows:
        return []
    return [
        {
            "tests": f"{prefix} cards",
            "rows": rows,
            "reason": f"each {game} row records the hand each seat ended with, the cards it kept and drew by "
            "its player's choice, not the cards it was dealt: their counts tell nothing of the deal, so no card "
            "test is run",
        }
    ]


def run_tests(by_game: dict[str, Any], rules: str, level: float) -> dict[str, Any]:
    """Every test of a run's per-game counters (``summary["by_game"]``), corrected together."""
    tests: list[dict[str, Any]] = []
    skipped: list[str] = []
    not_run: list[dict[str, Any]] = []
    whole: list[str] = []  # --by groups that hold every row of their game: their tests would be the game's again
    for game, counters in sorted(by_game.items()):
        scopes = counters.get("fairness", {})
        for scope, t in sorted(scopes.items()):
            if scope != "all" and t.get("rows") == scopes.get("all", {}).get("rows"):
                whole.append(f"{game} ({scope})")
                continue
            prefix = f"{game} ({scope}):" if scope != "all" else f"{game}:"
            first = len(tests)
            hidden = t.get("hidden", {})
            kinds = tuple(k for k in ("cards", "categories") if t.get(k))
            not_run += hidden_reasons(prefix, hidden, kinds) if hidden.get("rows") else []
            not_run += drawn_reasons(prefix, game, int(t.get("rows", 0)))
            _allin_tests(prefix, t.get("allin", {}), tests, skipped)
            if not hidden.get("rows"):
                _card_tests(prefix, game, t.get("cards", {}), tests, skipped)
                _category_tests(prefix, rules, t.get("categories", {}), tests, skipped)
            for test in tests[first:]:
                test.update(game=game, scope=scope)
    p_values = [t["p_value"] for t in tests]
    for t, rejected, threshold, adjusted in zip(
        tests, holm(p_values, level), holm_thresholds(p_values, level), holm_adjusted(p_values)
    ):
        t.update(rejected=rejected, threshold=threshold, adjusted_p=adjusted)
    return {
        "level": level,
        "rules": rules,
        "correction": "holm",
        "tests": tests,
        "rejected": [t["name"] for t in tests if t["rejected"]],
        "skipped": len(skipped),
        "skipped_examples": skipped[:20],
        "not_run": not_run,
        "groups_of_every_row": whole,
    }
