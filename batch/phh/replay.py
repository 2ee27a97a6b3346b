"""Replay one PHH hand into the settle format's columns: here the flop games (Hold'em, Omaha, Omaha hi/lo, short deck).

The replay follows the chips, not the strategy: who must act next, what each
action puts in on which street, who folded, which cards were dealt or shown.

- **Games** come from the registry (:mod:`cardbatch.games`), never from names
  written here: a variant code is the game whose spec lists it in
  ``phh_variants`` (``NT``/``FT`` Hold'em, ``PO`` Omaha, ``FO/8`` Omaha hi/lo,
  ``NS`` short deck), and that spec gives the hole cards a seat holds, the
  seats a table may have and the ``game`` column. A hand that deals another
  number of hole cards a seat is the registry's game of the same family (the
  same evaluator, board, deck and high/low split) with that many (``PO`` dealt
  five is Omaha with five hole cards), or ``hole_cards`` when the family has
  none. The flop games (five board cards dealt 3-1-1, four betting rounds)
  are replayed here; the registry's games without a board (seven-card stud,
  stud hi/lo, razz, the draw games and badugi: ``F7S``, ``F7S/8``, ``FR``,
  ``N2L1D``, ``F2L3D``, ``FB``) by :mod:`.studdraw` on the same table and
  forced bets; every other code is ``unsupported_variant``.
- **Limits.** Fixed-limit, pot-limit and no-limit betting move chips the same
  way (a bet or raise puts the seat's bet *to* its amount), so one replay
  serves them all: the limit is in the variant code and never checked.
- **Fields** are read through :mod:`.schema`, which holds what each variant requires and checks
  every amount's type and range (a field missing, mistyped or out of range is ``malformed``, a list
  of another length than the seats ``seat_count``): the replay never reads a field itself.
- **Seats** are the PHH players in order (``p1`` first); the button is the
  last player. Heads-up, ``p1`` posts the big blind and ``p2`` (the button)
  the small blind, and the antes swap the same way (as pokerkit does).
- **Forced bets** go in on street 0: each ante, then each blind or straddle,
  each capped at what the seat has (a blind at the stack less the ante).
  With ``ante_trimming_status = false`` the antes are dead money (``dead``,
  dead money, docs: Rules: a big-blind ante is the usual case); with ``true`` they
  are live chips, and the largest ante's excess over the next largest goes
  back at once (a lone big-blind ante comes back whole), as pokerkit does.
  Every game reads the same fields (short deck's antes and button blind too).
- **Turn order** (pokerkit's, which the PHH files are written by). Each
  round has a queue of seats to act. Pre-flop it starts after the largest
  blind or straddle (the later seat on a tie); after the flop at ``p1``. It
  holds the seats, in order, that have chips and could be called (some other
  seat in the hand has more chips than the seat's bet); a round whose queue
  is one seat that has matched is skipped (an all-in run-out). Each action
  takes its seat off the queue; a bet or raise queues every other seat with
  chips again, in order after it. The round ends when the queue is empty.
  An action by any other seat is ``illegal_action``.
- **Uncalled bets** are returned when a round ends (or everyone else folds):
  the top bettor's excess over the next largest bet of that street leaves
  ``contrib_street``, as the dealer hands it back. So ``contrib`` holds the
  chips that stayed in the pot, and a showdown muck of the larger stack
  never leaves chips no live seat can win.
- **Showdown.** ``pN sm CARDS`` shows (and fills ``????`` cards);
  ``pN sm`` mucks, which is a fold for settlement. Hole cards never shown stay
  255 (unknown). Every seat dealt or shown cards holds the same number; a card
  below the game's deck (a two to five in short deck) is ``bad_card``.
- **Recorded result.** ``payout = finishing_stacks - starting_stacks +
  contrib`` (chips received), or ``winnings`` when that is what the hand
  records; none when it records neither.

Not checked, because they never change who owns a chip: minimum raise
sizes, fixed-limit increments, pot-limit maxima and the raise cap. Checked,
because they do: chips that do not fit int64 (``overflow``), amounts above a
seat's stack, a raise that does not raise (unless all in), actions out of turn
or after the hand ended, a hand that stops mid-round, a hole-card count that
is no game's, more than five board cards.
"""

from __future__ import annotations

import dataclasses
from collections import deque
from decimal import Decimal
from fractions import Fraction
from typing import Any

from cardbatch.batch.phh import schema
from cardbatch.batch.phh.notation import Malformed
from cardbatch.batch.phh.schema import Checked, Rejected
from cardbatch.constants import RANKS, SUITS  # the kernels' alphabet, without loading them
from cardbatch.games import REGISTRY, Game

_MAX64 = 2**63 - 1
STREETS = 4  # the flop games' betting rounds: pre-flop, flop, turn, river
BOARD = 5  # their board: three cards on the flop, one on the turn, one on the river
UNKNOWN = 255


def _flop_game(spec: Game) -> bool:
    """A game this replay can follow: seats' own cards and a five-card board dealt 3-1-1 over four
    betting rounds, chips settled in pots."""
    return spec.has_hands and spec.settles == "pot" and spec.board_cards == BOARD and spec.betting_rounds == STREETS


def _family(spec: Game) -> tuple[object, ...]:
    """What games that differ only in their hole cards share (Omaha with 4, 5 or 6)."""
    return (spec.evaluator, spec.board_cards, spec.lowest_rank, spec.split_pots, spec.straight_order_option)


# variant code -> the game it names, and -> that game's family by hole cards (the registry's order)
GAME_OF: dict[str, Game] = {code: spec for spec in REGISTRY.values() if _flop_game(spec) for code in spec.phh_variants}
BY_HOLE_CARDS: dict[str, dict[int, Game]] = {
    code: {
        g.hole_cards: g
        for g in reversed(REGISTRY.values())  # the first of two with the same count wins: the variant's own
        if _flop_game(g) and _family(g) == _family(spec) and (g.hole_cards != spec.hole_cards or g is spec)
    }
    for code, spec in GAME_OF.items()
}


def _own_cards_game(spec: Game) -> bool:
    """A game without a board this replay can follow (:mod:`.studdraw`): seven-card stud's dealing
    (three cards, then one a street, a betting round after each: the cards as dealt) or a draw game
    (a betting round before the first draw and after each), chips settled in pots."""
    if not (spec.has_hands and spec.settles == "pot" and spec.board_cards == 0 and spec.phh_variants):
        return False
    if spec.cards_as_dealt:
        return not spec.button and spec.hole_cards == spec.betting_rounds + 2
    return spec.button and spec.betting_rounds >= 2


# variant code -> the game without a board it names (one game a code: its hole cards never vary)
OWN_CARDS_OF: dict[str, Game] = {
    code: spec for spec in REGISTRY.values() if _own_cards_game(spec) for code in spec.phh_variants
}
SUPPORTED = (*GAME_OF, *OWN_CARDS_OF)
MAX_SEATS = max(
    *(g.max_seats for games in BY_HOLE_CARDS.values() for g in games.values()),
    *(g.max_seats for g in OWN_CARDS_OF.values()),
)
_MAX_HOLE = {code: max(games) for code, games in BY_HOLE_CARDS.items()}


def _games_of(code: str) -> str:
    """``omaha (4 hole cards), omaha5 (5) or omaha6 (6)``: the games a code imports as, for messages."""
    if code in OWN_CARDS_OF:
        return OWN_CARDS_OF[code].name
    games = sorted(BY_HOLE_CARDS[code].values(), key=lambda g: g.hole_cards)
    if len(games) == 1:
        return games[0].name
    named = [f"{g.name} ({g.hole_cards}{' hole cards' if k == 0 else ''})" for k, g in enumerate(games)]
    return ", ".join(named[:-1]) + " or " + named[-1]


def imported() -> str:
    """The variant codes the import reads and the games they become, from the registry (for
    messages)."""
    by_game: dict[str, list[str]] = {}
    for code in SUPPORTED:
        by_game.setdefault(_games_of(code), []).append(code)
    return "; ".join(f"{' and '.join(codes)} as {games}" for games, codes in by_game.items())


@dataclasses.dataclass
class Hand:
    """One hand in the settle format's layout (seat lists in PHH player order)."""

    seats: int
    contrib_street: list[int]  # betting rounds (STREETS in a flop game) x seats, street-major
    dead: list[int]
    folded: list[bool]
    cards: list[int]  # the game's hole cards per seat, 255 unknown
    board: list[int]  # 5, 255 never dealt (all 255 in a game without a board)
    payout: list[int] | None
    variant: str
    game: str  # the registry's name of the game the variant and hole cards make
    players: list[str] | None
    stack: list[int]  # starting stacks: what ``simulate --behaviour-from`` needs to see an all-in
    button: int | None  # the last seat; None in stud and razz, dealt without a button
    discards: list[list[int]] | None = None  # a draw game's: each seat's discarded cards, in order


def _card_codes() -> dict[str, int]:
    """Every two-character card text, in any letter case, and ``??``, to its code: ``rank * 4 +
    suit``, the codec of :mod:`cardbatch.kernels.cards` (a test holds the two equal), from its
    alphabet in :mod:`cardbatch.constants`, not asked of the kernels: importing them loads numba, a
    quarter second of every import command's start."""
    codes = {"??": UNKNOWN}
    for r, rank in enumerate(RANKS):
        for s, suit in enumerate(SUITS):
            for a in {rank, rank.lower()}:
                for b in {suit, suit.upper()}:
                    codes[a + b] = r * 4 + s
    return codes


_CODES = _card_codes()


def parse_cards(text: str) -> list[int]:
    """``"AsKd"`` to codes; ``"??"`` is 255. Raises :class:`Rejected` (``bad_card``)."""
    if len(text) % 2:
        raise Rejected("bad_card", f"cards {text!r} are not two characters each")
    try:
        if len(text) == 4:
            return [_CODES[text[:2]], _CODES[text[2:]]]
        return [_CODES[text[i : i + 2]] for i in range(0, len(text), 2)]
    except KeyError as exc:
        raise Rejected("bad_card", f"{exc.args[0]!r} is not a card") from None


def chips_of(value: Any, factor: int, name: str) -> int:
    """An action's amount (``cbr 1,500.50``) in chips: ``value * factor`` exactly, or
    ``fractional_chips`` (a field's amounts: :func:`.schema.read`)."""
    # the common case, without Fraction (isascii: str.isdigit also takes "²", which int() refuses)
    if type(value) is int or type(value) is str and value.isascii() and value.isdigit():
        chips = int(value) * factor
        return chips
    if isinstance(value, str):
        try:
            value = Fraction(value.replace(",", "").replace("_", ""))
        except (ValueError, ZeroDivisionError):
            raise Rejected("malformed", f"{name}: {value!r} is not an amount") from None
    elif isinstance(value, bool) or not (isinstance(value, int) or isinstance(value, Decimal) and value.is_finite()):
        raise Rejected("malformed", f"{name}: {value!r} is not an amount")
    scaled = Fraction(value) * factor
    if scaled.denominator != 1:
        raise Rejected("fractional_chips", f"{name}: {value} x {factor} is not a whole number of chips")
    if scaled < 0:
        raise Rejected("malformed", f"{name}: {value} is negative")
    return int(scaled)


class _Table:
    """The betting state of one hand: stacks, this street's bets, contributions per street, and
    the queue of seats still to act in this round."""

    def __init__(self, n: int, stacks: list[int], streets: int = STREETS) -> None:
        self.n = n
        self.stack = stacks
        self.zeros = [0] * n
        self.bet = [0] * n  # this street's bets
        self.contrib = [[0] * n for _ in range(streets)]
        self.folded = [False] * n
        self.live = n  # seats not folded
        self.queue: deque[int] = deque()
        self.street = 0

    def fold(self, seat: int) -> None:
        if not self.folded[seat]:
            self.folded[seat] = True
            self.live -= 1

    def put(self, seat: int, amount: int) -> None:
        self.stack[seat] -= amount
        self.bet[seat] += amount
        self.contrib[self.street][seat] += amount

    def in_hand(self) -> int:
        return self.live

    def start_round(self, opener: int) -> None:
        """The round's queue: the seats from ``opener`` on that have chips and could be called
        (another seat in the hand has more chips, bet and stack, than their bet); none when only
        one is left and it has matched (an all-in run-out)."""
        n, bet, stack, folded = self.n, self.bet, self.stack, self.folded
        totals = sorted(bet[o] + stack[o] for o in range(n) if not folded[o])
        top, second = totals[-1], totals[-2] if len(totals) > 1 else -1
        queue = self.queue
        queue.clear()
        for k in range(n):
            s = (opener + k) % n
            if folded[s] or not stack[s]:
                continue
            other = top if bet[s] + stack[s] != top else second  # the most any other seat has
            if other > bet[s]:
                queue.append(s)
        if len(queue) == 1 and bet[queue[0]] >= max(bet):
            queue.clear()

    def actor(self) -> int | None:
        return self.queue[0] if self.queue and self.live > 1 else None

    def acted(self, seat: int, raised: bool) -> None:
        """``seat`` acted: off the queue; a raise queues every other seat with chips, in order after it."""
        queue = self.queue
        queue.popleft()
        if raised:
            n, folded, stack = self.n, self.folded, self.stack
            queue.clear()
            queue.extend(s for s in (*range(seat + 1, n), *range(seat)) if not folded[s] and stack[s] > 0)

    def return_uncalled(self) -> None:
        """End of a round: the top bettor's excess over the next largest bet goes back to it."""
        _return_excess(self.bet, self.stack, self.contrib[self.street])

    def next_street(self, start: bool = True) -> None:
        """The round ends (its uncalled bet back) and the next street's begins: its queue from
        ``p1`` now, or (``start`` False) when the caller knows who opens it."""
        self.return_uncalled()
        self.street += 1
        self.bet[:] = self.zeros  # in place: the replay holds the list
        self.queue.clear()
        if start:
            self.start_round(0)


def _return_excess(bets: list[int], stack: list[int], contrib: list[int]) -> None:
    """The one largest of ``bets`` down to the next largest, the difference back to its stack."""
    top = max(bets)
    leaders = [s for s, b in enumerate(bets) if b == top]
    if top > 0 and len(leaders) == 1:
        s = leaders[0]
        excess = top - max(b for i, b in enumerate(bets) if i != s)
        stack[s] += excess
        bets[s] -= excess
        contrib[s] -= excess


def replay(fields: dict[str, Any], factor: int = 1) -> Hand:
    """The :class:`Hand` of one PHH hand of a game with a board, amounts times ``factor``; raises
    :class:`Rejected` (:func:`cardbatch.batch.phh.hands.replay` takes every variant)."""
    variant = schema.variant_of(fields)
    if variant not in GAME_OF:  # the games without a board: hands.replay
        raise Rejected("unsupported_variant", f"variant {variant!r} is not imported (import reads {imported()})")
    spec = GAME_OF[variant]
    most = max(g.max_seats for g in BY_HOLE_CARDS[variant].values())
    checked = schema.read(fields, factor, variant, spec, most, _games_of(variant))
    n, stacks, blinds, actions = checked.seats, checked.starting_stacks, checked.blinds, checked.actions
    table, dead = forced_bets(checked)
    max_hole = _MAX_HOLE[variant]
    table.start_round(first_after_blinds(table, blinds))
    actor = table.actor()
    # the loop reads the table's lists through locals (each keeps its identity all hand) and does
    # the common steps inline: method calls and the seat lookup were a third of a hand's replay
    stack, bet, folded, queue = table.stack, table.bet, table.folded, table.queue
    street_contrib = table.contrib[0]

    hole: list[list[int]] = [[] for _ in range(n)]
    board: list[int] = []
    shown: list[list[int] | None] = [None] * n
    ended = False  # everyone else folded
    for index, raw in enumerate(actions):
        words = (raw.split("#", 1)[0] if "#" in raw else raw).split()
        if not words:
            continue
        label = words[0]
        if label == "d":
            if len(words) == 4 and words[1] == "dh":
                seat = seat_of(words[2], n, index, raw)
                hole[seat].extend(parse_cards(words[3]))
                if len(hole[seat]) > max_hole:
                    raise Rejected(
                        "hole_cards",
                        f"{loc(index, raw)}: more than {max_hole} hole cards for {words[2]} in {variant}",
                    )
            elif len(words) == 3 and words[1] == "db":
                if actor is not None or ended:
                    raise Rejected("illegal_action", f"{loc(index, raw)}: the board is dealt while a bet is open")
                dealt = parse_cards(words[2])
                if len(dealt) != (3 if not board else 1) or table.street >= STREETS - 1:
                    raise Rejected("illegal_action", f"{loc(index, raw)}: {len(dealt)} board cards after {len(board)}")
                board.extend(dealt)
                table.next_street()
                street_contrib = table.contrib[table.street]
                actor = table.actor()
            else:
                raise Rejected("illegal_action", f"{loc(index, raw)}: not a dealing action of a flop game")
            continue
        seat = _LABELS.get(label, n)
        if seat >= n:
            seat_of(label, n, index, raw)  # raises
        verb = words[1] if len(words) > 1 else ""
        if verb == "sm":
            if len(words) > 3 or folded[seat]:
                raise Rejected("illegal_action", f"{loc(index, raw)}: a folded seat cannot show")
            if len(words) == 2:
                table.fold(seat)  # a muck
            elif words[2] != "-":
                shown[seat] = parse_cards(words[2])  # as many as the seat holds: checked at the end
            continue
        if verb not in ("f", "cc", "cbr"):
            raise Rejected("illegal_action", f"{loc(index, raw)}: {verb!r} is not a betting action of a flop game")
        if seat != actor:
            expected = "nobody" if actor is None else f"p{actor + 1}"
            raise Rejected("illegal_action", f"{loc(index, raw)}: out of turn ({expected} was to act)")
        if verb == "cbr":
            if len(words) != 3:
                raise Rejected("illegal_action", f"{loc(index, raw)}: a bet or raise takes one amount")
            top = max(bet)
            amount = words[2]
            if amount.isascii() and amount.isdigit():  # the common case, without chips_of' checks
                to = int(amount) * factor
            else:
                to = chips_of(amount, factor, loc(index, raw))
            add = to - bet[seat]
            if add > stack[seat]:
                raise Rejected("illegal_action", f"{loc(index, raw)}: raises to {to}, more than the seat has")
            if to <= top and add < stack[seat]:
                raise Rejected("illegal_action", f"{loc(index, raw)}: a raise to {to} does not raise {top}")
            table.acted(seat, True)
        elif len(words) != 2:
            what = "a fold" if verb == "f" else "a check or call"
            raise Rejected("illegal_action", f"{loc(index, raw)}: {what} takes no amount")
        else:
            queue.popleft()
            if verb == "f":
                table.fold(seat)
                add = 0
            else:
                add = min(max(bet) - bet[seat], stack[seat])
        stack[seat] -= add
        bet[seat] += add
        street_contrib[seat] += add
        if table.live == 1:
            table.return_uncalled()
            ended = True
        actor = queue[0] if queue and table.live > 1 else None
    if actor is not None:
        raise Rejected("incomplete", f"the actions stop while p{actor + 1} is to act")
    if not ended and table.in_hand() > 1 and len(board) < 5:  # a complete hand deals the board, all in or not
        raise Rejected("incomplete", f"the actions stop after {len(board)} board cards with seats still in")
    table.return_uncalled()

    spec = _game_by_hole_cards(variant, spec, hole, shown)
    if n > spec.max_seats:
        raise Rejected("seat_count", f"{n} players: {spec.name} takes 2..{spec.max_seats}")
    k = spec.hole_cards
    cards: list[int] = []
    for s in range(n):
        own = hole[s] or [UNKNOWN] * k
        showed = shown[s]
        if showed is not None:
            if len(showed) != k:
                raise Rejected("hole_cards", f"p{s + 1} shows {len(showed)} cards of the {k} a seat holds")
            if any(c != UNKNOWN and c != v for c, v in zip(own, showed)):
                raise Rejected("bad_card", f"p{s + 1} shows {showed} but was dealt {own}")
            own = showed
        cards.extend(own)
    if spec.lowest_rank:  # a card the game's deck does not hold
        below = 4 * spec.lowest_rank
        outside = [c for c in (*cards, *board) if c < below]
        if outside:
            raise Rejected("bad_card", f"{text_of_cards(outside[0])} is not in the {spec.name} deck")
    contrib_street = [v for street in table.contrib for v in street]
    return Hand(
        seats=n,
        contrib_street=contrib_street,
        dead=dead,
        folded=list(table.folded),
        cards=cards,
        board=(board + [UNKNOWN] * BOARD)[:BOARD],
        payout=recorded(checked, table),
        variant=variant,
        game=spec.name,
        players=checked.players,
        stack=stacks,
        button=n - 1,
    )


def forced_bets(checked: Checked, streets: int = STREETS) -> tuple[_Table, list[int]]:
    """A hand's table (``streets`` betting rounds) with the antes and blinds in (heads-up swapped),
    and the dead chips."""
    n, stacks, antes, blinds = checked.seats, checked.starting_stacks, checked.antes, checked.blinds
    if sum(stacks) > _MAX64:  # every contribution and payout is at most the table's chips
        raise Rejected("overflow", f"the starting stacks, {sum(stacks)} chips, do not fit a 64-bit integer")
    trimming = checked.trimming
    if n == 2:  # heads-up: the button (p2) posts the small blind and p1 the big one
        antes, blinds = antes[::-1], blinds[::-1]

    table = _Table(n, list(stacks), streets)
    posted = [min(antes[s], stacks[s]) for s in range(n)]
    dead = [0] * n if trimming else posted
    for s in range(n):
        table.stack[s] -= posted[s]
        table.contrib[0][s] += posted[s]
    if trimming:  # live antes: the top one's excess over the next is returned at once, like an uncalled bet
        _return_excess(list(posted), table.stack, table.contrib[0])
    for s in range(n):  # a blind is capped by the stack less the whole ante, trimmed or not (as pokerkit)
        table.put(s, min(blinds[s], stacks[s] - posted[s]))
    return table, dead


def first_after_blinds(table: _Table, blinds: list[int]) -> int:
    """Who acts first in the first round of a game with blinds: the seat after the largest blind
    or straddle (the later seat on a tie)."""
    n = table.n
    return (max(range(n), key=lambda s: (table.bet[s] if blinds[s] > 0 else 0, s)) + 1) % n


def _game_by_hole_cards(variant: str, spec: Game, hole: list[list[int]], shown: list[list[int] | None]) -> Game:
    """The game of the hand: the variant's, or the one of its family (:func:`_family`) that holds as
    many hole cards as the hand deals (or shows, for a seat never dealt); ``hole_cards`` when seats
    hold different numbers or no game of the family holds that many."""
    counts = {len(h or v or ()) for h, v in zip(hole, shown) if h or v}
    if not counts or counts == {spec.hole_cards}:  # the common case
        return spec
    if len(counts) > 1:
        held = ", ".join(f"p{s + 1}: {len(h or v or ())}" for s, (h, v) in enumerate(zip(hole, shown)) if h or v)
        raise Rejected("hole_cards", f"the seats hold different numbers of hole cards ({held})")
    (count,) = counts
    game = BY_HOLE_CARDS[variant].get(count)
    if game is None:
        raise Rejected("hole_cards", f"{count} hole cards a seat: {variant} is imported as {_games_of(variant)}")
    return game


def text_of_cards(code: int) -> str:
    return RANKS[code // 4] + SUITS[code % 4]


def loc(index: int, raw: str) -> str:
    """``action K ('text')``, for messages (built only when one is raised)."""
    return f"action {index + 1} ({raw!r})"


_LABELS = {f"p{i + 1}": i for i in range(MAX_SEATS)}


def seat_of(label: str, n: int, index: int, raw: str) -> int:
    seat = _LABELS.get(label, n)
    if seat >= n:
        raise Rejected("illegal_action", f"{loc(index, raw)}: {label!r} is not one of p1..p{n}")
    return seat


def recorded(checked: Checked, table: _Table) -> list[int] | None:
    """The recorded result: chips received (``finishing_stacks - starting_stacks + contrib``, or the
    ``winnings``); None when the hand records neither."""
    if checked.finishing_stacks is not None:
        contrib = [sum(c) for c in zip(*table.contrib)]
        starting, finishing = checked.starting_stacks, checked.finishing_stacks
        recorded = [finishing[s] - starting[s] + contrib[s] for s in range(checked.seats)]
    elif checked.winnings is not None:
        recorded = checked.winnings
    else:
        return None
    if any(abs(v) > _MAX64 for v in recorded):
        raise Rejected("overflow", "the recorded result does not fit a 64-bit integer")
    return recorded


__all__ = [
    "BY_HOLE_CARDS",
    "GAME_OF",
    "OWN_CARDS_OF",
    "SUPPORTED",
    "Hand",
    "Malformed",
    "Rejected",
    "imported",
    "parse_cards",
    "replay",
]
