"""Numba-compiled kernels over numpy arrays: cards, hand evaluators, decks, pots, teams.

No data I/O lives here (``caching.py`` only reads the kernel sources to stamp
numba's cache). Each module exposes thin checked wrappers (public names) over
private ``_kernel`` functions compiled with ``cache=True``. What one module
shares with another is public in the module that owns it and named in its
docstring: the internal API (``decks.next_word``, ``decks.check_count``,
``holdem.board_words``/``seat_value``, ``cards.card_step``, ``threecard.trips_floor``, ``threecard.lookup_value``,
the ``bits`` helpers, the modules of ``pots``); the docs' Python API page lists what
users call.
"""

from pathlib import Path

from .caching import install

install(Path(__file__).parent)  # before any kernel is defined: see caching.py
