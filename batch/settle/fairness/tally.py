"""What one batch adds to a fairness run: sums that add up across batches, parts and workers.

Every figure is a sum (a count, or a float total), kept in nested dicts that the run's counters
add key by key (:func:`cardbatch.batch.settle.counters.merge_counters`), so a run's tallies are
its parts' tallies added, whatever the engine. Under each scope (``all``, and ``COLUMN=value``
for ``--by COLUMN``):

- ``allin``: per group, ``n`` (seats), ``x`` (their share of what the hand paid), ``e`` (their
  equity) and ``v`` (the variance of their share over the board's completions). Groups:
  ``favourite`` (each all-in's seat of highest equity, the lowest seat on a tie),
  ``street=K`` (the favourites by all-in street), ``equity=B`` (every live seat by tenth of
  equity), ``seat=S`` and ``player=ID`` (every live seat);
- ``cards``: per slot (``hole S.J``: seat S's J-th card; ``board J``) the times each card was
  dealt there (``obs``) and, for board slots, the times it was expected (``exp``): each row adds
  ``1 / (cards left)`` for every card left after the hole cards and the earlier board cards. Only
  rows where every seat's cards are recorded count (a log that shows only the hands that reached
  a showdown would favour strong cards); none for a draw game, whose recorded hands are the ones its
  players ended with, partly their choice;
- ``categories`` (three-card games): per seat, how often each hand category was dealt;
- ``hidden``: ``rows`` where some seat's cards are not recorded (a public hand history hides the
  folded hands) and, of those, ``allins``. The all-in groups leave such rows out: the deck at
  their all-in is not known, and counting the hidden cards as still in it is biased wherever folds
  depend on the cards. The card tests need every row: :mod:`.audit` does not run them where a
  scope has hidden rows, since the rows left (those whose players all reached a showdown) are a
  sample chosen by the cards.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

from cardbatch.batch.settle.equity.allin import AllIns, has_equity, row_sums
from cardbatch.batch.settle.fairness.groups import group_name
from cardbatch.games import Game

BUCKETS = 10  # equity groups: tenths


def _add(
    groups: dict[str, dict[str, float]], prefix: str, keys: np.ndarray, x: np.ndarray, e: np.ndarray, v: np.ndarray
) -> None:
    """Add each (x, e, v) to its group's sums, the group named ``prefix`` and its integer key."""
    found, inverse = np.unique(keys, return_inverse=True)
    counts = np.bincount(inverse, minlength=found.size)
    sums = [np.bincount(inverse, weights=values, minlength=found.size) for values in (x, e, v)]
    for i, k in enumerate(found.tolist()):
        g = groups.setdefault(f"{prefix}{k}", {"n": 0, "x": 0.0, "e": 0.0, "v": 0.0})
        g["n"] += int(counts[i])
        g["x"] += float(sums[0][i])
        g["e"] += float(sums[1][i])
        g["v"] += float(sums[2][i])


def _allin(rows: AllIns, payout: np.ndarray, pids: np.ndarray | None, keep: np.ndarray) -> dict[str, Any]:
    """The all-in groups of the rows where ``keep`` (see the module's docstring)."""
    h = rows.h
    groups: dict[str, dict[str, float]] = {}
    if h is None:
        return groups
    paid = row_sums(payout.astype(np.float64), rows.offsets)
    chosen = np.flatnonzero((rows.street >= 0) & (paid > 0) & keep)  # keep: complete rows only (see tally)
    if chosen.size == 0:
        return groups
    S = h.S
    seat = np.arange(S)[None, :]
    live = h.live[chosen] & (seat < h.seats[chosen, None])
    at = rows.offsets[chosen][:, None] + seat  # each seat's place in the flat arrays
    at = np.where(live, at, 0)
    p = paid[chosen][:, None]
    x = np.where(live, payout[at] / p, 0.0)
    e = np.where(live, rows.ev[at] / p, 0.0)
    v = np.where(live, rows.var[at] / (p * p), 0.0)
    fav = np.argmax(np.where(live, e, -1.0), axis=1)  # argmax: the first of equal ones
    one = np.arange(chosen.size)
    fx, fe, fv = x[one, fav], e[one, fav], v[one, fav]
    favourite = {"n": int(chosen.size), "x": float(fx.sum()), "e": float(fe.sum()), "v": float(fv.sum())}
    groups["favourite"] = favourite
    _add(groups, "street=", rows.street[chosen], fx, fe, fv)
    r, s = np.nonzero(live)
    xs, es, vs = x[r, s], e[r, s], v[r, s]
    bucket = np.minimum((es * BUCKETS).astype(np.int64), BUCKETS - 1)
    _add(groups, "equity=", bucket, xs, es, vs)
    _add(groups, "seat=", s, xs, es, vs)
    if pids is not None:
        ids = pids[chosen][r, s]
        known = ids >= 0
        _add(groups, "player=", ids[known], xs[known], es[known], vs[known])
    return groups


def _complete(h: Any, low: int) -> np.ndarray:
    """Rows where every seat's cards are recorded (real cards of the game's deck)."""
    seat = np.arange(h.S)[None, :, None] < h.seats[:, None, None]
    real = (h.hole >= low) & (h.hole < 52)
    complete: np.ndarray = (real | ~seat).all(axis=(1, 2))
    return complete


def _counts(cards: np.ndarray) -> dict[str, int]:
    found, n = np.unique(cards, return_counts=True)
    return {str(int(c)): int(k) for c, k in zip(found, n)}


def _cards(h: Any, spec: Game, keep: np.ndarray) -> dict[str, Any]:
    """The card slots' observed (and, for the board, expected) counts of the complete rows kept."""
    from cardbatch.kernels.dealt import slot_counts

    low = 4 * spec.lowest_rank
    board = h.board if h.board is not None else np.zeros((h.T, 0), np.uint8)
    hole_obs = np.zeros((h.S, spec.hole_cards, 52), np.int64)
    board_obs = np.zeros((board.shape[1], 52), np.int64)
    board_exp = np.zeros((board.shape[1], 52), np.float64)
    slot_counts(h.hole, h.seats.astype(np.int64), board, keep, low, hole_obs, board_obs, board_exp)
    slots: dict[str, Any] = {}
    for s in range(h.S):
        for j in range(spec.hole_cards):
            if hole_obs[s, j].any():
                slots[f"hole {s}.{j}"] = {"obs": _nonzero(hole_obs[s, j])}
    for j in range(board.shape[1]):
        if board_obs[j].any():
            slots[f"board {j}"] = {
                "obs": _nonzero(board_obs[j]),
                "exp": {str(c): float(board_exp[j, c]) for c in range(low, 52)},
            }
    return slots


def _nonzero(counts: np.ndarray) -> dict[str, int]:
    """A card's count by its code, for the cards dealt at least once."""
    return {str(c): int(counts[c]) for c in np.flatnonzero(counts)}


def _categories(h: Any, spec: Game, rules: str, keep: np.ndarray) -> dict[str, Any]:
    """Three-card games: each seat's hand categories, in the complete rows kept."""
    from cardbatch.kernels import threecard

    ok = _complete(h, 0) & keep
    out: dict[str, Any] = {}
    for s in range(h.S):
        rows = ok & (h.seats > s)
        if rows.any():
            values = threecard.evaluate(h.hole[rows, s, :], rules)
            out[f"seat {s}"] = _counts(threecard.category_of(values, rules))
    return out


def tally(
    sub: pa.Table, rows: AllIns, payout: np.ndarray, spec: Game, rules: str, by: str | None, by_player: bool
) -> dict[str, Any]:
    """The batch's fairness sums, by scope (see the module's docstring): ``rules``, the three-card
    rule set; ``by``: the column whose values are scopes too; ``by_player``: groups by ``player_id``."""
    h = rows.h
    if h is None:
        return {}
    pids = None
    if by_player and "player_id" in sub.column_names:
        from cardbatch.batch.io.lists import int_list_parts, scatter

        vals, starts, lengths, _ = int_list_parts(sub.column("player_id"), "player_id")
        ok = lengths == h.seats
        pids = np.where(ok[:, None], scatter(vals, starts, lengths, h.S, -1, np.int64), -1)
    scopes: list[tuple[str, np.ndarray]] = [("all", np.ones(h.T, bool))]
    if by is not None:  # a column of the files (checked by the plan); a by=value folder: groups.with_folder_group
        raw = sub.column(by).to_pylist()
        null = np.array([v is None for v in raw], bool)
        values = np.array(["" if v is None else group_name(v) for v in raw], dtype=object)
        distinct = np.unique(values[~null])  # at most groups.MAX_VALUES: the run checked the column first
        scopes += [(f"{by}={v}", (values == v) & ~null) for v in distinct]
        if null.any():
            scopes.append((f"{by} null", null))
    complete = _complete(h, 4 * spec.lowest_rank) if spec.has_hands else np.ones(h.T, bool)
    out: dict[str, Any] = {}
    for name, keep in scopes:
        scope: dict[str, Any] = {"rows": int(keep.sum())}
        hidden = keep & ~complete
        if hidden.any():
            scope["hidden"] = {"rows": int(hidden.sum()), "allins": int((hidden & (rows.street >= 0)).sum())}
        if has_equity(spec):
            scope["allin"] = _allin(rows, payout, pids, keep & complete)
        if spec.has_hands and spec.cards_as_dealt:  # a draw game's final hands are partly chosen: not counted
            scope["cards"] = _cards(h, spec, keep)
        if spec.rule_presets:
            scope["categories"] = _categories(h, spec, rules, keep)
        out[name] = scope
    return out
