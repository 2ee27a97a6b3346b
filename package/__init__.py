"""cardbatch: a high-throughput batch evaluator for card-game logs.

The one installed top-level package. Its two halves live in the repository's
``kernels/`` and ``batch/`` folders and install as :mod:`cardbatch.kernels`
(numba kernels over numpy arrays, no I/O) and :mod:`cardbatch.batch` (Parquet
in and out, engines, the command line); ``pyproject.toml`` maps the folders.
This folder holds only the package's own ``__init__`` and ``__main__``.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    __version__: str = version("cardbatch")
except PackageNotFoundError:  # imported from a source tree that was never installed
    __version__ = "0+unknown"

__all__ = ["__version__"]
