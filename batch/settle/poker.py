"""Settle one Arrow table of recorded hands of one card game: validate, evaluate, split pots.

Columnar in, columnar out: list columns become padded ``[T, S]`` arrays,
every row gets a reason code (0 = settle it), the kernels run on the good
rows only, and two Arrow tables come back: results and errors (the original
rows with ``reason`` and ``message``).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pyarrow as pa

from cardbatch.batch.io.lists import (
    combined,
    gather_flat,
    int_column,
    int_list_parts,
    list_array,
    list_offsets,
    list_parts,
    missing_rows,
    scatter,
    sums_overflow,
)
from cardbatch.batch.settle.assemble import finish
from cardbatch.batch.settle.cardcols import cards_given_mask, cards_matrix
from cardbatch.batch.settle.options import ORIGIN, SettleOptions
from cardbatch.batch.settle.recorded import recorded_columns
from cardbatch.batch.settle.rejects import CODE, mark, mark_status
from cardbatch.games import REGISTRY, Game, games_with_hands
from cardbatch.kernels import cards as kcards
from cardbatch.kernels import pots, showdown, threecard

_CARD_CODE = np.zeros(4, np.int16)  # the card checker's problems as reason codes
_CARD_CODE[[kcards.CARD_BAD, kcards.CARD_MISSING]] = CODE["bad_card"]
_CARD_CODE[kcards.CARD_DUPLICATE] = CODE["duplicate_card"]


def _count_true(mask: np.ndarray) -> np.ndarray:
    """True values per row of a short ``bool[T, S]``, a column at a time (numpy's ``axis=1`` is 5x slower)."""
    cols = mask.view(np.uint8)
    total = np.zeros(mask.shape[0], np.uint8)
    for s in range(mask.shape[1]):
        total += cols[:, s]
    return total


def _dead_matrix(table: pa.Table, codes: np.ndarray, seats: np.ndarray, S: int) -> np.ndarray | None:
    """The optional ``dead`` column (docs: Rules, dead money) as ``int64[T, S]``, or None without one.

    Optional, but not guessed: a null cell or element is ``missing_value``
    (write 0 for no dead chips), a list of another length ``seat_count``.
    The kernel checks ``0 <= dead <= contrib`` and the policy.
    """
    if "dead" not in table.column_names:
        return None
    col = table.column("dead")
    mark(codes, missing_rows(col), "missing_value")
    vals, starts, lengths, big = int_list_parts(col, "dead")
    mark(codes, lengths != seats, "seat_count")
    mark(codes, big, "overflow")
    return scatter(vals, starts, lengths, S, 0, np.int64)


@dataclasses.dataclass
class _Tables:
    """One batch of hands decoded to padded arrays: ``[T]`` per row, ``[T, S]`` per seat, ``contrib``
    ``[T, K, S]``, ``hole`` ``[T, S, per]``; ``codes`` holds each row's first problem so far (0: none)
    and ``cvals``/``cstarts``/``clen`` the contributions as read (to count a rejected row's chips)."""

    T: int
    S: int
    codes: np.ndarray
    hand_id: np.ndarray
    button: np.ndarray
    seats: np.ndarray
    live: np.ndarray
    contrib: np.ndarray
    contrib_total: np.ndarray
    dead: np.ndarray | None
    hole: np.ndarray
    board: np.ndarray | None
    need_seat: np.ndarray
    cvals: np.ndarray
    cstarts: np.ndarray
    clen: np.ndarray


def settle_hands(
    table: pa.Table, game: str, opts: SettleOptions, inferred: bool = False, one_pass: bool = True
) -> tuple[pa.Table, pa.Table, dict[str, Any]]:
    """Settle every valid hand of ``table`` (one game); returns (results, errors, counters).

    A game the one-pass kernel takes goes through it (:mod:`.onepass`) unless ``one_pass`` is
    False. Otherwise (and as the tests' reference) four steps, each setting rows aside as it finds
    their first problem: decode the columns, value the live seats' hands at showdowns, settle the
    pots, and assemble the results.
    ``inferred``: the game was told from the file's columns, not named: a row whose hole cards
    a seat are another board game's count is ``game_not_given``, never settled as this game."""
    spec = REGISTRY.get(game)
    if spec is None or not spec.has_hands:  # never another game's rules
        raise ValueError(f"settle_hands: no rules for game {game!r} (known: {', '.join(games_with_hands())})")
    if one_pass:
        from cardbatch.batch.settle.onepass import settle_one_pass

        settled = settle_one_pass(table, spec, opts, inferred)
        if settled is not None:
            return settled
    rules = threecard.rules_of(opts.rules)  # three-card games only
    h = _decode(table, spec, inferred)
    score, special, low = _score(h, spec, rules, opts)
    mark(h.codes, (h.button < 0) | (h.button >= h.seats), "bad_button")
    if spec.split_pots and opts.pots.policy != pots.Policy.STANDARD:  # no rule for halves: never another's
        mark(h.codes, np.ones(h.T, bool), "split_pot_policy")
    payout, rake, npots = _settle(h, score, special, low, rules, opts)
    return _assemble(table, spec, rules, opts, h, score, low, payout, rake, npots)


def _hand_options(spec: Game, opts: SettleOptions) -> dict[str, Any]:
    """The evaluator's keywords a game takes from the settle options (short deck's order of trips
    and straights)."""
    return {"trips_beat_straight": opts.trips_beat_straight} if spec.straight_order_option else {}


def _decode(table: pa.Table, spec: Game, inferred: bool = False) -> _Tables:
    """The columns as padded arrays, every problem a row has in them marked (in the order the
    reasons are documented: missing values, seat counts, cards, chips)."""
    T = table.num_rows
    codes = np.zeros(T, np.int16)
    has_street = "contrib_street" in table.column_names
    contrib_name = "contrib_street" if has_street else "contrib"
    for name in (*spec.required, contrib_name):  # a null cell or a null element anywhere
        mark(codes, missing_rows(table.column(name)), "missing_value")
    contrib_col = table.column(contrib_name)

    hand_id, hand_id_big = int_column(table.column("hand_id"), "hand_id", -1)
    mark(codes, hand_id_big, "overflow")
    button, button_big = int_column(table.column("button"), "button", -1)
    button = np.where(button_big, -1, button)  # out of every table's range: bad_button

    fvals, fstarts, seats = list_parts(table.column("folded"))
    S = int(max(seats.max() if T else 0, 1))
    mark(codes, (seats < spec.min_seats) | (seats > spec.max_seats), "seat_count")
    S = min(S, spec.max_seats)
    folded = scatter(fvals.astype(bool, copy=False), fstarts, seats, S, True, np.bool_)
    live = ~folded

    cvals, cstarts, clen, contrib_big = int_list_parts(contrib_col, contrib_name)
    if has_street:
        K = np.where(seats > 0, clen // np.maximum(seats, 1), 0)
        mark(codes, (clen != K * seats) | (K < 1), "seat_count")
        Kmax = int(max(K.max() if T else 1, 1))
        contrib = scatter(cvals, cstarts, clen, Kmax, 0, np.int64, row_width=seats)
        if contrib.shape[2] < S:
            contrib = np.concatenate([contrib, np.zeros((T, Kmax, S - contrib.shape[2]), np.int64)], axis=2)
        contrib = np.ascontiguousarray(contrib[:, :, :S])
    else:
        mark(codes, clen != seats, "seat_count")
        contrib = scatter(cvals, cstarts, clen, S, 0, np.int64)[:, None, :]
    # before any sum: a row whose chips do not fit int64 would wrap in every sum below
    overflow = contrib_big | sums_overflow(contrib)
    contrib_total = contrib.sum(axis=1)
    dead = _dead_matrix(table, codes, seats, S)

    per = spec.hole_cards
    hole, ncards = cards_matrix(table.column("cards"), per, S * per)
    if inferred and spec.board_cards:
        mark(codes, cards_given_mask(table.column("cards"), ncards, seats, per), "game_not_given")
    mark(codes, ncards != seats * per, "seat_count")
    hole = hole.reshape(T, S, per)
    showdown = _count_true(live) >= 2
    need_seat = live & showdown[:, None]
    board: np.ndarray | None = None
    if spec.board_cards:
        board, nboard = cards_matrix(table.column("board"), 1, spec.board_cards, seats_in_words=False)
        mark(codes, nboard > spec.board_cards, "seat_count")
    status = kcards.seat_card_status(
        hole, board if board is not None else np.zeros((T, 0), np.uint8), need_seat, showdown
    )
    mark_status(codes, status, _CARD_CODE)
    if spec.lowest_rank:  # a card the game's deck does not hold (the short deck's twos to fives)
        below = 4 * spec.lowest_rank
        outside = np.asarray((hole < below).reshape(T, -1).any(axis=1))
        if board is not None:
            outside |= (board < below).any(axis=1)
        mark(codes, outside, "bad_card")
    mark(codes, overflow, "overflow")
    return _Tables(
        T,
        S,
        codes,
        hand_id,
        button,
        seats,
        live,
        contrib,
        contrib_total,
        dead,
        hole,
        board,
        need_seat,
        cvals,
        cstarts,
        clen,
    )


def _score(
    h: _Tables, spec: Game, rules: threecard.Rules, opts: SettleOptions
) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
    """The hand value of every live seat at a showdown of a row still valid (0 elsewhere), by the
    game's evaluator; for the three-card 2-3-5 rule which seats hold an off-suit 2-3-5; for a
    high/low game each seat's low (higher wins, 0: none)."""
    special = None
    eval_mask = h.need_seat & (h.codes == 0)[:, None]
    score, low = showdown.seat_values(
        spec, h.hole, h.board, eval_mask, rules=rules, trips_beat_straight=opts.trips_beat_straight
    )
    if spec.rule_presets and rules.beats_trips_235:
        rows, seat_idx = np.nonzero(eval_mask)
        special = np.zeros((h.T, h.S), bool)
        special[rows, seat_idx] = threecard.is_235(h.hole[rows, seat_idx])
    return score, special, low


def _settle(
    h: _Tables,
    score: np.ndarray,
    special: np.ndarray | None,
    low: np.ndarray | None,
    rules: threecard.Rules,
    opts: SettleOptions,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Payouts ``[T, S]``, rake and pot counts ``[T]``; a row the pot kernel finds invalid is marked."""
    # Every row goes through the pot kernel (bad rows are harmless there: padded, scores 0) and the
    # rows already set aside ignore its answer: cheaper than copying the good rows out and back.
    T, S = h.T, h.S
    nfnd = None
    if opts.no_flop_no_drop:
        nfnd = (h.board == 255).all(axis=1) if h.board is not None else np.zeros(T, bool)
    if not (h.codes == 0).any():  # every row set aside already: nothing to settle (no pot kernel to load)
        return np.zeros((T, S), np.int64), np.zeros(T, np.int64), np.zeros(T, np.int64)
    d = pots.settle_detailed(
        h.contrib,
        h.live,
        score,
        h.button,
        options=opts.pots,
        no_flop_no_drop=nfnd,
        special=special,
        trips_floor=threecard.trips_floor(rules) if special is not None else None,
        dead=h.dead,
        low=low if opts.pots.policy == pots.Policy.STANDARD else None,
        raise_on_error=False,
        detail=False,
    )
    mark_status(h.codes, d.status)
    return d.payout, d.rake, d.pots


def _assemble(
    table: pa.Table,
    spec: Game,
    rules: threecard.Rules,
    opts: SettleOptions,
    h: _Tables,
    score: np.ndarray,
    low: np.ndarray | None,
    payout: np.ndarray,
    rake: np.ndarray,
    npots: np.ndarray,
) -> tuple[pa.Table, pa.Table, dict[str, Any]]:
    """The settled rows' results, the rejected rows' errors and the batch's counters; stops loudly if
    the settled chips do not add up (a bug of ours, never the data's)."""
    T, codes = h.T, h.codes
    good = np.flatnonzero(codes == 0)
    g = None if good.size == T else good
    offsets = list_offsets(h.seats, g)
    flat_score = gather_flat(score, offsets, g)  # already 0 where folded or no showdown
    score_dtype = np.dtype(spec.score_type)
    score_type = pa.from_numpy_dtype(score_dtype)
    if spec.category_shift is not None:  # a packed score carries its category in its top bits
        flat_category = (flat_score >> spec.category_shift).astype(np.uint8)
    else:  # the evaluator's categories (under the game's rule preset or order); 0 where not shown
        flat_category = np.zeros(flat_score.shape, np.uint8)
        shown = flat_score > 0
        if shown.any():
            by_rules = (rules,) if spec.rule_presets else ()
            flat_category[shown] = spec.kernel().category_of(flat_score[shown], *by_rules, **_hand_options(spec, opts))
    flat_payout = gather_flat(payout, offsets, g)
    flat_contrib = gather_flat(h.contrib_total, offsets, g)
    kept_rake = rake if g is None else rake[g]
    cols = {
        "hand_id": pa.array(h.hand_id if g is None else h.hand_id[g]),
        "score": list_array(offsets, flat_score.astype(score_dtype, copy=False), score_type),
        "category": list_array(offsets, flat_category, pa.uint8()),
        **({"low": list_array(offsets, gather_flat(low, offsets, g), pa.int64())} if low is not None else {}),
        "payout": list_array(offsets, flat_payout, pa.int64()),
        "net": list_array(offsets, flat_payout - flat_contrib, pa.int64()),
        "rake": pa.array(kept_rake),
        "pots": pa.array((npots if g is None else npots[g]).astype(np.int16)),
    }
    mismatches = 0
    if "payout" in table.column_names:
        recorded, mismatches = recorded_columns(payout, offsets, table.column("payout"), g, "recorded_payout")
        cols.update(recorded)
    if ORIGIN in table.column_names:
        cols[ORIGIN] = combined(table.column(ORIGIN)) if g is None else combined(table.column(ORIGIN)).take(good)
    return finish(
        table,
        pa.table(cols),
        codes,
        (h.cvals, h.cstarts, h.clen),
        flat_contrib,
        flat_payout,
        kept_rake,
        mismatches,
        spec,
        opts,
    )
