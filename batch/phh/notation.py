"""PHH text to hands: split a ``.phh``/``.phhs`` file into hand sections and read their fields.

A ``.phh`` file is one TOML document per hand; a ``.phhs`` file holds many,
each under a table header (``[1]``, ``[2]``, ...). Headers are found by line,
so a file of millions of hands is read one section at a time, and each
section is parsed by :mod:`tomllib` on its own (a broken hand breaks only
itself). Numbers with decimals are read as :class:`decimal.Decimal`, never as
floats: cents and half chips stay exact.

The chip factor (SPEC §8.1) needs every amount of every hand before the
first hand is written; :func:`denominators` finds them with a regular
expression over the amount fields and ``cbr`` actions only (a ``$1.50`` in an
event name must not count), far cheaper than parsing.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import tomllib

_HEADER = re.compile(r"^\[\s*([^\[\]]+?)\s*\]\s*(#.*)?$")
AMOUNT_FIELDS = (
    "antes",
    "blinds_or_straddles",
    "starting_stacks",
    "finishing_stacks",
    "winnings",
    "min_bet",
    "small_bet",
    "big_bet",
    "bring_in",
)
_AMOUNT_LINE = re.compile(r"^\s*(?:" + "|".join(AMOUNT_FIELDS) + r")\s*=(.*)$", re.M)
_CBR = re.compile(r"\bcbr\s+([0-9][0-9_,]*(?:\.[0-9]+)?)")
_DECIMAL = re.compile(r"(?<![\w.])[0-9][0-9_]*\.([0-9]+)")


class Malformed(ValueError):
    """A hand whose text is not a PHH hand this reader can take (bad TOML, a missing field)."""


def sections(text: str, multi: bool) -> Iterator[tuple[int, str | None, str]]:
    """``(position, section name, text)`` of each hand of a file: one for ``.phh``, one per
    ``[name]`` header for ``.phhs`` (text before the first header, if any, is a hand too only when
    it is not blank)."""
    if not multi:
        yield 0, None, text
        return
    position = 0
    name: str | None = None
    lines: list[str] = []
    for line in text.splitlines(keepends=True):
        m = _HEADER.match(line) if line.startswith("[") else None
        if m and not line.startswith("[["):
            if name is not None or "".join(lines).strip():
                yield position, name, "".join(lines)
                position += 1
            name, lines = m.group(1).strip("'\""), []
        else:
            lines.append(line)
    if name is not None or "".join(lines).strip():
        yield position, name, "".join(lines)


def parse(text: str) -> dict[str, Any]:
    """The fields of one hand's TOML text, decimals exact; :class:`Malformed` when it is not TOML."""
    try:
        return tomllib.loads(text, parse_float=Decimal)
    except tomllib.TOMLDecodeError as exc:
        raise Malformed(f"not valid TOML: {exc}") from None


def denominators(text: str) -> int:
    """The least common multiple of the denominators of every amount in ``text`` (1 when every
    amount is whole): the smallest chip factor that makes them all integers."""
    lcm = 1
    for chunk in (*(m.group(1) for m in _AMOUNT_LINE.finditer(text)), *(m.group(1) for m in _CBR.finditer(text))):
        for m in _DECIMAL.finditer(chunk):
            digits = m.group(1).rstrip("0")
            if digits:
                den = 10 ** len(digits)
                den //= math.gcd(int(digits), den)
                lcm = lcm * den // math.gcd(lcm, den)
    return lcm
