"""Pot settlement over arrays of tables: side pots (standard) and per-street policies (docs: Rules).

One layering routine (:func:`.layering.layer`) turns a row of contributions
into pots: levels are the distinct positive contributions, a layer holds
``(L[k] - L[k-1]) * (seats with contrib >= L[k])`` chips, its eligible seats
are the live seats with ``contrib >= L[k]``, and adjacent layers of the same
kind with the same eligible set merge into one pot. Every policy distributes
those pots:

- ``standard``: each pot to its best eligible hands (docs: Rules), with rake;
- ``presence``, ``ratio_rank``, ``hybrid``: per street (docs: Rules).

Integer chips only. Equal splits give ``amount // k`` (in multiples of
``chip_unit``) and hand the rest out one piece per winner in seat order from
the first seat left of the button (or all of it to that first winner with
``odd_chips="first_winner"``); proportional splits round down and hand out
the remainder the same way.

The modules follow the concerns, bottom up: :mod:`.winners` (best hands of a
seat set), :mod:`.layering` (pots of one row), :mod:`.splitting` (whole-chip
shares), :mod:`.policies` (who gets which pot), :mod:`.driver` (the parallel
kernel over tables) and :mod:`.api` (the checked public wrappers, whose names
are re-exported here).
"""

from __future__ import annotations

from ..reasons import BAD_BUTTON, NEGATIVE_CONTRIB, NO_LIVE_SEAT, OK, ORPHAN_CHIPS, REASONS, SEAT_COUNT
from .api import MAX_SEATS, Options, Settlement, settle, settle_detailed, validate
from .layering import POT_NORMAL, POT_ORPHAN, POT_UNCALLED
from .policies import POLICIES, Policy

__all__ = [
    "BAD_BUTTON",
    "MAX_SEATS",
    "NEGATIVE_CONTRIB",
    "NO_LIVE_SEAT",
    "OK",
    "ORPHAN_CHIPS",
    "POLICIES",
    "POT_NORMAL",
    "POT_ORPHAN",
    "POT_UNCALLED",
    "REASONS",
    "SEAT_COUNT",
    "Options",
    "Policy",
    "Settlement",
    "settle",
    "settle_detailed",
    "validate",
]
