"""Three-card hands (Zha Jin Hua and relatives): one int32 value per hand, higher is better.

Values follow the seed's public scale (docs: Rules, the classic scale): a category's values sit on
top of the largest value of the category below it, each category scored by
the seed's formula (high card ``n1*256 + n2*16 + n3``, pair ``p*16 + k``,
straight and straight flush by their lowest number, flush as high card,
trips by the number). For the ``zjh`` order this reproduces the seed's
numbers exactly (AKJ 3803, AAK 4040, A23 4041, AKQ 4052, flush AKJ 7855,
straight flush A23 7856, AKQ 7867, AAA 7881); other orders stack the same
per-category scores in their own order. ``suited`` appends the seed's suit
code (``value * 64 + s1*16 + s2*4 + s3``).

A rule set lowers to one lookup table built once per rule set, indexed
directly by the three card codes in the order given:
``x << 12 | y << 6 | z`` for codes below 64 (2**18 entries; a code of 64 or
more reads entry 0). Entries of a repeated card, a code 52..63 or entry 0
hold -1, so validation costs no branch: one load per hand. The table is
``int16`` (512 KiB) when every value fits, as for all unsuited rules, else
``int32`` (1 MiB, ``zjh_suited``).
"""

# Rejected, measured on 10 M random hands, one thread (2-vCPU VM): the sorted multiset index ``lo + C2[mid] + C3[hi]``
# of a 26,235-entry table (three min/max and two more loads per hand): 421 M/s, against 680 M/s for the direct
# ``int16`` table; a 53**3 table with each code clamped to 52 (595 KiB): 630-650 M/s.

from __future__ import annotations

import dataclasses
import functools
import itertools
from typing import Any

import numpy as np
from numba import njit, prange
from numpy.typing import ArrayLike

from cardbatch.constants import RULE_PRESETS

from .cards import RANKS, SUITS, card_problem, check_card_array, check_out
from .twins import twin

HIGH, PAIR, STRAIGHT, FLUSH, STRAIGHT_FLUSH, TRIPS = range(6)
_CATEGORY_NAMES = {
    "zjh": ("high card", "pair", "straight", "flush", "straight flush", "trips"),
    "teen_patti": ("high card", "pair", "sequence", "color", "pure sequence", "trail"),
    "three_card_poker": ("high card", "pair", "straight", "flush", "straight flush", "three of a kind"),
}
_MAX_WITHIN = {
    HIGH: 14 * 256 + 13 * 16 + 11,
    PAIR: 14 * 16 + 13,
    STRAIGHT: 12,
    FLUSH: 14 * 256 + 13 * 16 + 11,
    STRAIGHT_FLUSH: 12,
    TRIPS: 14,
}
ORDERS = {  # worst to best
    "zjh": (HIGH, PAIR, STRAIGHT, FLUSH, STRAIGHT_FLUSH, TRIPS),
    "teen_patti": (HIGH, PAIR, FLUSH, STRAIGHT, STRAIGHT_FLUSH, TRIPS),
    "three_card_poker": (HIGH, PAIR, FLUSH, STRAIGHT, TRIPS, STRAIGHT_FLUSH),
}
N_HANDS = 22100
N_SLOTS = 1 << 18  # the direct table: three 6-bit codes


@dataclasses.dataclass(frozen=True)
class Rules:
    """An immutable, hashable three-card rule set.

    ``order``: ``"zjh"`` (trips > straight flush > flush > straight > pair >
    high), ``"teen_patti"`` (trail > pure sequence > sequence > color > pair >
    high) or ``"three_card_poker"`` (straight flush > trips > straight > flush). ``suited``: suits
    break ties (seed's suited value). ``a23``: ``"lowest"`` (A-2-3 is the
    smallest straight, seed) or ``"second"`` (just below A-K-Q).
    ``beats_trips_235``: an off-suit 2-3-5 beats trips and nothing else; not
    part of the value (it is not transitive), applied per pot by
    :func:`winners_235` and the pot kernels.
    """

    order: str = "zjh"
    suited: bool = False
    a23: str = "lowest"
    beats_trips_235: bool = False
    names: str = "zjh"

    def __post_init__(self):
        if self.order not in ORDERS:
            raise ValueError(f"rules: unknown order {self.order!r} (choose from {sorted(ORDERS)})")
        if self.a23 not in ("lowest", "second"):
            raise ValueError(f"rules: a23 must be 'lowest' or 'second', not {self.a23!r}")
        if self.names not in _CATEGORY_NAMES:
            raise ValueError(f"rules: unknown names {self.names!r}")
        if not isinstance(self.suited, bool) or not isinstance(self.beats_trips_235, bool):
            raise ValueError("rules: suited and beats_trips_235 must be booleans")

    def replace(self, **changes: Any) -> Rules:
        return dataclasses.replace(self, **changes)


# the presets by name (the names: cardbatch.constants.RULE_PRESETS, which --help reads without numba)
PRESETS = dict(
    zip(
        RULE_PRESETS,
        (
            Rules(),  # zjh
            Rules(suited=True),  # zjh_suited
            Rules(order="teen_patti", a23="second", names="teen_patti"),  # teen_patti
            Rules(order="three_card_poker", names="three_card_poker"),  # three_card_poker
        ),
        strict=True,
    )
)


def rules_of(rules: str | Rules) -> Rules:
    """A :class:`Rules` from a preset name or a rule object (``ValueError`` for unknown names)."""
    if isinstance(rules, Rules):
        return rules
    if isinstance(rules, str) and rules in PRESETS:
        return PRESETS[rules]
    raise ValueError(f"rules: unknown rule set {rules!r} (presets: {', '.join(PRESETS)})")


def _bases(order: tuple[int, ...]) -> dict[int, int]:
    bases, base = {}, 0
    for cat in order:
        bases[cat] = base
        base += _MAX_WITHIN[cat]
    return bases


def _classify(hand: tuple[int, int, int], a23: str) -> tuple[int, int, list[int]]:
    """Category, within-category score, and the cards in comparison order (for suit codes)."""
    nums = sorted(((c >> 2) + 2 for c in hand), reverse=True)
    by_cmp = sorted(hand, key=lambda c: ((c >> 2), c & 3), reverse=True)
    flush = len({c & 3 for c in hand}) == 1
    n1, n2, n3 = nums
    if n1 == n2 == n3:
        return TRIPS, n1, by_cmp
    if n1 == n2 or n2 == n3:
        p, k = (n1, n3) if n1 == n2 else (n2, n1)
        pair_cards = [c for c in by_cmp if (c >> 2) + 2 == p]
        return PAIR, p * 16 + k, pair_cards + [c for c in by_cmp if (c >> 2) + 2 != p]
    straight_low = None
    if n1 - n3 == 2:
        straight_low = n3
    elif (n1, n2, n3) == (14, 3, 2):
        straight_low = 1
        by_cmp = by_cmp[1:] + by_cmp[:1]  # 3, 2, A
    if straight_low is not None:
        if a23 == "second":  # 2-3-4 .. J-Q-K = 1..10, A-2-3 = 11, A-K-Q = 12
            within = 11 if straight_low == 1 else (12 if straight_low == 12 else straight_low - 1)
        else:
            within = straight_low
        return (STRAIGHT_FLUSH if flush else STRAIGHT), within, by_cmp
    return (FLUSH if flush else HIGH), n1 * 256 + n2 * 16 + n3, by_cmp


@functools.lru_cache(maxsize=32)
def _tables(rules: Rules) -> tuple[np.ndarray, np.ndarray]:
    """Value and category of every hand, indexed by combination index (built once per rule set)."""
    bases = _bases(ORDERS[rules.order])
    values = np.zeros(N_HANDS, dtype=np.int64)
    cats = np.zeros(N_HANDS, dtype=np.uint8)
    for idx, (a, b, c) in enumerate(_all_hands()):
        cat, within, cmp_order = _classify((a, b, c), rules.a23)
        value = bases[cat] + within
        if rules.suited:
            s1, s2, s3 = (x & 3 for x in cmp_order)
            value = value * 64 + s1 * 16 + s2 * 4 + s3
        values[idx] = value
        cats[idx] = cat
    return values, cats


@functools.lru_cache(maxsize=1)
def _all_hands() -> np.ndarray:
    """All 22,100 hands as sorted card triples, in lexicographic order."""
    return np.array(list(itertools.combinations(range(52), 3)), dtype=np.int64)


@functools.lru_cache(maxsize=32)
def lookup_of(rules: str | Rules) -> np.ndarray:
    """The value of every ordered triple of codes at ``x << 12 | y << 6 | z``, -1 where invalid.

    ``int16`` when every value fits (unsuited rules: half the cache
    footprint), else ``int32``. Built from the 22,100 hands' values, placed
    at all six orders of their cards.
    """
    values, _ = _tables(rules_of(rules))
    hands = _all_hands()
    dtype = np.int16 if values.max() <= np.iinfo(np.int16).max else np.int32
    out = np.full(N_SLOTS, -1, dtype=dtype)
    for x, y, z in itertools.permutations(range(3)):
        out[(hands[:, x] << 12) | (hands[:, y] << 6) | hands[:, z]] = values
    return out


_SIX = np.uint64(6)
_TWELVE = np.uint64(12)
_CODE_LIMIT = np.uint64(64)


@njit(cache=True, inline="always")
def lookup_value(x, y, z, lookup):
    """Value of three cards in any order through :func:`lookup_of`; -1 if invalid.

    Unsigned indices: numba adds a negative-index fix-up to every signed one.
    """
    x = np.uint64(x)
    y = np.uint64(y)
    z = np.uint64(z)
    index = (x << _TWELVE) | (y << _SIX) | z
    return np.int64(lookup[index if (x | y | z) < _CODE_LIMIT else np.uint64(0)])


@njit(cache=True, parallel=True)
def _evaluate_kernel(flat, lookup, out):
    """Value of each hand of ``flat`` (``cards[N, 3]`` flattened) into ``out``; returns the number of
    invalid rows (-1).

    Flat and unsigned: ``cards[i, j]`` with the loop's signed ``i`` costs stride arithmetic and a
    negative-index fix-up per card, 626 against 973 M hands/s on one thread.
    """
    nbad = 0
    for i in prange(out.shape[0]):
        base = np.uint64(i) * np.uint64(3)
        v = lookup_value(flat[base], flat[base + np.uint64(1)], flat[base + np.uint64(2)], lookup)
        nbad += v < 0
        out[np.uint64(i)] = v
    return nbad


def evaluate(cards: ArrayLike, rules: str | Rules = "zjh", out: np.ndarray | None = None) -> np.ndarray:
    """Value (``int32``, higher is better) of each hand in ``cards[N, 3]`` under ``rules``.

    ``out``: an ``int32[N]`` array to write into (reuse it across batches to
    skip page-faulting a fresh array). Raises ``ValueError`` naming the first
    row with a card outside 0..51 or repeated, or the rule set if it is unknown.

    >>> from cardbatch.kernels.cards import parse
    >>> evaluate(parse(["AhAdKs", "6h4d2d", "3c2dAs"])).tolist()
    [4040, 1602, 4041]
    >>> evaluate(parse(["6h4d2d"]), rules="zjh_suited").tolist()
    [102560]
    """
    lookup = lookup_of(rules_of(rules))
    arr = check_card_array(cards, (3,), "evaluate")
    out = check_out(out, arr.shape[0], np.int32)
    if _evaluate_kernel(arr.reshape(-1), lookup, out):
        row = int(np.flatnonzero(out < 0)[0])
        raise ValueError(f"evaluate: row {row} {arr[row].tolist()}: {card_problem(arr[row])}")
    return out


def _value_index(values: ArrayLike, rules: Rules, name: str) -> np.ndarray:
    table, _ = _tables(rules)
    arr = np.asarray(values)
    if arr.dtype.kind not in "ui":
        raise ValueError(f"{name}: expected integer values, got dtype {arr.dtype}")
    order = np.argsort(table, kind="stable")
    sorted_vals = table[order]
    flat = arr.reshape(-1)
    pos = np.searchsorted(sorted_vals, flat).clip(0, N_HANDS - 1)
    ok = sorted_vals[pos] == flat
    if not ok.all():
        row = int(np.flatnonzero(~ok)[0])
        raise ValueError(f"{name}: row {row} value {int(flat[row])} is not a value of these rules")
    return order[pos].reshape(arr.shape)


@functools.lru_cache(maxsize=32)
def category_by_value(rules: Rules) -> np.ndarray:
    """``uint8[max value + 1]``: the category of each value, 255 where no hand has that value."""
    table, cats = _tables(rules)
    out = np.full(int(table.max()) + 1, 255, dtype=np.uint8)
    out[table] = cats
    return out


def category_of(values: ArrayLike, rules: str | Rules = "zjh") -> np.ndarray:
    """Category of each value: ``uint8``, 0 high card, 1 pair, 2 straight, 3 flush, 4 straight flush, 5 trips."""
    lookup = category_by_value(rules_of(rules))
    arr = np.asarray(values)
    if arr.dtype.kind not in "ui":
        raise ValueError(f"category_of: expected integer values, got dtype {arr.dtype}")
    inside = (arr >= 0) & (arr < len(lookup))
    cats = lookup[np.where(inside, arr, 0)]
    bad = ~inside | (cats == 255)
    if bad.any():
        row = int(np.flatnonzero(bad.reshape(-1))[0])
        raise ValueError(f"category_of: row {row} value {int(arr.reshape(-1)[row])} is not a value of these rules")
    return cats


def category_names(rules: str | Rules = "zjh") -> tuple[str, ...]:
    """The category names of a rule set, indexed by the codes :func:`category_of` returns."""
    return _CATEGORY_NAMES[rules_of(rules).names]


@functools.lru_cache(maxsize=32)
def distinct_values(rules: Rules) -> np.ndarray:
    """Every distinct value the 22,100 hands take under these rules, ascending (``int64``)."""
    table, _ = _tables(rules)
    return np.unique(table).astype(np.int64)


def is_235(cards: ArrayLike) -> np.ndarray:
    """True where a hand is an off-suit 2-3-5 (numbers 2, 3, 5, not all one suit)."""
    arr = check_card_array(cards, (3,), "is_235")
    ranks = np.sort(arr >> 2, axis=1)
    suits = arr & 3
    one_suit = (suits[:, 0] == suits[:, 1]) & (suits[:, 1] == suits[:, 2])
    return (ranks[:, 0] == 0) & (ranks[:, 1] == 1) & (ranks[:, 2] == 3) & ~one_suit


def winners_235(values: ArrayLike, special: ArrayLike, rules: str | Rules = "zjh") -> np.ndarray:
    """Winners of each group (row) of hands under the 2-3-5 rule: ``bool[G, S]``.

    ``values[G, S]`` (use a value below every real one, e.g. -1, for empty or
    folded seats) and ``special[G, S]`` (from :func:`is_235`). When the best
    hand of a row is trips and the row holds an off-suit 2-3-5, the best of
    the 2-3-5 hands win; otherwise the best values win.
    """
    r = rules_of(rules)
    vals = np.asarray(values, dtype=np.int64)
    spec = np.asarray(special, dtype=bool)
    if vals.ndim != 2 or spec.shape != vals.shape:
        raise ValueError("winners_235: values and special must both be [G, S]")
    best = vals.max(axis=1, keepdims=True)
    plain = vals == best
    if not r.beats_trips_235:
        return plain & (vals >= 0)
    floor = trips_floor(r)
    special_vals = np.where(spec, vals, -1)
    best_special = special_vals.max(axis=1, keepdims=True)
    flip = (best >= floor) & (best_special >= 0)
    return np.where(flip, special_vals == best_special, plain & (vals >= 0))


@functools.lru_cache(maxsize=32)
def trips_floor(rules: Rules) -> int:
    """Smallest value of a trips hand under these rules."""
    table, cats = _tables(rules)
    return int(table[cats == TRIPS].min())


def describe(value: int, rules: str | Rules = "zjh") -> str:
    """A readable name of one value: ``"flush, A-K-J"`` (ranks), or the cards when suits count."""
    r = rules_of(rules)
    idx = int(_value_index(np.array([value], dtype=np.int64), r, "describe")[0])
    table, cats = _tables(r)
    lo, mid, hi = (int(c) for c in _all_hands()[idx])
    ordered = _classify((lo, mid, hi), r.a23)[2]
    if r.suited:
        text = " ".join(RANKS[c >> 2] + SUITS[c & 3] for c in ordered)
    else:
        text = "-".join(RANKS[c >> 2] for c in ordered)
    name = _CATEGORY_NAMES[r.names][cats[idx]]
    return f"{name}, {text}"


@twin
@njit(cache=True, parallel=True)
def _evaluate_seats_kernel(hole, mask, lookup, out):
    T, S, _ = hole.shape
    for t in prange(T):
        for s in range(S):
            v = lookup_value(hole[t, s, 0], hole[t, s, 1], hole[t, s, 2], lookup) if mask[t, s] else 0
            out[t, s] = max(v, 0)


def evaluate_seats(hole: ArrayLike, mask: ArrayLike, rules: str | Rules = "zjh") -> np.ndarray:
    """Values of whole tables: ``hole[T, S, 3]`` where ``mask[T, S]``, else 0 (invalid hands score 0)."""
    h = np.ascontiguousarray(hole, dtype=np.uint8)
    m = np.ascontiguousarray(mask, dtype=np.bool_)
    if h.ndim != 3 or h.shape[2] != 3 or m.shape != h.shape[:2]:
        raise ValueError("evaluate_seats: expected hole [T, S, 3] and mask [T, S]")
    out = np.empty(m.shape, np.int64)
    _evaluate_seats_kernel(h, m, lookup_of(rules_of(rules)), out)
    return out
