"""Numba-compiled kernels over numpy arrays: cards, hand evaluators, decks, pots, teams.

No I/O lives here. Each module exposes thin checked wrappers (public names)
over private ``_kernel`` functions compiled with ``cache=True``.
"""

from pathlib import Path

from .caching import install

install(Path(__file__).parent)  # before any kernel is defined: see caching.py
