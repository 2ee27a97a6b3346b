"""The examples in the package's docstrings and in the README run and print what they show.

Every module of the installed ``cardbatch`` is found by walking its packages (``pkgutil.walk_packages``
over each package pyproject.toml installs: an editable install maps ``kernels/`` and ``batch/`` from
elsewhere, so ``cardbatch.__path__`` alone does not reach them), so a new module's examples run without
a list to edit; a module with no example passes."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
import re

import pytest
from conftest import ROOT

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

# Modules whose examples take seconds (they compile kernels or walk all-ins): out of the fast loop.
SLOW = {"cardbatch.kernels.equity"}


def _modules() -> list[str]:
    installed = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    names = set()
    for package in installed:
        names.add(package)
        names |= {m.name for m in pkgutil.walk_packages(importlib.import_module(package).__path__, package + ".")}
    return sorted(n for n in names if not n.endswith(".__main__"))  # __main__ runs the command line


MODULES = _modules()


def test_the_walk_finds_the_modules_that_hold_examples():
    """The walk reaches every part of the package (so no module's examples are skipped in silence)."""
    for name in ("cardbatch", "cardbatch.kernels.pots.api", "cardbatch.batch.settle.fairness.stats", "cardbatch.games"):
        assert name in MODULES


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in SLOW else n for n in MODULES])
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


def test_the_readme_python_example():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert blocks, "the README has no Python example"
    for block in blocks:
        test = doctest.DocTestParser().get_doctest(block, {}, "README.md", "README.md", 0)
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
        runner.run(test)
        assert test.examples and runner.failures == 0
