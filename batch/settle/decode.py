"""A batch of one card game's hands decoded to padded arrays, every problem a row has in them marked:
the first step of the reference settle path (:mod:`.poker`), and what the equity step reads."""

from __future__ import annotations

import dataclasses

import numpy as np
import pyarrow as pa

from cardbatch.batch.io.lists import (
    int_column,
    int_list_parts,
    list_parts,
    missing_rows,
    scatter,
    scatter_chips,
)
from cardbatch.batch.settle.cardcols import cards_given_mask, cards_matrix
from cardbatch.batch.settle.rejects import CODE, mark, mark_status
from cardbatch.games import Game
from cardbatch.kernels import cards as kcards

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
class Tables:
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


@dataclasses.dataclass
class Chips:
    """The seats and chips of a batch (see :class:`Tables`), ``overflow[T]`` where a row's chips do
    not fit int64: all the equity step needs to tell which rows were all-in."""

    seats: np.ndarray
    S: int
    live: np.ndarray
    contrib: np.ndarray
    contrib_total: np.ndarray
    cvals: np.ndarray
    cstarts: np.ndarray
    clen: np.ndarray
    overflow: np.ndarray


def decode_chips(table: pa.Table, spec: Game, codes: np.ndarray, contrib_name: str) -> Chips:
    """The ``folded`` and chips columns as padded arrays, their problems marked in ``codes``."""
    T = table.num_rows
    has_street = contrib_name == "contrib_street"
    contrib_col = table.column(contrib_name)
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
        contrib, contrib_total, wraps = scatter_chips(cvals, cstarts, clen, seats, Kmax, S)
    else:
        mark(codes, clen != seats, "seat_count")
        contrib, contrib_total, wraps = scatter_chips(cvals, cstarts, clen, np.full(T, S, np.int64), 1, S)
    # a row whose chips do not fit int64 wraps in every sum: its totals are not to be read
    overflow = contrib_big | wraps
    return Chips(seats, S, live, contrib, contrib_total, cvals, cstarts, clen, overflow)


def button_column(table: pa.Table, spec: Game, seats: np.ndarray) -> np.ndarray:
    """Each row's button as ``int64[T]`` (-1 where it does not fit int64: ``bad_button``). A game
    dealt without one (stud, razz) may have no column, or null cells: the button is then the last
    seat, so odd chips go from seat 0."""
    if not spec.button and "button" not in table.column_names:
        return np.asarray(seats - 1, np.int64)
    col = table.column("button")
    button, button_big = int_column(col, "button", -1)
    button = np.where(button_big, -1, button)  # out of every table's range: bad_button
    if not spec.button:
        button = np.where(missing_rows(col), seats - 1, button)
    return np.asarray(button)


def decode(table: pa.Table, spec: Game, inferred: bool = False) -> Tables:
    """The columns as padded arrays, every problem a row has in them marked (in the order the
    reasons are documented: missing values, seat counts, cards, chips)."""
    T = table.num_rows
    codes = np.zeros(T, np.int16)
    has_street = "contrib_street" in table.column_names
    contrib_name = "contrib_street" if has_street else "contrib"
    for name in (*spec.required, contrib_name):  # a null cell or a null element anywhere
        mark(codes, missing_rows(table.column(name)), "missing_value")

    hand_id, hand_id_big = int_column(table.column("hand_id"), "hand_id", -1)
    mark(codes, hand_id_big, "overflow")

    ch = decode_chips(table, spec, codes, contrib_name)
    seats, S, live, contrib, contrib_total = ch.seats, ch.S, ch.live, ch.contrib, ch.contrib_total
    button = button_column(table, spec, seats)
    cvals, cstarts, clen, overflow = ch.cvals, ch.cstarts, ch.clen, ch.overflow
    dead = _dead_matrix(table, codes, seats, S)

    per = spec.hole_cards
    hole, ncards = cards_matrix(table.column("cards"), per, S * per)
    if inferred:
        given = cards_given_mask(table.column("cards"), ncards, seats, per, spec.board_cards)
        mark(codes, given, "game_not_given")
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
    return Tables(
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
