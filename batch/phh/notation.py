"""PHH text to hands: split a ``.phh``/``.phhs`` file into hand sections and read their fields.

A ``.phh`` file is one TOML document per hand; a ``.phhs`` file holds many,
each under a table header (``[1]``, ``[2]``, ...). Headers are found by line,
so a file of millions of hands is read one section at a time, and each
section is parsed by :mod:`tomllib` on its own (a broken hand breaks only
itself). Numbers with decimals are read as :class:`decimal.Decimal`, never as
floats: cents and half chips stay exact.

The chip factor (docs: import, chips) needs every amount of every hand before the
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

from cardbatch.batch.phh.schema import AMOUNTS

try:
    import tomllib
except ImportError:  # Python 3.10: the same parser, from PyPI (a dependency there)
    import tomli as tomllib

_HEADER = re.compile(r"^\[\s*([^\[\]]+?)\s*\]\s*(#.*)?$")
AMOUNT_FIELDS = tuple(AMOUNTS)  # every field the replay reads amounts from (:mod:`.schema`)
_AMOUNT_LINE = re.compile(r"^\s*(?:" + "|".join(AMOUNT_FIELDS) + r")\s*=(.*)$", re.M)
_CBR = re.compile(r"\bcbr\s+([0-9][0-9_,]*(?:\.[0-9]+)?)")
_DECIMAL = re.compile(r"(?<![\w.])[0-9][0-9_]*\.([0-9]+)")


class Malformed(ValueError):
    """A hand whose text is not a PHH hand this reader can take (bad TOML, a missing field)."""


def is_header(line: str) -> bool:
    """A ``.phhs`` section header line (``[1]``, ``["name"]``), not an array-of-tables line."""
    return not line.startswith("[[") and _HEADER.match(line.rstrip("\r\n")) is not None


def sections(text: str, multi: bool, first: int = 0) -> Iterator[tuple[int, str | None, str]]:
    """``(position, section name, text)`` of each hand of a file (or of a run of its sections whose
    first hand is at ``first``): one for ``.phh``, one per ``[name]`` header for ``.phhs`` (text
    before the first header, if any, is a hand too only when it is not blank)."""
    if not multi:
        yield first, None, text
        return
    position = first
    name: str | None = None
    lines: list[str] = []
    for line in text.splitlines(keepends=True):
        m = _HEADER.match(line.rstrip("\r\n")) if line.startswith("[") and not line.startswith("[[") else None
        if m:
            if name is not None or "".join(lines).strip():
                yield position, name, "".join(lines)
                position += 1
            name, lines = m.group(1).strip("'\""), []
        else:
            lines.append(line)
    if name is not None or "".join(lines).strip():
        yield position, name, "".join(lines)


def parse(text: str) -> dict[str, Any]:
    """The fields of one hand's TOML text, decimals exact; :class:`Malformed` when it is not TOML.

    PHH writers put each field on one line (``key = value``, arrays
    included), so :func:`_parse_lines` reads those with a few regular
    expressions; anything else (a multi-line array, an escape, a table) goes
    to :mod:`tomllib`. The fast path took 11 % of the import's time where
    ``tomllib`` took 60 % (7 against 60 thousand hands/s on its own).
    """
    fields = _parse_lines(text)
    if fields is not None:
        return fields
    try:
        parsed: dict[str, Any] = tomllib.loads(text, parse_float=Decimal)
        return parsed
    except tomllib.TOMLDecodeError as exc:
        raise Malformed(f"not valid TOML: {exc}") from None


_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ITEM = re.compile(r"\s*(?:'([^'\n]*)'|\"([^\"\\\n]*)\"|([^,\s'\"\[\]]+))\s*(?:,|$)")
_INT = re.compile(r"^[+-]?(?:0|[1-9](?:_?[0-9])*)$")
_DEC = re.compile(r"^[+-]?(?:0|[1-9](?:_?[0-9])*)\.[0-9](?:_?[0-9])*$")
_BARE = {"true": True, "false": False}
_QUOTED_ARRAY = re.compile(r"^'[^'\n]*'(?:[ \t]*,[ \t]*'[^'\n]*')*$")
_QUOTED = re.compile(r"'([^'\n]*)'")
_INT_ARRAY = re.compile(r"^[ \t]*-?(?:0|[1-9][0-9]*)(?:[ \t]*,[ \t]*-?(?:0|[1-9][0-9]*))*[ \t]*$")


def _scalar(quoted1: str | None, quoted2: str | None, bare: str | None) -> Any:
    """One value of the fast path; raises ``KeyError`` for anything it does not know."""
    if quoted1 is not None:
        return quoted1
    if quoted2 is not None:
        return quoted2
    if bare is None:
        raise KeyError(bare)
    if _INT.match(bare):
        return int(bare)
    if _DEC.match(bare):
        return Decimal(bare.replace("_", ""))
    return _BARE[bare]


def _parse_lines(text: str) -> dict[str, Any] | None:
    """``key = value`` lines with strings, integers, decimals, booleans and one-line arrays of
    them; None as soon as a line is anything else (then :mod:`tomllib` decides)."""
    fields: dict[str, Any] = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        # partition, not one regular expression for the line: its lazy value group backtracked at
        # every character, 13 of the 90 us a hand took
        key, equals, value = line.partition("=")
        key = key.rstrip(" \t")
        if not equals or not _KEY.fullmatch(key) or key in fields:
            return None
        value = value.lstrip(" \t")
        try:
            if value.startswith("[") and value.endswith("]"):
                inner = value[1:-1].strip(" \t")
                if inner.endswith(","):  # one trailing comma, after at least one item
                    inner = inner[:-1].rstrip(" \t")
                    if not inner:
                        return None
                if inner.startswith("'"):  # the actions, the players: single-quoted strings only
                    items = _QUOTED.findall(inner)
                    # as PHH writers space them, the items joined back are the text (no regex needed)
                    if "'" + "', '".join(items) + "'" == inner or _QUOTED_ARRAY.match(inner):
                        fields[key] = items
                        continue
                if _INT_ARRAY.match(inner):  # the amounts
                    fields[key] = [int(v) for v in inner.split(",")] if inner else []
                    continue
                items = []
                pos = 0
                while pos < len(inner):
                    item = _ITEM.match(inner, pos)
                    if item is None or item.end() == pos:
                        return None
                    items.append(_scalar(*item.groups()))
                    pos = item.end()
                fields[key] = items
            else:
                item = _ITEM.fullmatch(value)
                if item is None:
                    return None
                fields[key] = _scalar(*item.groups())
        except KeyError:
            return None
    return fields


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
