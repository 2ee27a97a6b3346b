"""Numba-compiled kernels over numpy arrays: cards, hand evaluators, decks, pots, teams.

No I/O lives here. Each module exposes thin checked wrappers (public names)
over private ``_kernel`` functions compiled with ``cache=True``.
"""
