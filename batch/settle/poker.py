"""Settle one Arrow table of recorded hands of one card game: validate, evaluate, split pots.

Columnar in, columnar out: list columns become padded ``[T, S]`` arrays,
every row gets a reason code (0 = settle it), the kernels run on the good
rows only, and two Arrow tables come back: results and errors (the original
rows with ``reason`` and ``message``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

from cardbatch.batch.io.arrays import arrow_of
from cardbatch.batch.io.lists import (
    combined,
    gather_flat,
    list_array,
    list_offsets,
)
from cardbatch.batch.settle.assemble import finish
from cardbatch.batch.settle.decode import Tables, decode
from cardbatch.batch.settle.options import ORIGIN, SettleOptions
from cardbatch.batch.settle.recorded import recorded_columns
from cardbatch.batch.settle.rejects import mark, mark_status
from cardbatch.games import REGISTRY, Game, games_with_hands
from cardbatch.kernels import pots, showdown, threecard


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
    h = decode(table, spec, inferred)
    score, special, low = _score(h, spec, rules, opts)
    mark(h.codes, (h.button < 0) | (h.button >= h.seats), "bad_button")
    if spec.split_pots and opts.pots.policy != pots.Policy.STANDARD:  # no rule for halves: never another's
        mark(h.codes, np.ones(h.T, bool), "split_pot_policy")
    payout, rake, npots = _settle(h, score, special, low, rules, opts)
    return _assemble(table, spec, rules, opts, h, score, low, payout, rake, npots)


def _score(
    h: Tables, spec: Game, rules: threecard.Rules, opts: SettleOptions
) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
    """The hand score of every live seat at a showdown of a row still valid (0 elsewhere; higher wins),
    by the game's evaluator; for the three-card 2-3-5 rule which seats hold an off-suit 2-3-5; for a
    high/low game each seat's low (hex digits, smaller wins, 0: none)."""
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
    h: Tables,
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
    h: Tables,
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
    # already 0 where folded or no showdown; a smaller-wins game's values as its evaluator writes them
    flat_score = showdown.values_of(spec, gather_flat(score, offsets, g))
    score_dtype = np.dtype(spec.score_type)
    score_type = pa.from_numpy_dtype(score_dtype)
    if spec.category_shift is not None:  # a packed score carries its category in its top bits
        flat_category = (flat_score >> spec.category_shift).astype(np.uint8)
    else:  # the evaluator's categories (under the game's rule preset or order); 0 where not shown
        flat_category = np.zeros(flat_score.shape, np.uint8)
        shown = flat_score > 0
        if shown.any():
            by_rules = (rules,) if spec.rule_presets else ()
            flat_category[shown] = spec.kernel().category_of(
                flat_score[shown], *by_rules, **spec.evaluator_options(opts.trips_beat_straight)
            )
    flat_payout = gather_flat(payout, offsets, g)
    flat_contrib = gather_flat(h.contrib_total, offsets, g)
    kept_rake = rake if g is None else rake[g]
    cols = {
        "hand_id": arrow_of(h.hand_id if g is None else h.hand_id[g]),
        "score": list_array(offsets, flat_score.astype(score_dtype, copy=False), score_type),
        "category": list_array(offsets, flat_category, pa.uint8()),
        **({"low": list_array(offsets, gather_flat(low, offsets, g), pa.int64())} if low is not None else {}),
        "payout": list_array(offsets, flat_payout, pa.int64()),
        "net": list_array(offsets, flat_payout - flat_contrib, pa.int64()),
        "rake": arrow_of(kept_rake),
        "pots": arrow_of((npots if g is None else npots[g]).astype(np.int16)),
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
