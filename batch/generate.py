"""``cardbatch generate``: synthetic, reproducible game logs with known bad rows.

The behaviour model (documented in docs/guide/generate.md): every hand deals from
:func:`cardbatch.kernels.decks.deal_decks` (deck index = hand id) and takes
its betting from :mod:`cardbatch.kernels.betting` (``--play random``) or, with players who decide
by their cards, :mod:`cardbatch.kernels.play` (``tight``, ``loose``) (each hand from its own
counter-based stream keyed by (seed, hand id); a hand ends when one seat is
left, and later board cards are then never dealt: 255). Recorded payouts come
from the settlement kernel; ``tamper_rate`` moves one chip between two seats
of some recorded payouts (for ``audit``), ``bad_rate`` injects invalid rows
of every reason. Everything is vectorised per street.

The job (:func:`run`) cuts the file into units of whole row groups (about
:data:`UNIT_ROWS` rows) and runs them on an engine
(:mod:`~cardbatch.batch.io.engines`); each unit writes its rows as a part in
the file's own Parquet (:mod:`~cardbatch.batch.io.staged`), and this process
joins the parts' bytes in order (:mod:`~cardbatch.batch.io.parquet_concat`).
The file is made of blocks of :data:`CHUNK` rows, each from the streams keyed
by (seed, its first hand id), whichever unit makes it, so the file is the
same, byte for byte, whatever the engine, the workers and the unit size.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from typing import Any, Literal

import numpy as np
import pyarrow as pa

from cardbatch import plays
from cardbatch.batch.io import engines, owned, parquet_concat, staged, storage
from cardbatch.batch.io.columns import fixed_size_list
from cardbatch.batch.io.compiling import announced
from cardbatch.batch.io.errors import UsageError
from cardbatch.batch.io.jobs import FILE_MODES, FileMode, RunOptions, Summary, require_whole
from cardbatch.batch.io.lists import padded_to_list
from cardbatch.batch.io.progress import progress
from cardbatch.constants import RANKS, SUITS
from cardbatch.games import HOLDEM, REGISTRY, TEAM2V2, Game
from cardbatch.games import game as game_spec
from cardbatch.kernels import betting, pots, showdown, team, threecard
from cardbatch.kernels import cards as kcards
from cardbatch.kernels import decks as kdecks
from cardbatch.kernels import play as kplay

INJECTABLE = (
    "bad_card",
    "duplicate_card",
    "negative_contrib",
    "seat_count",
    "no_live_seat",
    "orphan_chips",
    "bad_button",
)


@dataclasses.dataclass
class Generated:
    table: pa.Table
    injected: dict[str, np.ndarray]  # reason -> hand ids
    tampered: np.ndarray  # hand ids whose recorded payout was altered


CHUNK = 1 << 17  # rows generated at once: small arrays stay in the allocator instead of page-faulting
UNIT_ROWS = 8 * CHUNK  # rows of a unit of work (one worker's task): 1,048,576


def generate_hands(
    game: str,
    n: int,
    seed: int,
    start: int = 0,
    max_seats: int = 9,
    bad_rate: float = 0.0,
    tamper_rate: float = 0.0,
    streets_column: bool = False,
    text_cards: bool = False,
    rules: str = "zjh",
    bias: tuple[Bias, ...] = (),
    play_style: str = "random",
    hide_folded: bool = False,
) -> Generated:
    """``n`` hands of ``game`` (any game with hands), hand ids ``start..start+n-1``; ``bias``: dealt
    by the dishonest dealers given (none: a fair deal); ``play_style``: how the players decide (a
    :data:`cardbatch.plays.PLAYS` name); ``hide_folded``: folded seats' cards written as
    unknown, as public hand histories hide them.

    Made in chunks of :data:`CHUNK` rows, each from its own random stream
    keyed by ``(seed, chunk start)``: the same arguments give the same table.
    """
    if not game_spec(game).has_hands:
        raise ValueError(f"generate_hands: game {game} has no hands (generate_teams writes its rows)")
    if n > CHUNK:
        parts = [
            generate_hands(
                game,
                min(CHUNK, n - off),
                seed,
                start + off,
                max_seats,
                bad_rate,
                tamper_rate,
                streets_column,
                text_cards,
                rules,
                bias,
                play_style,
                hide_folded,
            )
            for off in range(0, n, CHUNK)
        ]
        injected = {k: np.concatenate([p.injected[k] for p in parts]) for k in parts[0].injected}
        return Generated(
            pa.concat_tables([p.table for p in parts]), injected, np.concatenate([p.tampered for p in parts])
        )
    return _generate_chunk(
        game_spec(game),
        n,
        seed,
        start,
        max_seats,
        bad_rate,
        tamper_rate,
        streets_column,
        text_cards,
        rules,
        bias,
        play_style,
        hide_folded,
    )


def _generate_chunk(
    spec: Game,
    n: int,
    seed: int,
    start: int,
    max_seats: int,
    bad_rate: float,
    tamper_rate: float,
    streets_column: bool,
    text_cards: bool,
    rules: str,
    bias: tuple[Bias, ...] = (),
    play_style: str = "random",
    hide_folded: bool = False,
) -> Generated:
    style = plays.play(play_style)
    if style.params is not None and not spec.board_cards:
        raise UsageError(f"--play {play_style}: {_decides_by_cards(spec.name)}")
    rng = np.random.default_rng([seed, start, 1])
    dealer = np.random.default_rng([seed, start, 2])  # the biases' own stream: a fair file stays as it was
    per = spec.hole_cards
    max_seats = min(max_seats, spec.dealt_seats)
    S = max_seats
    seats = rng.integers(2, max_seats + 1, n)
    streets = spec.generated_rounds
    if style.params is None:  # decisions without the cards: drawn first, as the first model always did
        contrib, live, button, ended_at, stack = betting.bets(
            seed, start, n, S, seats, streets, spec.generated_fold_rate, 20
        )
    deck = kdecks.from_rank(kdecks.deal_decks(n, seed, start), spec.lowest_rank)
    for b in bias:
        if b.kind == "card":
            _bias_deck(deck, seats, spec, b, dealer)
    hole = np.full((n, S, per), 255, np.uint8)
    board = np.full((n, 5), 255, np.uint8)
    for p in np.unique(seats):  # decks from deal_decks are permutations: index the positions directly
        rows = np.flatnonzero(seats == p)
        if spec.board_cards:  # hole cards, then the board with burn cards between its streets
            hole_pos, board_pos = kdecks.board_positions(int(p), per)
            hole[rows, :p] = deck[rows[:, None, None], hole_pos[None]]
            board[rows] = deck[rows[:, None], board_pos[None]]
        else:
            hole[rows, :p] = deck[rows[:, None, None], kdecks.hand_positions(int(p), per)[None]]
    for b in bias:
        if b.kind == "seat0":
            _bias_seat0(deck, hole, board, seats, spec, rules, b, dealer)
    if style.params is not None:  # players who look at their cards (and the board as it comes)
        params = np.array(style.params)
        contrib, live, button, ended_at, stack = kplay.play(seed, start, hole, board, seats, params, streets, 20)
    if spec.board_cards:  # streets never reached leave their board cards undealt
        board[ended_at <= 1, :3] = 255
        board[ended_at <= 2, 3] = 255
        board[ended_at <= 3, 4] = 255
    showdown_rows = live.sum(axis=1) >= 2
    score, low = showdown.seat_values(
        spec, hole, board if spec.board_cards else None, live & showdown_rows[:, None], rules=threecard.rules_of(rules)
    )
    if not spec.button:  # dealt without one (stud, razz): odd chips from seat 0, no button column
        button = seats - 1
    payout = pots.settle(contrib.sum(axis=1), live, score, button, low=low)
    hand_id = np.arange(start, start + n, dtype=np.int64)

    tampered = np.zeros(0, np.int64)
    if tamper_rate > 0:
        pick = np.flatnonzero((rng.random(n) < tamper_rate) & (payout.max(axis=1) > 0))
        for t in pick:  # move one chip from a paid seat to seat 0/1: rare, a loop is fine
            src = int(np.argmax(payout[t]))
            dst = 0 if src != 0 else 1
            payout[t, src] -= 1
            payout[t, dst] += 1
        tampered = hand_id[pick]
    injected: dict[str, np.ndarray] = {}
    card_len = seats * per
    contrib_len = seats.copy()
    bad = np.zeros(0, np.int64)
    if bad_rate > 0:
        bad = np.flatnonzero(rng.random(n) < bad_rate)
        injectable = INJECTABLE if spec.button else tuple(r for r in INJECTABLE if r != "bad_button")
        kinds = rng.integers(0, len(injectable), bad.size)
        for reason_i, reason in enumerate(injectable):
            rows = bad[kinds == reason_i]
            injected[reason] = hand_id[rows]
            if rows.size == 0:
                continue
            if reason == "bad_card":
                hole[rows, 0, 0] = 60
            elif reason == "duplicate_card":
                hole[rows, 1, 0] = hole[rows, 0, 0]
            elif reason == "negative_contrib":
                contrib[rows, :, 0] = 0
                contrib[rows, 0, 0] = -5
            elif reason == "seat_count":
                card_len[rows] -= 1
            elif reason == "no_live_seat":
                live[rows] = False
            elif reason == "orphan_chips":
                # a folded seat (folding the first live one if two or more are live) out-bets every live seat
                nlive = live[rows].sum(axis=1)
                first_live = np.argmax(live[rows], axis=1)
                first_dead = np.argmax(~live[rows] & (np.arange(S)[None, :] < seats[rows, None]), axis=1)
                seat = np.where(nlive >= 2, first_live, first_dead)
                live[rows, seat] = False
                if contrib.shape[1] > 1:  # its last street its own: an orphan under every policy
                    contrib[rows, -1, :] = 0
                top = contrib[rows].sum(axis=1).max(axis=1)
                contrib[rows, -1, seat] += top + 10 - contrib[rows, :, seat].sum(axis=1)
            elif reason == "bad_button":
                button[rows] = seats[rows] + 1
    if hide_folded:  # as a public hand history: a folded hand is never shown (a bad row keeps its problem)
        hide = ~live & (np.arange(S)[None, :] < seats[:, None])
        hide[bad] = False
        hole[hide] = 255
    cols: dict[str, pa.Array] = {
        "hand_id": pa.array(hand_id),
        "game": pa.array(np.full(n, spec.name)).dictionary_encode(),
    }
    if spec.button:
        cols["button"] = pa.array(button.astype(np.int8))
    if spec.board_cards:
        cols["board"] = pa.array(_board_text(board)) if text_cards else fixed_size_list(board)
    flat_cards = hole.reshape(n, S * per)
    if text_cards:
        text = _HOLE_LUT[hole[..., 0]]
        for j in range(1, per):
            text = np.char.add(text, _HOLE_LUT[hole[..., j]])
        cols["cards"] = padded_to_list(
            text.astype(object), np.where(card_len != seats * per, seats - 1, seats), pa.string()
        )
    else:
        cols["cards"] = padded_to_list(flat_cards, card_len, pa.uint8())
    if streets_column:
        flat = np.ascontiguousarray(contrib[:, :, :])  # street-major per row: [k, seat] for seats < S_t
        idx = np.arange(streets)[None, :, None] * 0 + np.arange(S)[None, None, :] < seats[:, None, None]
        vals = flat[np.broadcast_to(idx, flat.shape)]
        offsets = np.zeros(n + 1, np.int32)
        np.cumsum(seats * streets, out=offsets[1:])
        cols["contrib_street"] = pa.ListArray.from_arrays(pa.array(offsets), pa.array(vals))
        cols["stack"] = padded_to_list(stack, seats, pa.int64())  # with the streets, it places an all-in in time
    else:
        cols["contrib"] = padded_to_list(contrib.sum(axis=1), contrib_len, pa.int64())
    cols["folded"] = padded_to_list(~live, seats, pa.bool_())
    cols["payout"] = padded_to_list(payout, seats, pa.int64())
    cols["player_id"] = padded_to_list(rng.integers(1, 10**6, (n, S)), seats, pa.int64())
    return Generated(pa.table(cols), injected, tampered)


def _decides_by_cards(game: str) -> str:
    """Why players who decide by their cards cannot play ``game`` (a game without a board), and the
    games they play (every game with a board).

    >>> print(_decides_by_cards("razz"))  # doctest: +NORMALIZE_WHITESPACE
    game razz has no board to decide by; its players fold at random (--play random); tight and loose play
    holdem, omaha, omaha5, omaha6, omaha_hilo, omaha5_hilo, shortdeck
    """
    board = ", ".join(g.name for g in REGISTRY.values() if g.has_hands and g.board_cards)
    return (
        f"game {game} has no board to decide by; its players fold at random (--play random); tight and loose "
        f"play {board}"
    )


def _text_lut() -> np.ndarray:
    from cardbatch.kernels import cards as kcards

    lut = np.full(256, "??", dtype="U2")
    lut[:52] = kcards.format(np.arange(52, dtype=np.uint8)[:, None])
    lut[255] = ""
    return lut


_TEXT_LUT = _text_lut()
_HOLE_LUT = _TEXT_LUT.copy()
_HOLE_LUT[255] = "--"  # a hole card not shown: "no card", a hidden folded hand


def _board_text(board: np.ndarray) -> np.ndarray:
    text = _TEXT_LUT[board[:, 0]]
    for j in range(1, 5):
        text = np.char.add(text, _TEXT_LUT[board[:, j]])
    out: np.ndarray = text
    return out


def generate_teams(n: int, seed: int, start: int = 0, bad_rate: float = 0.0, tamper_rate: float = 0.0) -> Generated:
    """``n`` team2v2 games with the fixed-width schema of docs/formats.md; ``tamper_rate`` moves one coin
    between two seats of the recorded deltas (``payout``) of some valid games (for ``audit``: it finds
    every one)."""
    rng = np.random.default_rng([seed, start, 2])
    balance = rng.choice([0, 30, 500, 2000, 10000, 50000], (n, 4))
    mult = rng.integers(1, 5, (n, 4))
    afk = rng.random((n, 4)) < 0.05
    winner = rng.integers(0, 2, n)
    base = rng.choice([10, 100, 1000], n)
    double = rng.integers(1, 4, n)
    fee = rng.choice([0, 5, 20], n)
    injected: dict[str, np.ndarray] = {}
    hand_id = np.arange(start, start + n, dtype=np.int64)
    if bad_rate > 0:
        bad = np.flatnonzero(rng.random(n) < bad_rate)
        kinds = rng.integers(0, 3, bad.size)
        for i, reason in enumerate(("negative_balance", "bad_multiplier", "bad_winner")):
            rows = bad[kinds == i]
            injected[reason] = hand_id[rows]
            if reason == "negative_balance":
                balance[rows, 1] = -10
            elif reason == "bad_multiplier":
                mult[rows, 2] = 0
            else:
                winner[rows] = 2
    ok = team.validate_2v2(balance, mult, afk, winner, base, double, fee) == 0
    delta = np.zeros((n, 4), np.int64)
    delta[ok] = team.settle_2v2(balance[ok], mult[ok], afk[ok], winner[ok], base[ok], double[ok], fee[ok])[0]
    tampered = np.zeros(0, np.int64)
    if tamper_rate > 0:  # drawn after everything else: a file without tampering stays as it was
        pick = np.flatnonzero((rng.random(n) < tamper_rate) & ok)
        src = np.argmax(delta[pick], axis=1)  # one coin from the seat that gained most to seat 0 (or 1)
        delta[pick, src] -= 1
        delta[pick, np.where(src != 0, 0, 1)] += 1
        tampered = hand_id[pick]
    table = pa.table(
        {
            "hand_id": pa.array(hand_id),
            "game": pa.array(np.full(n, TEAM2V2.name)).dictionary_encode(),
            "balance": fixed_size_list(balance),
            "multiplier": fixed_size_list(mult),
            "afk": fixed_size_list(afk),
            "winner": pa.array(winner.astype(np.int8)),
            "base": pa.array(base.astype(np.int64)),
            "double": pa.array(double.astype(np.int64)),
            "fee": pa.array(fee.astype(np.int64)),
            "payout": fixed_size_list(delta),
        }
    )
    return Generated(table, injected, tampered)


@dataclasses.dataclass(frozen=True)
class Bias:
    """A dishonest dealer, to prove the fairness audit (``--bias``). ``seat0``: when seat 0's cards
    lose to another seat's on the full board (all five cards; three-card games: the hands alone),
    they are re-dealt from the undealt cards with probability ``rate``, once. ``card``: with
    probability ``rate`` a row's ``card`` (a code) is moved into seat 0's first hole card (swapped
    with whatever was there, so the deck stays a deck).

    >>> Bias.parse("seat0=0.01"), Bias.parse("card=As:0.02").card
    (Bias(kind='seat0', rate=0.01, card=None), 51)
    >>> str(Bias.parse("card=As:0.02")), str(Bias.parse("seat0=1"))
    ('card=As:0.02', 'seat0=1.0')
    >>> Bias.parse("seat1=0.5")
    Traceback (most recent call last):
    ValueError: --bias: 'seat1=0.5' is not seat0=RATE or card=CARD:RATE (a rate in 0..1, a card like As)
    """

    kind: Literal["seat0", "card"]
    rate: float
    card: int | None = None

    @classmethod
    def parse(cls, text: str) -> Bias:
        """``seat0=RATE`` or ``card=CARD:RATE``."""
        bad = ValueError(f"--bias: {text!r} is not seat0=RATE or card=CARD:RATE (a rate in 0..1, a card like As)")
        kind, _, value = text.partition("=")
        try:
            if kind == "seat0":
                return cls("seat0", float(value))
            if kind == "card":
                name, _, rate = value.partition(":")
                codes = kcards.parse([name])
                if codes.shape != (1, 1) or codes[0, 0] > 51:
                    raise bad
                return cls("card", float(rate), int(codes[0, 0]))
        except ValueError:
            raise bad from None
        raise bad

    def __post_init__(self) -> None:
        if not 0 <= self.rate <= 1:
            raise ValueError(f"--bias: a rate in 0..1, got {self.rate}")

    def __str__(self) -> str:
        """The dealer as ``--bias`` writes it (what the summary shows)."""
        if self.card is not None:
            return f"card={_TEXT_LUT[self.card]}:{self.rate!r}"
        return f"{self.kind}={self.rate!r}"


def _bias_deck(deck: np.ndarray, seats: np.ndarray, spec: Game, bias: Bias, rng: np.random.Generator) -> None:
    """``card`` bias: move the card into seat 0's first hole card in the chosen rows (a swap)."""
    assert bias.card is not None
    if bias.card < 4 * spec.lowest_rank:
        name = RANKS[bias.card >> 2] + SUITS[bias.card & 3]
        raise UsageError(f"--bias: card {name} is not in {spec.title}'s deck")
    rows = np.flatnonzero(rng.random(len(deck)) < bias.rate)
    at = np.argmax(deck[rows] == bias.card, axis=1)  # seat 0's first hole card is deck position 0
    first = deck[rows, 0].copy()
    deck[rows, 0] = bias.card
    deck[rows, at] = first


def _bias_seat0(
    deck: np.ndarray,
    hole: np.ndarray,
    board: np.ndarray,
    seats: np.ndarray,
    spec: Game,
    rules: str,
    bias: Bias,
    rng: np.random.Generator,
) -> None:
    """``seat0`` bias: re-deal seat 0's cards, from the deck's last cards (never dealt at a table this
    size), in the chosen rows where they lose on the full board."""
    per = spec.hole_cards
    S = hole.shape[1]
    mask = np.arange(S)[None, :] < seats[:, None]
    score, _ = showdown.seat_values(
        spec, hole, board if spec.board_cards else None, mask, rules=threecard.rules_of(rules)
    )
    dealt = seats * per + (8 if spec.board_cards else 0)  # hole cards, burns and board
    loses = score[:, 0] < np.where(mask[:, 1:], score[:, 1:], -1).max(axis=1)
    rows = np.flatnonzero(loses & (rng.random(len(hole)) < bias.rate) & (dealt + per <= deck.shape[1]))
    hole[rows, 0, :] = deck[rows][:, deck.shape[1] - per :]


@dataclasses.dataclass(frozen=True)
class GenerateOptions:
    """What ``cardbatch generate`` writes: ``hands`` rows of ``game`` to ``out``, in row groups of
    ``row_group`` rows; ``bad_rate`` injects invalid rows, ``tamper_rate`` alters recorded payouts;
    ``streets`` writes ``contrib_street`` (and ``stack``) instead of ``contrib``; ``text_cards`` writes
    cards as text; ``bias``: dishonest dealers (:class:`Bias`), none by default; ``start_id``: the
    first ``hand_id`` (hand ``i`` of the file is ``start_id + i``, dealt from deck ``start_id + i``).
    ``play``: how the players decide (:data:`cardbatch.plays.PLAYS`: ``random`` folds whatever
    the cards, ``tight``/``loose`` decide by them, games with a board only); ``hide_folded``: folded
    seats' cards written as unknown (255, ``--``), as public hand histories hide them.
    ``unit_rows`` (Python only): the rows of a unit of work, a multiple of ``row_group`` (default:
    the multiple nearest :data:`UNIT_ROWS`); the file is the same, byte for byte, whatever it is.
    An option that can do nothing for the game is refused (``ValueError``): a 2v2 game has no streets
    and no cards."""

    out: str
    game: str = HOLDEM.name
    hands: int = 10000
    seed: int = 0
    start_id: int = 0
    max_seats: int = 9
    bad_rate: float = 0.0
    tamper_rate: float = 0.0
    streets: bool = False
    text_cards: bool = False
    row_group: int = 1 << 20
    run: RunOptions = RunOptions()
    bias: tuple[Bias, ...] = ()
    mode: FileMode = "replace"
    play: str = "random"
    hide_folded: bool = False
    unit_rows: int | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.out, str) or not self.out:
            raise ValueError("out: give the Parquet file to write")
        game_spec(self.game)  # a ValueError naming the games
        style = plays.play(self.play)  # a ValueError naming the styles
        if style.params is not None and not game_spec(self.game).board_cards:
            raise ValueError(f"--play {self.play}: {_decides_by_cards(self.game)}")
        for name, least in (("hands", 1), ("seed", 0), ("max_seats", 2), ("row_group", 1), ("start_id", 0)):
            require_whole(getattr(self, name), name, least)
        if self.unit_rows is not None:  # a unit holds whole row groups: its part's are the file's
            require_whole(self.unit_rows, "unit_rows", 1)
            if self.unit_rows % self.row_group:
                raise ValueError(
                    f"unit_rows must be a multiple of row_group ({self.row_group:,}), got {self.unit_rows:,}"
                )
        if self.seed >= 2**64:  # the deal's generator takes a 64-bit seed
            raise ValueError(f"seed must be below 2**64, got {self.seed}")
        if self.start_id + self.hands > 2**63:  # hand_id is an int64, and so is a deck's index
            raise ValueError(f"--start-id: the last hand_id, {self.start_id + self.hands - 1:,}, passes 2**63 - 1")
        for name in ("bad_rate", "tamper_rate"):
            if not 0 <= getattr(self, name) <= 1:
                raise ValueError(f"{name} must be in 0..1, got {getattr(self, name)!r}")
        if not game_spec(self.game).has_hands:  # what a 2v2 row does not hold: refused, never ignored
            if self.bias:
                raise ValueError(f"--bias: game {self.game} deals no cards")
            if self.streets:
                raise ValueError(f"--streets: game {self.game} has no betting streets (its rows record balances)")
            if self.text_cards:
                raise ValueError(f"--text-cards: game {self.game} deals no cards")
            if self.hide_folded:
                raise ValueError(f"--hide-folded: game {self.game} deals no cards")


def run(opts: GenerateOptions) -> Summary:
    """Write the file ``opts`` describes: the ``cardbatch generate`` command as one call."""
    with announced("cardbatch generate", opts.run.quiet):  # this process's compilation, said once
        s = write(opts)
    return Summary(s, f"cardbatch generate: {s['rows']:,} {opts.game} rows written to {s['out']}")


@dataclasses.dataclass(frozen=True)
class Unit:
    """Rows ``start..start+rows-1`` of the file (``start`` a multiple of the row group), written as
    part ``index``."""

    index: int
    start: int
    rows: int


COUNTERS_KEY = b"cardbatch.generate.counters"  # a part's counters, kept in its schema for a rerun


def unit_rows(opts: GenerateOptions) -> int:
    """The rows of a unit: ``opts.unit_rows``, or the multiple of the row group nearest :data:`UNIT_ROWS`.

    >>> unit_rows(GenerateOptions("x")), unit_rows(GenerateOptions("x", row_group=100_000))
    (1048576, 1000000)
    """
    return opts.unit_rows or opts.row_group * max(1, round(UNIT_ROWS / opts.row_group))


def units_of(opts: GenerateOptions) -> list[Unit]:
    """The run's units: :func:`unit_rows` rows each, the last one the rest.

    >>> [(u.start, u.rows) for u in units_of(GenerateOptions("x", hands=5003, row_group=1000, unit_rows=2000))]
    [(0, 2000), (2000, 2000), (4000, 1003)]
    """
    size = unit_rows(opts)
    return [Unit(i, start, min(size, opts.hands - start)) for i, start in enumerate(range(0, opts.hands, size))]


def generate_rows(opts: GenerateOptions, start: int, n: int) -> Generated:
    """Rows ``start..start+n-1`` of the file ``opts`` describes. The file is made of blocks of
    :data:`CHUNK` rows (the last one the rest), each from the streams keyed by ``(seed, hand id of
    its first row)``: a unit makes the blocks it overlaps and keeps its rows, so a row is the same
    whichever unit makes it."""
    pieces = []
    for block in range(start // CHUNK * CHUNK, start + n, CHUNK):
        g = _block(opts, block, min(CHUNK, opts.hands - block))
        lo, hi = max(start, block) - block, min(start + n, block + CHUNK) - block
        if (lo, hi) != (0, g.table.num_rows):
            first = opts.start_id + block
            keep = {k: v[(v >= first + lo) & (v < first + hi)] for k, v in g.injected.items()}
            tampered = g.tampered[(g.tampered >= first + lo) & (g.tampered < first + hi)]
            g = Generated(g.table.slice(lo, hi - lo), keep, tampered)
        pieces.append(g)
    if len(pieces) == 1:
        return pieces[0]
    injected = {k: np.concatenate([p.injected[k] for p in pieces]) for k in pieces[0].injected}
    return Generated(
        pa.concat_tables([p.table for p in pieces]), injected, np.concatenate([p.tampered for p in pieces])
    )


def _block(opts: GenerateOptions, block: int, n: int) -> Generated:
    """The ``n`` rows of the block that starts at row ``block`` of the file."""
    first = opts.start_id + block
    if game_spec(opts.game).has_hands:
        return generate_hands(
            opts.game,
            n,
            opts.seed,
            first,
            opts.max_seats,
            opts.bad_rate,
            opts.tamper_rate,
            opts.streets,
            opts.text_cards,
            bias=opts.bias,
            play_style=opts.play,
            hide_folded=opts.hide_folded,
        )
    return generate_teams(n, opts.seed, first, opts.bad_rate, opts.tamper_rate)  # a 2v2 game's rows


def run_unit(unit: Unit, opts: GenerateOptions, staging: staged.Staging) -> dict[str, Any]:
    """Make ``unit``'s rows and write them as its part, the output's own Parquet in row groups of
    ``opts.row_group`` rows (any worker); returns its counters (also kept in the part's footer, for
    a rerun that reuses it)."""
    g = generate_rows(opts, unit.start, unit.rows)
    counters = {"injected": {k: int(v.size) for k, v in g.injected.items()}, "tampered": int(g.tampered.size)}
    staged.write_parquet_part(
        staging.path(part_of(unit)), g.table, opts.row_group, {COUNTERS_KEY: json.dumps(counters).encode()}
    )
    return counters


def part_of(unit: Unit) -> str:
    """The name of ``unit``'s part."""
    return staged.part_name(unit.index, ext="parquet")


def plan(opts: GenerateOptions) -> dict[str, Any]:
    """What decides the parts (the staging folder's plan): everything but the output's name and
    how the run runs."""
    from cardbatch import __version__

    asked = {f.name: getattr(opts, f.name) for f in dataclasses.fields(opts)}
    for name in ("out", "run", "mode"):
        del asked[name]
    return {
        **asked,
        "unit_rows": unit_rows(opts),
        "bias": [str(b) for b in opts.bias],
        "chunk": CHUNK,
        "cardbatch": __version__,
    }


def write(opts: GenerateOptions) -> dict[str, Any]:
    """Write the file ``opts`` describes and return a small summary. The units run on the engine
    ``opts.run`` asks for, each writing its part, the file's own Parquet (:mod:`~cardbatch.batch.io.staged`);
    this process joins the parts' bytes in order (:mod:`~cardbatch.batch.io.parquet_concat`), under
    a temporary name until the file is complete. A rerun after a crash reuses the parts a run of the
    same options finished."""
    if opts.mode not in FILE_MODES:
        raise ValueError(f"mode must be one of {', '.join(FILE_MODES)}, got {opts.mode!r}")
    engines.check_available(opts.run)
    owned.check_outputs([opts.out], "generate", opts.mode)
    units = units_of(opts)
    staging = staged.Staging(opts.out, "generate")
    reuse = staging.begin(plan(opts))
    found = {u.index: _counters_of(staging, u) for u in units if part_of(u) in reuse}
    counted = {i: c for i, c in found.items() if c is not None}
    todo = [u for u in units if u.index not in counted]
    task = functools.partial(run_unit, opts=opts, staging=staging)
    quiet, verbose = opts.run.quiet, opts.run.verbose
    with (
        engines.start(opts.run, len(todo)) as engine,
        progress(total=opts.hands, desc="generate", unit="row", quiet=quiet, verbose=verbose) as bar,
    ):
        bar.update(sum(u.rows for u in units if u.index in counted))
        if todo and not engine.external and not isinstance(engine, engines.InProcess):
            _compile_ahead(opts)  # the workers then load the kernels this process compiled
        for unit, counters in engine.map(task, todo):
            counted[unit.index] = counters
            bar.update(unit.rows)
        engine_name, workers = engine.name, engine.workers
    # the parts' bytes, one after the other: the file the same whichever worker made which part
    parquet_concat.concat([staging.path(part_of(u)) for u in units], opts.out, owned.parquet_metadata("generate"))
    injected: dict[str, int] = {}
    for unit in units:
        for k, v in counted[unit.index]["injected"].items():
            injected[k] = injected.get(k, 0) + v
    tampered = sum(counted[u.index]["tampered"] for u in units)
    staging.finish()
    return {
        "out": str(opts.out),
        "rows": opts.hands,
        "hand_ids": [opts.start_id, opts.start_id + opts.hands - 1],
        "injected": injected,
        "tampered": tampered,
        "bias": [str(b) for b in opts.bias],
        "play": opts.play,
        "hide_folded": opts.hide_folded,
        "parts": len(units),
        "parts_reused": len(units) - len(todo),
        "engine": engine_name,
        "workers": workers,
    }


def _counters_of(staging: staged.Staging, unit: Unit) -> dict[str, Any] | None:
    """The counters a finished part keeps in its footer (None: not a part of ours: made again)."""
    footer = storage.parquet_file(staging.path(part_of(unit))).metadata.metadata or {}
    try:
        found: dict[str, Any] = json.loads(footer[COUNTERS_KEY])
    except (KeyError, ValueError):
        return None
    return found


def _compile_ahead(opts: GenerateOptions) -> None:
    """Two rows of the run in this process, which compiles (once, said on stderr) or loads every
    kernel the run needs, so that the workers load them from numba's cache instead of each
    compiling them."""
    generate_rows(opts, 0, min(2, opts.hands))
