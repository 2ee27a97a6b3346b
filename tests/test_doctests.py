"""The examples in the package's docstrings run and print what they say."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import cardbatch.batch
import cardbatch.kernels


def _modules_with_examples() -> list[str]:
    names = []
    for package in (cardbatch.kernels, cardbatch.batch):  # mapped folders: walk each one
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            module = importlib.import_module(info.name)
            if any(test.examples for test in doctest.DocTestFinder().find(module)):
                names.append(info.name)
    return names


MODULES = _modules_with_examples()


def test_the_settlement_api_has_examples():
    assert "cardbatch.kernels.pots.api" in MODULES


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
