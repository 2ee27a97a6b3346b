"""Replay one PHH hand of a game without a board into the settle format's columns: seven-card stud,
stud hi/lo and razz (``F7S``, ``F7S/8``, ``FR``), and the draw games (deuce-to-seven single draw
``N2L1D``, triple draw ``F2L3D``, badugi ``FB``).

The table, the forced bets, the betting actions and the recorded result are the flop games'
(:mod:`.replay`: antes dead or live, uncalled bets returned, turn order pokerkit's, limits not
checked). What differs:

- **Streets.** A row's ``contrib_street`` holds the game's betting rounds (the registry's
  ``betting_rounds``): stud five (third to seventh street), single draw two, triple draw and
  badugi four. There is no board (the ``board`` column is five 255s).
- **Stud's dealing.** ``d dh pN CARDS`` deals a seat its cards: three on third street (two down,
  one up), one on each later street (up, the seventh down); the street a card belongs to is the
  seat's count of cards, so a run-out after an all-in needs no betting between its deals, and may
  deal a seat several streets' cards in one action (as pokerkit writes it). A seat's ``cards`` are
  the seven it was dealt, in that order (255 for a ``??`` never shown).
- **Stud's forced bets and turn order.** Antes only (``blinds_or_straddles`` may be absent): no
  button, the ``button`` column is null. On third street the lowest up card brings in (``pN pb``,
  ``bring_in`` chips or what the seat has left) or completes (``cbr``), nothing else; razz: the
  highest up card, the ace low. Ties of rank go by suit, clubs, diamonds, hearts, spades from the
  lowest. On later streets the best showing hand opens (razz: the lowest): pairs, two pair, trips
  and quads over unpaired cards, straights and flushes not counted, a tie to the first seat. This
  is pokerkit's rule (its ``Opening``), so an action by any other seat is ``illegal_action``;
  where a seat's up cards are not all known (``??``), the first seat to act opens.
- **Draws.** ``pN sd CARDS`` discards the cards (``pN sd`` stands pat) and ``d dh pN CARDS``
  deals their replacements: a seat's ``cards`` are the hand it ended with, the cards it kept in
  their order and then the ones drawn (as pokerkit shows them). The first draw after a betting
  round, or a seat's second, begins the next street; the betting after it opens at ``p1``, as after
  a flop. A ``??`` discarded leaves the hand's known cards where they are when the seat holds an
  unknown card, else it makes the whole hand unknown (which cards stayed is not written). The cards
  each seat threw away go in ``discards`` (255 where unknown). When the deck runs out the muck is
  shuffled and dealt again: a folded seat's card that comes back to another seat is no longer its
  (255 in its hand), and a card in ``discards`` may be in another seat's hand.
- **Showdown.** ``pN sm CARDS`` shows the cards the seat holds then (a stud seat all in on sixth
  street shows six, then seven), in their order: they fill its ``??`` cards and must agree with
  the others (``bad_card``). A folded seat's cards stay as far as they are known.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from cardbatch.batch.phh import schema
from cardbatch.batch.phh.replay import (
    BOARD,
    UNKNOWN,
    Hand,
    chips_of,
    first_after_blinds,
    forced_bets,
    loc,
    parse_cards,
    recorded,
    seat_of,
    text_of_cards,
)
from cardbatch.batch.phh.schema import Rejected
from cardbatch.games import Game

# seven-card stud's deal: three cards on the first street, then one a street; the first two and the
# last are down, the others up (each seat's cards 2..5 are its up cards)
FIRST_DEAL = 3
UP = slice(2, 6)
# pokerkit's order of suits for the bring-in (clubs lowest), by our suit code (rank * 4 + suit:
# diamonds, clubs, hearts, spades)
_SUIT_ORDER = (1, 0, 2, 3)


def _card_order(code: int, ace_low: bool) -> tuple[int, int]:
    """A card's place in the bring-in's order: rank (the ace lowest when ``ace_low``), then suit."""
    rank = code // 4
    return ((rank + 1) % 13 if ace_low else rank), _SUIT_ORDER[code % 4]


def _showing(ups: list[int], ace_low: bool) -> tuple[int, int, tuple[int, ...]]:
    """The order of a seat's up cards as an opening hand (pokerkit's opening lookups): unpaired
    cards, one pair, two pair, trips, quads, then more cards over fewer, then the ranks (the
    groups' first, each group high to low); straights and flushes do not count."""
    ranks = [(c // 4 + 1) % 13 if ace_low else c // 4 for c in ups]
    counts = Counter(ranks)
    most = max(counts.values())
    kind = (0, 1 if len(counts) == len(ranks) - 1 else 2, 3, 4)[most - 1]
    return kind, len(ranks), tuple(sorted(ranks, key=lambda r: (counts[r], r), reverse=True))


def stud_opener(hole: list[list[int]], folded: list[bool], street: int, razz: bool) -> int | None:
    """Who opens a stud street's betting (pokerkit's rule): on the first street the lowest up card
    brings in (razz: the highest, the ace low), on the others the best showing hand (razz: the
    lowest; a tie to the first seat); None when a seat in the hand shows a card not known."""
    seen = FIRST_DEAL - 2 + min(street, 3)  # up cards a seat shows on this street
    ups = {s: h[UP][:seen] for s, h in enumerate(hole) if not folded[s]}
    if not ups or any(len(u) != seen or UNKNOWN in u for u in ups.values()):
        return None
    if street == 0:
        order = {s: _card_order(u[0], razz) for s, u in ups.items()}
        return (max if razz else min)(order, key=order.__getitem__)
    shown = {s: _showing(u, razz) for s, u in ups.items()}
    return (min if razz else max)(shown, key=shown.__getitem__)  # the first of equals


def replay(fields: dict[str, Any], factor: int, variant: str, spec: Game) -> Hand:
    """The :class:`Hand` of a stud or draw hand's fields (``variant`` names ``spec``, a game of
    :data:`~.replay.OWN_CARDS_OF`); raises :class:`Rejected`."""
    stud = spec.cards_as_dealt
    k = spec.hole_cards
    rounds = spec.betting_rounds
    checked = schema.read(fields, factor, variant, spec, spec.max_seats, spec.name)
    n, stacks, blinds, actions = checked.seats, checked.starting_stacks, checked.blinds, checked.actions
    table, dead = forced_bets(checked, streets=rounds)
    stack, bet, folded, queue = table.stack, table.bet, table.folded, table.queue
    bring = checked.bring_in
    hole: list[list[int]] = [[] for _ in range(n)]
    discards: list[list[int]] = [[] for _ in range(n)]
    owed = [0] * n  # cards a seat discarded and has not been dealt again yet
    drew: set[int] = set()  # the seats that drew in this street's draw
    drawing = False  # a draw is under way (no betting since it began)
    bring_due = False
    if stud:
        started = False  # the street's betting round has its queue (stud: once its cards are all dealt)
    else:  # blinds, as in the flop games
        table.start_round(first_after_blinds(table, blinds))
        started = True
    actor = table.actor()
    ended = False  # everyone else folded

    def begin(first: int | None, at: str | None) -> int | None:
        """The street's betting round begins: its queue from the seat that opens it (``first``, the
        seat acting now, where the opener is not known); the seat to act, or None. After a draw,
        every seat in the hand has drawn and been dealt its cards (else ``illegal_action`` at the
        action ``at``, or ``incomplete`` at the end of the actions)."""
        nonlocal started, bring_due
        if stud:
            opener = stud_opener(hole, folded, table.street, spec.score_order == "low")
            if opener is None:
                opener = 0 if first is None else first
            bring_due = table.street == 0 and bring > 0
        else:
            opener = 0
            late = [s for s in range(n) if table.street and not folded[s] and (s not in drew or owed[s])]
            if late:
                what = "has not drawn" if late[0] not in drew else "has not been dealt its draw"
                where = f"{at}: p{late[0] + 1}" if at else f"the actions stop: p{late[0] + 1}"
                raise Rejected("illegal_action" if at else "incomplete", f"{where} {what}")
        table.start_round(opener)
        started = True
        return table.actor()

    def round_over(index: int, raw: str, what: str) -> None:
        """Cards dealt or drawn for a new street: the betting before must be over (an all-in
        round begins and ends here)."""
        nonlocal actor
        if not started:
            actor = begin(None, loc(index, raw))
        if actor is not None:
            raise Rejected("illegal_action", f"{loc(index, raw)}: {what} while p{actor + 1} is to act")
        if table.street + 1 >= rounds:
            raise Rejected("illegal_action", f"{loc(index, raw)}: {what} after the last betting round")

    for index, raw in enumerate(actions):
        words = (raw.split("#", 1)[0] if "#" in raw else raw).split()
        if not words:
            continue
        label = words[0]
        if label == "d":
            if len(words) != 4 or words[1] != "dh":
                raise Rejected("illegal_action", f"{loc(index, raw)}: not a dealing action of {spec.name}")
            seat = seat_of(words[2], n, index, raw)
            dealt = parse_cards(words[3])
            if folded[seat] or ended:
                raise Rejected("illegal_action", f"{loc(index, raw)}: cards dealt to a seat out of the hand")
            held = len(hole[seat]) + len(dealt)
            if stud:
                if held > k:
                    raise Rejected("hole_cards", f"{loc(index, raw)}: more than {k} cards for {words[2]}")
                street = max(held - FIRST_DEAL, 0)  # the street of the seat's last card
                if street < table.street:
                    raise Rejected("illegal_action", f"{loc(index, raw)}: a card of an earlier street")
                while table.street < street:  # several at once: a run-out after an all-in, deals compressed
                    round_over(index, raw, "cards dealt")
                    table.next_street(start=False)
                    started, actor = False, None
            elif owed[seat]:
                if len(dealt) > owed[seat]:
                    raise Rejected("hole_cards", f"{loc(index, raw)}: more cards than {words[2]} discarded")
                owed[seat] -= len(dealt)
                for o in range(n):  # a folded hand's card dealt again (the muck reshuffled): not its any more
                    if folded[o] and o != seat:
                        hole[o] = [UNKNOWN if c in dealt else c for c in hole[o]]
            elif table.street or held > k:
                raise Rejected("hole_cards", f"{loc(index, raw)}: more than {k} cards for {words[2]}")
            hole[seat].extend(dealt)
            continue
        seat = seat_of(label, n, index, raw)
        verb = words[1] if len(words) > 1 else ""
        if verb == "sm":
            if len(words) > 3 or folded[seat]:
                raise Rejected("illegal_action", f"{loc(index, raw)}: a folded seat cannot show")
            if len(words) == 2:
                table.fold(seat)  # a muck
            elif words[2] != "-":
                hole[seat] = _shown(hole[seat], parse_cards(words[2]), k, seat)
            continue
        if verb == "sd":
            if stud or len(words) > 3:
                raise Rejected("illegal_action", f"{loc(index, raw)}: {raw!r} is not an action of {spec.name}")
            if folded[seat] or ended:
                raise Rejected("illegal_action", f"{loc(index, raw)}: a seat out of the hand cannot draw")
            if not drawing or seat in drew:  # the betting before is over: the next street's draw
                round_over(index, raw, "a draw")
                table.next_street(start=False)
                started, actor, drawing = False, None, True
                drew.clear()
            drew.add(seat)
            thrown = parse_cards(words[2]) if len(words) == 3 else []
            hole[seat] = _discard(hole[seat], thrown, seat)
            discards[seat].extend(thrown)
            owed[seat] += len(thrown)
            continue
        if verb not in ("f", "cc", "cbr", "pb"):
            raise Rejected("illegal_action", f"{loc(index, raw)}: {verb!r} is not a betting action of {spec.name}")
        if not started and not ended:
            actor = begin(seat, loc(index, raw))
        drawing = False
        if seat != actor:
            expected = "nobody" if actor is None else f"p{actor + 1}"
            raise Rejected("illegal_action", f"{loc(index, raw)}: out of turn ({expected} was to act)")
        if (verb == "pb") != bring_due and (verb != "cbr" or not bring_due):
            what = "no bring-in is due" if verb == "pb" else f"p{seat + 1} must bring in or complete"
            raise Rejected("illegal_action", f"{loc(index, raw)}: {what}")
        if len(words) != (3 if verb == "cbr" else 2):
            takes = "one amount" if verb == "cbr" else "no amount"
            raise Rejected("illegal_action", f"{loc(index, raw)}: {raw!r} takes {takes}")
        bring_due = False
        if verb == "cbr":
            top = max(bet)
            to = chips_of(words[2], factor, loc(index, raw))
            add = to - bet[seat]
            if add > stack[seat]:
                raise Rejected("illegal_action", f"{loc(index, raw)}: raises to {to}, more than the seat has")
            if to <= top and add < stack[seat]:
                raise Rejected("illegal_action", f"{loc(index, raw)}: a raise to {to} does not raise {top}")
            table.acted(seat, True)
        else:
            queue.popleft()
            if verb == "f":
                table.fold(seat)
                add = 0
            elif verb == "pb":
                add = min(bring, stack[seat])
            else:
                add = min(max(bet) - bet[seat], stack[seat])
        table.put(seat, add)
        if table.live == 1:
            table.return_uncalled()
            ended = True
        actor = queue[0] if queue and table.live > 1 else None
    if not ended and table.live > 1:
        if not started:  # the last street dealt: nobody may be left to act
            actor = begin(None, None)
        if actor is not None:
            raise Rejected("incomplete", f"the actions stop while p{actor + 1} is to act")
        if table.street < rounds - 1:
            done = f"{table.street} draws" if not stud else f"street {table.street + 1} of {rounds}"
            raise Rejected("incomplete", f"the actions stop after {done} with seats still in")
        short = [s for s in range(n) if not folded[s] and (owed[s] or len(hole[s]) < k)]
        if short:
            s = short[0]
            raise Rejected("incomplete", f"p{s + 1} is still in the hand with {len(hole[s])} of its {k} cards")
    table.return_uncalled()

    cards: list[int] = []
    for s in range(n):
        cards.extend((hole[s] + [UNKNOWN] * k)[:k])
    return Hand(
        seats=n,
        contrib_street=[v for street in table.contrib for v in street],
        dead=dead,
        folded=list(folded),
        cards=cards,
        board=[UNKNOWN] * BOARD,
        payout=recorded(checked, table),
        variant=variant,
        game=spec.name,
        players=checked.players,
        stack=stacks,
        button=n - 1 if spec.button else None,
        discards=None if stud else discards,
    )


def _shown(held: list[int], shown: list[int], k: int, seat: int) -> list[int]:
    """A seat's cards once it shows ``shown``: the cards it holds, in order, its unknown ones filled."""
    if not held:
        if len(shown) > k:
            raise Rejected("hole_cards", f"p{seat + 1} shows {len(shown)} cards, more than the {k} a seat holds")
        return shown
    if len(shown) != len(held):
        raise Rejected("hole_cards", f"p{seat + 1} shows {len(shown)} cards of the {len(held)} it holds")
    if any(c != UNKNOWN and v != UNKNOWN and c != v for c, v in zip(held, shown)):
        shown_text = "".join(text_of_cards(c) if c != UNKNOWN else "??" for c in shown)
        held_text = "".join(text_of_cards(c) if c != UNKNOWN else "??" for c in held)
        raise Rejected("bad_card", f"p{seat + 1} shows {shown_text} but holds {held_text}")
    return [v if v != UNKNOWN else c for c, v in zip(held, shown)]


def _discard(held: list[int], thrown: list[int], seat: int) -> list[int]:
    """A seat's cards once it discards ``thrown``: each card taken out where it is (a card not
    known: the seat's first unknown card; an unknown card discarded from a hand without one makes
    every card left unknown)."""
    kept = list(held)
    lost = False
    for c in thrown:
        if c != UNKNOWN and c in kept:
            kept.remove(c)
        elif UNKNOWN in kept:
            kept.remove(UNKNOWN)
        elif c == UNKNOWN and kept:
            kept.pop()
            lost = True
        else:
            raise Rejected("bad_card", f"p{seat + 1} discards {text_of_cards(c)}, which it does not hold")
    return [UNKNOWN] * len(kept) if lost else kept
