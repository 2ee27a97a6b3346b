"""``--equity``: each settled row's all-in street, expected payouts and equities (docs: Equity).

A row is placed in time by its ``stack`` (each seat's chips at the start of the hand) and its
``contrib_street``: it was all-in after the first street (preflop, flop or turn) at whose end at
most one live seat still had chips behind, with two or more live seats. Its expected payouts come
from walking the rest of the board (:func:`cardbatch.kernels.equity.all_in_equity`) under the
run's pot rules. A settled row that was not all-in keeps its payout as its expected payout; a row
that cannot be placed (no ``stack``, no ``contrib_street``, or a stack the row's chips contradict)
gets nulls, counted by cause in the summary.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa

from cardbatch.batch.io.lists import int_list_parts, list_array, list_offsets, missing_rows, scatter
from cardbatch.games import Game
from cardbatch.kernels.allin_street import all_in_streets

if TYPE_CHECKING:
    from cardbatch.batch.settle.options import SettleOptions
    from cardbatch.kernels.equity import Walk

_F64_LIST = pa.list_(pa.float64())
EQUITY_FIELDS = (
    ("all_in_street", pa.int8()),
    ("ev_payout", _F64_LIST),
    ("equity", _F64_LIST),
    ("equity_se", _F64_LIST),
)
KNOWN_BOARD = (0, 3, 4)  # board cards dealt after the betting of street 0, 1, 2
NOT_PLACED = ("no_stack_column", "no_contrib_street", "stack_missing", "stack_count", "stack_short")


def has_equity(spec: Game) -> bool:
    """A game whose all-ins have an equity: cards still to come (a board), chips in pots."""
    return spec.has_hands and spec.board_cards > 0 and spec.settles == "pot"


def _stacks(table: pa.Table, seats: np.ndarray, contrib_total: np.ndarray, S: int) -> tuple[np.ndarray, np.ndarray]:
    """``stack[T, S]`` and each row's cause for not being placed (an index into NOT_PLACED, -1: placed)."""
    T = table.num_rows
    cause = np.full(T, -1, np.int8)
    col = table.column("stack")
    vals, starts, lengths, big = int_list_parts(col, "stack")
    stack = scatter(vals, starts, lengths, S, 0, np.int64)
    short = (stack < contrib_total).any(axis=1) | big
    for name, rows in (
        ("stack_short", short),
        ("stack_count", lengths != seats),
        ("stack_missing", missing_rows(col)),
    ):  # the first cause of the list wins: set the last first
        cause[rows] = NOT_PLACED.index(name)
    return stack, cause


@dataclasses.dataclass
class AllIns:
    """The settled rows of a batch as the equity step saw them: the decoded rows (``h``, a
    :class:`~cardbatch.batch.settle.decode.Tables`, or only their seats and chips, a
    :class:`~cardbatch.batch.settle.decode.Chips`; None when nothing was decoded), each row's
    all-in street (-1: none or not placed), why a row was not placed (an index into
    :data:`NOT_PLACED`, -1: placed), and per seat (flat, in seat order, ``offsets``) the expected
    payout and the payout's variance."""

    h: Any
    street: np.ndarray
    cause: np.ndarray
    offsets: np.ndarray
    ev: np.ndarray
    se: np.ndarray
    var: np.ndarray


def walk_rows(
    sub: pa.Table, payout: np.ndarray, spec: Game, opts: SettleOptions, walk: Walk, whole: bool = True
) -> tuple[AllIns, dict[str, Any]]:
    """Place every (settled) row of ``sub`` in time and walk its all-in, if any, as ``walk`` says,
    under ``opts``' pot rules; ``payout``: the rows' flat payouts. Returns the rows and the equity
    counters. ``whole``: every row decoded (``h``,
    what the fairness tallies read); else only the seats and chips of every row (``h`` a
    :class:`~cardbatch.batch.settle.decode.Chips`), and the cards of the all-in rows alone."""
    from cardbatch.batch.settle.decode import Tables, decode, decode_chips
    from cardbatch.kernels.equity import all_in_equity, all_in_equity_by_evaluator

    n = sub.num_rows
    counts: dict[str, Any] = {"rows": n, "all_in": 0, "exact": 0, "sampled": 0, "by_street": {}, "not_placed": {}}
    # hidden_cards (when any): all-ins where a folded seat's cards are not recorded
    h: Any = None
    if n:
        contrib_name = "contrib_street" if "contrib_street" in sub.column_names else "contrib"
        h = decode(sub, spec) if whole else decode_chips(sub, spec, np.zeros(n, np.int16), contrib_name)
    seats = h.seats if h is not None else np.zeros(0, np.int64)
    offsets = list_offsets(seats)
    cause = np.full(n, -1, np.int8)
    street = np.full(n, -1, np.int8)
    ev = payout.astype(np.float64)
    se = np.zeros(payout.shape, np.float64)
    var = np.zeros(payout.shape, np.float64)
    if not has_equity(spec):
        counts["not_placed"] = {f"game_{spec.name}": n} if n else {}
        cause[:] = len(NOT_PLACED)
        return AllIns(h, street, cause, offsets, ev, se, var), counts
    if "stack" not in sub.column_names:
        cause[:] = NOT_PLACED.index("no_stack_column")
    elif "contrib_street" not in sub.column_names:
        cause[:] = NOT_PLACED.index("no_contrib_street")
    if h is not None and (cause < 0).any():
        stack, stack_cause = _stacks(sub, h.seats, h.contrib_total, h.S)
        cause = np.where(cause >= 0, cause, stack_cause)
        street = all_in_streets(stack, h.contrib, h.live, len(KNOWN_BOARD))
        street[cause >= 0] = -1
    rows = np.flatnonzero(street >= 0)
    if rows.size:
        w = h if isinstance(h, Tables) else decode(sub.take(pa.array(rows)), spec)
        at_row = rows if w is h else np.arange(rows.size)  # the all-in rows in w
        args = (
            w.contrib_total[at_row],
            w.live[at_row],
            w.hole[at_row],
            w.board[at_row] if w.board is not None else np.full((rows.size, 5), 255, np.uint8),
            np.array(KNOWN_BOARD, np.int64)[street[rows]],
            w.button[at_row],
        )
        common: dict[str, Any] = {
            "dead": None if w.dead is None else w.dead[at_row],
            "options": opts.pots,
            "walk": walk,
            "hand_ids": w.hand_id[at_row],
        }
        if spec.one_pass:  # two hole cards: the compiled walk
            order = spec.evaluator_options(opts.trips_beat_straight)
            tables = spec.kernel().value_tables(**order)
            e = all_in_equity(*args, **common, tables=tables, lowest_card=4 * spec.lowest_rank)
        else:  # Omaha and its hi/lo: through the game's evaluators
            e = all_in_equity_by_evaluator(spec, *args, **common)
        seat = np.arange(w.S)[None, :] < w.seats[at_row, None]
        at = (offsets[rows][:, None] + np.arange(w.S)[None, :])[seat]
        ev[at] = e.ev_payout[seat]
        se[at] = e.equity_se[seat]
        var[at] = e.payout_var[seat]
        counts["all_in"] = int(rows.size)
        counts["exact"] = int(e.exact.sum())
        counts["sampled"] = int(rows.size - e.exact.sum())
        counts["by_street"] = {str(k): int((street[rows] == k).sum()) for k in range(3) if (street[rows] == k).any()}
        folded = ~w.live[at_row] & (np.arange(w.S)[None, :] < w.seats[at_row, None])
        hidden = (folded[:, :, None] & (w.hole[at_row] == 255)).any(axis=(1, 2))
        if hidden.any() and walk.deck == "seen":  # unknown cards stay in the deck: said
            counts["hidden_cards"] = int(hidden.sum())
    counts["not_placed"] = _tally(cause)
    return AllIns(h, street, cause, offsets, ev, se, var), counts


def row_sums(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Each row's sum of a flat per-seat array (rows of at least one seat)."""
    if values.size == 0:
        return np.zeros(len(offsets) - 1)
    return np.add.reduceat(values, offsets[:-1].astype(np.int64))


def equity_columns(rows: AllIns) -> dict[str, pa.Array]:
    """The results' equity columns of the rows (null where a row was not placed)."""
    placed = rows.cause < 0
    paid = row_sums(rows.ev, rows.offsets)
    seats = np.diff(rows.offsets)
    share = rows.ev / np.repeat(np.where(paid > 0, paid, 1.0), seats)
    return {
        "all_in_street": pa.array(rows.street, mask=rows.street < 0),
        "ev_payout": _masked(list_array(rows.offsets, rows.ev, pa.float64()), placed),
        "equity": _masked(list_array(rows.offsets, share, pa.float64()), placed & (paid > 0)),
        "equity_se": _masked(list_array(rows.offsets, rows.se, pa.float64()), placed),
    }


def by_player(sub: pa.Table, rows: AllIns, payout: np.ndarray) -> dict[str, dict[str, Any]]:
    """Per ``player_id`` over their all-in hands: ``hands``, ``net`` (payouts less chips put in) and
    ``ev_net`` (expected payouts less chips put in): their difference is the cards' luck (a hand
    that was not all-in has none: its expected payout is its payout)."""
    from cardbatch.batch.io.lists import int_list_parts, scatter

    h = rows.h
    vals, starts, lengths, _ = int_list_parts(sub.column("player_id"), "player_id")
    pids = scatter(vals, starts, lengths, h.S, -1, np.int64)
    keep = (rows.street >= 0) & (lengths == h.seats)
    seat = np.arange(h.S)[None, :] < h.seats[:, None]
    r, s = np.nonzero(seat & keep[:, None])
    at = rows.offsets[r] + s
    ids = pids[r, s]
    known = ids >= 0
    ids, at, r, s = ids[known], at[known], r[known], s[known]
    chips = h.contrib_total[r, s]
    net = payout[at] - chips
    ev_net = rows.ev[at] - chips
    keys, inverse = np.unique(ids, return_inverse=True)
    hands = np.bincount(inverse, minlength=keys.size)
    nets = np.zeros(keys.size, np.int64)
    np.add.at(nets, inverse, net)
    ev_nets = np.bincount(inverse, weights=ev_net, minlength=keys.size)
    return {
        str(k): {"hands": int(n), "net": int(a), "ev_net": float(e)} for k, n, a, e in zip(keys, hands, nets, ev_nets)
    }


def _masked(arr: pa.ListArray, valid: np.ndarray) -> pa.Array:
    """``arr`` with the rows where ``valid`` is False null."""
    if valid.all():
        return arr
    return pa.ListArray.from_arrays(arr.offsets, arr.values, mask=pa.array(~valid))


def _tally(cause: np.ndarray) -> dict[str, int]:
    found, n = np.unique(cause[(cause >= 0) & (cause < len(NOT_PLACED))], return_counts=True)
    return {NOT_PLACED[int(c)]: int(k) for c, k in zip(found, n)}
