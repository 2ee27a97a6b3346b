"""What one PHH hand of each variant must hold: its fields, their types and their ranges, checked here
for every game (the flop games' replay, :mod:`.replay`, and stud and draw's, :mod:`.studdraw`, both read
a hand's fields through :func:`read` and nothing else).

- **Required** (:data:`REQUIRED`, pokerkit's ``HandHistory.required_field_names``): every variant
  needs ``variant``, ``antes``, ``starting_stacks`` and ``actions``; a game dealt with a button its
  ``blinds_or_straddles``, stud and razz (no button) their ``bring_in``; and the bet sizes of its
  betting structure, the code's first letter: ``F`` (fixed-limit) ``small_bet`` and ``big_bet``, ``N``
  and ``P`` (no-limit, pot-limit) ``min_bet``. The limits are never checked, but a hand that does not
  say them is not a hand of its variant. ``finishing_stacks``, ``winnings``, ``players`` and
  ``ante_trimming_status`` may be absent.
- **Amounts** (:data:`AMOUNTS`) are numbers, never strings or booleans: an integer, or a decimal that
  the run's chip factor makes whole (else ``fractional_chips``). Chips a seat holds or puts in are 0 or
  more (antes, blinds, finishing stacks, winnings); a starting stack, a bet size and the bring-in are
  more than 0. The per-seat fields are lists of one entry a seat, the seats being the starting stacks'
  (antes and blinds may also be one amount for every seat, as pokerkit reads them); a list of
  another length is ``seat_count``.
- **Forced bets** a game does not have are refused, not ignored, when they hold chips (blinds in stud,
  a bring-in in a game with blinds): which the writer meant is not known. A hand with no forced bet at
  all (no ante, blind or bring-in) is refused too, as pokerkit refuses it: who acts first is not known.

Every refusal is ``malformed`` (but for the counts, ``seat_count``), with a message that names the
field, the seat where it is one seat's entry, and why.
"""

from __future__ import annotations

import dataclasses
from decimal import Decimal
from fractions import Fraction
from typing import Any

from cardbatch.games import REGISTRY, Game


class Rejected(ValueError):
    """A hand set aside: ``reason`` (a code for the errors file) and the message."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


@dataclasses.dataclass(frozen=True)
class Amount:
    """An amount field: ``per_seat`` a list of one entry a seat (``or_one``: or one amount for every
    seat; a field of one amount has no such choice), else one amount; ``positive``: more than 0, else
    0 or more, as ``rule`` says (messages)."""

    per_seat: bool
    or_one: bool
    positive: bool
    rule: str


AMOUNTS: dict[str, Amount] = {
    "antes": Amount(per_seat=True, or_one=True, positive=False, rule="an ante is 0 chips or more"),
    "blinds_or_straddles": Amount(True, True, False, "a blind or straddle is 0 chips or more"),
    "bring_in": Amount(False, False, True, "the bring-in is more than 0 chips"),
    "small_bet": Amount(False, False, True, "a bet size is more than 0 chips"),
    "big_bet": Amount(False, False, True, "a bet size is more than 0 chips"),
    "min_bet": Amount(False, False, True, "a bet size is more than 0 chips"),
    "starting_stacks": Amount(True, False, True, "a seat dealt in starts with more than 0 chips"),
    "finishing_stacks": Amount(True, False, False, "a stack is 0 chips or more"),
    "winnings": Amount(True, False, False, "what a seat wins is 0 chips or more"),
}
_ANY = Amount(True, True, False, "an amount is 0 chips or more")  # a forced bet the game has not

# a variant code's first letter, its betting structure (PHH's convention) -> the bet sizes it states
BET_SIZES = {"F": ("small_bet", "big_bet"), "N": ("min_bet",), "P": ("min_bet",)}
_SIZES = frozenset(name for sizes in BET_SIZES.values() for name in sizes)


def required(code: str, spec: Game) -> tuple[str, ...]:
    """The fields a hand of ``code`` (a code of ``spec``, a registry game) must hold."""
    forced = "blinds_or_straddles" if spec.button else "bring_in"
    return ("variant", "antes", forced, *BET_SIZES[code[0]], "starting_stacks", "actions")


# variant code -> the fields its hands must hold (every code a registry game lists)
REQUIRED: dict[str, tuple[str, ...]] = {
    code: required(code, spec) for spec in REGISTRY.values() for code in spec.phh_variants
}
_REQUIRED_SETS = {code: frozenset(names) for code, names in REQUIRED.items()}
_INTS, _STRS = {int}, {str}


@dataclasses.dataclass
class Checked:
    """A hand's fields as the replay reads them, checked, amounts in chips (times the chip factor);
    the per-seat lists in PHH player order."""

    variant: str
    seats: int
    starting_stacks: list[int]
    antes: list[int]
    blinds: list[int]  # zeros in a game without a button
    bring_in: int  # 0 in a game with a button
    actions: list[str]
    trimming: bool  # ante_trimming_status (false when absent)
    finishing_stacks: list[int] | None
    winnings: list[int] | None
    players: list[str] | None


def variant_of(fields: dict[str, Any]) -> str:
    """The hand's ``variant`` (any string: whether it is imported is the caller's to say); raises
    :class:`Rejected` (``malformed``) when it is missing or not a string."""
    variant = fields.get("variant")
    if isinstance(variant, str):
        return variant
    if variant is None:
        raise Rejected("malformed", "the field 'variant' is missing")
    raise Rejected("malformed", f"variant: {_shown(variant)} is not a variant code (text such as 'NT')")


def read(fields: dict[str, Any], factor: int, variant: str, spec: Game, most: int, games: str) -> Checked:
    """The fields a hand of ``variant`` (``spec``'s code) reads, checked, amounts times ``factor``:
    ``most`` seats at most (``games``, the games the code imports as, for the message); raises
    :class:`Rejected`."""
    names = REQUIRED[variant]
    if not fields.keys() >= _REQUIRED_SETS[variant]:
        missing = next(name for name in names if name not in fields)
        wanted = ", ".join(names[1:-1]) + " and " + names[-1]
        raise Rejected("malformed", f"the field {missing!r} is missing ({variant} requires {wanted})")
    starting = fields["starting_stacks"]
    if not isinstance(starting, list) or not starting:
        raise Rejected("malformed", f"starting_stacks: {_shown(starting)} is not a list of one amount a seat")
    n = len(starting)
    if not 2 <= n <= most:
        raise Rejected("seat_count", f"{n} players: {variant} ({games}) takes 2..{most}")
    stacks = _amounts(fields, "starting_stacks", n, factor)
    antes = _amounts(fields, "antes", n, factor)
    if spec.button:
        blinds = _amounts(fields, "blinds_or_straddles", n, factor)
        bring_in = 0
        if "bring_in" in fields:
            _absent(fields, "bring_in", factor, f"{spec.name} has blinds, no bring-in")
        if not any(antes) and not any(blinds):
            raise Rejected("malformed", "no forced bet: antes and blinds_or_straddles are all 0")
    else:
        blinds = [0] * n
        bring_in = _amount(fields["bring_in"], factor, "bring_in", AMOUNTS["bring_in"])
        if "blinds_or_straddles" in fields:
            _absent(fields, "blinds_or_straddles", factor, f"{spec.name} has a bring-in, no blinds")
    sizes = {name: _amount(fields[name], factor, name, AMOUNTS[name]) for name in names if name in _SIZES}
    if bring_in and "small_bet" in sizes and bring_in >= sizes["small_bet"]:  # as pokerkit refuses it
        small = fields["small_bet"]
        raise Rejected("malformed", f"bring_in: {fields['bring_in']} is not less than small_bet, {small}")
    actions = fields["actions"]
    if not isinstance(actions, list) or actions and set(map(type, actions)) != _STRS:
        raise Rejected("malformed", "actions must be a list of strings")
    trimming = fields.get("ante_trimming_status", False)
    if not isinstance(trimming, bool):
        raise Rejected("malformed", f"ante_trimming_status: {_shown(trimming)} is not true or false")
    finishing = _amounts(fields, "finishing_stacks", n, factor) if "finishing_stacks" in fields else None
    winnings = _amounts(fields, "winnings", n, factor) if "winnings" in fields else None
    return Checked(
        variant=variant,
        seats=n,
        starting_stacks=stacks,
        antes=antes,
        blinds=blinds,
        bring_in=bring_in,
        actions=actions,
        trimming=trimming,
        finishing_stacks=finishing,
        winnings=winnings,
        players=_players(fields, n),
    )


def _amounts(fields: dict[str, Any], name: str, n: int, factor: int) -> list[int]:
    """A per-seat amount field in chips: one entry a seat (or, where the field may be, one amount for
    every seat)."""
    value = fields[name]
    kind = AMOUNTS[name]
    if not isinstance(value, list):
        if kind.or_one:
            return [_amount(value, factor, name, kind)] * n
        raise Rejected("malformed", f"{name}: {_shown(value)} is not a list of one amount a seat")
    if len(value) != n:
        raise Rejected("seat_count", f"{name} has {len(value)} entries for {n} players")
    if set(map(type, value)) == _INTS:  # what the notation's fast path gives: integers (bools are not)
        least = min(value)
        if least > 0 or least == 0 and not kind.positive:
            return [v * factor for v in value] if factor != 1 else list(value)
    return [_amount(v, factor, f"{name} (p{s + 1})", kind) for s, v in enumerate(value)]


def _amount(value: Any, factor: int, where: str, kind: Amount) -> int:
    """One amount in chips, ``value * factor`` exactly; ``where`` names it in messages."""
    if isinstance(value, bool) or not (type(value) is int or isinstance(value, Decimal) and value.is_finite()):
        what = "text" if isinstance(value, str) else "true or false" if isinstance(value, bool) else None
        shown = _shown(value) + (f", {what}," if what else "")
        raise Rejected("malformed", f"{where}: {shown} is not a number of chips")
    if value < 0 or kind.positive and value == 0:
        raise Rejected("malformed", f"{where}: {value} is {'negative' if value < 0 else 'not positive'}; {kind.rule}")
    if type(value) is int:
        return value * factor
    scaled = Fraction(value) * factor
    if scaled.denominator != 1:
        raise Rejected("fractional_chips", f"{where}: {value} x {factor} is not a whole number of chips")
    return int(scaled)


def _shown(value: Any) -> str:
    """A field's value as the file writes it (``true``, ``1.5``, ``'abc'``), for messages."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, list):
        return "[" + ", ".join(_shown(v) for v in value) + "]"
    return repr(value)


def _absent(fields: dict[str, Any], name: str, factor: int, why: str) -> None:
    """A forced bet the game does not have, present: amounts of 0 chips only."""
    value = fields[name]
    if any(_amount(v, factor, name, _ANY) for v in (value if isinstance(value, list) else [value])):
        raise Rejected("malformed", f"{name}: {_shown(value)} holds chips, but {why}")


def _players(fields: dict[str, Any], n: int) -> list[str] | None:
    """The players' names (optional): one string a seat."""
    if "players" not in fields:
        return None
    names = fields["players"]
    if not isinstance(names, list):
        raise Rejected("malformed", f"players: {_shown(names)} is not a list of one name a seat")
    if len(names) != n:
        raise Rejected("seat_count", f"players has {len(names)} entries for {n} players")
    if set(map(type, names)) != _STRS:
        s, name = next((s, name) for s, name in enumerate(names) if type(name) is not str)
        raise Rejected("malformed", f"players (p{s + 1}): {_shown(name)} is not a name (text)")
    return list(names)
