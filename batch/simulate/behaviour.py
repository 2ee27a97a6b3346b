"""The betting model of ``cardbatch simulate`` for card games, and its fit to recorded hands.

The model, per hand (one table of 2..S seats):

1. The table's seat count is drawn from ``seats`` (P(2 seats), P(3 seats), …).
2. Every seat posts the ante, ``base`` (or all it has).
3. On each street s (ZJH has one, Hold'em four) that at least two seats with
   chips reach, the table's bet is ``k * base`` with k drawn from ``bet[s]``.
   Each seat still in with chips then, by its hand's strength quartile q:
   folds with ``fold[s][q]`` (only facing a bet, k > 0), goes all in with
   ``allin[s][q]``, and otherwise calls the bet (all it has if that is less).
   If every seat would fold, the strongest one stays.
4. The pots are settled by :func:`cardbatch.kernels.pots.settle_detailed`.

Strength quartile: where the hand's final value falls among all hands of the
game (ZJH: the 22,100 three-card hands under the room's rules; Hold'em: a
fixed sample of 200,000 random seven-card hands), cut at 25/50/75 %. The
model lets a seat act on its final hand on every street: crude, but it is
what makes weak hands fold more, and it is the same in the fit.

:func:`fit` estimates every parameter from hands in the settle format
(``cards``, as codes or text in any of its encodings, ``contrib`` or
``contrib_street``, ``folded``; ``stack``, the seat's chips before the hand,
where the log has it):

- the street a folded seat folded on: the first whose contribution is below
  the street's call level (the most a seat put in that street while keeping
  chips behind);
- fold rate on street s: folds over the seats with chips that reached s, at
  tables where two such seats reached it and the bet was above 0. The
  strongest such seat of each table is left out when every strength is known:
  the model keeps it in when all would fold, so counting it would bias the
  rate down; leaving a seat out by its cards alone does not bias a rate that
  depends only on the quartile;
- all-in rate: seats that put their last chip in on s (``stack`` needed;
  without it the rates are not fitted and the flags' values stay), over the
  seats that could have called the bet and kept chips;
- bet: the call level minus the ante, in units of ``base`` (rounded; above
  :data:`MAX_BET_UNITS` counted there, and the summary says how often);
- a quartile with fewer than :data:`MIN_DECISIONS` decisions takes the
  street's rate over all seats, and seats whose cards are not known count only
  there (real logs rarely show a folded hand).
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from cardbatch.batch.io import lists
from cardbatch.batch.io.columns import is_text
from cardbatch.batch.io.errors import UsageError
from cardbatch.games import game as game_spec
from cardbatch.kernels import cards as kcards
from cardbatch.kernels import decks as kdecks

QUARTILES = 4
MIN_DECISIONS = 50
STREET_NAMES = {1: ("hand",), 4: ("preflop", "flop", "turn", "river")}
MAX_BET_UNITS = 200


@dataclasses.dataclass(frozen=True)
class Behaviour:
    """How card-game seats bet: seat counts, and per street fold and all-in rates by strength
    quartile and the bet's size in units of the base (see the module docstring)."""

    seats: tuple[float, ...]  # P(n seats) for n = 2, 3, …
    fold: tuple[tuple[float, ...], ...]  # [street][quartile]
    allin: tuple[tuple[float, ...], ...]  # [street][quartile]
    bet: tuple[tuple[float, ...], ...]  # [street][k]: P(the bet is k * base)
    source: str = "flags"

    @property
    def streets(self) -> int:
        return len(self.fold)

    @property
    def max_seats(self) -> int:
        return len(self.seats) + 1

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(seats, fold, allin, bet) as float arrays, bet padded to one width."""
        width = max(len(b) for b in self.bet)
        bet = np.array([list(b) + [0.0] * (width - len(b)) for b in self.bet])
        return np.array(self.seats), np.array(self.fold), np.array(self.allin), bet

    def describe(self) -> dict[str, Any]:
        """The parameters as the summary shows them (rates rounded to 4 places)."""
        names = STREET_NAMES.get(self.streets, tuple(str(i) for i in range(self.streets)))
        return {
            "source": self.source,
            "seat_counts": {str(n + 2): round(p, 4) for n, p in enumerate(self.seats) if p > 0},
            "streets": [
                {
                    "street": names[s],
                    "fold_by_strength_quartile": [round(x, 4) for x in self.fold[s]],
                    "allin_by_strength_quartile": [round(x, 4) for x in self.allin[s]],
                    "bet_in_base_units": {str(k): round(p, 4) for k, p in enumerate(self.bet[s]) if p > 0},
                }
                for s in range(self.streets)
            ],
        }


def from_flags(game: str, seats: int, fold_p: float, allin_p: float, bet_max: int) -> Behaviour:
    """The model the command line's flags describe: ``seats`` at every table; on the first street
    fold ``fold_p`` (doubled for the two weaker quartiles), all in ``allin_p``, a bet of 0..``bet_max``
    base units, uniform; later Hold'em streets are checked through."""
    streets = game_spec(game).betting_rounds
    weak = min(1.0, 2 * fold_p)
    fold = [(weak, weak, fold_p, fold_p)] + [(0.0,) * QUARTILES] * (streets - 1)
    allin = [(allin_p,) * QUARTILES] + [(0.0,) * QUARTILES] * (streets - 1)
    bet = [tuple([1 / (bet_max + 1)] * (bet_max + 1))] + [(1.0,)] * (streets - 1)
    return Behaviour(tuple(float(n == seats) for n in range(2, seats + 1)), tuple(fold), tuple(allin), tuple(bet))


@functools.lru_cache(maxsize=8)
def _cuts(game: str, rules: str) -> np.ndarray:
    """The values at 25/50/75 % of the game's hands: a game without a board exactly (every hand of
    its hole cards), one with a board from a fixed sample of deals."""
    spec = game_spec(game)
    if not spec.board_cards:
        hands = np.array(list(itertools.combinations(range(spec.deck_size), spec.hole_cards)), np.uint8)
        values = spec.kernel().evaluate(hands, rules)
    else:
        seen = spec.hole_cards + spec.board_cards
        values = spec.kernel().evaluate(kdecks.deal_decks(200_000, 20261201)[:, :seen]).astype(np.int64)
    cuts: np.ndarray = np.quantile(np.sort(values), [0.25, 0.5, 0.75], method="lower").astype(np.int64)
    return cuts


def quartiles(values: np.ndarray, game: str, rules: str) -> np.ndarray:
    """Strength quartile 0..3 of each hand value (-1 where the value is negative: unknown)."""
    q = np.searchsorted(_cuts(game, rules), values, side="right")
    return np.where(values < 0, -1, q)


def _parsed(texts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`cardbatch.kernels.cards.parse_each` of ``texts``, each distinct string parsed once."""
    unique, index = np.unique(texts, return_inverse=True)
    codes, counts = kcards.parse_each(unique)
    return codes[index.reshape(-1)], counts[index.reshape(-1)]


def _strings(arr: pa.Array) -> np.ndarray:
    """A string column's values as numpy ``str`` (a null as "": :func:`lists.missing_rows` flags its row)."""
    if pa.types.is_dictionary(arr.type):
        arr = arr.dictionary_decode()
    texts: np.ndarray = pc.fill_null(arr, "").to_numpy(zero_copy_only=False).astype(str)
    return texts


def card_parts(col: pa.Array | pa.ChunkedArray, per: int, least: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(codes, starts, lengths)`` of a card column in any of the formats' encodings, as
    :func:`lists.list_parts` gives an integer list column: integer lists as they are; text, one
    string of ``per`` cards per seat or one string per row, as codes (a seat's string of another
    length, or any text that is not cards, as codes that are no card: 254, as settle reads it). A text
    row shorter than ``least`` cards is padded with 255, cards never dealt (a board's text)."""
    arr = lists.combined(col)
    if is_text(arr.type):  # one string per row
        codes, counts = _parsed(_strings(arr))
        width = max(codes.shape[1], least)
        padded = np.full((len(arr), width), kcards.NO_CARD, np.uint8)
        padded[:, : codes.shape[1]] = codes
        return padded.reshape(-1), np.arange(len(arr), dtype=np.int64) * width, np.maximum(counts, least)
    values, starts, lengths = lists.list_parts(arr)
    if values.dtype.kind not in "OUS":
        return values, starts, lengths
    codes, counts = _parsed(values.astype(str))  # one string per seat
    seats = np.full((len(values), per), kcards.UNREADABLE, np.uint8)
    whole = counts == per
    seats[whole] = codes[whole, :per]
    return seats.reshape(-1), starts * per, lengths * per


@dataclasses.dataclass
class _Log:
    """Recorded hands as padded arrays: ``[N, S]`` per seat, ``contrib`` ``[N, K, S]``."""

    present: np.ndarray
    contrib: np.ndarray
    folded: np.ndarray
    values: np.ndarray  # -1: cards not known
    stack: np.ndarray | None


def _read_log(table: pa.Table, game: str, rules: str) -> tuple[_Log | None, np.ndarray, int]:
    """The hands as padded arrays, with the project's list readers (any list layout and integer
    width, sliced or chunked); returns the log of the rows kept, the kept mask, and the rows read.
    A row is left out when a cell or an element is null, a value does not fit int64, a seat's chips
    add up beyond int64, or its lists do not fit together (2+ seats; cards, contributions and stacks
    per seat; a board of 5; one street count for the file)."""
    street_col = "contrib_street" if "contrib_street" in table.column_names else "contrib"
    spec = game_spec(game)
    names = ["folded", "cards", street_col] + (["board"] if spec.board_cards else [])
    names += ["stack"] if "stack" in table.column_names else []
    bad = np.zeros(table.num_rows, bool)
    for name in names:
        bad |= lists.missing_rows(table.column(name))
    per = spec.hole_cards
    fold_v, fold_s, n = lists.list_parts(table.column("folded"))
    card_v, card_s, card_n = card_parts(table.column("cards"), per)
    bad |= (n < 2) | (card_n != per * n)
    chips, chip_s, chip_n, big = lists.int_list_parts(table.column(street_col), street_col)
    streets = chip_n // np.maximum(n, 1)
    K = int(np.max(streets[~bad], initial=1))
    bad |= big | (chip_n != K * n)
    if spec.board_cards:
        board_v, board_s, board_n = card_parts(table.column("board"), 1, least=spec.board_cards)
        bad |= board_n != spec.board_cards
    if "stack" in table.column_names:
        stack_v, stack_s, stack_n, big = lists.int_list_parts(table.column("stack"), "stack")
        bad |= big | (stack_n != n)
    keep = np.flatnonzero(~bad)
    if keep.size == 0:
        return None, np.zeros(table.num_rows, bool), table.num_rows
    n = n[keep]
    S = int(n.max()) if n.size else 2
    present = np.arange(S)[None, :] < n[:, None]
    folded = lists.scatter(fold_v.astype(np.bool_), fold_s[keep], n, S, True, np.bool_) & present
    if street_col == "contrib":
        contrib = lists.scatter(chips, chip_s[keep], n, S, 0, np.int64)[:, None, :]
    else:  # street-major per row: element p of a row of n seats is street p // n, seat p % n
        contrib = lists.scatter(chips, chip_s[keep], K * n, K, 0, np.int64, row_width=n)
        contrib = np.pad(contrib, ((0, 0), (0, 0), (0, S - contrib.shape[2])))
    cards = lists.scatter(card_v, card_s[keep], per * n, per * S, 255, np.int64).reshape(len(n), S, per)
    values = np.full((len(n), S), -1, np.int64)
    if not spec.board_cards:
        known = present & (cards < spec.deck_size).all(axis=2)
        values[known] = spec.kernel().evaluate(cards[known].astype(np.uint8), rules)
    else:
        B = spec.board_cards
        board = lists.scatter(board_v, board_s[keep], np.full(len(n), B), B, 255, np.int64)
        seven = np.concatenate([cards, np.repeat(board[:, None, :], S, axis=1)], axis=2)
        known = present & (seven < spec.deck_size).all(axis=2)
        values[known] = spec.kernel().evaluate(seven[known].astype(np.uint8)).astype(np.int64)
    stack = None
    if "stack" in table.column_names:
        stack = lists.scatter(stack_v, stack_s[keep], n, S, 0, np.int64)
    # a seat's chips over the streets, or the table's stacks, beyond int64: cumsum would wrap
    over = lists.sums_overflow(np.maximum(contrib, 0).transpose(0, 2, 1).reshape(len(n), -1))
    if stack is not None:
        over |= lists.sums_overflow(np.maximum(stack, 0))
    log = _Log(present[~over], contrib[~over], folded[~over], values[~over], None if stack is None else stack[~over])
    kept = np.zeros(table.num_rows, bool)
    kept[keep[~over]] = True
    return log, kept, table.num_rows


def fit(table: pa.Table, game: str, rules: str, base: int, source: str) -> tuple[Behaviour, dict[str, Any]]:
    """Fit the model to recorded hands of ``game`` (rows of other games and rows that cannot be read
    whole are left out and counted, see :func:`_read_log`); returns the model and what the fit saw."""
    table = lists.without_views(table)  # a Polars frame's string and list views, read as plain ones
    rows_read = table.num_rows
    others: dict[str, int] = {}
    if "game" in table.column_names:
        names = pc.cast(table.column("game"), pa.string())
        counts = pc.value_counts(pc.fill_null(names, "(null)")).to_pylist()
        others = {str(c["values"]): int(c["counts"]) for c in counts if c["values"] != game}
        table = table.filter(pc.fill_null(pc.equal(names, game), False))
        if not table.num_rows:
            held = ", ".join(f"{g} {n:,}" for g, n in sorted(others.items()))
            raise UsageError(
                f"--behaviour-from: the log holds no hand of the room's game, {game} ({rows_read:,} rows: {held})"
            )
    needed = ["folded", "cards", "contrib_street" if "contrib_street" in table.column_names else "contrib"]
    needed += ["board"] if game_spec(game).board_cards else []
    missing = [c for c in needed if c not in table.column_names]
    if missing:
        raise UsageError(f"--behaviour-from: the log has no column {missing[0]!r} (docs/formats.md)")
    log, kept, rows_in = _read_log(table, game, rules)
    if log is None or not kept.any():
        raise UsageError(f"--behaviour-from: no complete {game} hand in the log ({rows_in} rows of the game)")
    q = quartiles(log.values, game, rules)
    N, K, S = log.contrib.shape
    cum = np.cumsum(log.contrib, axis=1)  # chips put in up to the end of each street
    stack = log.stack
    has_stack = stack is not None
    allin_end = (cum >= stack[:, None, :]) & log.present[:, None, :] if stack is not None else np.zeros_like(cum, bool)
    ante = np.full(N, base, np.int64)  # the model's ante (a table's smallest street-0 amount would miss it
    # whenever every seat called)
    level = np.where(~allin_end & log.present[:, None, :], log.contrib, 0).max(axis=2)  # [N, K] call level
    below = (log.contrib < level[:, :, None]) & log.folded[:, None, :]
    fold_street = np.where(below.any(axis=1), below.argmax(axis=1), K)  # K: fold street not found
    fold_street = np.where(log.folded, fold_street, K + 1)  # K + 1: never folded
    bet = level - np.where(np.arange(K) == 0, ante[:, None], 0)
    raw_units = np.rint(bet / base)
    units = np.clip(raw_units, 0, MAX_BET_UNITS).astype(np.int64)
    fold_n = np.zeros((K, QUARTILES + 1))
    fold_d = np.zeros((K, QUARTILES + 1))
    allin_n = np.zeros((K, QUARTILES + 1))
    allin_d = np.zeros((K, QUARTILES + 1))
    bet_counts = np.zeros((K, MAX_BET_UNITS + 1))
    clipped = 0
    for s in range(K):
        before = cum[:, s - 1, :] if s else np.zeros((N, S), np.int64)
        posted = before + (np.where(log.present, ante[:, None], 0) if s == 0 else 0)  # the ante is forced
        live = log.present & (fold_street >= s)
        active = live & ((posted < stack) if stack is not None else True)
        played = active.sum(axis=1) >= 2
        called = (~allin_end[:, s, :] & live & (fold_street > s)).any(axis=1)  # the level was seen
        seen = played & called
        np.add.at(bet_counts[s], units[seen, s], 1)
        clipped += int((raw_units[seen, s] > MAX_BET_UNITS).sum())
        facing = seen & (bet[:, s] > 0)
        decide = active & facing[:, None]
        all_known = ((log.values >= 0) | ~active).all(axis=1)
        strongest = np.argmax(np.where(active, log.values, -2), axis=1)
        leave_out = np.zeros_like(decide)
        leave_out[np.arange(N), strongest] = all_known
        counted = decide & ~leave_out
        folds = counted & (fold_street == s)
        _by_quartile(fold_n[s], fold_d[s], q, counted, folds)
        if stack is not None:
            room = (stack - posted) > bet[:, s][:, None]
            could = active & seen[:, None] & room
            shoved = could & allin_end[:, s, :] & (fold_street > s)
            _by_quartile(allin_n[s], allin_d[s], q, could, shoved)
    seat_counts = np.bincount(log.present.sum(axis=1), minlength=S + 1)[2:].astype(float)
    fold = _rates(fold_n, fold_d)
    allin = _rates(allin_n, allin_d) if has_stack else ((0.0,) * QUARTILES,) * K
    width = int(np.flatnonzero(bet_counts.sum(axis=0)).max()) + 1 if bet_counts.any() else 1
    bets = tuple(tuple((row[:width] / row.sum()).tolist()) if row.sum() else (1.0,) for row in bet_counts)
    model = Behaviour(tuple((seat_counts / seat_counts.sum()).tolist()), fold, allin, bets, source)
    seen_info = {
        "hands": int(N),
        "rows_left_out": int(rows_read - N),  # every row not fitted: another game's, or not read whole
        "rows_of_other_games": sum(others.values()),
        "base": base,
        "seats_with_known_cards": round(float((log.values >= 0).sum() / log.present.sum()), 4),
        "fold_decisions": fold_d[:, QUARTILES].astype(int).tolist(),
        "allin_decisions": allin_d[:, QUARTILES].astype(int).tolist() if has_stack else None,
        "notes": ([] if has_stack else ["no stack column: all-in rates not fitted (0)"])
        + (
            [f"{clipped} bets above {MAX_BET_UNITS} base units counted as {MAX_BET_UNITS}: is --base the big blind?"]
            if clipped
            else []
        )
        + (
            [f"rows of other games left out: {', '.join(f'{g} {n:,}' for g, n in sorted(others.items()))}"]
            if others
            else []
        ),
    }
    return model, seen_info


def _by_quartile(num: np.ndarray, den: np.ndarray, q: np.ndarray, counted: np.ndarray, hit: np.ndarray) -> None:
    """Add decisions (``counted``) and events (``hit``) by quartile, and over all seats in slot 4."""
    known = counted & (q >= 0)
    den[:QUARTILES] += np.bincount(q[known], minlength=QUARTILES)
    num[:QUARTILES] += np.bincount(q[known & hit], minlength=QUARTILES)
    den[QUARTILES] += counted.sum()
    num[QUARTILES] += (counted & hit).sum()


def _rates(num: np.ndarray, den: np.ndarray) -> tuple[tuple[float, ...], ...]:
    """Per street and quartile; a quartile with too few decisions takes the street's overall rate."""
    overall = np.divide(num[:, QUARTILES], den[:, QUARTILES], out=np.zeros(len(num)), where=den[:, QUARTILES] > 0)
    rate = np.divide(
        num[:, :QUARTILES], den[:, :QUARTILES], out=np.zeros((len(num), QUARTILES)), where=den[:, :QUARTILES] > 0
    )
    rate = np.where(den[:, :QUARTILES] >= MIN_DECISIONS, rate, overall[:, None])
    return tuple(tuple(float(x) for x in row) for row in rate)
