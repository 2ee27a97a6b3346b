"""Ranking every seat of every deck: in its deck, over the whole run, and the decks themselves.

A run is decks × seats of hand values. For each seat: the value, its rank in
its deck (1 = best; equal values share a rank: 1 + the number of seats
strictly better), its global rank over all hands of the run (same rule); for
each deck: the winning seat(s), the best and second-best value (second-best is
the runner-up seat's value, equal to the best when seats tie), so margin 0
means a tie, and the margin in hand classes (how many classes of the game's
hands lie between the two: :func:`cardbatch.kernels.readable.margin_classes`).

Ranks come from a histogram over a small key domain (the hand value for
three-card games, ``7463 - dense rank`` for Hold'em), not a sort, so ranking
stays linear. The fused ``*_values`` kernels deal (see :mod:`cardbatch.kernels.decks`),
shuffling only the cards they deal, and evaluate in one pass.
"""

from __future__ import annotations

import dataclasses
import functools

import numba
import numpy as np
from numba import njit, prange
from numpy.typing import ArrayLike

from cardbatch.constants import MEASURES
from cardbatch.games import HOLDEM, REGISTRY, ZJH, Game

from . import holdem, showdown, threecard
from .decks import (
    board_positions,
    check_count,
    check_decks,
    deal_decks,
    deck_state,
    from_rank,
    hand_positions,
    holdem_positions,
    shuffle_prefix,
    zjh_positions,
)

_CHUNK = 2048


@dataclasses.dataclass
class DeckRanking:
    """Per-seat and per-deck results of a run (arrays; leading axis = decks)."""

    values: np.ndarray  # [n, P] hand value (int32 three-card, uint32 Hold'em)
    categories: np.ndarray  # [n, P] uint8
    rank_in_deck: np.ndarray  # [n, P] uint8, 1 = best
    global_rank: np.ndarray  # [n, P] int64, 1 = best hand of the run
    winners: np.ndarray  # [n, P] bool
    best: np.ndarray  # [n] value of the best seat
    second: np.ndarray  # [n] value of the runner-up seat
    start: int = 0  # index of the first deck
    # [n] hand classes between the best and the runner-up seat (0: a tie); the packed values'
    # difference (``margin``) counts no classes: a Hold'em margin of 1 class can be 2**20
    margin_classes: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros(0, np.int64))
    lower_wins: bool = False  # the game's smaller value wins (razz, deuce-to-seven, badugi)

    @property
    def margin(self) -> np.ndarray:
        """How far the best value stands from the runner-up's, never below 0: best - second, or
        second - best where the smaller value wins."""
        diff = self.best.astype(np.int64) - self.second.astype(np.int64)
        return -diff if self.lower_wins else diff

    def measure(self, by: str) -> np.ndarray:
        """A deck-level measure by name: best, second, margin (of the values), margin_classes (the
        margin in hand classes, as the readable output shows it), winners (number of tied winners).
        The larger measure is the better deck: where the smaller value wins, best and second are the
        values negated."""
        if by not in MEASURES:
            raise ValueError(f"unknown measure {by!r} (choose from {', '.join(MEASURES)})")
        if by == "winners":
            return self.winners.sum(axis=1)
        if by == "margin_classes":
            return self.margin_classes.astype(np.int64)
        if by == "margin":
            return self.margin
        value = getattr(self, by).astype(np.int64)
        return -value if self.lower_wins else value

    def top(self, k: int, by: str = "best") -> np.ndarray:
        """Indices of the k decks with the largest measure, largest first (ties: lower deck first)."""
        k = check_count(k, "k")
        m = self.measure(by)
        k = min(k, len(m))
        if k == 0:
            return np.zeros(0, dtype=np.int64)
        cand = np.argpartition(-m, k - 1)[:k] if k < len(m) else np.arange(len(m))
        # every deck tying the k-th measure competes; the lower deck index wins
        kth = m[cand].min()
        cand = np.flatnonzero(m >= kth)
        order = np.lexsort((cand, -m[cand]))
        return cand[order[:k]]


@njit(cache=True, parallel=True)
def _zjh_values_kernel(n, seed, start, positions, lookup, category_by_value, special_235, values, categories, special):
    """Deal decks start.. of seed, evaluate each ZJH seat through ``lookup`` (see ``threecard.lookup_of``)."""
    players = positions.shape[0]
    m = 3 * players
    for c0 in prange((n + _CHUNK - 1) // _CHUNK):
        deck = np.empty(52, dtype=np.uint8)
        for i in range(c0 * _CHUNK, min(n, (c0 + 1) * _CHUNK)):
            for c in range(52):
                deck[c] = c
            shuffle_prefix(deck, deck_state(seed, start + i), m)
            for j in range(players):
                x = np.int64(deck[np.uint64(positions[j, 0])])
                y = np.int64(deck[np.uint64(positions[j, 1])])
                z = np.int64(deck[np.uint64(positions[j, 2])])
                v = threecard.lookup_value(x, y, z, lookup)
                values[i, j] = v
                categories[i, j] = category_by_value[np.uint64(v)]  # dealt cards: v >= 0
                if special_235:
                    lo = min(x, min(y, z)) >> 2
                    hi = max(x, max(y, z)) >> 2
                    mid = ((x >> 2) + (y >> 2) + (z >> 2)) - lo - hi
                    one_suit = ((x & 3) == (y & 3)) and ((y & 3) == (z & 3))
                    special[i, j] = lo == 0 and mid == 1 and hi == 3 and not one_suit


@njit(cache=True, parallel=True)
def _holdem_values_kernel(n, seed, start, hole, board, dense_tables, score_of_dense, scores, keys):
    """Deal Hold'em decks and score each seat's seven cards; keys = 7463 - dense rank."""
    displace7, table7, _, _, flush_table, card_key, card_bit = dense_tables
    players = hole.shape[0]
    m = board[4] + 1
    for c0 in prange((n + _CHUNK - 1) // _CHUNK):
        deck = np.empty(52, dtype=np.uint8)
        dealt = np.empty(5, dtype=np.uint8)
        for i in range(c0 * _CHUNK, min(n, (c0 + 1) * _CHUNK)):
            for c in range(52):
                deck[c] = c
            shuffle_prefix(deck, deck_state(seed, start + i), m)
            for b in range(5):
                dealt[b] = deck[np.uint64(board[b])]
            bk, btotal, bbits = holdem.board_words(dealt, 0, card_key, card_bit)
            for j in range(players):
                dense, _ = holdem.seat_value(  # dealt cards: always valid
                    bk,
                    btotal,
                    bbits,
                    deck[np.uint64(hole[j, 0])],
                    deck[np.uint64(hole[j, 1])],
                    displace7,
                    table7,
                    flush_table,
                    card_key,
                    card_bit,
                )
                scores[i, j] = score_of_dense[dense]
                keys[i, j] = 7463 - dense


@njit(cache=True, parallel=True)
def _histogram_kernel(keys, domain, nthreads):
    """Count of each key over the whole run (per-thread histograms, striped chunks)."""
    n = keys.shape[0]
    nchunks = (n + _CHUNK - 1) // _CHUNK
    hist = np.zeros((nthreads, domain), dtype=np.int64)
    for t in prange(nthreads):
        for c0 in range(t, nchunks, nthreads):
            for i in range(c0 * _CHUNK, min(n, (c0 + 1) * _CHUNK)):
                for j in range(keys.shape[1]):
                    hist[t, keys[i, j]] += 1
    return hist.sum(axis=0)


@njit(cache=True, parallel=True)
def _rank_kernel(
    keys,
    values,
    greater,
    special,
    use_special,
    trips_floor,
    classes,
    rank_in_deck,
    global_rank,
    winners,
    best,
    second,
    margin_classes,
):
    """Per deck: ranks by key, global ranks from ``greater[key]``, winners, best and second values,
    and the classes (``classes[key]``) between them."""
    n, players = keys.shape
    for i in prange(n):
        top = -1
        top_seat = 0
        for j in range(players):
            kj = keys[i, j]
            better = 0
            for q in range(players):
                better += keys[i, q] > kj
            rank_in_deck[i, j] = better + 1
            global_rank[i, j] = greater[kj] + 1
            if kj > top:
                top = kj
                top_seat = j
        runner = -1
        runner_seat = top_seat
        for j in range(players):
            winners[i, j] = keys[i, j] == top
            if j != top_seat and keys[i, j] > runner:
                runner = keys[i, j]
                runner_seat = j
        best[i] = values[i, top_seat]
        second[i] = values[i, runner_seat]
        margin_classes[i] = classes[keys[i, top_seat]] - classes[keys[i, runner_seat]]
        if use_special and values[i, top_seat] >= trips_floor:
            # off-suit 2-3-5 beats trips: the best of the 2-3-5 hands win instead
            best235 = -1
            for j in range(players):
                if special[i, j] and keys[i, j] > best235:
                    best235 = keys[i, j]
            if best235 >= 0:
                for j in range(players):
                    winners[i, j] = special[i, j] and keys[i, j] == best235


@dataclasses.dataclass
class Hands:
    """Evaluated seats of a slice of decks, before ranking (what both ranking passes share)."""

    values: np.ndarray  # [n, P] hand values
    keys: np.ndarray  # [n, P] integers in 0..domain-1, larger = better
    categories: np.ndarray  # [n, P] uint8
    domain: int
    start: int = 0
    special: np.ndarray | None = None  # [n, P] off-suit 2-3-5 flags when the rule is on
    trips_floor: int = 0
    classes: np.ndarray | None = None  # int64[domain]: each key's hand class (None: the keys are the classes)
    lower_wins: bool = False  # the values order the other way (the keys never do)


def key_counts(hands: Hands) -> np.ndarray:
    """How many seats hold each key (the global-rank histogram; add them up across slices)."""
    return _histogram_kernel(hands.keys, hands.domain, numba.get_num_threads())


@functools.lru_cache(maxsize=16)
def _identity(domain: int) -> np.ndarray:
    """``int64[domain]``, each key its own class (read-only, as :func:`_three_card_classes`: one build)."""
    classes = np.arange(domain, dtype=np.int64)
    classes.flags.writeable = False
    return classes


def rank(hands: Hands, counts: np.ndarray | None = None) -> DeckRanking:
    """Rank a slice of decks; ``counts`` is the run's :func:`key_counts` (default: this slice's)."""
    n, players = hands.keys.shape
    counts = key_counts(hands) if counts is None else np.asarray(counts, dtype=np.int64)
    if counts.shape != (hands.domain,):
        raise ValueError(f"counts must have shape ({hands.domain},), got {counts.shape}")
    greater = (counts.sum() - np.cumsum(counts)).astype(np.int64)  # seats strictly better than key
    values = hands.values
    out = DeckRanking(
        values=values,
        categories=hands.categories,
        rank_in_deck=np.empty((n, players), np.uint8),
        global_rank=np.empty((n, players), np.int64),
        winners=np.empty((n, players), np.bool_),
        best=np.empty(n, values.dtype),
        second=np.empty(n, values.dtype),
        start=hands.start,
        margin_classes=np.empty(n, np.int64),
        lower_wins=hands.lower_wins,
    )
    classes = _identity(hands.domain) if hands.classes is None else hands.classes
    if classes.shape != (hands.domain,):
        raise ValueError(f"classes must have shape ({hands.domain},), got {classes.shape}")
    use_special = hands.special is not None
    _rank_kernel(
        hands.keys,
        values,
        greater,
        hands.special if use_special else np.zeros((1, 1), np.bool_),
        use_special,
        hands.trips_floor,
        np.ascontiguousarray(classes, dtype=np.int64),
        out.rank_in_deck,
        out.global_rank,
        out.winners,
        out.best,
        out.second,
        out.margin_classes,
    )
    return out


@functools.lru_cache(maxsize=16)
def _three_card_classes(rules: threecard.Rules, domain: int) -> np.ndarray:
    """``int64[domain]``: the hand class of each three-card value (1 = the weakest distinct value)."""
    values = threecard.distinct_values(rules)
    classes = np.zeros(domain, np.int64)
    classes[values] = np.arange(1, len(values) + 1, dtype=np.int64)
    classes.flags.writeable = False
    return classes


def _zjh_hands(
    values: np.ndarray, categories: np.ndarray, special: np.ndarray | None, rules: threecard.Rules, start: int
) -> Hands:
    use = rules.beats_trips_235 and special is not None
    domain = int(threecard.lookup_of(rules).max()) + 1
    return Hands(
        values=values,
        keys=values,
        categories=categories,
        domain=domain,
        start=start,
        special=np.ascontiguousarray(special, dtype=np.bool_) if use else None,
        trips_floor=threecard.trips_floor(rules) if use else 0,
        classes=_three_card_classes(rules, domain),
    )


# the games whose decks this module deals and ranks: every game with hands (Hold'em and the
# three-card games through kernels of their own, the other board games through their evaluators)
RANKED = tuple(g.name for g in REGISTRY.values() if g.has_hands)


def _board_hands(spec: Game, decks: np.ndarray, players: int, start: int) -> Hands:
    """Seats of a game other than Hold'em and the three-card games dealt from 52-card decks
    ``uint8[n, 52]`` (the game's own deck in their order: :func:`~.decks.from_rank`; a board game's
    hole cards and board, or a game without a board's hands, :func:`~.decks.hand_positions`), valued
    by the game's evaluator (a high/low game by its high hands; short deck in its default order; a
    low game's values as its evaluator writes them, the smaller the better); keys are the hand
    classes."""
    players = check_count(players, "players", 2, spec.dealt_seats)
    own = from_rank(decks, spec.lowest_rank)
    board = None
    if spec.board_cards:
        hole_pos, board_pos = board_positions(players, spec.hole_cards)
        hole, board = own[:, hole_pos], own[:, board_pos]
    else:
        hole = own[:, hand_positions(players, spec.hole_cards)]
    score, _ = showdown.seat_values(spec, hole, board, np.ones(hole.shape[:2], np.bool_))
    values = showdown.values_of(spec, score).astype(np.uint32)
    kernel = spec.kernel()
    classes = int(spec.classes or 0)
    keys = classes + 1 - kernel.dense_rank(values).astype(np.int64)
    categories = (values >> spec.category_shift if spec.category_shift else kernel.category_of(values)).astype(np.uint8)
    return Hands(
        values=values,
        keys=np.ascontiguousarray(keys),
        categories=categories,
        domain=classes + 1,
        start=start,
        lower_wins=spec.score_order == "low",
    )


def _ranked(game: str) -> Game:
    """The spec of ``game`` if it is one of :data:`RANKED`, else a ``ValueError`` naming it (never
    another game's deal)."""
    spec = REGISTRY.get(game) if isinstance(game, str) else None
    if spec is None or spec.name not in RANKED:
        raise ValueError(f"game must be one of {', '.join(RANKED)}, got {game!r}")
    return spec


def deal_and_evaluate(
    game: str, n: int, players: int, seed: int, rules: str | threecard.Rules = "zjh", start: int = 0
) -> Hands:
    """Deal decks ``start..start+n-1`` of ``seed`` to ``players`` seats and evaluate every seat."""
    spec = _ranked(game)
    n = check_count(n, "n")
    start = check_count(start, "start", 0, 2**63 - 1)
    seed = check_count(seed, "seed", 0, 2**64 - 1)
    if spec.kernel() is threecard:
        r = threecard.rules_of(rules)
        positions = zjh_positions(players)
        values = np.empty((n, players), np.int32)
        categories = np.empty((n, players), np.uint8)
        special = np.zeros((n, players) if r.beats_trips_235 else (1, 1), np.bool_)
        _zjh_values_kernel(
            n,
            np.uint64(seed),
            np.int64(start),
            positions,
            threecard.lookup_of(r),
            threecard.category_by_value(r),
            r.beats_trips_235,
            values,
            categories,
            special,
        )
        return _zjh_hands(values, categories, special if r.beats_trips_235 else None, r, start)
    if spec.kernel() is not holdem:
        return _board_hands(spec, deal_decks(n, seed, start), players, start)
    hole, board = holdem_positions(players)
    scores = np.empty((n, players), np.uint32)
    keys = np.empty((n, players), np.int64)
    _holdem_values_kernel(
        n,
        np.uint64(seed),
        np.int64(start),
        hole,
        board,
        holdem.DENSE_TABLES,
        holdem.SCORE_OF_DENSE,
        scores,
        keys,
    )
    return Hands(values=scores, keys=keys, categories=(scores >> 20).astype(np.uint8), domain=7463, start=start)


def evaluate_given_decks(
    decks: ArrayLike, game: str, players: int, rules: str | threecard.Rules = "zjh", start: int = 0
) -> Hands:
    """Evaluate decks you already have (``uint8[n, 52]``) with the seeds' dealing orders."""
    from .decks import deal_holdem, deal_zjh

    spec = _ranked(game)
    if spec.kernel() is threecard:
        r = threecard.rules_of(rules)
        hands = deal_zjh(decks, players)
        n = hands.shape[0]
        flat = hands.reshape(n * players, 3)
        values = threecard.evaluate(flat, r).reshape(n, players)
        special = threecard.is_235(flat).reshape(n, players)
        return _zjh_hands(values, threecard.category_of(values, r), special, r, start)
    if spec.kernel() is not holdem:
        return _board_hands(spec, check_decks(decks), players, start)
    hole, board = deal_holdem(decks, players)
    n = hole.shape[0]
    seven = np.concatenate([hole, np.repeat(board[:, None, :], players, axis=1)], axis=2)
    scores = holdem.evaluate(seven.reshape(n * players, 7)).reshape(n, players)
    keys = 7463 - holdem.dense_rank(scores).astype(np.int64)
    return Hands(
        values=scores,
        keys=np.ascontiguousarray(keys),
        categories=(scores >> 20).astype(np.uint8),
        domain=7463,
        start=start,
    )


def rank_zjh(n: int, players: int, seed: int, rules: str | threecard.Rules = "zjh", start: int = 0) -> DeckRanking:
    """Deal decks ``start..start+n-1`` of ``seed``, deal ZJH to ``players`` seats, and rank them."""
    return rank(deal_and_evaluate(ZJH.name, n, players, seed, rules, start))


def rank_holdem(n: int, players: int, seed: int, start: int = 0) -> DeckRanking:
    """Deal decks ``start..start+n-1`` of ``seed``, deal Hold'em (seed 001 order), rank every seat."""
    return rank(deal_and_evaluate(HOLDEM.name, n, players, seed, start=start))


def rank_given_decks(
    decks: ArrayLike, game: str, players: int, rules: str | threecard.Rules = "zjh", start: int = 0
) -> DeckRanking:
    """Rank decks you already have (``uint8[n, 52]``) with the seeds' dealing orders."""
    return rank(evaluate_given_decks(decks, game, players, rules, start))
