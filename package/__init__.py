"""cardbatch: a high-throughput batch evaluator for card-game logs.

The one installed top-level package. Its two halves live in the repository's
``kernels/`` and ``batch/`` folders and install as :mod:`cardbatch.kernels`
(numba kernels over numpy arrays, no I/O) and :mod:`cardbatch.batch` (Parquet
in and out, engines, the command line); ``pyproject.toml`` maps the folders.
This folder holds the package's own ``__init__`` and ``__main__``, and :mod:`cardbatch.games`
(the game registry: one spec per game, standard library only).

``cardbatch.settle(data)`` and ``cardbatch.audit(data)`` settle a DataFrame (pyarrow, Polars,
pandas, DuckDB: anything that speaks Arrow) or a path in memory, as the command line does:

>>> import cardbatch
>>> from cardbatch.batch.generate import generate_hands
>>> s = cardbatch.settle(generate_hands("holdem", 200, seed=1).table, policy="standard")
>>> s.summary["rows_read"], s.results.num_rows + s.errors.num_rows
(200, 200)
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    __version__: str = version("cardbatch")
except PackageNotFoundError:  # imported from a source tree that was never installed
    __version__ = "0+unknown"

__all__ = ["InputError", "__version__", "audit", "rank_decks", "settle", "simulate"]


def __getattr__(name: str) -> object:
    """The DataFrame API (``settle``, ``audit``, ``rank_decks``, ``simulate``), loaded on first use
    (so that ``import cardbatch`` and ``cardbatch --help`` load neither numba nor pyarrow)."""
    if name in ("settle", "audit", "rank_decks", "simulate"):
        from cardbatch.batch import frames

        return getattr(frames, name)
    if name == "InputError":  # what the API raises for input it cannot read as asked
        from cardbatch.batch.io.errors import InputError

        return InputError
    raise AttributeError(f"module 'cardbatch' has no attribute {name!r}")
