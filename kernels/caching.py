"""Numba's on-disk cache, made to notice a change in any kernel file.

numba keys a cached function on the content of the file that defines it and
nothing else. Kernels here inline helpers from other files (the pot driver
inlines layering, splitting, winners and the policies; deck ranking inlines
the evaluators), so after a change to a helper alone, numba would load the
old build: after ``pip install`` of a new version too, since pip leaves the
cache files behind. That is a silently wrong payout.

:func:`install` puts a locator in front of numba's own for the functions
defined under one folder: it stores the cache where numba's locator would,
but stamps it with the fingerprint of every source and table file under that
folder as well, so any change there makes every kernel's cache stale
(recompiled once, then cached again). Functions elsewhere are untouched.
Where nothing is writable (a read-only install and no writable home), the
cache goes to a temporary folder with a one-line note instead of numba's
"no locator available" error. :func:`lasting_cache_problem` says whether the
cache would outlast the process (``cardbatch compile`` is pointless if not).
"""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
from pathlib import Path

from numba.core import caching, config

_IMPL = getattr(caching, "CacheImpl", None) or caching._CacheImpl  # renamed in numba 0.61


_USER_PROVIDED = getattr(caching, "UserProvidedCacheLocator", None) or caching._UserProvidedCacheLocator
_temporary: list[str] = []  # the temporary cache this process fell back to, if it did


def _fall_back_to_temporary_cache() -> None:
    """Point numba's cache at a fresh temporary folder (once; worker processes inherit it through
    ``NUMBA_CACHE_DIR``) when neither the package's folder nor the user's cache is writable."""
    if config.CACHE_DIR:
        return
    path = tempfile.mkdtemp(prefix="cardbatch-numba-")
    _temporary.append(path)
    config.CACHE_DIR = os.environ["NUMBA_CACHE_DIR"] = path
    print(
        f"cardbatch: no writable numba cache, compiling into {path} (set NUMBA_CACHE_DIR to keep it)", file=sys.stderr
    )


def lasting_cache_problem() -> str | None:
    """Why numba's cache of the kernels (the functions of this file's folder) would not outlast this
    process, or None.

    ``NUMBA_CACHE_DIR`` set: it must be a folder this process can create and write in (numba would
    pass over it silently and cache beside the package, where it can). Unset: the package's folder or
    the user's cache folder must be writable (else each run compiles into a temporary folder of its
    own). Checked as numba checks it, by making the folder and a file in it: ``cardbatch compile``
    asks before it compiles anything.
    """
    if _temporary:  # this process already fell back to a temporary cache
        return "neither the package's folder nor the user's cache folder is writable"
    if config.CACHE_DIR:
        try:
            os.makedirs(config.CACHE_DIR, exist_ok=True)
            tempfile.TemporaryFile(dir=config.CACHE_DIR).close()
        except OSError as exc:
            return f"NUMBA_CACHE_DIR={config.CACHE_DIR} is not a folder this user can write ({exc.strerror})"
        return None
    here = os.path.abspath(__file__)
    for locator in (c for c in _IMPL._locator_classes if not hasattr(c, "root")):  # numba's own locators
        if locator.from_function(fingerprint, here) is not None:
            return None
    return f"neither the package's folder ({os.path.dirname(here)}) nor the user's cache folder is writable"


def fingerprint(root: Path) -> str:
    """SHA-256 of every ``.py`` and ``.npz`` file under ``root`` (names and contents)."""
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.suffix in (".py", ".npz") and "__pycache__" not in p.parts):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()


def install(root: Path) -> None:
    """Stamp the cache of every function defined under ``root`` with :func:`fingerprint`."""
    root_text = os.path.abspath(root) + os.sep
    if any(getattr(c, "root", None) == root_text for c in _IMPL._locator_classes):
        return
    others = tuple(_IMPL._locator_classes)
    stamp = fingerprint(Path(root))

    class FolderStampedLocator(caching._CacheLocator):
        """numba's locator for the function, with the folder's fingerprint added to its stamp."""

        root = root_text

        def __init__(self, inner: caching._CacheLocator):
            self._inner = inner
            self._py_file = getattr(inner, "_py_file", "")  # numba names it when it cannot cache a function

        def ensure_cache_path(self):
            self._inner.ensure_cache_path()

        def get_cache_path(self):
            return self._inner.get_cache_path()

        def get_source_stamp(self):
            return self._inner.get_source_stamp(), stamp

        def get_disambiguator(self):
            return self._inner.get_disambiguator()

        @classmethod
        def from_function(cls, py_func, py_file):
            if not os.path.abspath(py_file).startswith(root_text):
                return None
            for other in others:
                inner = other.from_function(py_func, py_file)
                if inner is not None:
                    return cls(inner)
            _fall_back_to_temporary_cache()  # nowhere writable: a temporary cache, not a crash
            inner = _USER_PROVIDED.from_function(py_func, py_file)
            return cls(inner) if inner is not None else None

    _IMPL._locator_classes = [FolderStampedLocator, *others]
